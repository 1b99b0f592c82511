/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared helpers for the Check suites. */
#ifndef PERFRING_TESTUTIL_H
#define PERFRING_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* Automake's code for a skipped test. */
#define TEST_EXIT_SKIP 77

/*
 * PERFRING_TEST_SCALE multiplies the work of the suites that scale (default
 * 1; 0.5 halves it, 10 is ten times as much).  An unset, unparsable or
 * non-positive value means DEFAULT (1, or less under a sanitizer).  The
 * shell tests read it the same way (scaled in tests/testlib.sh).
 */
static inline double test_scale_or(double dflt)
{
	const char *s = getenv("PERFRING_TEST_SCALE");
	char *end;
	double v;

	if (!s || !*s)
		return dflt;
	v = strtod(s, &end);
	return (*end == '\0' && v > 0) ? v : dflt;
}

static inline double test_scale(void)
{
	return test_scale_or(1.0);
}

/* N times the scale, at least 1. */
static inline unsigned long test_scaled(unsigned long n)
{
	double v = (double)n * test_scale();

	return v < 1 ? 1 : (unsigned long)v;
}

/*
 * Run one suite; exit status 0 if everything passed.  Every suite binary's
 * main ends with this.  CK_RUN_CASE / CK_FORK work as usual.
 */
static inline int test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* A perf.data reader's record counts (perfring_perfdata_get_stats), by
 * value (a macro: this header comes before or after perfring.h). */
#define pd_stats(pd) __extension__({						\
	struct perfring_perfdata_stats pd_st_ = { .sz = sizeof(pd_st_) };	\
	ck_assert_int_eq(perfring_perfdata_get_stats((pd), &pd_st_), 0);	\
	pd_st_;									\
})

#endif
