/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private declarations of the perf.data reader (lib/perfdata/). */
#ifndef PERFRING_PERFDATA_PRIVATE_H
#define PERFRING_PERFDATA_PRIVATE_H

#include <byteswap.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

#include "perfdata/format.h"
#include "util/internal.h"


static inline void pd_sw16(void *p) { pr_put16(p, bswap_16(pr_get16(p))); }
static inline void pd_sw32(void *p) { pr_put32(p, bswap_32(pr_get32(p))); }
static inline void pd_sw64(void *p) { pr_put64(p, bswap_64(pr_get64(p))); }

/* --- lib/perfdata/swap.c ------------------------------------------------ */
/*
 * Swap an attr of `avail` bytes in place (size field first, then every
 * field that lies inside min(attr.size, avail); the flag bitfield is
 * bit-reversed per byte, as a big-endian compiler lays it out).
 */
PR_HIDDEN void pr_pd_swap_attr(void *attr, size_t avail);

/*
 * Swap the body of a record whose 8-byte header is already native.
 * sample_id_all: the trailer (if any) is swapped as u64 words, as perf
 * does; its u32 pairs are fixed later by pr_pd_fix_trailer once the attr is
 * known.  SAMPLE is swapped as a u64 array; pr_pd_fix_sample fixes it.
 */
PR_HIDDEN void pr_pd_swap_body(void *rec, size_t size, int sample_id_all);
PR_HIDDEN void pr_pd_fix_sample(void *rec, size_t size,
				const struct perfring_attr *attr);
PR_HIDDEN void pr_pd_fix_trailer(void *rec, size_t size, uint64_t sample_type);

/* --- lib/perfdata/feature-data.c ---------------------------------------- */
/* A bounds-checked cursor over a feature payload in file byte order. */
struct pr_cur {
	const unsigned char *p;
	size_t len, pos;
	int swap;
	int bad;		/* a read ran past the end */
};
/* Each returns 0, or -1 (and sets bad, the value 0) past the end. */
PR_HIDDEN int pr_c_u32(struct pr_cur *c, uint32_t *v);
PR_HIDDEN int pr_c_u64(struct pr_cur *c, uint64_t *v);
PR_HIDDEN int pr_c_bytes(struct pr_cur *c, size_t n, const unsigned char **b);
/* perf string: u32 len, then len bytes holding a NUL-terminated string. */
PR_HIDDEN int pr_c_str(struct pr_cur *c, const char **s, int *n);

/*
 * EVENT_DESC: u32 nr, u32 attr_size, then nr x { attr[attr_size], u32
 * nr_ids, str name, u64 ids[nr_ids] }.  Calls fn for each entry with a
 * native attr copy and a cursor on its ids; stops at fn's first non-zero
 * return.  -EBADMSG when the payload does not hold what it says.
 */
typedef int (*pr_ed_fn)(void *ctx, size_t i, const struct perfring_attr *attr,
			const char *name, int nlen, struct pr_cur *ids, uint32_t nr_ids);
PR_HIDDEN int pr_pd_event_desc_walk(int swap, const void *data, size_t size,
				    pr_ed_fn fn, void *ctx);

/* --- lib/perfdata/reader.c ---------------------------------------------- */
struct perfring_perfdata;
/* Give attr idx a name (copied); used by EVENT_DESC and EVENT_UPDATE. */
PR_HIDDEN int pr_pd_set_name(struct perfring_perfdata *pd, size_t idx,
			     const char *name, size_t len);
PR_HIDDEN int pr_pd_swapped(const struct perfring_perfdata *pd);
/*
 * perfring_perfdata_next without the versioned-struct copy, for the
 * library's own callers (the sources API): rec is filled whole.
 */
struct perfring_perfdata_record;
PR_HIDDEN int pr_pd_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec,
			 struct perfring_diag *diag);
/* nr_cpus_avail from the NRCPUS feature (CPU_TOPOLOGY needs it), or -1. */
PR_HIDDEN long pr_pd_nr_cpus_avail(const struct perfring_perfdata *pd);

#endif
