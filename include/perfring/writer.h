/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer: file mode (seekable output, header + attrs + ids + data
 * + feature sections) and pipe mode (`perf record -o -` stream), written for
 * perf 6.1 and newer readers.
 *
 * Records come from one or more sources (rings, CPUs, threads...).  Each
 * source must be fed in its own time order; the writer merges the sources by
 * time through a bounded window and emits FINISHED_ROUND records so that
 * `perf report` can sort with bounded memory.  Memory stays flat however
 * large the input is (window_bytes plus a write buffer).
 *
 * Typical use:
 *
 *	PERFRING_WRITER_OPTS(o, .path = "perf.data");
 *	perfring_writer_open(&o, &diag, &w);
 *	PERFRING_EVENT_DESC(ev, .attr = &attr, .name = "cpu-clock");
 *	perfring_writer_add_event(w, &ev, &diag);
 *	s = perfring_writer_add_source(w);	// one per ring / CPU
 *	perfring_writer_write(w, s, rec, rec_len, &diag);	// many times
 *	perfring_writer_end_source(w, s, &diag);	// when s is exhausted
 *	perfring_writer_close(w, &diag);	// 0: perf.data is in place
 *
 * Feed the sources in turns (a batch from each), not one whole source after
 * the other: the merge holds at most window_bytes while it waits for a
 * source that has nothing queued and has not ended.  Past that it flushes
 * what it has; a record that the lagging source then brings and that is
 * older than perf's round limit is still written but counted as "late"
 * (perf will warn "N out of order events").  End each source as soon as
 * it is exhausted, so that the merge stops waiting for it.
 *
 * A path output is written under a temporary name (PATH.tmp.XXXXXX, same
 * directory) and renamed into place by a successful perfring_writer_close();
 * on any failure, or perfring_writer_abort(), the temporary file is removed
 * and PATH is left untouched.
 *
 * A writer is not thread-safe: use it from one thread at a time.  Writing
 * into a pipe whose reader has gone raises SIGPIPE as any write(2) does;
 * ignore SIGPIPE to get -EPIPE instead.
 */
#ifndef PERFRING_WRITER_H
#define PERFRING_WRITER_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/writer.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_writer;
struct perfring_perfdata;

/* What to do about kernel maps for events that do not exclude the kernel. */
enum perfring_writer_kmap {
	/*
	 * Default: write the `[kernel.kallsyms]_text` MMAP (pid -1, misc
	 * KERNEL, start = pgoff = address of _text) read from /proc/kallsyms;
	 * if that is not readable, set exclude_kernel in the written attrs
	 * (and log a warning saying so), so that perf report does not warn
	 * about missing kernel maps.
	 */
	PERFRING_WRITER_KMAP_AUTO = 0,
	/* Always set exclude_kernel in the written attrs, no kernel MMAP. */
	PERFRING_WRITER_KMAP_EXCLUDE = 1,
	/* Write the attrs as given and no kernel MMAP. */
	PERFRING_WRITER_KMAP_NONE = 2,
};

/*
 * Whose host facts the header carries: HOSTNAME, OSRELEASE, ARCH, NRCPUS,
 * CPUDESC, CPUID, TOTAL_MEM, CLOCKID and CLOCK_DATA describe the machine
 * (and boot) that recorded the data.
 */
enum perfring_writer_host {
	/*
	 * Default: this machine's (uname(2), /proc, its clocks), for data
	 * recorded here; an option or perfring_writer_set_feature() may
	 * override each.
	 */
	PERFRING_WRITER_HOST_LOCAL = 0,
	/*
	 * Only what is given (the hostname/osrelease/arch options,
	 * perfring_writer_set_feature(), perfring_writer_copy_features()):
	 * for data from another machine, or from nobody knows where, which
	 * must not be presented as this machine's.
	 */
	PERFRING_WRITER_HOST_NONE = 1,
};

/*
 * Options.  Fields are only ever appended; `sz` must be set to the size of
 * the structure the caller was compiled with (use PERFRING_WRITER_OPTS).
 * A zero field means "the default".
 */
