/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracing-data validator (perfring_tracing_data_check,
 * lib/tracing/tracing-data.c) on real blobs: the TRACING_DATA feature perf 6.1
 * wrote for `perf record -e sched:sched_switch -e irq:irq_handler_entry
 * -e ftrace:print -a` (tests/fixtures/td-sched-irq-ftrace.blob, version
 * 0.6), the same in big-endian framing, a 0.5 blob made from it (version
 * "0.5", no saved cmdlines; perf 6.1 reads a perf.data holding it, same
 * `perf script` lines), the pipe payload of tests/fixtures/pd-pipe-tp.data
 * (padded to 8); then cut at every section boundary, every size and
 * count made wrong, bad versions, endianness and sizes, and every
 * single-byte flip of the fixture that made perf 6.1 crash, abort or hang
 * (fuzz/README.md, "tracing data").
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "testutil.h"

#define PR8(x) (((x) + 7) & ~(size_t)7)

static unsigned char *load(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	unsigned char *b;
	long n;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES_DIR, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 0);
	rewind(f);
	b = malloc((size_t)n);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* ---- an independent walk of the layout, for the cuts and sizes -------- */

/* An integer of the framing: its offset, width and what it is. */
struct fld {
	size_t off;
	unsigned width;		/* 4 or 8 */
	int is_count;
};

struct walk {
	struct fld f[64];
	unsigned nf;
	size_t bound[128];	/* every section boundary */
	unsigned nb;
	int be;
	size_t end;
};

static uint64_t rd(const struct walk *w, const unsigned char *p, unsigned width)
{
	if (width == 4) {
		uint32_t v;

		memcpy(&v, p, 4);
		return w->be ? bswap_32(v) : v;
	} else {
		uint64_t v;

		memcpy(&v, p, 8);
		return w->be ? bswap_64(v) : v;
	}
}

static void wr(const struct walk *w, unsigned char *p, unsigned width, uint64_t v)
{
	if (width == 4) {
		uint32_t x = (uint32_t)v;

		if (w->be)
			x = bswap_32(x);
		memcpy(p, &x, 4);
	} else {
		if (w->be)
			v = bswap_64(v);
		memcpy(p, &v, 8);
	}
}

static uint64_t take(struct walk *w, const unsigned char *b, size_t *p, unsigned width,
		     int is_count)
{
	uint64_t v = rd(w, b + *p, width);

	ck_assert_uint_lt(w->nf, 64);
	w->f[w->nf].off = *p;
	w->f[w->nf].width = width;
	w->f[w->nf].is_count = is_count;
	w->nf++;
	*p += width;
	return v;
}

static void mark(struct walk *w, size_t p)
{
	ck_assert_uint_lt(w->nb, 128);
	w->bound[w->nb++] = p;
}

static void walk(const unsigned char *b, size_t len, struct walk *w)
{
	size_t p = 10;
	int v6;
	uint64_t n, m;

	memset(w, 0, sizeof(*w));
	mark(w, 10);
	v6 = !strcmp((const char *)b + p, "0.6");
	p += strlen((const char *)b + p) + 1;
	mark(w, p);
	w->be = b[p];
	p += 2;
	mark(w, p);
	take(w, b, &p, 4, 0);			/* page size */
	mark(w, p);
	p += 12;
	mark(w, p);
	p += take(w, b, &p, 8, 0);		/* header page */
	mark(w, p);
	p += 13;
	mark(w, p);
	p += take(w, b, &p, 8, 0);		/* header event */
	mark(w, p);
	n = take(w, b, &p, 4, 1);
	for (uint64_t i = 0; i < n; i++) {
		mark(w, p);
		p += take(w, b, &p, 8, 0);	/* ftrace format */
		mark(w, p);
	}
	n = take(w, b, &p, 4, 1);
	for (uint64_t i = 0; i < n; i++) {
		mark(w, p);
		p += strlen((const char *)b + p) + 1;
		mark(w, p);
		m = take(w, b, &p, 4, 1);
		for (uint64_t k = 0; k < m; k++) {
			mark(w, p);
			p += take(w, b, &p, 8, 0);	/* event format */
			mark(w, p);
		}
	}
	mark(w, p);
	p += take(w, b, &p, 4, 0);		/* kallsyms */
	mark(w, p);
	p += take(w, b, &p, 4, 0);		/* printk */
	mark(w, p);
	if (v6) {
		p += take(w, b, &p, 8, 0);	/* saved cmdlines */
		mark(w, p);
	}
	ck_assert_uint_le(p, len);
	w->end = p;
}

