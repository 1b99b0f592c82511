/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * marks-bench: the cost of a marker (include/perfring/marks.h) against its
 * peers, measured in one run.
 *
 *   marker-vs-ring-write   ns per perfring_mark_id (a span edge by id: a
 *                          24-byte record) against writing a record of the
 *                          same size with the ring API by hand, CLOCK_MONOTONIC
 *                          stamp included (what a program would do without
 *                          the markers API).  Target <= 1.3.
 *   marker-vs-samply-text  ns per span (BEGIN + END) against the text line
 *                          samply's marker files hold, "START END NAME\n",
 *                          written with fprintf into a file that is also
 *                          mapped executable (as samply's are, so that perf
 *                          sees it) and stamped twice.  Target >= 10.
 *   marker-bytes           bytes per span, ours against the text line's.
 *                          Target: >= 3x fewer.
 * Times are the thread's CPU time, medians of BENCH_REPS repetitions.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/marks.h>

#include "bench-common.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void drain(struct perfring_reader *rd)
{
	struct perfring_record rec = { .sz = sizeof(rec) };

	while (perfring_reader_next(rd, &rec) == 1)
		;
	perfring_reader_consume(rd);
}

/* ns per marker: n span edges by id, alternating BEGIN and END; then
 * the thread's ring is drained (rd), so that every repetition writes
 * into warm pages, as the ring-write peer does */
static double marks_ns(int id, uint64_t n, struct perfring_reader *rd)
{
	double t0 = bench_cpu_now(), t;

	for (uint64_t i = 0; i < n; i += 2) {
		if (perfring_mark_id(PERFRING_MARK_BEGIN, id, 0, NULL) ||
		    perfring_mark_id(PERFRING_MARK_END, id, 0, NULL)) {
			fprintf(stderr, "marks-bench: a marker was refused (ring too small?)\n");
			exit(2);
		}
	}
	t = bench_cpu_now() - t0;
	drain(rd);
	return t * 1e9 / (double)n;
}

/* ns per record: the same 24 bytes built and written by hand */
static double ring_ns(struct perfring_ring *r, struct perfring_reader *rd, uint64_t n)
{
	unsigned char rec[24] = { 9, 0, 0, 0, 2, 0, 24, 0 };
	double t0, t;

	rec[16] = 4;				/* raw_size */
	rec[20] = 1, rec[22] = 1;		/* BEGIN, id 1 */
	t0 = bench_cpu_now();
	for (uint64_t i = 0; i < n; i++) {
		uint64_t now = mono_ns();

		memcpy(rec + 8, &now, 8);
		if (perfring_ring_write(r, rec)) {
			fprintf(stderr, "marks-bench: the ring is full\n");
			exit(2);
		}
	}
	t = bench_cpu_now() - t0;
	drain(rd);
	return t * 1e9 / (double)n;
}

/* ns per span: one samply-style text line, two stamps */
static double text_ns(FILE *f, uint64_t spans, double *bytes)
{
	long before = ftell(f);
	double t0 = bench_cpu_now(), t;

	for (uint64_t i = 0; i < spans; i++) {
		uint64_t start = mono_ns(), end = mono_ns();

		fprintf(f, "%llu %llu request\n", (unsigned long long)start, (unsigned long long)end);
	}
	fflush(f);
	t = bench_cpu_now() - t0;
	*bytes = (double)(ftell(f) - before) / (double)spans;
	return t * 1e9 / (double)spans;
}

int main(void)
{
	double scale = bench_scale(), m[64], w[64], tx[64], tb = 0;
	int reps = bench_reps() > 64 ? 64 : bench_reps();
	uint64_t n = (uint64_t)(1e6 * scale) & ~1ull;
	char dir[] = "/tmp/marks-bench.XXXXXX", path[64], a[64], b[64];
	struct perfring_marks_stats st = { .sz = sizeof(st) };
	struct perfring_ring *r, *mr;
	struct perfring_reader *rd, *mrd;
	int id, fd;
	FILE *f;
	void *map;

	if (n < 20000)
		n = 20000;
	if (!mkdtemp(dir))
		return 2;
	if (n > (40u << 20) / 24)	/* both rings are 64 MiB, drained after each repetition */
		n = ((40u << 20) / 24) & ~1ull;
	setenv("PERFRING_MARKS_DIR", dir, 1);
	setenv("PERFRING_MARKS_SIZE", "67108864", 1);
	id = perfring_mark_register("request");
	if (id < 0 || perfring_marks_thread_init()) {
		fprintf(stderr, "marks-bench: no marker ring\n");
		return 2;
	}
	/* this thread's marker ring, opened as its reader would open it */
	snprintf(path, sizeof(path), "%s/perfring-marks-%d-%d.ring", dir, (int)getpid(), (int)gettid());
	if (perfring_ring_open(path, PERFRING_RING_READ, NULL, &mr) || perfring_reader_new(mr, &mrd)) {
		fprintf(stderr, "marks-bench: cannot read %s\n", path);
		return 2;
	}
	{
		static uint64_t eid = 1;
		struct perfring_attr attr = { .type = PERFRING_TYPE_SOFTWARE, .config = 9,
					      .size = PERFRING_ATTR_SIZE_VER8,
					      .sample_type = PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW,
					      .flags = PERFRING_ATTR_SAMPLE_ID_ALL };
		PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &eid, .nr_ids = 1, .name = "perfring:mark");
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_ANON, .data_size = 64u << 20,
				   .events = &ev, .nr_events = 1);

		if (perfring_ring_create(&o, NULL, &r) || perfring_reader_new(r, &rd))
			return 2;
	}
	snprintf(path, sizeof(path), "%s/marker-%d.txt", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) || (f = fdopen(fd, "w")) == NULL)
		return 2;
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	/* one warm-up of each, then alternate so load changes hit all alike */
	marks_ns(id, n, mrd);
	ring_ns(r, rd, n);
	for (int i = 0; i < reps; i++) {
		m[i] = marks_ns(id, n, mrd);
		w[i] = ring_ns(r, rd, n);
		tx[i] = text_ns(f, n / 20, &tb);
	}
	perfring_marks_get_stats(&st);
	{
		double mm = bench_median(m, reps), ww = bench_median(w, reps), tt = bench_median(tx, reps);

		printf("INFO marks markers=%llu per repetition, reps=%d, dropped=%llu\n",
		       (unsigned long long)n, reps, (unsigned long long)st.dropped);
		snprintf(a, sizeof(a), "%.2fns/marker", mm);
		snprintf(b, sizeof(b), "%.2fns/record(ring-write+clock)", ww);
		bench_line("marker-vs-ring-write", a, b, mm / ww, 1.3, 0);
		snprintf(a, sizeof(a), "%.2fns/span(2 markers)", 2 * mm);
		snprintf(b, sizeof(b), "%.2fns/span(fprintf line)", tt);
		bench_line("marker-vs-samply-text", a, b, tt / (2 * mm), 10, 1);
		snprintf(a, sizeof(a), "48B/span(24B/marker)");
		snprintf(b, sizeof(b), "%.1fB/span(text line)", tb);
		bench_line("marker-bytes", a, b, tb / 48.0, 3, 1);
	}
	fclose(f);
	if (map != MAP_FAILED)
		munmap(map, 4096);
	perfring_reader_free(rd);
	perfring_reader_free(mrd);
	perfring_ring_close(r);
	perfring_ring_close(mr);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "marks-bench: could not remove %s\n", dir);
	}
	return 0;
}
