/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private declarations of the perf.data reader (lib/perfdata*.c). */
#ifndef PERFRING_PERFDATA_PRIVATE_H
#define PERFRING_PERFDATA_PRIVATE_H

#include <byteswap.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Sizes of the on-disk attr this library knows (VER8). */
#define PD_ATTR_KNOWN 136u
/* Largest attr.size accepted (perf has none; the kernel caps at a page). */
#define PD_ATTR_MAX 4096u

static inline void pd_sw16(void *p) { pr_put16(p, bswap_16(pr_get16(p))); }
static inline void pd_sw32(void *p) { pr_put32(p, bswap_32(pr_get32(p))); }
static inline void pd_sw64(void *p) { pr_put64(p, bswap_64(pr_get64(p))); }

/* --- lib/perfdata-swap.c ------------------------------------------------ */
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

/* --- lib/perfdata-features.c ------------------------------------------- */
struct perfring_perfdata;
/* Parse an EVENT_DESC payload and name the attrs it describes. */
PR_HIDDEN int pr_pd_event_desc(struct perfring_perfdata *pd, const void *data,
			       size_t size);
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
