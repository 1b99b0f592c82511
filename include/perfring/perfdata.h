/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data reader: file mode and pipe mode, every perf version from 2.6.31
 * on (the legacy "PERFFILE" format included: see perfring_perfdata_open),
 * either byte order, PERF_RECORD_COMPRESSED (zstd), feature sections.
 *
 * The reader streams: it keeps a window of the input (at most 256 KiB by
 * default; a pipe-mode stream starts with 4 KiB of it and grows while the
 * input fills it) and returns records in place, so memory does not grow
 * with the file.  Every size and offset in the input is bounds-checked; a problem
 * ends the iteration with a negative errno and a diagnostic naming the file
 * and the byte offset.  Records before the damage are returned first.
 *
 * A reader object is not thread-safe; use one per thread.
 */
#ifndef PERFRING_PERFDATA_H
#define PERFRING_PERFDATA_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/perfdata.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Typical use (a dump tool):
 *
 *	struct perfring_perfdata *pd;
 *	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
 *	struct perfring_diag d;
 *	char msg[1024];
 *	int r;
 *
 *	if (perfring_perfdata_open(path, NULL, &d, &pd) < 0)
 *		errx(2, "%s", perfring_diag_format(&d, msg, sizeof(msg)));
 *	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1)
 *		print(rec.offset, rec.hdr, rec.attr);   // SAMPLE: decode
 *					// with perfring_sample_decode(rec.attr, ...)
 *	if (r < 0)
 *		warnx("%s", perfring_diag_format(&d, msg, sizeof(msg)));
 *	st = perfring_perfdata_get_stats(pd);	   // "Aggregated stats"
 *	for (i = 0; i < perfring_perfdata_nr_features(pd); i++)
 *		if (perfring_perfdata_feature(pd, i, &f, &d) == 0)
 *			perfring_perfdata_feature_format(pd, &f, buf, sizeof(buf));
 *	perfring_perfdata_close(pd);
 */

struct perfring_perfdata;

/*
 * Options for perfring_perfdata_open*().  Fields are only ever appended;
 * set .sz = sizeof(struct perfring_perfdata_opts) (PERFRING_PERFDATA_OPTS
 * does it).  The versioned-structure rule of perfring.h applies: a caller
 * compiled against a newer header that sets fields this library does not
 * know (non-zero bytes past the struct it knows) is refused with -EINVAL.
 */
struct perfring_perfdata_opts {
	size_t sz;		/* sizeof(struct perfring_perfdata_opts) */
	size_t window;		/* read window in bytes; 0 = 256 KiB, min
				 * 128 KiB.  Pipe mode grows to it from
				 * 4 KiB.  Always read into memory, never
				 * mapped: a file that shrinks while it is
				 * read reads as truncated. */
	const char *name;	/* name used in diagnostics (default: the path,
				 * "-" for stdin, "fd N" for open_fd) */
};

#define PERFRING_PERFDATA_OPTS(NAME, ...)					\
	struct perfring_perfdata_opts NAME = {					\
		.sz = sizeof(struct perfring_perfdata_opts), __VA_ARGS__	\
	}

/*
 * Open a perf.data file ("-" = standard input) and read its header, attrs
 * and ids (file mode: also the feature table and EVENT_DESC).  Pipe-mode
 * data (16-byte header) is recognised in a regular file as well as in a
 * pipe; file-mode data needs a seekable input.
 *
 * The legacy format (magic "PERFFILE", perf 2.6.31 until 2012; header
 * version 1) is read as perf 6.1 reads it: its magic has the same bytes in
 * either byte order, which is told by the pipe header's size (16) or by the
 * file header's attr_size (an attr of 64, 72, 80, 96 or 104 bytes + 16); the
 * header is 104 bytes, or 72 without the feature bitmap (2.6.31/32).  Old
 * perf left attr.size 0 and wrote its own sizeof(perf_event_attr): such an
 * attr is read as header.attr_size - 16 bytes (perf 6.1 reads 64 and, for
 * the 72-byte attrs of 2.6.33 on, takes its ids 8 bytes early), and
 * swapped whole (perf 6.1 swaps no field past attr.size 0).  Event types
 * name tracepoints only, as old perf wrote them; a hardware or software
 * attr without a name gets perf 6.1's ("cycles:HG").  The build-id table
 * without pids (2.6.33) is formatted as perf reads it.
 *
 * opts and diag may be NULL.  Returns 0 and *out, or:
 *  -ENOENT/-EACCES/... from open(2), -EIO on a read error,
 *  -EBADMSG if the input is not a perf.data (bad magic, header, attr or id
 *   section; diag says where), -ESPIPE for file-mode data on a pipe,
 *  -ENOMEM, -EINVAL for bad arguments.
 */
