/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Workload for the tool benchmarks: THREADS threads run a recursive
 * computation DEPTH frames deep (built with frame pointers, so -g records
 * deep callchains), either for SECONDS (time mode) or for a fixed amount of
 * work (work mode, to measure the slowdown a profiler causes).
 *   wl-bench time SECONDS [THREADS]
 *   wl-bench work ITERATIONS [THREADS]
 *   wl-bench storm ITERATIONS
 * Storm mode is the side-band storm: each iteration forks a child that
 * exits at once and maps and unmaps an executable page of this program,
 * so a recorder sees a FORK, an EXIT and an MMAP2 per iteration.
 * With WL_TIME_FILE set, the seconds the threads took are appended to it, so
 * a profiler's start and finish are not counted as the workload's slowdown.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "bench-common.h"

#define DEPTH 48

static double g_until;
static uint64_t g_iters;
static volatile uint64_t g_sink;

__attribute__((noinline)) static uint64_t leaf(uint64_t x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t descend(int d, uint64_t x)
{
	uint64_t r;

	if (d == 0)
		return leaf(x);
	r = descend(d - 1, x + (uint64_t)d);
	__asm__ __volatile__("" : "+r"(r));	/* no tail call */
	return r;
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg, i = 0;

	for (;;) {
		x = descend(DEPTH, x);
		i++;
		if (g_iters) {
			if (i >= g_iters)
				break;
		} else if (!(i & 63) && bench_now() >= g_until) {
			break;
		}
	}
	g_sink += x;
	return NULL;
}

static int storm(uint64_t n)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		pid_t pid = fork();
		void *p;

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int threads = argc > 3 ? atoi(argv[3]) : 2, i;
	pthread_t th[64];
	const char *tf = getenv("WL_TIME_FILE");
	double t0;
	FILE *f;

	if (argc < 3 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: wl-bench time SECONDS|work ITERATIONS [THREADS]|storm ITERATIONS\n");
		return 2;
	}
	if (!strcmp(argv[1], "storm")) {
		t0 = bench_now();
		if (storm(strtoull(argv[2], NULL, 0)))
			return 1;
		if (tf && (f = fopen(tf, "a"))) {
			fprintf(f, "%.6f\n", bench_now() - t0);
			fclose(f);
		}
		return 0;
	}
	if (!strcmp(argv[1], "time"))
		g_until = bench_now() + strtod(argv[2], NULL);
	else
		g_iters = strtoull(argv[2], NULL, 0);
	t0 = bench_now();
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (tf && (f = fopen(tf, "a"))) {
		fprintf(f, "%.6f\n", bench_now() - t0);
		fclose(f);
	}
	return 0;
}
