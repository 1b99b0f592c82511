/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private declarations of the ring layer (lib/ring/) for the layers above
 * it (perfdata/, source/).  Never installed.
 */
#ifndef PERFRING_RING_PRIVATE_H
#define PERFRING_RING_PRIVATE_H

#include "util/internal.h"

/* perf's id rule for one attr, worked out once (validate.c). */
struct pr_id_rule {
	int id_pos, is_pos;	/* perfring_sample_id_pos */
	int sample_id_all;
};
PR_HIDDEN void pr_id_rule_init(struct pr_id_rule *rule, const struct perfring_attr *attr);
/* perfring_record_id with the rule worked out (rec non-NULL). */
PR_HIDDEN int pr_record_id_at(const struct pr_id_rule *rule, const void *rec, size_t size,
			      uint64_t *id);

struct perfring_ring;
/* perfring_ring_open_fd naming the ring `name` in diagnostics. */
PR_HIDDEN int pr_ring_open_fd_named(int fd, unsigned mode, const char *name,
				    struct perfring_diag *diag, struct perfring_ring **out);

/*
 * The event of a ring record with sample id `id`: the lowest index among
 * the events whose ids hold it (a binary search of the index the ring
 * builds once its events are known), or -ENOENT.  The one place a ring
 * record's event is worked out: the reader's validation, the source and
 * perfring_ring_attr_for_id all ask it.
 */
PR_HIDDEN int pr_ring_event_for_id(const struct perfring_ring *r, uint64_t id);

/*
 * How the body of a kernel record type is sized (record.c's table; the
 * validator in validate.c applies it).  min: header + fixed body.
 */
enum pr_body_shape {
	PR_BODY_MIN = 0,	/* at least min (variable layout decoded elsewhere) */
	PR_BODY_FIXED,		/* exactly min */
	PR_BODY_STRING,		/* min, then a NUL-terminated string padded to 8 */
	PR_BODY_NAMESPACES,	/* 24 + 16 * nr_namespaces (u64 at 16) */
	PR_BODY_TEXT_POKE,	/* 20 + old_len + new_len (u16 at 16, 18), padded to 8 */
};
struct pr_body_rule {
	uint16_t min;
	uint8_t shape;		/* enum pr_body_shape */
};
/* The rule of a kernel type this library knows, else NULL. */
PR_HIDDEN const struct pr_body_rule *pr_body_rule(uint32_t type);

#endif
