/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tinyjit: a tiny x86-64 JIT that tells profilers about its code through
 * libperfring's jitdump writer.  It generates N small functions (each one
 * spins a counted loop), writes a CODE_LOAD for each (and a DEBUG_INFO),
 * and calls them for a while: the first four are hot, with weights 1:2:3:4
 * (10%, 20%, 30%, 40% of the time), the others run once.
 *
 *   tinyjit [-n N] [-t MS] [-s SIZE] [-d DIR] [--reuse] [--move] [--perf-map]
 *
 * --reuse: instead, one function "reuse_first" runs for MS ms, then its
 *          address gets new code "reuse_second" (a second CODE_LOAD at the
 *          same address, after an mprotect cycle, which makes the kernel
 *          report the region again as //anon) that runs for MS ms.
 * --move:  the hot functions are copied to a second region and reported
 *          with CODE_MOVE before they are called.
 * --perf-map: no jitdump: the functions are listed in /tmp/perf-PID.map
 *          (`START SIZE name` lines), as perf-map-only runtimes do.
 *
 * Record it with `perf record -k mono -- tinyjit` (the records carry
 * CLOCK_MONOTONIC times), then `perfring-replay --jit` or
 * `perf inject --jit`.  The dump goes to DIR (default: the current
 * directory) as jit-PID.dump.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perfring.h>

#define HOT 4

typedef void (*fn_t)(void);

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A function of size bytes (>= 16): nop padding, then
 *   mov ecx, iters; 1: dec ecx; jnz 1b; ret
 * The padding is different per function (a nop count) so code differs.
 */
static void gen(uint8_t *p, size_t size, uint32_t iters, unsigned salt)
{
	size_t body = 10, pad = size - body;

	memset(p, 0x90, pad);
	if (salt && pad) {
		/* mark the function: a 2-byte `mov al, salt` at the start */
		p[0] = 0xb0;
		p[1] = (uint8_t)salt;
	}
	p += pad;
	p[0] = 0xb9;
	memcpy(p + 1, &iters, 4);
	p[5] = 0xff;
	p[6] = 0xc9;
	p[7] = 0x75;
	p[8] = 0xfc;
	p[9] = 0xc3;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "tinyjit: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void spin(fn_t f, double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 64; i++)
			f();
}

int main(int argc, char **argv)
{
	struct perfring_jitdump_writer *w;
	struct perfring_diag diag;
	const char *dir = ".";
	long n = 64, ms = 1000, size = 64;
	int reuse = 0, move = 0, perf_map = 0, err;
	FILE *map = NULL;
	uint8_t *region, *region2 = NULL;
	size_t len;
	char name[64], msg[1024];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			size = atol(argv[++i]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--reuse"))
			reuse = 1;
		else if (!strcmp(argv[i], "--move"))
			move = 1;
		else if (!strcmp(argv[i], "--perf-map"))
			perf_map = 1;
		else {
			fprintf(stderr, "usage: tinyjit [-n N] [-t MS] [-s SIZE] [-d DIR] [--reuse] "
				"[--move] [--perf-map]\n");
			return 2;
		}
	}
	if ((reuse || move) && perf_map) {
		fprintf(stderr, "tinyjit: --perf-map goes without --reuse and --move\n");
		return 2;
	}
	if (n < HOT || size < 16 || size > 4096 || ms < 1) {
		fprintf(stderr, "tinyjit: need -n >= %d, 16 <= -s <= 4096, -t >= 1\n", HOT);
		return 2;
	}
	if (perf_map) {
		snprintf(msg, sizeof(msg), "/tmp/perf-%d.map", (int)getpid());
		map = fopen(msg, "w");
		if (!map)
			die(msg, errno);
		w = NULL;
		err = 0;
	} else {
		err = perfring_jitdump_writer_open(dir, &diag, &w);
	}
	if (err) {
		fprintf(stderr, "tinyjit: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		return 1;
	}
	len = (size_t)(n * size + 4095) & ~(size_t)4095;
	region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		die("mmap", errno);

	if (reuse) {
		gen(region, (size_t)size, 20000, 1);
		if (mprotect(region, len, PROT_READ | PROT_EXEC))
			die("mprotect", errno);
		err = perfring_jitdump_write_load(w, "reuse_first", (uintptr_t)region, region,
						  (uint64_t)size, NULL);
		if (err)
			die("write_load", err);
		spin((fn_t)(void *)region, (double)ms);
		/* New code at the same address: the mprotect back to
		 * executable makes the kernel report the region again. */
		if (mprotect(region, len, PROT_READ | PROT_WRITE))
			die("mprotect", errno);
		gen(region, (size_t)size, 20000, 2);
		if (mprotect(region, len, PROT_READ | PROT_EXEC))
			die("mprotect", errno);
		err = perfring_jitdump_write_load(w, "reuse_second", (uintptr_t)region, region,
						  (uint64_t)size, NULL);
		if (err)
			die("write_load", err);
		spin((fn_t)(void *)region, (double)ms);
		goto out;
	}

	for (long i = 0; i < n; i++) {
		uint8_t *f = region + i * size;
		struct perfring_jit_debug_entry de = {
			.sz = sizeof(de), .addr = (uintptr_t)f, .lineno = (int32_t)(i + 1), .file = "tinyjit.src",
		};

		gen(f, (size_t)size, i < HOT ? 5000u * (uint32_t)(i + 1) : 10, (unsigned)(i % 251));
		snprintf(name, sizeof(name), i < HOT ? "hot_fn_%ld" : "jitfn_%ld", i);
		if (map) {
			fprintf(map, "%lx %lx %s\n", (unsigned long)(uintptr_t)f,
				(unsigned long)size, name);
			continue;
		}
		err = perfring_jitdump_write_debug_info(w, (uintptr_t)f, &de, 1);
		if (err)
			die("write_debug_info", err);
		err = perfring_jitdump_write_load(w, name, (uintptr_t)f, f, (uint64_t)size, NULL);
		if (err)
			die("write_load", err);
	}
	if (mprotect(region, len, PROT_READ | PROT_EXEC))
		die("mprotect", errno);
	if (move) {
		region2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (region2 == MAP_FAILED)
			die("mmap", errno);
		memcpy(region2, region, (size_t)(HOT * size));
		if (mprotect(region2, 4096, PROT_READ | PROT_EXEC))
			die("mprotect", errno);
		for (long i = 0; i < HOT; i++) {
			err = perfring_jitdump_write_move(w, (uint64_t)i,
							  (uintptr_t)(region + i * size),
							  (uintptr_t)(region2 + i * size),
							  (uint64_t)size);
			if (err)
				die("write_move", err);
		}
	}
	for (long i = HOT; i < n; i++)
		((fn_t)(void *)(region + i * size))();
	{
		uint8_t *base = region2 ? region2 : region;
		double end = now_ms() + (double)ms;

		/* weights 1:2:3:4 come from the iteration counts */
		while (now_ms() < end)
			for (long i = 0; i < HOT; i++)
				((fn_t)(void *)(base + i * size))();
	}
out:
	if (map && fclose(map))
		die("perf map", errno);
	err = perfring_jitdump_writer_close(w);
	if (err)
		die("close", err);
	return 0;
}
