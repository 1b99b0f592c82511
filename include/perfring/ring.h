/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings in the kernel's perf_event_mmap_page layout: create, attach, write
 * (single producer, lock-free, async-signal-safe, nestable) and read (never
 * trusting the ring).
 */
#ifndef PERFRING_RING_H
#define PERFRING_RING_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/ring.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#include <perfring/core/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_ring;
struct perfring_reader;

/*
 * One event: its attr, the ids its records carry and its name.  The one
 * event description of the library: rings take and give it
 * (perfring_ring_opts.events, perfring_ring_wrap, perfring_ring_event),
 * the writer takes it (perfring_writer_add_event) and backends fill it
 * (perfring_backend_ops.event).  Versioned: set sz (an array of them is
 * strided by its first element's sz, which every element repeats).
 * Pointers are borrowed: what a ring or backend fills stays valid until
 * its close; what a caller passes is copied by the call.
 */
struct perfring_event_desc {
	size_t sz;			/* sizeof(struct perfring_event_desc) */
	const struct perfring_attr *attr;	/* attr->size valid */
	const uint64_t *ids;
	uint32_t nr_ids;
	const char *name;		/* event name, may be NULL (rings: max 63 bytes) */
	/* Filled by backends and perfring_ring_event, ignored on input: */
	uint32_t leader;		/* index of its group leader (itself if none) */
	int supported;			/* 0: skipped by the backend (skip_unsupported) */
};

/* An event description with sz set: PERFRING_EVENT_DESC(e, .attr = &a); */
#define PERFRING_EVENT_DESC(name, ...)						\
	struct perfring_event_desc name = {					\
		.sz = sizeof(struct perfring_event_desc), __VA_ARGS__		\
	}

enum perfring_ring_backing {
	PERFRING_RING_ANON = 0,		/* private to this process */
	PERFRING_RING_MEMFD = 1,	/* shareable by fd (perfring_ring_fd) */
	PERFRING_RING_FILE = 2,		/* a file at opts.path; survives crashes */
};

/* opts.flags */
#define PERFRING_RING_OVERWRITE	0x1u	/* flight recorder: write backward, keep newest */
#define PERFRING_RING_CLOCKID	0x2u	/* opts.clockid is set (else CLOCK_MONOTONIC) */
#define PERFRING_RING_TRUNCATE	0x4u	/* FILE: replace an existing file */
#define PERFRING_RING_FILE_MODE	0x8u	/* FILE: opts.file_mode is set (else 0600) */

struct perfring_ring_opts {
	size_t sz;			/* sizeof(struct perfring_ring_opts) */
	enum perfring_ring_backing backing;
	const char *path;		/* FILE: path of the ring file */
	uint64_t data_size;		/* bytes: 2^n pages; 0 = 64 pages */
	uint32_t flags;			/* PERFRING_RING_* */
	int32_t clockid;		/* with PERFRING_RING_CLOCKID */
	const struct perfring_event_desc *events;	/* each with sz set; copied */
	uint32_t nr_events;		/* at least 1 to write LOST records */
	uint32_t file_mode;		/* with PERFRING_RING_FILE_MODE: 0 to 0777 */
};

/* Declare and fill an options struct: PERFRING_RING_OPTS(o, .data_size = 1 << 20); */
#define PERFRING_RING_OPTS(name, ...)						\
	struct perfring_ring_opts name = {					\
		.sz = sizeof(struct perfring_ring_opts), __VA_ARGS__		\
	}

/*
 * Create a ring.  A memfd or file ring starts with a self-describing,
 * versioned descriptor (magic, format version, page size, data size, clock
 * id, the events' attrs, ids and names), then the control page, then the data
 * area; anonymous rings have no descriptor.  The ring is open for reading and
 * writing.
 * A FILE ring is private by default, as perf.data files are: it holds the
 * addresses, process names and file paths of what it records.  A new file
 * is created 0600 (or opts.file_mode with PERFRING_RING_FILE_MODE), less the
 * umask, as open(2) does.  With PERFRING_RING_TRUNCATE an existing file is
 * reused only if it is a regular file owned by the effective user; its mode
 * is then set to that mode.
 * Returns 0, -EINVAL (bad options: data_size not 2^n pages, no events with
 * attrs of bad size, sz too small or unknown non-zero fields, file_mode
 * above 0777, an existing file that is not a regular file), -EEXIST (file
 * exists without TRUNCATE), -EPERM (TRUNCATE of a file another user owns:
 * it is left untouched), or the errno of a failed syscall.  On every
 * error diag (may be NULL) says what is wrong and names the ring: its path
 * for a FILE ring, else "memfd ring" / "anonymous ring".
 */
