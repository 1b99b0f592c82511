/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data reader: real perf fixtures (file, pipe, -z, two events, group,
 * --switch-events, -g) compared with perf's own `perf report -D` counts,
 * cross-endian copies, synthesized old formats, truncation at every record
 * boundary, hostile sizes and random corruption.
 *
 * PERFRING_TEST_SCALE (tests/testutil.h, default 1) multiplies the number of random cuts and
 * corruptions.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include <perfring/perfring.h>

#include "pd-testlib.h"
#include "testutil.h"

/*
 * Check records every passing ck_assert (a "mark point" message to the
 * parent, read back quadratically); in the loops that run thousands of
 * times, only failures are reported.
 */
#define REQUIRE(cond, ...) do {					\
	if (!(cond))							\
		ck_abort_msg("failed: " #cond ": " __VA_ARGS__);	\
} while (0)

static const char *fixture(const char *name, const char *ext)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s%s", FIXTURES_DIR, name, ext);
	return path;
}

/* ---- collecting records ------------------------------------------------- */

struct rrec {
	uint64_t offset, inner, extra;
	uint32_t type, size, flags;
	int attr;
	unsigned char *bytes;
};

struct run {
	struct rrec *r;
	size_t n;
	int ret;		/* final return of _next (0 or -errno) */
	struct perfring_diag diag;
	struct perfring_perfdata_stats st;
};

static void run_free(struct run *run)
{
	size_t i;

	for (i = 0; i < run->n; i++)
		free(run->r[i].bytes);
	free(run->r);
	memset(run, 0, sizeof(*run));
}

static void collect(struct perfring_perfdata *pd, struct run *run)
{
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	size_t cap = 0;
	int r;

	memset(run, 0, sizeof(*run));
	while ((r = perfring_perfdata_next(pd, &rec, &run->diag)) == 1) {
		struct rrec *e;

		REQUIRE(((uintptr_t)rec.header & 7) == 0, "unaligned record");
		REQUIRE(rec.header->size == rec.size && rec.header->type == rec.type,
			"record header and info disagree");
		if (run->n == cap) {
			cap = cap ? cap * 2 : 256;
			run->r = realloc(run->r, cap * sizeof(*run->r));
		}
		e = &run->r[run->n++];
		e->offset = rec.offset;
		e->inner = rec.inner_offset;
		e->extra = rec.extra_size;
		e->type = rec.type;
		e->size = rec.size;
		e->flags = rec.flags;
		e->attr = rec.attr_idx;
		e->bytes = malloc(rec.size);
		memcpy(e->bytes, rec.header, rec.size);
	}
	run->ret = r;
	run->st = pd_stats(pd);
	/* errors are sticky */
	REQUIRE(perfring_perfdata_next(pd, &rec, NULL) == (r < 0 ? r : 0), "not sticky");
}

static struct perfring_perfdata *open_mem(const void *p, size_t n, int *fdp,
					  int *err, struct perfring_diag *diag)
{
	struct perfring_perfdata *pd = NULL;
	int fd = pdt_memfd(p, n);
	/* the smallest window: cheaper for the thousands of opens here, and
	 * the decompressed stream of test_zstd_split overflows it often */
	PERFRING_PERFDATA_OPTS(o, .window = 128 << 10);

	*err = perfring_perfdata_open_fd(fd, &o, diag, &pd);
	if (*err) {
		close(fd);
		fd = -1;
	}
	*fdp = fd;
	return pd;
}

static void close_mem(struct perfring_perfdata *pd, int fd)
{
	perfring_perfdata_close(pd);
	if (fd >= 0)
		close(fd);
}

/* ---- 1. real fixtures vs perf report -D ------------------------------- */

static const char *const fixtures[] = {
	"pd-file", "pd-pipe", "pd-zstd", "pd-pipe-zstd", "pd-two", "pd-pipe-two",
	"pd-group", "pd-switch", "pd-callchain", "pd-pipe-tp", "pd-syswide",
	/* the record codec's fixtures (file mode; stats without per-event
	 * blocks): IDENTIFIER, ADDR, CGROUP, REGS, STACK_USER, READ, RAW,
	 * LOST, tracepoint data */
	"rec-plain", "rec-ident", "rec-addr", "rec-callchain", "rec-regs",
	"rec-dwarf", "rec-group", "rec-readone", "rec-raw", "rec-rawsw",
	"rec-lost", "rec-cgroup",
};
#define NFIX (int)(sizeof(fixtures) / sizeof(fixtures[0]))

static int is_zstd(const char *f) { return strstr(f, "zstd") != NULL; }

static int type_by_name(const char *name)
{
	uint32_t t;

	for (t = 0; t < 128; t++)
		if (pdt_type_name(t) && !strcmp(pdt_type_name(t), name))
			return (int)t;
	return -1;
}

/*
 * Compare with the "Aggregated stats" that perf report -D printed when the
 * fixture was made: every type perf lists has our count, every type we
 * counted is listed by perf (perf omits zero counts), TOTAL agrees, and the
 * SAMPLE count of each "EVENT stats:" block matches the SAMPLEs we
 * attributed to the attr of that name.
 */
static void check_stats(const char *name, struct perfring_perfdata *pd,
			const struct run *run)
{
	FILE *f = fopen(fixture(name, ".stats"), "r");
	char line[512], ev[256] = "";
	uint64_t seen[128] = { 0 };
	int section = 0, nev = 0;
	uint32_t t;

	ck_assert_msg(f != NULL, "%s.stats missing", name);
	while (fgets(line, sizeof(line), f)) {
		char tname[64];
		unsigned long long n;

		if (!strncmp(line, "Aggregated stats:", 17)) {
			section = 1;
			continue;
		}
		if (strstr(line, " stats:") && !strstr(line, "events:") &&
		    sscanf(line, "%255s stats:", ev) == 1) {
			section = 2;
			nev++;
			continue;
		}
		if (sscanf(line, " %63s events: %llu", tname, &n) != 2)
			continue;
		if (section == 1) {
			int ty;

			if (!strcmp(tname, "TOTAL")) {
				ck_assert_msg(run->st.total == n, "%s: TOTAL %" PRIu64 " != perf %llu",
					      name, run->st.total, n);
				continue;
			}
			ty = type_by_name(tname);
			ck_assert_msg(ty >= 0, "%s: unknown perf name %s", name, tname);
			ck_assert_msg(run->st.by_type[ty] == n,
				      "%s: %s count %" PRIu64 " != perf %llu", name, tname,
				      run->st.by_type[ty], n);
			seen[ty] = 1;
		} else if (section == 2 && !strcmp(tname, "SAMPLE")) {
			size_t i, a;
			uint64_t cnt = 0;
			const char *an;
			int found = -1;

			for (a = 0; a < perfring_perfdata_nr_attrs(pd); a++) {
				perfring_perfdata_attr(pd, a, NULL, NULL, NULL, &an);
				if (an && !strcmp(an, ev))
					found = (int)a;
			}
			ck_assert_msg(found >= 0, "%s: no attr named %s", name, ev);
			for (i = 0; i < run->n; i++)
				if (run->r[i].type == 9 && run->r[i].attr == found)
					cnt++;
			ck_assert_msg(cnt == n, "%s: %s SAMPLEs %" PRIu64 " != perf %llu",
				      name, ev, cnt, n);
		}
	}
	fclose(f);
	ck_assert_msg(section >= 1, "%s.stats has no Aggregated stats", name);
	for (t = 0; t < 128; t++)
		if (run->st.by_type[t])
			ck_assert_msg(seen[t], "%s: we counted %" PRIu64 " of type %u, perf none",
				      name, run->st.by_type[t], t);
	ck_assert_uint_eq(run->st.other, 0);
	if (!strncmp(name, "pd-", 3)) {
		/* perf lists the events that have samples (not a dummy) */
		size_t a, i;
		int with = 0;

		for (a = 0; a < perfring_perfdata_nr_attrs(pd); a++)
			for (i = 0; i < run->n; i++)
				if (run->r[i].type == 9 && run->r[i].attr == (int)a) {
					with++;
					break;
				}
		ck_assert_int_eq(nev, with);
	}
}

/* Record boundaries: the (offset, size, type) set of pd-NAME.records, as
 * perf report -D printed it (see README-pd-fixtures.md for the rules). */