PERFRING_API int perfring_perfdata_open(const char *path,
					const struct perfring_perfdata_opts *opts,
					struct perfring_diag *diag,
					struct perfring_perfdata **out);

/* Same on an open descriptor positioned at the start of the data.
 * Borrows fd (the caller keeps and closes it). */
PERFRING_API int perfring_perfdata_open_fd(int fd,
					   const struct perfring_perfdata_opts *opts,
					   struct perfring_diag *diag,
					   struct perfring_perfdata **out);

/* Free everything (and close the file if _open opened it).  NULL is fine. */
PERFRING_API void perfring_perfdata_close(struct perfring_perfdata *pd);

/* 1 for pipe-mode data, 0 for file mode. */
PERFRING_API int perfring_perfdata_is_pipe(const struct perfring_perfdata *pd);
/* 1 if the data was written on a machine of the other byte order. */
PERFRING_API int perfring_perfdata_needs_swap(const struct perfring_perfdata *pd);

/* File-mode header facts.  Pipe mode: header_size = 16, features = the bits
 * of the HEADER_FEATURE records seen so far, everything else 0. */
struct perfring_perfdata_header {
	uint64_t header_size;	/* 104, or 72 for the old format, 16 for pipes */
	uint64_t attr_size;	/* one attr entry in the attr section */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t features[4];	/* feature bitmap, native order */
	/* Appended: 2 for the "PERFILE2" magic, 1 for the legacy "PERFFILE"
	 * format (perf from 2.6.31 until 2012; see perfring_perfdata_open). */
	uint32_t version;
};
PERFRING_API const struct perfring_perfdata_header *
perfring_perfdata_header(const struct perfring_perfdata *pd);

/*
 * Attrs (events).  In pipe mode the list grows while records are read
 * (HEADER_ATTR records).  The attr is copied up to the 136 bytes this
 * library knows; attr->size keeps the value of the file (0 means VER0).
 */
PERFRING_API uint32_t perfring_perfdata_nr_attrs(const struct perfring_perfdata *pd);

/*
 * Borrow attr idx: its attr, its ids (the attr's id section in file mode,
 * the HEADER_ATTR record in pipe mode; ids that only ID_INDEX records name
 * are used to attribute records but not listed) and its name (from
 * EVENT_DESC, an EVENT_UPDATE NAME record, or perf 3.x event types; in a
 * legacy file, perf 6.1's name of a hardware or software event; NULL if
 * none was seen yet).  Any out pointer may be NULL.  All pointers stay valid until
 * perfring_perfdata_close(), also while attrs are added and renamed.
 * Returns 0 or -ENOENT if idx is out of range.
 */
PERFRING_API int perfring_perfdata_attr(const struct perfring_perfdata *pd,
					uint32_t idx,
					const struct perfring_attr **attr,
					const uint64_t **ids, uint32_t *nr_ids,
					const char **name);

/* The attr index that owns sample id `id`, or -ENOENT. */
PERFRING_API int perfring_perfdata_attr_by_id(const struct perfring_perfdata *pd,
					      uint64_t id);

/*
 * Attr idx as an event, as perfring_source_event and perfring_ring_event
 * give one (out->sz set by the caller; leader is idx, supported 1): the
 * same fields as perfring_perfdata_attr in one struct.  0, -ENOENT (idx
 * out of range) or -EINVAL.
 */
PERFRING_API int perfring_perfdata_event(const struct perfring_perfdata *pd, uint32_t idx,
					 struct perfring_event_desc *out);

/* ---- records ------------------------------------------------------------ */

#define PERFRING_PERFDATA_REC_COMPRESSED 0x1u	/* came out of a COMPRESSED record */
#define PERFRING_PERFDATA_REC_ID	 0x2u	/* `id` holds the record's sample id */
#define PERFRING_PERFDATA_REC_UNKNOWN_ID 0x4u	/* that id is in no attr's ids;
						 * attr defaulted to attr 0 */
#define PERFRING_PERFDATA_REC_SWAPPED	 0x8u	/* byte-swapped from the file */

