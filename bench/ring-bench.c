/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring-write, ring-read and nested-write benchmarks, each against
 * what a user would otherwise use, in the same run, on the same records:
 *
 *   ring-write   one producer writes 48-byte FORK / 104-byte MMAP2 records
 *                into a 64 MiB ring while a reader thread drains it.  The
 *                reader polls as a consumer does: when it finds the ring
 *                empty it sleeps 20 us (BENCH_READER_SLEEP_US; the peers'
 *                readers block in pop / read).  A reader spinning on
 *                data_head instead costs the writer a cache-line transfer
 *                per record; that rate is printed as an INFO line.
 *                Peers: memcpy of the same bytes (bulk, 64 MiB buffers),
 *                the same records through a GAsyncQueue (g_malloc + push,
 *                pop + g_free) and through a pipe (one write per record).
 *   ring-read    reading the same stream out of a filled ring, against a
 *                memcpy of the same bytes.
 *   nested-write a write from a signal handler that interrupted an open
 *                reservation, against a plain write.
 *
 * Sizes scale with BENCH_SCALE, repetitions with BENCH_REPS; medians are
 * reported.  Single-thread costs (the producer's, memcpy's, the reader's in
 * ring-read, nested-write) are the thread's CPU time, so that a busy shared
 * machine does not count its time slices; rates through a reader thread
 * (ring pipeline, GAsyncQueue, pipe) are wall time.  Output: BENCH lines (see bench-common.h) and INFO lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>
#include <perfring/perfring.h>

#include "bench-common.h"

/* 64 MiB, the ring the targets are set for; BENCH_RING_MB overrides it. */
static uint64_t RING_SIZE = 64ull << 20;
#define NSRC 4096		/* distinct records cycled through */

static double g_scale;
static int g_reps;
/* BENCH_READER_SLEEP_US: how long the reader sleeps when it caught up. */
static unsigned g_reader_sleep_us = 20;

/* ---- records --------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void put_hdr(unsigned char *p, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(p, type);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size, 2);
}

/* FORK + TID|TIME trailer: 8 + 16 + 8 + 16 = 48 bytes. */
static size_t make_fork(unsigned char *p, uint32_t i)
{
	memset(p, 0, 48);
	put_hdr(p, PERFRING_RECORD_FORK, 0, 48);
	put32(p + 8, 1000 + i);		/* pid */
	put32(p + 12, 999);		/* ppid */
	put32(p + 16, 1000 + i);	/* tid */
	put32(p + 20, 999);		/* ptid */
	put64(p + 24, 1000000ull * i);	/* time */
	put32(p + 32, 999);		/* trailer pid/tid/time */
	put32(p + 36, 999);
	put64(p + 40, 1000000ull * i);
	return 48;
}

/* MMAP2 with a 14-byte file name (16 padded) + trailer: 72 + 16 + 16 = 104. */
static size_t make_mmap2(unsigned char *p, uint32_t i)
{
	memset(p, 0, 104);
	put_hdr(p, PERFRING_RECORD_MMAP2, PERFRING_MISC_USER, 104);
	put32(p + 8, 1000 + i);
	put32(p + 12, 1000 + i);
	put64(p + 16, 0x400000ull + 4096ull * i);	/* addr */
	put64(p + 24, 0x10000);				/* len */
	put64(p + 32, 0);				/* pgoff */
	put32(p + 40, 8);				/* maj */
	put32(p + 44, 1);				/* min */
	put64(p + 48, 123456 + i);			/* ino */
	put64(p + 56, 0);				/* ino_generation */
	put32(p + 64, 5);				/* prot */
	put32(p + 68, 2);				/* flags */
	memcpy(p + 72, "/usr/bin/prog", 14);
	put32(p + 88, 1000 + i);
	put32(p + 92, 1000 + i);
	put64(p + 96, 1000000ull * i);
	return 104;
}

struct stream {
	const char *name;	/* fork, mmap2 */
	size_t rec;		/* record size */
	unsigned char *src;	/* NSRC records back to back */
};

static void make_stream(struct stream *s, const char *name)
{
	size_t (*mk)(unsigned char *, uint32_t) = strcmp(name, "fork") ? make_mmap2 : make_fork;
	uint32_t i;

	s->name = name;
	s->rec = mk((unsigned char[128]){ 0 }, 0);
	s->src = malloc(s->rec * NSRC);
	for (i = 0; i < NSRC; i++)
		mk(s->src + s->rec * i, i);
}

