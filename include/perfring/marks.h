/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Markers and spans: a program's own events in the same profile as the
 * kernel's samples.
 *
 *   int frame = perfring_mark_register("frame");
 *   perfring_span_begin(frame);  ...  perfring_span_end(frame);
 *   perfring_mark("checkpoint");
 *   perfring_mark_id(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, frame, n, "late");
 *
 * Each thread that marks writes into a ring of its own (rings have one
 * producer), a ring file $PERFRING_MARKS_DIR/perfring-marks-PID-TID.ring
 * (default folder /tmp) created on the thread's first mark.  The first page
 * of the file stays mapped executable, so that perf and perfring-record
 * see an MMAP2 that names the ring; perfring-record and perfring-replay
 * then merge the markers into the perf.data by time (CLOCK_MONOTONIC, as
 * `perf record -k mono`).  $PERFRING_MARKS=off turns marking off,
 * $PERFRING_MARKS_SIZE sets each ring's data size (default 4 MiB, at
 * least 64 KiB, rounded up to a power of two).  The environment is read
 * once per process, at its first mark or perfring_marks_thread_init; a
 * forked child keeps what its parent read.
 *
 * A thread's ring is closed when the thread exits (a pthread key
 * destructor); the file stays, for the consumers that merge it after the
 * program ended, and so does the mapped page.  Marks made after that
 * (a later destructor, a signal handler) return -EBUSY and touch nothing.
 * A forked child writes into rings of its own (its own pid), never into
 * its parent's.
 *
 * The marking calls take no lock, allocate nothing and make no system
 * call once the thread has its ring, and are async-signal-safe then: a
 * handler that interrupts a mark writes its own as a nested reservation
 * of the same ring.  A thread whose signal handlers mark should call
 * perfring_marks_thread_init() first (the ring is created outside any
 * handler).  A full ring drops the marker and counts it.
 *
 * The ring format (what perfring_mark_decode reads) is described in
 * lib/marks/marks.c.
 */
#ifndef PERFRING_MARKS_H
#define PERFRING_MARKS_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of marker (the low byte of how) */
#define PERFRING_MARK_INSTANT	0u
#define PERFRING_MARK_BEGIN	1u	/* a span opens on this thread */
#define PERFRING_MARK_END	2u	/* the innermost open span of that name closes */
/* Records of a ring that are not markers (perfring_mark_decode) */
#define PERFRING_MARK_NAME	3u	/* defines a registered id within its ring */
#define PERFRING_MARK_THREAD	4u	/* first record: value = pid << 32 | tid */
/* Or'ed into how: the value argument is recorded */
#define PERFRING_MARK_VALUE	0x100u

#define PERFRING_MARK_NAME_MAX	63	/* bytes; longer names are cut */
#define PERFRING_MARK_TEXT_MAX	127	/* bytes; longer texts are cut */
#define PERFRING_MARK_IDS_MAX	1023	/* registered names per process */

/*
 * The id (> 0) of a name, registered on first use; the same name always
 * gives the same id.  -EINVAL (NULL or empty name), -ENOSPC (the table of
 * PERFRING_MARK_IDS_MAX names is full).  Lock-free, no allocation.
 */
PERFRING_API int perfring_mark_register(const char *name);

/*
 * A marker of kind how & 0xff with the registered name id, the value if
 * how has PERFRING_MARK_VALUE, and text (NULL or "" for none).  0; or
 * -ENOSPC (the ring is full: dropped and counted), -EINVAL (bad kind or
 * id), -EBUSY (a signal handler interrupted the creation of this thread's
 * ring, or the thread is exiting), or the error that kept the ring from
 * being created (kept: later marks of the thread return it without trying
 * again; perfring_marks_thread_init tries again).  With
 * $PERFRING_MARKS=off: 0 and nothing written.
 */
PERFRING_API int perfring_mark_id(unsigned how, int id, uint64_t value, const char *text);

/* The same with the name given inline (written into every such marker). */
PERFRING_API int perfring_mark_str(unsigned how, const char *name, uint64_t value,
				   const char *text);

static inline int perfring_mark(const char *name)
{
	return perfring_mark_str(PERFRING_MARK_INSTANT, name, 0, NULL);
}

static inline int perfring_span_begin(int id)
{
	return perfring_mark_id(PERFRING_MARK_BEGIN, id, 0, NULL);
}

static inline int perfring_span_end(int id)
{
	return perfring_mark_id(PERFRING_MARK_END, id, 0, NULL);
}

/* Create the calling thread's ring now: 0 or a negative errno.  Not
 * async-signal-safe (it opens and maps a file). */
PERFRING_API int perfring_marks_thread_init(void);

/* What this process marked (set sz first). */
struct perfring_marks_stats {
	size_t sz;		/* caller: sizeof(struct perfring_marks_stats) */
	uint64_t marks;		/* markers written */
	uint64_t dropped;	/* refused by a full ring */
	uint64_t rings;		/* rings created */
	uint64_t errors;	/* marks that failed otherwise (no ring, bad args) */
};
PERFRING_API int perfring_marks_get_stats(struct perfring_marks_stats *st);

/* One record of a marker ring, decoded (the reader's side). */
struct perfring_mark {
	size_t sz;		/* caller: sizeof(struct perfring_mark) */
	unsigned kind;		/* PERFRING_MARK_INSTANT .. PERFRING_MARK_THREAD */
	unsigned flags;		/* PERFRING_MARKF_* */
	unsigned id;		/* registered id, 0 when the name is inline */
	uint64_t value;		/* 0 without PERFRING_MARKF_VALUE */
	const char *name;	/* inline (or NAME's) name, not NUL-terminated */
	size_t name_len;
	const char *text;	/* not NUL-terminated */
	size_t text_len;
};
#define PERFRING_MARKF_VALUE	0x1u
#define PERFRING_MARKF_NAME	0x2u
#define PERFRING_MARKF_TEXT	0x4u

/*
 * Decode the raw data (PERF_SAMPLE_RAW, without its u32 size) of one
 * record of a marker ring.  The name and text point into raw.  0, or
 * -EBADMSG when the payload is malformed (a field past raw_size, an
 * unknown kind or flag, a marker with neither id nor name, a NAME
 * without both, a THREAD without its value, an empty or over-long
 * string, non-zero padding), or -EINVAL (NULL, or m->sz too small).
 */
PERFRING_API int perfring_mark_decode(const void *raw, size_t raw_size, struct perfring_mark *m);

#ifdef __cplusplus
}
#endif

#endif