static int cmp3(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	int i;

	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static size_t uniq3(uint64_t *v, size_t n)
{
	size_t i, o = 0;

	qsort(v, n, 24, cmp3);
	for (i = 0; i < n; i++)
		if (!o || cmp3(v + 3 * i, v + 3 * (o - 1)))
			memmove(v + 3 * o++, v + 3 * i, 24);
	return o;
}

static void check_records(const char *name, int pipe, const struct run *run)
{
	FILE *f = fopen(fixture(name, ".records"), "r");
	uint64_t *perf = calloc(3 * (run->n + 1000), 8), *ours = calloc(3 * (run->n + 1), 8);
	unsigned long long o, sz;
	unsigned t;
	size_t np = 0, no = 0, i;

	ck_assert_msg(f != NULL, "%s.records missing", name);
	while (np < run->n + 1000 && fscanf(f, "%llx %llx %u", &o, &sz, &t) == 3) {
		if (t == PERFRING_RECORD_HEADER_ATTR)
			continue;	/* perf dumps all but the first */
		perf[3 * np] = o;
		perf[3 * np + 1] = sz;
		perf[3 * np++ + 2] = t;
	}
	fclose(f);
	for (i = 0; i < run->n; i++) {
		if (run->r[i].type == PERFRING_RECORD_HEADER_ATTR ||
		    run->r[i].type == PERFRING_RECORD_COMPRESSED)
			continue;
		ours[3 * no] = run->r[i].offset - (pipe ? 16 : 0);
		ours[3 * no + 1] = run->r[i].size;
		ours[3 * no++ + 2] = run->r[i].type;
	}
	np = uniq3(perf, np);
	no = uniq3(ours, no);
	ck_assert_uint_gt(np, 10);
	ck_assert_msg(np == no, "%s: %zu distinct records in perf's dump, %zu here", name, np, no);
	for (i = 0; i < np; i++)
		ck_assert_msg(!cmp3(perf + 3 * i, ours + 3 * i),
			      "%s: perf has 0x%" PRIx64 " [0x%" PRIx64 "] type %" PRIu64
			      ", we have 0x%" PRIx64 " [0x%" PRIx64 "] type %" PRIu64, name,
			      perf[3 * i], perf[3 * i + 1], perf[3 * i + 2],
			      ours[3 * i], ours[3 * i + 1], ours[3 * i + 2]);
	free(perf);
	free(ours);
}

START_TEST(test_fixture_stats)
{
	const char *name = fixtures[_i];
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run run;
	char msg[1024];
	size_t i;
	int r;

#ifndef HAVE_ZSTD
	if (is_zstd(name))
		return;		/* covered by test_no_zstd */
#endif
	r = perfring_perfdata_open(fixture(name, ".data"), NULL, &d, &pd);
	ck_assert_msg(r == 0, "%s: %s", name, perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_int_eq(perfring_perfdata_is_pipe(pd), strstr(name, "pipe") != NULL);
	ck_assert_int_eq(perfring_perfdata_needs_swap(pd), 0);
	collect(pd, &run);
	ck_assert_msg(run.ret == 0, "%s: %d %s", name, run.ret,
		      perfring_diag_format(&run.diag, msg, sizeof(msg)));
	ck_assert_uint_ge(run.n, 10);
	ck_assert_uint_eq(run.st.total, run.n);
	ck_assert_uint_eq(run.st.unknown_id, 0);
	ck_assert_uint_ge(perfring_perfdata_nr_attrs(pd), 1);
	for (i = 0; i < perfring_perfdata_nr_attrs(pd); i++) {
		const char *an = NULL;
		uint32_t nid = 0;

		ck_assert_int_eq(perfring_perfdata_attr(pd, i, NULL, NULL, &nid, &an), 0);
		ck_assert_ptr_nonnull(an);
		ck_assert_uint_ge(nid, 1);
	}
	ck_assert_int_eq(perfring_perfdata_attr(pd, 99, NULL, NULL, NULL, NULL), -ENOENT);
	if (is_zstd(name))
		ck_assert_uint_gt(run.st.from_compressed, 10);
	/* every kernel record got an attr, user records none */
	for (i = 0; i < run.n; i++)
		ck_assert_int_eq(run.r[i].attr >= 0, run.r[i].type < 64);
	check_stats(name, pd, &run);
	if (!strncmp(name, "pd-", 3))
		check_records(name, perfring_perfdata_is_pipe(pd), &run);
	run_free(&run);
	perfring_perfdata_close(pd);
}
END_TEST

/* ---- 2. features ------------------------------------------------------- */

static int feature_text(struct perfring_perfdata *pd, uint32_t id, char *buf, size_t len)
{
	struct perfring_perfdata_feature f = { .sz = sizeof(f) };
	size_t i;

	for (i = 0; i < perfring_perfdata_nr_features(pd); i++) {
		ck_assert_int_eq(perfring_perfdata_feature(pd, i, &f, NULL), 0);
		if (f.id == id)
			return perfring_perfdata_feature_format(pd, &f, buf, len);
	}
	return -ENOENT;
}

START_TEST(test_features)
{
	struct perfring_perfdata *pf, *pp;
	struct run run;
	char a[8192], b[8192], small[8];
	struct perfring_perfdata_feature f = { .sz = sizeof(f) };
	int n;

	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-file", ".data"), NULL, NULL, &pf), 0);
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-pipe", ".data"), NULL, NULL, &pp), 0);
	ck_assert_uint_ge(perfring_perfdata_nr_features(pf), 10);
	ck_assert_uint_eq(perfring_perfdata_nr_features(pp), 0);	/* not read yet */
	collect(pp, &run);
	run_free(&run);
	ck_assert_uint_ge(perfring_perfdata_nr_features(pp), 10);

	/* same machine, same perf: identical texts in file and pipe mode */
	static const uint32_t same[] = { 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 22 };
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		ck_assert_int_gt(feature_text(pf, same[i], a, sizeof(a)), 0);
		ck_assert_int_gt(feature_text(pp, same[i], b, sizeof(b)), 0);
		ck_assert_str_eq(a, b);
		ck_assert_ptr_null(strstr(a, "malformed"));
	}
	feature_text(pf, PERFRING_FEAT_HOSTNAME, a, sizeof(a));
	ck_assert_msg(!strncmp(a, "hostname : ", 11) && strlen(a) > 12, "%s", a);
	feature_text(pf, PERFRING_FEAT_VERSION, a, sizeof(a));
	ck_assert_msg(strstr(a, "perf version : ") == a, "%s", a);
	feature_text(pf, PERFRING_FEAT_NRCPUS, a, sizeof(a));
	ck_assert_msg(strstr(a, "nrcpus online : ") && strstr(a, "nrcpus avail : "), "%s", a);
	feature_text(pf, PERFRING_FEAT_CMDLINE, a, sizeof(a));
	ck_assert_msg(strstr(a, " record ") && strstr(a, "pd-file.data"), "%s", a);
	feature_text(pf, PERFRING_FEAT_EVENT_DESC, a, sizeof(a));
	ck_assert_msg(strstr(a, "name = cpu-clock") && strstr(a, "id = {"), "%s", a);
	feature_text(pf, PERFRING_FEAT_BUILD_ID, a, sizeof(a));
	ck_assert_msg(strstr(a, "build_id : ") && strstr(a, "(pid -1)"), "%s", a);
	feature_text(pf, PERFRING_FEAT_TOTAL_MEM, a, sizeof(a));
	ck_assert_msg(strstr(a, " kB\n"), "%s", a);
	/* CPU_TOPOLOGY needs nr_cpus_avail from NRCPUS for its per-CPU part */
	feature_text(pf, PERFRING_FEAT_CPU_TOPOLOGY, a, sizeof(a));
	ck_assert_msg(strstr(a, "sibling threads : ") && strstr(a, "CPU 0: Core ID "), "%s", a);
	feature_text(pf, PERFRING_FEAT_NUMA_TOPOLOGY, a, sizeof(a));
	ck_assert_msg(strstr(a, "node0 meminfo : total = ") && strstr(a, "cpu list : "), "%s", a);
	feature_text(pf, PERFRING_FEAT_CACHE, a, sizeof(a));
	ck_assert_msg(strstr(a, "\n L1 "), "%s", a);
	feature_text(pf, PERFRING_FEAT_MEM_TOPOLOGY, a, sizeof(a));
	ck_assert_msg(strstr(a, "\n node 0: ") && strstr(a, " MiB\n"), "%s", a);
	feature_text(pf, PERFRING_FEAT_SAMPLE_TIME, a, sizeof(a));
	ck_assert_msg(strstr(a, "sample time : first "), "%s", a);
	feature_text(pf, PERFRING_FEAT_PMU_MAPPINGS, a, sizeof(a));
	ck_assert_msg(strstr(a, "software = 1"), "%s", a);
	ck_assert_int_gt(feature_text(pp, PERFRING_FEAT_EVENT_DESC, a, sizeof(a)), 0);
	ck_assert_msg(strstr(a, "name = cpu-clock"), "%s", a);

	/* snprintf-style truncation */
	n = feature_text(pf, PERFRING_FEAT_HOSTNAME, small, sizeof(small));
	ck_assert_int_gt(n, (int)sizeof(small));
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert_int_eq(perfring_perfdata_feature(pf, 1000, &f, NULL), -ENOENT);
	ck_assert_str_eq(perfring_perfdata_feature_name(PERFRING_FEAT_COMPRESSED), "COMPRESSED");
	ck_assert_ptr_null(perfring_perfdata_feature_name(200));
	perfring_perfdata_close(pf);
	perfring_perfdata_close(pp);

#ifdef HAVE_ZSTD
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-zstd", ".data"), NULL, NULL, &pf), 0);
	ck_assert_int_gt(feature_text(pf, PERFRING_FEAT_COMPRESSED, a, sizeof(a)), 0);
	ck_assert_msg(strstr(a, "compressed : Zstd, level = "), "%s", a);
	perfring_perfdata_close(pf);
#endif
}
END_TEST

/* ---- 3. cross-endian ------------------------------------------------------- */

static const char *const swappable[] = {
	"pd-file", "pd-two", "pd-group", "pd-switch", "pd-callchain", "pd-pipe",
	"pd-pipe-two", "pd-pipe-tp", "pd-syswide",
	"rec-plain", "rec-ident", "rec-addr", "rec-callchain", "rec-regs",
	"rec-dwarf", "rec-group", "rec-readone", "rec-raw", "rec-rawsw",
	"rec-lost", "rec-cgroup",
};

START_TEST(test_swapped)
{
	const char *name = swappable[_i];
	struct pdt_buf in = { 0 }, be = { 0 };
	struct perfring_perfdata *pn, *ps;
	struct perfring_diag d;
	struct run rn, rs;
	char why[256], msg[1024], a[8192], b[8192];
	int fd, err;
	size_t i;

	pdt_slurp(fixture(name, ".data"), &in);
	ck_assert_msg(pdt_swap_perfdata(in.p, in.len, &be, why, sizeof(why)) == 0, "%s", why);
	ck_assert_int_eq(perfring_perfdata_open(fixture(name, ".data"), NULL, NULL, &pn), 0);
	ps = open_mem(be.p, be.len, &fd, &err, &d);
	ck_assert_msg(err == 0, "%s", perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_int_eq(perfring_perfdata_needs_swap(ps), 1);
	collect(pn, &rn);
	collect(ps, &rs);
	ck_assert_msg(rs.ret == 0, "%s", perfring_diag_format(&rs.diag, msg, sizeof(msg)));
	ck_assert_uint_eq(rn.n, rs.n);
	for (i = 0; i < rn.n; i++) {
		size_t cmp = rn.r[i].size;

		ck_assert_uint_eq(rn.r[i].offset, rs.r[i].offset);
		ck_assert_uint_eq(rn.r[i].type, rs.r[i].type);
		ck_assert_uint_eq(rn.r[i].size, rs.r[i].size);
		ck_assert_int_eq(rn.r[i].attr, rs.r[i].attr);
		ck_assert(rs.r[i].flags & PERFRING_PERFDATA_REC_SWAPPED);
		if (rn.r[i].type == PERFRING_RECORD_HEADER_FEATURE)
			cmp = 16;	/* payloads stay in file order */
		ck_assert_msg(!memcmp(rn.r[i].bytes, rs.r[i].bytes, cmp),
			      "%s: record %zu (type %u at 0x%" PRIx64 ") differs after swapping",
			      name, i, rn.r[i].type, rn.r[i].offset);
	}
	ck_assert(!memcmp(rn.st.by_type, rs.st.by_type, sizeof(rn.st.by_type)));
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pn), perfring_perfdata_nr_attrs(ps));
	for (i = 0; i < perfring_perfdata_nr_attrs(pn); i++) {
		const struct perfring_attr *x, *y;
		const uint64_t *ix, *iy;
		uint32_t nx, ny;
		const char *sx, *sy;

		perfring_perfdata_attr(pn, i, &x, &ix, &nx, &sx);
		perfring_perfdata_attr(ps, i, &y, &iy, &ny, &sy);
		ck_assert(!memcmp(x, y, sizeof(*x)));
		ck_assert_uint_eq(nx, ny);
		ck_assert(!memcmp(ix, iy, nx * 8));
		ck_assert_ptr_nonnull(sy);
		ck_assert_str_eq(sx, sy);
	}
	/* every feature the swapper kept renders the same text */
	ck_assert_uint_ge(perfring_perfdata_nr_features(ps), 8);
	for (i = 0; i < perfring_perfdata_nr_features(ps); i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };

		ck_assert_int_eq(perfring_perfdata_feature(ps, i, &f, NULL), 0);
		perfring_perfdata_feature_format(ps, &f, b, sizeof(b));
		ck_assert_int_gt(feature_text(pn, f.id, a, sizeof(a)), 0);
		if (f.id == PERFRING_FEAT_EVENT_DESC || f.id <= 12 || f.id == 21)
			ck_assert_msg(!strcmp(a, b), "%s: feature %u: '%s' vs '%s'", name, f.id, a, b);
	}
	run_free(&rn);
	run_free(&rs);
	perfring_perfdata_close(pn);
	close_mem(ps, fd);
	pdt_free(&in);
	pdt_free(&be);
}
END_TEST

/* ---- 3b. every record type, cross-endian ------------------------------------ */

static void make_attr(unsigned char *a, size_t bytes, uint32_t size_field,
		      uint64_t config, uint64_t st);

#define ST_ALL (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | \
		PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD)