static int check(const void *b, size_t len, unsigned flags, struct perfring_diag *d)
{
	return perfring_tracing_data_check(b, len, flags, NULL, d);
}

/* check() must refuse b with -EBADMSG at an offset inside it */
static void refused(const void *b, size_t len, const char *what)
{
	struct perfring_diag d;
	int r = check(b, len, 0, &d);

	ck_assert_msg(r == -EBADMSG, "%s: %d", what, r);
	ck_assert_int_eq(d.error, -EBADMSG);
	ck_assert(d.has_offset);
	ck_assert_uint_le(d.offset, len);
	ck_assert(d.msg[0]);
}

/* The 0.6 fixture as 0.5: version "0.5", no saved cmdlines section. */
static unsigned char *to_05(const unsigned char *b, size_t len, size_t *out_len)
{
	struct perfring_tracing_data_info in = { .sz = sizeof(in) };
	unsigned char *o;
	size_t n;

	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &in, NULL), 0);
	ck_assert_str_eq(in.version, "0.6");
	n = (size_t)in.cmdlines_offset - 8;	/* up to the cmdlines' size */
	o = malloc(n);
	ck_assert_ptr_nonnull(o);
	memcpy(o, b, n);
	o[12] = '5';
	*out_len = n;
	return o;
}

/* b in the other byte order (the walk says where the integers are). */
static unsigned char *swapped(const unsigned char *b, size_t len)
{
	struct walk w, s;
	unsigned char *o = malloc(len);

	ck_assert_ptr_nonnull(o);
	memcpy(o, b, len);
	walk(b, len, &w);
	s = w;
	s.be = !w.be;
	for (unsigned i = 0; i < w.nf; i++)
		wr(&s, o + w.f[i].off, w.f[i].width, rd(&w, b + w.f[i].off, w.f[i].width));
	o[strlen((const char *)b + 10) + 11] ^= 1;
	return o;
}

START_TEST(test_real_06)
{
	struct perfring_tracing_data_info in;
	struct perfring_diag d;
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);

	memset(&in, 0xff, sizeof(in));
	in.sz = sizeof(in);
	memset(&d, 0x5a, sizeof(d));
	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &in, &d), 0);
	ck_assert_int_eq(d.error, 0);
	ck_assert_str_eq(in.version, "0.6");
	ck_assert_uint_eq(in.big_endian, 0);
	ck_assert_uint_eq(in.long_size, 8);
	ck_assert_uint_eq(in.page_size, 4096);
	ck_assert_uint_eq(in.nr_ftrace, 1);
	ck_assert_uint_eq(in.nr_systems, 2);
	ck_assert_uint_eq(in.nr_events, 2);
	ck_assert_uint_eq(in.size, len);
	ck_assert_uint_eq(in.kallsyms_size, 0);
	ck_assert_uint_eq(in.printk_offset + in.printk_size + 8, in.cmdlines_offset);
	ck_assert_uint_eq(in.cmdlines_offset + in.cmdlines_size, len);
	ck_assert_uint_gt(in.printk_size, 1000);
	/* not a pipe payload: 7215 bytes, not padded to 8 */
	ck_assert_int_eq(check(b, len, PERFRING_TRACING_DATA_PIPE, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, len);
	/* perf ignores what follows the sections in a file */
	{
		unsigned char *p = calloc(1, len + 9);

		memcpy(p, b, len);
		ck_assert_int_eq(check(p, len + 9, 0, NULL), 0);
		ck_assert_int_eq(check(p, (len + 7) & ~(size_t)7, PERFRING_TRACING_DATA_PIPE, NULL), 0);
		ck_assert_int_eq(check(p, len + 9, PERFRING_TRACING_DATA_PIPE, &d), -EBADMSG);
		free(p);
	}
	free(b);
}
END_TEST

