/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-replay's sample filters (--time, --pid, --tid, --comm, --cpu,
 * --event): which SAMPLE records a filtered rewrite keeps.  Every other
 * record (COMM, MMAP/MMAP2, FORK, EXIT, LOST, JIT maps...) is always kept,
 * so perf report names the same functions in the output as in the input.
 * The semantics are perf report's: see replay-filter.c.
 */
#ifndef REPLAY_FILTER_H
#define REPLAY_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct replay_filter;

struct replay_filter *rf_new(void);
void rf_free(struct replay_filter *f);

/*
 * Options, as perf report takes them; each returns 0 or -1 with a message
 * in err.  --time is parsed by rf_set_time; percent slices are resolved by
 * rf_resolve_time once the recording's first and last sample times are known.
 */
int rf_set_time(struct replay_filter *f, const char *s, char *err, size_t len);
bool rf_time_needs_bounds(const struct replay_filter *f);
int rf_resolve_time(struct replay_filter *f, uint64_t first, uint64_t last, char *err,
		    size_t len);
int rf_set_pids(struct replay_filter *f, const char *s, char *err, size_t len);
int rf_set_tids(struct replay_filter *f, const char *s, char *err, size_t len);
int rf_set_cpus(struct replay_filter *f, const char *s, char *err, size_t len);
int rf_set_comms(struct replay_filter *f, const char *s, char *err, size_t len);
int rf_set_events(struct replay_filter *f, const char *s, char *err, size_t len);

/* Is an event (by its name) one that --event keeps? */
bool rf_event_wanted(const struct replay_filter *f, const char *name);

/*
 * One record of the input, in input order: false for a SAMPLE the filter
 * drops.  event_kept: --event keeps the record's event.  COMM and FORK
 * records are followed for --comm (a thread's command at each sample).
 */
bool rf_keep(struct replay_filter *f, const struct perfring_attr *attr, bool event_kept,
	     const void *rec, size_t size);

/*
 * --comm by time: a first pass gives rf_scan every record, then
 * rf_scan_done; without it (a stream read once) commands are followed in
 * input order.
 */
bool rf_needs_scan(const struct replay_filter *f);
void rf_scan(struct replay_filter *f, const struct perfring_attr *attr, const void *rec,
	     size_t size);
void rf_scan_done(struct replay_filter *f);

/* The time of a SAMPLE (0: none), for the first and last sample times. */
uint64_t rf_sample_time(const struct perfring_attr *attr, const void *rec, size_t size);

struct rf_stats {
	uint64_t kept, dropped;		/* SAMPLE records */
	uint64_t others;		/* other records, all kept */
};
void rf_get_stats(const struct replay_filter *f, struct rf_stats *st);
void rf_reset_stats(struct replay_filter *f);	/* for a pass done again */

#endif