/* ---- rings ----------------------------------------------------------------- */

static struct perfring_attr g_attr;

static struct perfring_ring *new_ring(uint64_t size)
{
	static uint64_t id = 42;
	PERFRING_EVENT_DESC(ev, .attr = &g_attr, .ids = &id, .nr_ids = 1, .name = "cpu-clock");
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_ANON, .data_size = size,
			   .events = &ev, .nr_events = 1);
	struct perfring_ring *r;
	int err;

	g_attr.type = PERFRING_TYPE_SOFTWARE;
	g_attr.size = PERFRING_ATTR_SIZE_VER8;
	g_attr.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME;
	g_attr.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_COMM | PERFRING_ATTR_MMAP2 |
		       PERFRING_ATTR_TASK;
	err = perfring_ring_create(&o, NULL, &r);
	if (err) {
		fprintf(stderr, "ring-bench: perfring_ring_create: %s\n", strerror(-err));
		exit(2);
	}
	return r;
}

/* Read everything available; returns records read. */
static uint64_t drain(struct perfring_reader *rd)
{
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t n = 0;
	int rc;

	while ((rc = perfring_reader_next(rd, &rec)) == 1)
		n++;
	if (rc < 0) {
		fprintf(stderr, "ring-bench: reader: %s\n",
			perfring_diag_format(perfring_reader_diag(rd), NULL, 0));
		exit(2);
	}
	perfring_reader_consume(rd);
	return n;
}

/* Fault the whole ring in: a user's ring is warm after its first lap. */
static void warm(struct perfring_ring *r, struct perfring_reader *rd, const struct stream *s)
{
	for (int lap = 0; lap < 3; lap++) {
		for (uint64_t i = 0; i < RING_SIZE / 2 / s->rec; i++)
			perfring_ring_write(r, s->src + s->rec * (i % NSRC));
		drain(rd);
	}
}

/* ---- ring-write: producer + concurrent reader ------------------------------ */

struct rw_run {
	struct perfring_ring *r;
	struct perfring_reader *rd;
	atomic_int done;
	uint64_t read_records;	/* by the reader thread */
	uint64_t sum;		/* touched bytes, so the reads are not dead */
	double t_read_end;
};

static void *rw_reader(void *arg)
{
	struct rw_run *run = arg;
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t n = 0, sum = 0, batch = 0;
	int rc;

	for (;;) {
		int done = atomic_load_explicit(&run->done, memory_order_acquire);

		while ((rc = perfring_reader_next(run->rd, &rec)) == 1) {
			n++;
			sum += rec.hdr->type;
			if (++batch == 256) {
				perfring_reader_consume(run->rd);
				batch = 0;
			}
		}
		perfring_reader_consume(run->rd);
		if (rc < 0) {
			fprintf(stderr, "ring-bench: reader: %s\n",
				perfring_diag_format(perfring_reader_diag(run->rd), NULL, 0));
			exit(2);
		}
		if (done)
			break;
		if (g_reader_sleep_us)
			usleep(g_reader_sleep_us);
		else
			bench_cpu_relax();
	}
	run->read_records = n;
	run->sum = sum;
	run->t_read_end = bench_now();
	return NULL;
}

struct rw_result {
	double prod_ns;		/* producer ns per record, waits for space excluded */
	double pipe_rps;	/* records delivered to the reader per second */
	double waited;		/* share of the producer's time spent waiting */
};

/*
 * Write n records while a reader drains.  Every 1024 records the producer
 * looks at the fill level and, above half the ring, waits (timed, excluded
 * from the write cost) until the reader is below a quarter: so no record is
 * dropped and the write cost is measured with the reader running.
 */
static struct rw_result ring_write_once(const struct stream *s, uint64_t n)
{
	struct rw_run run = { 0 };
	struct perfring_ring_stats st = { .sz = sizeof(st) };
	struct rw_result res;
	pthread_t th;
	double t0, c0, c1, waited = 0;
	uint64_t i;

	run.r = new_ring(RING_SIZE);
	if (perfring_reader_new(run.r, &run.rd))
		exit(2);
	warm(run.r, run.rd, s);