struct perfring_writer_opts {
	size_t sz;
	/*
	 * Output path; "-" means standard output in pipe mode.  A path that
	 * exists and is not a regular file, or lies under /dev or /proc, is
	 * written directly (no temporary file), in pipe mode unless it is a
	 * seekable regular file.  If NULL, fd.
	 */
	const char *path;
	/*
	 * Output fd when path is NULL.  Borrows fd (the caller keeps and
	 * closes it); 0 is refused, being what an unset field holds.
	 */
	int fd;
	/* Write the pipe format (also chosen for "-" and unseekable outputs). */
	int pipe_mode;
	/* Keep record types perf 6.1 refuses instead of dropping them. */
	int keep_unknown;
	enum perfring_writer_kmap kmap;
	/* Feature overrides (NULL: from uname(2) / the library version). */
	const char *hostname;
	const char *osrelease;
	const char *arch;
	const char *version;
	/* CMDLINE feature (argc == 0: /proc/self/cmdline). */
	int argc;
	const char *const *argv;
	/* Merge window in bytes of queued records (0: 64 MiB; min 64 KiB). */
	size_t window_bytes;
	/* Data bytes between FINISHED_ROUND records (0: 4 MiB). */
	size_t round_bytes;
	/* Where to read _text (NULL: /proc/kallsyms). */
	const char *kallsyms_path;
	/*
	 * File mode: write the BUILD_ID feature for the files of user-space
	 * MMAP/MMAP2 records (ids from MMAP2 build-id records, else read from
	 * the ELF files at close).  Only for files that are those the data
	 * was recorded from: perf refuses symbols when the ids differ.
	 */
	int build_ids;
	/*
	 * zstd level (1 fastest .. 22 smallest) of a compressed data section:
	 * the records go in PERF_RECORD_COMPRESSED records and the
	 * COMPRESSED feature is written, as `perf record -z` does (perf
	 * 5.1 and newer read it); FINISHED_ROUND records stay outside.  0:
	 * not compressed.  perfring_writer_open() refuses other values
	 * (-EINVAL) and a library built without zstd (-ENOTSUP).
	 */
	int compression_level;
	/*
	 * Events of type PERFRING_TYPE_TRACEPOINT: the HEADER_TRACING_DATA
	 * feature (pipe mode: record) that perf script and perf report need
	 * to show their fields is built from the format files under this
	 * tracefs directory (NULL: perfring_tracefs_dir()'s search).  Each
	 * event is found by its name ("sched:sched_switch") or else by its
	 * id (attr.config); one that cannot be found leaves the feature out
	 * with a warning.
	 */
	const char *tracefs_path;
	/*
	 * A HEADER_TRACING_DATA payload to write instead (for instance the
	 * one of the perf.data being rewritten); copied by open.
	 */
	const void *tracing_data;
	size_t tracing_data_size;
	/* Whose host facts the header carries (0: this machine's). */
	enum perfring_writer_host host;
	/*
	 * The expected size of the output in bytes, or 0.  When the writer
	 * creates the output file (path, not pipe mode), it reserves that
	 * much disk up front (fallocate(2), FALLOC_FL_KEEP_SIZE), so the
	 * kernel copies each write into blocks already allocated instead of
	 * reserving them a page at a time.  Only a hint: the file ends up
	 * its real size (what is reserved and not used is given back at
	 * close), and where nothing can be reserved it is written as usual.
	 */
	uint64_t size_hint;
};

#define PERFRING_WRITER_OPTS(name, ...)					\
	struct perfring_writer_opts name = {				\
		.sz = sizeof(struct perfring_writer_opts),		\
		__VA_ARGS__						\
	}

/*
 * Open a writer.  Nothing is written to the output before the first record
 * (or close), so events can be added first.
 * Returns 0 and *out; -EINVAL (bad options, or opts->sz larger than the
 * library knows with unknown non-zero fields), -ENOMEM, or the -errno of
 * creating the temporary file (diag names the file).
 */
PERFRING_API int perfring_writer_open(const struct perfring_writer_opts *opts,
				      struct perfring_diag *diag,
				      struct perfring_writer **out);

/*
 * Declare an event: ev->attr, its sample ids (ev->ids, ev->nr_ids) and a
 * name for the EVENT_DESC feature (ev->name; NULL or "": derived from
 * type/config); ev->sz set (PERFRING_EVENT_DESC), leader and supported
 * ignored; everything is copied.  Only before the
 * first record.  If ids is NULL / nr_ids is 0, one unique id is assigned
 * (perfring_writer_event_id() tells it; records must carry it when there are
 * several events).  With several events perf requires ID or IDENTIFIER in
 * every sample_type at the same position, equal sample_id_all and equal
 * read_format: violations are refused here with -EINVAL and a diag.
 * attr->size says which bytes are meaningful (0: the whole struct; 1 to
 * 63: -EINVAL); the written attr.size is the smallest version holding every
 * non-zero field, at most 128 (VER7, what perf 6.1 reads; always 128 in
 * pipe mode); a non-zero config3 is dropped with a warning.
 * Returns the event index (>= 0), -EINVAL (also for ev->sz, by the
 * versioned-structure rule of perfring.h), -EEXIST (id already used),
 * -EBUSY (records already written), -ENOMEM.
 */
