/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer: header features given by the caller, and the features
 * of a perf.data being rewritten carried into its rewrite.
 *
 * A rewrite describes the machine that recorded, not this one: its
 * features go out as they came in (a byte-swapped input's swapped to this
 * machine's order where the layout is known), and the writer builds only
 * what the rewrite itself changes (EVENT_DESC, COMPRESSED, SAMPLE_TIME,
 * CMDLINE).  Uses the reader's public API only.
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer/private.h"

/* Features the writer builds itself, whatever is given. */
static int writer_owned(uint32_t id)
{
	switch (id) {
	case PERFRING_FEAT_EVENT_DESC:
	case PERFRING_FEAT_COMPRESSED:
	case PERFRING_FEAT_SAMPLE_TIME:
	case PERFRING_FEAT_AUXTRACE:	/* an index of AUXTRACE records: not written */
	case PERFRING_FEAT_DIR_FORMAT:	/* the output is one file */
		return 1;
	}
	return 0;
}

int wr_set_given(struct perfring_writer *w, uint32_t id, const void *p, size_t n)
{
	struct pr_buf *g;

	if (!w->hd.given) {
		w->hd.given = calloc(PR_PD_NR_FEAT_IDS, sizeof(*w->hd.given));
		if (!w->hd.given)
			return -ENOMEM;
	}
	g = &w->hd.given[id];
	g->len = 0;
	g->oom = 0;
	if (n)
		pr_buf_put(g, p, n);
	if (g->oom)
		return -ENOMEM;
	w->hd.given_mask[id / 64] |= 1ull << (id % 64);
	return 0;
}

PERFRING_API int perfring_writer_set_feature(struct perfring_writer *w, uint32_t id,
					     const void *data, size_t size,
					     struct perfring_diag *diag)
{
	int r;

	if (!w || (size && !data)) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "bad argument");
		return -EINVAL;
	}
	if (id == 0 || id >= PR_PD_NR_FEAT_IDS || writer_owned(id)) {
		const char *n = perfring_perfdata_feature_name(id);

		pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
			    "feature %" PRIu32 " (%s) %s", id, n ? n : "unknown",
			    id == 0 || id >= PR_PD_NR_FEAT_IDS ? "is not a feature id (1..255)" :
			    "is built by the writer, not given");
		return -EINVAL;
	}
	if (w->out.pipe && w->started) {
		pr_diag_set(diag, -EBUSY, w->out.dname, PR_NO_OFFSET,
			    "a pipe-mode stream has written its features already");
		return -EBUSY;
	}
	if (id == PERFRING_FEAT_TRACING_DATA) {
		w->hd.tdata.len = 0;
		w->hd.tdata.oom = 0;
		if (size)
			pr_buf_put(&w->hd.tdata, data, size);
		w->hd.tdata_given = 1;
		r = w->hd.tdata.oom ? -ENOMEM : 0;
	} else {
		r = wr_set_given(w, id, data, size);
	}
	if (r)
		pr_diag_set(diag, r, w->out.dname, PR_NO_OFFSET, "out of memory");
	return r;
}

/* ---- byte-swapped inputs --------------------------------------------------- */

/*
 * A cursor that swaps a feature payload in place, field by field; bad is
 * set once a field runs past the end.
 */
struct sw {
	unsigned char *p;
	size_t len, pos;
	int bad;
};

static uint32_t sw32(struct sw *c)
{
	uint32_t v;

	if (c->bad || c->len - c->pos < 4) {
		c->bad = 1;
		return 0;
	}
	v = bswap_32(pr_get32(c->p + c->pos));
	pr_put32(c->p + c->pos, v);
	c->pos += 4;
	return v;
}

static void sw64(struct sw *c)
{
	if (c->bad || c->len - c->pos < 8) {
		c->bad = 1;
		return;
	}
	pr_put64(c->p + c->pos, bswap_64(pr_get64(c->p + c->pos)));
	c->pos += 8;
}

/* perf string: u32 len (swapped), then len bytes as they are */
static void swstr(struct sw *c)
{
	uint32_t n = sw32(c);

	if (c->bad || c->len - c->pos < n) {
		c->bad = 1;
		return;
	}
	c->pos += n;
}

static void swstrs(struct sw *c, uint32_t n)
{
	for (uint32_t i = 0; i < n && !c->bad; i++)
		swstr(c);
}

/* u32 n then n x str */
static void swlist(struct sw *c)
{
	swstrs(c, sw32(c));
}

static void swrest64(struct sw *c)
{
	while (!c->bad && c->pos < c->len)
		sw64(c);
}

/*
 * Swap the payload p (n bytes, a copy) of feature id to this machine's
 * order.  nr_cpus: NRCPUS's "available" count (CPU_TOPOLOGY needs it), or
 * -1.  Returns 0, 1 if the layout is not known here, -1 if it is malformed.
 */