	pthread_create(&th, NULL, rw_reader, &run);
	t0 = bench_now();
	c0 = bench_cpu_now();
	for (i = 0; i < n; i++) {
		if (!(i & 1023)) {
			perfring_ring_get_stats(run.r, &st);
			if (st.head - st.tail > RING_SIZE / 2) {
				double w0 = bench_cpu_now();

				do {
					bench_cpu_relax();
					perfring_ring_get_stats(run.r, &st);
				} while (st.head - st.tail > RING_SIZE / 4);
				waited += bench_cpu_now() - w0;
			}
		}
		if (perfring_ring_write(run.r, s->src + s->rec * (i & (NSRC - 1)))) {
			fprintf(stderr, "ring-bench: write failed at %" PRIu64 "\n", i);
			exit(2);
		}
	}
	c1 = bench_cpu_now();
	atomic_store_explicit(&run.done, 1, memory_order_release);
	pthread_join(th, NULL);
	perfring_ring_get_stats(run.r, &st);
	if (run.read_records != n || st.dropped) {
		fprintf(stderr, "ring-bench: reader saw %" PRIu64 " of %" PRIu64
			" records, %" PRIu64 " dropped\n", run.read_records, n, st.dropped);
		exit(2);
	}
	/* producer: its own CPU time, waits for space excluded */
	res.prod_ns = (c1 - c0 - waited) * 1e9 / (double)n;
	res.pipe_rps = (double)n / (run.t_read_end - t0);
	res.waited = waited / (c1 - c0);
	perfring_reader_free(run.rd);
	perfring_ring_close(run.r);
	return res;
}

/* ---- ring-write alone, and the naive ring it is compared with --------------- */

/*
 * What a producer would cost without any of the ring's guarantees: one
 * thread, no signal safety, no room check, no wrap (the buffer has a
 * record's worth of slack at the end), no LOST: copy the record (size from
 * its header, libc memcpy) and publish the new head with a release store.
 * Not inlined, as perfring_ring_write is a call into the library.  It
 * does not prefetch, where the ring's fast path does (lib/ring/ring.c,
 * PREFETCH_AHEAD): with a ring larger than the caches that makes the ring
 * faster than this copy, a ratio below 1.
 */
struct naive_ring {
	unsigned char *data;
	uint64_t mask;
	_Alignas(64) _Atomic uint64_t head;
};

__attribute__((noinline)) static void naive_write(struct naive_ring *q, const void *rec)
{
	uint16_t size;
	uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);

	memcpy(&size, (const unsigned char *)rec + 6, 2);
	memcpy(q->data + (h & q->mask), rec, size);
	atomic_store_explicit(&q->head, h + size, memory_order_release);
}

/*
 * Producer CPU ns per record, nobody reading concurrently: n records in
 * batches of half the ring; between batches (untimed) the same thread reads
 * the batch back (perfring_reader_next for the ring, a byte sum for the
 * naive buffer), so both start each batch with the same cache state.
 */
static double ring_alone_ns(const struct stream *s, uint64_t n)
{
	struct perfring_ring *r = new_ring(RING_SIZE);
	struct perfring_reader *rd;
	uint64_t batch = RING_SIZE / 2 / s->rec, i = 0;
	double t = 0;

	if (perfring_reader_new(r, &rd))
		exit(2);
	warm(r, rd, s);
	while (i < n) {
		uint64_t k = n - i < batch ? n - i : batch;
		double c0 = bench_cpu_now();

		for (uint64_t j = 0; j < k; j++, i++)
			if (perfring_ring_write(r, s->src + s->rec * (i & (NSRC - 1))))
				exit(2);
		t += bench_cpu_now() - c0;
		if (drain(rd) != k)
			exit(2);
	}
	perfring_reader_free(rd);
	perfring_ring_close(r);
	return t * 1e9 / (double)n;
}

/*
 * Overwrite (flight-recorder) mode, as a kernel's always-on ring runs: the
 * same writes into a write_backward ring that keeps the newest data, with
 * no reader (none is needed; the oldest records are overwritten).
 */
