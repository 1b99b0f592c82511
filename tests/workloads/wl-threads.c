/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload for the -p tests: the main thread and a second thread burn CPU
 * for SECONDS of wall time (default 2), the main one in main_spin, the
 * other in thread_spin.  Prints "ready" once both run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;
static double end_time;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void main_spin(void)
{
	volatile double s = 0;

	for (int i = 0; i < 100000; i++)
		s += i * 0.5;
	sink += s;
}

__attribute__((noinline)) void thread_spin(void)
{
	volatile double s = 0;

	for (int i = 0; i < 100000; i++)
		s += i * 0.25;
	sink += s;
}

static void *thread_main(void *arg)
{
	(void)arg;
	while (now() < end_time)
		thread_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	pthread_t t;

	end_time = now() + secs;
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (now() < end_time)
		main_spin();
	pthread_join(t, NULL);
	return 0;
}
