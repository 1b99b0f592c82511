/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flat memory: stream a generated ~200 MB perf.data (PERFRING_TEST_SCALE
 * multiplies the size), from a file and through a pipe in pipe mode, and
 * check that the reader's maximum RSS grows by less than 32 MB, i.e. memory
 * does not follow the data size.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "pd-testlib.h"
#include "testutil.h"

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * A file-mode perf.data of nrec 48-byte samples in a new file under TMPDIR
 * (its name in path): sample i has time i and period i.
 */
static void make_file(char *path, size_t len, uint64_t nrec)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct pdt_buf hdr = { 0 }, chunk = { 0 };
	unsigned char attr[128] = { 0 };
	const void *attrs[1] = { attr };
	static const uint64_t ids0[] = { 5 };
	const uint64_t *ids[1] = { ids0 };
	size_t nids[1] = { 1 };
	uint64_t st = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
		      PERFRING_SAMPLE_ID | PERFRING_SAMPLE_PERIOD, i;
	uint32_t asz = 128;
	FILE *f;
	int fd;

	snprintf(path, len, "%s/pd-big-XXXXXX", tmp);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "wb");
	memcpy(attr + 4, &asz, 4);
	memcpy(attr + 24, &st, 8);
	/* header + attr with an empty data section, patched below */
	pdt_build(&hdr, 104, 128, 1, attrs, ids, nids, NULL, 0, NULL, 0);
	{
		uint64_t dsize = nrec * 48;

		memcpy(hdr.p + 48, &dsize, 8);
	}
	fwrite(hdr.p, 1, hdr.len, f);
	for (i = 0; i < nrec; i++) {
		uint32_t h[2] = { PERFRING_RECORD_SAMPLE, (48u << 16) | 2 };
		uint64_t body[5] = { 0x400000 + i % 4096, 42 | (42ull << 32), i, 5, i };

		pdt_put(&chunk, h, 8);
		pdt_put(&chunk, body, 40);
		if (chunk.len >= (1u << 20) || i + 1 == nrec) {
			ck_assert_uint_eq(fwrite(chunk.p, 1, chunk.len, f), chunk.len);
			chunk.len = 0;
		}
	}
	ck_assert_int_eq(fclose(f), 0);
	pdt_free(&chunk);
	pdt_free(&hdr);
}

START_TEST(test_big_flat)
{
	uint64_t nrec = test_scaled((200ul << 20) / 48), sum = 0, n = 0;
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	char path[4096];
	long before, after;
	int r;

	make_file(path, sizeof(path), nrec);
	before = maxrss_kb();
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		{
			uint64_t per;

			memcpy(&per, (const char *)rec.header + 40, 8);
			sum += per;
		}
		n++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, nrec);
	ck_assert_uint_eq(sum, nrec * (nrec - 1) / 2);
	ck_assert_uint_eq(pd_stats(pd).by_type[9], nrec);
	perfring_perfdata_close(pd);
	after = maxrss_kb();
	unlink(path);
	printf("big: %" PRIu64 " records, %" PRIu64 " MB, max RSS %ld -> %ld kB\n",
	       n, nrec * 48 >> 20, before, after);
	ck_assert_msg(after - before < 32 * 1024, "max RSS grew by %ld kB", after - before);
}
END_TEST

/* The same through a real pipe in pipe mode, generated on the fly. */
START_TEST(test_big_pipe)
{
	uint64_t nrec = test_scaled((200ul << 20) / 48);
	uint64_t st = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
		      PERFRING_SAMPLE_ID | PERFRING_SAMPLE_PERIOD, n = 0, sum = 0;
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	long before, after;
	int p[2], r, status;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pdt_buf b = { 0 };
		unsigned char attr[128] = { 0 };
		uint32_t asz = 128;
		uint64_t i, id = 5;

		close(p[0]);
		memcpy(attr + 4, &asz, 4);
		memcpy(attr + 24, &st, 8);
		pdt_put(&b, "PERFILE2", 8);
		pdt_u64(&b, 16);
		pdt_u32(&b, PERFRING_RECORD_HEADER_ATTR);
		pdt_u16(&b, 0);
		pdt_u16(&b, 8 + 128 + 8);
		pdt_put(&b, attr, 128);
		pdt_u64(&b, id);
		for (i = 0; i < nrec; i++) {
			uint32_t h[2] = { PERFRING_RECORD_SAMPLE, (48u << 16) | 2 };
			uint64_t body[5] = { 0x400000 + i % 4096, 42 | (42ull << 32), i, 5, i };

			pdt_put(&b, h, 8);
			pdt_put(&b, body, 40);
			if (b.len >= (256u << 10) || i + 1 == nrec) {
				size_t off = 0;

				while (off < b.len) {
					ssize_t w = write(p[1], b.p + off, b.len - off);

					if (w <= 0)
						_exit(1);
					off += (size_t)w;
				}
				b.len = 0;
			}
		}
		_exit(0);
	}
	close(p[1]);
	before = maxrss_kb();
	ck_assert_int_eq(perfring_perfdata_open_fd(p[0], NULL, &d, &pd), 0);
	ck_assert_int_eq(perfring_perfdata_is_pipe(pd), 1);
	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		uint64_t per;

		if (rec.type != PERFRING_RECORD_SAMPLE)
			continue;
		memcpy(&per, (const char *)rec.header + 40, 8);
		sum += per;
		n++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(n, nrec);
	ck_assert_uint_eq(sum, nrec * (nrec - 1) / 2);
	perfring_perfdata_close(pd);
	close(p[0]);
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	after = maxrss_kb();
	printf("big pipe: %" PRIu64 " records, max RSS %ld -> %ld kB\n", n, before, after);
	ck_assert_msg(after - before < 32 * 1024, "max RSS grew by %ld kB", after - before);
}
END_TEST

/*
 * A file cut while it is read reads as truncated: the records before the
 * cut in order, then an error at an offset at or before the cut; never a
 * fault (a mapped reader takes SIGBUS on the pages cut away).
 */
START_TEST(test_cut_while_read)
{
	const uint64_t nrec = (16ul << 20) / 48;
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	uint64_t n = 0, data_off = 0, cut;
	char path[4096];
	int r;

	make_file(path, sizeof(path), nrec);
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
	while (n < 1000 && (r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		uint64_t t;

		memcpy(&t, (const char *)rec.header + 24, 8);
		ck_assert_uint_eq(t, n);
		if (!n)
			data_off = rec.offset;
		n++;
	}
	ck_assert_uint_eq(n, 1000);
	cut = data_off + (4u << 20) + 20;	/* inside a record, and what a mapping held */
	ck_assert_int_eq(truncate(path, (off_t)cut), 0);
	while ((r = perfring_perfdata_next(pd, &rec, &d)) == 1) {
		uint64_t t;

		memcpy(&t, (const char *)rec.header + 24, 8);
		ck_assert_uint_eq(t, n);
		ck_assert_uint_le(rec.offset + 48, cut);
		n++;
	}
	ck_assert_int_lt(r, 0);
	ck_assert_uint_le(d.offset, cut);
	ck_assert_msg(d.msg[0] && strstr(d.file, "pd-big-"), "no diagnostic naming the file");
	ck_assert_uint_eq(n, (cut - data_off) / 48);
	perfring_perfdata_close(pd);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perfdata-big");
	TCase *tc = tcase_create("flat-memory");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_big_flat);
	tcase_add_test(tc, test_big_pipe);
	tcase_add_test(tc, test_cut_while_read);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