static double ring_ow_alone_ns(const struct stream *s, uint64_t n)
{
	static uint64_t id = 42;
	PERFRING_EVENT_DESC(ev, .attr = &g_attr, .ids = &id, .nr_ids = 1, .name = "cpu-clock");
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_ANON, .data_size = RING_SIZE,
			   .flags = PERFRING_RING_OVERWRITE, .events = &ev, .nr_events = 1);
	struct perfring_ring *r;
	double c0, t;
	uint64_t i;

	if (perfring_ring_create(&o, NULL, &r))
		exit(2);
	for (i = 0; i < RING_SIZE / s->rec; i++)	/* faulted in, as warm() does */
		if (perfring_ring_write(r, s->src + s->rec * (i & (NSRC - 1))))
			exit(2);
	c0 = bench_cpu_now();
	for (i = 0; i < n; i++)
		if (perfring_ring_write(r, s->src + s->rec * (i & (NSRC - 1))))
			exit(2);
	t = bench_cpu_now() - c0;
	perfring_ring_close(r);
	return t * 1e9 / (double)n;
}

static double naive_alone_ns(const struct stream *s, uint64_t n)
{
	static struct naive_ring q;
	uint64_t batch = RING_SIZE / 2 / s->rec, i = 0, sum = 0;
	double t = 0;

	if (!q.data) {
		q.data = mmap(NULL, RING_SIZE + 65536, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q.data == MAP_FAILED)
			exit(2);
		memset(q.data, 0, RING_SIZE + 65536);	/* faulted in, as warm() does */
		q.mask = RING_SIZE - 1;
	}
	while (i < n) {
		uint64_t k = n - i < batch ? n - i : batch;
		uint64_t h0 = atomic_load_explicit(&q.head, memory_order_relaxed);
		double c0 = bench_cpu_now();

		for (uint64_t j = 0; j < k; j++, i++)
			naive_write(&q, s->src + s->rec * (i & (NSRC - 1)));
		t += bench_cpu_now() - c0;
		/* read the batch back, as drain() does for the ring */
		for (uint64_t o = 0; o < k * s->rec; o += 8)
			sum += q.data[(h0 + o) & q.mask];
	}
	if (!sum)
		exit(2);
	return t * 1e9 / (double)n;
}

/* ---- peers -------------------------------------------------------------------- */

/* Bulk memcpy bandwidth (bytes/s) on 64 MiB buffers of the same records. */
static double memcpy_bw(const struct stream *s, uint64_t bytes)
{
	static unsigned char *src, *dst;
	uint64_t done = 0;
	double t0, t;

	if (!src) {
		src = malloc(RING_SIZE);
		dst = malloc(RING_SIZE);
		memset(dst, 1, RING_SIZE);
	}
	for (uint64_t o = 0; o + s->rec <= RING_SIZE; o += s->rec)
		memcpy(src + o, s->src + s->rec * ((o / s->rec) % NSRC), s->rec);
	memcpy(dst, src, RING_SIZE);	/* warm */
	t0 = bench_cpu_now();
	while (done < bytes) {
		uint64_t len = bytes - done < RING_SIZE ? bytes - done : RING_SIZE;

		memcpy(dst, src, len);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		done += len;
	}
	t = bench_cpu_now() - t0;
	return (double)bytes / t;
}

struct q_run {
	GAsyncQueue *q;
	size_t rec;
	uint64_t n, sum;
};

static void *q_consumer(void *arg)
{
	struct q_run *run = arg;
	uint64_t i, sum = 0;

	for (i = 0; i < run->n; i++) {
		unsigned char *p = g_async_queue_pop(run->q);

		sum += p[0];
		g_free(p);
	}
	run->sum = sum;
	return NULL;
}

/* Records per second through a GAsyncQueue (producer copy + consumer free). */
static double gasyncqueue_rps(const struct stream *s, uint64_t n)
{
	struct q_run run = { g_async_queue_new(), s->rec, n, 0 };
	pthread_t th;
	double t0, t;
	uint64_t i;

	t0 = bench_now();
	pthread_create(&th, NULL, q_consumer, &run);
	for (i = 0; i < n; i++)
		g_async_queue_push(run.q, g_memdup2(s->src + s->rec * (i & (NSRC - 1)), s->rec));
	pthread_join(th, NULL);
	t = bench_now() - t0;
	g_async_queue_unref(run.q);
	return (double)n / t;
}

struct p_run {
	int fd;
	uint64_t bytes;
};