PERFRING_API int perfring_writer_add_event(struct perfring_writer *w,
					   const struct perfring_event_desc *ev,
					   struct perfring_diag *diag);

/*
 * Write header feature id (1..255, PERFRING_FEAT_*, also ids this library
 * does not know) as the size bytes at data, in this machine's byte order,
 * instead of what the writer would build; data NULL with size 0 leaves
 * the feature out.  The bytes are copied.  A later call for the same id
 * replaces the earlier one.  For a rewrite of a perf.data, whose
 * features describe the recording, not this machine.
 *   BUILD_ID: the given table comes first; with build_ids set, the
 *     writer's own entries follow for the files the table does not name.
 *   TRACING_DATA: as opts->tracing_data (also the pipe-mode record).
 * The writer builds EVENT_DESC (from the events), COMPRESSED (from its
 * own compression) and SAMPLE_TIME (from the samples written); AUXTRACE
 * and DIR_FORMAT describe layouts it does not write: those five are
 * -EINVAL.  Pipe mode writes features at the start: -EBUSY once a record
 * was written.  Returns 0, -EINVAL, -EBUSY or -ENOMEM (diag says which).
 */
PERFRING_API int perfring_writer_set_feature(struct perfring_writer *w, uint32_t id,
					     const void *data, size_t size,
					     struct perfring_diag *diag);

/* What perfring_writer_copy_features() copies: 0, or only the ones named. */
enum perfring_writer_copy {
	PERFRING_WRITER_COPY_ALL = 0,		/* every feature it may */
	PERFRING_WRITER_COPY_BUILD_IDS = 1,	/* BUILD_ID, merged */
	PERFRING_WRITER_COPY_TRACING_DATA = 2,	/* TRACING_DATA */
};

/*
 * Carry the header features of pd, a perf.data being rewritten, into w
 * (perfring_writer_set_feature() of each), byte for byte; what: 0 for
 * all, else a mask of enum perfring_writer_copy: host facts,
 * topology, BUILD_ID, TRACING_DATA and features this library does not
 * know.  Not copied: what the writer builds (see set_feature), and
 * CMDLINE, which says how the output was made (the writer's own argv).
 * Pipe mode: the features read so far (HEADER_FEATURE records, and the
 * HEADER_TRACING_DATA record's payload).
 * BUILD_ID merges: entries of pd for a file (pid and name) the table
 * holds already are skipped; one with a different build id is skipped
 * and counted in *conflicts (if not NULL).
 * TRACING_DATA is checked first (perfring_tracing_data_check): a damaged
 * blob is left out with a warning naming its offset, since perf may crash
 * on it.
 * A byte-swapped pd: the features whose layout the library knows are
 * swapped to this machine's order; the others (BPF_*, unknown ids) are
 * left out, each with a warning.
 * Returns the number of features copied, or -EINVAL, -EBUSY, -ENOMEM.
 */
PERFRING_API int perfring_writer_copy_features(struct perfring_writer *w,
					       struct perfring_perfdata *pd,
					       unsigned what,
					       uint64_t *conflicts,
					       struct perfring_diag *diag);

/* First id of event idx, or 0 if there is no such event. */
PERFRING_API uint64_t perfring_writer_event_id(const struct perfring_writer *w,
					       uint32_t idx);

/*
 * Add a record source (a stream fed in its own time order).  Returns the
 * source index (>= 0) or -ENOMEM.  A writer with no source added has one
 * implicit source 0.
 */
PERFRING_API int perfring_writer_add_source(struct perfring_writer *w);

/*
 * Declare that a source has no more records, so the merge stops waiting for
 * it.  Returns 0, -EINVAL (no such source), or a write error.
 */
PERFRING_API int perfring_writer_end_source(struct perfring_writer *w,
					    uint32_t source,
					    struct perfring_diag *diag);

