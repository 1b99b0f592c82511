/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data feature sections: names, EVENT_DESC (event names), and a text
 * rendering of the common ones.  Payloads stay in file byte order; every
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

#include "perfdata-private.h"

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

struct cur {
	const unsigned char *p;
	size_t len, pos;
	int swap;
	int bad;		/* a read ran past the end */
};

static int c_u32(struct cur *c, uint32_t *v)
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

static int c_u64(struct cur *c, uint64_t *v)
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

static int c_bytes(struct cur *c, size_t n, const unsigned char **b)
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
static int c_str(struct cur *c, const char **s, int *n)
{
	uint32_t len;
	const unsigned char *b;

	*s = "";
	*n = 0;
	if (c_u32(c, &len) || c_bytes(c, len, &b))
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
typedef int (*ed_fn)(void *ctx, size_t i, const struct perfring_attr *attr,
		     const char *name, int nlen, struct cur *ids, uint32_t nr_ids);

static int event_desc_walk(int swap, const void *data, size_t size, ed_fn fn,
			   void *ctx)
{
	struct cur c = { data, size, 0, swap, 0 };
	uint32_t nr, asz, i, j, nr_ids;
	unsigned char abuf[PD_ATTR_MAX];
	const unsigned char *a;
	const char *name;
	int nlen, err;

	if (c_u32(&c, &nr) || c_u32(&c, &asz))
		return -EBADMSG;
	if (asz < PERFRING_ATTR_SIZE_VER0 || asz > PD_ATTR_MAX)
		return -EBADMSG;
	if (nr > size / asz)
		return -EBADMSG;
	for (i = 0; i < nr; i++) {
		struct perfring_attr attr;
		struct cur ids;

		if (c_bytes(&c, asz, &a))
			return -EBADMSG;
		memcpy(abuf, a, asz);
		if (swap)
			pr_pd_swap_attr(abuf, asz);
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, abuf, asz < PD_ATTR_KNOWN ? asz : PD_ATTR_KNOWN);
		if (c_u32(&c, &nr_ids) || c_str(&c, &name, &nlen))
			return -EBADMSG;
		if (nr_ids > (c.len - c.pos) / 8)
			return -EBADMSG;
		ids = c;
		for (j = 0; j < nr_ids; j++) {
			uint64_t id;

			c_u64(&c, &id);
		}
		err = fn(ctx, i, &attr, name, nlen, &ids, nr_ids);
		if (err)
			return err;
	}
	return 0;
}

static int name_attr(void *ctx, size_t i, const struct perfring_attr *attr,
		     const char *name, int nlen, struct cur *ids, uint32_t nr_ids)
{
	struct perfring_perfdata *pd = ctx;
	uint64_t id;
	int idx = -1;

	(void)attr;
	if (nr_ids) {
		c_u64(ids, &id);
		idx = perfring_perfdata_attr_by_id(pd, id);
	}
	if (idx < 0 && !nr_ids)
		idx = (int)i;
	if (idx < 0 || (size_t)idx >= perfring_perfdata_nr_attrs(pd))
		return 0;
	return pr_pd_set_name(pd, (size_t)idx, name, (size_t)nlen) == -ENOMEM ? -ENOMEM : 0;
}

int pr_pd_event_desc(struct perfring_perfdata *pd, const void *data, size_t size)
{
	return event_desc_walk(pr_pd_swapped(pd), data, size, name_attr, pd);
}

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
		     const char *name, int nlen, struct cur *ids, uint32_t nr_ids)
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

		c_u64(ids, &id);
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
static void fmt_build_ids(struct out *o, struct cur *c)
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
static void fmt_str_list(struct out *o, struct cur *c, const char *label)
{
	uint32_t n, k;
	const char *s;
	int len;

	if (c_u32(c, &n))
		return;
	for (k = 0; k < n && !c->bad; k++)
		if (!c_str(c, &s, &len))
			o_printf(o, "%s : %.*s\n", label, len, s);
}

static void fmt_cpu_topology(struct out *o, struct cur *c, long ncpu)
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
		if (!c_u32(c, &core) && !c_u32(c, &sock))
			o_printf(o, "CPU %ld: Core ID %u, Socket ID %u\n", i, core, sock);
	if (c->bad || c->pos == c->len)
		return;
	fmt_str_list(o, c, "sibling dies");
	for (i = 0; i < ncpu && !c->bad; i++)
		if (!c_u32(c, &die))
			o_printf(o, "CPU %ld: Die ID %u\n", i, die);
}

static void fmt_pairs(struct out *o, struct cur *c, uint32_t n, const char *prefix)
{
	uint32_t k;
	const char *a, *b;
	int la, lb;

	for (k = 0; k < n && !c->bad; k++)
		if (!c_str(c, &a, &la) && !c_str(c, &b, &lb))
			o_printf(o, "%s%.*s = %.*s\n", prefix, la, a, lb, b);
}

