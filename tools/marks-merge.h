/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program's marker rings merged into a perf.data (perfring-replay,
 * perfring-record): the rings' markers become samples of a tracepoint
 * event "perfring:mark" that perf script prints on the timeline.
 *
 *   m = marks_merge_new(prog);
 *   every record of the input: marks_merge_scan(m, attr, rec, size);
 *   marks_merge_add_path(m, path) for --markers;
 *   marks_merge_load(m);			// reads and decodes the rings
 *   marks_merge_plan(...) for the output event, the input events' ids
 *   marks_merge_tracing_data(...) for the output's TRACING_DATA
 *   every input record: marks_merge_fix(...) (adds IDENTIFIER if needed)
 *   and, as one more time-ordered source: marks_merge_next(m, &rec, &size);
 *
 * Rings are found by MMAP/MMAP2 records whose filename's basename is
 * perfring-marks-PID-TID.ring (the ring format: lib/marks/marks.c).
 */
#ifndef PERFRING_TOOLS_MARKS_MERGE_H
#define PERFRING_TOOLS_MARKS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <perfring/perfring.h>

#include "marks-span.h"

#define MARKS_EVENT_NAME "perfring:mark"

struct marks_merge;

struct marks_merge_stats {
	uint64_t rings;		/* ring files read */
	uint64_t markers;	/* markers merged (SAMPLEs produced) */
	uint64_t lost;		/* markers the rings lost (LOST + pending) */
	uint64_t missing;	/* rings named by a map but not readable */
	uint64_t problems;	/* damage found in rings (reported) */
};

struct marks_merge *marks_merge_new(void);
void marks_merge_free(struct marks_merge *m);
/* Notes a ring named by an MMAP/MMAP2 record (others are ignored). */
void marks_merge_scan(struct marks_merge *m, const struct perfring_attr *attr,
		      const void *rec, size_t size);
/* True when the basename of path is perfring-marks-PID-TID.ring. */
bool marks_is_ring_name(const char *path, uint32_t *pid, uint32_t *tid);
/* A ring file, or every perfring-marks-*.ring of a folder: 0 or -1 (printed). */
int marks_merge_add_path(struct marks_merge *m, const char *path);
/* How many ring paths are known. */
size_t marks_merge_nr_rings(const struct marks_merge *m);
/* Read every ring (damage reported, the rest kept).  Returns the number
 * of markers found. */
uint64_t marks_merge_load(struct marks_merge *m);

/*
 * The output's marker event: attr (from model, the input's first event)
 * with the tracepoint id tp_id and sample id id.  The input's events
 * must then all carry IDENTIFIER (marks_needs_identifier).
 */
void marks_merge_attr(const struct perfring_attr *model, uint64_t tp_id, struct perfring_attr *out);
void marks_merge_set_event(struct marks_merge *m, const struct perfring_attr *attr, uint64_t id);
/* Does an input event need IDENTIFIER added (marks_merge_fix) so that perf tells events apart? */
bool marks_needs_identifier(const struct perfring_attr *a);

/*
 * A record of an input event of attr a (as read), for the output where
 * that event has IDENTIFIER added: *out points to rec itself (unchanged)
 * or to buf (len bytes, at least size + 8).  id: the event's id for
 * records that carry none.  Returns the size, or 0 for a record that
 * has no room left for the id (it must be dropped).
 */
size_t marks_merge_fix(const struct perfring_attr *a, uint64_t id, const void *rec, size_t size,
		       void *buf, const void **out);

/* The highest tracepoint id below 65535 not used by td (may be NULL) nor in used[]. */
uint64_t marks_pick_tp_id(const void *td, size_t len, unsigned flags, const uint64_t *used,
			  size_t n);
/*
 * The tracing data td (NULL: none, new ones are built) with the system
 * "perfring" and its event "mark" (id tp_id) appended.  Returns 0 with
 * the blob in out, or -1 (message in err).
 */
int marks_tracing_data(const void *td, size_t len, unsigned flags, uint64_t tp_id,
		       GByteArray *out, char *err, size_t errlen);

/* An input event, as marks_merge_plan changes it: IDENTIFIER added to
 * the attr, and an id when it has none (*ids is g_malloc'ed). */
struct marks_event {
	struct perfring_attr *attr;
	uint64_t **ids;
	size_t *nr_ids;
};
/*
 * Plan the output: every event gets IDENTIFIER (and an id), the marker
 * event a free tracepoint id and an id; td_out the output's tracing data
 * (the input's td, or none, with the marker event's format).  0 or -1
 * (message printed).
 */
int marks_merge_plan(struct marks_merge *m, const struct marks_event *evs, size_t n,
		     const void *td, size_t td_len, unsigned td_flags, GByteArray *td_out);
/* The marker event planned, and its id. */
const struct perfring_attr *marks_merge_event(const struct marks_merge *m, uint64_t *id);

/* The TRACING_DATA of pd (flags for marks_tracing_data), or NULL if it
 * has none or damaged ones. */
const void *marks_pd_tracing_data(struct perfring_perfdata *pd, size_t *len, unsigned *flags);

/* The next record (SAMPLE or LOST) in time order: 1 and *rec, or 0. */
int marks_merge_next(struct marks_merge *m, const void **rec, size_t *size);
void marks_merge_get_stats(const struct marks_merge *m, struct marks_merge_stats *st);
/* "N markers merged from R rings, L lost" on stderr, as PROG: ... */
void marks_merge_summary(const struct marks_merge *m);

/* A merged perfring:mark sample's RAW payload, decoded (perfring-dump). */
struct marks_sample {
	const char *kind, *name, *text;	/* point into the payload */
	uint64_t value;
	int32_t pid, tid, depth;
	uint32_t flags;			/* PERFRING_MARKF_VALUE, _TEXT */
};
/* 0, or -1 when the payload is not one (a string out of bounds). */
int marks_sample_decode(const void *raw, size_t raw_size, struct marks_sample *s);

/*
 * --span NAME: per thread, the times from each outermost BEGIN of NAME to
 * its END (to the end of the recording if it never ends), from the
 * markers loaded.
 */
struct marks_span *marks_merge_spans(const struct marks_merge *m, const char *name);
/* A SAMPLE's tid and time: false when its sample_type lacks either. */
bool marks_sample_tid_time(const struct perfring_attr *a, const void *rec, size_t size,
			   uint32_t *tid, uint64_t *time);

/*
 * The same for a whole perf.data file in place (perfring-record at the
 * end): rings named by its maps and every ring of dir (may be NULL);
 * compression_level as file_rewrite's.  A file without markers is left
 * as it is.  Returns 0 or -1 (message
 * printed; the file is then unchanged).
 */
int marks_merge_file(const char *path, int argc, const char *const *argv, int compression_level,
		     const char *dir, struct marks_merge_stats *st);

#endif