/* A kernel record: header, body (multiple of 8), TID TIME CPU IDENTIFIER trailer */
static void rec_k(struct pdt_buf *b, uint32_t type, uint16_t misc, const void *body,
		  size_t blen)
{
	pdt_u32(b, type);
	pdt_u16(b, misc);
	pdt_u16(b, (uint16_t)(8 + blen + 32));
	pdt_put(b, body, blen);
	pdt_u32(b, 7);			/* pid */
	pdt_u32(b, 8);			/* tid */
	pdt_u64(b, 0x1122334455667788ull);	/* time */
	pdt_u32(b, 1);			/* cpu */
	pdt_u32(b, 0);			/* res */
	pdt_u64(b, 11);			/* identifier */
}

/* A perf-tool record: header and body as given */
static void rec_u(struct pdt_buf *b, uint32_t type, const void *body, size_t blen)
{
	pdt_u32(b, type);
	pdt_u16(b, 0);
	pdt_u16(b, (uint16_t)(8 + blen));
	pdt_put(b, body, blen);
}

START_TEST(test_all_types_swapped)
{
	static unsigned char a0[128];
	const void *attrs[1] = { a0 };
	static const uint64_t i0[] = { 11 };
	const uint64_t *ids[1] = { i0 };
	size_t nids[1] = { 1 };
	static const char host[] = "\x08\0\0\0host\0\0\0\0";
	struct pdt_feat feats[] = { { PERFRING_FEAT_HOSTNAME, host, 12 } };
	struct pdt_buf data = { 0 }, file = { 0 }, be = { 0 }, t = { 0 };
	struct perfring_perfdata *pn, *ps;
	struct perfring_diag d;
	struct run rn, rs;
	uint64_t rf = PERFRING_FORMAT_TOTAL_TIME_ENABLED | PERFRING_FORMAT_ID;
	char why[256], msg[1024];
	int fdn, fds, err;
	size_t i;

	make_attr(a0, 128, 128, 0, ST_ALL);
	memcpy(a0 + 32, &rf, 8);
#define B(...) do { t.len = 0; __VA_ARGS__; } while (0)
	/* SAMPLE: IDENTIFIER IP TID TIME CPU PERIOD */
	B(pdt_u64(&t, 11); pdt_u64(&t, 0x400123); pdt_u32(&t, 7); pdt_u32(&t, 8);
	  pdt_u64(&t, 99); pdt_u32(&t, 1); pdt_u32(&t, 0); pdt_u64(&t, 1000));
	rec_u(&data, PERFRING_RECORD_SAMPLE, t.p, t.len);
	B(pdt_u64(&t, 5); pdt_u64(&t, 11); pdt_u64(&t, 12));
	rec_k(&data, PERFRING_RECORD_THROTTLE, 0, t.p, t.len);
	rec_k(&data, PERFRING_RECORD_UNTHROTTLE, 0, t.p, t.len);
	B(pdt_u32(&t, 7); pdt_u32(&t, 8); pdt_u64(&t, 1234); pdt_u64(&t, 5678); pdt_u64(&t, 11));
	rec_k(&data, PERFRING_RECORD_READ, 0, t.p, t.len);
	B(pdt_u64(&t, 0x1000); pdt_u64(&t, 0x2000); pdt_u64(&t, 0x3));
	rec_k(&data, PERFRING_RECORD_AUX, 0, t.p, t.len);
	B(pdt_u32(&t, 7); pdt_u32(&t, 8));
	rec_k(&data, PERFRING_RECORD_ITRACE_START, 0, t.p, t.len);
	B(pdt_u64(&t, 17));
	rec_k(&data, PERFRING_RECORD_LOST_SAMPLES, 0, t.p, t.len);
	B(pdt_u32(&t, 70); pdt_u32(&t, 71));
	rec_k(&data, PERFRING_RECORD_SWITCH_CPU_WIDE, PERFRING_MISC_SWITCH_OUT, t.p, t.len);
	B(pdt_u64(&t, 0xffffffffa0001000ull); pdt_u32(&t, 0x1234); pdt_u16(&t, 1);
	  pdt_u16(&t, 0); pdt_put(&t, "bpf_prog_x\0\0\0\0\0", 16));
	rec_k(&data, PERFRING_RECORD_KSYMBOL, 0, t.p, t.len);
	B(pdt_u16(&t, 1); pdt_u16(&t, 0); pdt_u32(&t, 42); pdt_put(&t, "TAGTAG!!", 8));
	rec_k(&data, PERFRING_RECORD_BPF_EVENT, 0, t.p, t.len);
	B(pdt_u64(&t, 0xffffffff81000000ull); pdt_u16(&t, 3); pdt_u16(&t, 3);
	  pdt_put(&t, "\x0f\x1f\x00\xe8\x01\x02", 6); pdt_zero(&t, 6));
	rec_k(&data, PERFRING_RECORD_TEXT_POKE, 0, t.p, t.len);
	B(pdt_u64(&t, 3));
	rec_k(&data, PERFRING_RECORD_AUX_OUTPUT_HW_ID, 0, t.p, t.len);
	/* MMAP2 in its build-id form */
	B(pdt_u32(&t, 7); pdt_u32(&t, 8); pdt_u64(&t, 0x400000); pdt_u64(&t, 0x1000);
	  pdt_u64(&t, 0); pdt_put(&t, "\x14\0\0\0", 4);
	  pdt_put(&t, "0123456789abcdefghij", 20); pdt_u32(&t, 5); pdt_u32(&t, 2);
	  pdt_put(&t, "/bin/x\0\0", 8));
	rec_k(&data, PERFRING_RECORD_MMAP2, PERFRING_MISC_MMAP_BUILD_ID | PERFRING_MISC_USER,
	      t.p, t.len);
	/* perf-tool records */
	B(pdt_u32(&t, (uint32_t)-1); pdt_put(&t, "0123456789abcdefghij\x14\0\0\0", 24);
	  pdt_put(&t, "/bin/x\0\0\0\0\0\0", 12));
	rec_u(&data, PERFRING_RECORD_HEADER_BUILD_ID, t.p, t.len);
	B(pdt_u32(&t, 3); pdt_u32(&t, 0); pdt_u64(&t, 1); pdt_u64(&t, 2));
	rec_u(&data, PERFRING_RECORD_AUXTRACE_INFO, t.p, t.len);
	B(pdt_u64(&t, 16); pdt_u64(&t, 0x100); pdt_u64(&t, 0x55); pdt_u32(&t, 0);
	  pdt_u32(&t, 8); pdt_u32(&t, 1); pdt_u32(&t, 0));
	rec_u(&data, PERFRING_RECORD_AUXTRACE, t.p, t.len);
	pdt_put(&data, "AUX-DATA-16-BYTE", 16);
	B(pdt_u32(&t, 1); pdt_u32(&t, 2); pdt_u32(&t, 1); pdt_u32(&t, 7); pdt_u32(&t, 8);
	  pdt_u32(&t, 2); pdt_u64(&t, 0x400123); pdt_u64(&t, 99);
	  pdt_put(&t, "decoder error", 14); pdt_zero(&t, 50); pdt_u32(&t, 3); pdt_u32(&t, 4));
	rec_u(&data, PERFRING_RECORD_AUXTRACE_ERROR, t.p, t.len);
	B(pdt_u64(&t, 2); pdt_u64(&t, 1); pdt_u64(&t, 100); pdt_u64(&t, 2); pdt_u64(&t, 200));
	rec_u(&data, PERFRING_RECORD_STAT_CONFIG, t.p, t.len);
	B(pdt_u64(&t, 11); pdt_u32(&t, 1); pdt_u32(&t, 2); pdt_u64(&t, 3); pdt_u64(&t, 4);
	  pdt_u64(&t, 5));
	rec_u(&data, PERFRING_RECORD_STAT, t.p, t.len);
	B(pdt_u64(&t, 1); pdt_u64(&t, 99));
	rec_u(&data, PERFRING_RECORD_STAT_ROUND, t.p, t.len);
	{
		double scale = 0.5;

		B(pdt_u64(&t, 1); pdt_u64(&t, 11); pdt_put(&t, &scale, 8));
		rec_u(&data, PERFRING_RECORD_EVENT_UPDATE, t.p, t.len);
	}
	B(pdt_u64(&t, 0); pdt_u64(&t, 11); pdt_put(&t, "msec\0\0\0\0", 8));
	rec_u(&data, PERFRING_RECORD_EVENT_UPDATE, t.p, t.len);
	B(pdt_u64(&t, 3); pdt_u64(&t, 11); pdt_u16(&t, 0); pdt_u16(&t, 2); pdt_u16(&t, 0);
	  pdt_u16(&t, 1));
	rec_u(&data, PERFRING_RECORD_EVENT_UPDATE, t.p, t.len);
	B(pdt_u16(&t, 1); pdt_u16(&t, 1); pdt_u16(&t, 8); pdt_zero(&t, 4); pdt_u64(&t, 3);
	  pdt_zero(&t, 6));
	rec_u(&data, PERFRING_RECORD_CPU_MAP, t.p, t.len);
	B(pdt_u16(&t, 1); pdt_u16(&t, 2); pdt_u16(&t, 4); pdt_u32(&t, 3); pdt_u32(&t, 0);
	  pdt_zero(&t, 2));
	rec_u(&data, PERFRING_RECORD_CPU_MAP, t.p, t.len);
	B(pdt_u64(&t, 10); pdt_u64(&t, 20); pdt_u64(&t, 30); pdt_u64(&t, 40); pdt_u64(&t, 50);
	  pdt_put(&t, "\1\1\0\0\0\0\0\0", 8));
	rec_u(&data, PERFRING_RECORD_TIME_CONV, t.p, t.len);
#undef B
	pdt_build(&file, 104, 128, 1, attrs, ids, nids, data.p, data.len, feats, 1);
	ck_assert_msg(pdt_swap_perfdata(file.p, file.len, &be, why, sizeof(why)) == 0, "%s", why);
	pn = open_mem(file.p, file.len, &fdn, &err, &d);
	ck_assert_int_eq(err, 0);
	ps = open_mem(be.p, be.len, &fds, &err, &d);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(perfring_perfdata_needs_swap(ps), 1);
	collect(pn, &rn);
	collect(ps, &rs);
	ck_assert_msg(rn.ret == 0, "%s", perfring_diag_format(&rn.diag, msg, sizeof(msg)));
	ck_assert_msg(rs.ret == 0, "%s", perfring_diag_format(&rs.diag, msg, sizeof(msg)));
	ck_assert_uint_eq(rn.n, 26);
	ck_assert_uint_eq(rn.n, rs.n);
	for (i = 0; i < rn.n; i++) {
		size_t k;

		ck_assert_uint_eq(rn.r[i].size, rs.r[i].size);
		ck_assert_int_eq(rn.r[i].attr, rs.r[i].attr);
		for (k = 0; k < rn.r[i].size; k++)
			ck_assert_msg(rn.r[i].bytes[k] == rs.r[i].bytes[k],
				      "record %zu (type %u): byte %zu is 0x%02x, want 0x%02x",
				      i, rn.r[i].type, k, rs.r[i].bytes[k], rn.r[i].bytes[k]);
		ck_assert_uint_eq(rn.r[i].extra, rs.r[i].extra);
	}
	run_free(&rn);
	run_free(&rs);
	close_mem(pn, fdn);
	close_mem(ps, fds);
	pdt_free(&data);
	pdt_free(&file);
	pdt_free(&be);
	pdt_free(&t);
}
END_TEST

/* ---- 4. synthesized old formats ------------------------------------------ */

#define ST_OLD (PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | \
		PERFRING_SAMPLE_ID | PERFRING_SAMPLE_PERIOD)

