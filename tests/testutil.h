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

#endif