static int swap_feature(uint32_t id, unsigned char *p, size_t n, long nr_cpus)
{
	struct sw c = { p, n, 0, 0 };
	uint32_t i, k, nr;

	switch (id) {
	case PERFRING_FEAT_TRACING_DATA:		/* its own byte-order flag */
	case PERFRING_FEAT_BRANCH_STACK:
	case PERFRING_FEAT_STAT:
		return 0;
	case PERFRING_FEAT_HOSTNAME: case PERFRING_FEAT_OSRELEASE: case PERFRING_FEAT_VERSION: case PERFRING_FEAT_ARCH:
	case PERFRING_FEAT_CPUDESC: case PERFRING_FEAT_CPUID:
		swstr(&c);
		break;
	case PERFRING_FEAT_NRCPUS:
		sw32(&c);
		sw32(&c);
		break;
	case PERFRING_FEAT_TOTAL_MEM: case PERFRING_FEAT_CLOCKID:
	case PERFRING_FEAT_MEM_TOPOLOGY:	/* u64s only */
		swrest64(&c);
		break;
	case PERFRING_FEAT_BUILD_ID:
		while (!c.bad && c.pos < c.len) {
			size_t start = c.pos, sz;

			sw32(&c);			/* type */
			if (c.len - c.pos < 4) {
				c.bad = 1;
				break;
			}
			pr_put16(c.p + c.pos, bswap_16(pr_get16(c.p + c.pos)));	/* misc */
			sz = bswap_16(pr_get16(c.p + c.pos + 2));
			pr_put16(c.p + c.pos + 2, (uint16_t)sz);
			c.pos += 4;
			sw32(&c);			/* pid */
			if (sz < 12 || sz > c.len - start)
				c.bad = 1;
			c.pos = start + sz;
		}
		break;
	case PERFRING_FEAT_CPU_TOPOLOGY:
		swlist(&c);			/* packages */
		swlist(&c);			/* cores */
		if (c.pos == c.len)
			break;
		if (nr_cpus < 0)
			return 1;
		for (i = 0; i < 2u * (uint32_t)nr_cpus && !c.bad; i++)
			sw32(&c);		/* core_id, socket_id */
		if (c.pos == c.len)
			break;
		swlist(&c);			/* dies */
		for (i = 0; i < (uint32_t)nr_cpus && !c.bad; i++)
			sw32(&c);
		break;
	case PERFRING_FEAT_NUMA_TOPOLOGY:
		nr = sw32(&c);
		for (i = 0; i < nr && !c.bad; i++) {
			sw32(&c);
			sw64(&c);
			sw64(&c);
			swstr(&c);
		}
		break;
	case PERFRING_FEAT_PMU_MAPPINGS:
		nr = sw32(&c);
		for (i = 0; i < nr && !c.bad; i++) {
			sw32(&c);
			swstr(&c);
		}
		break;
	case PERFRING_FEAT_GROUP_DESC:
		nr = sw32(&c);
		for (i = 0; i < nr && !c.bad; i++) {
			swstr(&c);
			sw32(&c);
			sw32(&c);
		}
		break;
	case PERFRING_FEAT_CACHE:
		sw32(&c);			/* version */
		nr = sw32(&c);
		for (i = 0; i < nr && !c.bad; i++) {
			for (k = 0; k < 4; k++)
				sw32(&c);
			swstrs(&c, 3);
		}
		break;
	case PERFRING_FEAT_CLOCK_DATA:
		sw32(&c);
		sw32(&c);
		sw64(&c);
		sw64(&c);
		break;
	case PERFRING_FEAT_CPU_PMU_CAPS: case PERFRING_FEAT_HYBRID_TOPOLOGY:
		nr = sw32(&c);
		swstrs(&c, 2 * nr);
		break;
	case PERFRING_FEAT_PMU_CAPS:
		nr = sw32(&c);
		for (i = 0; i < nr && !c.bad; i++) {
			swstrs(&c, 2 * sw32(&c));
			swstr(&c);
		}
		break;
	default:	/* BPF_* (perf writes them native only), unknown ids */
		return 1;
	}
	return c.bad || c.pos != c.len ? -1 : 0;
}

/* ---- copying the features of a perf.data ----------------------------------- */

/* Is the BUILD_ID entry e (size sz) for a file the table tab names?  1 with
 * the same id, 2 with another, 0 if not. */
static int build_id_known(const struct pr_buf *tab, const unsigned char *e, size_t sz)
{
	size_t off = 0;

	while (tab->len - off >= 36) {
		const unsigned char *t = tab->p + off;
		size_t tsz = pr_get16(t + 6);

		if (tsz < 36 || tsz > tab->len - off)
			break;
		/* same pid, same name (NUL-padded: compare up to the first NUL) */
		if (!memcmp(t + 8, e + 8, 4) &&
		    !strncmp((const char *)t + 36, (const char *)e + 36,
			     (tsz < sz ? tsz : sz) - 36))
			return memcmp(t + 12, e + 12, 21) ? 2 : 1;
		off += tsz;
	}
	return 0;
}

/* Append the entries of table p (n bytes, native order) to the given
 * BUILD_ID table, skipping files it names. */