START_TEST(test_real_05_and_big_endian)
{
	struct perfring_tracing_data_info in = { .sz = sizeof(in) }, in2 = { .sz = sizeof(in2) };
	size_t len, l5;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *b5 = to_05(b, len, &l5);
	unsigned char *be = swapped(b, len), *be5 = swapped(b5, l5);

	ck_assert_int_eq(perfring_tracing_data_check(b5, l5, 0, &in, NULL), 0);
	ck_assert_str_eq(in.version, "0.5");
	ck_assert_uint_eq(in.size, l5);
	ck_assert_uint_eq(in.cmdlines_offset, 0);
	ck_assert_uint_eq(in.cmdlines_size, 0);
	ck_assert_uint_eq(in.nr_events, 2);
	/* a 0.6 reader would want saved cmdlines after the printk formats */
	b5[12] = '6';
	refused(b5, l5, "0.6 without saved cmdlines");
	b5[12] = '5';

	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &in, NULL), 0);
	ck_assert_int_eq(perfring_tracing_data_check(be, len, 0, &in2, NULL), 0);
	ck_assert_uint_eq(in2.big_endian, 1);
	in2.big_endian = 0;
	ck_assert(!memcmp(&in, &in2, sizeof(in)));
	ck_assert_int_eq(perfring_tracing_data_check(be5, l5, 0, &in2, NULL), 0);
	ck_assert_str_eq(in2.version, "0.5");
	ck_assert_uint_eq(in2.big_endian, 1);
	/* the endianness byte decides: the other one misreads every size */
	be[14] ^= 1;
	refused(be, len, "big-endian sizes read as little-endian");
	free(be5);
	free(be);
	free(b5);
	free(b);
}
END_TEST

/* The pipe payload of a real pipe-mode recording (HEADER_TRACING_DATA,
 * type 66: 16-byte record, then `size` bytes outside its header.size). */
START_TEST(test_real_pipe)
{
	struct perfring_tracing_data_info in = { .sz = sizeof(in) };
	size_t len, off = 16;
	unsigned char *b = load("pd-pipe-tp.data", &len);
	int found = 0;

	while (off + 16 <= len) {
		uint32_t type, sz32;
		uint16_t size;

		memcpy(&type, b + off, 4);
		memcpy(&size, b + off + 6, 2);
		ck_assert_uint_ge(size, 8);
		if (type == PERFRING_RECORD_HEADER_TRACING_DATA) {
			memcpy(&sz32, b + off + 8, 4);
			ck_assert_uint_le(off + size + sz32, len);
			ck_assert_uint_eq(sz32 % 8, 0);
			ck_assert_int_eq(perfring_tracing_data_check(b + off + size, sz32,
						PERFRING_TRACING_DATA_PIPE, &in, NULL), 0);
			ck_assert_str_eq(in.version, "0.6");
			ck_assert_uint_eq((in.size + 7) & ~7ull, sz32);
			ck_assert_uint_eq(in.nr_events, 1);
			/* one byte short of the padding: perf refuses it */
			ck_assert_int_eq(check(b + off + size, sz32 - 1, PERFRING_TRACING_DATA_PIPE,
					       NULL), -EBADMSG);
			found = 1;
			break;
		}
		off += size;
	}
	ck_assert(found);
	free(b);
}
END_TEST

