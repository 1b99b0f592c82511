/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data reader: header, attrs, ids, records (file and pipe mode),
 * COMPRESSED records, statistics.  Features: lib/perfdata/features.c;
 * byte-swapping: lib/perfdata/swap.c.
 *
 * Memory stays flat: the data section is read through one window
 * (opts.window bytes, 256 KiB by default) that is compacted and refilled
 * as records are consumed; a record (at most 65535 bytes) always fits in
 * it.  It is read (pread), not mapped: a window that stays in the L2 cache
 * while its records are copied on made replaying a 143 MB perf.data 1.3
 * times faster than mapping 8 MiB at a time (AMD EPYC; 1 MiB windows were
 * in between), and a file cut while it is read reads as truncated instead
 * of faulting.
 * A pipe-mode stream starts with 4 KiB of it and doubles that, up to the
 * window, each time a read fills what is there or a record needs more: a
 * short stream no longer costs a whole window, and a fast one reaches the
 * window in six reads.
 * Records are returned in place; one that sits at an unaligned address
 * (pipe streams after an odd-sized HEADER_FEATURE) is copied into a scratch
 * buffer first so that callers always get an 8-byte aligned record.
 * Decompressed data goes through a second window of the same kind, which
 * starts at 64 KiB and doubles while the decompressor fills it.
 *
 * Nothing from the input is trusted: every size and offset is checked
 * against the record, the section and the file before use.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "perfdata/count.h"
#include "perfdata/private.h"
#include "ring/private.h"

#define PD_WINDOW_DEFAULT (256u << 10)
#define PD_WINDOW_MIN (128u << 10)
#define PD_PIPE_START (4u << 10)	/* first pipe-mode buffer */
#define PD_Z_START (64u << 10)		/* first decompression buffer: a largest record */
#define PD_FEAT_MAX (1ull << 30)
#define PD_MAX_IDS (1u << 24)

struct pd_attr {
	struct perfring_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct pd_feat {
	uint32_t id;
	uint64_t offset, size;
	void *data;		/* pipe mode: owned copy of the payload */
};

struct pd_idmap_ent {
	uint64_t id;
	uint32_t idx1;		/* attr index + 1; 0 = empty slot */
};

struct perfring_perfdata {
	int fd, own_fd;
	char name[256];
	int pipe, swap;
	int legacy;		/* "PERFFILE" magic: attr.size 0 means header.attr_size - 16 */
	off_t base;		/* file offset of byte 0 of the perf.data */
	uint64_t file_size;	/* file mode: size of the regular file */
	struct perfring_perfdata_header hdr;

	struct pd_attr **attrs;	/* each allocated once: pointers stay valid */
	size_t nr_attrs, cap_attrs;
	char **old_names;	/* replaced names, kept until close */
	size_t nr_old_names;
	struct pd_idmap_ent *idmap;
	size_t idmap_cap, idmap_n;

	/* input window over the data section / stream */
	unsigned char *buf;
	size_t cap, len, pos;
	size_t window;		/* the window asked for (cap: what was allocated) */
	int grow;		/* pipe mode: the last read filled buf; double it */
	uint64_t buf_off;	/* stream offset of buf[0] */
	uint64_t data_end;	/* file mode: end of the data section */
	int eof;
	unsigned char *scratch;	/* aligned copy of a record; see scratch() */
	size_t scratch_cap;
	unsigned char *td_buf;	/* the blob after a HEADER_TRACING_DATA record */
	size_t td_cap;

	/* decompression */
	int z_active;
	uint64_t z_rec_off;	/* file offset of the current COMPRESSED record */
	const unsigned char *zin;
	size_t zin_len, zin_pos;
	int z_flush;		/* last call filled the output: call again */
	unsigned char *zbuf, *zscratch;
	size_t zcap, zlen, zpos, zscratch_cap;
	uint64_t zstream_off;	/* decompressed-stream offset of zbuf[0] */
#ifdef HAVE_ZSTD
	ZSTD_DStream *zds;
#endif

	/* features */
	struct pd_feat *feats;
	size_t nr_feats;
	unsigned char *feat_buf;
	size_t feat_cap;	/* its size */
	int feat_err;
	struct perfring_diag feat_diag;

	long nr_cpus_avail;	/* from NRCPUS, -1 if unknown */

	struct perfring_perfdata_stats st;
	int err;
	struct perfring_diag err_diag;