static int merge_build_ids(struct perfring_writer *w, const unsigned char *p, size_t n,
			   uint64_t *conflicts)
{
	struct pr_buf *tab;
	size_t off = 0;
	int r;

	if (!wr_given(w, PERFRING_FEAT_BUILD_ID))
		return wr_set_given(w, PERFRING_FEAT_BUILD_ID, p, n);
	tab = &w->hd.given[PERFRING_FEAT_BUILD_ID];
	while (n - off >= 36) {
		size_t sz = pr_get16(p + off + 6);

		if (sz < 36 || sz > n - off)
			break;
		r = build_id_known(tab, p + off, sz);
		if (r == 2 && conflicts)
			(*conflicts)++;
		if (!r)
			pr_buf_put(tab, p + off, sz);
		off += sz;
	}
	return tab->oom ? -ENOMEM : 0;
}

/* NRCPUS "available" of pd, for CPU_TOPOLOGY, or -1. */
static long nr_cpus_of(struct perfring_perfdata *pd)
{
	uint32_t n = perfring_perfdata_nr_features(pd);

	for (uint32_t i = 0; i < n; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };

		if (perfring_perfdata_feature(pd, i, &f, NULL) == 0 &&
		    f.id == PERFRING_FEAT_NRCPUS && f.size >= 8) {
			uint32_t v = pr_get32(f.data);

			return perfring_perfdata_needs_swap(pd) ? (long)bswap_32(v) : (long)v;
		}
	}
	return -1;
}

/* Is a tracing-data payload one perf can be given?  A damaged one is left
 * out (logged): perf may crash on it. */
static int tracing_ok(const struct perfring_writer *w, struct perfring_perfdata *pd,
		      const struct perfring_perfdata_feature *f)
{
	struct perfring_diag d = { 0 };

	if (perfring_tracing_data_check(f->data, f->size, perfring_perfdata_is_pipe(pd) ?
					PERFRING_TRACING_DATA_PIPE : 0, NULL, &d) == 0)
		return 1;
	pr_log(PERFRING_LOG_WARN, "%s: the input's TRACING_DATA (at offset %#" PRIx64
	       ") is left out, as perf could crash on it: byte %#" PRIx64 " of it: %s",
	       w->out.dname, f->offset, d.offset, d.msg);
	return 0;
}

PERFRING_API int perfring_writer_copy_features(struct perfring_writer *w,
					       struct perfring_perfdata *pd,
					       unsigned what,
					       uint64_t *conflicts,
					       struct perfring_diag *diag)
{
	int swap, copied = 0;
	long nr_cpus;
	uint32_t n;

	if (!w || !pd || (what & ~(unsigned)(PERFRING_WRITER_COPY_BUILD_IDS |
					      PERFRING_WRITER_COPY_TRACING_DATA))) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "bad argument");
		return -EINVAL;
	}
	if (w->out.pipe && w->started) {
		pr_diag_set(diag, -EBUSY, w->out.dname, PR_NO_OFFSET,
			    "a pipe-mode stream has written its features already");
		return -EBUSY;
	}
	swap = perfring_perfdata_needs_swap(pd);
	nr_cpus = swap ? nr_cpus_of(pd) : -1;
	n = perfring_perfdata_nr_features(pd);
	for (uint32_t i = 0; i < n; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		unsigned char *copy = NULL;
		const void *data;
		int r;

		if (perfring_perfdata_feature(pd, i, &f, NULL) < 0)
			continue;	/* damaged: the reader reports it */
		if (f.id == 0 || f.id >= PR_PD_NR_FEAT_IDS || writer_owned(f.id) ||
		    f.id == PERFRING_FEAT_CMDLINE)
			continue;
		if (what && !(f.id == PERFRING_FEAT_BUILD_ID && (what & PERFRING_WRITER_COPY_BUILD_IDS)) &&
		    !(f.id == PERFRING_FEAT_TRACING_DATA && (what & PERFRING_WRITER_COPY_TRACING_DATA)))
			continue;
		if (f.id == PERFRING_FEAT_TRACING_DATA && !tracing_ok(w, pd, &f))
			continue;
		data = f.data;
		if (swap && f.size) {
			copy = malloc(f.size);
			if (!copy)
				goto oom;
			memcpy(copy, f.data, f.size);
			r = swap_feature(f.id, copy, f.size, nr_cpus);
			if (r) {
				const char *nm = perfring_perfdata_feature_name(f.id);

				pr_log(PERFRING_LOG_WARN, "%s: the input's feature %" PRIu32 " (%s) "
				       "is left out: %s", w->out.dname, f.id, nm ? nm : "unknown",
				       r > 0 ? "its layout is not known here, so it cannot "
				       "be turned into this machine's byte order" :
				       "malformed payload");
				free(copy);
				continue;
			}
			data = copy;
		}
		if (f.id == PERFRING_FEAT_BUILD_ID)
			r = merge_build_ids(w, data, f.size, conflicts);
		else
			r = perfring_writer_set_feature(w, f.id, data, f.size, diag);
		free(copy);
		if (r == -ENOMEM)
			goto oom;
		if (r < 0)
			return r;
		copied++;
	}
	return copied;
oom:
	pr_diag_set(diag, -ENOMEM, w->out.dname, PR_NO_OFFSET, "out of memory");
	return -ENOMEM;
}