/* Cut at every section boundary (and one byte after and before each). */
START_TEST(test_cuts)
{
	size_t len, l5;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *b5 = to_05(b, len, &l5);
	const unsigned char *v[2] = { b, b5 };
	size_t vl[2] = { len, l5 };
	struct walk w;

	for (int k = 0; k < 2; k++) {
		walk(v[k], vl[k], &w);
		ck_assert_uint_eq(w.end, vl[k]);
		for (unsigned i = 0; i < w.nb; i++) {
			for (int dlt = -1; dlt <= 1; dlt++) {
				size_t cut = w.bound[i] + (size_t)dlt;
				unsigned char *c;

				if (cut >= vl[k])
					continue;
				c = malloc(cut ? cut : 1);	/* exact size for ASan */
				memcpy(c, v[k], cut);
				refused(c, cut, "cut");
				free(c);
			}
		}
		/* and every length below 64 */
		for (size_t cut = 0; cut < 64; cut++)
			refused(v[k], cut, "short");
	}
	free(b5);
	free(b);
}
END_TEST

/* Each size and count of the framing one more, one less and huge. */
START_TEST(test_bad_sizes)
{
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *be = swapped(b, len);
	const unsigned char *v[2] = { b, be };
	unsigned tested = 0;

	for (int k = 0; k < 2; k++) {
		struct walk w;

		walk(v[k], len, &w);
		ck_assert_uint_eq(w.nf, 13);
		for (unsigned i = 0; i < w.nf; i++) {
			uint64_t orig = rd(&w, v[k] + w.f[i].off, w.f[i].width);
			uint64_t vals[] = { orig + 1, orig - 1, orig + 4096, 0xffffffffu,
					    w.f[i].width == 8 ? ~0ull : 0x80000000u };

			for (unsigned j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
				unsigned char *c;
				char what[64];

				/* the page size: 8192 is one too */
				if (i == 0 && j == 2)
					continue;
				c = malloc(len);
				memcpy(c, v[k], len);
				wr(&w, c + w.f[i].off, w.f[i].width, vals[j]);
				snprintf(what, sizeof(what), "field %u at %zu = %llu", i,
					 w.f[i].off, (unsigned long long)vals[j]);
				refused(c, len, what);
				tested++;
				free(c);
			}
		}
	}
	ck_assert_uint_ge(tested, 120);
	free(be);
	free(b);
}
END_TEST

START_TEST(test_header_fields)
{
	struct perfring_diag d;
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *c = malloc(len);
	static const struct {
		size_t off;
		unsigned char val;
		int err;
		size_t at;
	} cases[] = {
		{ 0, 0x16, -EBADMSG, 0 },	/* magic */
		{ 9, 'G', -EBADMSG, 9 },
		{ 12, '7', -ENOTSUP, 10 },	/* "0.7": unknown version */
		{ 12, 'x', -EBADMSG, 12 },	/* "0.x": not a number */
		{ 13, '1', -ENOTSUP, 10 },	/* "0.61" (eats the endianness byte) */
		{ 14, 2, -EBADMSG, 14 },	/* endianness byte */
		{ 15, 5, -EBADMSG, 15 },	/* long size */
		{ 15, 0, -EBADMSG, 15 },
		{ 17, 0x11, -EBADMSG, 16 },	/* page size 0x1100 */
		{ 20, 'H', -EBADMSG, 20 },	/* "header_page" */
		{ 31, 'x', -EBADMSG, 20 },	/* its NUL */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, b, len);
		c[cases[i].off] = cases[i].val;
		ck_assert_int_eq(check(c, len, 0, &d), cases[i].err);
		ck_assert_int_eq(d.error, cases[i].err);
		ck_assert_msg(d.offset == cases[i].at, "case %u: offset %llu", i,
			      (unsigned long long)d.offset);
	}
	memcpy(c, b, len);
	c[12] = '7';
	check(c, len, 0, &d);
	ck_assert_ptr_nonnull(strstr(d.msg, "\"0.7\""));
	/* a version string without its NUL in the first 256 bytes */
	memset(c + 10, '0', 300);
	ck_assert_int_eq(check(c, len, 0, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 10);
	free(c);
	free(b);
}
END_TEST

