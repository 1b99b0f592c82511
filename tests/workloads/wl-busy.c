/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload for the perfring-record tests: burns CPU for SECONDS (default
 * 0.5) of its own CPU time, about 90% in hot_function and 10% in
 * cold_function, both named and never inlined.
 */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void hot_function(int n)
{
	volatile double s = 0;

	for (int i = 0; i < n; i++)
		s += i * 0.5;
	sink += s;
}

__attribute__((noinline)) void cold_function(int n)
{
	volatile double s = 0;

	for (int i = 0; i < n; i++)
		s += i * 0.25;
	sink += s;
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

	while (cpu_seconds() < end) {
		hot_function(90000);
		cold_function(10000);
	}
	return 0;
}
