/*
 * Ring safety: crash safety of file rings under SIGKILL at a
 * random moment (100 runs), a hostile producer process scribbling over a
 * shared ring while a reader reads it, and resource edges of the ring
 * (65528-byte records, a ring of one data page, a 1 GiB ring).  (The plugin
 * loader's refusals are in tests/plugins/check_plugin_perms.c.)
 *
 * PERFRING_TEST_SCALE (tests/testutil.h, default 1) multiplies the number of
 * crash runs and the hostile producer's time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <perfring/perfring.h>
#include <perfring/records.h>
#include <perfring/ring.h>

#include "testutil.h"

static char tmpdir[256];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* header {SAMPLE, 0, size}, u64 seq, words derived from (seq, index). */
static void rec_fill(void *buf, uint64_t seq, size_t size)
{
	unsigned char *p = buf;
	struct perfring_event_header h = { PERFRING_RECORD_SAMPLE, 0, (uint16_t)size };

	memcpy(p, &h, 8);
	memcpy(p + 8, &seq, 8);
	for (size_t i = 16; i < size; i += 8) {
		uint64_t v = mix64(seq * 65536 + i);

		memcpy(p + i, &v, 8);
	}
}

/* 1 if the record is intact, with its seq in *seq. */
static int rec_ok(const void *buf, uint64_t *seq)
{
	const unsigned char *p = buf;
	struct perfring_event_header h;

	memcpy(&h, p, 8);
	if (h.type != PERFRING_RECORD_SAMPLE || h.size < 16 || h.size % 8)
		return 0;
	memcpy(seq, p + 8, 8);
	for (size_t i = 16; i < h.size; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (v != mix64(*seq * 65536 + i))
			return 0;
	}
	return 1;
}

static size_t rec_size(uint64_t seq)
{
	return 16 + 8 * (mix64(seq) % 60);
}

static struct perfring_ring *mk_ring(enum perfring_ring_backing b, const char *path,
				     uint64_t data_size)
{
	static const uint64_t ids[] = { 7 };
	struct perfring_attr a;
	PERFRING_EVENT_DESC(ev, .attr = &a, .ids = ids, .nr_ids = 1, .name = "test");
	struct perfring_ring *r = NULL;
	int err;

	memset(&a, 0, sizeof(a));
	a.type = PERFRING_TYPE_SOFTWARE;
	a.size = PERFRING_ATTR_SIZE_VER5;
	a.sample_type = PERFRING_SAMPLE_TID;
	a.sample_period = 1000;
	{
		PERFRING_RING_OPTS(o, .backing = b, .path = path, .data_size = data_size,
				   .flags = b == PERFRING_RING_FILE ? PERFRING_RING_TRUNCATE : 0,
				   .events = &ev, .nr_events = 1);
		err = perfring_ring_create(&o, NULL, &r);
	}
	ck_assert_msg(err == 0, "create %s: %s", path ? path : "(anon)", strerror(-err));
	return r;
}

/* ---- crash safety: SIGKILL at a random moment, 100 runs ------------------ */