START_TEST(test_args)
{
	struct perfring_tracing_data_info in = { .sz = 4 };
	struct perfring_diag d;
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);

	ck_assert_int_eq(perfring_tracing_data_check(NULL, 1, 0, NULL, &d), -EINVAL);
	ck_assert_int_eq(d.error, -EINVAL);
	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0x2, NULL, NULL), -EINVAL);
	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &in, NULL), -EINVAL);
	ck_assert_int_eq(perfring_tracing_data_check(NULL, 0, 0, NULL, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 0);
	/* a newer caller's larger info: the rest zeroed */
	{
		struct {
			struct perfring_tracing_data_info in;
			unsigned char more[16];
		} big;

		memset(&big, 0x77, sizeof(big));
		big.in.sz = sizeof(big);
		ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &big.in, NULL), 0);
		ck_assert_uint_eq(big.in.sz, sizeof(big));
		for (unsigned i = 0; i < sizeof(big.more); i++)
			ck_assert_uint_eq(big.more[i], 0);
	}
	free(b);
}
END_TEST

/* Damage inside the texts that perf parses, by hand. */
START_TEST(test_texts)
{
	struct perfring_diag d;
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *c = malloc(len);
	static const struct {
		const char *find;	/* first occurrence in the blob */
		size_t flen;		/* its length (0: strlen) */
		size_t at;		/* byte of it to change */
		char to;
		const char *msg;	/* part of the diagnostic */
	} cases[] = {
		{ "field: u64 timestamp;", 0, 7, '\n', "header page" },
		{ "name: print\n", 0, 5, '\n', "name" },
		{ "ID: 5\n", 0, 4, 'x', "ID" },
		{ "format:\n\tfield:unsigned short common_type", 0, 6, ';', "format:" },
		{ "common_type;", 0, 0, 'b', "common_type" },
		{ "unsigned long ip;", 0, 0, (char)0x8a, "0x7e" },
		{ "offset:8;\tsize:8;", 0, 7, 'x', "offset" },
		{ "size:8;\tsigned:0;\n\tfield:char buf", 0, 5, 'x', "size" },
		{ "signed:0;\n\tfield:char buf", 0, 8, ':', "signed" },
		{ "char buf[];", 0, 9, ' ', "field" },
		{ "print fmt: \"%ps: %s\"", 0, 10, '\t', NULL },	/* harmless: blanks */
		{ "print fmt: \"%ps: %s\"", 0, 11, 'x', "print fmt" },
		{ "(void *)REC->ip", 0, 0, ')', "bracket" },
		{ "REC->buf", 0, 5, 'c', "REC->" },
		{ "prev_state;", 0, 0, 's', "REC->" },
		{ "\nsched\0", 7, 3, '\n', "system name" },
		{ "0xffffffff", 0, 1, 'y', "printk" },
		{ "e34 : \"thaw", 0, 6, '\n', "printk" },
		{ "\"\n0x", 0, 0, '\n', "printk" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t fl = cases[i].flen ? cases[i].flen : strlen(cases[i].find);
		const unsigned char *p = memmem(b, len, cases[i].find, fl);

		ck_assert_msg(p != NULL, "case %u: %s not in the fixture", i, cases[i].find);
		memcpy(c, b, len);
		c[(size_t)(p - b) + cases[i].at] = (unsigned char)cases[i].to;
		if (!cases[i].msg) {
			ck_assert_int_eq(check(c, len, 0, &d), 0);
			continue;
		}
		ck_assert_msg(check(c, len, 0, &d) == -EBADMSG, "case %u (%s) passed", i,
			      cases[i].find);
		ck_assert_msg(strstr(d.msg, cases[i].msg) != NULL, "case %u: %s", i, d.msg);
		ck_assert_uint_ge(d.offset + 64, (size_t)(p - b));
		ck_assert_uint_le(d.offset, (size_t)(p - b) + 2048);
	}
	free(c);
	free(b);
}
END_TEST

/*
 * Every single-byte flip (offset in td-sched-irq-ftrace.blob, XOR mask)
 * of the sample in fuzz/README.md after which `perf script -i` of perf 6.1
 * on a perf.data holding the blob died of a signal (SIGSEGV, SIGABRT on
 * heap corruption, "free(): double free") or hung.
 */
#include "td-crash-flips.h"

START_TEST(test_crashing_flips)
{
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *c = malloc(len);
	unsigned n = sizeof(td_crash_flips) / sizeof(td_crash_flips[0]);

	ck_assert_uint_ge(n, 100);
	for (unsigned i = 0; i < n; i++) {
		struct perfring_diag d;

		ck_assert_uint_lt(td_crash_flips[i][0], len);
		memcpy(c, b, len);
		c[td_crash_flips[i][0]] ^= (unsigned char)td_crash_flips[i][1];
		ck_assert_msg(check(c, len, 0, &d) == -EBADMSG,
			      "flip of byte %u by 0x%02x passed", td_crash_flips[i][0],
			      td_crash_flips[i][1]);
	}
	free(c);
	free(b);
}
END_TEST

/* The formats the kernel writes, in pieces a format can hold. */
START_TEST(test_format_shapes)
{
	static const char *hdr = "\027\010\104tracing0.6\0\0\010\0\020\0\0";
	static const char *ok[] = {
		/* a line break inside the print fmt string (ext4_fc_stats) */
		"name: a\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\nprint fmt: \"x\ny %d\", REC->common_type\n",
		/* no signed: (kernels before 2.6.35) and a dynamic array */
		"name: b\nID: 2\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"%s\", __get_str(name)\n",
	};
	static const char *bad[] = {
		/* no print fmt */
		"name: a\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		/* no fields */
		"name: a\nID: 1\nformat:\n\nprint fmt: \"x\"\n",
		/* a print fmt string not closed */
		"name: a\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\nprint fmt: \"x\n",
	};
	const char *hp = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
	unsigned char buf[1024];

	for (unsigned k = 0; k < 5; k++) {
		const char *f = k < 2 ? ok[k] : bad[k - 2];
		size_t p = 0, n;
		uint64_t v;
		uint32_t u;

		memcpy(buf, hdr, 20);
		p = 20;
		memcpy(buf + p, "header_page", 12), p += 12;
		v = strlen(hp), memcpy(buf + p, &v, 8), p += 8;
		memcpy(buf + p, hp, v), p += v;
		memcpy(buf + p, "header_event", 13), p += 13;
		v = 0, memcpy(buf + p, &v, 8), p += 8;
		u = 1, memcpy(buf + p, &u, 4), p += 4;		/* one ftrace format */
		n = strlen(f);
		v = n, memcpy(buf + p, &v, 8), p += 8;
		memcpy(buf + p, f, n), p += n;
		u = 0, memcpy(buf + p, &u, 4), p += 4;		/* no systems */
		memcpy(buf + p, &u, 4), p += 4;			/* kallsyms */
		memcpy(buf + p, &u, 4), p += 4;			/* printk */
		v = 0, memcpy(buf + p, &v, 8), p += 8;		/* saved cmdlines */
		ck_assert_uint_le(p, sizeof(buf));
		if (k < 2)
			ck_assert_msg(check(buf, p, 0, NULL) == 0, "ok format %u refused", k);
		else
			ck_assert_msg(check(buf, p, 0, NULL) == -EBADMSG, "bad format %u passed",
				      k - 2);
	}
}
END_TEST

/* The tracepoint of a tracepoint attr's config, by ID; a flipped digit of
 * an ID (perf 6.1 crashes on the pipe, refuses the file) is found so. */
START_TEST(test_find_id)
{
	struct perfring_diag d;
	size_t len;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	unsigned char *be = swapped(b, len);
	char name[64];
	unsigned char *id;

	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 5, name, sizeof(name), &d), 1);
	ck_assert_str_eq(name, "ftrace:print");
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 225, name, sizeof(name), &d), 1);
	ck_assert_str_eq(name, "irq:irq_handler_entry");
	ck_assert_int_eq(perfring_tracing_data_find_id(be, len, 0, 372, name, sizeof(name), &d), 1);
	ck_assert_str_eq(name, "sched:sched_switch");
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 372, name, 6, &d), 1);
	ck_assert_str_eq(name, "sched");
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 372, NULL, 0, &d), 1);
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 37, name, sizeof(name), &d), 0);
	ck_assert_str_eq(name, "");
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 0, name, sizeof(name), &d), 0);
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 1, NULL, 4, &d), -EINVAL);
	id = memmem(b, len, "ID: 372", 7);
	ck_assert_ptr_nonnull(id);
	id[5] ^= 1;	/* "ID: 362" */
	ck_assert_int_eq(check(b, len, 0, NULL), 0);
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len, 0, 372, name, sizeof(name), &d), 0);
	ck_assert_int_eq(perfring_tracing_data_find_id(b, len - 1, 0, 362, name, sizeof(name), &d),
			 -EBADMSG);
	free(be);
	free(b);
}
END_TEST