PERFRING_API int perfring_ring_create(const struct perfring_ring_opts *opts,
				      struct perfring_diag *diag,
				      struct perfring_ring **out);

/* perfring_ring_open mode bits */
#define PERFRING_RING_READ	0x1u
#define PERFRING_RING_WRITE	0x2u

/*
 * Attach to an existing memfd or file ring, from any process, as reader,
 * writer or both.  The descriptor is validated first: an unknown magic or
 * format version, or any inconsistency (sizes, offsets, attr sizes, file too
 * short) gives -EBADMSG / -EPROTO with diag filled (file name and the byte
 * offset of the offending field).  -EACCES: WRITE asked of a read-only fd.
 * Only one writer may use a ring at a time: a second perfring_ring_open
 * for WRITE of the same file gets -EBUSY while the first is open (a lock
 * that dies with its process; the creator and writers that share its open
 * file through fork or an inherited fd are not checked).  A writer that
 * attaches after another one died discards (normal mode) or pads
 * (overwrite mode) what the dead writer left uncommitted.
 * open_fd: Borrows fd (the caller keeps and closes it).
 */
PERFRING_API int perfring_ring_open(const char *path, unsigned mode,
				    struct perfring_diag *diag,
				    struct perfring_ring **out);
/*
 * A ring that starts at byte offset (a multiple of the page size) of a
 * file: the ring file's layout, descriptor first, laid out there by
 * someone else, such as a kernel under QEMU whose RAM (or shared memory
 * device) is that file (perfring_core_file_init; doc/porting-a-kernel.md).
 * As perfring_ring_open otherwise; READ opens the file read-only, so the
 * producer's memory is never written.  Offsets in diagnostics and
 * perfring_ring_data_file_offset are the file's.  -EINVAL for an offset
 * that is not a page boundary inside the file.
 */
PERFRING_API int perfring_ring_open_at(const char *path, uint64_t offset, unsigned mode,
				       struct perfring_diag *diag,
				       struct perfring_ring **out);
PERFRING_API int perfring_ring_open_fd(int fd, unsigned mode,
				       struct perfring_diag *diag,
				       struct perfring_ring **out);

/*
 * Wrap a ring that is already mapped, such as a kernel perf_event ring
 * (base = the mmap of 1 + 2^n pages, len its length).  events describes
 * what writes into it (may be NULL; each with sz set; copied).  flags: PERFRING_RING_OVERWRITE for a
 * write_backward ring.  The mapping stays owned by the caller.
 */
PERFRING_API int perfring_ring_wrap(void *base, size_t len, uint32_t flags,
				    const struct perfring_event_desc *events,
				    uint32_t nr_events, struct perfring_diag *diag,
				    struct perfring_ring **out);

/* Unmap and close.  Accepts NULL. */
PERFRING_API void perfring_ring_close(struct perfring_ring *r);

/* Accessors. */
/* Returns a borrowed fd (owned by the ring), -1 for anonymous and wrapped rings. */
PERFRING_API int perfring_ring_fd(const struct perfring_ring *r);
PERFRING_API uint64_t perfring_ring_data_size(const struct perfring_ring *r);
PERFRING_API uint32_t perfring_ring_page_size(const struct perfring_ring *r);
PERFRING_API int32_t perfring_ring_clockid(const struct perfring_ring *r);
PERFRING_API uint32_t perfring_ring_flags(const struct perfring_ring *r);
PERFRING_API uint32_t perfring_ring_nr_events(const struct perfring_ring *r);
/*
 * Event idx into out (out->sz set by the caller; pointers borrowed until
 * close; leader = idx, supported = 1).  0, -ENOENT, or -EINVAL (sz).
 */
PERFRING_API int perfring_ring_event(const struct perfring_ring *r, uint32_t idx,
				     struct perfring_event_desc *out);
/* The attr whose ids contain id, or event 0's when id is unknown/0. */
PERFRING_API const struct perfring_attr *
perfring_ring_attr_for_id(const struct perfring_ring *r, uint64_t id);
PERFRING_API const struct perfring_mmap_page *perfring_ring_header(const struct perfring_ring *r);
/* Byte offset in the ring file (or fd) of the data area; 0 for anon/wrapped. */
PERFRING_API uint64_t perfring_ring_data_file_offset(const struct perfring_ring *r);

