/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sources: one reader for every input this library knows.  A source is a
 * perfring ring file (memfd or file ring, "PRFRING" descriptor), a
 * file-mode perf.data of either byte order, or pipe-mode perf.data in a
 * file or a stream.  perfring_probe tells which a path or fd holds;
 * perfring_source_* read any of them, each record with its event (attr)
 * resolved by perf's rule (perfring_record_id).
 *
 * Typical use:
 *
 *	struct perfring_source *s;
 *	struct perfring_source_record rec = { .sz = sizeof(rec) };
 *	struct perfring_diag d;
 *
 *	if (perfring_source_open(path, NULL, &d, &s) < 0)
 *		fail(&d);
 *	while ((r = perfring_source_next(s, &rec, &d)) == 1)
 *		use(rec.hdr, rec.attr, rec.offset);
 *	if (r < 0)
 *		report(&d);		// "FILE: offset 0x...: what"
 *	perfring_source_close(s);
 */
#ifndef PERFRING_SOURCE_H
#define PERFRING_SOURCE_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/source.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum perfring_source_kind {
	PERFRING_SOURCE_UNKNOWN = 0,
	PERFRING_SOURCE_RING = 1,		/* memfd/file ring: "PRFRING" descriptor */
	PERFRING_SOURCE_PERFDATA = 2,		/* perf.data, file mode (either byte order) */
	PERFRING_SOURCE_PERFDATA_PIPE = 3,	/* perf.data, pipe mode, in a file or a stream */
};

struct perfring_probe {
	size_t sz;			/* caller: sizeof(struct perfring_probe) */
	enum perfring_source_kind kind;
	int swapped;			/* perf.data of the other byte order */
	int is_stream;			/* not seekable: pipe, FIFO, socket, tty */
};

/*
 * Tell what path ("-" = standard input) or fd holds, without consuming a
 * stream (a stream can only be pipe-mode perf.data: it is reported as
 * PERFDATA_PIPE, is_stream = 1, and its magic is checked when opened).
 * perfring_probe_fd borrows fd (the caller keeps and closes it); it reads
 * with pread and leaves the file offset alone.
 * Returns 0, or -EISDIR (directory), -EBADMSG (unknown magic, or the file
 * ends inside the magic: diag names the file and offset), -EINVAL (bad
 * arguments, out->sz too small), or -errno of open/fstat/pread; diag (may
 * be NULL) is filled in every error case.  name: the name in diagnostics
 * (NULL: "fd N").
 */
PERFRING_API int perfring_probe(const char *path, struct perfring_probe *out,
				struct perfring_diag *diag);
PERFRING_API int perfring_probe_fd(int fd, const char *name, struct perfring_probe *out,
				   struct perfring_diag *diag);

struct perfring_source;
struct perfring_registry;