START_TEST(test_crash_100)
{
	char path[512];
	unsigned runs = (unsigned)test_scaled(100), run, torn = 0;
	uint64_t total = 0;

	snprintf(path, sizeof(path), "%s/crash.ring", tmpdir);
	srand(12345);
	for (run = 0; run < runs; run++) {
		_Atomic uint64_t *committed;
		struct perfring_ring *r;
		struct perfring_reader *rd;
		struct perfring_record rec = { .sz = sizeof(rec) };
		struct perfring_diag d;
		uint64_t seq, want = 0, c;
		pid_t pid;
		int ret, status;

		committed = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ck_assert(committed != MAP_FAILED);
		atomic_store(committed, 0);
		r = mk_ring(PERFRING_RING_FILE, path, 64 * 4096);
		perfring_ring_close(r);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			unsigned char buf[512];
			uint64_t i;

			if (perfring_ring_open(path, PERFRING_RING_WRITE, &d, &r))
				_exit(3);
			/* write until the ring is full, then wait to be killed */
			for (i = 0;; i++) {
				struct perfring_wr w;
				size_t size = rec_size(i);

				rec_fill(buf, i, size);
				if (perfring_ring_reserve(r, size, &w))
					break;
				/* two copies: a kill between them leaves a half record */
				perfring_ring_copy(r, &w, 0, buf, size / 2);
				perfring_ring_copy(r, &w, size / 2, buf + size / 2, size - size / 2);
				perfring_ring_commit(r, &w);
				atomic_store(committed, i + 1);
			}
			for (;;)
				pause();
		}
		/* random moment: most runs while writing (~1-3 ms to fill) */
		usleep((useconds_t)(rand() % 3000));
		kill(pid, SIGKILL);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status), "run %u: producer exited %d", run,
			      WEXITSTATUS(status));
		c = atomic_load(committed);

		ck_assert_int_eq(perfring_ring_open(path, PERFRING_RING_READ, &d, &r), 0);
		ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
		while ((ret = perfring_reader_next(rd, &rec)) == 1) {
			if (!rec_ok(rec.hdr, &seq) || seq != want) {
				torn++;
				break;
			}
			want++;
		}
		ck_assert_msg(ret == 0, "run %u: reader: %d", run, ret);
		ck_assert_msg(torn == 0, "run %u: record %" PRIu64 " torn or out of order", run, want);
		/* every committed record; at most the one being committed more */
		ck_assert_msg(want == c || want == c + 1,
			      "run %u: read %" PRIu64 ", committed %" PRIu64, run, want, c);
		total += want;
		perfring_reader_free(rd);
		perfring_ring_close(r);
		munmap((void *)committed, 4096);
	}
	unlink(path);
	printf("crash: %u runs, %" PRIu64 " records read back, 0 torn\n", runs, total);
}
END_TEST

/* ---- a hostile producer process ------------------------------------------ */