/* ---- writing ---------------------------------------------------------------
 * One producer: one thread plus the signal handlers that interrupt it.  A
 * handler may write while the interrupted code is between reserve and commit
 * (it nests like the kernel's writers: its record lands after the outer one
 * and data_head is published only by the outermost commit).  Commits must
 * come in reverse order of reserves, as nesting makes them.
 * reserve/copy/commit/abort/write take no lock, allocate nothing, make no
 * syscall and do not touch errno: they are async-signal-safe.
 */
/* struct perfring_wr (a reservation): <perfring/core/wire.h> */

/*
 * Reserve size bytes (a multiple of 8, 8..65528) for one record.
 * Returns 0; -EINVAL (size not 8-aligned or < 8), -EMSGSIZE (larger than
 * 65528 or than the ring can ever hold), -ENOSPC (ring full: the record is
 * dropped and counted, and a PERF_RECORD_LOST precedes the next record that
 * fits), -EPERM (ring not open for writing).
 */
PERFRING_API int perfring_ring_reserve(struct perfring_ring *r, size_t size,
				       struct perfring_wr *w);
/* Copy len bytes at offset off of the reserved record, wrapping as needed. */
PERFRING_API void perfring_ring_copy(struct perfring_ring *r,
				     const struct perfring_wr *w, size_t off,
				     const void *src, size_t len);
/* Pointer to the whole reserved record if it does not wrap, else NULL. */
PERFRING_API void *perfring_ring_contig(struct perfring_ring *r,
					const struct perfring_wr *w);
/* Finish the record; the outermost commit publishes data_head (release). */
PERFRING_API void perfring_ring_commit(struct perfring_ring *r,
				       const struct perfring_wr *w);
/* Give the reservation up: rolled back if nothing follows it, else padded. */
PERFRING_API void perfring_ring_abort(struct perfring_ring *r,
				      const struct perfring_wr *w);
/* reserve + copy + commit of a complete record (size from its header). */
PERFRING_API int perfring_ring_write(struct perfring_ring *r, const void *rec);

/*
 * Trailer written with LOST records (TIME is filled with the ring's clock at
 * the time of writing).  Producer thread only, not from a handler.
 */
PERFRING_API void perfring_ring_set_lost_sample_id(struct perfring_ring *r,
						   const struct perfring_sample_id *sid);

struct perfring_ring_stats {
	size_t sz;		/* set by the caller: sizeof(struct perfring_ring_stats) */
	uint64_t head;		/* producer's reservation head */
	uint64_t published;	/* data_head */
	uint64_t tail;		/* data_tail */
	uint64_t dropped;	/* records dropped because the ring was full */
	uint64_t lost_pending;	/* of those, not yet reported by a LOST record */
	uint64_t aborted;	/* reservations aborted */
};
/* Fill st (st->sz set by the caller).  Returns 0 or -EINVAL. */
PERFRING_API int perfring_ring_get_stats(const struct perfring_ring *r,
					 struct perfring_ring_stats *st);
PERFRING_DEPRECATED("perfring_ring_get_stats")
PERFRING_API int perfring_ring_stats(const struct perfring_ring *r,
				     struct perfring_ring_stats *st);

/* ---- reading ---------------------------------------------------------------
 * One reader per ring at a time.  A reader never trusts the ring: every size,
 * the published head and the tail are checked before bytes are touched.
 */
struct perfring_record {
	size_t sz;		/* caller: sizeof(struct perfring_record) */
	const struct perfring_event_header *hdr;	/* whole record, contiguous */
	uint64_t pos;		/* ring position (free-running byte counter) */
	uint64_t offset;	/* byte offset in the ring file, or data area */
};

/* Problems found by a reader (perfring_reader_check, on_damage). */
typedef void (*perfring_problem_fn)(const struct perfring_diag *d, void *user);

/* Create a reader (allocates a 64 KiB bounce buffer for wrapped records). */
PERFRING_API int perfring_reader_new(struct perfring_ring *r,
				     struct perfring_reader **out);

/* perfring_reader_opts.flags */
#define PERFRING_READER_RESYNC	0x1u	/* go on after damage (see below) */

struct perfring_reader_opts {
	size_t sz;			/* sizeof(struct perfring_reader_opts) */
	uint32_t flags;			/* PERFRING_READER_* */
	const struct perfring_registry *registry; /* optional, for validation */
	perfring_problem_fn on_damage;	/* with RESYNC */
	void *user;
};

