/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A text rendering of the common perf.data feature sections.  Payloads stay in file byte order; every
 * read goes through a bounds-checked cursor that swaps when needed.
 * Encodings: doc/perf-format.md 5.4 (they follow perf's code, not
 * perf.data-file-format.txt, where the two disagree).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "perfdata/private.h"


/* ---- text rendering ----------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	size_t n;		/* length of the full text */
};

static void o_printf(struct out *o, const char *fmt, ...) PR_PRINTF(2, 3);
static void o_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int r;
	size_t room = o->n < o->len ? o->len - o->n : 0;

	va_start(ap, fmt);
	r = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n += (size_t)r;
}

static int ed_format(void *ctx, size_t i, const struct perfring_attr *a,
		     const char *name, int nlen, struct pr_cur *ids, uint32_t nr_ids)
{
	struct out *o = ctx;
	uint32_t j;

	(void)i;
	o_printf(o, "event : name = %.*s, type = %u, config = 0x%" PRIx64
		 ", size = %u, sample_type = 0x%" PRIx64 ", read_format = 0x%" PRIx64
		 ", flags = 0x%" PRIx64 ", sample_period = %" PRIu64 ", id = {",
		 nlen, name, a->type, a->config, a->size, a->sample_type,
		 a->read_format, a->flags, a->sample_period);
	for (j = 0; j < nr_ids; j++) {
		uint64_t id;

		pr_c_u64(ids, &id);
		o_printf(o, "%s %" PRIu64, j ? "," : "", id);
	}
	o_printf(o, " }\n");
	return 0;
}

/*
 * Entries {header, pid, build_id[24], filename}.  perf before 2.6.34 wrote
 * them without the pid; perf (perf_header__read_build_ids) tells that
 * table by its first entry, the kernel's: read with the pid, its name
 * starts "nel.kallsyms]".  Such entries get pid -1 (the host), 0 for guest
 * cpumodes, as perf gives them.
 */
static void fmt_build_ids(struct out *o, struct pr_cur *c)
{
	int old = c->len - c->pos >= 36 + 13 &&
		  !memcmp(c->p + c->pos + 36, "nel.kallsyms]", 13);
	size_t bid = old ? 8 : 12, name = old ? 32 : 36;

	while (!c->bad && c->len - c->pos >= 8) {
		const unsigned char *e = c->p + c->pos;
		uint16_t misc = pr_get16(e + 4), size = pr_get16(e + 6);
		int32_t pid;
		unsigned bsz = 20, k;
		size_t flen;

		if (c->swap) {
			misc = bswap_16(misc);
			size = bswap_16(size);
		}
		if (size < name || size > c->len - c->pos) {
			o_printf(o, "build_id : malformed entry at +%zu (size %u)\n",
				 c->pos, size);
			return;
		}
		if (old) {
			pid = misc == PERFRING_MISC_GUEST_KERNEL ||
			      misc == PERFRING_MISC_GUEST_USER ? 0 : -1;
		} else {
			pid = (int32_t)pr_get32(e + 8);
			if (c->swap)
				pid = (int32_t)bswap_32((uint32_t)pid);
			if (misc & PERFRING_MISC_EXT_RESERVED && e[32] <= 20)
				bsz = e[32];
		}
		o_printf(o, "build_id : ");
		for (k = 0; k < bsz; k++)
			o_printf(o, "%02x", e[bid + k]);
		flen = strnlen((const char *)e + name, size - name);
		o_printf(o, " %.*s (pid %d)\n", (int)flen, (const char *)e + name, pid);
		c->pos += size;
	}
}

/* u32 n, then n perf strings, one line each: "LABEL : STRING" */
static void fmt_str_list(struct out *o, struct pr_cur *c, const char *label)
{
	uint32_t n, k;
	const char *s;
	int len;

	if (pr_c_u32(c, &n))
		return;
	for (k = 0; k < n && !c->bad; k++)
		if (!pr_c_str(c, &s, &len))
			o_printf(o, "%s : %.*s\n", label, len, s);
}