/* ---- the blob as the perf.data reader hands it over ------------------- */

/* Read a pipe-mode stream with the reader: the tracing data of its first
 * HEADER_TRACING_DATA record (a copy), its record count. */
static unsigned char *reader_blob(int fd, size_t *len, unsigned *nrec)
{
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	unsigned char *out = NULL;
	char m[1024];
	int r;

	*nrec = 0;
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), 0);
	ck_assert(perfring_perfdata_is_pipe(pd));
	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		(*nrec)++;
		if (rec.type != PERFRING_RECORD_HEADER_TRACING_DATA) {
			ck_assert_ptr_null(rec.extra);
			continue;
		}
		ck_assert_ptr_nonnull(rec.extra);
		ck_assert_uint_gt(rec.extra_size, 0);
		if (!out) {
			out = malloc((size_t)rec.extra_size);
			memcpy(out, rec.extra, (size_t)rec.extra_size);
			*len = (size_t)rec.extra_size;
		}
	}
	ck_assert_msg(r == 0, "%s", perfring_diag_format(&d, m, sizeof(m)));
	perfring_perfdata_close(pd);
	ck_assert_ptr_nonnull(out);
	return out;
}

START_TEST(test_reader_pipe_fixture)
{
	char path[512];
	size_t len, flen;
	unsigned nrec;
	int fd;
	unsigned char *b, *f = load("pd-pipe-tp.data", &flen);

	snprintf(path, sizeof(path), "%s/pd-pipe-tp.data", FIXTURES_DIR);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	b = reader_blob(fd, &len, &nrec);
	close(fd);
	ck_assert_uint_gt(nrec, 10);
	ck_assert_int_eq(check(b, len, PERFRING_TRACING_DATA_PIPE, NULL), 0);
	/* the very bytes of the stream */
	ck_assert_ptr_nonnull(memmem(f, flen, b, len));
	/* a caller whose record struct ends before extra still reads */
	{
		struct perfring_perfdata *pd;
		struct {
			struct perfring_perfdata_record rec;
		} old;
		struct perfring_diag d;

		memset(&old, 0x5a, sizeof(old));
		old.rec.sz = offsetof(struct perfring_perfdata_record, extra);
		ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
		ck_assert_int_eq(perfring_perfdata_next(pd, &old.rec, &d), 1);
		ck_assert_ptr_eq(old.rec.extra, (const void *)0x5a5a5a5a5a5a5a5aull);
		perfring_perfdata_close(pd);
	}
	free(b);
	free(f);
}
END_TEST