static void make_attr(unsigned char *a, size_t bytes, uint32_t size_field,
		      uint64_t config, uint64_t st)
{
	memset(a, 0, bytes);
	uint32_t type = PERFRING_TYPE_SOFTWARE;
	uint64_t flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_COMM |
			 PERFRING_ATTR_DISABLED;
	uint64_t period = 100000;

	memcpy(a, &type, 4);
	memcpy(a + 4, &size_field, 4);
	memcpy(a + 8, &config, 8);
	memcpy(a + 16, &period, 8);
	memcpy(a + 24, &st, 8);
	memcpy(a + 40, &flags, 8);
	if (bytes >= 136) {
		uint64_t c3 = 0x3333;

		memcpy(a + 128, &c3, 8);	/* config3 */
	}
	if (bytes > 136)
		memset(a + 136, 0xee, bytes - 136);	/* unknown future fields */
}

/* COMM with a TID|TIME|ID trailer, SAMPLE with IP|TID|TIME|ID|PERIOD */
static void rec_comm(struct pdt_buf *b, uint32_t pid, const char *comm, uint64_t id)
{
	pdt_u32(b, PERFRING_RECORD_COMM);
	pdt_u16(b, 0);
	pdt_u16(b, 8 + 8 + 16 + 24);
	pdt_u32(b, pid);
	pdt_u32(b, pid);
	{
		char c[16] = { 0 };

		strncpy(c, comm, 15);
		pdt_put(b, c, 16);
	}
	pdt_u32(b, pid);
	pdt_u32(b, pid);
	pdt_u64(b, 1000);
	pdt_u64(b, id);
}

static void rec_sample(struct pdt_buf *b, uint64_t ip, uint32_t pid, uint64_t t, uint64_t id)
{
	pdt_u32(b, PERFRING_RECORD_SAMPLE);
	pdt_u16(b, PERFRING_MISC_USER);
	pdt_u16(b, 48);
	pdt_u64(b, ip);
	pdt_u32(b, pid);
	pdt_u32(b, pid);
	pdt_u64(b, t);
	pdt_u64(b, id);
	pdt_u64(b, 100000);
}

static void rec_empty(struct pdt_buf *b, uint32_t type)
{
	pdt_u32(b, type);
	pdt_u16(b, 0);
	pdt_u16(b, 8);
}

/* every VER size, 0 (= VER0), one from the future, and the largest accepted */
static const uint32_t old_sizes[] = { 0, 64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 4096 };
#define NOLD (int)(sizeof(old_sizes) / sizeof(old_sizes[0]))

START_TEST(test_old_formats)
{
	uint32_t sz = old_sizes[_i % NOLD];
	size_t hdr = _i < NOLD ? 104 : 72;
	size_t bytes = sz ? sz : 64;
	static unsigned char a0[4096], a1[4096];
	const void *attrs[2] = { a0, a1 };
	uint64_t i0[] = { 11, 12 }, i1[] = { 21 };
	const uint64_t *ids[2] = { i0, i1 };
	size_t nids[2] = { 2, 1 };
	struct pdt_buf data = { 0 }, file = { 0 };
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run run;
	char msg[1024];
	int fd, err;

	make_attr(a0, bytes, sz, 0, ST_OLD);
	make_attr(a1, bytes, sz, 1, ST_OLD);
	rec_comm(&data, 42, "prog", 21);
	rec_sample(&data, 0x1000, 42, 2000, 11);
	rec_sample(&data, 0x2000, 42, 2001, 21);
	rec_sample(&data, 0x3000, 42, 2002, 12);
	rec_empty(&data, PERFRING_RECORD_FINISHED_ROUND);
	pdt_build(&file, hdr, bytes, 2, attrs, ids, nids, data.p, data.len, NULL, 0);
	{
		/* perf 3.x event_types section: {u64 config, char name[64]} */
		uint64_t et[2] = { file.len, 2 * 72 };
		char nm[64] = "ev-one";

		memcpy(file.p + 56, et, 16);
		pdt_u64(&file, 1);
		pdt_put(&file, nm, 64);
		strcpy(nm, "ev-zero");
		pdt_u64(&file, 0);
		pdt_put(&file, nm, 64);
	}

	pd = open_mem(file.p, file.len, &fd, &err, &d);
	ck_assert_msg(err == 0, "size %u hdr %zu: %s", sz, hdr,
		      perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_uint_eq(perfring_perfdata_header(pd)->header_size, hdr);
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct perfring_attr *a;
		const uint64_t *id;
		uint32_t n;

		const char *nm;

		perfring_perfdata_attr(pd, i, &a, &id, &n, &nm);
		ck_assert_str_eq(nm, i ? "ev-one" : "ev-zero");
		ck_assert_uint_eq(a->size, sz);		/* kept as in the file */
		ck_assert_uint_eq(a->config, i);
		ck_assert_uint_eq(a->sample_type, ST_OLD);
		ck_assert_uint_eq(a->sample_period, 100000);
		ck_assert(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL);
		ck_assert_uint_eq(a->config3, bytes >= 136 ? 0x3333 : 0);
		ck_assert_uint_eq(n, nids[i]);
		ck_assert_uint_eq(id[0], ids[i][0]);
	}
	ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 12), 0);
	ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 21), 1);
	ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 99), -ENOENT);
	collect(pd, &run);
	ck_assert_int_eq(run.ret, 0);
	ck_assert_uint_eq(run.n, 5);
	ck_assert_int_eq(run.r[0].attr, 1);	/* COMM: trailer id 21 */
	ck_assert_int_eq(run.r[1].attr, 0);
	ck_assert_int_eq(run.r[2].attr, 1);
	ck_assert_int_eq(run.r[3].attr, 0);
	ck_assert_int_eq(run.r[4].attr, -1);
	ck_assert_uint_eq(run.r[0].offset, perfring_perfdata_header(pd)->data_offset);
	ck_assert(!memcmp(run.r[1].bytes, data.p + 56, 48));
	ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 0);
	run_free(&run);
	close_mem(pd, fd);
	pdt_free(&data);
	pdt_free(&file);
}
END_TEST

/* ---- 5. pipe HEADER_ATTR sizes, odd-sized features ------------------------ */

static void rec_header_attr(struct pdt_buf *b, const unsigned char *attr, size_t span,
			    const uint64_t *ids, size_t n)
{
	pdt_u32(b, PERFRING_RECORD_HEADER_ATTR);
	pdt_u16(b, 0);
	pdt_u16(b, (uint16_t)(8 + span + 8 * n));
	pdt_put(b, attr, span);
	pdt_put(b, ids, 8 * n);
}

START_TEST(test_pipe_attrs)
{
	struct pdt_buf s = { 0 };
	unsigned char a0[136], a1[136];
	uint64_t i0[] = { 7, 8 }, i1[] = { 9, 10 };
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run run;
	char msg[1024];
	int fd, err;
	uint32_t n;
	const uint64_t *ids;
	const struct perfring_attr *a;

	pdt_put(&s, "PERFILE2", 8);
	pdt_u64(&s, 16);
	/* perf < 6.6 style: attr.size says 64, the attr occupies 128 bytes */
	make_attr(a0, 128, 64, 0, ST_OLD);
	memset(a0 + 64, 0, 64);
	rec_header_attr(&s, a0, 128, i0, 2);
	/* exact: attr.size 120 */
	make_attr(a1, 120, 120, 1, ST_OLD);
	rec_header_attr(&s, a1, 120, i1, 2);
	/* a HEADER_FEATURE of 8 + 8 + 13 bytes: later records are unaligned */
	pdt_u32(&s, PERFRING_RECORD_HEADER_FEATURE);
	pdt_u16(&s, 0);
	pdt_u16(&s, 29);
	pdt_u64(&s, PERFRING_FEAT_HOSTNAME);
	pdt_u32(&s, 9);
	pdt_put(&s, "odd-host", 9);
	/* perf 3.x pipe event name: HEADER_EVENT_TYPE {config, name[64]} */
	pdt_u32(&s, PERFRING_RECORD_HEADER_EVENT_TYPE);
	pdt_u16(&s, 0);
	pdt_u16(&s, 8 + 8 + 64);
	pdt_u64(&s, 1);
	{
		char nm[64] = "pipe-one";

		pdt_put(&s, nm, 64);
	}
	rec_comm(&s, 5, "x", 10);
	rec_sample(&s, 0x1, 5, 1, 8);
	rec_sample(&s, 0x2, 5, 2, 9);
	rec_empty(&s, PERFRING_RECORD_FINISHED_INIT);

	pd = open_mem(s.p, s.len, &fd, &err, &d);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(perfring_perfdata_is_pipe(pd), 1);
	collect(pd, &run);
	ck_assert_msg(run.ret == 0, "%s", perfring_diag_format(&run.diag, msg, sizeof(msg)));
	ck_assert_uint_eq(run.n, 8);
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), 2);
	{
		const char *nm;

		perfring_perfdata_attr(pd, 1, NULL, NULL, NULL, &nm);
		ck_assert_str_eq(nm, "pipe-one");
		perfring_perfdata_attr(pd, 0, NULL, NULL, NULL, &nm);
		ck_assert_ptr_null(nm);
	}
	perfring_perfdata_attr(pd, 0, &a, &ids, &n, NULL);
	ck_assert_uint_eq(a->size, 64);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[0], 7);
	ck_assert_uint_eq(ids[1], 8);
	perfring_perfdata_attr(pd, 1, &a, &ids, &n, NULL);
	ck_assert_uint_eq(a->size, 120);
	ck_assert_uint_eq(a->config, 1);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[1], 10);
	ck_assert_uint_eq(run.r[4].offset % 8, 5);	/* unaligned in the stream */
	ck_assert_int_eq(run.r[4].attr, 1);
	ck_assert_int_eq(run.r[5].attr, 0);
	ck_assert_int_eq(run.r[6].attr, 1);
	ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 1);
	ck_assert_int_gt(feature_text(pd, PERFRING_FEAT_HOSTNAME, msg, sizeof(msg)), 0);
	ck_assert_str_eq(msg, "hostname : odd-host\n");
	run_free(&run);
	close_mem(pd, fd);
	pdt_free(&s);
}
END_TEST

/* Pointers to attrs and names survive later HEADER_ATTRs and renames. */
START_TEST(test_pipe_pointers)
{
	struct pdt_buf s = { 0 };
	unsigned char a[136];
	uint64_t id;
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	const struct perfring_attr *held = NULL, *rec_attr = NULL;
	const char *held_name = NULL;
	struct perfring_diag d;
	int fd, err, k, r;

	pdt_put(&s, "PERFILE2", 8);
	pdt_u64(&s, 16);
	for (k = 0; k < 9; k++) {
		make_attr(a, 128, 128, (uint64_t)k, ST_OLD);
		id = 100 + (uint64_t)k;
		rec_header_attr(&s, a, 128, &id, 1);
		if (k == 0)
			rec_sample(&s, 0x1, 5, 1, 100);
		/* EVENT_UPDATE NAME for attr 0, again and again */
		pdt_u32(&s, PERFRING_RECORD_EVENT_UPDATE);
		pdt_u16(&s, 0);
		pdt_u16(&s, 8 + 16 + 16);
		pdt_u64(&s, 2);
		pdt_u64(&s, 100);
		pdt_put(&s, k % 2 ? "name-odd\0\0\0\0\0\0\0" : "name-even\0\0\0\0\0\0", 16);
	}
	pd = open_mem(s.p, s.len, &fd, &err, &d);
	ck_assert_int_eq(err, 0);
	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		if (!held && perfring_perfdata_nr_attrs(pd) == 1)
			perfring_perfdata_attr(pd, 0, &held, NULL, NULL, NULL);
		if (rec.type == PERFRING_RECORD_SAMPLE)
			rec_attr = rec.attr;
		if (!held_name && perfring_perfdata_nr_attrs(pd) == 2)
			perfring_perfdata_attr(pd, 0, NULL, NULL, NULL, &held_name);
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), 9);
	ck_assert_ptr_nonnull(held);
	ck_assert_ptr_eq(held, rec_attr);
	ck_assert_uint_eq(held->config, 0);		/* still readable */
	ck_assert_str_eq(held_name, "name-even");	/* still readable */
	{
		const struct perfring_attr *now;
		const char *nm;

		perfring_perfdata_attr(pd, 0, &now, NULL, NULL, &nm);
		ck_assert_ptr_eq(now, held);
		ck_assert_str_eq(nm, "name-even");
		perfring_perfdata_attr(pd, 8, &now, NULL, NULL, &nm);
		ck_assert_uint_eq(now->config, 8);
	}
	close_mem(pd, fd);
	pdt_free(&s);
}
END_TEST

