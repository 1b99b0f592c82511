/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data reader: the legacy "PERFFILE" format (perf 2.6.31 .. 3.x), in
 * the files tests/tools/legacy-mk writes as perf record of those versions
 * did: both byte orders (told by sizes, the magic has the same bytes in
 * either), the 72-byte header without the feature bitmap and the 104-byte
 * one, every attr size perf accepts there (attr.size 0, as old perf left
 * it, and set), pipe mode, the BUILD_ID table without pids (2.6.33), event
 * types, the probe; damaged legacy headers are refused with the offset,
 * and no cut or flipped byte crashes the reader.
 * (tests/tools/legacy-perffile.sh checks the same files against perf.)
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "pd-testlib.h"
#include "testutil.h"

#define REQUIRE(cond, ...) do {					\
	if (!(cond))							\
		ck_abort_msg("failed: " #cond ": " __VA_ARGS__);	\
} while (0)

#define ST_IP_TID_TIME_PERIOD 0x107u
#define NREC 485		/* 80 MMAP, 2 COMM, 2 EXIT, 1 FORK, 400 SAMPLE */

static char tmpdir[] = "/tmp/check_perfdata_legacy.XXXXXX";

/* legacy-mk OPTS into out */
static void mk(const char *opts, struct pdt_buf *out)
{
	char cmd[1024], path[512];

	snprintf(path, sizeof(path), "%s/f.data", tmpdir);
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s'", LEGACY_MK, opts, path);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	memset(out, 0, sizeof(*out));
	pdt_slurp(path, out);
	unlink(path);
}

static struct perfring_perfdata *open_mem(const void *p, size_t n, int *fdp, int *err,
					  struct perfring_diag *d)
{
	struct perfring_perfdata *pd = NULL;
	int fd = pdt_memfd(p, n);

	memset(d, 0, sizeof(*d));
	*err = perfring_perfdata_open_fd(fd, NULL, d, &pd);
	*fdp = fd;
	return pd;
}

/* Read every record; check counts, attrs of records, the samples. */
static void read_all(struct perfring_perfdata *pd, unsigned nev, int pipe_mode)
{
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata_stats st0, *st = &st0;
	struct perfring_diag d;
	unsigned n = 0, ns = 0;
	char msg[1024];
	int r;

	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		const unsigned char *p = (const void *)rec.header;

		n++;
		if (rec.type != PERFRING_RECORD_SAMPLE)
			continue;
		{
			uint64_t ip, time, period, id = 0;
			uint32_t pid, tid;
			unsigned m7 = ns % 7, ev = ns % nev;	/* (no % in REQUIRE) */
			size_t o = 8;

			memcpy(&ip, p + o, 8); o += 8;
			memcpy(&pid, p + o, 4);
			memcpy(&tid, p + o + 4, 4); o += 8;
			memcpy(&time, p + o, 8); o += 8;
			if (nev > 1) {
				memcpy(&id, p + o, 8);
				o += 8;
			}
			memcpy(&period, p + o, 8);
			REQUIRE(pid == 4242 && (tid == 4242 || tid == 4243), "pid %u tid %u", pid, tid);
			REQUIRE(time == 1000000000ull + 1000000ull * (ns + 1), "time %llu",
				(unsigned long long)time);
			REQUIRE(period == 100000 + 10 * m7, "period");
			REQUIRE(ip >> 12 == 0x400 || ip >> 12 == 0x2400, "ip %#llx",
				(unsigned long long)ip);
			REQUIRE(rec.attr_idx == (int)ev, "sample %u: attr %d", ns, rec.attr_idx);
			if (nev > 1)
				REQUIRE(id == 100 + 10 * ev + (tid == 4242 ? 0 : 1), "id");
		}
		ns++;
	}
	ck_assert_msg(r == 0, "%s", perfring_diag_format(&d, msg, sizeof(msg)));
	st0 = pd_stats(pd);
	ck_assert_uint_eq(n, NREC + (pipe_mode ? nev : 0));
	ck_assert_uint_eq(st->by_type[PERFRING_RECORD_MMAP], 80);
	ck_assert_uint_eq(st->by_type[PERFRING_RECORD_COMM], 2);
	ck_assert_uint_eq(st->by_type[PERFRING_RECORD_EXIT], 2);
	ck_assert_uint_eq(st->by_type[PERFRING_RECORD_FORK], 1);
	ck_assert_uint_eq(st->by_type[PERFRING_RECORD_SAMPLE], 400);
	ck_assert_uint_eq(st->unknown_id, 0);
}