static void *p_consumer(void *arg)
{
	struct p_run *run = arg;
	static unsigned char buf[1 << 16];
	ssize_t k;

	while ((k = read(run->fd, buf, sizeof(buf))) > 0)
		run->bytes += (uint64_t)k;
	return NULL;
}

/* Records per second through a pipe: one write(2) per record. */
static double pipe_rps(const struct stream *s, uint64_t n)
{
	struct p_run run = { -1, 0 };
	pthread_t th;
	int fds[2];
	double t0, t;
	uint64_t i;

	if (pipe(fds))
		exit(2);
	run.fd = fds[0];
	t0 = bench_now();
	pthread_create(&th, NULL, p_consumer, &run);
	for (i = 0; i < n; i++)
		if (write(fds[1], s->src + s->rec * (i & (NSRC - 1)), s->rec) != (ssize_t)s->rec)
			exit(2);
	close(fds[1]);
	pthread_join(th, NULL);
	t = bench_now() - t0;
	close(fds[0]);
	if (run.bytes != n * s->rec)
		exit(2);
	return (double)n / t;
}

/* ---- ring-read --------------------------------------------------------------- */

/* Bytes per second reading a ring filled with ~60 MiB of records. */
static double ring_read_bw(const struct stream *s, struct perfring_ring *r,
			   struct perfring_reader *rd, uint64_t *bytesp)
{
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t i, n = (RING_SIZE - (4ull << 20)) / s->rec, sum = 0, got = 0;
	double t0, t;
	int rc;

	for (i = 0; i < n; i++)
		if (perfring_ring_write(r, s->src + s->rec * (i & (NSRC - 1))))
			exit(2);
	t0 = bench_cpu_now();
	while ((rc = perfring_reader_next(rd, &rec)) == 1) {
		sum += rec.hdr->type;
		got++;
	}
	perfring_reader_consume(rd);
	t = bench_cpu_now() - t0;
	if (got != n || sum == 0)
		exit(2);
	*bytesp = n * s->rec;
	return (double)(n * s->rec) / t;
}

/* ---- nested-write -------------------------------------------------------------- */

static struct perfring_ring *g_nring;
static const unsigned char *g_nrec;
static uint64_t g_nk;
static double g_nested_ns;

static void nested_handler(int sig)
{
	double t0 = bench_cpu_now();

	(void)sig;
	for (uint64_t k = 0; k < g_nk; k++)
		perfring_ring_write(g_nring, g_nrec);
	g_nested_ns = (bench_cpu_now() - t0) * 1e9 / (double)g_nk;
}

static void nested_bench(const struct stream *s)
{
	struct perfring_reader *rd;
	struct perfring_wr w;
	uint64_t k = (uint64_t)(200000 * g_scale);
	double plain[64], nested[64], t0;
	int i, reps = g_reps + 1;

	if (k < 1000)
		k = 1000;
	if (reps > 64)
		reps = 64;
	g_nring = new_ring(RING_SIZE);
	perfring_reader_new(g_nring, &rd);
	warm(g_nring, rd, s);
	g_nrec = s->src;
	g_nk = k;
	signal(SIGUSR1, nested_handler);
	for (i = 0; i < reps; i++) {
		/* plain writes from the thread */
		t0 = bench_cpu_now();
		for (uint64_t j = 0; j < k; j++)
			perfring_ring_write(g_nring, g_nrec);
		plain[i] = (bench_cpu_now() - t0) * 1e9 / (double)k;
		drain(rd);
		/* writes from a handler that interrupted an open reservation */
		if (perfring_ring_reserve(g_nring, s->rec, &w))
			exit(2);
		perfring_ring_copy(g_nring, &w, 0, s->src, s->rec);
		raise(SIGUSR1);
		perfring_ring_commit(g_nring, &w);
		nested[i] = g_nested_ns;
		if (drain(rd) != k + 1)
			exit(2);
	}
	/* the first repetition warmed the ring up: leave it out */
	{
		double p = bench_median(plain + 1, reps - 1), q = bench_median(nested + 1, reps - 1);
		char a[64], b[64];

		snprintf(a, sizeof(a), "%.2fns/write(handler,nested)", q);
		snprintf(b, sizeof(b), "%.2fns/write(plain)", p);
		bench_line("nested-write", a, b, q / p, -1, 0);
	}
	signal(SIGUSR1, SIG_DFL);
	perfring_reader_free(rd);
	perfring_ring_close(g_nring);
}

