/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by the bench programs (timing, medians, BENCH lines). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * CPU time of the calling thread: what a single-threaded measurement uses,
 * so that time slices lost to other processes on a shared machine do not
 * count (the machine the bench is run on is usually busy).
 */
static inline double bench_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of n values (sorts v). */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* BENCH_SCALE (default 1): multiplies every size. */
static inline double bench_scale(void)
{
	const char *s = getenv("BENCH_SCALE");
	double v = s ? strtod(s, NULL) : 1.0;

	return v > 0 ? v : 1.0;
}

/* BENCH_REPS (default 5, at least 1): repetitions, medians are reported. */
static inline int bench_reps(void)
{
	const char *s = getenv("BENCH_REPS");
	int v = s ? atoi(s) : 5;

	return v > 0 ? v : 1;
}

static inline void bench_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * One result line.  ratio is "ours relative to peer" oriented so that the
 * target reads as a bound on it: ge != 0 means ratio >= target passes,
 * else ratio <= target passes.  target < 0: no target (INFO).
 */
static inline void bench_line(const char *name, const char *ours, const char *peer,
			      double ratio, double target, int ge)
{
	const char *verdict;

	if (target < 0)
		verdict = "INFO";
	else
		verdict = (ge ? ratio >= target : ratio <= target) ? "PASS" : "MISS";
	if (target < 0)
		printf("BENCH %s %s %s ratio=%.3g target=none %s\n", name, ours, peer, ratio,
		       verdict);
	else
		printf("BENCH %s %s %s ratio=%.3g target=%s%g %s\n", name, ours, peer, ratio,
		       ge ? ">=" : "<=", target, verdict);
	fflush(stdout);
}

#endif
