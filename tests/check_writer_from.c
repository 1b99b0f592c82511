/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring_writer_write_from: records the caller says are also in a file
 * are copied from there by the kernel (copy_file_range, or read + write
 * where it refuses).  The output must be the very bytes that
 * perfring_writer_write gives for the same records, in every mode (file,
 * pipe, compressed, several sources, records that are dropped in between,
 * an input on another file system), and a file that does not hold what
 * was promised must fail the close, not give a silently wrong output.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "writer-test.h"

static char tmpdir[256];

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/check_writer_from.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	static const char *const names[] = { "in.bin", "a.data", "b.data", "c.data" };
	char p[400];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *b;

	ck_assert_msg(fd >= 0, "cannot open %s", path);
	ck_assert_int_eq(fstat(fd, &st), 0);
	b = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void base_attr(struct perfring_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = PERFRING_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = 10000;
	a->sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
			 PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_PERIOD;
	a->flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_MMAP | PERFRING_ATTR_COMM |
		   PERFRING_ATTR_TASK | PERFRING_ATTR_MMAP2;
	a->size = sizeof(*a);
}

/*
 * The input: nbytes of records (SAMPLEs of two events with growing times,
 * a COMM and an MMAP2 now and then, a FINISHED_ROUND and an unknown type
 * the writer drops, so the runs it copies are broken up), written to
 * in.bin under dir.  *offs gets each record's offset, *n their count.
 */