static void check_attrs(struct perfring_perfdata *pd, unsigned nev, uint32_t size)
{
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), nev);
	for (unsigned i = 0; i < nev; i++) {
		const struct perfring_attr *a;
		const uint64_t *ids;
		uint32_t n;
		const char *name;

		ck_assert_int_eq(perfring_perfdata_attr(pd, i, &a, &ids, &n, &name), 0);
		ck_assert_uint_eq(a->type, PERFRING_TYPE_HARDWARE);
		ck_assert_uint_eq(a->size, size);		/* as in the file */
		ck_assert_uint_eq(a->config, i);
		ck_assert_uint_eq(a->sample_period, 1000);
		ck_assert_uint_eq(a->sample_type,
				  ST_IP_TID_TIME_PERIOD | (nev > 1 ? PERFRING_SAMPLE_ID : 0));
		ck_assert_uint_eq(a->read_format, 7);
		ck_assert_uint_eq(a->flags, (1u << 0) | (1u << 1) | (1u << 10) | (1u << 12) |
				  (i == 0 ? (1u << 8) | (1u << 9) : 0));
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(ids[0], 100 + 10 * i);
		ck_assert_uint_eq(ids[1], 101 + 10 * i);
		ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 101 + 10 * i), (int)i);
		/* perf 6.1's name for an attr of the time (no exclude_guest) */
		ck_assert_str_eq(name, i ? "instructions:HG" : "cycles:HG");
	}
}

/* 1. both byte orders, the 72- and 104-byte headers, pipe mode */
static const struct { const char *opts; int swap, hsize, pipe_mode; uint32_t asz; } layouts[] = {
	{ "", 0, 104, 0, 88 },
	{ "-s", 1, 104, 0, 88 },
	{ "-H 72 -A 64", 0, 72, 0, 80 },
	{ "-s -H 72 -A 64", 1, 72, 0, 80 },
	{ "-H 72", 0, 72, 0, 88 },
	{ "-s -H 72", 1, 72, 0, 88 },
	{ "-p", 0, 16, 1, 0 },
	{ "-s -p", 1, 16, 1, 0 },
};

START_TEST(test_layouts)
{
	struct pdt_buf f;
	struct perfring_perfdata *pd;
	const struct perfring_perfdata_header *h;
	struct perfring_diag d;
	char msg[1024];
	int fd, err;

	mk(layouts[_i].opts, &f);
	ck_assert(!memcmp(f.p, "PERFFILE", 8));	/* either byte order */
	pd = open_mem(f.p, f.len, &fd, &err, &d);
	ck_assert_msg(err == 0, "%s: %s", layouts[_i].opts, perfring_diag_format(&d, msg, sizeof(msg)));
	h = perfring_perfdata_header(pd);
	ck_assert_uint_eq(h->version, 1);
	ck_assert_int_eq(perfring_perfdata_needs_swap(pd), layouts[_i].swap);
	ck_assert_int_eq(perfring_perfdata_is_pipe(pd), layouts[_i].pipe_mode);
	ck_assert_uint_eq(h->header_size, layouts[_i].hsize);
	ck_assert_uint_eq(h->attr_size, layouts[_i].asz);
	if (!layouts[_i].pipe_mode)
		check_attrs(pd, 1, 0);
	/* the 104-byte header has the BUILD_ID feature, the 72-byte one none */
	ck_assert_uint_eq(perfring_perfdata_nr_features(pd), layouts[_i].hsize == 104);
	read_all(pd, 1, layouts[_i].pipe_mode);
	if (layouts[_i].pipe_mode)
		check_attrs(pd, 1, 0);
	perfring_perfdata_close(pd);

	/* the probe calls it perf.data, of the right byte order */
	{
		struct perfring_probe pr = { .sz = sizeof(pr) };

		lseek(fd, 0, SEEK_SET);
		ck_assert_int_eq(perfring_probe_fd(fd, "legacy", &pr, &d), 0);
		ck_assert_int_eq(pr.kind, layouts[_i].pipe_mode ? PERFRING_SOURCE_PERFDATA_PIPE :
				 PERFRING_SOURCE_PERFDATA);
		ck_assert_int_eq(pr.swapped, layouts[_i].swap);
	}
	close(fd);
	pdt_free(&f);
}
END_TEST

