/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/marks-span.c: the outermost spans of one name, per thread, that
 * perfring-replay --span keeps the samples of.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include <perfring/marks.h>

#include "marks-span.h"

static void add(struct marks_span *s, int32_t tid, uint64_t t, const char *kind, const char *name)
{
	unsigned k = !strcmp(kind, "begin") ? PERFRING_MARK_BEGIN :
		     !strcmp(kind, "end") ? PERFRING_MARK_END : PERFRING_MARK_INSTANT;

	marks_span_add(s, tid, t, k, name, strlen(name));
}

START_TEST(test_nested_outermost)
{
	struct marks_span *s = marks_span_new("render");

	add(s, 7, 100, "begin", "render");
	add(s, 7, 150, "begin", "render");	/* nested: the outer one counts */
	add(s, 7, 180, "end", "render");
	add(s, 7, 120, "begin", "parse");	/* other names do not */
	add(s, 7, 130, "end", "parse");
	add(s, 7, 200, "end", "render");
	add(s, 7, 300, "instant", "render");	/* an instant is no span */
	marks_span_build(s);
	ck_assert_uint_eq(marks_span_count(s), 1);
	ck_assert(!marks_span_inside(s, 7, 99));
	ck_assert(marks_span_inside(s, 7, 100));
	ck_assert(marks_span_inside(s, 7, 125));
	ck_assert(marks_span_inside(s, 7, 190));	/* after the inner end */
	ck_assert(marks_span_inside(s, 7, 200));
	ck_assert(!marks_span_inside(s, 7, 201));
	ck_assert(!marks_span_inside(s, 7, 300));
	ck_assert(!marks_span_inside(s, 8, 150));	/* another thread */
	marks_span_free(s);
}
END_TEST

/* Edges in any order, several threads, many spans: the binary search. */
START_TEST(test_threads_unordered)
{
	struct marks_span *s = marks_span_new("req");

	for (int i = 99; i >= 0; i--) {
		add(s, 2, 1000u * (unsigned)i + 10, "begin", "req");
		add(s, 3, 1000u * (unsigned)i + 500, "end", "req");
		add(s, 2, 1000u * (unsigned)i + 20, "end", "req");
		add(s, 3, 1000u * (unsigned)i + 400, "begin", "req");
	}
	marks_span_build(s);
	ck_assert_uint_eq(marks_span_count(s), 200);
	for (unsigned i = 0; i < 100; i++) {
		ck_assert(marks_span_inside(s, 2, 1000u * i + 15));
		ck_assert(!marks_span_inside(s, 2, 1000u * i + 25));
		ck_assert(!marks_span_inside(s, 2, 1000u * i + 5));
		ck_assert(marks_span_inside(s, 3, 1000u * i + 450));
		ck_assert(!marks_span_inside(s, 3, 1000u * i + 15));
	}
	marks_span_free(s);
}
END_TEST

/* An END with nothing open is ignored; a span never ended runs on. */
START_TEST(test_unmatched)
{
	struct marks_span *s = marks_span_new("gc");

	add(s, 4, 10, "end", "gc");
	add(s, 4, 20, "begin", "gc");
	add(s, 4, 30, "end", "gc");
	add(s, 4, 40, "end", "gc");
	add(s, 4, 50, "begin", "gc");
	add(s, 5, 60, "begin", "gc");
	add(s, 5, 60, "end", "gc");		/* the same time: arrival order */
	marks_span_build(s);
	ck_assert_uint_eq(marks_span_count(s), 3);
	ck_assert(!marks_span_inside(s, 4, 10));
	ck_assert(marks_span_inside(s, 4, 25));
	ck_assert(!marks_span_inside(s, 4, 45));
	ck_assert(marks_span_inside(s, 4, 50));
	ck_assert(marks_span_inside(s, 4, UINT64_MAX - 1));
	ck_assert(marks_span_inside(s, 5, 60));
	ck_assert(!marks_span_inside(s, 5, 61));
	marks_span_free(s);
}
END_TEST

/* A name that is a prefix of another is not the other. */
START_TEST(test_exact_name)
{
	struct marks_span *s = marks_span_new("ren");

	add(s, 1, 10, "begin", "render");
	add(s, 1, 20, "end", "render");
	marks_span_build(s);
	ck_assert_uint_eq(marks_span_count(s), 0);
	ck_assert(!marks_span_inside(s, 1, 15));
	marks_span_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("marks-span");
	TCase *tc = tcase_create("spans");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_nested_outermost);
	tcase_add_test(tc, test_threads_unordered);
	tcase_add_test(tc, test_unmatched);
	tcase_add_test(tc, test_exact_name);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