/* ---- main ------------------------------------------------------------------------ */

static void ring_write_bench(const struct stream *s)
{
	uint64_t n = (uint64_t)(20e6 * g_scale * 48 / (double)s->rec);
	uint64_t npeer = n / 8;
	double prod[64], pipe_r[64], wait[64], mc[64], q[64], p[64], alone[64], naive[64], ow[64];
	double prod_ns, ours_rps, ours_bps, mc_bps, q_rps, p_rps, alone_ns, naive_ns;
	int reps = g_reps > 64 ? 64 : g_reps, i;
	char a[96], b[96], name[64];

	if (n < 100000)
		n = 100000;
	if (npeer < 20000)
		npeer = 20000;
	for (i = 0; i < reps; i++) {
		struct rw_result r = ring_write_once(s, n);

		prod[i] = r.prod_ns;
		pipe_r[i] = r.pipe_rps;
		wait[i] = r.waited;
		/* alone and naive alternate, so load changes hit both alike */
		alone[i] = ring_alone_ns(s, n);
		naive[i] = naive_alone_ns(s, n);
		ow[i] = ring_ow_alone_ns(s, n);
		mc[i] = memcpy_bw(s, n * s->rec);
		q[i] = gasyncqueue_rps(s, npeer);
		p[i] = pipe_rps(s, npeer);
	}
	prod_ns = bench_median(prod, reps);
	alone_ns = bench_median(alone, reps);
	naive_ns = bench_median(naive, reps);
	ours_rps = bench_median(pipe_r, reps);
	mc_bps = bench_median(mc, reps);
	q_rps = bench_median(q, reps);
	p_rps = bench_median(p, reps);
	ours_bps = 1e9 / prod_ns * (double)s->rec;
	printf("INFO ring-write-%s records=%" PRIu64 " (peers %" PRIu64 ") size=%zu ring=64MiB"
	       " producer-waited=%.0f%% reader-pipeline=%.1fMrec/s reps=%d\n",
	       s->name, n, npeer, s->rec, bench_median(wait, reps) * 100, ours_rps / 1e6, reps);

	if (g_reader_sleep_us) {
		unsigned save = g_reader_sleep_us;
		double spin[64];

		g_reader_sleep_us = 0;
		for (i = 0; i < reps; i++)
			spin[i] = ring_write_once(s, n).prod_ns;
		g_reader_sleep_us = save;
		printf("INFO ring-write-%s with a reader spinning on data_head (no sleep): %.2f ns/rec"
		       " (polling reader, %u us sleeps: %.2f ns/rec)\n",
		       s->name, bench_median(spin, reps), save, prod_ns);
	}

	printf("INFO ring-write-%s-rate %.1fMrec/s(%.2fns/rec,%.2fGB/s) with a reader draining\n",
	       s->name, 1e3 / prod_ns, prod_ns, ours_bps / 1e9);

	/* The bounds are for the 48-byte records; mmap2 is printed as INFO. */
	snprintf(name, sizeof(name), "ring-write-%s-vs-naive", s->name);
	snprintf(a, sizeof(a), "%.2fns/rec", alone_ns);
	snprintf(b, sizeof(b), "%.2fns/rec(naive-copy+release)", naive_ns);
	bench_line(name, a, b, alone_ns / naive_ns, strcmp(s->name, "fork") ? -1 : 1.1, 0);

	snprintf(name, sizeof(name), "ring-write-overwrite-%s-vs-naive", s->name);
	snprintf(a, sizeof(a), "%.2fns/rec(overwrite)", bench_median(ow, reps));
	bench_line(name, a, b, bench_median(ow, reps) / naive_ns, strcmp(s->name, "fork") ? -1 : 1.3, 0);

	snprintf(name, sizeof(name), "ring-write-%s-reader-vs-alone", s->name);
	snprintf(a, sizeof(a), "%.1fMrec/s(reader-draining)", 1e3 / prod_ns);
	snprintf(b, sizeof(b), "%.1fMrec/s(producer-alone)", 1e3 / alone_ns);
	bench_line(name, a, b, alone_ns / prod_ns, 0.7, 1);

	snprintf(name, sizeof(name), "ring-write-%s-vs-memcpy", s->name);
	snprintf(a, sizeof(a), "%.2fGB/s", ours_bps / 1e9);
	snprintf(b, sizeof(b), "%.2fGB/s(memcpy)", mc_bps / 1e9);
	bench_line(name, a, b, ours_bps / mc_bps, 0.5, 1);

	snprintf(name, sizeof(name), "ring-write-%s-vs-gasyncqueue", s->name);
	snprintf(a, sizeof(a), "%.1fMrec/s(writer+reader)", ours_rps / 1e6);
	snprintf(b, sizeof(b), "%.2fMrec/s(GAsyncQueue)", q_rps / 1e6);
	bench_line(name, a, b, ours_rps / q_rps, 20, 1);

	snprintf(name, sizeof(name), "ring-write-%s-vs-pipe", s->name);
	snprintf(b, sizeof(b), "%.2fMrec/s(pipe)", p_rps / 1e6);
	bench_line(name, a, b, ours_rps / p_rps, 20, 1);
}