/* ---- 6. a real pipe -------------------------------------------------------- */

/* Feed b through a pipe from a child, in writes of `chunk` bytes. */
static pid_t feed_buf(const struct pdt_buf *b, size_t chunk, int *rfd)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t off = 0;

		close(p[0]);
		while (off < b->len) {
			size_t n = b->len - off < chunk ? b->len - off : chunk;
			ssize_t w = write(p[1], b->p + off, n);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

/* Feed the file through a pipe, dribbled in small pieces so that reads
 * come back short. */
static pid_t feed_pipe(const char *path, int *rfd)
{
	struct pdt_buf b = { 0 };
	pid_t pid;

	pdt_slurp(path, &b);
	pid = feed_buf(&b, 777, rfd);
	pdt_free(&b);
	return pid;
}

START_TEST(test_real_pipe)
{
	struct perfring_perfdata *pd, *pf;
	struct perfring_diag d;
	struct run rp, rf;
	char msg[1024];
	int fd, st;
	pid_t pid;

	pid = feed_pipe(fixture("pd-pipe-two", ".data"), &fd);
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), 0);
	collect(pd, &rp);
	ck_assert_msg(rp.ret == 0, "%s", perfring_diag_format(&rp.diag, msg, sizeof(msg)));
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-pipe-two", ".data"), NULL, NULL, &pf), 0);
	collect(pf, &rf);
	ck_assert_uint_eq(rp.n, rf.n);
	ck_assert(!memcmp(&rp.st, &rf.st, sizeof(rp.st)));
	perfring_perfdata_close(pd);
	perfring_perfdata_close(pf);
	close(fd);
	waitpid(pid, &st, 0);
	run_free(&rp);
	run_free(&rf);

	/* file mode needs seeking */
	pid = feed_pipe(fixture("pd-file", ".data"), &fd);
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), -ESPIPE);
	ck_assert_ptr_nonnull(strstr(d.msg, "non-seekable"));
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}
END_TEST

/* ---- 7. truncation ------------------------------------------------------- */

static const char *const cut_fixtures[] = { "pd-file", "pd-pipe", "pd-zstd", "pd-pipe-zstd",
					    "pd-two", "pd-pipe-tp" };

/* Open the first `cut` bytes; the records returned must be exactly those of
 * the full run that lie (with their COMPRESSED container) before the cut,
 * then an error naming an offset <= cut (or, in pipe mode, a clean end when
 * the cut falls on a record boundary). */
static void check_cut(const char *name, const struct pdt_buf *all, const struct run *full,
		      const uint64_t *need, size_t cut, int pipe, uint64_t data_off,
		      uint64_t data_end)
{
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run run;
	size_t expect = 0, i;
	int fd, err;
	char msg[1024];

	memset(&d, 0, sizeof(d));
	pd = open_mem(all->p, cut, &fd, &err, &d);
	if (err) {
		REQUIRE(cut < (pipe ? 16 : data_off) && err < 0 && d.msg[0],
			"%s: cut %zu: open failed: %s", name, cut,
			perfring_diag_format(&d, msg, sizeof(msg)));
		return;
	}
	while (expect < full->n && need[expect] <= cut)
		expect++;
	/* compare as we go (no copies: this runs thousands of times) */
	memset(&run, 0, sizeof(run));
	for (;;) {
		struct perfring_perfdata_record rec = { .sz = sizeof(rec) };

		run.ret = perfring_perfdata_next(pd, &rec, &run.diag);
		if (run.ret != 1)
			break;
		REQUIRE(run.n < expect, "%s: cut at %zu: record %zu (type %u at 0x%" PRIx64
			") returned, only %zu lie before the cut", name, cut, run.n,
			rec.type, rec.offset, expect);
		REQUIRE(rec.offset == full->r[run.n].offset && rec.size == full->r[run.n].size &&
			!memcmp(rec.header, full->r[run.n].bytes, rec.size),
			"%s: cut at %zu: record %zu differs", name, cut, run.n);
		run.n++;
	}
	REQUIRE(run.n == expect, "%s: cut at %zu: %zu records, want %zu (ret %d %s)",
		name, cut, run.n, expect, run.ret,
		perfring_diag_format(&run.diag, msg, sizeof(msg)));
	if (run.ret == 0) {
		/* pipe mode cannot tell a cut at a record boundary from the
		 * end; file mode is complete once the data section is */
		int boundary = cut == all->len || (pipe && cut == 16) ||
			       (!pipe && cut >= data_end);

		for (i = 0; i < full->n && !boundary; i++)
			if (!(full->r[i].flags & PERFRING_PERFDATA_REC_COMPRESSED) &&
			    full->r[i].offset + full->r[i].size + full->r[i].extra == cut)
				boundary = 1;
		REQUIRE(boundary && (pipe || cut >= data_end), "%s: cut at %zu: no error",
			name, cut);
	} else {
		REQUIRE(run.ret == -EBADMSG && run.diag.has_offset && run.diag.offset <= cut &&
			run.diag.file[0], "%s: cut at %zu: ret %d, diag %s", name, cut, run.ret,
			perfring_diag_format(&run.diag, msg, sizeof(msg)));
	}
	close_mem(pd, fd);
}

static void cut_setup(const char *name, struct pdt_buf *all, struct run *full,
		      uint64_t **need, int *pipe, uint64_t *data_off, uint64_t *data_end)
{
	struct perfring_perfdata *pd;
	uint64_t cont = 0;
	size_t i;

	pdt_slurp(fixture(name, ".data"), all);
	ck_assert_int_eq(perfring_perfdata_open(fixture(name, ".data"), NULL, NULL, &pd), 0);
	*pipe = perfring_perfdata_is_pipe(pd);
	*data_off = perfring_perfdata_header(pd)->data_offset;
	*data_end = *data_off + perfring_perfdata_header(pd)->data_size;
	collect(pd, full);
	ck_assert_int_eq(full->ret, 0);
	perfring_perfdata_close(pd);
	*need = calloc(full->n, sizeof(**need));
	for (i = 0; i < full->n; i++) {
		if (!(full->r[i].flags & PERFRING_PERFDATA_REC_COMPRESSED))
			cont = full->r[i].offset + full->r[i].size + full->r[i].extra;
		(*need)[i] = cont;
	}
}

START_TEST(test_truncate_boundaries)
{
	const char *name = cut_fixtures[_i];
	struct pdt_buf all = { 0 };
	struct run full;
	uint64_t *need, data_off, data_end;
	int pipe, k;
	size_t i;

#ifndef HAVE_ZSTD
	if (is_zstd(name))
		return;
#endif
	cut_setup(name, &all, &full, &need, &pipe, &data_off, &data_end);
	for (i = 0; i < full.n; i++) {
		if (full.r[i].flags & PERFRING_PERFDATA_REC_COMPRESSED)
			continue;
		for (k = -7; k <= 7; k++) {
			int64_t cut = (int64_t)full.r[i].offset + k;

			if (cut < 0 || (uint64_t)cut >= all.len)
				continue;
			check_cut(name, &all, &full, need, (size_t)cut, pipe, data_off, data_end);
		}
	}
	free(need);
	run_free(&full);
	pdt_free(&all);
}
END_TEST

START_TEST(test_truncate_random)
{
	const char *name = cut_fixtures[_i];
	struct pdt_buf all = { 0 };
	struct run full;
	uint64_t *need, data_off, data_end;
	int pipe, k, n = (int)test_scaled(500);

#ifndef HAVE_ZSTD
	if (is_zstd(name))
		return;
#endif
	srand(1234 + _i);
	cut_setup(name, &all, &full, &need, &pipe, &data_off, &data_end);
	for (k = 0; k < n; k++)
		check_cut(name, &all, &full, need, (size_t)rand() % all.len, pipe, data_off,
			  data_end);
	free(need);
	run_free(&full);
	pdt_free(&all);
}
END_TEST

/* ---- 8. hostile input ------------------------------------------------------ */

/* A small valid file-mode perf.data, to be damaged by the tests. */
static void base_file(struct pdt_buf *file, struct pdt_buf *data, size_t *rec_off)
{
	static unsigned char a0[128];
	const void *attrs[1] = { a0 };
	static const uint64_t i0[] = { 11 };
	const uint64_t *ids[1] = { i0 };
	size_t nids[1] = { 1 };
	static const char host[] = "\x08\0\0\0host\0\0\0\0";
	struct pdt_feat feats[] = { { PERFRING_FEAT_HOSTNAME, host, 12 } };

	make_attr(a0, 128, 128, 0, ST_OLD);
	data->len = 0;
	rec_comm(data, 42, "prog", 11);
	rec_sample(data, 0x1000, 42, 2000, 11);
	rec_sample(data, 0x2000, 42, 2001, 11);
	pdt_build(file, 104, 128, 1, attrs, ids, nids, data->p, data->len, feats, 1);
	*rec_off = file->len - data->len - 16 - 12;	/* data offset */
}

static int open_err(const struct pdt_buf *f, struct perfring_diag *d)
{
	struct perfring_perfdata *pd;
	int fd, err;

	memset(d, 0, sizeof(*d));
	pd = open_mem(f->p, f->len, &fd, &err, d);
	if (!err)
		close_mem(pd, fd);
	return err;
}

static int next_err(const struct pdt_buf *f, struct perfring_diag *d, size_t *nrec)
{
	struct perfring_perfdata *pd;
	struct run run;
	int fd, err;

	memset(d, 0, sizeof(*d));
	pd = open_mem(f->p, f->len, &fd, &err, d);
	ck_assert_int_eq(err, 0);
	collect(pd, &run);
	*d = run.diag;
	*nrec = run.n;
	err = run.ret;
	run_free(&run);
	close_mem(pd, fd);
	return err;
}