static void fmt_cpu_topology(struct out *o, struct pr_cur *c, long ncpu)
{
	uint32_t core, sock, die;
	long i;

	fmt_str_list(o, c, "sibling sockets");
	fmt_str_list(o, c, "sibling threads");
	if (c->bad || c->pos == c->len)
		return;
	if (ncpu < 0 || (uint64_t)ncpu > (c->len - c->pos) / 8) {
		o_printf(o, "cpu topology : %zu bytes of per-CPU ids\n", c->len - c->pos);
		c->pos = c->len;
		return;
	}
	for (i = 0; i < ncpu && !c->bad; i++)
		if (!pr_c_u32(c, &core) && !pr_c_u32(c, &sock))
			o_printf(o, "CPU %ld: Core ID %u, Socket ID %u\n", i, core, sock);
	if (c->bad || c->pos == c->len)
		return;
	fmt_str_list(o, c, "sibling dies");
	for (i = 0; i < ncpu && !c->bad; i++)
		if (!pr_c_u32(c, &die))
			o_printf(o, "CPU %ld: Die ID %u\n", i, die);
}

static void fmt_pairs(struct out *o, struct pr_cur *c, uint32_t n, const char *prefix)
{
	uint32_t k;
	const char *a, *b;
	int la, lb;

	for (k = 0; k < n && !c->bad; k++)
		if (!pr_c_str(c, &a, &la) && !pr_c_str(c, &b, &lb))
			o_printf(o, "%s%.*s = %.*s\n", prefix, la, a, lb, b);
}

/* The label of a feature that is one string, or NULL. */
static const char *str_feature_label(uint32_t id)
{
	switch (id) {
	case PERFRING_FEAT_HOSTNAME: return "hostname";
	case PERFRING_FEAT_OSRELEASE: return "os release";
	case PERFRING_FEAT_VERSION: return "perf version";
	case PERFRING_FEAT_ARCH: return "arch";
	case PERFRING_FEAT_CPUDESC: return "cpudesc";
	case PERFRING_FEAT_CPUID: return "cpuid";
	default: return NULL;
	}
}

static void fmt_cmdline(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t k, nr;

	if (pr_c_u32(c, &nr))
		return;
	o_printf(o, "cmdline :");
	for (k = 0; k < nr && !c->bad; k++)
		if (!pr_c_str(c, &s, &n))
			o_printf(o, " %.*s", n, s);
	o_printf(o, "\n");
}

static void fmt_compressed(struct out *o, struct pr_cur *c)
{
	uint32_t ver, type, level, ratio, mmap_len;

	if (!pr_c_u32(c, &ver) && !pr_c_u32(c, &type) && !pr_c_u32(c, &level) &&
	    !pr_c_u32(c, &ratio) && !pr_c_u32(c, &mmap_len))
		o_printf(o, "compressed : %s, level = %u, ratio = %u, mmap_len = %u\n",
			 type == 1 ? "Zstd" : "unknown", level, ratio, mmap_len);
}

static void fmt_pmu_mappings(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t a, k, nr;

	if (pr_c_u32(c, &nr))
		return;
	o_printf(o, "pmu mappings:");
	for (k = 0; k < nr && !c->bad; k++)
		if (!pr_c_u32(c, &a) && !pr_c_str(c, &s, &n))
			o_printf(o, "%s %.*s = %u", k ? "," : "", n, s, a);
	o_printf(o, "\n");
}

static void fmt_group_desc(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t a, b, k, nr;

	if (pr_c_u32(c, &nr))
		return;
	for (k = 0; k < nr && !c->bad; k++)
		if (!pr_c_str(c, &s, &n) && !pr_c_u32(c, &a) && !pr_c_u32(c, &b))
			o_printf(o, "group : %.*s, leader %u, %u members\n",
				 n, s, a, b);
}

static void fmt_numa_topology(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t a, k, nr;
	uint64_t x, y;

	if (pr_c_u32(c, &nr))
		return;
	for (k = 0; k < nr && !c->bad; k++)
		if (!pr_c_u32(c, &a) && !pr_c_u64(c, &x) && !pr_c_u64(c, &y) &&
		    !pr_c_str(c, &s, &n))
			o_printf(o, "node%u meminfo : total = %" PRIu64 " kB, free = %"
				 PRIu64 " kB\nnode%u cpu list : %.*s\n", a, x, y, a, n, s);
}