#define PERFRING_READER_OPTS(name, ...)						\
	struct perfring_reader_opts name = {					\
		.sz = sizeof(struct perfring_reader_opts), __VA_ARGS__		\
	}

/*
 * A reader with options (o may be NULL: as perfring_reader_new).
 * PERFRING_READER_RESYNC (normal rings): every record of a type perf
 * names is also checked with perfring_record_validate (its attr found by
 * its sample id; plugin types by o->registry's plugin); records of types
 * perf does not name are returned as they are framed, for the caller to
 * count or drop.  On damage (a framing error, or a record that
 * does not validate, whose size may swallow the records after it) the
 * reader calls o->on_damage with what and where, then scans forward
 * 8 bytes at a time from the damaged record's start + 8 for the next
 * plausible record (a known kernel type, framed within the published head,
 * that validates) and calls o->on_damage again saying where it resumed
 * ("resynchronised after N damaged bytes") or that nothing valid followed.
 * Reading goes on from there; stats count resyncs and skipped bytes.  A
 * head behind the tail or more than data_size ahead is not recoverable:
 * the reader fails as without RESYNC.
 * Overwrite rings: a snapshot is framed from data_head upward, so damage
 * ends what can be read of the window (the bytes above it cannot be framed
 * from a known start).  With RESYNC the damage is reported once through
 * on_damage, the rest of the window is counted as skipped and reading goes
 * on with the next snapshot (records newer than the last returned);
 * without it the reader fails as before.
 * Returns 0, -EINVAL (sz too small, unknown flags), -ENOMEM.
 */
PERFRING_API int perfring_reader_new_opts(struct perfring_ring *r,
					  const struct perfring_reader_opts *o,
					  struct perfring_reader **out);
PERFRING_API void perfring_reader_free(struct perfring_reader *rd);

/*
 * Next record (set rec->sz first).  Returns 1 and fills rec; -EINVAL for
 * a rec->sz below sizeof(struct perfring_record); 0 when nothing more is available
 * now; -EBADMSG when the ring is corrupt (head behind tail or more than
 * data_size ahead, a size below 8, unaligned, or past the published head):
 * perfring_reader_diag says what and where, and every later call returns the
 * same error.  rec->hdr stays valid until the next call; it points to the
 * reader's own copy of the record, never into the ring, so a producer that
 * rewrites the ring cannot change a record after it was checked.  Pad
 * records (aborted reservations) are skipped.  Overwrite rings are read
 * from the oldest record still intact to the newest: each snapshot of the
 * window is returned whole, then 0, and the next call takes a new snapshot
 * that returns only records newer than the last one returned.
 */
PERFRING_API int perfring_reader_next(struct perfring_reader *rd,
				      struct perfring_record *rec);
/* Release the space of every record returned so far (store-release tail). */
PERFRING_API void perfring_reader_consume(struct perfring_reader *rd);
PERFRING_API const struct perfring_diag *perfring_reader_diag(const struct perfring_reader *rd);

struct perfring_reader_stats {
	size_t sz;		/* caller: sizeof(struct perfring_reader_stats) */
	uint64_t records;	/* returned by next */
	uint64_t bytes;
	uint64_t lost;		/* sum of the counts in LOST records seen */
	uint64_t lost_records;	/* number of LOST records seen */
	uint64_t pads;		/* aborted reservations skipped */
	uint64_t resyncs;	/* RESYNC: damage the reader went on after */
	uint64_t skipped_bytes;	/* RESYNC: damaged bytes stepped over */
	/* the ring as it is when stats are taken (what a dump tool shows) */
	uint64_t data_head;	/* published head (acquire load) */
	uint64_t data_tail;	/* consumer tail */
	uint64_t lost_pending;	/* dropped by the producer, not yet in a LOST */
};
/* Set st->sz first: the fields that fit in it are filled, sz is kept.
 * 0, or -EINVAL (no reader, or sz below this first version's size). */
PERFRING_API int perfring_reader_get_stats(const struct perfring_reader *rd,
					   struct perfring_reader_stats *st);
PERFRING_DEPRECATED("perfring_reader_get_stats")
PERFRING_API int perfring_reader_stats(const struct perfring_reader *rd,
				       struct perfring_reader_stats *st);

/*
 * Validate what is available without consuming it: calls fn for every
 * problem found (framing errors stop the walk; per-record problems found
 * by perfring_record_validate, with the attr of the record's sample id and
 * the reader's registry, do not).  Returns the number of problems.
 */
PERFRING_API int perfring_reader_check(struct perfring_reader *rd,
				       perfring_problem_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RING_H */
