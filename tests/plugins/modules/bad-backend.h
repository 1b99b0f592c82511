/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Backend tables for the deliberately bad backend plugins of
 * tests/check_conventions.c.  Every function aborts: the registry must
 * refuse the table before any of them could run.
 */
#ifndef PERFRING_TEST_BAD_BACKEND_H
#define PERFRING_TEST_BAD_BACKEND_H

#include <stdlib.h>

#include <perfring/plugin.h>

static inline int bb_open(const struct perfring_backend_opts *o, struct perfring_diag *d,
		   struct perfring_backend **out) { (void)o; (void)d; (void)out; abort(); }
static inline int bb_start(struct perfring_backend *b, struct perfring_diag *d)
{ (void)b; (void)d; abort(); }
static inline int bb_wait(struct perfring_backend *b, int fd, int ms) { (void)b; (void)fd; (void)ms; abort(); }
static inline int bb_stop(struct perfring_backend *b) { (void)b; abort(); }
static inline void bb_close(struct perfring_backend *b) { (void)b; abort(); }
static inline uint32_t bb_nr(const struct perfring_backend *b) { (void)b; abort(); }
static inline int bb_event(const struct perfring_backend *b, uint32_t i, struct perfring_event_desc *e)
{ (void)b; (void)i; (void)e; abort(); }
static inline struct perfring_ring *bb_ring(const struct perfring_backend *b, uint32_t i)
{ (void)b; (void)i; abort(); }
static inline int bb_synth(struct perfring_backend *b, perfring_backend_record_fn fn, void *u)
{ (void)b; (void)fn; (void)u; abort(); }
static inline int bb_count(struct perfring_backend *b, uint32_t i, struct perfring_backend_count *c)
{ (void)b; (void)i; (void)c; abort(); }
static inline int bb_target(const struct perfring_backend *b, int *pid, int *st)
{ (void)b; (void)pid; (void)st; abort(); }

/* Every function but wait (each bad plugin adds the rest or not). */
#define BAD_BACKEND_OPS_BUT_WAIT						\
	.open = bb_open, .start = bb_start, .stop = bb_stop, .close = bb_close,	\
	.nr_events = bb_nr, .event = bb_event, .nr_rings = bb_nr, .ring = bb_ring, \
	.synthesize = bb_synth, .read_count = bb_count, .target = bb_target

#endif