/* opts.flags */
#define PERFRING_SOURCE_RESYNC	0x1u	/* go on past damage, reporting each
					 * through opts.on_damage.  A ring: at
					 * the next plausible record (the
					 * reader's PERFRING_READER_RESYNC)
					 * instead of failing.  A perf.data:
					 * every record of a type perf knows
					 * is validated (perfring_record_validate
					 * with opts.registry), and one that
					 * fails is reported at its offset and
					 * skipped; damage to the framing
					 * itself still ends the source */

struct perfring_source_opts {
	size_t sz;			/* sizeof(struct perfring_source_opts) */
	uint32_t flags;			/* PERFRING_SOURCE_* */
	size_t window;			/* perf.data read window, 0 = default */
	const char *name;		/* name in diagnostics (default: path) */
	const struct perfring_registry *registry; /* optional: plugin-claimed
					 * types are validated by their plugin */
	perfring_problem_fn on_damage;	/* with RESYNC: called per damage */
	void *user;
};

/* Declare and fill an options struct: PERFRING_SOURCE_OPTS(o, .flags = ...); */
#define PERFRING_SOURCE_OPTS(name, ...)						\
	struct perfring_source_opts name = {					\
		.sz = sizeof(struct perfring_source_opts), __VA_ARGS__		\
	}

/*
 * Open a source ("-" = standard input; a ring on standard input must be a
 * regular file).  opts and diag may be NULL.  Returns 0 and *out, or what
 * perfring_probe, perfring_ring_open or perfring_perfdata_open return
 * (diag filled: file, offset, what).  The path is opened once: the file
 * probed is the file read.  A ring file is read-write when its
 * permissions allow it, so that perfring_source_consume moves its
 * data_tail for a producer that is still writing; otherwise read-only,
 * and consume leaves the file alone.  Records are read only, never
 * changed.  A perf.data is opened read-only; a FIFO blocks until a
 * writer opens it.
 */
PERFRING_API int perfring_source_open(const char *path, const struct perfring_source_opts *opts,
				      struct perfring_diag *diag, struct perfring_source **out);
/* Borrows fd (the caller keeps and closes it). */
PERFRING_API int perfring_source_open_fd(int fd, const struct perfring_source_opts *opts,
					 struct perfring_diag *diag,
					 struct perfring_source **out);
PERFRING_API void perfring_source_close(struct perfring_source *s);	/* NULL is fine */

PERFRING_API enum perfring_source_kind perfring_source_kind(const struct perfring_source *s);
PERFRING_API int perfring_source_swapped(const struct perfring_source *s);
/* Borrowed handles for what only one kind has (header facts, features,
 * ring geometry): NULL when the source is not of that kind. */
PERFRING_API struct perfring_ring *perfring_source_ring(const struct perfring_source *s);
PERFRING_API struct perfring_perfdata *perfring_source_perfdata(const struct perfring_source *s);
/* A ring's reader (its stats: records, LOST, resyncs, skipped bytes), or NULL. */
PERFRING_API struct perfring_reader *perfring_source_reader(const struct perfring_source *s);

/*
 * Events (attrs).  Pipe mode: the count grows as HEADER_ATTR records pass;
 * names may arrive later (EVENT_UPDATE).  Pointers stay valid until close.
 * A name is NULL when none is known.
 */
PERFRING_API uint32_t perfring_source_nr_events(const struct perfring_source *s);
PERFRING_API int perfring_source_event(const struct perfring_source *s, uint32_t idx,
				       struct perfring_event_desc *out);	/* 0 / -ENOENT */
/* The event whose ids contain id, or -ENOENT. */
PERFRING_API int perfring_source_event_by_id(const struct perfring_source *s, uint64_t id);

#define PERFRING_SOURCE_REC_COMPRESSED	0x1u	/* same values as PERFRING_PERFDATA_REC_* */
#define PERFRING_SOURCE_REC_ID		0x2u
#define PERFRING_SOURCE_REC_UNKNOWN_ID	0x4u
#define PERFRING_SOURCE_REC_SWAPPED	0x8u

struct perfring_source_record {
	size_t sz;			/* caller: sizeof(struct perfring_source_record) */
	const struct perfring_event_header *hdr; /* whole record, native order,
					 * 8-aligned, valid until the next call */
	uint32_t type, size;
	uint64_t offset;		/* byte offset in the file (ring: in the
					 * ring file, or in the data area) */
	uint64_t inner_offset;		/* in the decompressed stream, else 0 */
	uint64_t extra_size;		/* bytes after it not in its size */
	int event;			/* its event index, -1 if none */
	const struct perfring_attr *attr; /* NULL if none */
	uint64_t id;			/* with PERFRING_SOURCE_REC_ID */
	uint32_t flags;			/* PERFRING_SOURCE_REC_* */
};

/*
 * 1 and *rec; 0 at the end (a ring: nothing more published now); negative
 * errno on damage (diag filled: file, offset, what), sticky.  With RESYNC a
 * ring's damage is reported through on_damage and reading goes on.
 * A ring record's event: the event whose ids hold its sample id, else
 * event 0 (flag UNKNOWN_ID when it had an id no event lists).
 */
PERFRING_API int perfring_source_next(struct perfring_source *s,
				      struct perfring_source_record *rec,
				      struct perfring_diag *diag);
/*
 * Pipe-mode perf.data: read ahead until the events are known, that is up
 * to the first SAMPLE, FINISHED_ROUND or FINISHED_INIT, at most max
 * records (0: PERFRING_SOURCE_READ_AHEAD_MAX), and keep copies of them:
 * perfring_source_next returns them first, in order, then reads on.  For
 * a tool that must write or print every event before the first record
 * (perf.data output, --json).  Other kinds, or a second call: 0, nothing
 * read.  Returns the number of records kept, or a negative errno when the
 * input is damaged before that point (diag filled); the damage comes back
 * from perfring_source_next, sticky, once the records before it are out.
 */
#define PERFRING_SOURCE_READ_AHEAD_MAX 4096u
PERFRING_API int perfring_source_read_ahead(struct perfring_source *s, uint32_t max,
					    struct perfring_diag *diag);

/* A ring: release what was returned so far.  Else a no-op. */
PERFRING_API void perfring_source_consume(struct perfring_source *s);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_SOURCE_H */