/* 2. every attr size a legacy file may have, attr.size 0 and set, one and
 * two events (the ids prove the entry stride) */
static const unsigned asizes[] = { 64, 72, 80, 96, 104 };

START_TEST(test_attr_sizes)
{
	unsigned asz = asizes[_i % 5];
	int swap = _i / 5 % 2, set = _i / 10 % 2;
	unsigned nev = 1 + _i / 20;
	struct pdt_buf f;
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	char opts[128], msg[1024];
	int fd, err;

	snprintf(opts, sizeof(opts), "%s-A %u -e %u -H %d", swap ? "-s " : "", asz, nev,
		 asz == 64 ? 72 : 104);
	if (set)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), " -S %u", asz);
	mk(opts, &f);
	pd = open_mem(f.p, f.len, &fd, &err, &d);
	ck_assert_msg(err == 0, "%s: %s", opts, perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_uint_eq(perfring_perfdata_header(pd)->attr_size, asz + 16);
	check_attrs(pd, nev, set ? asz : 0);
	read_all(pd, nev, 0);
	perfring_perfdata_close(pd);
	close(fd);
	pdt_free(&f);
}
END_TEST

/* 3. the BUILD_ID table: with pids (2.6.34 on), without (2.6.33) */
START_TEST(test_build_ids)
{
	static const char *const opts[] = { "", "-s", "-b old", "-s -b old" };
	struct pdt_buf f;
	struct perfring_perfdata *pd;
	struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
	struct perfring_diag d;
	char text[1024];
	int fd, err;

	mk(opts[_i], &f);
	pd = open_mem(f.p, f.len, &fd, &err, &d);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 1);
	ck_assert_int_eq(perfring_perfdata_feature(pd, 0, &ft, &d), 0);
	ck_assert_uint_eq(ft.id, PERFRING_FEAT_BUILD_ID);
	ck_assert_int_gt(perfring_perfdata_feature_format(pd, &ft, text, sizeof(text)), 0);
	ck_assert_str_eq(text,
		"build_id : 112233445566778899aabbccddeeff1021324354 [kernel.kallsyms] (pid -1)\n"
		"build_id : 425364758697a8b9cadbecfd0e1f304152637485 /usr/local/bin/legacy-workload (pid -1)\n");
	perfring_perfdata_close(pd);
	close(fd);
	pdt_free(&f);
}
END_TEST

/* 4. event types name tracepoints (perf wrote them for those only) */
START_TEST(test_event_types)
{
	struct pdt_buf f;
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	const char *name;
	uint64_t aoff;
	int fd, err;

	mk(_i ? "-s -E" : "-E", &f);
	pd = open_mem(f.p, f.len, &fd, &err, &d);
	ck_assert_int_eq(err, 0);
	perfring_perfdata_attr(pd, 0, NULL, NULL, NULL, &name);
	ck_assert_str_eq(name, "cycles:HG");	/* a hardware event: not by them */
	aoff = perfring_perfdata_header(pd)->attrs_offset;
	perfring_perfdata_close(pd);
	close(fd);
	/* make attr 0 a tracepoint: named by its event type */
	f.p[aoff + (_i ? 3 : 0)] = PERFRING_TYPE_TRACEPOINT;
	pd = open_mem(f.p, f.len, &fd, &err, &d);
	ck_assert_int_eq(err, 0);
	perfring_perfdata_attr(pd, 0, NULL, NULL, NULL, &name);
	ck_assert_str_eq(name, "legacy:event0");
	perfring_perfdata_close(pd);
	close(fd);
	pdt_free(&f);
}
END_TEST