struct perfring_perfdata_record {
	size_t sz;		/* set by the caller: sizeof(struct perfring_perfdata_record) */
	/* The whole record (header included), in native byte order, 8-byte
	 * aligned.  Valid until the next perfring_perfdata_next() call. */
	union {
		const struct perfring_event_header *hdr;
		const struct perfring_event_header *header; /* the 0.1 name of hdr */
	};
	uint32_t type;
	uint32_t size;		/* header->size */
	/* Byte offset of the record in the file or stream (perf report -D
	 * prints pipe-mode offsets 16 lower: it counts from the end of the
	 * stream header).  For a record that came out of a COMPRESSED
	 * record: the offset of that COMPRESSED record (as perf shows it),
	 * and inner_offset is its offset in the decompressed stream. */
	uint64_t offset;
	uint64_t inner_offset;
	/* Bytes that follow the record in the stream without being counted in
	 * its size (AUXTRACE data, skipped; HEADER_TRACING_DATA, see extra). */
	uint64_t extra_size;
	/* The attr the record belongs to (resolved by sample id for SAMPLE and,
	 * with sample_id_all, by trailer id for other kernel records; the first
	 * attr otherwise).  -1 / NULL for perf-tool records (type >= 64) and
	 * when no attr is known. */
	union {
		int event;
		int attr_idx;		/* the 0.1 name of event */
	};
	const struct perfring_attr *attr;
	uint64_t id;
	uint32_t flags;		/* PERFRING_PERFDATA_REC_* */
	/* HEADER_TRACING_DATA: its extra_size bytes, the tracing data with
	 * its padding (perfring_tracing_data_check with
	 * PERFRING_TRACING_DATA_PIPE), valid until the next
	 * perfring_perfdata_next() call; NULL for other records (and for a
	 * caller whose sz ends before this field). */
	const void *extra;
};

/*
 * Read the next record into rec (rec->sz set by the caller).  Returns 1
 * and *rec, 0 at the end of the data, or a negative errno (-EINVAL for a
 * rec->sz below the first version's): -EBADMSG for malformed or truncated input (diag names the
 * file and byte offset), -EIO, -ENOMEM, -ENOTSUP for a COMPRESSED record
 * when the library was built without zstd.  Errors are sticky: later calls
 * return the same error (and fill diag again).
 *
 * Unknown record types are returned (and counted) like the others; only
 * their header is byte-swapped.  COMPRESSED records are returned, then the
 * records they contain (flag PERFRING_PERFDATA_REC_COMPRESSED).  In pipe
 * mode HEADER_ATTR records add attrs and HEADER_FEATURE records add
 * features as they pass.
 */
PERFRING_API int perfring_perfdata_next(struct perfring_perfdata *pd,
					struct perfring_perfdata_record *rec,
					struct perfring_diag *diag);

/* ---- statistics ------------------------------------------------------- */

#define PERFRING_PERFDATA_STATS_TYPES 128

/*
 * Counts of the records returned so far, as `perf report -D` counts them in
 * "Aggregated stats": every record once, COMPRESSED records and the records
 * inside them alike, user-type records (ATTR, FEATURE, FINISHED_ROUND, ...)
 * included.
 */
struct perfring_perfdata_stats {
	size_t sz;		/* caller: sizeof(struct perfring_perfdata_stats) */
	uint64_t total;
	uint64_t by_type[PERFRING_PERFDATA_STATS_TYPES];
	uint64_t other;		/* types >= PERFRING_PERFDATA_STATS_TYPES */
	uint64_t from_compressed; /* records that came out of COMPRESSED ones */
	uint64_t unknown_id;	/* records whose sample id matched no attr */
	uint64_t bytes;		/* sum of record sizes (+ extra_size) */
};
/* Fill st (st->sz set by the caller).  Returns 0 or -EINVAL. */
PERFRING_API int perfring_perfdata_get_stats(const struct perfring_perfdata *pd,
					     struct perfring_perfdata_stats *st);

/*
 * Headers-only counting (`perfring-dump --stats`): count every record of
 * the data as perfring_perfdata_get_stats counts them after a full read,
 * then be at the end (perfring_perfdata_next returns 0).  A file-mode
 * perf.data of this byte order in a regular file, not read from yet, is
 * counted by walking the 8-byte record headers only (no attr resolution,
 * no copy into the read window), the data section read in 1 MiB chunks by
 * up to 4 threads side by side (nthreads: 0 = one per processor, 1 below
 * 8 MiB of data; 1 = the calling thread).  Anything else, and any data
 * that walk does not simply step over (a COMPRESSED record, a payload
 * outside its record size such as HEADER_TRACING_DATA or AUXTRACE, a bad
 * size, a truncated file), is read with perfring_perfdata_next from where
 * the reader is, which counts as perf does and reports damage.  In that
 * case from_compressed and unknown_id are counted as well; after the
 * header walk they are 0.
 * Returns 0, or what perfring_perfdata_next returns on damage (diag
 * filled; the records before the damage are counted).
 */