/*
 * A pipe stream whose tracing data (with 600 KB of kallsyms, as perf
 * before 4.19 wrote them) is larger than the reader's first buffer and
 * its 128 KiB window, through a real pipe in small writes, and from a
 * regular file.
 */
START_TEST(test_reader_pipe_big)
{
	size_t len, blen, slen, n, got;
	unsigned char *b = load("td-sched-irq-ftrace.blob", &len);
	struct perfring_tracing_data_info in = { .sz = sizeof(in) };
	unsigned char *blob, *s, *r;
	struct walk w;
	unsigned nrec;
	size_t ks = 600000, kpos;
	char path[] = "/tmp/check_tracing_data.XXXXXX";
	int p[2], fd;
	pid_t pid;

	ck_assert_int_eq(perfring_tracing_data_check(b, len, 0, &in, NULL), 0);
	walk(b, len, &w);
	kpos = (size_t)in.kallsyms_offset;	/* after its 4-byte size */
	blen = len + ks;
	blob = calloc(1, PR8(blen));
	memcpy(blob, b, kpos);
	for (size_t i = 0; i < ks; i++)
		blob[kpos + i] = (i % 40 == 39) ? '\n' : 'a' + (char)(i % 26);
	memcpy(blob + kpos + ks, b + kpos, len - kpos);
	wr(&w, blob + kpos - 4, 4, ks);
	ck_assert_int_eq(check(blob, PR8(blen), PERFRING_TRACING_DATA_PIPE, NULL), 0);

	/* PERFILE2, header size 16; HEADER_TRACING_DATA; FINISHED_ROUND */
	slen = 16 + 16 + PR8(blen) + 8;
	s = calloc(1, slen);
	memcpy(s, "PERFILE2", 8);
	s[8] = 16;
	s[16] = 66;
	s[16 + 6] = 16;
	wr(&(struct walk){ .be = 0 }, s + 24, 4, PR8(blen));
	memcpy(s + 32, blob, blen);
	s[32 + PR8(blen)] = 68;
	s[32 + PR8(blen) + 6] = 8;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		for (size_t o = 0; o < slen; o += n) {
			n = slen - o < 3001 ? slen - o : 3001;
			if (write(p[1], s + o, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	r = reader_blob(p[0], &got, &nrec);
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_uint_eq(nrec, 2);
	ck_assert_uint_eq(got, PR8(blen));
	ck_assert(!memcmp(r, blob, got));
	free(r);

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, s, slen), (ssize_t)slen);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	r = reader_blob(fd, &got, &nrec);
	close(fd);
	ck_assert_uint_eq(got, PR8(blen));
	ck_assert(!memcmp(r, blob, got));
	free(r);

	/* cut inside the blob: the reader reports it, no record */
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(write(p[1], s, 32 + 100000) == 32 + 100000 ? 0 : 1);
	}
	close(p[1]);
	{
		struct perfring_perfdata *pd;
		struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
		struct perfring_diag d;

		ck_assert_int_eq(perfring_perfdata_open_fd(p[0], NULL, &d, &pd), 0);
		ck_assert_int_eq(perfring_perfdata_next(pd, &rec, &d), -EBADMSG);
		ck_assert_uint_eq(d.offset, 32);
		perfring_perfdata_close(pd);
	}
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	free(s);
	free(blob);
	free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tracing_data");
	TCase *tc = tcase_create("real");

	tcase_add_test(tc, test_real_06);
	tcase_add_test(tc, test_real_05_and_big_endian);
	tcase_add_test(tc, test_real_pipe);
	tcase_add_test(tc, test_find_id);
	suite_add_tcase(s, tc);
	tc = tcase_create("reader");
	tcase_add_test(tc, test_reader_pipe_fixture);
	tcase_add_test(tc, test_reader_pipe_big);
	suite_add_tcase(s, tc);
	tc = tcase_create("damage");
	tcase_add_test(tc, test_cuts);
	tcase_add_test(tc, test_bad_sizes);
	tcase_add_test(tc, test_header_fields);
	tcase_add_test(tc, test_args);
	tcase_add_test(tc, test_texts);
	tcase_add_test(tc, test_crashing_flips);
	tcase_add_test(tc, test_format_shapes);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