static unsigned char *make_input(const char *dir, const struct perfring_attr *a, size_t nbytes,
				 uint64_t **offs, size_t *n, char *path, size_t plen)
{
	unsigned char *buf = malloc(nbytes + 512);
	size_t len = 0, k = 0, cap = nbytes / 16;
	uint64_t t = 1000;
	int fd;

	ck_assert_ptr_nonnull(buf);
	*offs = malloc(cap * sizeof(**offs));
	ck_assert_ptr_nonnull(*offs);
	while (len < nbytes && k < cap) {
		unsigned char *p = buf + len;
		size_t s;

		if (k % 97 == 5)
			s = tw_comm(a, p, 0, 7, 7, "worker", t, 1 + (k & 1));
		else if (k % 211 == 17)
			s = tw_mmap2(a, p, 7, 7, 0x400000, 0x1000, 0, "/bin/true", t, 1 + (k & 1));
		else if (k % 331 == 40)
			s = tw_raw(p, PERFRING_RECORD_FINISHED_ROUND, 8);
		else if (k % 503 == 70)
			s = tw_raw(p, 30, 16);	/* a kernel type perf 6.1 refuses */
		else
			s = tw_sample(a, p, 0x1000 + k, 7, 7, t, 1 + (k & 1), 0, 10000);
		(*offs)[k++] = len;
		len += s;
		t += 10;
	}
	*n = k;
	snprintf(path, plen, "%s/in.bin", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	/* something before the records, so file offsets are not record offsets */
	ck_assert_int_eq(pwrite(fd, "PAD.PAD.", 8, 0), 8);
	ck_assert_int_eq(pwrite(fd, buf, len, 8), (ssize_t)len);
	close(fd);
	return buf;
}

enum mode { FILE_MODE, PIPE_MODE, COMPRESSED, TWO_SOURCES };

/* Write the records to out; with fd >= 0 through perfring_writer_write_from. */
static int write_all(const char *out, enum mode m, const struct perfring_attr *a0,
		     const struct perfring_attr *a1, const unsigned char *recs,
		     const uint64_t *offs, size_t n, int fd, char *msg, size_t mlen)
{
	uint64_t ids0 = 1, ids1 = 2;
	struct perfring_writer *w = NULL;
	struct perfring_diag d;
	int fdout = -1, r, s0, s1 = 0;

	PERFRING_WRITER_OPTS(o, .path = out, .kmap = PERFRING_WRITER_KMAP_NONE,
			     .round_bytes = 300 * 1024,
			     .compression_level = m == COMPRESSED ? 1 : 0);
	if (m == PIPE_MODE) {
		fdout = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert_int_ge(fdout, 0);
		o.path = NULL;
		o.fd = fdout;
		o.pipe_mode = 1;
	}
	r = perfring_writer_open(&o, &d, &w);
	ck_assert_msg(r == 0, "open: %s", perfring_diag_format(&d, msg, mlen));
	ck_assert_int_eq(perfring_writer_add_event(w, a0, &ids0, 1, "e0", NULL), 0);
	ck_assert_int_eq(perfring_writer_add_event(w, a1, &ids1, 1, "e1", NULL), 1);
	s0 = perfring_writer_add_source(w);
	if (m == TWO_SOURCES)
		s1 = perfring_writer_add_source(w);
	for (size_t k = 0; k < n; k++) {
		const unsigned char *p = recs + offs[k];
		size_t len = tw_get32(p + 4) >> 16;
		int src = m == TWO_SOURCES && k % 3 == 0 ? s1 : s0;

		if (fd >= 0)
			r = perfring_writer_write_from(w, src, p, len, fd, 8 + offs[k], &d);
		else
			r = perfring_writer_write(w, src, p, len, &d);
		if (r) {
			/* a failed output: the close reports it again */
			perfring_diag_format(&d, msg, mlen);
			perfring_writer_abort(w);
			if (fdout >= 0)
				close(fdout);
			return r;
		}
	}
	if (m == TWO_SOURCES) {
		ck_assert_int_eq(perfring_writer_end_source(w, s0, NULL), 0);
		ck_assert_int_eq(perfring_writer_end_source(w, s1, NULL), 0);
	}
	memset(&d, 0, sizeof(d));
	r = perfring_writer_close(w, &d);
	if (r)
		perfring_diag_format(&d, msg, mlen);
	if (fdout >= 0)
		close(fdout);
	return r;
}

static void same_output(const char *dir, enum mode m, size_t nbytes)
{
	struct perfring_attr a0, a1;
	char in[400], out_a[400], out_b[400], msg[1024];
	unsigned char *recs, *fa, *fb;
	uint64_t *offs;
	size_t n, la, lb;
	int fd;

	base_attr(&a0, 0);
	base_attr(&a1, 1);
	recs = make_input(dir, &a0, nbytes, &offs, &n, in, sizeof(in));
	snprintf(out_a, sizeof(out_a), "%s/a.data", tmpdir);
	snprintf(out_b, sizeof(out_b), "%s/b.data", tmpdir);
	ck_assert_msg(write_all(out_a, m, &a0, &a1, recs, offs, n, -1, msg, sizeof(msg)) == 0,
		      "%s", msg);
	fd = open(in, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_msg(write_all(out_b, m, &a0, &a1, recs, offs, n, fd, msg, sizeof(msg)) == 0,
		      "close: %s", msg);
	close(fd);
	fa = slurp(out_a, &la);
	fb = slurp(out_b, &lb);
	ck_assert_uint_gt(la, m == COMPRESSED ? 4096 : nbytes / 2);
	ck_assert_uint_eq(la, lb);
	for (size_t i = 0; i < la; i++)
		if (fa[i] != fb[i])
			ck_abort_msg("mode %d: outputs differ at byte %zu of %zu", (int)m, i, la);
	unlink(in);
	free(fa);
	free(fb);
	free(recs);
	free(offs);
}

START_TEST(test_file_mode_same_bytes)
{
	same_output(tmpdir, FILE_MODE, 6u << 20);
}
END_TEST

START_TEST(test_other_modes_same_bytes)
{
	same_output(tmpdir, PIPE_MODE, 1u << 20);
	same_output(tmpdir, COMPRESSED, 1u << 20);
	same_output(tmpdir, TWO_SOURCES, 2u << 20);
}
END_TEST

/*
 * An input on another file system (tmpfs to the test directory's, when it
 * is not tmpfs itself): where copy_file_range refuses (EXDEV), the writer
 * reads and writes; either way the bytes are the same.
 */
START_TEST(test_other_file_system)
{
	char dir[] = "/dev/shm/check_writer_from.XXXXXX";

	if (access("/dev/shm", W_OK) != 0)
		snprintf(dir, sizeof(dir), "%s", tmpdir);
	else
		ck_assert_ptr_nonnull(mkdtemp(dir));
	same_output(dir, FILE_MODE, 3u << 20);
	if (strcmp(dir, tmpdir))
		rmdir(dir);
}
END_TEST

/*
 * A file shorter than promised: the output fails (at a later write or at
 * the close), with a message naming the offset; nothing under the name.
 */
START_TEST(test_input_shorter_than_promised)
{
	struct perfring_attr a0, a1;
	char in[400], out[400], msg[1024] = "";
	unsigned char *recs;
	uint64_t *offs;
	size_t n;
	int fd, r;

	base_attr(&a0, 0);
	base_attr(&a1, 1);
	recs = make_input(tmpdir, &a0, 3u << 20, &offs, &n, in, sizeof(in));
	ck_assert_int_eq(truncate(in, (off_t)(offs[n / 2] + 8)), 0);
	snprintf(out, sizeof(out), "%s/c.data", tmpdir);
	fd = open(in, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	r = write_all(out, FILE_MODE, &a0, &a1, recs, offs, n, fd, msg, sizeof(msg));
	close(fd);
	ck_assert_int_lt(r, 0);
	ck_assert_msg(strstr(msg, "offset") && strstr(msg, "shorter than said"), "message: %s",
		      msg);
	ck_assert_int_ne(access(out, F_OK), 0);
	free(recs);
	free(offs);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("writer_from");
	TCase *tc = tcase_create("copy");

	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_file_mode_same_bytes);
	tcase_add_test(tc, test_other_modes_same_bytes);
	tcase_add_test(tc, test_other_file_system);
	tcase_add_test(tc, test_input_shorter_than_promised);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(suite());
}
