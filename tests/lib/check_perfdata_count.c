/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's headers-only counting mode (lib/perfdata/count.c,
 * behind perfring_perfdata_count and perfring-dump --stats), which reads
 * the file with several threads and walks the record headers chunk by
 * chunk: its counts equal a plain walk's on synthetic data sections with
 * a header cut by every chunk boundary at every byte, for 1, 2, 3 and 4
 * threads and both sides of the parallel threshold; and it gives up (-1)
 * on a zero size, a size past the end, a COMPRESSED record and a short file,
 * wherever these sit (also inside a cut header), never reading past the end.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "perfdata/count.h"
#include "testutil.h"

#define NTYPES PERFRING_PERFDATA_STATS_TYPES

struct synth {
	unsigned char *buf;	/* the whole file */
	size_t len;
	uint64_t start, end;	/* the data section */
	uint64_t by_type[NTYPES], other, total, bytes;
	uint64_t *offsets;	/* where each record starts */
	size_t nrec;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void put_record(struct synth *s, uint64_t at, uint32_t type, uint16_t size)
{
	memcpy(s->buf + at, &type, 4);
	memset(s->buf + at + 4, 0, 2);
	memcpy(s->buf + at + 6, &size, 2);
	memset(s->buf + at + 8, (int)(type & 0xff), size - 8u);
	if (type < NTYPES)
		s->by_type[type]++;
	else
		s->other++;
	s->total++;
	s->bytes += size;
	s->offsets[s->nrec++] = at;
}

/*
 * A data section of about want bytes from start, of records with random
 * types and sizes; near chunk boundary number j (counted from the page the
 * section starts in) the record before is sized so that the next header
 * starts j % 9 bytes before the boundary: cut after 1..7 bytes, or just
 * ahead of it (8), or right on it (0).
 */
static void synth_make(struct synth *s, uint64_t start, uint64_t want)
{
	uint64_t base = start & ~(uint64_t)4095, at = start;
	uint64_t next_b = base + PR_COUNT_CHUNK, target;
	unsigned j = 1, landed = 0;

	memset(s, 0, sizeof(*s));
	s->start = start;
	s->len = (size_t)(start + want + 65536);
	s->buf = malloc(s->len);
	s->offsets = malloc(sizeof(uint64_t) * (want / 8 + 16));
	ck_assert_ptr_nonnull(s->buf);
	ck_assert_ptr_nonnull(s->offsets);
	memset(s->buf, 0xee, (size_t)start);
	while (at < start + want) {
		uint32_t type = rnd() % 40;
		uint64_t size = 8 + rnd() % 600;

		if (type == PERFRING_RECORD_COMPRESSED || type == PERFRING_RECORD_AUXTRACE ||
		    type == PERFRING_RECORD_HEADER_TRACING_DATA || type == 83)
			type = PERFRING_RECORD_SAMPLE;
		if (rnd() % 50 == 0)
			type = 200 + rnd() % 1000;	/* unknown types count as OTHER */
		if (rnd() % 200 == 0)
			size = 65528 - rnd() % 64;
		target = next_b - j % 9;
		if (at + 8 > target) {
			/* too close to land on: aim at the next boundary */
			next_b += PR_COUNT_CHUNK;
			j++;
			target = next_b - j % 9;
		}
		if (at + size + 8 > target) {
			/* land the next header (j % 9) bytes before the boundary */
			size = target - at;
			next_b += PR_COUNT_CHUNK;
			j++;
			landed++;
		}
		put_record(s, at, type, (uint16_t)size);
		at += size;
	}
	s->end = at;
	s->len = (size_t)at;
	/* every cut (1..7), "just ahead" and "on the boundary" were made */
	ck_assert_uint_ge(landed, want / PR_COUNT_CHUNK < 9 ? want / PR_COUNT_CHUNK - 1 : 9);
}

static void synth_free(struct synth *s)
{
	free(s->buf);
	free(s->offsets);
}

static int write_file(const struct synth *s, size_t len)
{
	char path[] = "/tmp/check_perfdata_count.XXXXXX";
	int fd = mkstemp(path);
	size_t off = 0;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	while (off < len) {
		ssize_t n = write(fd, s->buf + off, len - off);

		ck_assert_int_gt(n, 0);
		off += (size_t)n;
	}
	return fd;
}

/* nthreads 0: the automatic choice */
static int count(const struct synth *s, int fd, unsigned nthreads,
		 struct perfring_perfdata_stats *c)
{
	memset(c, 0, sizeof(*c));
	return pr_count_headers(fd, s->start, s->end, nthreads, c);
}

static void assert_counts(const struct synth *s, const struct perfring_perfdata_stats *c)
{
	for (unsigned t = 0; t < NTYPES; t++)
		ck_assert_msg(c->by_type[t] == s->by_type[t], "type %u: %llu, want %llu", t,
			      (unsigned long long)c->by_type[t], (unsigned long long)s->by_type[t]);
	ck_assert_uint_eq(c->other, s->other);
	ck_assert_uint_eq(c->total, s->total);
	ck_assert_uint_eq(c->bytes, s->bytes);
}

/* counts equal the plain walk's, every thread count, start aligned or not */
START_TEST(test_counts_equal)
{
	static const uint64_t starts[] = { 0x3a8, 4096, 0x1234567, 17 };
	struct synth s;
	struct perfring_perfdata_stats c;
	uint64_t start = starts[_i];
	int fd;

	synth_make(&s, start, 24ull << 20);
	fd = write_file(&s, s.len);
	for (unsigned n = 1; n <= 4; n++) {
		ck_assert_int_eq(count(&s, fd, n, &c), 0);
		assert_counts(&s, &c);
	}
	/* the automatic choice (parallel: more than the threshold) */
	ck_assert_uint_gt(s.end - s.start, PR_COUNT_PARALLEL_MIN);
	ck_assert_int_eq(count(&s, fd, 0, &c), 0);
	assert_counts(&s, &c);
	close(fd);
	synth_free(&s);
}
END_TEST

/* a small section (below the threshold) and an empty one */
START_TEST(test_small_and_empty)
{
	struct synth s;
	struct perfring_perfdata_stats c;
	int fd;

	synth_make(&s, 0x3a8, 3ull << 20);
	fd = write_file(&s, s.len);
	ck_assert_int_eq(count(&s, fd, 0, &c), 0);
	assert_counts(&s, &c);
	for (unsigned n = 1; n <= 3; n++) {
		ck_assert_int_eq(count(&s, fd, n, &c), 0);
		assert_counts(&s, &c);
	}
	ck_assert_int_eq(pr_count_headers(fd, 100, 100, 2, &c), 0);
	ck_assert_uint_eq(c.total, 0);
	ck_assert_int_eq(pr_count_headers(fd, 100, 99, 2, &c), -1);
	close(fd);
	synth_free(&s);
}
END_TEST

/* the record whose header lies across chunk boundary b */
static size_t record_at_boundary(const struct synth *s, uint64_t b)
{
	for (size_t i = 0; i < s->nrec; i++)
		if (s->offsets[i] < b && s->offsets[i] + 8 > b)
			return i;
	return SIZE_MAX;
}

static void expect_give_up(struct synth *s, size_t rec, const char *what)
{
	int fd = write_file(s, s->len);
	struct perfring_perfdata_stats c;

	for (unsigned n = 1; n <= 4; n++)
		ck_assert_msg(count(s, fd, n, &c) == -1, "%s at record %zu, %u threads: counted",
			      what, rec, n);
	close(fd);
}

/* a bad record anywhere (and inside a header cut by a boundary) stops the count */
START_TEST(test_gives_up)
{
	struct synth s;
	size_t cut = SIZE_MAX, picks[4];
	uint64_t b;

	synth_make(&s, 0x3a8, 20ull << 20);
	/* a header cut by a boundary, one in the middle, the first and the last */
	for (b = (s.start & ~(uint64_t)4095) + PR_COUNT_CHUNK; b < s.end && cut == SIZE_MAX;
	     b += PR_COUNT_CHUNK)
		cut = record_at_boundary(&s, b);
	ck_assert_uint_ne(cut, SIZE_MAX);
	picks[0] = cut;
	picks[1] = s.nrec / 2;
	picks[2] = 0;
	picks[3] = s.nrec - 1;
	for (unsigned i = 0; i < 4; i++) {
		unsigned char *h = s.buf + s.offsets[picks[i]], save[8];
		uint16_t size;
		uint32_t type = PERFRING_RECORD_COMPRESSED;

		memcpy(save, h, 8);
		memset(h + 6, 0, 2);
		expect_give_up(&s, picks[i], "size 0");
		memcpy(h, save, 8);

		size = 7;
		memcpy(h + 6, &size, 2);
		expect_give_up(&s, picks[i], "size 7");
		memcpy(h, save, 8);

		memcpy(h, &type, 4);
		expect_give_up(&s, picks[i], "COMPRESSED");
		memcpy(h, save, 8);
	}
	/* the last record runs past the end of the section */
	{
		unsigned char *h = s.buf + s.offsets[s.nrec - 1], save[8];
		uint16_t size;

		memcpy(save, h, 8);
		memcpy(&size, h + 6, 2);
		ck_assert_uint_lt(size, 65528);
		size = (uint16_t)(size + 8);
		memcpy(h + 6, &size, 2);
		expect_give_up(&s, s.nrec - 1, "size past the end");
		memcpy(h, save, 8);
	}
	/* the file is shorter than the section says: cut at a boundary, in a
	 * cut header and in the middle of a chunk */
	{
		uint64_t cuts[] = { s.offsets[cut] + 3, (s.start & ~(uint64_t)4095) + 5 * PR_COUNT_CHUNK,
				    s.end - 1, s.start + 12345 };

		for (unsigned i = 0; i < 4; i++) {
			int fd = write_file(&s, (size_t)cuts[i]);
			struct perfring_perfdata_stats c;

			for (unsigned n = 1; n <= 4; n++)
				ck_assert_msg(count(&s, fd, n, &c) == -1,
					      "file cut at %llu, %u threads: counted",
					      (unsigned long long)cuts[i], n);
			close(fd);
		}
	}
	synth_free(&s);
}
END_TEST

/* ---- perfring_perfdata_count on real perf.data files ---------------------- */

static const char *fixture(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s.data", FIXTURES_DIR, name);
	return buf;
}

static const char *const count_fixtures[] = {
	"pd-file", "pd-two", "pd-syswide", "pd-callchain",	/* the header walk */
	"pd-zstd", "pd-pipe", "pd-pipe-zstd", "pd-pipe-tp",	/* the reader */
};

/* the counts equal a full read's; then the reader is at the end */
START_TEST(test_count_fixture)
{
	const char *path = fixture(count_fixtures[_i]);
	struct perfring_perfdata *a, *b;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata_stats sa0, sb0, *sa = &sa0, *sb = &sb0;
	struct perfring_diag d;

	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &a), 0);
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &b), 0);
	while (perfring_perfdata_next(a, &rec, &d) == 1)
		;
	for (unsigned n = 0; n <= 2; n++) {
		if (n) {
			perfring_perfdata_close(b);
			ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &b), 0);
		}
		ck_assert_int_eq(perfring_perfdata_count(b, n, &d), 0);
		sa0 = pd_stats(a);
		sb0 = pd_stats(b);
		ck_assert_uint_gt(sb->total, 10);
		ck_assert_uint_eq(sb->total, sa->total);
		ck_assert_uint_eq(sb->other, sa->other);
		ck_assert_uint_eq(sb->bytes, sa->bytes);
		ck_assert(!memcmp(sb->by_type, sa->by_type, sizeof(sa->by_type)));
		ck_assert_int_eq(perfring_perfdata_next(b, &rec, &d), 0);
	}
	perfring_perfdata_close(a);
	perfring_perfdata_close(b);
}
END_TEST