/*
 * Add one whole record (header included; header.size bytes of the len
 * available at rec are used; rec need not be aligned) from a source.  The
 * event is found from the record's id as perf does (the only event when
 * there is one); the time from the SAMPLE's TIME field or the sample_id_all
 * trailer.  Records without a time keep their place in the source's order.
 * Record types perf 6.1 refuses (type 0, kernel types >= 22, perf-tool
 * types >= 83) are dropped and counted unless keep_unknown; types the
 * writer manages itself (HEADER_ATTR, HEADER_FEATURE, FINISHED_ROUND,
 * HEADER_TRACING_DATA, AUXTRACE, COMPRESSED, HEADER_EVENT_TYPE) are dropped
 * and counted as "managed".
 * Returns 0 (written, queued or dropped); -EINVAL for a malformed record, a
 * record whose id matches no event, or a bad or ended source (diag says
 * which, the writer stays usable); or a negative errno of writing the output (the
 * writer is then failed: only close/abort remain, and close reports it).
 */
PERFRING_API int perfring_writer_write(struct perfring_writer *w, uint32_t source,
				       const void *rec, size_t len,
				       struct perfring_diag *diag);

/*
 * Flush the merge, write the feature sections, patch the header, and rename
 * the temporary file into place.  Frees w in every case.
 * Returns 0 or the negative errno of the first failure (diag names the
 * file); on failure the temporary file is removed and PATH untouched.
 * Logs one warning per dropped unknown record type, with its count.
 */
PERFRING_API int perfring_writer_close(struct perfring_writer *w,
				       struct perfring_diag *diag);

/* Discard everything: remove the temporary file, free w (NULL is fine). */
PERFRING_API void perfring_writer_abort(struct perfring_writer *w);

struct perfring_writer_stats {
	size_t sz;			/* set by the caller: sizeof(this) */
	uint64_t records;		/* caller records written to the output */
	uint64_t data_bytes;		/* bytes of the data section / stream */
	uint64_t rounds;		/* FINISHED_ROUND records written */
	uint64_t late;			/* records older than perf's round limit */
	uint64_t dropped_unknown;	/* records of types perf 6.1 refuses */
	uint64_t dropped_managed;	/* records of writer-managed types */
	uint64_t forced_flushes;	/* window overflows (a source ran ahead) */
	uint32_t unknown_types;		/* distinct dropped unknown types */
	int kernel_mmap;		/* 1 if a kernel MMAP was written */
	int exclude_kernel_set;		/* 1 if exclude_kernel was forced */
	int pipe_mode;			/* 1 if the output is a pipe stream */
	uint64_t compressed;		/* COMPRESSED records written */
	uint64_t compressed_input;	/* record bytes that went into them */
	int tracing_data;		/* 1 if HEADER_TRACING_DATA was written */
};

/*
 * Fill st (st->sz set by the caller).  Returns 0 or -EINVAL.  Once every
 * source has ended (or with the single implicit source) nothing is queued
 * and the counts are final: perfring_writer_close() adds only the features.
 */
PERFRING_API int perfring_writer_get_stats(const struct perfring_writer *w,
					   struct perfring_writer_stats *st);

/*
 * Dropped unknown record types: up to max (type, count) pairs, ascending by
 * type.  Returns the number of distinct types dropped (may exceed max).
 */
PERFRING_API int perfring_writer_dropped_types(const struct perfring_writer *w,
					       uint32_t *types, uint64_t *counts,
					       size_t max);

/* ---- tracefs ---------------------------------------------------------- */

/*
 * Find tracefs: dir if not NULL, else $PERFRING_TRACEFS if set, else
 * /sys/kernel/tracing, else /sys/kernel/debug/tracing (the one under
 * debugfs); a candidate counts
 * when it has an events directory.  Returns 0 with the directory in buf
 * (len bytes), -ENOENT (diag names every place looked at and how to mount
 * it), -EACCES (diag names the directory that cannot be read),
 * -ENAMETOOLONG or -EINVAL.
 */
PERFRING_API int perfring_tracefs_dir(const char *dir, char *buf, size_t len,
				      struct perfring_diag *diag);

#define PERFRING_TRACEPOINT_NAME_MAX 256

struct perfring_tracepoint {
	char name[2 * PERFRING_TRACEPOINT_NAME_MAX];	/* "sched:sched_switch" */
	uint64_t id;			/* attr.config of PERFRING_TYPE_TRACEPOINT */
};

/*
 * Tracepoints "SUBSYSTEM:EVENT" under the tracefs directory root; either
 * part may be a glob (fnmatch: * ? [...]).  Returns how many matched
 * (> 0) with a malloc'ed array sorted by name in *out (free() it); or
 * -EINVAL (pattern not SUBSYSTEM:EVENT), -ENOENT (no match: diag names
 * the id file looked for), -EACCES (diag says what to do), -ENOMEM.
 */
PERFRING_API int perfring_tracepoints_find(const char *root, const char *pattern,
					   struct perfring_tracepoint **out,
					   struct perfring_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_WRITER_H */