PERFRING_API int perfring_perfdata_feature_format(const struct perfring_perfdata *pd,
						  const struct perfring_perfdata_feature *f,
						  char *buf, size_t len)
{
	struct out o = { buf, buf ? len : 0, 0 };
	struct cur c;
	const char *s, *label = NULL;
	int n;
	uint32_t a, b, k, nr;
	uint64_t x, y;

	if (!pd || !f || (!f->data && f->size))
		return -EINVAL;
	if (buf && len)
		buf[0] = 0;
	c.p = f->data;
	c.len = (size_t)f->size;
	c.pos = 0;
	c.swap = pr_pd_swapped(pd);
	c.bad = 0;

	switch (f->id) {
	case PERFRING_FEAT_HOSTNAME: label = "hostname"; break;
	case PERFRING_FEAT_OSRELEASE: label = "os release"; break;
	case PERFRING_FEAT_VERSION: label = "perf version"; break;
	case PERFRING_FEAT_ARCH: label = "arch"; break;
	case PERFRING_FEAT_CPUDESC: label = "cpudesc"; break;
	case PERFRING_FEAT_CPUID: label = "cpuid"; break;
	default: break;
	}
	if (label) {
		if (!c_str(&c, &s, &n))
			o_printf(&o, "%s : %.*s\n", label, n, s);
		goto done;
	}
	switch (f->id) {
	case PERFRING_FEAT_NRCPUS:
		/* available (max present) first, then online: perf's code */
		if (!c_u32(&c, &a) && !c_u32(&c, &b))
			o_printf(&o, "nrcpus online : %u\nnrcpus avail : %u\n", b, a);
		break;
	case PERFRING_FEAT_TOTAL_MEM:
		if (!c_u64(&c, &x))
			o_printf(&o, "total memory : %" PRIu64 " kB\n", x);
		break;
	case PERFRING_FEAT_CMDLINE:
		if (c_u32(&c, &nr))
			break;
		o_printf(&o, "cmdline :");
		for (k = 0; k < nr && !c.bad; k++)
			if (!c_str(&c, &s, &n))
				o_printf(&o, " %.*s", n, s);
		o_printf(&o, "\n");
		break;
	case PERFRING_FEAT_EVENT_DESC:
		if (event_desc_walk(c.swap, f->data, c.len, ed_format, &o))
			c.bad = 1;
		break;
	case PERFRING_FEAT_BUILD_ID:
		fmt_build_ids(&o, &c);
		break;
	case PERFRING_FEAT_CLOCKID:
		if (!c_u64(&c, &x))
			o_printf(&o, "clockid resolution : %" PRIu64 " ns\n", x);
		break;
	case PERFRING_FEAT_COMPRESSED: {
		uint32_t ver, type, level, ratio, mmap_len;

		if (!c_u32(&c, &ver) && !c_u32(&c, &type) && !c_u32(&c, &level) &&
		    !c_u32(&c, &ratio) && !c_u32(&c, &mmap_len))
			o_printf(&o, "compressed : %s, level = %u, ratio = %u, mmap_len = %u\n",
				 type == 1 ? "Zstd" : "unknown", level, ratio, mmap_len);
		break;
	}
	case PERFRING_FEAT_SAMPLE_TIME:
		if (!c_u64(&c, &x) && !c_u64(&c, &y))
			o_printf(&o, "sample time : first %" PRIu64 " ns, last %" PRIu64
				 " ns, duration %" PRIu64 " ns\n", x, y, y - x);
		break;
	case PERFRING_FEAT_PMU_MAPPINGS:
		if (c_u32(&c, &nr))
			break;
		o_printf(&o, "pmu mappings:");
		for (k = 0; k < nr && !c.bad; k++)
			if (!c_u32(&c, &a) && !c_str(&c, &s, &n))
				o_printf(&o, "%s %.*s = %u", k ? "," : "", n, s, a);
		o_printf(&o, "\n");
		break;
	case PERFRING_FEAT_GROUP_DESC:
		if (c_u32(&c, &nr))
			break;
		for (k = 0; k < nr && !c.bad; k++)
			if (!c_str(&c, &s, &n) && !c_u32(&c, &a) && !c_u32(&c, &b))
				o_printf(&o, "group : %.*s, leader %u, %u members\n",
					 n, s, a, b);
		break;
	case PERFRING_FEAT_CLOCK_DATA:
		if (!c_u32(&c, &a) && !c_u32(&c, &b) && !c_u64(&c, &x) && !c_u64(&c, &y))
			o_printf(&o, "clock data : version %u, clockid %u, wall %" PRIu64
				 " ns = clock %" PRIu64 " ns\n", a, b, x, y);
		break;
	case PERFRING_FEAT_CPU_TOPOLOGY:
		fmt_cpu_topology(&o, &c, pr_pd_nr_cpus_avail(pd));
		break;
	case PERFRING_FEAT_NUMA_TOPOLOGY:
		if (c_u32(&c, &nr))
			break;
		for (k = 0; k < nr && !c.bad; k++)
			if (!c_u32(&c, &a) && !c_u64(&c, &x) && !c_u64(&c, &y) &&
			    !c_str(&c, &s, &n))
				o_printf(&o, "node%u meminfo : total = %" PRIu64 " kB, free = %"
					 PRIu64 " kB\nnode%u cpu list : %.*s\n", a, x, y, a, n, s);
		break;
	case PERFRING_FEAT_CACHE:
		if (c_u32(&c, &a) || c_u32(&c, &nr))
			break;
		o_printf(&o, "CPU cache info (version %u):\n", a);
		for (k = 0; k < nr && !c.bad; k++) {
			uint32_t level, line, sets, ways;
			const char *ty, *sz, *map;
			int lt, ls, lm;

			if (!c_u32(&c, &level) && !c_u32(&c, &line) && !c_u32(&c, &sets) &&
			    !c_u32(&c, &ways) && !c_str(&c, &ty, &lt) && !c_str(&c, &sz, &ls) &&
			    !c_str(&c, &map, &lm))
				o_printf(&o, " L%u %-15.*s %8.*s [%.*s]\n", level, lt, ty, ls, sz,
					 lm, map);
		}
		break;
	case PERFRING_FEAT_MEM_TOPOLOGY: {
		uint64_t ver, bsize, nodes, i, node, size, nbits;

		if (c_u64(&c, &ver) || c_u64(&c, &bsize) || c_u64(&c, &nodes))
			break;
		o_printf(&o, "memory nodes (nr %" PRIu64 ", block size 0x%" PRIx64 "):\n",
			 nodes, bsize);
		/* per node: u64 node, u64 size (bits), bitmap: u64 bits again and
		 * the bits as u64 words; set bits are the node's memory blocks */
		for (i = 0; i < nodes && !c.bad; i++) {
			uint64_t w, set = 0, wi;

			if (c_u64(&c, &node) || c_u64(&c, &size) || c_u64(&c, &nbits))
				break;
			if (nbits / 8 > c.len)
				c.bad = 1;
			for (wi = 0; wi < (nbits + 63) / 64 && !c.bad; wi++)
				if (!c_u64(&c, &w))
					set += (uint64_t)pr_popcount64(
						wi == nbits / 64 ? w & ((1ull << (nbits % 64)) - 1) : w);
			if (!c.bad)
				o_printf(&o, " node %" PRIu64 ": %" PRIu64 " of %" PRIu64
					 " blocks, %" PRIu64 " MiB\n", node, set, nbits,
					 set * bsize >> 20);
		}
		break;
	}
	case PERFRING_FEAT_CPU_PMU_CAPS:
		if (!c_u32(&c, &nr)) {
			o_printf(&o, "cpu pmu capabilities : %u\n", nr);
			fmt_pairs(&o, &c, nr, " ");
		}
		break;
	case PERFRING_FEAT_PMU_CAPS:
		if (c_u32(&c, &nr))
			break;
		o_printf(&o, "pmu capabilities : %u pmus\n", nr);
		for (k = 0; k < nr && !c.bad; k++) {
			if (c_u32(&c, &a))
				break;
			/* the pmu name comes after its caps */
			fmt_pairs(&o, &c, a, " ");
			if (!c_str(&c, &s, &n))
				o_printf(&o, " (pmu %.*s, %u caps)\n", n, s, a);
		}
		break;
	case PERFRING_FEAT_HYBRID_TOPOLOGY:
		if (c_u32(&c, &nr))
			break;
		for (k = 0; k < nr && !c.bad; k++) {
			const char *cpus;
			int lc;

			if (!c_str(&c, &s, &n) && !c_str(&c, &cpus, &lc))
				o_printf(&o, "%.*s cpu list : %.*s\n", n, s, lc, cpus);
		}
		break;
	case PERFRING_FEAT_AUXTRACE:
		if (!c_u64(&c, &x))
			o_printf(&o, "auxtrace : %" PRIu64 " index entries\n", x);
		break;
	case PERFRING_FEAT_DIR_FORMAT:
		if (!c_u64(&c, &x))
			o_printf(&o, "directory data version : %" PRIu64 "\n", x);
		break;
	case PERFRING_FEAT_BPF_PROG_INFO:
	case PERFRING_FEAT_BPF_BTF:
		if (!c_u32(&c, &nr))
			o_printf(&o, "%s : %u entries\n", f->id == PERFRING_FEAT_BPF_BTF ?
				 "bpf btf" : "bpf prog info", nr);
		break;
	case PERFRING_FEAT_BRANCH_STACK:
		o_printf(&o, "contains samples with branch stack\n");
		break;
	case PERFRING_FEAT_STAT:
		o_printf(&o, "contains stat data\n");
		break;
	default:
		if (f->name)
			o_printf(&o, "%s : %" PRIu64 " bytes\n", f->name, f->size);
		else
			o_printf(&o, "feature %u : %" PRIu64 " bytes\n", f->id, f->size);
		break;
	}
done:
	if (c.bad)
		o_printf(&o, "%s : malformed payload (%" PRIu64 " bytes)\n",
			 f->name ? f->name : "feature", f->size);
	if (o.n > INT32_MAX)
		return -EOVERFLOW;
	return (int)o.n;
}