/* a truncated data section: the header walk hands over to the reader,
 * which counts the records before the damage and says where it is */
START_TEST(test_count_truncated)
{
	char path[] = "/tmp/check_perfdata_count.XXXXXX";
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	FILE *in = fopen(fixture("pd-file"), "rb");
	unsigned char buf[65536];
	size_t n;
	int fd = mkstemp(path);
	uint64_t cut;

	ck_assert_ptr_nonnull(in);
	ck_assert_int_ge(fd, 0);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	ck_assert_int_eq(perfring_perfdata_open(fixture("pd-file"), NULL, &d, &pd), 0);
	cut = perfring_perfdata_header(pd)->data_offset + 1000;
	perfring_perfdata_close(pd);
	ck_assert_uint_lt(cut, n);
	ck_assert_int_eq(write(fd, buf, (size_t)cut), (ssize_t)cut);
	/* cut in its data section: the feature table lies past the end */
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
	ck_assert_int_eq(perfring_perfdata_count(pd, 2, &d), -EBADMSG);
	ck_assert(d.has_offset);
	ck_assert_uint_eq(d.offset, 0x4f0);	/* the first record it cuts */
	ck_assert_str_eq(d.file, path);
	ck_assert(strstr(d.msg, "truncated"));
	ck_assert_uint_eq(pd_stats(pd).total, 17);
	ck_assert_int_eq(perfring_perfdata_next(pd, &rec, &d), -EBADMSG);
	perfring_perfdata_close(pd);
	close(fd);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfdata-count");
	TCase *tc = tcase_create("count");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_counts_equal, 0, 4);
	tcase_add_test(tc, test_small_and_empty);
	tcase_add_test(tc, test_gives_up);
	suite_add_tcase(s, tc);
	tc = tcase_create("reader");
	tcase_add_loop_test(tc, test_count_fixture, 0,
			    (int)(sizeof(count_fixtures) / sizeof(count_fixtures[0])));
	tcase_add_test(tc, test_count_truncated);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
