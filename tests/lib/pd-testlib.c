/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-side perf.data builder and byte-swapper; see pd-testlib.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pd-testlib.h"

/* ---- buffer --------------------------------------------------------------- */

void pdt_put(struct pdt_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;

		while (ncap < b->len + n)
			ncap *= 2;
		b->p = realloc(b->p, ncap);
		if (!b->p)
			abort();
		b->cap = ncap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

void pdt_u16(struct pdt_buf *b, uint16_t v) { pdt_put(b, &v, 2); }
void pdt_u32(struct pdt_buf *b, uint32_t v) { pdt_put(b, &v, 4); }
void pdt_u64(struct pdt_buf *b, uint64_t v) { pdt_put(b, &v, 8); }
void pdt_zero(struct pdt_buf *b, size_t n) { pdt_put(b, NULL, n); }

void pdt_free(struct pdt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void pdt_slurp(const char *path, struct pdt_buf *out)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;

	if (!f) {
		perror(path);
		abort();
	}
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		pdt_put(out, tmp, n);
	fclose(f);
}

int pdt_memfd(const void *p, size_t n)
{
	int fd = memfd_create("pd-test", MFD_CLOEXEC);
	const unsigned char *c = p;

	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			abort();
		c += w;
		n -= (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

void pdt_str(struct pdt_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 7) & ~(size_t)7;

	pdt_u32(b, (uint32_t)len);
	pdt_put(b, s, n);
	pdt_zero(b, len - n);
}

/* ---- builder -------------------------------------------------------------- */

void pdt_build(struct pdt_buf *out, size_t hdr_size, size_t attr_bytes,
	       size_t nr_attrs, const void *const *attrs,
	       const uint64_t *const *ids, const size_t *nr_ids,
	       const void *data, size_t data_len,
	       const struct pdt_feat *feats, size_t nr_feats)
{
	uint64_t ids_off[64], attrs_off, data_off, pay_off, bitmap[4] = { 0 };
	size_t i;

	out->len = 0;
	pdt_put(out, "PERFILE2", 8);
	pdt_u64(out, hdr_size);
	pdt_zero(out, hdr_size - 16);	/* patched below */
	for (i = 0; i < nr_attrs; i++) {
		ids_off[i] = out->len;
		pdt_put(out, ids[i], 8 * nr_ids[i]);
	}
	attrs_off = out->len;
	for (i = 0; i < nr_attrs; i++) {
		pdt_put(out, attrs[i], attr_bytes);
		pdt_u64(out, ids_off[i]);
		pdt_u64(out, 8 * nr_ids[i]);
	}
	data_off = out->len;
	pdt_put(out, data, data_len);
	pay_off = out->len + 16 * nr_feats;
	for (i = 0; i < nr_feats; i++) {
		pdt_u64(out, pay_off);
		pdt_u64(out, feats[i].size);
		pay_off += feats[i].size;
		bitmap[feats[i].id / 64] |= 1ull << (feats[i].id % 64);
	}
	for (i = 0; i < nr_feats; i++)
		pdt_put(out, feats[i].data, feats[i].size);
	{
		uint64_t h[] = { attr_bytes + 16, attrs_off, (attr_bytes + 16) * nr_attrs,
				 data_off, data_len, 0, 0 };

		memcpy(out->p + 16, h, sizeof(h));
		if (hdr_size >= 104)
			memcpy(out->p + 72, bitmap, sizeof(bitmap));
	}
}

/* ---- swapper ----------------------------------------------------------- */

static uint16_t g16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t g32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t g64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void f16(unsigned char *p) { uint16_t v = __builtin_bswap16(g16(p)); memcpy(p, &v, 2); }
static void f32(unsigned char *p) { uint32_t v = __builtin_bswap32(g32(p)); memcpy(p, &v, 4); }
static void f64(unsigned char *p) { uint64_t v = __builtin_bswap64(g64(p)); memcpy(p, &v, 8); }

struct swctx {
	uint64_t sample_type, read_format, regs_user;
	int sample_id_all;
	int have_attr;
	char *why;
	size_t why_len;
};

static int no(struct swctx *c, const char *what, unsigned v)
{
	snprintf(c->why, c->why_len, "swapper: %s %u not supported", what, v);
	return -1;
}

/* attr (native) -> big-endian, attr.size bytes */
static void swap_attr(unsigned char *a, size_t avail)
{
	/* natural widths of the members after size, by offset (kernel
	 * struct perf_event_attr); offset 40 is the flag bitfield */
	static const unsigned char w[][2] = {
		{ 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 48, 4 }, { 52, 4 },
		{ 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 4 }, { 92, 4 },
		{ 96, 8 }, { 104, 4 }, { 108, 2 }, { 110, 2 }, { 112, 4 },
		{ 116, 4 }, { 120, 8 }, { 128, 8 },
	};
	size_t size = g32(a + 4), i;
	int b;

	if (!size)
		size = 64;
	if (size > avail)
		size = avail;
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (w[i][0] + w[i][1] > size)
			break;
		if (w[i][1] == 8)
			f64(a + w[i][0]);
		else if (w[i][1] == 4)
			f32(a + w[i][0]);
		else
			f16(a + w[i][0]);
	}
	/* A big-endian compiler allocates bitfields from the most
	 * significant bit: bit k of the LE flags word lands in byte k/8 at
	 * bit 7 - k%8. */
	for (i = 40; i < 48; i++) {
		unsigned char o = 0;

		for (b = 0; b < 8; b++)
			if (a[i] >> b & 1)
				o |= (unsigned char)(0x80 >> b);
		a[i] = o;
	}
	f32(a);
	f32(a + 4);
}

static int swap_cpu_map(struct swctx *c, unsigned char *p, size_t avail)
{
	uint16_t type = g16(p), nr, i;

	if (avail < 8)
		return no(c, "short cpu map", (unsigned)avail);
	switch (type) {
	case 0:
		nr = g16(p + 2);
		for (i = 0; i < nr && 4u + 2u * i + 2 <= avail; i++)
			f16(p + 4 + 2 * i);
		f16(p + 2);
		break;
	case 1: {	/* mask: nr, long_size, (4 pad if 8), mask[] */
		uint16_t ls = g16(p + 4);

		nr = g16(p + 2);
		for (i = 0; i < nr; i++) {
			if (ls == 4 && 6u + 4u * i + 4 <= avail)
				f32(p + 6 + 4 * i);
			else if (ls == 8 && 10u + 8u * i + 8 <= avail)
				f64(p + 10 + 8 * i);
		}
		f16(p + 2);
		f16(p + 4);
		break;
	}
	case 2:
		f16(p + 4);
		f16(p + 6);
		break;
	default:
		return no(c, "cpu map type", type);
	}
	f16(p);
	return 0;
}

static int swap_sample(struct swctx *c, unsigned char *r, size_t size)
{
	uint64_t st = c->sample_type, rf = c->read_format, nr, i;
	size_t off = 8;
	/* everything but BRANCH_STACK (11), REGS_INTR (18), AUX (20),
	 * WEIGHT_STRUCT (24) */
	const uint64_t known = ((1ull << 24) - 1) & ~((1ull << 11) | (1ull << 18) | (1ull << 20));

	if (st & ~known)
		return no(c, "sample_type bits", (unsigned)(st & ~known));
#define U64 do { f64(r + off); off += 8; } while (0)
#define PAIR do { f32(r + off); f32(r + off + 4); off += 8; } while (0)
	if (st & (1ull << 16)) U64;
	if (st & (1ull << 0)) U64;
	if (st & (1ull << 1)) PAIR;
	if (st & (1ull << 2)) U64;
	if (st & (1ull << 3)) U64;
	if (st & (1ull << 6)) U64;
	if (st & (1ull << 9)) U64;
	if (st & (1ull << 7)) PAIR;
	if (st & (1ull << 8)) U64;
	if (st & (1ull << 4)) {		/* READ, by read_format */
		uint64_t per = 1 + !!(rf & 4) + !!(rf & 16), hdr = !!(rf & 1) + !!(rf & 2);

		if (rf & 8) {
			nr = g64(r + off);
			U64;
			for (i = 0; i < hdr + nr * per && off + 8 <= size; i++)
				U64;
		} else {
			for (i = 0; i < hdr + per; i++)
				U64;
		}
	}
	if (st & (1ull << 5)) {
		nr = g64(r + off);
		U64;
		for (i = 0; i < nr && off + 8 <= size; i++)
			U64;
	}
	if (st & (1ull << 10)) {
		/* u32 size, then the raw bytes as the producer wrote them */
		uint32_t raw = g32(r + off);

		f32(r + off);
		off += 4 + (size_t)raw;
	}
	if (st & (1ull << 12)) {	/* REGS_USER: abi, then one u64 per mask bit */
		uint64_t abi = g64(r + off);

		U64;
		if (abi)
			for (i = 0; i < (uint64_t)__builtin_popcountll(c->regs_user); i++)
				U64;
	}
	if (st & (1ull << 13)) {	/* STACK_USER: size, data, dyn_size */
		uint64_t sz = g64(r + off);

		U64;
		if (sz) {
			for (i = 0; i < sz / 8 && off + 8 <= size; i++)
				U64;	/* a big-endian stack: u64 words */
			U64;
		}
	}
	if (st & (1ull << 14)) U64;
	if (st & (1ull << 15)) U64;
	if (st & (1ull << 17)) U64;
	if (st & (1ull << 19)) U64;
	if (st & (1ull << 21)) U64;
	if (st & (1ull << 22)) U64;
	if (st & (1ull << 23)) U64;
	if (off != size)
		return no(c, "sample layout leftover bytes", (unsigned)(size - off));
	return 0;
}

static int swap_trailer(unsigned char *r, size_t size, uint64_t st)
{
	size_t n = 0, off;

	n += !!(st & (1ull << 1)) + !!(st & (1ull << 2)) + !!(st & (1ull << 6)) +
	     !!(st & (1ull << 9)) + !!(st & (1ull << 7)) + !!(st & (1ull << 16));
	if (size < 8 + 8 * n)
		return -1;
	off = size - 8 * n;
	if (st & (1ull << 1)) { f32(r + off); f32(r + off + 4); off += 8; }
	if (st & (1ull << 2)) { f64(r + off); off += 8; }
	if (st & (1ull << 6)) { f64(r + off); off += 8; }
	if (st & (1ull << 9)) { f64(r + off); off += 8; }
	if (st & (1ull << 7)) { f32(r + off); f32(r + off + 4); off += 8; }
	if (st & (1ull << 16)) { f64(r + off); off += 8; }
	return 0;
}

/* A perf string at p + *off: its u32 length swapped, *off past it. */
static void fstr(unsigned char *p, size_t n, size_t *off)
{
	uint32_t len;

	if (*off + 4 > n) {
		*off = n;
		return;
	}
	len = g32(p + *off);
	f32(p + *off);
	*off += 4 + len;
}

/* u32 count at p + *off, swapped; the count, in this machine's order. */
static uint32_t fcount(unsigned char *p, size_t n, size_t *off)
{
	uint32_t v;

	if (*off + 4 > n) {
		*off = n;
		return 0;
	}
	v = g32(p + *off);
	f32(p + *off);
	*off += 4;
	return v;
}

/* NRCPUS's "available" count, from the last NRCPUS swapped (features
 * are swapped in id order: NRCPUS before CPU_TOPOLOGY). */
static uint32_t sw_nr_cpus;

/* Feature payload; returns 0 if swapped, 1 if unknown (left alone). */
static int swap_feature(unsigned id, unsigned char *p, size_t n)
{
	size_t off = 0;
	uint32_t nr, i, j, asz, nids, len;

	switch (id) {
	case 2:		/* BUILD_ID: {u32 type, u16 misc, u16 size, s32 pid, ...} */
		while (off + 36 <= n) {
			size_t sz = g16(p + off + 6);

			f32(p + off);
			f16(p + off + 4);
			f16(p + off + 6);
			f32(p + off + 8);
			if (sz < 36)
				break;
			off += sz;
		}
		return 0;
	case 13:	/* CPU_TOPOLOGY: 2 string lists, then u32s and a list */
		for (j = 0; j < 2; j++)
			for (nr = fcount(p, n, &off), i = 0; i < nr; i++)
				fstr(p, n, &off);
		/* core and socket id of each CPU NRCPUS counted */
		for (i = 0; i < 2 * sw_nr_cpus && off + 4 <= n; i++, off += 4)
			f32(p + off);
		if (off < n) {
			for (nr = fcount(p, n, &off), i = 0; i < nr; i++)
				fstr(p, n, &off);
			for (; off + 4 <= n; off += 4)
				f32(p + off);
		}
		return 0;
	case 16:	/* PMU_MAPPINGS: u32 nr, {u32 type, str} */
		for (nr = fcount(p, n, &off), i = 0; i < nr; i++) {
			fcount(p, n, &off);
			fstr(p, n, &off);
		}
		return 0;
	case 22: case 23:	/* MEM_TOPOLOGY, CLOCKID: u64s */
		for (; off + 8 <= n; off += 8)
			f64(p + off);
		return 0;
	case 29:	/* CLOCK_DATA: u32 version, u32 clockid, u64, u64 */
		if (n < 24)
			return 1;
		f32(p); f32(p + 4); f64(p + 8); f64(p + 16);
		return 0;
	case 3: case 4: case 5: case 6: case 8: case 9:
		if (n >= 4)
			f32(p);
		return 0;
	case 7:
		sw_nr_cpus = n >= 4 ? g32(p) : 0;
		f32(p); f32(p + 4);
		return 0;
	case 10:
		f64(p);
		return 0;
	case 21:
		f64(p); f64(p + 8);
		return 0;
	case 11:
		nr = g32(p);
		f32(p);
		off = 4;
		for (i = 0; i < nr && off + 4 <= n; i++) {
			len = g32(p + off);
			f32(p + off);
			off += 4 + len;
		}
		return 0;
	case 12:
		nr = g32(p);
		asz = g32(p + 4);
		f32(p); f32(p + 4);
		off = 8;
		for (i = 0; i < nr && off + asz + 8 <= n; i++) {
			swap_attr(p + off, asz);
			off += asz;
			nids = g32(p + off);
			f32(p + off);
			off += 4;
			len = g32(p + off);
			f32(p + off);
			off += 4 + len;
			for (j = 0; j < nids && off + 8 <= n; j++, off += 8)
				f64(p + off);
		}
		return 0;
	default:
		return 1;
	}
}

static int swap_record(struct swctx *c, unsigned char *r, size_t size)
{
	uint32_t type = g32(r);
	uint16_t misc = g16(r + 4);
	int trailer = c->sample_id_all && type < 64 && type != 9;
	uint64_t nr, i;

	switch (type) {
	case 1:		/* MMAP */
		f32(r + 8); f32(r + 12); f64(r + 16); f64(r + 24); f64(r + 32);
		break;
	case 2:		/* LOST */
		f64(r + 8); f64(r + 16);
		break;
	case 3:		/* COMM */
		f32(r + 8); f32(r + 12);
		break;
	case 4: case 7:	/* EXIT, FORK */
		f32(r + 8); f32(r + 12); f32(r + 16); f32(r + 20); f64(r + 24);
		break;
	case 9:
		if (swap_sample(c, r, size))
			return -1;
		break;
	case 10:	/* MMAP2 */
		f32(r + 8); f32(r + 12); f64(r + 16); f64(r + 24); f64(r + 32);
		if (!(misc & 0x4000)) {
			f32(r + 40); f32(r + 44); f64(r + 48); f64(r + 56);
		}
		f32(r + 64); f32(r + 68);
		break;
	case 13:	/* LOST_SAMPLES */
		f64(r + 8);
		break;
	case 14:	/* SWITCH */
		break;
	case 16:	/* NAMESPACES */
		nr = g64(r + 16);
		f32(r + 8); f32(r + 12); f64(r + 16);
		for (i = 0; i < 2 * nr && 24 + 8 * i + 8 <= size; i++)
			f64(r + 24 + 8 * i);
		break;
	case 19:	/* CGROUP: id, path */
		f64(r + 8);
		break;
	case 15:
		f32(r + 8); f32(r + 12);
		break;
	case 64: {	/* HEADER_ATTR */
		size_t asz = g32(r + 12) ? g32(r + 12) : 64, off;

		if (!c->have_attr) {
			c->sample_type = g64(r + 8 + 24);
			c->read_format = g64(r + 8 + 32);
			c->regs_user = asz >= 88 ? g64(r + 8 + 80) : 0;
			c->sample_id_all = !!(g64(r + 8 + 40) & (1ull << 18));
			c->have_attr = 1;
		}
		swap_attr(r + 8, asz);
		for (off = 8 + asz; off + 8 <= size; off += 8)
			f64(r + off);
		break;
	}
	case 66:	/* TRACING_DATA: u32 size; the data follows the record */
		f32(r + 8);
		break;
	case 68: case 82:
		break;
	case 81:	/* COMPRESSED: the caller compressed swapped records */
		break;
	case 69:	/* ID_INDEX */
		for (i = 8; i + 8 <= size; i += 8)
			f64(r + i);
		break;
	case 73:	/* THREAD_MAP */
		nr = g64(r + 8);
		f64(r + 8);
		for (i = 0; i < nr && 16 + 24 * i + 24 <= size; i++)
			f64(r + 16 + 24 * i);
		break;
	case 74:
		if (swap_cpu_map(c, r + 8, size - 8))
			return -1;
		break;
	case 78: {	/* EVENT_UPDATE */
		uint64_t t = g64(r + 8);

		f64(r + 8); f64(r + 16);
		if (t == 1)
			f64(r + 24);
		else if (t == 3 && swap_cpu_map(c, r + 24, size - 24))
			return -1;
		break;
	}
	case 80:	/* HEADER_FEATURE: payload as the feature section */
		swap_feature((unsigned)g64(r + 8), r + 16, size - 16);
		f64(r + 8);
		break;
	case 5: case 6:	/* THROTTLE, UNTHROTTLE: time, id, stream_id */
	case 11:	/* AUX: offset, size, flags */
		f64(r + 8); f64(r + 16); f64(r + 24);
		break;
	case 8: {	/* READ: pid, tid, values by read_format */
		uint64_t rf = c->read_format, k;
		uint64_t nv = 1 + !!(rf & 1) + !!(rf & 2) + !!(rf & 4) + !!(rf & 16);

		if (rf & 8)
			return no(c, "READ record with group read_format", 0);
		f32(r + 8); f32(r + 12);
		for (k = 0; k < nv; k++)
			f64(r + 16 + 8 * k);
		break;
	}
	case 12:	/* ITRACE_START */
		f32(r + 8); f32(r + 12);
		break;
	case 17:	/* KSYMBOL: addr, len, ksym_type, flags, name */
		f64(r + 8); f32(r + 16); f16(r + 20); f16(r + 22);
		break;
	case 18:	/* BPF_EVENT: type, flags, id, tag[8] */
		f16(r + 8); f16(r + 10); f32(r + 12);
		break;
	case 20:	/* TEXT_POKE: addr, old_len, new_len, bytes */
		f64(r + 8); f16(r + 16); f16(r + 18);
		break;
	case 21:	/* AUX_OUTPUT_HW_ID */
		f64(r + 8);
		break;
	case 67:	/* HEADER_BUILD_ID: pid, build id bytes, filename */
		f32(r + 8);
		break;
	case 70:	/* AUXTRACE_INFO: type, reserved, u64 priv[] */
		f32(r + 8); f32(r + 12);
		for (i = 16; i + 8 <= size; i += 8)
			f64(r + i);
		break;
	case 71:	/* AUXTRACE: size, offset, reference, idx, tid, cpu, reserved */
		f64(r + 8); f64(r + 16); f64(r + 24);
		f32(r + 32); f32(r + 36); f32(r + 40); f32(r + 44);
		break;
	case 72: {	/* AUXTRACE_ERROR */
		uint32_t fmt = g32(r + 28);

		for (i = 8; i < 32; i += 4)
			f32(r + i);
		f64(r + 32);
		if (fmt >= 1)
			f64(r + 40);
		if (fmt >= 2) {
			f32(r + 112); f32(r + 116);
		}
		break;
	}
	case 75:	/* STAT_CONFIG: nr, nr x {tag, val} */
		for (i = 8; i + 8 <= size; i += 8)
			f64(r + i);
		break;
	case 76:	/* STAT: id, cpu, thread, val, ena, run */
		f64(r + 8); f32(r + 16); f32(r + 20); f64(r + 24); f64(r + 32); f64(r + 40);
		break;
	case 77:	/* STAT_ROUND */
		f64(r + 8); f64(r + 16);
		break;
	case 79:	/* TIME_CONV: five u64, then bytes */
		for (i = 8; i < 48 && i + 8 <= size; i += 8)
			f64(r + i);
		break;
	default:
		return no(c, "record type", type);
	}
	if (trailer && swap_trailer(r, size, c->sample_type))
		return no(c, "short trailer in type", type);
	f32(r);
	f16(r + 4);
	f16(r + 6);
	return 0;
}

int pdt_swap_perfdata(const unsigned char *in, size_t len, struct pdt_buf *out,
		      char *why, size_t why_len)
{
	struct swctx c = { 0, 0, 0, 0, 0, why, why_len };
	unsigned char *p;
	uint64_t hsize, off, end;

	out->len = 0;
	pdt_put(out, in, len);
	p = out->p;
	hsize = g64(p + 8);
	if (hsize == 16) {
		f64(p);
		f64(p + 8);
		for (off = 16; off + 8 <= len;) {
			size_t size = g16(p + off + 6);
			uint64_t extra = g32(p + off) == 66 ? (g32(p + off + 8) + 7) & ~7u :
					 g32(p + off) == 71 ? g64(p + off + 8) : 0;

			if (size < 8 || off + size > len)
				return no(&c, "bad pipe record size", (unsigned)size);

			if (swap_record(&c, p + off, size))
				return -1;
			off += size + extra;
		}
		return 0;
	} else {
		uint64_t attr_size = g64(p + 16), aoff = g64(p + 24), asize = g64(p + 32);
		uint64_t doff = g64(p + 40), dsize = g64(p + 48), bm[4], nbm[4] = { 0 };
		struct pdt_buf tab = { 0 };
		unsigned bit, k = 0;
		uint64_t a;

		for (a = aoff; a < aoff + asize; a += attr_size) {
			unsigned char *e = p + a;
			size_t sz = g32(e + 4) ? g32(e + 4) : 64;
			uint64_t ioff = g64(e + sz), isz = g64(e + sz + 8), j;

			if (a == aoff) {
				c.sample_type = g64(e + 24);
				c.read_format = g64(e + 32);
				c.regs_user = sz >= 88 ? g64(e + 80) : 0;
				c.sample_id_all = !!(g64(e + 40) & (1ull << 18));
			} else if (g64(e + 24) != c.sample_type || g64(e + 32) != c.read_format) {
				return no(&c, "attrs with different sample layouts", 0);
			}
			for (j = 0; j < isz; j += 8)
				f64(p + ioff + j);
			swap_attr(e, sz);
			f64(e + sz);
			f64(e + sz + 8);
		}
		end = doff + dsize;
		for (off = doff; off < end;) {
			size_t size = g16(p + off + 6);

			uint64_t extra = g32(p + off) == 71 ? g64(p + off + 8) : 0;

			if (size < 8 || off + size > end)
				return no(&c, "bad record size", (unsigned)size);
			if (swap_record(&c, p + off, size))
				return -1;
			off += size + extra;
		}
		memcpy(bm, p + 72, sizeof(bm));
		for (bit = 0; bit < 256; bit++) {
			unsigned char *t;
			uint64_t fo, fs;

			if (!(bm[bit / 64] >> (bit % 64) & 1))
				continue;
			t = p + end + 16 * k++;
			fo = g64(t);
			fs = g64(t + 8);
			if (swap_feature(bit, p + fo, fs))
				continue;	/* dropped */
			nbm[bit / 64] |= 1ull << (bit % 64);
			pdt_u64(&tab, __builtin_bswap64(fo));
			pdt_u64(&tab, __builtin_bswap64(fs));
		}
		memcpy(p + end, tab.p, tab.len);
		pdt_free(&tab);
		for (k = 0; k < 4; k++)
			nbm[k] = __builtin_bswap64(nbm[k]);
		memcpy(p + 72, nbm, sizeof(nbm));
		for (off = 0; off < 72; off += 8)
			f64(p + off);
		return 0;
	}
}

/* ---- names ---------------------------------------------------------------- */

static const char *const names[] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE",
	[6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE",
	[10] = "MMAP2", [11] = "AUX", [12] = "ITRACE_START",
	[13] = "LOST_SAMPLES", [14] = "SWITCH", [15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[64] = "ATTR", [65] = "EVENT_TYPE", [66] = "TRACING_DATA",
	[67] = "BUILD_ID", [68] = "FINISHED_ROUND", [69] = "ID_INDEX",
	[70] = "AUXTRACE_INFO", [71] = "AUXTRACE", [72] = "AUXTRACE_ERROR",
	[73] = "THREAD_MAP", [74] = "CPU_MAP", [75] = "STAT_CONFIG",
	[76] = "STAT", [77] = "STAT_ROUND", [78] = "EVENT_UPDATE",
	[79] = "TIME_CONV", [80] = "FEATURE", [81] = "COMPRESSED",
	[82] = "FINISHED_INIT",
};

const char *pdt_type_name(uint32_t type)
{
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}