START_TEST(test_hostile)
{
	struct pdt_buf f = { 0 }, data = { 0 }, g = { 0 };
	struct perfring_diag d;
	size_t doff, n;
	uint64_t v;
	uint32_t v32;
	uint16_t v16;

	base_file(&f, &data, &doff);
	ck_assert_int_eq(next_err(&f, &d, &n), 0);
	ck_assert_uint_eq(n, 3);

#define COPY() do { g.len = 0; pdt_put(&g, f.p, f.len); } while (0)
	/* record sizes 0 and 4 at the second record: one record, then error */
	for (v16 = 0; v16 < 8; v16 += 4) {
		COPY();
		memcpy(g.p + doff + 56 + 6, &v16, 2);
		ck_assert_int_eq(next_err(&g, &d, &n), -EBADMSG);
		ck_assert_uint_eq(n, 1);
		ck_assert(d.has_offset);
		ck_assert_uint_eq(d.offset, doff + 56);
		ck_assert_ptr_nonnull(strstr(d.msg, "< 8"));
	}
	/* size running past the data section */
	COPY();
	v16 = 0xfff8;
	memcpy(g.p + doff + 56 + 6, &v16, 2);
	ck_assert_int_eq(next_err(&g, &d, &n), -EBADMSG);
	ck_assert_uint_eq(d.offset, doff + 56);
	ck_assert_ptr_nonnull(strstr(d.msg, "past the end"));
	/* data.size huge: records, then "file ends" */
	COPY();
	v = 1ull << 40;
	memcpy(g.p + 48, &v, 8);
	ck_assert_int_eq(next_err(&g, &d, &n), -EBADMSG);
	ck_assert_uint_ge(n, 3);
	/* data.size 0 (perf was killed) and no features: read to the end */
	{
		struct pdt_buf h = { 0 };
		static unsigned char a0[128];
		const void *attrs[1] = { a0 };
		static const uint64_t i0[] = { 11 };
		const uint64_t *ids[1] = { i0 };
		size_t nids[1] = { 1 };

		make_attr(a0, 128, 128, 0, ST_OLD);
		pdt_build(&h, 104, 128, 1, attrs, ids, nids, data.p, data.len, NULL, 0);
		v = 0;
		memcpy(h.p + 48, &v, 8);
		ck_assert_int_eq(next_err(&h, &d, &n), 0);
		ck_assert_uint_eq(n, 3);
		pdt_free(&h);
	}
	/* data offset outside the file */
	COPY();
	v = 1ull << 40;
	memcpy(g.p + 40, &v, 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 40);
	/* bad attr sizes: 63, 65, 4104, and a size larger than the section */
	{
		static const uint32_t bad[] = { 63, 65, 4104, 1024 };
		size_t aoff;

		memcpy(&v, f.p + 24, 8);
		aoff = (size_t)v;
		for (size_t i = 0; i < 4; i++) {
			COPY();
			v32 = bad[i];
			memcpy(g.p + aoff + 4, &v32, 4);
			ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
			ck_assert(d.has_offset);
			ck_assert_uint_eq(d.offset, aoff + 4);
		}
		/* ids section outside the file */
		COPY();
		v = 1ull << 50;
		memcpy(g.p + aoff + 128, &v, 8);
		ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
		ck_assert_ptr_nonnull(strstr(d.msg, "ids"));
		/* ids size huge */
		COPY();
		v = 1ull << 50;
		memcpy(g.p + aoff + 136, &v, 8);
		ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	}
	/* attr_size 0 with attrs */
	COPY();
	v = 0;
	memcpy(g.p + 16, &v, 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	/* header size 50, 1<<40 */
	COPY();
	v = 50;
	memcpy(g.p + 8, &v, 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	v = 1ull << 40;
	memcpy(g.p + 8, &v, 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	/* bad magic, legacy magic, empty, 9 bytes */
	COPY();
	memcpy(g.p, "PERFILE3", 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.msg, "not a perf.data"));
	memcpy(g.p, "PERFFILE", 8);
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.msg, "legacy"));
	g.len = 0;
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	g.len = 9;
	ck_assert_int_eq(open_err(&g, &d), -EBADMSG);
	/* feature table entry pointing outside the file */
	{
		struct perfring_perfdata *pd;
		struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
		int fd, err;

		COPY();
		v = 1ull << 45;
		memcpy(g.p + doff + data.len, &v, 8);
		pd = open_mem(g.p, g.len, &fd, &err, &d);
		ck_assert_int_eq(err, 0);
		ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 1);
		ck_assert_int_eq(perfring_perfdata_feature(pd, 0, &ft, &d), -EBADMSG);
		ck_assert_uint_eq(d.offset, 1ull << 45);
		/* the check without a read says the same */
		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_perfdata_check_features(pd, &d), -EBADMSG);
		ck_assert_uint_eq(d.offset, 1ull << 45);
		ck_assert_ptr_nonnull(strstr(d.msg, "lies outside the file"));
		close_mem(pd, fd);
	}
	/* the feature table cut at every byte: the entries before the cut */
	{
		static unsigned char a0[128];
		const void *attrs[1] = { a0 };
		static const uint64_t i0[] = { 11 };
		const uint64_t *ids[1] = { i0 };
		size_t nids[1] = { 1 }, tab;
		static const char host[] = "\x08\0\0\0host\0\0\0\0";
		struct pdt_feat feats[] = { { PERFRING_FEAT_HOSTNAME, host, 12 },
					    { PERFRING_FEAT_OSRELEASE, host, 12 },
					    { PERFRING_FEAT_ARCH, host, 12 } };
		struct pdt_buf h = { 0 };

		make_attr(a0, 128, 128, 0, ST_OLD);
		pdt_build(&h, 104, 128, 1, attrs, ids, nids, data.p, data.len, feats, 3);
		tab = h.len - 3 * 16 - 3 * 12;
		for (size_t cut = tab; cut <= tab + 3 * 16; cut++) {
			struct perfring_perfdata *pd;
			struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
			size_t whole = (cut - tab) / 16;
			int fd, err;

			pd = open_mem(h.p, cut, &fd, &err, &d);
			ck_assert_int_eq(err, 0);
			ck_assert_uint_eq(perfring_perfdata_nr_features(pd), whole);
			if (whole < 3) {
				memset(&d, 0, sizeof(d));
				ck_assert_int_eq(perfring_perfdata_feature(pd, (uint32_t)whole, &ft, &d),
						 -EBADMSG);
				ck_assert_uint_eq(d.offset, tab + 16 * whole);
				ck_assert_ptr_nonnull(strstr(d.msg, "feature table entry"));
				/* one check, the same offset, with the counts */
				memset(&d, 0, sizeof(d));
				ck_assert_int_eq(perfring_perfdata_check_features(pd, &d), -EBADMSG);
				ck_assert_uint_eq(d.offset, tab + 16 * whole);
				ck_assert_ptr_nonnull(strstr(d.msg, "ends after"));
			} else {
				/* whole table, sections past the cut */
				ck_assert_int_eq(perfring_perfdata_check_features(pd, NULL), -EBADMSG);
			}
			/* their payloads lie past the cut */
			for (size_t k = 0; k < whole; k++)
				ck_assert_int_eq(perfring_perfdata_feature(pd, (uint32_t)k, &ft, NULL),
						 -EBADMSG);
			close_mem(pd, fd);
		}
		{
			struct perfring_perfdata *pd;
			struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
			int fd, err;

			pd = open_mem(h.p, h.len, &fd, &err, &d);
			ck_assert_int_eq(err, 0);
			ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 3);
			for (uint32_t k = 0; k < 3; k++) {
				ck_assert_int_eq(perfring_perfdata_feature(pd, k, &ft, NULL), 0);
				ck_assert_uint_eq(ft.id, feats[k].id);
				ck_assert_uint_eq(ft.size, 12);
			}
			close_mem(pd, fd);
		}
		pdt_free(&h);
	}
	pdt_free(&f);
	pdt_free(&g);
	pdt_free(&data);
}
END_TEST

/* Pipe streams: zero size, HEADER_ATTR too small or lying, AUXTRACE payload
 * past the end, odd trailing bytes. */
START_TEST(test_hostile_pipe)
{
	struct pdt_buf s = { 0 };
	unsigned char a0[136];
	uint64_t ids[] = { 1 };
	struct perfring_diag d;
	size_t n;

#define PIPE_HDR() do { s.len = 0; pdt_put(&s, "PERFILE2", 8); pdt_u64(&s, 16); } while (0)
	make_attr(a0, 128, 128, 0, ST_OLD);
	PIPE_HDR();
	rec_header_attr(&s, a0, 128, ids, 1);
	pdt_u32(&s, 3);
	pdt_u16(&s, 0);
	pdt_u16(&s, 0);		/* size 0 */
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(d.offset, 16 + 8 + 128 + 8);

	/* attr.size larger than the record */
	PIPE_HDR();
	make_attr(a0, 128, 2048, 0, ST_OLD);
	rec_header_attr(&s, a0, 128, ids, 1);
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(d.offset, 16 + 12);

	/* attr.size 40 */
	PIPE_HDR();
	make_attr(a0, 128, 40, 0, ST_OLD);
	rec_header_attr(&s, a0, 128, ids, 1);
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);

	/* HEADER_ATTR too short for an attr */
	PIPE_HDR();
	rec_header_attr(&s, a0, 32, NULL, 0);
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);

	/* AUXTRACE announcing 1 TiB of data: ends with an error, no hang */
	PIPE_HDR();
	make_attr(a0, 128, 128, 0, ST_OLD);
	rec_header_attr(&s, a0, 128, ids, 1);
	pdt_u32(&s, PERFRING_RECORD_AUXTRACE);
	pdt_u16(&s, 0);
	pdt_u16(&s, 48);
	pdt_u64(&s, 1ull << 40);
	pdt_zero(&s, 32);
	pdt_zero(&s, 100);
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(d.msg, "payload"));

	/* trailing 3 bytes after the last record */
	PIPE_HDR();
	rec_header_attr(&s, a0, 128, ids, 1);
	pdt_put(&s, "abc", 3);
	ck_assert_int_eq(next_err(&s, &d, &n), -EBADMSG);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(d.msg, "header"));
	pdt_free(&s);
}
END_TEST

/* Unknown record types and features are passed over and counted; AUXTRACE
 * payloads are skipped by their size in both modes. */