static void fmt_cache(struct out *o, struct pr_cur *c)
{
	uint32_t a, k, nr;

	if (pr_c_u32(c, &a) || pr_c_u32(c, &nr))
		return;
	o_printf(o, "CPU cache info (version %u):\n", a);
	for (k = 0; k < nr && !c->bad; k++) {
		uint32_t level, line, sets, ways;
		const char *ty, *sz, *map;
		int lt, ls, lm;

		if (!pr_c_u32(c, &level) && !pr_c_u32(c, &line) && !pr_c_u32(c, &sets) &&
		    !pr_c_u32(c, &ways) && !pr_c_str(c, &ty, &lt) && !pr_c_str(c, &sz, &ls) &&
		    !pr_c_str(c, &map, &lm))
			o_printf(o, " L%u %-15.*s %8.*s [%.*s]\n", level, lt, ty, ls, sz,
				 lm, map);
	}
}

static void fmt_mem_topology(struct out *o, struct pr_cur *c)
{
	uint64_t ver, bsize, nodes, i, node, size, nbits;

	if (pr_c_u64(c, &ver) || pr_c_u64(c, &bsize) || pr_c_u64(c, &nodes))
		return;
	o_printf(o, "memory nodes (nr %" PRIu64 ", block size 0x%" PRIx64 "):\n",
		 nodes, bsize);
	/* per node: u64 node, u64 size (bits), bitmap: u64 bits again and
	 * the bits as u64 words; set bits are the node's memory blocks */
	for (i = 0; i < nodes && !c->bad; i++) {
		uint64_t w, set = 0, wi;

		if (pr_c_u64(c, &node) || pr_c_u64(c, &size) || pr_c_u64(c, &nbits))
			break;
		if (nbits / 8 > c->len)
			c->bad = 1;
		for (wi = 0; wi < (nbits + 63) / 64 && !c->bad; wi++)
			if (!pr_c_u64(c, &w))
				set += (uint64_t)pr_popcount64(
					wi == nbits / 64 ? w & ((1ull << (nbits % 64)) - 1) : w);
		if (!c->bad)
			o_printf(o, " node %" PRIu64 ": %" PRIu64 " of %" PRIu64
				 " blocks, %" PRIu64 " MiB\n", node, set, nbits,
				 set * bsize >> 20);
	}
}

static void fmt_pmu_caps(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t a, k, nr;

	if (pr_c_u32(c, &nr))
		return;
	o_printf(o, "pmu capabilities : %u pmus\n", nr);
	for (k = 0; k < nr && !c->bad; k++) {
		if (pr_c_u32(c, &a))
			break;
		/* the pmu name comes after its caps */
		fmt_pairs(o, c, a, " ");
		if (!pr_c_str(c, &s, &n))
			o_printf(o, " (pmu %.*s, %u caps)\n", n, s, a);
	}
}

static void fmt_hybrid_topology(struct out *o, struct pr_cur *c)
{
	const char *s;
	int n;
	uint32_t k, nr;

	if (pr_c_u32(c, &nr))
		return;
	for (k = 0; k < nr && !c->bad; k++) {
		const char *cpus;
		int lc;

		if (!pr_c_str(c, &s, &n) && !pr_c_str(c, &cpus, &lc))
			o_printf(o, "%.*s cpu list : %.*s\n", n, s, lc, cpus);
	}
}

/* The text of feature F that is not one string: one case per feature, the
 * longer ones in their own helpers above. */