START_TEST(test_hostile_process)
{
	char path[512];
	struct perfring_ring *r;
	struct perfring_diag d;
	uint64_t data_off, desc_size, data_size, len;
	uint32_t page;
	double t0, limit = 2.0 * test_scale();
	unsigned long opens = 0, open_fail = 0, records = 0, errors = 0, calls = 0;
	double worst = 0;
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/hostile.ring", tmpdir);
	r = mk_ring(PERFRING_RING_FILE, path, 16 * 4096);
	for (int i = 0; i < 200; i++) {
		unsigned char buf[512];

		rec_fill(buf, (uint64_t)i, rec_size((uint64_t)i));
		ck_assert_int_eq(perfring_ring_write(r, buf), 0);
	}
	data_off = perfring_ring_data_file_offset(r);
	data_size = perfring_ring_data_size(r);
	page = perfring_ring_page_size(r);
	desc_size = data_off - page;
	len = data_off + data_size;
	perfring_ring_close(r);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_RDWR);
		unsigned char *m;
		uint64_t x = 42, saved_off = UINT64_MAX, saved;

		if (fd < 0)
			_exit(3);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			_exit(4);
		for (;;) {
			volatile uint64_t *head = (uint64_t *)(m + desc_size + 1024);
			volatile uint64_t *tail = (uint64_t *)(m + desc_size + 1032);
			unsigned k;

			x = mix64(x + 1);
			k = x % 100;
			if (saved_off != UINT64_MAX) {	/* undo the last of the two below */
				memcpy(m + saved_off, &saved, 8);
				saved_off = UINT64_MAX;
			}
			if (k < 50) {		/* a well-formed record, as a producer would */
				uint64_t h = *head & ~7ull, t = *tail;
				size_t sz = rec_size(x), j;
				unsigned char rb[512];

				if (h - t + sz > data_size) {
					*tail = h;	/* "consumed" */
					continue;
				}
				rec_fill(rb, x, sz);
				for (j = 0; j < sz; j++)
					m[data_off + (h + j) % data_size] = rb[j];
				*head = h + sz;
				continue;
			}
			k = k * 2 - 100;	/* the hostile half, spread over 0..99 */
			if (k < 60) {		/* random bytes, often a plausible header */
				uint64_t off = (x >> 8) % (data_size - 8) & ~7ull;
				uint64_t v = mix64(x);

				if (k < 30)
					v = (v & ~0xffff000000000000ull) |
					    ((uint64_t)(8 * (1 + (v >> 56) % 40)) << 48);
				memcpy(m + data_off + off, &v, 8);
			} else if (k < 80) {	/* head anywhere near, or anywhere */
				uint64_t t = *tail;

				*head = k < 78 ? t + ((x >> 16) % (data_size + 64) & ~7ull) :
					 mix64(x);
			} else if (k < 90) {
				*tail = (x & 1) ? *head - ((x >> 16) % data_size) : mix64(x);
			} else if (k < 95) {	/* another control page field, briefly */
				uint64_t off = (x >> 8) % (page / 8) * 8;

				if (off != 1024 && off != 1032) {
					saved_off = desc_size + off;
					memcpy(&saved, m + saved_off, 8);
					*(volatile uint64_t *)(m + saved_off) = mix64(x);
				}
			} else if (k < 97) {	/* a bit of the descriptor, briefly */
				saved_off = (x >> 8) % (desc_size / 8) * 8;
				memcpy(&saved, m + saved_off, 8);
				m[saved_off + x % 8] ^= (unsigned char)(1u << (x % 8 + 1) % 8);
			}
		}
	}

	t0 = now_s();
	while (now_s() - t0 < limit) {
		struct perfring_reader *rd;
		struct perfring_record rec = { .sz = sizeof(rec) };
		int ret;

		opens++;
		if (perfring_ring_open(path, PERFRING_RING_READ, &d, &r) < 0) {
			open_fail++;
			continue;
		}
		ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
		for (int i = 0; i < 2000; i++) {
			double t1 = now_s(), dt;

			ret = perfring_reader_next(rd, &rec);
			dt = now_s() - t1;
			worst = dt > worst ? dt : worst;
			calls++;
			if (ret == 1) {
				size_t sz = rec.hdr->size;
				volatile unsigned char sum = 0;

				ck_assert_uint_ge(sz, 8);
				ck_assert_uint_eq(sz % 8, 0);
				for (size_t j = 0; j < sz; j++)	/* ASan: all of it readable */
					sum ^= ((const unsigned char *)rec.hdr)[j];
				records++;
				if (i % 7 == 0)
					perfring_reader_consume(rd);
			} else if (ret < 0) {
				ck_assert_int_eq(ret, -EBADMSG);
				ck_assert_ptr_nonnull(perfring_reader_diag(rd));
				ck_assert(perfring_reader_diag(rd)->msg[0] != 0);
				errors++;
				break;
			}
		}
		perfring_reader_free(rd);
		perfring_ring_close(r);
	}
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));	/* the producer ran all along */
	printf("hostile: %.1f s, %lu opens (%lu refused), %lu next() calls, %lu records, "
	       "%lu corruption reports, slowest next() %.3f ms\n",
	       now_s() - t0, opens, open_fail, calls, records, errors, worst * 1e3);
	ck_assert_uint_gt(errors + open_fail, 0);	/* problems were reported */
	ck_assert_msg(worst < 1.0, "a next() call took %.3f s", worst);
	unlink(path);
}
END_TEST

/* ---- resource edges -------------------------------------------------------- */

/* Write n records of size (or rec_size when size is 0), read them back. */
static void write_read(struct perfring_ring *r, uint64_t first, uint64_t n, size_t size)
{
	static unsigned char buf[65536];
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t seq, end = first + n;

	ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
	for (uint64_t i = first; i < end; i++) {
		size_t s = size ? size : rec_size(i);
		int ret;

		rec_fill(buf, i, s);
		ret = perfring_ring_write(r, buf);
		if (ret == -ENOSPC) {	/* drain, then retry */
			while (perfring_reader_next(rd, &rec) == 1) {
				if (rec.hdr->type == PERFRING_RECORD_LOST)
					continue;	/* for the failed write */
				ck_assert(rec_ok(rec.hdr, &seq));
				ck_assert_uint_eq(seq, first++);
			}
			perfring_reader_consume(rd);
			ret = perfring_ring_write(r, buf);
		}
		ck_assert_int_eq(ret, 0);
	}
	while (perfring_reader_next(rd, &rec) == 1) {
		if (rec.hdr->type == PERFRING_RECORD_LOST)
			continue;	/* for the write that found the ring full */
		ck_assert(rec_ok(rec.hdr, &seq));
		ck_assert_uint_eq(seq, first++);
	}
	perfring_reader_consume(rd);
	ck_assert_uint_eq(first, end);
	perfring_reader_free(rd);
}

