/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring-write against LTTng-UST, in one process and one run: the same FORK
 * payload (40 bytes after the header) as a tracepoint into an active session
 * (set up by lttng-run.sh), and as a perfring_ring_write into a 64 MiB ring
 * drained by a reader thread.  Built by run-bench.sh only where
 * liblttng-ust-dev is installed; never part of `make` or CI.
 * Output: one BENCH line (ns per record, medians of BENCH_REPS runs).
 */
#define RING_BENCH_NO_MAIN
#include "ring-bench.c"

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng-tp.h"

int main(void)
{
	struct stream s;
	uint64_t n, i;
	double ours[64], peer[64];
	int reps, k;
	char a[96], b[96];

	g_scale = bench_scale();
	g_reps = bench_reps();
	reps = g_reps > 64 ? 64 : g_reps;
	n = (uint64_t)(1e6 * g_scale);
	if (n < 50000)
		n = 50000;
	make_stream(&s, "fork");
	if (!lttng_ust_tracepoint_enabled(perfring_bench, fork)) {
		fprintf(stderr, "lttng-bench: tracepoint perfring_bench:fork is not enabled\n");
		return 3;
	}
	for (k = 0; k < reps; k++) {
		double t0;

		ours[k] = ring_write_once(&s, n).prod_ns;
		t0 = bench_cpu_now();
		for (i = 0; i < n; i++) {
			const unsigned char *p = s.src + s.rec * (i & (NSRC - 1));
			uint32_t v[4];
			uint64_t q[3];

			memcpy(v, p + 8, 16);
			memcpy(q, p + 24, 24);
			lttng_ust_tracepoint(perfring_bench, fork, v[0], v[1], v[2], v[3],
					     q[0], q[1], q[2]);
		}
		peer[k] = (bench_cpu_now() - t0) * 1e9 / (double)n;
		usleep(200000);	/* let the consumer daemon drain */
	}
	double o = bench_median(ours, reps), p = bench_median(peer, reps);

	printf("INFO ring-write-vs-lttng records=%" PRIu64 " per run, reps=%d\n", n, reps);
	snprintf(a, sizeof(a), "%.2fns/rec", o);
	snprintf(b, sizeof(b), "%.2fns/rec(lttng-ust)", p);
	bench_line("ring-write-fork-vs-lttng", a, b, p / o, 15, 1);
	return 0;
}
