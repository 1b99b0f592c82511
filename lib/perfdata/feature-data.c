/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data feature payloads, below the reader and the text rendering
 * (features.c) that both read them: the feature names, a bounds-checked
 * cursor that swaps when the file's byte order is not ours, and the walk
 * over EVENT_DESC.  Encodings: doc/perf-format.md 5.4 (they follow perf's
 * code, not perf.data-file-format.txt, where the two disagree).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "perfdata/private.h"

static const char *const feat_names[] = {
	[0] = "RESERVED",
	[PERFRING_FEAT_TRACING_DATA] = "TRACING_DATA",
	[PERFRING_FEAT_BUILD_ID] = "BUILD_ID",
	[PERFRING_FEAT_HOSTNAME] = "HOSTNAME",
	[PERFRING_FEAT_OSRELEASE] = "OSRELEASE",
	[PERFRING_FEAT_VERSION] = "VERSION",
	[PERFRING_FEAT_ARCH] = "ARCH",
	[PERFRING_FEAT_NRCPUS] = "NRCPUS",
	[PERFRING_FEAT_CPUDESC] = "CPUDESC",
	[PERFRING_FEAT_CPUID] = "CPUID",
	[PERFRING_FEAT_TOTAL_MEM] = "TOTAL_MEM",
	[PERFRING_FEAT_CMDLINE] = "CMDLINE",
	[PERFRING_FEAT_EVENT_DESC] = "EVENT_DESC",
	[PERFRING_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[PERFRING_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PERFRING_FEAT_BRANCH_STACK] = "BRANCH_STACK",
	[PERFRING_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PERFRING_FEAT_GROUP_DESC] = "GROUP_DESC",
	[PERFRING_FEAT_AUXTRACE] = "AUXTRACE",
	[PERFRING_FEAT_STAT] = "STAT",
	[PERFRING_FEAT_CACHE] = "CACHE",
	[PERFRING_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
	[PERFRING_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[PERFRING_FEAT_CLOCKID] = "CLOCKID",
	[PERFRING_FEAT_DIR_FORMAT] = "DIR_FORMAT",
	[PERFRING_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PERFRING_FEAT_BPF_BTF] = "BPF_BTF",
	[PERFRING_FEAT_COMPRESSED] = "COMPRESSED",
	[PERFRING_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[PERFRING_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	[PERFRING_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[PERFRING_FEAT_PMU_CAPS] = "PMU_CAPS",
	[PERFRING_FEAT_CPU_DOMAIN_INFO] = "CPU_DOMAIN_INFO",
};

PERFRING_API const char *perfring_perfdata_feature_name(uint32_t id)
{
	if (id < sizeof(feat_names) / sizeof(feat_names[0]))
		return feat_names[id];
	return NULL;
}

/* ---- bounds-checked cursor --------------------------------------------- */

int pr_c_u32(struct pr_cur *c, uint32_t *v)
{
	if (c->bad || c->len - c->pos < 4) {
		c->bad = 1;
		*v = 0;
		return -1;
	}
	*v = pr_get32(c->p + c->pos);
	if (c->swap)
		*v = bswap_32(*v);
	c->pos += 4;
	return 0;
}

int pr_c_u64(struct pr_cur *c, uint64_t *v)
{
	if (c->bad || c->len - c->pos < 8) {
		c->bad = 1;
		*v = 0;
		return -1;
	}
	*v = pr_get64(c->p + c->pos);
	if (c->swap)
		*v = bswap_64(*v);
	c->pos += 8;
	return 0;
}

int pr_c_bytes(struct pr_cur *c, size_t n, const unsigned char **b)
{
	if (c->bad || c->len - c->pos < n) {
		c->bad = 1;
		*b = NULL;
		return -1;
	}
	*b = c->p + c->pos;
	c->pos += n;
	return 0;
}

/* perf string: u32 len, then len bytes holding a NUL-terminated string. */
int pr_c_str(struct pr_cur *c, const char **s, int *n)
{
	uint32_t len;
	const unsigned char *b;

	*s = "";
	*n = 0;
	if (pr_c_u32(c, &len) || pr_c_bytes(c, len, &b))
		return -1;
	*s = (const char *)b;
	*n = (int)strnlen(*s, len);
	return 0;
}

/* ---- EVENT_DESC ------------------------------------------------------------ */

/*
 * u32 nr, u32 attr_size, then nr x { attr[attr_size], u32 nr_ids, str name,
 * u64 ids[nr_ids] }.  Calls fn for each entry with a native attr copy.
 */
int pr_pd_event_desc_walk(int swap, const void *data, size_t size,
			  pr_ed_fn fn, void *ctx)
{
	struct pr_cur c = { data, size, 0, swap, 0 };
	uint32_t nr, asz, i, j, nr_ids;
	unsigned char abuf[PR_PD_ATTR_MAX];
	const unsigned char *a;
	const char *name;
	int nlen, err;

	if (pr_c_u32(&c, &nr) || pr_c_u32(&c, &asz))
		return -EBADMSG;
	if (asz < PERFRING_ATTR_SIZE_VER0 || asz > PR_PD_ATTR_MAX)
		return -EBADMSG;
	if (nr > size / asz)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		struct perfring_attr attr;
		struct pr_cur ids;

		if (pr_c_bytes(&c, asz, &a))
			return -EBADMSG;
		memcpy(abuf, a, asz);
		if (swap)
			pr_pd_swap_attr(abuf, asz);
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, abuf, asz < PR_PD_ATTR_KNOWN ? asz : PR_PD_ATTR_KNOWN);
		if (pr_c_u32(&c, &nr_ids) || pr_c_str(&c, &name, &nlen))
			return -EBADMSG;
		if (nr_ids > (c.len - c.pos) / 8)
			return -EBADMSG;
		ids = c;
		for (j = 0; j < nr_ids; j++) {
			uint64_t id;

			pr_c_u64(&c, &id);
		}
		err = fn(ctx, i, &attr, name, nlen, &ids, nr_ids);
		if (err)
			return err;
	}
	return 0;
}