START_TEST(test_max_record)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, 64 * 4096);
	struct perfring_wr w;

	/* 65528 bytes: the largest size a u16 header holds; many wraps */
	write_read(r, 0, 40, 65528);
	/* mixed with small ones, so the big ones straddle the end */
	write_read(r, 40, 100, 0);
	write_read(r, 140, 10, 65528);
	ck_assert_int_eq(perfring_ring_reserve(r, 65536, &w), -EMSGSIZE);
	perfring_ring_close(r);
}
END_TEST

START_TEST(test_one_page_ring)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, 4096);
	struct perfring_wr w;

	ck_assert_uint_eq(perfring_ring_data_size(r), 4096);
	write_read(r, 0, 5000, 0);		/* ~75 wraps */
	write_read(r, 5000, 50, 2048);
	ck_assert_int_eq(perfring_ring_reserve(r, 8192, &w), -EMSGSIZE);
	perfring_ring_close(r);
}
END_TEST

START_TEST(test_1gib_ring)
{
	static unsigned char buf[65536];
	const uint64_t gib = 1ull << 30;
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_ANON, .data_size = gib);
	struct perfring_ring *r = NULL;
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t i, seq, n = 0, next = 0;
	int ret;
	double t0 = now_s();

	ret = perfring_ring_create(&o, NULL, &r);
	if (ret == -ENOMEM) {
		printf("1 GiB ring: not enough memory here (%s): not tested\n", strerror(-ret));
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(perfring_ring_data_size(r), gib);
	ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
	/* fill it with 65528-byte records until full, read all, then wrap */
	for (i = 0;; i++) {
		rec_fill(buf, i, 65528);
		ret = perfring_ring_write(r, buf);
		if (ret == -ENOSPC)
			break;
		ck_assert_int_eq(ret, 0);
	}
	n = i;
	ck_assert_uint_eq(n, gib / 65528);
	while (perfring_reader_next(rd, &rec) == 1) {
		if (rec.hdr->type == PERFRING_RECORD_LOST)
			continue;	/* for the write that found the ring full */
		ck_assert(rec_ok(rec.hdr, &seq));
		ck_assert_uint_eq(seq, next++);
	}
	ck_assert_uint_eq(next, n);
	perfring_reader_consume(rd);
	for (i = n; i < n + 100; i++) {	/* across the end of the area */
		rec_fill(buf, i, 65528);
		ck_assert_int_eq(perfring_ring_write(r, buf), 0);
	}
	while (perfring_reader_next(rd, &rec) == 1) {
		if (rec.hdr->type == PERFRING_RECORD_LOST)
			continue;	/* for the write that found the ring full */
		ck_assert(rec_ok(rec.hdr, &seq));
		ck_assert_uint_eq(seq, next++);
	}
	ck_assert_uint_eq(next, n + 100);
	perfring_reader_free(rd);
	perfring_ring_close(r);
	printf("1 GiB ring: %" PRIu64 " records of 65528 bytes written and read, %.1f s\n",
	       next, now_s() - t0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring_safety");
	TCase *tc;
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "%s/ring-safety.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	chmod(tmpdir, 0755);
	tc = tcase_create("crash");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_crash_100);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hostile_process);
	suite_add_tcase(s, tc);
	tc = tcase_create("edges");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_max_record);
	tcase_add_test(tc, test_one_page_ring);
	tcase_add_test(tc, test_1gib_ring);
	suite_add_tcase(s, tc);
	ret = test_run_suite(s);
	rmdir(tmpdir);
	return ret;
}