START_TEST(test_unknown_and_extra)
{
	static unsigned char a0[128];
	const void *attrs[1] = { a0 };
	static const uint64_t i0[] = { 11 };
	const uint64_t *ids[1] = { i0 };
	size_t nids[1] = { 1 };
	static const unsigned char blob[40] = { 1, 2, 3 };
	struct pdt_feat feats[] = { { PERFRING_FEAT_HOSTNAME, "\x04\0\0\0vm\0\0", 8 },
				    { 100, blob, sizeof(blob) } };
	struct pdt_buf data = { 0 }, file = { 0 }, pipe = { 0 };
	struct perfring_perfdata *pd;
	struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
	struct perfring_diag d;
	struct run run;
	char txt[256];
	int fd, err, mode;

	make_attr(a0, 128, 128, 0, ST_OLD);
	rec_sample(&data, 0x1000, 42, 2000, 11);
	pdt_u32(&data, 40);		/* unassigned kernel-range type */
	pdt_u16(&data, 0);
	pdt_u16(&data, 24);
	pdt_zero(&data, 16);
	pdt_u32(&data, 200);		/* beyond every perf */
	pdt_u16(&data, 0);
	pdt_u16(&data, 16);
	pdt_zero(&data, 8);
	pdt_u32(&data, PERFRING_RECORD_AUXTRACE);
	pdt_u16(&data, 0);
	pdt_u16(&data, 48);
	pdt_u64(&data, 24);		/* 24 bytes of AUX data follow */
	pdt_zero(&data, 32);
	pdt_put(&data, "AUXDATA-AUXDATA-AUXDATA-", 24);
	rec_sample(&data, 0x2000, 42, 2001, 11);

	for (mode = 0; mode < 2; mode++) {
		if (mode == 0) {
			pdt_build(&file, 104, 128, 1, attrs, ids, nids, data.p, data.len, feats, 2);
			pd = open_mem(file.p, file.len, &fd, &err, &d);
		} else {
			pipe.len = 0;
			pdt_put(&pipe, "PERFILE2", 8);
			pdt_u64(&pipe, 16);
			rec_header_attr(&pipe, a0, 128, i0, 1);
			pdt_put(&pipe, data.p, data.len);
			pd = open_mem(pipe.p, pipe.len, &fd, &err, &d);
		}
		ck_assert_int_eq(err, 0);
		collect(pd, &run);
		ck_assert_int_eq(run.ret, 0);
		ck_assert_uint_eq(run.n, 5 + mode);
		ck_assert_uint_eq(run.st.by_type[40], 1);
		ck_assert_uint_eq(run.st.other, 1);
		ck_assert_uint_eq(run.st.by_type[PERFRING_RECORD_AUXTRACE], 1);
		ck_assert_uint_eq(run.st.by_type[9], 2);
		ck_assert_uint_eq(run.r[run.n - 1].type, 9);
		ck_assert_uint_eq(run.r[run.n - 2].type, PERFRING_RECORD_AUXTRACE);
		ck_assert_uint_eq(run.r[run.n - 1].offset,
				  run.r[run.n - 2].offset + 48 + 24);
		if (mode == 0) {
			ck_assert_uint_eq(perfring_perfdata_nr_features(pd), 2);
			ck_assert_int_eq(perfring_perfdata_feature(pd, 1, &ft, NULL), 0);
			ck_assert_uint_eq(ft.id, 100);
			ck_assert_ptr_null(ft.name);
			ck_assert_uint_eq(ft.size, sizeof(blob));
			ck_assert(!memcmp(ft.data, blob, sizeof(blob)));
			perfring_perfdata_feature_format(pd, &ft, txt, sizeof(txt));
			ck_assert_str_eq(txt, "feature 100 : 40 bytes\n");
		}
		run_free(&run);
		close_mem(pd, fd);
	}
	{
		struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
		struct run r2;

		/* extra_size reported */
		pd = open_mem(file.p, file.len, &fd, &err, &d);
		while (perfring_perfdata_next(pd, &rec, NULL) == 1)
			if (rec.type == PERFRING_RECORD_AUXTRACE)
				ck_assert_uint_eq(rec.extra_size, 24);
		close_mem(pd, fd);
		(void)r2;
	}
	pdt_free(&data);
	pdt_free(&file);
	pdt_free(&pipe);
}
END_TEST

/* Random corruption of real files: never a crash (run under ASan/UBSan),
 * always an end. */
START_TEST(test_fuzz)
{
	static const char *const names[] = { "pd-file", "pd-pipe", "pd-zstd", "pd-two",
					     "pd-pipe-tp", "rec-dwarf" };
	const char *name = names[_i];
	struct pdt_buf orig = { 0 }, g = { 0 };
	int k, n = (int)test_scaled(1000);

#ifndef HAVE_ZSTD
	if (is_zstd(name))
		return;
#endif
	srand(77 + _i);
	pdt_slurp(fixture(name, ".data"), &orig);
	for (k = 0; k < n; k++) {
		struct perfring_perfdata *pd;
		struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
		struct perfring_diag d;
		int fd, err, m, steps = 0;
		size_t i;
		char txt[4096];

		g.len = 0;
		pdt_put(&g, orig.p, orig.len);
		for (m = 0; m < 1 + rand() % 8; m++) {
			size_t at = (size_t)rand() % g.len;

			if (rand() % 2)
				g.p[at] = (unsigned char)rand();
			else
				g.p[at] ^= (unsigned char)(1u << (rand() % 8));
		}
		pd = open_mem(g.p, g.len, &fd, &err, &d);
		if (err)
			continue;
		while ((err = perfring_perfdata_next(pd, &rec, &d)) == 1) {
			(void)rec.header->size;
			REQUIRE(++steps < 100000, "endless iteration");
		}
		for (i = 0; i < perfring_perfdata_nr_features(pd); i++) {
			struct perfring_perfdata_feature f = { .sz = sizeof(f) };

			if (perfring_perfdata_feature(pd, i, &f, &d) == 0)
				perfring_perfdata_feature_format(pd, &f, txt, sizeof(txt));
		}
		close_mem(pd, fd);
	}
	pdt_free(&orig);
	pdt_free(&g);
}
END_TEST

/* ---- 9. COMPRESSED --------------------------------------------------------- */

#ifdef HAVE_ZSTD
/* Records compressed as one zstd stream and split into COMPRESSED records
 * at awkward points (records straddle two COMPRESSED records), with enough
 * data to exceed the decompression window several times. */
START_TEST(test_zstd_split)
{
	static unsigned char a0[128];
	const void *attrs[1] = { a0 };
	static const uint64_t i0[] = { 11 };
	const uint64_t *ids[1] = { i0 };
	size_t nids[1] = { 1 };
	struct pdt_buf plain = { 0 }, z = { 0 }, data = { 0 }, file = { 0 };
	struct pdt_buf be = { 0 }, zbe = { 0 };
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run run;
	size_t i, off, nsamples = 40000, chunk;
	int fd, err, variant;
	char msg[1024];

	make_attr(a0, 128, 128, 0, ST_OLD);
	for (i = 0; i < nsamples; i++)
		rec_sample(&plain, 0x1000 + i * 7919 % 100003, 42, i, 11);
	z.len = 0;
	pdt_zero(&z, ZSTD_compressBound(plain.len));
	z.len = ZSTD_compress(z.p, z.len, plain.p, plain.len, 1);
	ck_assert(!ZSTD_isError(z.len));
	/* the same records as a big-endian perf writes them, compressed */
	file.len = 0;
	pdt_put(&file, "PERFILE2", 8);
	pdt_u64(&file, 16);
	rec_header_attr(&file, a0, 128, i0, 1);
	pdt_put(&file, plain.p, plain.len);
	ck_assert_int_eq(pdt_swap_perfdata(file.p, file.len, &be, msg, sizeof(msg)), 0);
	pdt_zero(&zbe, ZSTD_compressBound(plain.len));
	zbe.len = ZSTD_compress(zbe.p, zbe.len, be.p + 16 + 144, plain.len, 1);
	ck_assert(!ZSTD_isError(zbe.len));

	/* 0: file mode, 1: pipe mode, 2: file mode with COMPRESSED2 (newest
	 * perf: u64 data_size, payload padded to 8), 3: pipe mode, big-endian */
	for (variant = 0; variant < 4; variant++) {
		if (variant == 3) {
			pdt_free(&z);
			z = zbe;
			zbe.p = NULL;
		}
		data.len = 0;
		rec_empty(&data, PERFRING_RECORD_FINISHED_INIT);
		for (off = 0, chunk = 7; off < z.len; off += chunk, chunk = chunk * 3 + 1) {
			size_t n;

			if (chunk > 60000)
				chunk = 60000 - (off % 13);
			n = z.len - off < chunk ? z.len - off : chunk;
			if (variant == 2) {
				size_t pad = (8 - n % 8) % 8;

				pdt_u32(&data, 83);
				pdt_u16(&data, 0);
				pdt_u16(&data, (uint16_t)(16 + n + pad));
				pdt_u64(&data, n);
				pdt_put(&data, z.p + off, n);
				pdt_put(&data, "\xee\xee\xee\xee\xee\xee\xee", pad);
				continue;
			}
			pdt_u32(&data, PERFRING_RECORD_COMPRESSED);
			pdt_u16(&data, 0);
			pdt_u16(&data, (uint16_t)(8 + n));
			pdt_put(&data, z.p + off, n);
		}
		rec_empty(&data, PERFRING_RECORD_FINISHED_ROUND);
		if (variant == 0 || variant == 2) {
			pdt_build(&file, 104, 128, 1, attrs, ids, nids, data.p, data.len, NULL, 0);
		} else {
			file.len = 0;
			pdt_put(&file, "PERFILE2", 8);
			pdt_u64(&file, 16);
			rec_header_attr(&file, a0, 128, i0, 1);
			pdt_put(&file, data.p, data.len);
		}
		if (variant == 3) {
			ck_assert_int_eq(pdt_swap_perfdata(file.p, file.len, &be, msg,
							   sizeof(msg)), 0);
			file.len = 0;
			pdt_put(&file, be.p, be.len);
		}
		pd = open_mem(file.p, file.len, &fd, &err, &d);
		ck_assert_int_eq(perfring_perfdata_needs_swap(pd), variant == 3);
		ck_assert_int_eq(err, 0);
		collect(pd, &run);
		{
			uint64_t inner = 0;
			size_t got = 0;

			ck_assert_msg(run.ret == 0, "%s", perfring_diag_format(&run.diag, msg, sizeof(msg)));
			for (i = 0; i < run.n; i++) {
				if (!(run.r[i].flags & PERFRING_PERFDATA_REC_COMPRESSED))
					continue;
				ck_assert_uint_eq(run.r[i].inner, inner);
				ck_assert(!memcmp(run.r[i].bytes, plain.p + inner, 48));
				ck_assert_uint_eq(run.r[i].type, PERFRING_RECORD_SAMPLE);
				inner += run.r[i].size;
				got++;
			}
			ck_assert_uint_eq(got, nsamples);
			ck_assert_uint_eq(run.st.from_compressed, nsamples);
			ck_assert_uint_eq(run.st.by_type[9], nsamples);
			ck_assert_uint_gt(run.st.by_type[variant == 2 ? 83 : PERFRING_RECORD_COMPRESSED], 3);
		}
		run_free(&run);
		close_mem(pd, fd);
	}

	/* corrupt frame: an error at the offset of a COMPRESSED record */
	file.p[16 + 8 + 128 + 8 + 8 + 8] ^= 0xff;	/* zstd magic */
	pd = open_mem(file.p, file.len, &fd, &err, &d);
	collect(pd, &run);
	ck_assert_int_eq(run.ret, -EBADMSG);
	ck_assert_ptr_nonnull(strstr(run.diag.msg, "zstd"));
	run_free(&run);
	close_mem(pd, fd);
	pdt_free(&plain);
	pdt_free(&z);
	pdt_free(&be);
	pdt_free(&data);
	pdt_free(&file);
}
END_TEST
#else
START_TEST(test_no_zstd)
{
	struct perfring_perfdata *pd;
	struct run run;

	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-zstd", ".data"), NULL, NULL, &pd), 0);
	collect(pd, &run);
	ck_assert_int_eq(run.ret, -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(run.diag.msg, "zstd"));
	run_free(&run);
	perfring_perfdata_close(pd);
}
END_TEST
#endif

/* ---- 10. options ------------------------------------------------------------ */

/* ---- windowed reading -------------------------------------------------------- */

static struct perfring_perfdata *open_window(const struct pdt_buf *f, size_t len, size_t window,
					     int *fdp)
{
	struct perfring_perfdata *pd = NULL;
	struct perfring_diag d;
	PERFRING_PERFDATA_OPTS(o, .window = window, .name = "big");

	*fdp = pdt_memfd(f->p, len);
	ck_assert_int_ge(*fdp, 0);
	ck_assert_int_eq(perfring_perfdata_open_fd(*fdp, &o, &d, &pd), 0);
	return pd;
}

