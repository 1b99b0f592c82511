/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring-write against LTTng-UST, in one process and one run: the same FORK
 * payload (40 bytes after the header) as a tracepoint into an active session
 * (set up by lttng-run.sh), and as a perfring_ring_write into a 64 MiB ring
 * drained by a reader thread.  Built by run-bench.sh only where
 * liblttng-ust-dev is installed; never part of `make` or CI.
 * Output: one BENCH line (ns per record, medians of BENCH_REPS runs).
 * Then markers (include/perfring/marks.h): span edges by id against a
 * tracepoint with the same payload (kind, flags, id; LTTng stamps it
 * itself as the marker does), ns per marker.
 */
#define RING_BENCH_NO_MAIN
#include "ring-bench.c"

#include <perfring/marks.h>

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

	/* markers: the process's own ring, drained as marks-bench does */
	{
		char dir[] = "/tmp/lttng-marks.XXXXXX", path[96];
		struct perfring_ring *mr;
		struct perfring_reader *mrd;
		int id;

		if (!mkdtemp(dir))
			return 2;
		setenv("PERFRING_MARKS_DIR", dir, 1);
		setenv("PERFRING_MARKS_SIZE", "67108864", 1);
		id = perfring_mark_register("request");
		snprintf(path, sizeof(path), "%s/perfring-marks-%d-%d.ring", dir, (int)getpid(),
			 (int)gettid());
		if (id < 0 || perfring_marks_thread_init() ||
		    perfring_ring_open(path, PERFRING_RING_READ, NULL, &mr) ||
		    perfring_reader_new(mr, &mrd))
			return 2;
		if (n > (40u << 20) / 24)
			n = (40u << 20) / 24;
		n &= ~1ull;
		for (k = 0; k < reps; k++) {
			struct perfring_record rec = { .sz = sizeof(rec) };
			double t0 = bench_cpu_now();

			for (i = 0; i < n; i += 2) {
				perfring_mark_id(PERFRING_MARK_BEGIN, id, 0, NULL);
				perfring_mark_id(PERFRING_MARK_END, id, 0, NULL);
			}
			ours[k] = (bench_cpu_now() - t0) * 1e9 / (double)n;
			while (perfring_reader_next(mrd, &rec) == 1)
				;
			perfring_reader_consume(mrd);
			t0 = bench_cpu_now();
			for (i = 0; i < n; i += 2) {
				lttng_ust_tracepoint(perfring_bench, mark, 1, 0, (uint16_t)id);
				lttng_ust_tracepoint(perfring_bench, mark, 2, 0, (uint16_t)id);
			}
			peer[k] = (bench_cpu_now() - t0) * 1e9 / (double)n;
			usleep(200000);
		}
		o = bench_median(ours, reps);
		p = bench_median(peer, reps);
		snprintf(a, sizeof(a), "%.2fns/marker", o);
		snprintf(b, sizeof(b), "%.2fns/event(lttng-ust)", p);
		bench_line("marker-vs-lttng", a, b, p / o, 10, 1);
		perfring_reader_free(mrd);
		perfring_ring_close(mr);
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		if (system(path) != 0)
			fprintf(stderr, "lttng-bench: could not remove %s\n", dir);
	}
	return 0;
}