PERFRING_API int perfring_perfdata_count(struct perfring_perfdata *pd, unsigned nthreads,
					 struct perfring_diag *diag);

/* ---- features ----------------------------------------------------------- */

/* Feature ids (HEADER_* in perf's header.h). */
enum perfring_feature {
	PERFRING_FEAT_TRACING_DATA = 1,
	PERFRING_FEAT_BUILD_ID = 2,
	PERFRING_FEAT_HOSTNAME = 3,
	PERFRING_FEAT_OSRELEASE = 4,
	PERFRING_FEAT_VERSION = 5,
	PERFRING_FEAT_ARCH = 6,
	PERFRING_FEAT_NRCPUS = 7,
	PERFRING_FEAT_CPUDESC = 8,
	PERFRING_FEAT_CPUID = 9,
	PERFRING_FEAT_TOTAL_MEM = 10,
	PERFRING_FEAT_CMDLINE = 11,
	PERFRING_FEAT_EVENT_DESC = 12,
	PERFRING_FEAT_CPU_TOPOLOGY = 13,
	PERFRING_FEAT_NUMA_TOPOLOGY = 14,
	PERFRING_FEAT_BRANCH_STACK = 15,
	PERFRING_FEAT_PMU_MAPPINGS = 16,
	PERFRING_FEAT_GROUP_DESC = 17,
	PERFRING_FEAT_AUXTRACE = 18,
	PERFRING_FEAT_STAT = 19,
	PERFRING_FEAT_CACHE = 20,
	PERFRING_FEAT_SAMPLE_TIME = 21,
	PERFRING_FEAT_MEM_TOPOLOGY = 22,
	PERFRING_FEAT_CLOCKID = 23,
	PERFRING_FEAT_DIR_FORMAT = 24,
	PERFRING_FEAT_BPF_PROG_INFO = 25,
	PERFRING_FEAT_BPF_BTF = 26,
	PERFRING_FEAT_COMPRESSED = 27,
	PERFRING_FEAT_CPU_PMU_CAPS = 28,
	PERFRING_FEAT_CLOCK_DATA = 29,
	PERFRING_FEAT_HYBRID_TOPOLOGY = 30,
	PERFRING_FEAT_PMU_CAPS = 31,
	PERFRING_FEAT_CPU_DOMAIN_INFO = 32,	/* end marker in perf <= 6.16 */
};

/* perf's name of a feature ("HOSTNAME"), or NULL if unknown. */
PERFRING_API const char *perfring_perfdata_feature_name(uint32_t id);

struct perfring_perfdata_feature {
	size_t sz;		/* set by the caller: sizeof(struct perfring_perfdata_feature) */
	uint32_t id;
	const char *name;	/* NULL for ids this library does not know */
	const void *data;	/* payload as in the file (file byte order) */
	uint64_t size;
	uint64_t offset;	/* file offset of the payload (pipe mode: of the
				 * HEADER_FEATURE record; TRACING_DATA: of the
				 * payload after the HEADER_TRACING_DATA record) */
};

/*
 * Number of features known so far: file mode, the sections of the feature
 * table (in id order); pipe mode, the HEADER_FEATURE records read so far
 * and, as TRACING_DATA, the payload of a HEADER_TRACING_DATA record (a
 * later record with the same id replaces the earlier one).
 */
PERFRING_API uint32_t perfring_perfdata_nr_features(const struct perfring_perfdata *pd);

/*
 * Feature number idx (0 .. nr_features-1), its payload loaded, into f
 * (f->sz set by the caller: -EINVAL if below the first version's).  The payload
 * stays valid until the next call of this function, close, or (pipe mode)
 * a later HEADER_FEATURE record of the same id.  Returns 0,
 * -ENOENT (idx out of range), -EBADMSG (the section lies outside the file;
 * diag says where), -EIO, -ENOMEM, -EFBIG (payload > 1 GiB).
 */
/*
 * File mode: is the feature table whole and does every section lie inside
 * the file?  0, or -EBADMSG with diag at the first problem: where the
 * table is cut ("the feature table ends after K of its N entries:
 * truncated ...", at the offset of the first missing entry), or the
 * section outside the file.  Pipe mode: 0.  Nothing is read: the open
 * read the table.
 */
PERFRING_API int perfring_perfdata_check_features(const struct perfring_perfdata *pd,
						  struct perfring_diag *diag);

