/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload for the DWARF callchain test: built with -O2
 * -fomit-frame-pointer, it sorts arrays with the C library's qsort() for
 * SECONDS (default 0.5) of its own CPU time, so that nearly every sample is
 * in leaf_compare(), called from inside libc.  A frame-pointer walk cannot
 * get from there to main(); a DWARF unwinder (perf report on
 * --call-graph dwarf samples) goes through libc's and this program's unwind
 * tables.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define N 4096

static uint32_t keys[N];

/* The leaf: a comparison made slow on purpose. */
__attribute__((noinline)) int leaf_compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	volatile uint32_t spin = 0;

	for (int i = 0; i < 200; i++)
		spin += (x ^ (uint32_t)i) * 2654435761u;
	return (x > y) - (x < y) + (int)(spin & 0);
}

__attribute__((noinline)) static void shuffle(uint32_t seed)
{
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		keys[i] = seed >> 8;
	}
}

__attribute__((noinline)) static void sort_round(uint32_t seed)
{
	shuffle(seed);
	qsort(keys, N, sizeof(keys[0]), leaf_compare);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	double end = cpu_seconds() + secs;
	uint32_t seed = 1;

	while (cpu_seconds() < end)
		sort_round(seed++);
	return keys[0] == 12345u;
}