static void ring_read_bench(const struct stream *s)
{
	struct perfring_ring *r = new_ring(RING_SIZE);
	struct perfring_reader *rd;
	double rb[64], mc[64];
	int reps = (g_reps > 63 ? 63 : g_reps) + 1, i;
	uint64_t bytes = 0;
	char a[64], b[64], name[64];

	perfring_reader_new(r, &rd);
	for (i = 0; i < reps; i++) {
		rb[i] = ring_read_bw(s, r, rd, &bytes);
		mc[i] = memcpy_bw(s, bytes);
	}
	/* repetition 0 faulted the ring in */
	double ours = bench_median(rb + 1, reps - 1), peer = bench_median(mc + 1, reps - 1);

	snprintf(name, sizeof(name), "ring-read-%s", s->name);
	snprintf(a, sizeof(a), "%.2fGB/s(%.1fMrec/s)", ours / 1e9, ours / (double)s->rec / 1e6);
	snprintf(b, sizeof(b), "%.2fGB/s(memcpy)", peer / 1e9);
	printf("INFO ring-read-%s bytes=%" PRIu64 " per repetition\n", s->name, bytes);
	bench_line(name, a, b, ours / peer, 0.6, 1);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}

#ifndef RING_BENCH_NO_MAIN
int main(int argc, char **argv)
{
	struct stream fork_s, mmap2_s;
	const char *only = argc > 1 ? argv[1] : "all";

	g_scale = bench_scale();
	g_reps = bench_reps();
	if (getenv("BENCH_READER_SLEEP_US"))
		g_reader_sleep_us = (unsigned)atoi(getenv("BENCH_READER_SLEEP_US"));
	if (getenv("BENCH_RING_MB"))
		RING_SIZE = strtoull(getenv("BENCH_RING_MB"), NULL, 0) << 20;
	make_stream(&fork_s, "fork");
	make_stream(&mmap2_s, "mmap2");
	if (!strcmp(only, "all") || !strcmp(only, "ring-write")) {
		ring_write_bench(&fork_s);
		ring_write_bench(&mmap2_s);
	}
	if (!strcmp(only, "all") || !strcmp(only, "ring-read")) {
		ring_read_bench(&fork_s);
		ring_read_bench(&mmap2_s);
	}
	if (!strcmp(only, "ring-write-only")) {	/* for profiling the write path */
		for (int i = 0; i < g_reps; i++) {
			struct rw_result r = ring_write_once(&fork_s, (uint64_t)(20e6 * g_scale));

			printf("ring-write-only fork: %.2f ns/rec, reader pipeline %.1f Mrec/s\n",
			       r.prod_ns, r.pipe_rps / 1e6);
		}
	}
	if (!strcmp(only, "ring-write-naive")) {	/* the three producer costs, quickly */
		uint64_t n = (uint64_t)(20e6 * g_scale);

		for (int i = 0; i < g_reps; i++) {
			double a = ring_alone_ns(&fork_s, n), b = naive_alone_ns(&fork_s, n);
			double c = ring_write_once(&fork_s, n).prod_ns;

			printf("fork: alone %.2f naive %.2f (x%.2f) reader %.2f ns/rec (x%.2f)\n",
			       a, b, a / b, c, a / c);
		}
	}
	if (!strcmp(only, "all") || !strcmp(only, "nested-write"))
		nested_bench(&fork_s);
	return 0;
}
#endif