PERFRING_API int perfring_perfdata_feature(struct perfring_perfdata *pd, uint32_t idx,
					   struct perfring_perfdata_feature *f,
					   struct perfring_diag *diag);

/*
 * Render a feature as text lines ("hostname : vm\n", ...) into buf, like
 * `perf report --header-only` without its "# " prefixes.  Known layouts are
 * decoded (HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID,
 * TOTAL_MEM, CMDLINE, EVENT_DESC, BUILD_ID, CPU_TOPOLOGY, NUMA_TOPOLOGY,
 * PMU_MAPPINGS, GROUP_DESC, CACHE, SAMPLE_TIME, MEM_TOPOLOGY, CLOCKID,
 * COMPRESSED, CLOCK_DATA, CPU_PMU_CAPS, PMU_CAPS, HYBRID_TOPOLOGY, AUXTRACE,
 * DIR_FORMAT, BPF_*, BRANCH_STACK, STAT), others as "NAME : N bytes" or
 * "feature ID : N bytes".  A payload that does not parse is reported as such
 * in the text ("NAME : malformed payload (N bytes)").
 * Returns the length of the full text (like snprintf: if >= len, the
 * output was truncated), or -EINVAL.
 */
PERFRING_API int perfring_perfdata_feature_format(const struct perfring_perfdata *pd,
						  const struct perfring_perfdata_feature *f,
						  char *buf, size_t len);


/* ---- tracing data (lib/tracing/tracing-data.c) ----------------------------------- */

/*
 * What perfring_tracing_data_check found in a blob.  A struct the library
 * fills: set .sz = sizeof(struct perfring_tracing_data_info).  Offsets are
 * byte offsets in the blob.
 */
struct perfring_tracing_data_info {
	size_t sz;
	char version[8];	/* "0.5" or "0.6" */
	uint8_t big_endian;	/* the blob's endianness byte (its integers' order) */
	uint8_t long_size;	/* 4 or 8 */
	uint32_t page_size;
	uint32_t nr_ftrace;	/* ftrace event formats */
	uint32_t nr_systems;
	uint32_t nr_events;	/* event formats of all systems */
	uint64_t size;		/* bytes the sections take (the blob may be longer:
				 * perf ignores the rest in a file, and a pipe
				 * record pads to 8) */
	uint64_t kallsyms_offset, kallsyms_size;
	uint64_t printk_offset, printk_size;
	uint64_t cmdlines_offset, cmdlines_size;	/* 0.6 only, else 0 */
};

/* The blob is the payload of a pipe's HEADER_TRACING_DATA record (the
 * `size` bytes after its 16-byte record): its sections, padded to 8,
 * must take exactly len bytes, as perf requires. */
#define PERFRING_TRACING_DATA_PIPE 0x1u

/*
 * Validate tracing data (the TRACING_DATA feature, or the payload of a
 * HEADER_TRACING_DATA record) of versions 0.5 and 0.6, of either byte
 * order: magic, version, endianness byte, long and page size, the header
 * page and header event, ftrace and per-system event formats (each format's
 * name, ID, format and print fmt lines and its field lines), the kallsyms,
 * printk and saved-cmdlines sections, every size and count; see
 * lib/tracing/tracing-data.c for what is checked and why (single-byte damage that
 * crashes perf 6.1).  Never reads outside buf[0..len).  info may be NULL.
 * Returns 0 (well formed), -EBADMSG (damaged: diag->offset is the offset
 * of the first damage in the blob, diag->msg what is wrong, diag->file
 * empty), -ENOTSUP (well framed so far but a version other than 0.5 and
 * 0.6: not validated), -EINVAL (bad arguments).
 */
PERFRING_API int perfring_tracing_data_check(const void *buf, size_t len, unsigned flags,
					     struct perfring_tracing_data_info *info,
					     struct perfring_diag *diag);

/*
 * Whether well-formed tracing data describe the tracepoint of ID id (a
 * tracepoint attr's config): perf 6.1 refuses a file, and crashes on a
 * pipe, whose tracepoint event has no format in its tracing data (as
 * after a flipped digit of an ID).  Returns 1 (name, if name_len > 0,
 * gets "system:event", cut to fit), 0 (no format has that ID; name ""),
 * or what perfring_tracing_data_check returns for the blob.
 */
PERFRING_API int perfring_tracing_data_find_id(const void *buf, size_t len, unsigned flags,
					       uint64_t id, char *name, size_t name_len,
					       struct perfring_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_PERFDATA_H */