static void fmt_feature_body(struct out *o, struct pr_cur *c,
			     const struct perfring_perfdata *pd,
			     const struct perfring_perfdata_feature *f)
{
	uint32_t a, b, nr;
	uint64_t x, y;

	switch (f->id) {
	case PERFRING_FEAT_NRCPUS:
		/* available (max present) first, then online: perf's code */
		if (!pr_c_u32(c, &a) && !pr_c_u32(c, &b))
			o_printf(o, "nrcpus online : %u\nnrcpus avail : %u\n", b, a);
		break;
	case PERFRING_FEAT_TOTAL_MEM:
		if (!pr_c_u64(c, &x))
			o_printf(o, "total memory : %" PRIu64 " kB\n", x);
		break;
	case PERFRING_FEAT_CMDLINE: fmt_cmdline(o, c); break;
	case PERFRING_FEAT_EVENT_DESC:
		if (pr_pd_event_desc_walk(c->swap, f->data, c->len, ed_format, o))
			c->bad = 1;
		break;
	case PERFRING_FEAT_BUILD_ID: fmt_build_ids(o, c); break;
	case PERFRING_FEAT_CLOCKID:
		if (!pr_c_u64(c, &x))
			o_printf(o, "clockid resolution : %" PRIu64 " ns\n", x);
		break;
	case PERFRING_FEAT_COMPRESSED: fmt_compressed(o, c); break;
	case PERFRING_FEAT_SAMPLE_TIME:
		if (!pr_c_u64(c, &x) && !pr_c_u64(c, &y))
			o_printf(o, "sample time : first %" PRIu64 " ns, last %" PRIu64
				 " ns, duration %" PRIu64 " ns\n", x, y, y - x);
		break;
	case PERFRING_FEAT_PMU_MAPPINGS: fmt_pmu_mappings(o, c); break;
	case PERFRING_FEAT_GROUP_DESC: fmt_group_desc(o, c); break;
	case PERFRING_FEAT_CLOCK_DATA:
		if (!pr_c_u32(c, &a) && !pr_c_u32(c, &b) && !pr_c_u64(c, &x) && !pr_c_u64(c, &y))
			o_printf(o, "clock data : version %u, clockid %u, wall %" PRIu64
				 " ns = clock %" PRIu64 " ns\n", a, b, x, y);
		break;
	case PERFRING_FEAT_CPU_TOPOLOGY:
		fmt_cpu_topology(o, c, pr_pd_nr_cpus_avail(pd));
		break;
	case PERFRING_FEAT_NUMA_TOPOLOGY: fmt_numa_topology(o, c); break;
	case PERFRING_FEAT_CACHE: fmt_cache(o, c); break;
	case PERFRING_FEAT_MEM_TOPOLOGY: fmt_mem_topology(o, c); break;
	case PERFRING_FEAT_CPU_PMU_CAPS:
		if (!pr_c_u32(c, &nr)) {
			o_printf(o, "cpu pmu capabilities : %u\n", nr);
			fmt_pairs(o, c, nr, " ");
		}
		break;
	case PERFRING_FEAT_PMU_CAPS: fmt_pmu_caps(o, c); break;
	case PERFRING_FEAT_HYBRID_TOPOLOGY: fmt_hybrid_topology(o, c); break;
	case PERFRING_FEAT_AUXTRACE:
		if (!pr_c_u64(c, &x))
			o_printf(o, "auxtrace : %" PRIu64 " index entries\n", x);
		break;
	case PERFRING_FEAT_DIR_FORMAT:
		if (!pr_c_u64(c, &x))
			o_printf(o, "directory data version : %" PRIu64 "\n", x);
		break;
	case PERFRING_FEAT_BPF_PROG_INFO:
	case PERFRING_FEAT_BPF_BTF:
		if (!pr_c_u32(c, &nr))
			o_printf(o, "%s : %u entries\n", f->id == PERFRING_FEAT_BPF_BTF ?
				 "bpf btf" : "bpf prog info", nr);
		break;
	case PERFRING_FEAT_BRANCH_STACK:
		o_printf(o, "contains samples with branch stack\n");
		break;
	case PERFRING_FEAT_STAT:
		o_printf(o, "contains stat data\n");
		break;
	default:
		if (f->name)
			o_printf(o, "%s : %" PRIu64 " bytes\n", f->name, f->size);
		else
			o_printf(o, "feature %u : %" PRIu64 " bytes\n", f->id, f->size);
		break;
	}
}

PERFRING_API int perfring_perfdata_feature_format(const struct perfring_perfdata *pd,
						  const struct perfring_perfdata_feature *f,
						  char *buf, size_t len)
{
	struct out o = { buf, buf ? len : 0, 0 };
	struct pr_cur c;
	const char *s, *label;
	int n;

	if (!pd || !f || (!f->data && f->size))
		return -EINVAL;
	if (buf && len)
		buf[0] = 0;
	c.p = f->data;
	c.len = (size_t)f->size;
	c.pos = 0;
	c.swap = pr_pd_swapped(pd);
	c.bad = 0;

	label = str_feature_label(f->id);
	if (label) {
		if (!pr_c_str(&c, &s, &n))
			o_printf(&o, "%s : %.*s\n", label, n, s);
	} else {
		fmt_feature_body(&o, &c, pd, f);
	}
	if (c.bad)
		o_printf(&o, "%s : malformed payload (%" PRIu64 " bytes)\n",
			 f->name ? f->name : "feature", f->size);
	if (o.n > INT32_MAX)
		return -EOVERFLOW;
	return (int)o.n;
}