static void same_runs(const struct run *a, const struct run *b, size_t cut)
{
	char ma[1024], mb[1024];

	perfring_diag_format(&a->diag, ma, sizeof(ma));
	perfring_diag_format(&b->diag, mb, sizeof(mb));
	REQUIRE(a->n == b->n && a->ret == b->ret, "cut %zu: %zu records (%d: %s) windowed, %zu (%d: %s) whole",
		cut, a->n, a->ret, ma, b->n, b->ret, mb);
	for (size_t i = 0; i < a->n; i++)
		REQUIRE(a->r[i].offset == b->r[i].offset && a->r[i].size == b->r[i].size &&
			a->r[i].extra == b->r[i].extra && a->r[i].flags == b->r[i].flags &&
			a->r[i].attr == b->r[i].attr &&
			!memcmp(a->r[i].bytes, b->r[i].bytes, a->r[i].size),
			"cut %zu: record %zu differs", cut, i);
	REQUIRE(a->ret == 0 || !strcmp(ma, mb), "cut %zu: \"%s\" windowed, \"%s\" whole", cut, ma, mb);
	REQUIRE(!memcmp(&a->st, &b->st, sizeof(a->st)), "cut %zu: stats differ", cut);
}

/* A SAMPLE (IDENTIFIER | IP) of 8 + 8 * words bytes: id, then x + 1, x + 2... */
static void sample_words(struct pdt_buf *b, uint64_t id, size_t words, uint64_t x)
{
	pdt_u32(b, PERFRING_RECORD_SAMPLE);
	pdt_u16(b, 2);
	pdt_u16(b, (uint16_t)(8 + 8 * words));
	pdt_u64(b, id);
	for (size_t w = 1; w < words; w++)
		pdt_u64(b, x + w);
}

/*
 * A file-mode perf.data larger than the read window is read a window at a
 * time, where a smaller one is read whole into a buffer of its size.  Both
 * give the same records at the same offsets, the same stats and the same
 * errors: records of every size across the window's refills, an AUXTRACE
 * payload longer than the window, and the file cut every 64 KiB and around
 * each cut.
 */
START_TEST(test_windowed)
{
	static unsigned char a0[128];
	const void *attrs[1] = { a0 };
	static const uint64_t i0[] = { 11 };
	const uint64_t *ids[1] = { i0 };
	size_t nids[1] = { 1 }, window = 128 << 10, aux_at = 0;
	struct pdt_buf data = { 0 }, file = { 0 };
	uint64_t x = 88172645463325252ull, data_off;
	struct perfring_perfdata *pd;
	struct run a, b;
	int fd;

	make_attr(a0, 128, 128, 0, PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP);
	while (data.len < (7u << 19)) {
		size_t words;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		words = x % 8 ? 2 + x % 64 : 2 + x % 8000;	/* up to 64 KB */
		if (!aux_at && data.len > (3u << 19)) {
			/* AUXTRACE: size offset reference idx tid cpu res, then the payload */
			uint64_t body[5] = { (1u << 20) + (3u << 17) + 8, 0, 0, 0, 0 };

			aux_at = data.len;
			rec_u(&data, PERFRING_RECORD_AUXTRACE, body, sizeof(body));
			pdt_zero(&data, (size_t)body[0]);
		}
		sample_words(&data, 11, words, x);
	}
	pdt_build(&file, 104, 128, 1, attrs, ids, nids, data.p, data.len, NULL, 0);
	memcpy(&data_off, file.p + 40, 8);

	for (size_t cut = file.len;; cut = cut > (64u << 10) ? cut - (64u << 10) : 0) {
		for (int k = 0; k <= 8; k++) {
			size_t c = cut + (size_t)k * 3;

			if (c > file.len || c < data_off || (k && cut == file.len))
				continue;
			pd = open_window(&file, c, window, &fd);
			collect(pd, &a);
			close_mem(pd, fd);
			pd = open_window(&file, c, file.len + (1u << 20), &fd);
			collect(pd, &b);
			close_mem(pd, fd);
			same_runs(&a, &b, c);
			if (c == file.len) {
				ck_assert_int_eq(a.ret, 0);
				ck_assert_uint_gt(a.n, 100);
				REQUIRE(a.st.by_type[PERFRING_RECORD_SAMPLE] == a.n - 1,
					"%zu records", a.n);
			} else {
				ck_assert_int_eq(a.ret, -EBADMSG);
			}
			run_free(&a);
			run_free(&b);
		}
		if (cut < data_off + (64u << 10))
			break;
	}
	ck_assert_uint_gt(aux_at, 0);
	pdt_free(&data);
	pdt_free(&file);
}
END_TEST

/*
 * A pipe-mode stream starts with a 64 KiB buffer that grows, up to the
 * window, while reads fill it.  A 3.5 MiB stream of records of every size
 * up to 64 KB, with an AUXTRACE payload longer than the window, reads the
 * same (every record at its offset, with its bytes) through a real pipe in
 * large and in small writes, from a regular file (where every read fills
 * the buffer, so it grows to the window), and with the smallest window.
 */
START_TEST(test_pipe_grows)
{
	static unsigned char a0[128];
	static const uint64_t id = 11;
	struct pdt_buf s = { 0 };
	uint64_t x = 2463534242ull, *offs = NULL;
	size_t n = 0, cap = 0, aux = 0;
	static const struct { size_t chunk, window; int file; } ways[] = {
		{ 1u << 20, 0, 0 }, { 777, 0, 0 }, { 0, 0, 1 }, { 1u << 20, 128 << 10, 0 },
		{ 0, 128 << 10, 1 }, { 0, 3u << 20, 1 },
	};

	make_attr(a0, 128, 128, 0, PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP);
	pdt_put(&s, "PERFILE2", 8);
	pdt_u64(&s, 16);
	rec_header_attr(&s, a0, 128, &id, 1);
	while (s.len < (7u << 19)) {
		size_t words;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		words = x % 8 ? 2 + x % 64 : 2 + x % 8190;	/* up to 65528 bytes */
		if (!aux && s.len > (1u << 20)) {
			/* AUXTRACE: size offset reference idx tid cpu res, then the payload */
			uint64_t body[5] = { (3u << 19) + 8, 0, 0, 0, 0 };

			aux = s.len;
			rec_u(&s, PERFRING_RECORD_AUXTRACE, body, sizeof(body));
			pdt_zero(&s, (size_t)body[0]);
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			offs = realloc(offs, cap * sizeof(*offs));
			ck_assert_ptr_nonnull(offs);
		}
		offs[n++] = s.len;
		sample_words(&s, 11, words, x);
	}
	ck_assert_uint_gt(aux, 0);
	for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		PERFRING_PERFDATA_OPTS(o, .window = ways[w].window, .name = "grow");
		struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
		struct perfring_perfdata *pd = NULL;
		struct perfring_diag d;
		size_t i = 0, seen_aux = 0;
		pid_t pid = -1;
		int fd, r, st;
		char msg[1024];

		if (ways[w].file)
			fd = pdt_memfd(s.p, s.len);
		else
			pid = feed_buf(&s, ways[w].chunk, &fd);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(perfring_perfdata_open_fd(fd, &o, &d, &pd), 0);
		ck_assert_int_eq(perfring_perfdata_is_pipe(pd), 1);
		while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
			if (rec.type == PERFRING_RECORD_AUXTRACE) {
				REQUIRE(rec.offset == aux && rec.extra_size == (3u << 19) + 8,
					"way %zu: AUXTRACE at %" PRIu64, w, rec.offset);
				seen_aux++;
				continue;
			}
			if (rec.type != PERFRING_RECORD_SAMPLE)
				continue;
			REQUIRE(i < n && rec.offset == offs[i] &&
				!memcmp(rec.header, s.p + offs[i], rec.size),
				"way %zu: sample %zu at %" PRIu64 " differs", w, i, rec.offset);
			i++;
		}
		REQUIRE(r == 0, "way %zu: %s", w, perfring_diag_format(&d, msg, sizeof(msg)));
		REQUIRE(i == n && seen_aux == 1, "way %zu: %zu of %zu samples", w, i, n);
		perfring_perfdata_close(pd);
		close(fd);
		if (pid > 0) {
			ck_assert_int_eq(waitpid(pid, &st, 0), pid);
			ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
	}
	free(offs);
	pdt_free(&s);
}
END_TEST

START_TEST(test_opts)
{
	struct perfring_perfdata *pd;
	struct perfring_diag d;
	struct run a, b;
	PERFRING_PERFDATA_OPTS(o, .window = 1, .name = "renamed");
	struct perfring_perfdata_opts bad = { .sz = 3 };
	struct pdt_buf f = { 0 };

	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-two", ".data"), &o, &d, &pd), 0);
	collect(pd, &a);
	perfring_perfdata_close(pd);
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-two", ".data"), NULL, &d, &pd), 0);
	collect(pd, &b);
	perfring_perfdata_close(pd);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert(!memcmp(&a.st, &b.st, sizeof(a.st)));
	run_free(&a);
	run_free(&b);
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-two", ".data"), &bad, &d, &pd), -EINVAL);
	{
		/* a newer caller: larger struct, zero tail accepted, non-zero refused */
		struct { struct perfring_perfdata_opts o; uint64_t future; } big = { 0 };

		big.o.sz = sizeof(big);
		ck_assert_int_eq(perfring_perfdata_open(fixture("pd-two", ".data"), &big.o, &d, &pd), 0);
		perfring_perfdata_close(pd);
		big.future = 1;
		ck_assert_int_eq(perfring_perfdata_open(fixture("pd-two", ".data"), &big.o, &d, &pd),
				 -EINVAL);
	}
	ck_assert_int_eq(perfring_perfdata_open("/nonexistent/x.data", NULL, &d, &pd), -ENOENT);
	ck_assert_str_eq(d.file, "/nonexistent/x.data");
	/* the name shows in diagnostics */
	pdt_put(&f, "PERFILE3", 8);
	pdt_zero(&f, 8);
	{
		int fd = pdt_memfd(f.p, f.len);

		ck_assert_int_eq(perfring_perfdata_open_fd(fd, &o, &d, &pd), -EBADMSG);
		ck_assert_str_eq(d.file, "renamed");
		close(fd);
	}
	pdt_free(&f);
	perfring_perfdata_close(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfdata");
	TCase *tc;

	tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fixture_stats, 0, NFIX);
	tcase_add_test(tc, test_features);
	tcase_add_loop_test(tc, test_swapped, 0,
			    (int)(sizeof(swappable) / sizeof(swappable[0])));
	tcase_add_test(tc, test_real_pipe);
	tcase_add_test(tc, test_opts);
	tcase_add_test(tc, test_windowed);
	tcase_add_test(tc, test_pipe_grows);
	suite_add_tcase(s, tc);

	tc = tcase_create("synthetic");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_old_formats, 0, 2 * NOLD);
	tcase_add_test(tc, test_pipe_attrs);
	tcase_add_test(tc, test_pipe_pointers);
	tcase_add_test(tc, test_all_types_swapped);
	tcase_add_test(tc, test_unknown_and_extra);
#ifdef HAVE_ZSTD
	tcase_add_test(tc, test_zstd_split);
#else
	tcase_add_test(tc, test_no_zstd);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_truncate_boundaries, 0,
			    (int)(sizeof(cut_fixtures) / sizeof(cut_fixtures[0])));
	tcase_add_loop_test(tc, test_truncate_random, 0,
			    (int)(sizeof(cut_fixtures) / sizeof(cut_fixtures[0])));
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_hostile_pipe);
	tcase_add_loop_test(tc, test_fuzz, 0, 6);
	suite_add_tcase(s, tc);

	return test_run_suite(s);
}