/* 5. damaged legacy headers: refused, with the offset */
static void expect_bad(const struct pdt_buf *f, uint64_t off, const char *text)
{
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	char msg[1024];
	int fd, err;

	pd = open_mem(f->p, f->len, &fd, &err, &d);
	ck_assert_msg(err == -EBADMSG, "want -EBADMSG, got %d", err);
	ck_assert_ptr_null(pd);
	ck_assert_int_eq(d.error, -EBADMSG);
	ck_assert_msg(d.has_offset && d.offset == off, "offset %llu, want %llu: %s",
		      (unsigned long long)d.offset, (unsigned long long)off,
		      perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_msg(strstr(d.msg, text), "'%s' lacks '%s'", d.msg, text);
	close(fd);
}

START_TEST(test_damaged_header)
{
	struct pdt_buf f, g;
	uint64_t v;

	mk(_i ? "-s" : "", &f);
	g.p = malloc(f.len);
	g.len = g.cap = f.len;
#define RESET() memcpy(g.p, f.p, f.len), g.len = f.len
	RESET();
	g.p[16 + (_i ? 7 : 0)] = 97;		/* attr_size 97: no ABI */
	expect_bad(&g, 16, "attr entry size");
	RESET();
	g.p[8 + (_i ? 7 : 0)] = 90;		/* header size 90 */
	expect_bad(&g, 8, "legacy PERFFILE");
	RESET();
	g.len = 20;				/* ends inside attr_size */
	expect_bad(&g, 16, "file ends inside the legacy PERFFILE header");
	RESET();
	g.len = 40;				/* ends inside the header */
	expect_bad(&g, 16, "file ends inside the 104-byte header");
	RESET();
	memcpy(g.p, "ELIFFREP", 8);
	expect_bad(&g, 0, "ELIFFREP");
	RESET();
	v = _i ? __builtin_bswap64(1ull << 40) : 1ull << 40;
	memcpy(g.p + 24, &v, 8);		/* attrs past the end of the file */
	expect_bad(&g, 24, "attr section");
	RESET();
	v = _i ? __builtin_bswap64(1ull << 40) : 1ull << 40;
	memcpy(g.p + 40, &v, 8);		/* data past the end of the file */
	expect_bad(&g, 40, "data section offset");
#undef RESET
	free(g.p);
	pdt_free(&f);
}
END_TEST

/* 6. every cut of the header and attrs, and flipped bytes: no crash, an
 * error with a message or a clean read */
static void try_bytes(const unsigned char *p, size_t n)
{
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	int fd, err, r;

	pd = open_mem(p, n, &fd, &err, &d);
	if (err) {
		REQUIRE(err < 0 && d.msg[0], "open: %d without a message", err);
	} else {
		while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1)
			REQUIRE(rec.size >= 8, "size");
		REQUIRE(r == 0 || d.msg[0], "next: %d without a message", r);
		perfring_perfdata_close(pd);
	}
	close(fd);
}

START_TEST(test_cut_and_flip)
{
	static const char *const opts[] = { "", "-s", "-H 72 -A 64", "-s -b old" };
	struct pdt_buf f;
	unsigned char *g;
	uint32_t seed = 12345 + (uint32_t)_i;
	size_t n, flips = test_scaled(600);

	mk(opts[_i], &f);
	for (n = 0; n < 1024 && n < f.len; n++)
		try_bytes(f.p, n);
	for (; n < f.len; n += 97)
		try_bytes(f.p, n);
	g = malloc(f.len);
	for (size_t k = 0; k < flips; k++) {
		memcpy(g, f.p, f.len);
		for (int j = 0; j < 3; j++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly the header and attrs, sometimes anywhere */
			size_t at = (seed >> 8) % (k % 4 ? 0x120 : f.len);

			seed = seed * 1103515245u + 12345u;
			g[at] ^= (unsigned char)(1u << ((seed >> 16) % 8));
		}
		try_bytes(g, f.len);
	}
	free(g);
	pdt_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfdata-legacy");
	TCase *tc = tcase_create("legacy");
	int ret;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_layouts, 0, (int)(sizeof(layouts) / sizeof(layouts[0])));
	tcase_add_loop_test(tc, test_attr_sizes, 0, 40);
	tcase_add_loop_test(tc, test_build_ids, 0, 4);
	tcase_add_loop_test(tc, test_event_types, 0, 2);
	tcase_add_loop_test(tc, test_damaged_header, 0, 2);
	tcase_add_loop_test(tc, test_cut_and_flip, 0, 4);
	suite_add_tcase(s, tc);
	ret = test_run_suite(s);
	rmdir(tmpdir);
	return ret;
}