	struct pr_id_rule rule;	/* perf's id rule by attr 0, once it is known */
	int have_rule;
};

int pr_pd_swapped(const struct perfring_perfdata *pd) { return pd->swap; }
long pr_pd_nr_cpus_avail(const struct perfring_perfdata *pd) { return pd->nr_cpus_avail; }

static void note_nrcpus(struct perfring_perfdata *pd, const void *data, uint64_t size)
{
	uint32_t v;

	if (size < 8)
		return;
	v = pr_get32(data);
	pd->nr_cpus_avail = pd->swap ? bswap_32(v) : v;
}

/* ---- small helpers ---------------------------------------------------- */

static uint64_t g64(const struct perfring_perfdata *pd, const void *p)
{
	uint64_t v = pr_get64(p);
	return pd->swap ? bswap_64(v) : v;
}

static int fail(struct perfring_perfdata *pd, struct perfring_diag *diag,
		int err, uint64_t off, const char *fmt, ...) PR_PRINTF(5, 6);
static int fail(struct perfring_perfdata *pd, struct perfring_diag *diag,
		int err, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(&pd->err_diag, err, pd->name, off, fmt, ap);
	va_end(ap);
	pd->err = err;
	if (diag)
		*diag = pd->err_diag;
	return err;
}

/* Read exactly n bytes at perf.data offset off (file mode). 0, -EIO, or
 * -ENODATA when the file ends first. */
static int pread_full(struct perfring_perfdata *pd, uint64_t off, void *dst,
		      size_t n)
{
	unsigned char *d = dst;

	if (off > (uint64_t)INT64_MAX - n)
		return -ENODATA;
	while (n) {
		ssize_t r = pread(pd->fd, d, n, pd->base + (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -EIO;
		}
		if (r == 0)
			return -ENODATA;
		d += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Stream read: up to n bytes, at least 1 unless EOF.  Returns count or
 * -EIO. */
static ssize_t read_some(struct perfring_perfdata *pd, void *dst, size_t n)
{
	for (;;) {
		ssize_t r;

		if (pd->pipe)
			r = read(pd->fd, dst, n);
		else
			r = pread(pd->fd, dst, n,
				  pd->base + (off_t)(pd->buf_off + pd->len));
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -EIO : r;
	}
}

/* ---- id → attr map (open addressing) -------------------------------- */

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int idmap_find(const struct perfring_perfdata *pd, uint64_t id)
{
	size_t mask, i;

	if (!pd->idmap_cap)
		return -ENOENT;
	mask = pd->idmap_cap - 1;
	for (i = hash64(id) & mask;; i = (i + 1) & mask) {
		if (!pd->idmap[i].idx1)
			return -ENOENT;
		if (pd->idmap[i].id == id)
			return (int)pd->idmap[i].idx1 - 1;
	}
}

static int idmap_add(struct perfring_perfdata *pd, uint64_t id, size_t idx)
{
	size_t mask, i;

	if (idmap_find(pd, id) >= 0)
		return 0;	/* first owner wins, as in perf */
	if ((pd->idmap_n + 1) * 2 > pd->idmap_cap) {
		size_t ncap = pd->idmap_cap ? pd->idmap_cap * 2 : 64, j;
		struct pd_idmap_ent *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (j = 0; j < pd->idmap_cap; j++) {
			if (!pd->idmap[j].idx1)
				continue;
			for (i = hash64(pd->idmap[j].id) & (ncap - 1); n[i].idx1;
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = pd->idmap[j];
		}
		free(pd->idmap);
		pd->idmap = n;
		pd->idmap_cap = ncap;
	}
	mask = pd->idmap_cap - 1;
	for (i = hash64(id) & mask; pd->idmap[i].idx1; i = (i + 1) & mask)
		;
	pd->idmap[i].id = id;
	pd->idmap[i].idx1 = (uint32_t)idx + 1;
	pd->idmap_n++;
	return 0;
}

/* Add an attr (native order, `raw` bytes of it known) with its ids. */
static int add_attr(struct perfring_perfdata *pd, const unsigned char *raw,
		    size_t raw_len, const uint64_t *ids, size_t nr_ids)
{
	struct pd_attr *a;
	size_t i;
	int err;

	if (pd->nr_attrs >= INT_MAX - 1)
		return -E2BIG;
	if (pd->nr_attrs == pd->cap_attrs) {
		size_t ncap = pd->cap_attrs ? pd->cap_attrs * 2 : 4;
		struct pd_attr **n = realloc(pd->attrs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->attrs = n;
		pd->cap_attrs = ncap;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	pd->attrs[pd->nr_attrs] = a;
	memcpy(&a->attr, raw, raw_len < PR_PD_ATTR_KNOWN ? raw_len : PR_PD_ATTR_KNOWN);
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids) {
			free(a);
			return -ENOMEM;
		}
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
		a->nr_ids = nr_ids;
	}
	pd->nr_attrs++;
	for (i = 0; i < nr_ids; i++) {
		err = idmap_add(pd, ids[i], pd->nr_attrs - 1);
		if (err)
			return err;
	}
	return 0;
}

int pr_pd_set_name(struct perfring_perfdata *pd, size_t idx, const char *name,
		   size_t len)
{
	char *n;

	if (idx >= pd->nr_attrs)
		return -ENOENT;
	len = strnlen(name, len);
	if (pd->attrs[idx]->name && strlen(pd->attrs[idx]->name) == len &&
	    !memcmp(pd->attrs[idx]->name, name, len))
		return 0;	/* same name again (EVENT_DESC and EVENT_UPDATE) */
	n = malloc(len + 1);
	if (!n)
		return -ENOMEM;
	memcpy(n, name, len);
	n[len] = 0;
	if (pd->attrs[idx]->name) {
		/* keep the old name: callers may still hold it */
		char **o = realloc(pd->old_names, (pd->nr_old_names + 1) * sizeof(*o));

		if (!o) {
			free(n);
			return -ENOMEM;
		}
		pd->old_names = o;
		o[pd->nr_old_names++] = pd->attrs[idx]->name;
	}
	pd->attrs[idx]->name = n;
	return 0;
}

/* EVENT_DESC: name the attrs it describes (by their first id, else by index). */
static int name_attr(void *ctx, size_t i, const struct perfring_attr *attr,
		     const char *name, int nlen, struct pr_cur *ids, uint32_t nr_ids)
{
	struct perfring_perfdata *pd = ctx;
	uint64_t id;
	int idx = -1;

	(void)attr;
	if (nr_ids) {
		pr_c_u64(ids, &id);
		idx = perfring_perfdata_attr_by_id(pd, id);
	}
	if (idx < 0 && !nr_ids)
		idx = (int)i;
	if (idx < 0 || (size_t)idx >= perfring_perfdata_nr_attrs(pd))
		return 0;
	return pr_pd_set_name(pd, (size_t)idx, name, (size_t)nlen) == -ENOMEM ? -ENOMEM : 0;
}

static int pd_event_desc(struct perfring_perfdata *pd, const void *data, size_t size)
{
	return pr_pd_event_desc_walk(pd->swap, data, size, name_attr, pd);
}

/*
 * A legacy file names no events (no EVENT_DESC, event types only for
 * tracepoints): give a hardware or software attr without a name the one
 * perf 6.1 gives it (evsel__hw_name / evsel__sw_name and the suffix of
 * evsel__add_modifiers: "cycles:HG" for an attr of the time, which knew
 * no exclude_guest), so that a rewrite that carries the name shows what
 * perf shows for the legacy file.
 */
static int legacy_name(struct perfring_perfdata *pd, size_t idx)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};
	const struct perfring_attr *a = &pd->attrs[idx]->attr;
	uint64_t f = a->flags, pip;
	const char *base = NULL;
	char mod[16], name[64];
	size_t r = 0;
	int egd = 0;

	if (pd->attrs[idx]->name)
		return 0;
	if (a->type == PERFRING_TYPE_HARDWARE && a->config < sizeof(hw) / sizeof(hw[0]))
		base = hw[a->config];
	else if (a->type == PERFRING_TYPE_SOFTWARE && a->config < sizeof(sw) / sizeof(sw[0]))
		base = sw[a->config];
	if (!base)
		return 0;
	if (f & (PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_USER |
		 PERFRING_ATTR_EXCLUDE_HV)) {
		if (!(f & PERFRING_ATTR_EXCLUDE_KERNEL))
			mod[r++] = 'k';
		if (!(f & PERFRING_ATTR_EXCLUDE_USER))
			mod[r++] = 'u';
		if (!(f & PERFRING_ATTR_EXCLUDE_HV))
			mod[r++] = 'h';
		egd = 1;
	}
	pip = (f & PERFRING_ATTR_PRECISE_IP_MASK) >> PERFRING_ATTR_PRECISE_IP_SHIFT;
	if (pip) {
		while (pip--)
			mod[r++] = 'p';
		egd = 1;
	}
	if ((f & PERFRING_ATTR_EXCLUDE_HOST) || !!(f & PERFRING_ATTR_EXCLUDE_GUEST) == egd) {
		if (!(f & PERFRING_ATTR_EXCLUDE_HOST))
			mod[r++] = 'H';
		if (!(f & PERFRING_ATTR_EXCLUDE_GUEST))
			mod[r++] = 'G';
	}
	snprintf(name, sizeof(name), "%s%s%.*s", base, r ? ":" : "", (int)r, mod);
	return pr_pd_set_name(pd, idx, name, strlen(name)) == -ENOMEM ? -ENOMEM : 0;
}

/* ---- file header, attrs, feature table --------------------------------- */

static int read_attrs(struct perfring_perfdata *pd, struct perfring_diag *diag)
{
	const struct perfring_perfdata_header *h = &pd->hdr;
	/* on the stack: a 4 KiB malloc per open (AddressSanitizer fills
	 * it) was a tenth of an open of a small file */
	alignas(8) unsigned char raw[PR_PD_ATTR_MAX + 16];
	uint64_t *ids = NULL;
	uint64_t off, end, nr, i, j;
	int err = 0, size0;

	if (h->attrs_size == 0)
		return 0;
	if (h->attr_size == 0)
		return fail(pd, diag, -EBADMSG, 16,
			    "attr_size is 0 but the attr section has %" PRIu64 " bytes",
			    h->attrs_size);
	if (h->attrs_offset > pd->file_size ||
	    h->attrs_size > pd->file_size - h->attrs_offset)
		return fail(pd, diag, -EBADMSG, 24,
			    "attr section [0x%" PRIx64 ", +0x%" PRIx64 ") lies outside the file (%" PRIu64 " bytes)",
			    h->attrs_offset, h->attrs_size, pd->file_size);
	nr = h->attrs_size / h->attr_size;
	off = h->attrs_offset;
	end = h->attrs_offset + h->attrs_size;
	for (i = 0; i < nr; i++) {
		uint64_t sz, ids_off, ids_size, n_ids;

		/* perf reads VER0 first, then attr.size - VER0 more bytes,
		 * then the ids section; header.attr_size only gives the count */
		if (off + PERFRING_ATTR_SIZE_VER0 + 16 > end) {
			err = fail(pd, diag, -EBADMSG, off,
				   "attr %" PRIu64 " runs past the end of the attr section (0x%" PRIx64 ")",
				   i, end);
			goto out;
		}
		if (pread_full(pd, off, raw, 8)) {
			err = fail(pd, diag, -EBADMSG, off, "cannot read attr %" PRIu64, i);
			goto out;
		}
		sz = pr_get32(raw + 4);
		if (pd->swap)
			sz = bswap_32((uint32_t)sz);
		size0 = sz == 0;
		/* attr.size 0: perf reads VER0.  Legacy perf never set
		 * attr.size and wrote its own sizeof(perf_event_attr), which
		 * header.attr_size gives (legacy_order checked it): perf 6.1
		 * reads the ids of a 72-byte legacy attr 8 bytes early. */
		if (sz == 0)
			sz = pd->legacy ? h->attr_size - 16 : PERFRING_ATTR_SIZE_VER0;
		if (sz < PERFRING_ATTR_SIZE_VER0 || sz > PR_PD_ATTR_MAX || sz % 8) {
			err = fail(pd, diag, -EBADMSG, off + 4,
				   "attr %" PRIu64 " has a bad size %" PRIu64 " (want a multiple of 8 in 64..%u)",
				   i, sz, PR_PD_ATTR_MAX);
			goto out;
		}
		if (off + sz + 16 > end) {
			err = fail(pd, diag, -EBADMSG, off + 4,
				   "attr %" PRIu64 " (size %" PRIu64 ") and its ids entry run past the end of the attr section (0x%" PRIx64 ")",
				   i, sz, end);
			goto out;
		}
		if (pread_full(pd, off, raw, sz + 16)) {
			err = fail(pd, diag, -EBADMSG, off, "cannot read attr %" PRIu64, i);
			goto out;
		}
		if (pd->swap) {
			/* swap all sz bytes, then keep the file's size 0 */
			if (size0)
				pr_put32(raw + 4, bswap_32((uint32_t)sz));
			pr_pd_swap_attr(raw, sz);
			if (size0)
				pr_put32(raw + 4, 0);
		}
		ids_off = g64(pd, raw + sz);
		ids_size = g64(pd, raw + sz + 8);
		if (ids_size % 8 || ids_off > pd->file_size ||
		    ids_size > pd->file_size - ids_off || ids_size / 8 > PD_MAX_IDS) {
			err = fail(pd, diag, -EBADMSG, off + sz,
				   "ids of attr %" PRIu64 " [0x%" PRIx64 ", +0x%" PRIx64 ") lie outside the file or are not u64s",
				   i, ids_off, ids_size);
			goto out;
		}
		n_ids = ids_size / 8;
		free(ids);
		ids = malloc(ids_size ? ids_size : 1);
		if (!ids) {
			err = -ENOMEM;
			goto out;
		}
		if (ids_size && pread_full(pd, ids_off, ids, ids_size)) {
			err = fail(pd, diag, -EBADMSG, ids_off,
				   "cannot read the ids of attr %" PRIu64, i);
			goto out;
		}
		if (pd->swap)
			for (j = 0; j < n_ids; j++)
				ids[j] = bswap_64(ids[j]);
		err = add_attr(pd, raw, sz, ids, n_ids);
		if (err)
			goto out;
		off += sz + 16;
	}
out:
	free(ids);
	return err;
}

/*
 * The feature table, one 16-byte entry per bit set, read in one go (up to
 * 4 KiB: a pread per entry cost a system call per feature).  Entries past
 * the end of the file leave the features before them.
 */
static int read_feature_table(struct perfring_perfdata *pd)
{
	const struct perfring_perfdata_header *h = &pd->hdr;
	uint64_t off = h->data_offset + h->data_size;
	unsigned char tab[256 * 16];
	size_t n = 0, got = 0, k = 0;

	for (int w = 0; w < 4; w++)
		n += (size_t)pr_popcount64(h->features[w]);
	if (!n)
		return 0;
	pd->feats = calloc(n, sizeof(*pd->feats));
	if (!pd->feats)
		return -ENOMEM;
	while (got < n * 16 && off <= (uint64_t)INT64_MAX - n * 16) {
		ssize_t r = pread(pd->fd, tab + got, n * 16 - got, pd->base + (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	/* the set bits, lowest first (a test per bit of 256 was most of
	 * an open of a small file) */
	for (unsigned w = 0; w < 4; w++) {
		for (uint64_t m = h->features[w]; m; m &= m - 1) {
			unsigned bit = 64 * w + (unsigned)__builtin_ctzll(m);
			struct pd_feat *f;

			if (got < 16 * (k + 1)) {
				pr_diag_set(&pd->feat_diag, -EBADMSG, pd->name, off + 16 * k,
					    "the feature table ends after %zu of its %zu entries: "
					    "truncated (the feature table entry for %s (%u) lies past "
					    "the end of the file)", k, n,
					    perfring_perfdata_feature_name(bit) ?
					    perfring_perfdata_feature_name(bit) : "feature", bit);
				pd->feat_err = -EBADMSG;
				return 0;	/* keep the features read so far */
			}
			f = &pd->feats[pd->nr_feats++];
			f->id = bit;
			f->offset = g64(pd, tab + 16 * k);
			f->size = g64(pd, tab + 16 * k + 8);
			k++;
		}
	}
	return 0;
}

static void feature_bitmap(struct perfring_perfdata *pd, const unsigned char *b)
{
	uint64_t *w = pd->hdr.features;
	int i;

	for (i = 0; i < 4; i++)
		w[i] = pr_get64(b + 8 * i);
	if (!pd->swap)
		return;
	/* perf's rule: swap as u64 words and expect HOSTNAME; else as u32
	 * words (a 32-bit writer); else assume only BUILD_ID. */
	for (i = 0; i < 4; i++)
		w[i] = bswap_64(w[i]);
	if (w[0] & (1ull << PERFRING_FEAT_HOSTNAME))
		return;
	for (i = 0; i < 4; i++) {
		uint64_t v = pr_get64(b + 8 * i);
		uint32_t lo = bswap_32((uint32_t)v), hi = bswap_32((uint32_t)(v >> 32));

		w[i] = (uint64_t)hi << 32 | lo;
	}
	if (w[0] & (1ull << PERFRING_FEAT_HOSTNAME))
		return;
	memset(pd->hdr.features, 0, sizeof(pd->hdr.features));
	w[0] = 1ull << PERFRING_FEAT_BUILD_ID;
}

static void read_event_types(struct perfring_perfdata *pd, const unsigned char *h);

static int open_file_mode(struct perfring_perfdata *pd, const unsigned char *first16,
			  uint64_t hsize, struct perfring_diag *diag)
{
	unsigned char h[PR_PD_FILE_HEADER_SIZE];
	struct stat st;
	int err;

	if (pd->base < 0)
		return fail(pd, diag, -ESPIPE, 8,
			    "file-mode perf.data on a non-seekable input (perf writes pipe mode with -o -)");
	if (fstat(pd->fd, &st) < 0)
		return fail(pd, diag, -EIO, PR_NO_OFFSET, "fstat failed");
	pd->file_size = (uint64_t)st.st_size > (uint64_t)pd->base ?
			(uint64_t)st.st_size - (uint64_t)pd->base : 0;
	if (pd->legacy && hsize != PR_PD_OLD_HEADER_SIZE && hsize != PR_PD_FILE_HEADER_SIZE)
		return fail(pd, diag, -EBADMSG, 8,
			    "bad header size %" PRIu64 " of a legacy PERFFILE file (want 72, or 104 with the feature bitmap; 16 for pipe mode)",
			    hsize);
	if (hsize < PR_PD_OLD_HEADER_SIZE || hsize > 4096)
		return fail(pd, diag, -EBADMSG, 8,
			    "bad header size %" PRIu64 " (want 16 for pipe mode, 104, or 72 for old files)",
			    hsize);
	memset(h, 0, sizeof(h));
	memcpy(h, first16, PR_PD_PIPE_HEADER_SIZE);
	if (pread_full(pd, 16, h + 16, (hsize < PR_PD_FILE_HEADER_SIZE ? hsize : PR_PD_FILE_HEADER_SIZE) - 16))
		return fail(pd, diag, -EBADMSG, 16, "file ends inside the %" PRIu64 "-byte header",
			    hsize);
	pd->hdr.header_size = hsize;
	pd->hdr.attr_size = g64(pd, h + 16);
	pd->hdr.attrs_offset = g64(pd, h + 24);
	pd->hdr.attrs_size = g64(pd, h + 32);
	pd->hdr.data_offset = g64(pd, h + 40);
	pd->hdr.data_size = g64(pd, h + 48);
	if (hsize >= PR_PD_FILE_HEADER_SIZE)
		feature_bitmap(pd, h + PR_PD_OLD_HEADER_SIZE);

	if (pd->hdr.data_offset < hsize || pd->hdr.data_offset > pd->file_size)
		return fail(pd, diag, -EBADMSG, 40,
			    "data section offset 0x%" PRIx64 " lies outside the file (%" PRIu64 " bytes)",
			    pd->hdr.data_offset, pd->file_size);
	if (pd->hdr.data_size > UINT64_MAX - pd->hdr.data_offset)
		return fail(pd, diag, -EBADMSG, 48, "data section size 0x%" PRIx64 " overflows",
			    pd->hdr.data_size);
	err = read_attrs(pd, diag);
	if (err)
		return err;
	read_event_types(pd, h);
	if (pd->hdr.data_size == 0) {
		/* perf record did not finish: no feature table; read the
		 * records up to the end of the file. */
		pd->data_end = pd->file_size;
		memset(pd->hdr.features, 0, sizeof(pd->hdr.features));
	} else {
		pd->data_end = pd->hdr.data_offset + pd->hdr.data_size;
		err = read_feature_table(pd);
		if (err)
			return err;
	}
	pd->buf_off = pd->hdr.data_offset;
	return 0;
}

static void release_attr_names(struct perfring_perfdata *pd);

/* A file-mode feature section that lies outside the file: -EBADMSG and diag. */
static int section_outside(const struct perfring_perfdata *pd, const struct pd_feat *e,
			   struct perfring_diag *diag)
{
	const char *name = perfring_perfdata_feature_name(e->id);

	if (e->offset <= pd->file_size && e->size <= pd->file_size - e->offset)
		return 0;
	pr_diag_set(diag, -EBADMSG, pd->name, e->offset,
		    "feature %s (%u) section of %" PRIu64 " bytes lies outside the file (%" PRIu64 " bytes)",
		    name ? name : "?", e->id, e->size, pd->file_size);
	return -EBADMSG;
}

static int pd_feature(struct perfring_perfdata *pd, uint32_t idx,
		      struct perfring_perfdata_feature *f, struct perfring_diag *diag);

static int event_desc_at_open(struct perfring_perfdata *pd)
{
	struct perfring_perfdata_feature f;
	size_t i;

	for (i = 0; i < pd->nr_feats; i++) {
		if (pd->feats[i].id != PERFRING_FEAT_EVENT_DESC &&
		    pd->feats[i].id != PERFRING_FEAT_NRCPUS)
			continue;
		if (pd_feature(pd, (uint32_t)i, &f, NULL))
			continue;
		if (f.id == PERFRING_FEAT_EVENT_DESC)
			pd_event_desc(pd, f.data, f.size);
		else
			note_nrcpus(pd, f.data, f.size);
	}
	return 0;
}

/*
 * The legacy format ("PERFFILE", written by perf from 2.6.31 until the
 * "PERFILE2" magic replaced it in 2012) stores its magic as the same bytes
 * in either byte order.  The byte order is told as perf's
 * check_magic_endian does: a pipe header's size is 16; a file header's
 * attr_size is one of perf's attr ABIs (VER0..VER4: 64, 72, 80, 96, 104
 * bytes) + 16, in this order or byte-swapped.
 */
static int legacy_order(struct perfring_perfdata *pd, const unsigned char *first,
			struct perfring_diag *diag)
{
	static const uint64_t abi[] = { 64, 72, 80, 96, 104 };
	uint64_t hs = pr_get64(first + 8), as;
	unsigned char b[8];
	size_t i;

	if (hs == PR_PD_PIPE_HEADER_SIZE || bswap_64(hs) == PR_PD_PIPE_HEADER_SIZE) {
		pd->swap = hs != 16;
		return 0;
	}
	if (pd->base < 0)
		return 0;	/* open_file_mode refuses a pipe */
	if (pread_full(pd, 16, b, 8))
		return fail(pd, diag, -EBADMSG, 16,
			    "file ends inside the legacy PERFFILE header");
	as = pr_get64(b);
	for (i = 0; i < sizeof(abi) / sizeof(abi[0]); i++) {
		if (as == abi[i] + 16 || bswap_64(as) == abi[i] + 16) {
			pd->swap = as != abi[i] + 16;
			return 0;
		}
	}
	return fail(pd, diag, -EBADMSG, 16,
		    "legacy PERFFILE header: attr entry size %" PRIu64 " (0x%016" PRIx64 ") is none of perf's (an attr of 64, 72, 80, 96 or 104 bytes + 16) in either byte order: the byte order cannot be told",
		    as, as);
}

static int pd_open(int fd, int own, const char *defname,
		   const struct perfring_perfdata_opts *opts,
		   struct perfring_diag *diag, struct perfring_perfdata **out)
{
	struct perfring_perfdata *pd;
	unsigned char first[16];
	size_t window = PD_WINDOW_DEFAULT, got = 0;
	const char *name = NULL;
	uint64_t magic, hsize;
	int err;

	if (opts) {
		struct perfring_perfdata_opts o;

		err = perfring_opts_load(&o, sizeof(o), opts,
					 offsetof(struct perfring_perfdata_opts, window) +
					 sizeof(o.window), "perfring_perfdata_opts", defname, diag);
		if (err)
			return err;
		if (o.window)
			window = o.window < PD_WINDOW_MIN ? PD_WINDOW_MIN : o.window;
		name = o.name;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	pd->fd = fd;
	pd->own_fd = own;
	pd->nr_cpus_avail = -1;
	pr_strlcpy(pd->name, name ? name : defname, sizeof(pd->name));
	pd->cap = pd->window = window;
	pd->base = lseek(fd, 0, SEEK_CUR);

	while (got < sizeof(first)) {
		ssize_t r = read(fd, first + got, sizeof(first) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = fail(pd, diag, -EIO, got, "read error");
			goto fail;
		}
		if (r == 0) {
			err = fail(pd, diag, -EBADMSG, got,
				   got ? "file ends inside the perf.data header" :
				   "empty input: not a perf.data");
			goto fail;
		}
		got += (size_t)r;
	}
	magic = pr_get64(first);
	if (magic == PR_PD_MAGIC) {
		pd->swap = 0;
	} else if (magic == bswap_64(PR_PD_MAGIC)) {
		pd->swap = 1;
	} else if (magic == PR_PD_MAGIC_V1) {
		pd->legacy = 1;
		err = legacy_order(pd, first, diag);
		if (err)
			goto fail;
	} else if (magic == bswap_64(PR_PD_MAGIC_V1)) {
		err = fail(pd, diag, -EBADMSG, 0,
			   "magic \"ELIFFREP\" is not a perf.data: the legacy magic \"PERFFILE\" has the same bytes in either byte order");
		goto fail;
	} else {
		err = fail(pd, diag, -EBADMSG, 0,
			   "not a perf.data file (magic 0x%016" PRIx64 ", want \"PERFILE2\")",
			   magic);
		goto fail;
	}
	pd->hdr.version = pd->legacy ? 1 : 2;
	hsize = g64(pd, first + 8);
	if (hsize == PR_PD_PIPE_HEADER_SIZE) {
		pd->pipe = 1;
		pd->hdr.header_size = 16;
		pd->buf_off = 16;
		pd->data_end = UINT64_MAX;
	} else {
		err = open_file_mode(pd, first, hsize, diag);
		if (err)
			goto fail;
		event_desc_at_open(pd);
		for (size_t i = 0; pd->legacy && i < pd->nr_attrs; i++) {
			err = legacy_name(pd, i);
			if (err)
				goto fail;
		}
	}
	/*
	 * The read window: a file smaller than the window is read whole
	 * with a buffer of its size (a short perf.data, or a fuzz input,
	 * no longer costs a whole window per open).  Every record lies
	 * in the file, so it still fits.  Pipe mode: PD_PIPE_START, grown
	 * by ensure() up to the window.
	 */
	if (pd->pipe && window > PD_PIPE_START)
		pd->cap = PD_PIPE_START;
	else if (!pd->pipe && pd->file_size < (uint64_t)window - 8)
		pd->cap = PR_ALIGN8((size_t)pd->file_size) + 8 < 4096 ? 4096 :
			  PR_ALIGN8((size_t)pd->file_size) + 8;
	pd->buf = aligned_alloc(8, PR_ALIGN8(pd->cap));
	if (!pd->buf) {
		err = -ENOMEM;
		goto fail;
	}
	*out = pd;
	return 0;
fail:
	if (diag && !pd->err && err)
		pr_diag_set(diag, err, pd->name, PR_NO_OFFSET, "%s", strerror(-err));
	pd->own_fd = 0;		/* the caller closes on failure */
	perfring_perfdata_close(pd);
	return err;
}

PERFRING_API int perfring_perfdata_open_fd(int fd,
					   const struct perfring_perfdata_opts *opts,
					   struct perfring_diag *diag,
					   struct perfring_perfdata **out)
{
	char name[32];
	int dfd, err;

	if (fd < 0 || !out)
		return -EINVAL;
	snprintf(name, sizeof(name), "fd %d", fd);
	/* Borrows fd: the reader works on its own duplicate (perfring.h). */
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0) {
		err = -errno;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "bad fd: %s", strerror(-err));
		return err;
	}
	err = pd_open(dfd, 1, name, opts, diag, out);
	if (err)
		close(dfd);
	return err;
}

PERFRING_API int perfring_perfdata_open(const char *path,
					const struct perfring_perfdata_opts *opts,
					struct perfring_diag *diag,
					struct perfring_perfdata **out)
{
	int fd, err;

	if (!path || !out)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return pd_open(STDIN_FILENO, 0, "-", opts, diag, out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot open: %s",
			    strerror(errno));
		return err;
	}
	err = pd_open(fd, 1, path, opts, diag, out);
	if (err)
		close(fd);
	return err;
}

static void release_attr_names(struct perfring_perfdata *pd)
{
	size_t i;

	for (i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i]->ids);
		free(pd->attrs[i]->name);
		free(pd->attrs[i]);
	}
	for (i = 0; i < pd->nr_old_names; i++)
		free(pd->old_names[i]);
	free(pd->old_names);
}

PERFRING_API void perfring_perfdata_close(struct perfring_perfdata *pd)
{
	size_t i;

	if (!pd)
		return;
	release_attr_names(pd);
	free(pd->attrs);
	free(pd->idmap);
	for (i = 0; i < pd->nr_feats; i++)
		free(pd->feats[i].data);
	free(pd->feats);
	PR_UNPOISON(pd->feat_buf, pd->feat_cap);
	free(pd->feat_buf);
	free(pd->buf);
	free(pd->scratch);
	free(pd->td_buf);
	free(pd->zbuf);
	free(pd->zscratch);
#ifdef HAVE_ZSTD
	if (pd->zds)
		ZSTD_freeDStream(pd->zds);
#endif
	if (pd->own_fd)
		close(pd->fd);
	free(pd);
}

/* ---- simple accessors ----------------------------------------------------- */

PERFRING_API int perfring_perfdata_is_pipe(const struct perfring_perfdata *pd)
{
	return pd ? pd->pipe : 0;
}

PERFRING_API int perfring_perfdata_needs_swap(const struct perfring_perfdata *pd)
{
	return pd ? pd->swap : 0;
}

PERFRING_API const struct perfring_perfdata_header *
perfring_perfdata_header(const struct perfring_perfdata *pd)
{
	return pd ? &pd->hdr : NULL;
}

PERFRING_API uint32_t perfring_perfdata_nr_attrs(const struct perfring_perfdata *pd)
{
	return pd ? (uint32_t)pd->nr_attrs : 0;	/* below INT_MAX: add_attr */
}

PERFRING_API int perfring_perfdata_attr(const struct perfring_perfdata *pd,
					uint32_t idx,
					const struct perfring_attr **attr,
					const uint64_t **ids, uint32_t *nr_ids,
					const char **name)
{
	if (!pd || idx >= pd->nr_attrs)
		return -ENOENT;
	if (attr)
		*attr = &pd->attrs[idx]->attr;
	if (ids)
		*ids = pd->attrs[idx]->ids;
	if (nr_ids)
		*nr_ids = (uint32_t)pd->attrs[idx]->nr_ids;	/* at most PD_MAX_IDS */
	if (name)
		*name = pd->attrs[idx]->name;
	return 0;
}

PERFRING_API int perfring_perfdata_attr_by_id(const struct perfring_perfdata *pd,
					      uint64_t id)
{
	return pd ? idmap_find(pd, id) : -ENOENT;
}

PERFRING_API int perfring_perfdata_event(const struct perfring_perfdata *pd, uint32_t idx,
					 struct perfring_event_desc *out)
{
	struct perfring_event_desc d = { .sz = sizeof(d), .leader = idx, .supported = 1 };

	if (!pd || !out || out->sz < PR_EVENT_DESC_MIN || out->sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	if (perfring_perfdata_attr(pd, idx, &d.attr, &d.ids, &d.nr_ids, &d.name))
		return -ENOENT;
	return perfring_struct_fill(out, PR_EVENT_DESC_MIN, &d, sizeof(d));
}

PERFRING_API int perfring_perfdata_count(struct perfring_perfdata *pd, unsigned nthreads,
					 struct perfring_diag *diag)
{
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata_stats st;
	struct stat sb;
	int r;

	if (!pd)
		return -EINVAL;
	/* a fresh file-mode reader of this byte order on a regular file */
	if (!pd->err && !pd->pipe && !pd->swap && !pd->z_active && pd->st.total == 0 &&
	    fstat(pd->fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (posix_fadvise(pd->fd, 0, 0, POSIX_FADV_SEQUENTIAL), 1) &&
	    pr_count_headers(pd->fd, (uint64_t)pd->base + pd->hdr.data_offset,
			     (uint64_t)pd->base + pd->data_end, nthreads, &st) == 0) {
		pd->st = st;
		/* at the end: the window is empty and starts there */
		pd->buf_off = pd->data_end;
		pd->len = pd->pos = 0;
		pd->eof = 1;
		return 0;
	}
	while ((r = perfring_perfdata_next(pd, &rec, diag)) == 1)
		;
	return r;
}

PERFRING_API int perfring_perfdata_get_stats(const struct perfring_perfdata *pd,
					     struct perfring_perfdata_stats *st)
{
	if (!pd || !st || st->sz < sizeof(*st) || st->sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	return perfring_struct_fill(st, sizeof(pd->st), &pd->st, sizeof(pd->st));
}

PERFRING_API uint32_t perfring_perfdata_nr_features(const struct perfring_perfdata *pd)
{
	return pd ? (uint32_t)pd->nr_feats : 0;	/* at most 256 bits of features */
}

static int pd_feature(struct perfring_perfdata *pd, uint32_t idx,
		      struct perfring_perfdata_feature *f, struct perfring_diag *diag)
{
	struct pd_feat *e;
	unsigned char *n;

	if (!pd || !f)
		return -EINVAL;
	if (idx >= pd->nr_feats) {
		if (pd->feat_err && diag)
			*diag = pd->feat_diag;
		return pd->feat_err && idx == pd->nr_feats ? pd->feat_err : -ENOENT;
	}
	e = &pd->feats[idx];
	f->id = e->id;
	f->name = perfring_perfdata_feature_name(e->id);
	f->offset = e->offset;
	f->size = e->size;
	if (pd->pipe) {
		f->data = e->data;
		return 0;
	}
	if (section_outside(pd, e, diag))
		return -EBADMSG;
	if (e->size > PD_FEAT_MAX) {
		pr_diag_set(diag, -EFBIG, pd->name, e->offset,
			    "feature %u is %" PRIu64 " bytes, more than 1 GiB", e->id, e->size);
		return -EFBIG;
	}
	/*
	 * The buffer is kept and grown, not sized to each payload (a realloc
	 * per feature); under ASan its unused tail is poisoned, so a read
	 * past the payload is still reported.
	 */
	if (!pd->feat_buf || e->size > pd->feat_cap) {
		size_t cap = e->size ? (size_t)e->size : 1;

		PR_UNPOISON(pd->feat_buf, pd->feat_cap);
		n = realloc(pd->feat_buf, cap);
		if (!n) {
			PR_POISON(pd->feat_buf, pd->feat_cap);
			return -ENOMEM;
		}
		pd->feat_buf = n;
		pd->feat_cap = cap;
	}
	n = pd->feat_buf;
	PR_UNPOISON(n, (size_t)e->size);
	PR_POISON(n + e->size, pd->feat_cap - (size_t)e->size);
	if (e->size && pread_full(pd, e->offset, n, e->size)) {
		pr_diag_set(diag, -EIO, pd->name, e->offset, "cannot read feature %u", e->id);
		return -EIO;
	}
	f->data = n;
	return 0;
}

/* ---- records -------------------------------------------------------------- */

/*
 * Make at least `need` bytes available at buf[pos].  Returns 1, 0 if the
 * input ends before any byte (only meaningful for need = header), or
 * -ENODATA if it ends with 1..need-1 bytes available, -EIO.
 */
static int ensure(struct perfring_perfdata *pd, size_t need);

/*
 * A scratch buffer for an aligned copy of a record of size bytes, made by
 * the first record that needs one (most files never do) and grown as
 * records need.  Returns NULL when out of memory.
 */
static unsigned char *scratch_for(unsigned char **buf, size_t *cap, size_t size)
{
	if (size > *cap) {
		size_t ncap = *cap ? *cap : 256;
		unsigned char *n;

		while (ncap < size)
			ncap *= 2;
		n = realloc(*buf, ncap);	/* malloc's alignment is at least 8 */
		if (!n)
			return NULL;
		*buf = n;
		*cap = ncap;
	}
	return *buf;
}

static unsigned char *scratch(struct perfring_perfdata *pd, size_t size)
{
	return scratch_for(&pd->scratch, &pd->scratch_cap, size);
}

/*
 * Pipe mode: double the buffer (at least to need), up to the window.  Only
 * after compaction, and records are never held across it (a refill moves
 * them too).  Out of memory, the buffer stays as it is (ensure() fails if
 * a record does not fit).
 */
static void grow_buf(struct perfring_perfdata *pd, size_t need)
{
	size_t ncap = pd->cap * 2 > need ? pd->cap * 2 : need;
	unsigned char *nb;

	if (ncap > pd->window)
		ncap = pd->window;
	nb = realloc(pd->buf, PR_ALIGN8(ncap));
	if (nb) {
		pd->buf = nb;
		pd->cap = ncap;
	}
	pd->grow = 0;
}

static int ensure(struct perfring_perfdata *pd, size_t need)
{
	while (pd->len - pd->pos < need) {
		size_t want;
		ssize_t r;

		if (pd->pos) {
			memmove(pd->buf, pd->buf + pd->pos, pd->len - pd->pos);
			pd->buf_off += pd->pos;
			pd->len -= pd->pos;
			pd->pos = 0;
		}
		if (pd->eof)
			return pd->len ? -ENODATA : 0;
		if (pd->pipe && (pd->grow || need > pd->cap) && pd->cap < pd->window)
			grow_buf(pd, need);
		if (need > pd->cap && pd->pipe && pd->cap < pd->window)
			return -ENOMEM;		/* could not grow to the record */
		want = pd->cap - pd->len;
		if (!pd->pipe && pd->data_end - (pd->buf_off + pd->len) < want)
			want = (size_t)(pd->data_end - (pd->buf_off + pd->len));
		if (want == 0) {
			pd->eof = 1;
			continue;
		}
		r = read_some(pd, pd->buf + pd->len, want);
		if (r < 0)
			return (int)r;
		if (r == 0)
			pd->eof = 1;
		pd->len += (size_t)r;
		if (pd->pipe && pd->len == pd->cap)
			pd->grow = 1;
	}
	return 1;
}

/* Skip n bytes after the current position (extra payload). */
static int skip_bytes(struct perfring_perfdata *pd, uint64_t n)
{
	uint64_t in_buf = pd->len - pd->pos;

	if (n <= in_buf) {
		pd->pos += (size_t)n;
		return 1;
	}
	n -= in_buf;
	pd->buf_off += pd->len;
	pd->len = pd->pos = 0;
	if (!pd->pipe) {
		pd->buf_off += n;
		return 1;
	}
	while (n) {
		ssize_t r = read_some(pd, pd->buf, n < pd->cap ? (size_t)n : pd->cap);

		if (r < 0)
			return (int)r;
		if (r == 0) {
			pd->eof = 1;
			return -ENODATA;
		}
		pd->buf_off += (uint64_t)r;
		n -= (uint64_t)r;
	}
	return 1;
}

/*
 * Copy the n bytes after the current position into pd->td_buf (grown as
 * the bytes arrive, so a damaged size costs no more memory than the input
 * has), for the blob of a HEADER_TRACING_DATA record.  Returns 1,
 * -ENODATA if the input ends first, -EIO, -ENOMEM.
 */
static int take_bytes(struct perfring_perfdata *pd, uint64_t n)
{
	size_t got = 0;

	while (got < n) {
		size_t k = pd->len - pd->pos;
		int r;

		if (!k) {
			r = ensure(pd, 1);
			if (r <= 0)
				return r ? r : -ENODATA;
			k = pd->len - pd->pos;
		}
		if (k > n - got)
			k = (size_t)(n - got);
		if (!scratch_for(&pd->td_buf, &pd->td_cap, got + k))
			return -ENOMEM;
		memcpy(pd->td_buf + got, pd->buf + pd->pos, k);
		pd->pos += k;
		got += k;
	}
	return 1;
}

/* Sample id of a native record, for attr resolution (perf's rule, by the
 * first attr, which never changes once read).  Returns 1 if found. */
static int record_id(struct perfring_perfdata *pd, const unsigned char *p,
		     size_t size, uint64_t *id)
{
	if (!pd->nr_attrs)
		return 0;
	if (!pd->have_rule) {
		pr_id_rule_init(&pd->rule, &pd->attrs[0]->attr);
		pd->have_rule = 1;
	}
	return pr_record_id_at(&pd->rule, p, size, id) == 1;
}

static void resolve(struct perfring_perfdata *pd, unsigned char *p, size_t size,
		    struct perfring_perfdata_record *rec)
{
	uint32_t type = rec->type;
	uint64_t id;
	int idx;

	rec->event = -1;
	rec->attr = NULL;
	rec->id = 0;
	if (!pd->nr_attrs || type >= PERFRING_RECORD_HEADER_ATTR)
		return;
	idx = 0;
	if (record_id(pd, p, size, &id)) {
		rec->id = id;
		rec->flags |= PERFRING_PERFDATA_REC_ID;
		/* perf: synthesized records carry id 0 and go to the first
		 * attr; with a single attr every record is its. */
		if (pd->nr_attrs > 1 && id != 0) {
			idx = idmap_find(pd, id);
			if (idx < 0) {
				idx = 0;
				rec->flags |= PERFRING_PERFDATA_REC_UNKNOWN_ID;
				pd->st.unknown_id++;
			}
		}
	}
	rec->event = idx;
	rec->attr = &pd->attrs[idx]->attr;
	if (pd->swap) {
		if (type == PERFRING_RECORD_SAMPLE)
			pr_pd_fix_sample(p, size, rec->attr);
		else if (rec->attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL)
			pr_pd_fix_trailer(p, size, rec->attr->sample_type);
	}
}

static void count(struct perfring_perfdata *pd, uint32_t type, uint64_t bytes)
{
	pd->st.total++;
	if (type < PERFRING_PERFDATA_STATS_TYPES)
		pd->st.by_type[type]++;
	else
		pd->st.other++;
	pd->st.bytes += bytes;
}

/* Largest VER size S >= asz with zero bytes in [asz, S): see below. */
static size_t attr_span(const unsigned char *a, size_t asz, size_t avail)
{
	static const size_t vers[] = { 72, 80, 96, 104, 112, 120, 128, 136 };
	size_t span = asz, i, j;

	for (i = 0; i < sizeof(vers) / sizeof(vers[0]); i++) {
		if (vers[i] <= asz || vers[i] > avail)
			continue;
		for (j = asz; j < vers[i]; j++)
			if (a[j])
				return span;
		span = vers[i];
	}
	return span;
}

/*
 * HEADER_ATTR: attr, then ids to the end of the record.  perf before 6.6
 * wrote (and read) the attr as its own sizeof(struct perf_event_attr)
 * whatever attr.size said, so an attr whose size field is smaller than the
 * space it occupies is followed by zero padding: ids are never 0 (the
 * kernel numbers events from 1), so zero u64s right after attr.size that
 * complete a known attr version are taken as attr padding, not ids.
 */
static int header_attr(struct perfring_perfdata *pd, const unsigned char *p,
		       size_t size, uint64_t off, struct perfring_diag *diag)
{
	size_t asz, span, n;
	uint64_t *ids;
	int err;

	if (size < 8 + PERFRING_ATTR_SIZE_VER0)
		return fail(pd, diag, -EBADMSG, off,
			    "HEADER_ATTR record of %zu bytes is too short for an attr", size);
	asz = pr_get32(p + 12);
	if (asz == 0)
		asz = PERFRING_ATTR_SIZE_VER0;
	if (asz < PERFRING_ATTR_SIZE_VER0 || asz > size - 8 || asz % 8)
		return fail(pd, diag, -EBADMSG, off + 12,
			    "HEADER_ATTR attr.size %zu does not fit the %zu-byte record", asz, size);
	span = attr_span(p + 8, asz, size - 8);
	n = (size - 8 - span) / 8;
	if ((size - 8 - span) % 8)
		return fail(pd, diag, -EBADMSG, off,
			    "HEADER_ATTR record size %zu leaves a partial id after the attr", size);
	ids = malloc(n ? n * 8 : 8);
	if (!ids)
		return -ENOMEM;
	memcpy(ids, p + 8 + span, n * 8);
	err = add_attr(pd, p + 8, asz, ids, n);
	free(ids);
	if (!err && pd->legacy)
		err = legacy_name(pd, pd->nr_attrs - 1);
	return err;
}

static int store_feature(struct perfring_perfdata *pd, uint32_t id, const unsigned char *p,
			 size_t psize, uint64_t off);

static int header_feature(struct perfring_perfdata *pd, const unsigned char *p,
			  size_t size, uint64_t off, struct perfring_diag *diag)
{
	uint64_t id;
	size_t psize;

	if (size < 16)
		return fail(pd, diag, -EBADMSG, off,
			    "HEADER_FEATURE record of %zu bytes has no feature id", size);
	id = pr_get64(p + 8);
	psize = size - 16;
	if (id >= 256)
		return 0;	/* counted, not kept: no such feature bit */
	if (psize == 0 && id >= PERFRING_FEAT_CPU_DOMAIN_INFO)
		return 0;	/* perf's end marker (HEADER_LAST_FEATURE) */
	return store_feature(pd, (uint32_t)id, p + 16, psize, off);
}

/*
 * Keep a pipe's feature id (psize bytes at p, from the record at off):
 * a HEADER_FEATURE record's payload, or the tracing data after a
 * HEADER_TRACING_DATA record, which is the file's TRACING_DATA feature
 * in a stream.  A later one of the same id replaces it.
 */
static int store_feature(struct perfring_perfdata *pd, uint32_t id, const unsigned char *p,
			 size_t psize, uint64_t off)
{
	struct pd_feat *f = NULL;
	size_t i;
	void *data;

	for (i = 0; i < pd->nr_feats; i++)
		if (pd->feats[i].id == id)
			f = &pd->feats[i];
	data = malloc(psize ? psize : 1);
	if (!data)
		return -ENOMEM;
	if (psize)
		memcpy(data, p, psize);
	if (!f) {
		struct pd_feat *n = realloc(pd->feats, (pd->nr_feats + 1) * sizeof(*n));

		if (!n) {
			free(data);
			return -ENOMEM;
		}
		pd->feats = n;
		f = &pd->feats[pd->nr_feats++];
		f->data = NULL;
	}
	free(f->data);
	f->id = (uint32_t)id;
	f->data = data;
	f->size = psize;
	f->offset = off;
	pd->hdr.features[id / 64] |= 1ull << (id % 64);
	if (id == PERFRING_FEAT_EVENT_DESC)
		pd_event_desc(pd, data, psize);
	else if (id == PERFRING_FEAT_NRCPUS)
		note_nrcpus(pd, data, psize);
	return 0;
}

/*
 * Old perf (3.x) named events by "event types": {u64 event_id (the attr's
 * config), char name[64]}, in the file header's event_types section or as
 * HEADER_EVENT_TYPE records in pipe mode.  Name the attrs that have no
 * better name (EVENT_DESC, EVENT_UPDATE) yet.
 */
static int event_type_name(struct perfring_perfdata *pd, uint64_t event_id,
			   const unsigned char *name, size_t len)
{
	size_t i;

	if (len > 64)
		len = 64;
	/* legacy perf wrote them for tracepoints only, and perf 6.1
	 * ignores them: in a legacy file they name tracepoints only */
	for (i = 0; i < pd->nr_attrs; i++)
		if (pd->attrs[i]->attr.config == event_id && !pd->attrs[i]->name &&
		    (!pd->legacy || pd->attrs[i]->attr.type == PERFRING_TYPE_TRACEPOINT) &&
		    pr_pd_set_name(pd, i, (const char *)name, len) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

static void read_event_types(struct perfring_perfdata *pd, const unsigned char *h)
{
	uint64_t off = g64(pd, h + 56), size = g64(pd, h + 64), i;
	unsigned char e[72];

	if (!size || off > pd->file_size || size > pd->file_size - off ||
	    size > (1u << 20))
		return;
	for (i = 0; i + sizeof(e) <= size; i += sizeof(e)) {
		if (pread_full(pd, off + i, e, sizeof(e)))
			return;
		event_type_name(pd, g64(pd, e), e + 8, 64);
	}
}

/* Side effects of records that describe the session. */
static int absorb(struct perfring_perfdata *pd, const unsigned char *p, size_t size,
		  uint32_t type, uint64_t off, struct perfring_diag *diag)
{
	uint64_t n, i;
	int idx;

	switch (type) {
	case PERFRING_RECORD_HEADER_ATTR:
		return header_attr(pd, p, size, off, diag);
	case PERFRING_RECORD_HEADER_FEATURE:
		return header_feature(pd, p, size, off, diag);
	case PERFRING_RECORD_HEADER_EVENT_TYPE:
		if (size > 16)
			return event_type_name(pd, pr_get64(p + 8), p + 16, size - 16);
		return 0;
	case PERFRING_RECORD_EVENT_UPDATE:
		/* u64 type (2 = NAME), u64 id, name */
		if (size > 24 && pr_get64(p + 8) == 2) {
			idx = idmap_find(pd, pr_get64(p + 16));
			if (idx >= 0)
				return pr_pd_set_name(pd, (size_t)idx,
						      (const char *)p + 24, size - 24) == -ENOMEM ?
				       -ENOMEM : 0;
		}
		return 0;
	case PERFRING_RECORD_ID_INDEX:
		/* u64 nr, nr x {id, idx, cpu, tid}: ids of attrs by index */
		if (size < 16)
			return 0;
		n = pr_get64(p + 8);
		if (n > (size - 16) / 32)
			n = (size - 16) / 32;
		for (i = 0; i < n; i++) {
			uint64_t id = pr_get64(p + 16 + 32 * i);
			uint64_t ix = pr_get64(p + 24 + 32 * i);

			if (ix < pd->nr_attrs && idmap_add(pd, id, (size_t)ix))
				return -ENOMEM;
		}
		return 0;
	default:
		return 0;
	}
}

/* Extra payload following a record outside its size; -1 on overflow. */
static int extra_payload(uint32_t type, const unsigned char *p, size_t size,
			 uint64_t *extra)
{
	*extra = 0;
	if (type == PERFRING_RECORD_HEADER_TRACING_DATA && size >= 12)
		*extra = PR_ALIGN8((uint64_t)pr_get32(p + 8));
	else if (type == PERFRING_RECORD_AUXTRACE && size >= 16)
		*extra = pr_get64(p + 8);
	return *extra > (1ull << 62) ? -1 : 0;
}

static int start_compressed(struct perfring_perfdata *pd, const unsigned char *p,
			    size_t size, uint32_t type, uint64_t off,
			    struct perfring_diag *diag)
{
	size_t hdr = type == PERFRING_RECORD_COMPRESSED ? 8 : 16;
	size_t n;

	if (size < hdr)
		return fail(pd, diag, -EBADMSG, off, "COMPRESSED2 record too short");
	n = size - hdr;
	if (type != PERFRING_RECORD_COMPRESSED) {
		uint64_t ds = pr_get64(p + 8);

		if (ds > n)
			return fail(pd, diag, -EBADMSG, off + 8,
				    "COMPRESSED2 data_size %" PRIu64 " exceeds the record (%zu bytes)",
				    ds, n);
		n = (size_t)ds;
	}
#ifndef HAVE_ZSTD
	(void)n;
	return fail(pd, diag, -ENOTSUP, off,
		    "PERF_RECORD_COMPRESSED (perf record -z) needs zstd, and libperfring was built without it (configure --with-zstd)");
#else
	if (!pd->zds) {
		pd->zds = ZSTD_createDStream();
		pd->zcap = PR_ALIGN8(pd->window) < PD_Z_START ? PR_ALIGN8(pd->window) : PD_Z_START;
		pd->zbuf = aligned_alloc(8, pd->zcap);
		if (!pd->zds || !pd->zbuf)
			return fail(pd, diag, -ENOMEM, off, "out of memory for decompression");
		ZSTD_initDStream(pd->zds);
	}
	pd->zin = p + hdr;
	pd->zin_len = n;
	pd->zin_pos = 0;
	pd->z_flush = 0;
	pd->z_rec_off = off;
	pd->z_active = 1;
	return 0;
#endif
}

/* Fill REC for the record of SIZE bytes at P (at offset OFF), first
 * swapping it in place when the file is of the other byte order.  The
 * records of the data section and those of a COMPRESSED record's stream
 * both come out through here. */
static inline void emit_record(struct perfring_perfdata *pd, unsigned char *p,
			       size_t size, uint64_t off,
			       struct perfring_perfdata_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (pd->swap) {
		pd_sw32(p);
		pd_sw16(p + 4);
		pd_sw16(p + 6);
		pr_pd_swap_body(p, size, pd->nr_attrs &&
				(pd->attrs[0]->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL));
		rec->flags |= PERFRING_PERFDATA_REC_SWAPPED;
	}
	rec->hdr = (const void *)p;
	rec->type = pr_get32(p);
	rec->size = (uint32_t)size;
	rec->offset = off;
}

/* Next record from the decompressed stream: 1, 0 (need a new COMPRESSED
 * record), or an error. */
static int z_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec,
		  struct perfring_diag *diag)
{
#ifdef HAVE_ZSTD
	for (;;) {
		size_t avail = pd->zlen - pd->zpos;
		unsigned char *p;
		size_t size;
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t ret;

		if (avail >= 8) {
			p = pd->zbuf + pd->zpos;
			size = pr_get16(p + 6);
			if (pd->swap)
				size = bswap_16((uint16_t)size);
			if (size < 8)
				return fail(pd, diag, -EBADMSG, pd->z_rec_off,
					    "record of size %zu < 8 at offset 0x%" PRIx64 " of the data decompressed from this COMPRESSED record",
					    size, pd->zstream_off + pd->zpos);
			if (avail >= size) {
				uint64_t inner = pd->zstream_off + pd->zpos;

				if ((uintptr_t)p & 7) {
					if (!scratch_for(&pd->zscratch, &pd->zscratch_cap, size))
						return fail(pd, diag, -ENOMEM, pd->z_rec_off,
							    "out of memory");
					memcpy(pd->zscratch, p, size);
					p = pd->zscratch;
				}
				pd->zpos += size;
				emit_record(pd, p, size, pd->z_rec_off, rec);
				rec->inner_offset = inner;
				rec->flags |= PERFRING_PERFDATA_REC_COMPRESSED;
				{
					int err = absorb(pd, p, size, rec->type,
							 pd->z_rec_off, diag);
					if (err)
						return pd->err ? err :
						       fail(pd, diag, err, pd->z_rec_off,
							    "%s", strerror(-err));
				}
				resolve(pd, p, size, rec);
				count(pd, rec->type, size);
				pd->st.from_compressed++;
				return 1;
			}
		}
		if (pd->zin_pos >= pd->zin_len && !pd->z_flush) {
			pd->z_active = 0;
			return 0;
		}
		if (pd->zpos) {
			memmove(pd->zbuf, pd->zbuf + pd->zpos, pd->zlen - pd->zpos);
			pd->zstream_off += pd->zpos;
			pd->zlen -= pd->zpos;
			pd->zpos = 0;
		}
		if (pd->z_flush && pd->zcap < PR_ALIGN8(pd->window)) {
			/* the last call filled the buffer: double it (a record
			 * fits in the first, so out of memory it stays) */
			size_t ncap = 2 * pd->zcap < PR_ALIGN8(pd->window) ?
				      2 * pd->zcap : PR_ALIGN8(pd->window);
			unsigned char *nb = realloc(pd->zbuf, ncap);

			if (nb) {
				pd->zbuf = nb;
				pd->zcap = ncap;
			}
		}
		in.src = pd->zin;
		in.size = pd->zin_len;
		in.pos = pd->zin_pos;
		out.dst = pd->zbuf;
		out.size = pd->zcap;
		out.pos = pd->zlen;
		ret = ZSTD_decompressStream(pd->zds, &out, &in);
		if (ZSTD_isError(ret))
			return fail(pd, diag, -EBADMSG, pd->z_rec_off,
				    "zstd: %s (in the COMPRESSED record)", ZSTD_getErrorName(ret));
		if (in.pos == pd->zin_pos && out.pos == pd->zlen && !pd->z_flush)
			return fail(pd, diag, -EBADMSG, pd->z_rec_off,
				    "zstd made no progress in the COMPRESSED record");
		pd->z_flush = out.pos == out.size;
		pd->zin_pos = in.pos;
		pd->zlen = out.pos;
	}
#else
	(void)pd; (void)rec; (void)diag;
	return 0;
#endif
}

/* The record header at OFF and the whole record into the window: 1 with
 * *PP (8-aligned), *SIZEP and *TYPEP set and the window past it, 0 at the
 * end of the data, or an error. */
static inline int take_record(struct perfring_perfdata *pd, struct perfring_diag *diag,
			      uint64_t off, unsigned char **pp, size_t *sizep,
			      uint32_t *typep)
{
	unsigned char *p;
	size_t size;
	uint32_t type;
	int r;

	r = ensure(pd, 8);
	if (r == 0)
		return 0;
	if (r == -ENODATA)
		return fail(pd, diag, -EBADMSG, off,
			    "input ends inside a record header (%zu of 8 bytes)",
			    pd->len - pd->pos);
	if (r < 0)
		return fail(pd, diag, r, off, "%s", r == -ENOMEM ? "out of memory" : "read error");
	p = pd->buf + pd->pos;
	size = pr_get16(p + 6);
	if (pd->swap)
		size = bswap_16((uint16_t)size);
	type = pr_get32(p);
	if (pd->swap)
		type = bswap_32(type);
	if (size < 8)
		return fail(pd, diag, -EBADMSG, off,
			    "record of type %u has size %zu < 8", type, size);
	if (!pd->pipe && size > pd->data_end - off)
		return fail(pd, diag, -EBADMSG, off,
			    "record of type %u and size %zu runs past the end of the data section (0x%" PRIx64 ")",
			    type, size, pd->data_end);
	r = ensure(pd, size);
	if (r == -ENODATA || r == 0)
		return fail(pd, diag, -EBADMSG, off,
			    "input ends inside a record of type %u: %zu of its %zu bytes present",
			    type, pd->len - pd->pos, size);
	if (r < 0)
		return fail(pd, diag, r, off, "%s", r == -ENOMEM ? "out of memory" : "read error");
	p = pd->buf + pd->pos;
	if ((uintptr_t)p & 7) {
		if (!scratch(pd, size))
			return fail(pd, diag, -ENOMEM, off, "out of memory");
		memcpy(pd->scratch, p, size);
		p = pd->scratch;
	}
	pd->pos += size;
	*pp = p;
	*sizep = size;
	*typep = type;
	return 1;
}

/* The payload that follows the record at *PP (TRACING_DATA, AUXTRACE...):
 * taken or skipped, with REC's extra fields set; *PP moves to the scratch
 * copy that survives the refill of the window.  0 or an error. */
static inline int take_payload(struct perfring_perfdata *pd, struct perfring_diag *diag,
			       uint64_t off, unsigned char **pp, size_t size,
			       uint32_t type, struct perfring_perfdata_record *rec,
			       uint64_t *extrap)
{
	unsigned char *p = *pp;
	uint64_t extra;
	int r;

	if (extra_payload(type, p, size, &extra) < 0 ||
	    (!pd->pipe && extra > pd->data_end - off - size))
		return fail(pd, diag, -EBADMSG, off + 8,
			    "record of type %u announces %" PRIu64 " bytes of payload past the end of the data section",
			    type, extra);
	*extrap = extra;
	if (!extra)
		return 0;
	/* the record must survive the refill of the window */
	if (p != pd->scratch) {
		if (!scratch(pd, size))
			return fail(pd, diag, -ENOMEM, off, "out of memory");
		memcpy(pd->scratch, p, size);
		p = pd->scratch;
		*pp = p;
		rec->hdr = (const void *)p;
	}
	if (type == PERFRING_RECORD_HEADER_TRACING_DATA) {
		r = take_bytes(pd, extra);
		rec->extra = pd->td_buf;
		if (r == 1 && pd->pipe &&
		    store_feature(pd, PERFRING_FEAT_TRACING_DATA, pd->td_buf,
				  (size_t)extra, off + size) < 0)
			r = -ENOMEM;
	} else {
		r = skip_bytes(pd, extra);
	}
	if (r == -ENOMEM)
		return fail(pd, diag, r, off + size, "out of memory");
	if (r == -ENODATA)
		return fail(pd, diag, -EBADMSG, off + size,
			    "input ends inside the %" PRIu64 "-byte payload of a record of type %u",
			    extra, type);
	if (r < 0)
		return fail(pd, diag, r, off + size, "read error");
	rec->extra_size = extra;
	return 0;
}

/* No record left: 0 if the data ended where it should, else the error. */
static int end_of_data(struct perfring_perfdata *pd, struct perfring_diag *diag)
{
	if (!pd->pipe && pd->buf_off + pd->pos < pd->data_end)
		return fail(pd, diag, -EBADMSG, pd->buf_off + pd->pos,
			    "file ends at offset 0x%" PRIx64 ", inside the data section (which ends at 0x%" PRIx64 "): truncated",
			    pd->buf_off + pd->pos, pd->data_end);
	if (pd->zlen > pd->zpos)
		return fail(pd, diag, -EBADMSG, pd->z_rec_off,
			    "data ends inside a record of the decompressed stream (%zu bytes left over)",
			    pd->zlen - pd->zpos);
	return 0;
}

PR_HIDDEN int pr_pd_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec,
			 struct perfring_diag *diag)
{
	unsigned char *p = NULL;
	size_t size = 0;
	uint64_t off, extra = 0;
	uint32_t type = 0;
	int r;

	if (!pd || !rec)
		return -EINVAL;
	if (pd->err) {
		if (diag)
			*diag = pd->err_diag;
		return pd->err;
	}
	if (pd->z_active) {
		r = z_next(pd, rec, diag);
		if (r)
			return r;
	}

	off = pd->buf_off + pd->pos;
	if (!pd->pipe && off >= pd->data_end)
		return end_of_data(pd, diag);
	r = take_record(pd, diag, off, &p, &size, &type);
	if (r == 0)
		return end_of_data(pd, diag);
	if (r < 0)
		return r;

	emit_record(pd, p, size, off, rec);
	r = take_payload(pd, diag, off, &p, size, type, rec, &extra);
	if (r)
		return r;

	r = absorb(pd, p, size, type, off, diag);
	if (r)
		return pd->err ? r : fail(pd, diag, r, off, "%s", strerror(-r));
	resolve(pd, p, size, rec);
	count(pd, type, size + extra);

	if (type == PERFRING_RECORD_COMPRESSED || type == 83) {
		r = start_compressed(pd, p, size, type, off, diag);
		if (r)
			return r;
	}
	return 1;
}

/* The first versions of the structs perfring_perfdata_next / _feature fill. */
#define PD_RECORD_MIN offsetof(struct perfring_perfdata_record, extra)
#define PD_FEATURE_MIN sizeof(struct perfring_perfdata_feature)

PERFRING_API int perfring_perfdata_next(struct perfring_perfdata *pd,
					struct perfring_perfdata_record *rec,
					struct perfring_diag *diag)
{
	struct perfring_perfdata_record r;
	int ret;

	if (!pd || !rec || rec->sz < PD_RECORD_MIN)
		return -EINVAL;
	ret = pr_pd_next(pd, &r, diag);
	if (ret == 1)
		perfring_struct_fill(rec, PD_RECORD_MIN, &r, sizeof(r));
	return ret;
}

PERFRING_API int perfring_perfdata_check_features(const struct perfring_perfdata *pd,
						  struct perfring_diag *diag)
{
	if (!pd)
		return -EINVAL;
	if (pd->feat_err) {
		if (diag)
			*diag = pd->feat_diag;
		return pd->feat_err;
	}
	if (pd->pipe)
		return 0;
	for (size_t i = 0; i < pd->nr_feats; i++)
		if (section_outside(pd, &pd->feats[i], diag))
			return -EBADMSG;
	return 0;
}

PERFRING_API int perfring_perfdata_feature(struct perfring_perfdata *pd, uint32_t idx,
					   struct perfring_perfdata_feature *f,
					   struct perfring_diag *diag)
{
	struct perfring_perfdata_feature x = { .sz = sizeof(x) };
	int ret;

	if (!pd || !f || f->sz < PD_FEATURE_MIN)
		return -EINVAL;
	ret = pd_feature(pd, idx, &x, diag);
	if (ret == 0)
		perfring_struct_fill(f, PD_FEATURE_MIN, &x, sizeof(x));
	return ret;
}
