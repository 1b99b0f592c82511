/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer: byte-level checks of what it writes (decoded here by a
 * small independent parser and compared field by field), event validation,
 * unknown types, the time merge and its FINISHED_ROUND rule, bounded
 * memory, and failure handling (no file under the final name, no temporary
 * file left).  The end-to-end checks with the real perf are in
 * tests/lib/writer-perf.sh and tests/lib/writer-fail.sh.
 *
 * PERFRING_TEST_SCALE (tests/testutil.h, default 1) multiplies the size of the streaming test
 * (256 MiB of records at scale 1).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "writer-test.h"

#define KTEXT 0xffffffff81000000ull
#define KETEXT 0xffffffff82200000ull

static char tmpdir[256];

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/check_writer.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[600];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(tmpdir);
}

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* number of directory entries (other than . and ..) */
static int dir_entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static const char *fake_kallsyms(void)
{
	static char p[300];
	FILE *f;

	path_in(p, sizeof(p), "kallsyms");
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "0000000000000000 A fixed_percpu_data\n"
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000000 T _text\n"
		   "ffffffff81000010 T some_func\n"
		   "ffffffff82200000 T _etext\n");
	fclose(f);
	return p;
}

/* log capture */
static char logbuf[8192];
static void capture_log(enum perfring_log_level lvl, const char *msg, void *u)
{
	(void)lvl;
	(void)u;
	strncat(logbuf, msg, sizeof(logbuf) - strlen(logbuf) - 2);
	strcat(logbuf, "\n");
}

static void base_attr(struct perfring_attr *a, uint64_t config, uint64_t st)
{
	memset(a, 0, sizeof(*a));
	a->type = PERFRING_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = 10000;
	a->sample_type = st;
	a->flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_MMAP |
		   PERFRING_ATTR_COMM | PERFRING_ATTR_TASK | PERFRING_ATTR_MMAP2;
	a->size = sizeof(*a);
}

/* A perf string: u32 len (multiple of 64), NUL-terminated, zero padded. */
static const unsigned char *check_str(const unsigned char *p, const char *want)
{
	uint32_t len = tw_get32(p);
	size_t i, n = strlen(want);

	ck_assert_uint_eq(len % 64, 0);
	ck_assert_uint_gt(len, n);
	ck_assert_int_eq(memcmp(p + 4, want, n), 0);
	for (i = n; i < len; i++)
		ck_assert_uint_eq(p[4 + i], 0);
	return p + 4 + len;
}

static uint64_t memtotal_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* (no ck_assert on success: Check logs every assertion, too slow here) */
static int write_ok(struct perfring_writer *w, int src, const void *rec, size_t n)
{
	struct perfring_diag d;
	char m[1024];
	int r = perfring_writer_write(w, src, rec, n, &d);

	if (r != 0)
		ck_abort_msg("write: %d %s", r, perfring_diag_format(&d, m, sizeof(m)));
	return r;
}

static struct perfring_writer *open_ok(struct perfring_writer_opts *o)
{
	struct perfring_writer *w = NULL;
	struct perfring_diag d;
	char m[1024];
	int r = perfring_writer_open(o, &d, &w);

	ck_assert_msg(r == 0, "open: %d %s", r, perfring_diag_format(&d, m, sizeof(m)));
	return w;
}

static void close_ok(struct perfring_writer *w)
{
	struct perfring_diag d;
	char m[1024];
	int r = perfring_writer_close(w, &d);

	ck_assert_msg(r == 0, "close: %d %s", r, perfring_diag_format(&d, m, sizeof(m)));
}

/* ------------------------------------------------------------------------ */
/* File mode, every field.                                                  */

START_TEST(test_file_layout)
{
	static const char *const argv[] = { "prog", "-x", "a b" };
	char out[300];
	struct perfring_attr a0, a1, got;
	const uint64_t ids0[] = { 10, 11 };
	unsigned char recs[8][256];
	size_t rn[8], nrec = 0, len, i, off;
	unsigned char *f;
	struct perfring_writer *w;
	uint64_t st = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
		      PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU;
	struct timespec before;
	const unsigned char *p;

	path_in(out, sizeof(out), "file.data");
	PERFRING_WRITER_OPTS(o, .path = out, .hostname = "testhost",
			     .osrelease = "9.9.9-test", .arch = "testarch",
			     .version = "vtest", .argc = 3, .argv = argv,
			     .kallsyms_path = fake_kallsyms());
	clock_gettime(CLOCK_REALTIME, &before);
	w = open_ok(&o);
	base_attr(&a0, 0, st);
	a0.flags |= PERFRING_ATTR_USE_CLOCKID;
	a0.clockid = CLOCK_MONOTONIC;	/* offset 92: attr VER3, 96 bytes */
	a1 = a0;
	a1.config = 1;
	ck_assert_int_eq(tw_add_event(w, &a0, ids0, 2, "ev-zero", NULL), 0);
	ck_assert_int_eq(tw_add_event(w, &a1, NULL, 0, NULL, NULL), 1);
	ck_assert_uint_eq(perfring_writer_event_id(w, 1), 12);
	ck_assert_uint_eq(perfring_writer_event_id(w, 0), 10);

	rn[nrec] = tw_comm(&a0, recs[nrec], 1, 7, 7, "app", 100, 10); nrec++;
	rn[nrec] = tw_mmap2(&a0, recs[nrec], 7, 7, 0x400000, 0x1000, 0, "/bin/app", 200, 11); nrec++;
	rn[nrec] = tw_sample(&a0, recs[nrec], 0x400010, 7, 7, 300, 10, 0, 0); nrec++;
	rn[nrec] = tw_sample(&a1, recs[nrec], 0x400020, 7, 7, 400, 12, 1, 0); nrec++;
	rn[nrec] = tw_task(&a0, recs[nrec], PERFRING_RECORD_EXIT, 7, 7, 7, 7, 500, 11); nrec++;
	for (i = 0; i < nrec; i++)
		write_ok(w, 0, recs[i], rn[i]);
	close_ok(w);

	f = slurp(out, &len);
	/* header */
	ck_assert_int_eq(memcmp(f, "PERFILE2", 8), 0);
	ck_assert_uint_eq(tw_get64(f + 8), 104);
	ck_assert_uint_eq(tw_get64(f + 16), 96 + 16);		/* attr_size */
	ck_assert_uint_eq(tw_get64(f + 24), 104 + 3 * 8);	/* attrs.offset */
	ck_assert_uint_eq(tw_get64(f + 32), 2 * (96 + 16));	/* attrs.size */
	ck_assert_uint_eq(tw_get64(f + 40), 104 + 24 + 2 * 112);	/* data.offset */
	ck_assert_uint_eq(tw_get64(f + 56), 0);			/* event_types */
	ck_assert_uint_eq(tw_get64(f + 64), 0);
	/* ids section, then attr entries */
	ck_assert_uint_eq(tw_get64(f + 104), 10);
	ck_assert_uint_eq(tw_get64(f + 112), 11);
	ck_assert_uint_eq(tw_get64(f + 120), 12);
	for (i = 0; i < 2; i++) {
		const unsigned char *e = f + 128 + i * 112;
		struct perfring_attr want = i ? a1 : a0;

		memset(&got, 0, sizeof(got));
		memcpy(&got, e, 96);
		want.size = 96;
		ck_assert_int_eq(memcmp(&got, &want, sizeof(got)), 0);
		ck_assert_uint_eq(tw_get64(e + 96), i ? 120 : 104);
		ck_assert_uint_eq(tw_get64(e + 104), i ? 8 : 16);
	}
	/* data: kernel MMAP (fake kallsyms), then the records byte for byte */
	off = tw_get64(f + 40);
	p = f + off;
	ck_assert_uint_eq(tw_get32(p), PERFRING_RECORD_MMAP);
	ck_assert_uint_eq(p[4], PERFRING_MISC_KERNEL);
	ck_assert_uint_eq(p[6] | p[7] << 8, 40 + 24 + 32);
	ck_assert_uint_eq(tw_get32(p + 8), 0xffffffffu);
	ck_assert_uint_eq(tw_get32(p + 12), 0);
	ck_assert_uint_eq(tw_get64(p + 16), KTEXT);
	ck_assert_uint_eq(tw_get64(p + 24), KETEXT - KTEXT);
	ck_assert_uint_eq(tw_get64(p + 32), KTEXT);
	ck_assert_str_eq((const char *)p + 40, "[kernel.kallsyms]_text");
	for (i = 40 + 23; i < 96; i++)
		ck_assert_uint_eq(p[i], 0);	/* padding and zero trailer */
	p += 96;
	for (i = 0; i < nrec; i++) {
		ck_assert_int_eq(memcmp(p, recs[i], rn[i]), 0);
		p += rn[i];
	}
	ck_assert_uint_eq(tw_get64(f + 48), (uint64_t)(p - (f + off)));	/* data.size */

	/* feature table right at data end */
	{
		uint64_t bm = tw_get64(f + 72);
		int bits[64], nb = 0, b, k;
		const int must[] = { 3, 4, 5, 6, 7, 10, 11, 12, 21, 23, 29 };
		const unsigned char *tab = p, *sec[64] = { 0 };
		uint64_t secsz[64] = { 0 }, expect_off;

		ck_assert_uint_eq(tw_get64(f + 80), 0);
		ck_assert_uint_eq(tw_get64(f + 88), 0);
		ck_assert_uint_eq(tw_get64(f + 96), 0);
		for (k = 0; k < (int)(sizeof(must) / sizeof(must[0])); k++)
			ck_assert_msg(bm & (1ull << must[k]), "feature %d missing", must[k]);
		for (b = 0; b < 64; b++)
			if (bm & (1ull << b))
				bits[nb++] = b;
		expect_off = (uint64_t)(tab - f) + 16u * (uint64_t)nb;
		for (k = 0; k < nb; k++) {
			uint64_t so = tw_get64(tab + 16 * k), ss = tw_get64(tab + 16 * k + 8);

			ck_assert_uint_eq(so, expect_off);	/* packed, in bit order */
			ck_assert_uint_le(so + ss, len);
			sec[bits[k]] = f + so;
			secsz[bits[k]] = ss;
			expect_off += ss;
		}
		ck_assert_uint_eq(expect_off, len);

		ck_assert_ptr_eq(check_str(sec[3], "testhost"), sec[3] + secsz[3]);
		ck_assert_ptr_eq(check_str(sec[4], "9.9.9-test"), sec[4] + secsz[4]);
		ck_assert_ptr_eq(check_str(sec[5], "vtest"), sec[5] + secsz[5]);
		ck_assert_ptr_eq(check_str(sec[6], "testarch"), sec[6] + secsz[6]);
		ck_assert_uint_eq(secsz[3], 4 + 64);
		/* NRCPUS: available first, then online */
		ck_assert_uint_eq(secsz[7], 8);
		ck_assert_uint_eq(tw_get32(sec[7] + 4), (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
		ck_assert_uint_ge(tw_get32(sec[7]), tw_get32(sec[7] + 4));
		/* TOTAL_MEM in kB */
		ck_assert_uint_eq(secsz[10], 8);
		ck_assert_uint_eq(tw_get64(sec[10]), memtotal_kb());
		/* CMDLINE */
		ck_assert_uint_eq(tw_get32(sec[11]), 3);
		p = check_str(sec[11] + 4, "prog");
		p = check_str(p, "-x");
		p = check_str(p, "a b");
		ck_assert_ptr_eq(p, sec[11] + secsz[11]);
		/* EVENT_DESC */
		p = sec[12];
		ck_assert_uint_eq(tw_get32(p), 2);
		ck_assert_uint_eq(tw_get32(p + 4), 96);
		p += 8;
		ck_assert_int_eq(memcmp(p, f + 128, 96), 0);
		ck_assert_uint_eq(tw_get32(p + 96), 2);
		p = check_str(p + 100, "ev-zero");
		ck_assert_uint_eq(tw_get64(p), 10);
		ck_assert_uint_eq(tw_get64(p + 8), 11);
		p += 16;
		ck_assert_int_eq(memcmp(p, f + 128 + 112, 96), 0);
		ck_assert_uint_eq(tw_get32(p + 96), 1);
		p = check_str(p + 100, "task-clock");
		ck_assert_uint_eq(tw_get64(p), 12);
		ck_assert_ptr_eq(p + 8, sec[12] + secsz[12]);
		/* SAMPLE_TIME: first and last sample */
		ck_assert_uint_eq(secsz[21], 16);
		ck_assert_uint_eq(tw_get64(sec[21]), 300);
		ck_assert_uint_eq(tw_get64(sec[21] + 8), 400);
		/* CLOCKID: resolution in ns; CLOCK_DATA: version, clockid, tod, ref */
		{
			struct timespec res;
			uint64_t tod;

			clock_getres(CLOCK_MONOTONIC, &res);
			ck_assert_uint_eq(secsz[23], 8);
			ck_assert_uint_eq(tw_get64(sec[23]),
					  (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec);
			ck_assert_uint_eq(secsz[29], 24);
			ck_assert_uint_eq(tw_get32(sec[29]), 1);
			ck_assert_uint_eq(tw_get32(sec[29] + 4), CLOCK_MONOTONIC);
			tod = tw_get64(sec[29] + 8);
			ck_assert_uint_ge(tod, (uint64_t)before.tv_sec * 1000000000ull);
			ck_assert_uint_le(tod, (uint64_t)(before.tv_sec + 60) * 1000000000ull);
		}
		if (bm & (1ull << 8))
			ck_assert_uint_eq(tw_get32(sec[8]) % 64, 0);
	}
	free(f);
	ck_assert_int_eq(dir_entries(), 2);	/* kallsyms + file.data: no temp */
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Pipe mode.                                                               */

static void check_pipe_stream(const unsigned char *f, size_t len,
			      const struct perfring_attr *a, uint64_t id,
			      const unsigned char *rec, size_t rn, int kmap)
{
	const unsigned char *p = f, *end = f + len;
	uint64_t last_feat = 0;
	int nfeat = 0, saw_host = 0;

	ck_assert_int_eq(memcmp(p, "PERFILE2", 8), 0);
	ck_assert_uint_eq(tw_get64(p + 8), 16);
	p += 16;
	/* HEADER_ATTR: 8 + 128-byte attr + ids */
	ck_assert_uint_eq(tw_get32(p), PERFRING_RECORD_HEADER_ATTR);
	ck_assert_uint_eq(p[6] | p[7] << 8, 8 + 128 + 8);
	ck_assert_uint_eq(tw_get32(p + 8 + 4), 128);	/* attr.size */
	{
		struct perfring_attr got, want = *a;

		memset(&got, 0, sizeof(got));
		memcpy(&got, p + 8, 128);
		want.size = 128;
		ck_assert_int_eq(memcmp(&got, &want, sizeof(got)), 0);
	}
	ck_assert_uint_eq(tw_get64(p + 136), id);
	p += 144;
	/* HEADER_FEATUREs in ascending order, ended by feat 32 */
	for (;;) {
		uint32_t sz = p[6] | p[7] << 8;
		uint64_t feat;

		ck_assert_uint_eq(tw_get32(p), PERFRING_RECORD_HEADER_FEATURE);
		ck_assert_uint_ge(sz, 16);
		feat = tw_get64(p + 8);
		ck_assert_uint_gt(feat, last_feat);
		last_feat = feat;
		if (feat == 32) {
			ck_assert_uint_eq(sz, 16);
			p += 16;
			break;
		}
		if (feat == 3) {
			ck_assert_ptr_eq(check_str(p + 16, "pipehost"), p + sz);
			saw_host = 1;
		}
		ck_assert_uint_ne(feat, 21);	/* SAMPLE_TIME unknown up front */
		nfeat++;
		p += sz;
		ck_assert(p < end);
	}
	ck_assert_int_ge(nfeat, 8);
	ck_assert_int_eq(saw_host, 1);
	if (kmap) {
		ck_assert_uint_eq(tw_get32(p), PERFRING_RECORD_MMAP);
		ck_assert_uint_eq(tw_get64(p + 16), KTEXT);
		p += p[6] | p[7] << 8;
	}
	ck_assert_uint_eq((size_t)(end - p), rn);
	ck_assert_int_eq(memcmp(p, rec, rn), 0);
}

START_TEST(test_pipe_layout)
{
	char out[300];
	struct perfring_attr a;
	unsigned char rec[512], *f;
	size_t rn = 0, len;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	int fd;

	path_in(out, sizeof(out), "pipe.data");
	/* explicit pipe_mode on a regular file */
	PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = 1, .hostname = "pipehost",
			     .kallsyms_path = fake_kallsyms());
	w = open_ok(&o);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	rn += tw_comm(&a, rec + rn, 0, 1, 1, "x", 5, 0);
	rn += tw_sample(&a, rec + rn, 0x1000, 1, 1, 6, 0, 0, 0);
	write_ok(w, 0, rec, tw_comm(&a, rec, 0, 1, 1, "x", 5, 0));
	write_ok(w, 0, rec + 24 + 16, rn - 24 - 16);
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	ck_assert_int_eq(st.pipe_mode, 1);
	close_ok(w);
	f = slurp(out, &len);
	check_pipe_stream(f, len, &a, 1, rec, rn, 1);
	free(f);

	/* a real pipe is detected without the flag */
	{
		int pfd[2];
		unsigned char *buf = malloc(1 << 16);
		ssize_t n;
		size_t tot = 0;

		ck_assert_int_eq(pipe(pfd), 0);
		PERFRING_WRITER_OPTS(o2, .fd = pfd[1], .hostname = "pipehost",
				     .kmap = PERFRING_WRITER_KMAP_EXCLUDE);
		w = open_ok(&o2);
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
		rn = tw_sample(&a, rec, 0x1000, 1, 1, 6, 0, 0, 0);
		write_ok(w, 0, rec, rn);
		ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
		ck_assert_int_eq(st.pipe_mode, 1);
		close_ok(w);
		close(pfd[1]);
		while ((n = read(pfd[0], buf + tot, (1 << 16) - tot)) > 0)
			tot += (size_t)n;
		close(pfd[0]);
		a.flags |= PERFRING_ATTR_EXCLUDE_KERNEL;	/* KMAP_EXCLUDE */
		check_pipe_stream(buf, tot, &a, 1, rec, rn, 0);
		free(buf);
	}
	(void)fd;
}
END_TEST

/* ------------------------------------------------------------------------ */
/* attr.size: the smallest version holding every non-zero field, <= 128.   */

static uint32_t written_attr_size(struct perfring_attr *a, int pipe_mode)
{
	char out[300];
	struct perfring_writer *w;
	unsigned char *f;
	size_t len;
	uint32_t s;

	path_in(out, sizeof(out), "size.data");
	PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = pipe_mode,
			     .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&o);
	ck_assert_int_eq(tw_add_event(w, a, NULL, 0, NULL, NULL), 0);
	close_ok(w);
	f = slurp(out, &len);
	if (pipe_mode) {
		s = tw_get32(f + 16 + 8 + 4);
	} else {
		s = tw_get32(f + tw_get64(f + 24) + 4);
		ck_assert_uint_eq(tw_get64(f + 16), s + 16);
	}
	free(f);
	unlink(out);
	return s;
}

START_TEST(test_attr_size)
{
	struct perfring_attr a;

	base_attr(&a, 0, PERFRING_SAMPLE_IP);
	ck_assert_uint_eq(written_attr_size(&a, 0), 64);
	ck_assert_uint_eq(written_attr_size(&a, 1), 128);	/* pipe: perf 6.1 sizeof */
	a.config2 = 1;
	ck_assert_uint_eq(written_attr_size(&a, 0), 72);
	a.sample_regs_user = 0xff;
	ck_assert_uint_eq(written_attr_size(&a, 0), 96);
	a.aux_watermark = 1;
	ck_assert_uint_eq(written_attr_size(&a, 0), 112);
	a.sig_data = 5;
	ck_assert_uint_eq(written_attr_size(&a, 0), 128);
	/* a caller's attr.size hides the bytes beyond it */
	a.size = 72;
	ck_assert_uint_eq(written_attr_size(&a, 0), 72);
	/* config3 (VER8) cannot be written for perf 6.1: dropped, said so */
	base_attr(&a, 0, PERFRING_SAMPLE_IP);
	a.config3 = 7;
	logbuf[0] = 0;
	perfring_set_log(capture_log, NULL);
	ck_assert_uint_eq(written_attr_size(&a, 0), 64);
	perfring_set_log(NULL, NULL);
	ck_assert_ptr_nonnull(strstr(logbuf, "config3"));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Events perf 6.1 would refuse are refused up front.                        */

START_TEST(test_event_validation)
{
	char out[300], m[1024];
	struct perfring_attr a, b;
	struct perfring_writer *w;
	struct perfring_diag d;
	const uint64_t ids[] = { 5, 6 };
	unsigned char rec[256];
	size_t n;

	path_in(out, sizeof(out), "v.data");
	PERFRING_WRITER_OPTS(o, .path = out, .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&o);
	/* two events without ID/IDENTIFIER */
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(perfring_diag_format(&d, m, sizeof(m)), "IDENTIFIER"));
	perfring_writer_abort(w);

	/* ID at different positions */
	w = open_ok(&o);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_ID);
	base_attr(&b, 1, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(tw_add_event(w, &b, NULL, 0, NULL, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "position"));
	/* sample_id_all and read_format must match */
	b = a;
	b.flags &= ~PERFRING_ATTR_SAMPLE_ID_ALL;
	ck_assert_int_eq(tw_add_event(w, &b, NULL, 0, NULL, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "sample_id_all"));
	b = a;
	b.read_format = PERFRING_FORMAT_ID;
	ck_assert_int_eq(tw_add_event(w, &b, NULL, 0, NULL, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "read_format"));
	/* ids: unique, non-zero */
	ck_assert_int_eq(tw_add_event(w, &a, &ids[1], 1, NULL, NULL), 1);
	ck_assert_int_eq(tw_add_event(w, &a, ids, 2, NULL, &d), -EEXIST);
	{
		const uint64_t zero = 0, dup[] = { 9, 9 };

		ck_assert_int_eq(tw_add_event(w, &a, &zero, 1, NULL, &d), -EINVAL);
		ck_assert_int_eq(tw_add_event(w, &a, dup, 2, NULL, &d), -EEXIST);
	}
	/* attr.size below VER0 */
	b = a;
	b.size = 32;
	ck_assert_int_eq(tw_add_event(w, &b, NULL, 0, NULL, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "attr.size"));
	/* a record whose id matches no event: refused, the writer goes on */
	n = tw_sample(&a, rec, 0x10, 1, 1, 0, 77, 0, 0);
	ck_assert_int_eq(perfring_writer_write(w, 0, rec, n, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "matches no event"));
	n = tw_comm(&a, rec, 0, 1, 1, "c", 0, 77);
	ck_assert_int_eq(perfring_writer_write(w, 0, rec, n, &d), -EINVAL);
	n = tw_sample(&a, rec, 0x10, 1, 1, 0, 6, 0, 0);
	write_ok(w, 0, rec, n);
	/* short records, bad sizes, bad source */
	ck_assert_int_eq(perfring_writer_write(w, 0, rec, 8, &d), -EINVAL);
	ck_assert_int_eq(perfring_writer_write(w, 0, rec, 4, &d), -EINVAL);
	tw_header(rec, PERFRING_RECORD_SAMPLE, 0, 8);
	ck_assert_int_eq(perfring_writer_write(w, 0, rec, 8, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "too short"));
	ck_assert_int_eq(perfring_writer_write(w, 3, rec, n, &d), -EINVAL);
	/* events only before the first record */
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, &d), -EBUSY);
	close_ok(w);
	ck_assert_int_eq(access(out, F_OK), 0);
	unlink(out);

	/* no event at all: refused at close, nothing left */
	w = open_ok(&o);
	ck_assert_int_eq(perfring_writer_close(w, &d), -EINVAL);
	ck_assert_int_ne(access(out, F_OK), 0);
	ck_assert_int_eq(dir_entries(), 0);

	/* options from a newer caller with a field this library lacks */
	{
		struct {
			struct perfring_writer_opts o;
			int extra;
		} big = { { .sz = sizeof(big), .path = out }, 1 };

		ck_assert_int_eq(perfring_writer_open(&big.o, &d, &w), -EINVAL);
		big.extra = 0;
		ck_assert_int_eq(perfring_writer_open(&big.o, &d, &w), 0);
		perfring_writer_abort(w);
	}
	PERFRING_WRITER_OPTS(none, .path = NULL);
	ck_assert_int_eq(perfring_writer_open(&none, &d, &w), -EINVAL);
	ck_assert_ptr_nonnull(strstr(d.msg, "no output"));
	none.fd = -1;
	ck_assert_int_eq(perfring_writer_open(&none, &d, &w), -EINVAL);
	ck_assert_int_eq(dir_entries(), 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Unknown record types.                                                    */

static size_t data_types(const char *path, uint32_t *types, size_t max)
{
	size_t len, n = 0;
	unsigned char *f = slurp(path, &len);
	const unsigned char *p = f + tw_get64(f + 40), *e = p + tw_get64(f + 48);

	while (p < e && n < max) {
		types[n++] = tw_get32(p);
		p += p[6] | p[7] << 8;
	}
	free(f);
	return n;
}

START_TEST(test_unknown_types)
{
	static const uint32_t unk[] = { 0, 22, 63, 84, 200, 22 };
	char out[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	unsigned char rec[64];
	uint32_t types[32], tt[8];
	uint64_t cc[8];
	size_t i, n;
	int keep;

	path_in(out, sizeof(out), "u.data");
	for (keep = 0; keep < 2; keep++) {
		PERFRING_WRITER_OPTS(o, .path = out, .keep_unknown = keep,
				     .kmap = PERFRING_WRITER_KMAP_EXCLUDE);
		w = open_ok(&o);
		base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID);
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
		for (i = 0; i < sizeof(unk) / sizeof(unk[0]); i++)
			write_ok(w, 0, rec, tw_raw(rec, unk[i], 16));
		/* writer-managed types: dropped, counted apart */
		write_ok(w, 0, rec, tw_raw(rec, PERFRING_RECORD_FINISHED_ROUND, 8));
		write_ok(w, 0, rec, tw_raw(rec, PERFRING_RECORD_HEADER_ATTR, 16));
		/* known perf-tool types pass */
		write_ok(w, 0, rec, tw_raw(rec, PERFRING_RECORD_FINISHED_INIT, 8));
		ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
		ck_assert_uint_eq(st.dropped_managed, 2);
		if (!keep) {
			ck_assert_uint_eq(st.dropped_unknown, 6);
			ck_assert_uint_eq(st.unknown_types, 5);
			ck_assert_int_eq(perfring_writer_dropped_types(w, tt, cc, 8), 5);
			ck_assert_uint_eq(tt[0], 0);
			ck_assert_uint_eq(tt[1], 22);
			ck_assert_uint_eq(cc[1], 2);
			ck_assert_uint_eq(tt[4], 200);
			ck_assert_uint_eq(cc[4], 1);
			ck_assert_int_eq(perfring_writer_dropped_types(w, tt, cc, 2), 5);
		} else {
			ck_assert_uint_eq(st.dropped_unknown, 0);
		}
		logbuf[0] = 0;
		perfring_set_log(capture_log, NULL);
		close_ok(w);
		perfring_set_log(NULL, NULL);
		n = data_types(out, types, 32);
		if (!keep) {
			ck_assert_uint_eq(n, 1);
			ck_assert_uint_eq(types[0], PERFRING_RECORD_FINISHED_INIT);
			ck_assert_ptr_nonnull(strstr(logbuf, "dropped 2 records of type 22,"));
			ck_assert_ptr_nonnull(strstr(logbuf, "dropped 1 record of type 200,"));
			ck_assert_ptr_nonnull(strstr(logbuf, "dropped 1 record of type 0,"));
		} else {
			ck_assert_uint_eq(n, 7);
			for (i = 0; i < 6; i++)
				ck_assert_uint_eq(types[i], unk[i]);
			ck_assert_ptr_null(strstr(logbuf, "dropped"));
		}
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Merge and rounds.                                                        */

struct outrec {
	uint32_t type;
	uint64_t time;		/* from the SAMPLE (IP|TID|TIME layout) */
	uint64_t tag;		/* ip: source * 1e9 + seq */
};

/*
 * Parse the data section of a file written with one IP|TID|TIME event;
 * check perf's FINISHED_ROUND rule; return the records and count of late.
 */
static size_t parse_rounds(const char *path, struct outrec *o, size_t max,
			   uint64_t *late, uint64_t *rounds)
{
	size_t len, n = 0;
	unsigned char *f = slurp(path, &len);
	const unsigned char *p = f + tw_get64(f + 40), *e = p + tw_get64(f + 48);
	uint64_t maxt = 0, t_last = 0, t_limit = 0;

	*late = *rounds = 0;
	while (p < e) {
		uint32_t type = tw_get32(p), sz = p[6] | p[7] << 8;

		ck_assert_uint_ge(sz, 8);
		if (type == PERFRING_RECORD_FINISHED_ROUND) {
			t_limit = t_last;
			t_last = maxt;
			(*rounds)++;
		} else if (type == PERFRING_RECORD_SAMPLE) {
			uint64_t t = tw_get64(p + 24);	/* after ip, pid/tid */

			if (t < t_limit)
				(*late)++;
			if (t > maxt)
				maxt = t;
			ck_assert_uint_lt(n, max);
			o[n].type = type;
			o[n].time = t;
			o[n].tag = tw_get64(p + 8);
			n++;
		} else {
			ck_assert_uint_lt(n, max);
			o[n].type = type;
			o[n].time = 0;
			o[n].tag = tw_get64(p + 8);	/* THREAD_MAP nr: the tag */
			n++;
		}
		p += sz;
	}
	ck_assert_ptr_eq(p, e);
	free(f);
	return n;
}

START_TEST(test_merge_in_order)
{
	char out[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	unsigned char rec[64];
	static struct outrec o[4000];
	uint64_t late, rounds, seq[3] = { 0, 0, 0 };
	size_t n, i, k;
	int s, src[3];

	path_in(out, sizeof(out), "m.data");
	PERFRING_WRITER_OPTS(opt, .path = out, .round_bytes = 200,
			     .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&opt);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	for (s = 0; s < 3; s++)
		ck_assert_int_eq(src[s] = perfring_writer_add_source(w), s);
	/*
	 * Source s has samples at times 3*j + s (+1000), fed in batches of
	 * (s + 2) records, round robin; every 10th record of source 1 is an
	 * untimed perf-tool record (THREAD_MAP) that must stay between its
	 * neighbours of source 1.
	 */
	for (k = 0; seq[0] < 300 || seq[1] < 300 || seq[2] < 300; k++) {
		for (s = 0; s < 3; s++) {
			for (i = 0; i < (size_t)s + 2 && seq[s] < 300; i++) {
				uint64_t tag = (uint64_t)s * 1000000000ull + seq[s];

				if (s == 1 && seq[s] % 10 == 5) {
					tw_raw(rec, PERFRING_RECORD_THREAD_MAP, 16);
					tw_put64(rec + 8, tag);
					write_ok(w, src[s], rec, 16);
				} else {
					write_ok(w, src[s], rec,
						 tw_sample(&a, rec, tag, 1, 1,
							   1000 + 3 * seq[s] + (uint64_t)s,
							   0, 0, 0));
				}
				seq[s]++;
			}
			if (seq[s] == 300 && i)
				ck_assert_int_eq(perfring_writer_end_source(w, src[s], NULL), 0);
		}
	}
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	close_ok(w);
	ck_assert_uint_eq(st.forced_flushes, 0);
	n = parse_rounds(out, o, 4000, &late, &rounds);
	ck_assert_uint_eq(n, 900);
	ck_assert_uint_eq(late, 0);
	ck_assert_uint_gt(rounds, 50);
	{
		uint64_t prev_t = 0, prev_tag[3] = { 0, 0, 0 };
		int seen[3] = { 0, 0, 0 };

		for (i = 0; i < n; i++) {
			int so = (int)(o[i].tag / 1000000000ull);

			if (o[i].time) {
				ck_assert_uint_ge(o[i].time, prev_t);
				prev_t = o[i].time;
			}
			/* each source's records in its own order */
			if (seen[so])
				ck_assert_uint_eq(o[i].tag, prev_tag[so] + 1);
			seen[so] = 1;
			prev_tag[so] = o[i].tag;
		}
	}
}
END_TEST

/* Many sources fed in random batches with random (per-source rising) times. */
START_TEST(test_merge_many_sources)
{
	enum { NS = 50, PER = 200 };
	char out[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	unsigned char rec[64];
	static struct outrec o[NS * PER + 16];
	uint64_t late, rounds, t[NS], seq[NS], prev_t = 0, prev_tag[NS];
	size_t n, i;
	int s, left = NS, src[NS], seen[NS];

	srand(12345);
	path_in(out, sizeof(out), "many.data");
	PERFRING_WRITER_OPTS(opt, .path = out, .round_bytes = 1000,
			     .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&opt);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	for (s = 0; s < NS; s++) {
		src[s] = perfring_writer_add_source(w);
		ck_assert_int_eq(src[s], s);
		t[s] = 1000 + (uint64_t)(rand() % 100);
		seq[s] = 0;
		seen[s] = 0;
	}
	while (left) {
		int k, b;

		s = rand() % NS;
		if (seq[s] == PER)
			continue;
		b = 1 + rand() % 8;
		for (k = 0; k < b && seq[s] < PER; k++) {
			t[s] += (uint64_t)(rand() % 50);	/* equal times too */
			write_ok(w, s, rec, tw_sample(&a, rec, (uint64_t)s * 1000000000ull + seq[s],
						      1, 1, t[s], 0, 0, 0));
			seq[s]++;
		}
		if (seq[s] == PER) {
			ck_assert_int_eq(perfring_writer_end_source(w, src[s], NULL), 0);
			left--;
		}
	}
	close_ok(w);
	n = parse_rounds(out, o, NS * PER + 16, &late, &rounds);
	ck_assert_uint_eq(n, NS * PER);
	ck_assert_uint_eq(late, 0);
	for (i = 0; i < n; i++) {
		int so = (int)(o[i].tag / 1000000000ull);

		ck_assert_uint_ge(o[i].time, prev_t);
		prev_t = o[i].time;
		if (seen[so])
			ck_assert_uint_eq(o[i].tag, prev_tag[so] + 1);
		seen[so] = 1;
		prev_tag[so] = o[i].tag;
	}
}
END_TEST

START_TEST(test_merge_forced_flush)
{
	char out[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	unsigned char rec[64];
	static struct outrec o[40000];
	uint64_t late, rounds, j;
	size_t n;
	int s0, s1;

	path_in(out, sizeof(out), "f.data");
	/* 64 KiB window: source 0 runs far ahead of an idle source 1 */
	PERFRING_WRITER_OPTS(opt, .path = out, .window_bytes = 64 * 1024,
			     .round_bytes = 4096, .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&opt);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	s0 = perfring_writer_add_source(w);
	s1 = perfring_writer_add_source(w);
	for (j = 0; j < 20000; j++)
		write_ok(w, s0, rec, tw_sample(&a, rec, j, 1, 1, 1000 + 10 * j, 0, 0, 0));
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	ck_assert_uint_gt(st.forced_flushes, 0);
	/* flushed down to half the window each time: the rest is queued */
	ck_assert_uint_lt(st.records, 20000);
	ck_assert_uint_gt(st.records, 20000 - 65536 / 56);
	/* source 1 now gives records older than what was flushed */
	for (j = 0; j < 100; j++)
		write_ok(w, s1, rec, tw_sample(&a, rec, 1000000000ull + j, 1, 1, 1005 + 10 * j, 0, 0, 0));
	ck_assert_int_eq(perfring_writer_end_source(w, s1, NULL), 0);
	ck_assert_int_eq(perfring_writer_end_source(w, s0, NULL), 0);
	{
		struct perfring_diag d;

		ck_assert_int_eq(perfring_writer_write(w, s0, rec, 8, &d), -EINVAL);
		ck_assert_ptr_nonnull(strstr(d.msg, "was ended"));
	}
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	ck_assert_uint_gt(st.late, 0);
	close_ok(w);
	n = parse_rounds(out, o, 40000, &late, &rounds);
	ck_assert_uint_eq(n, 20100);
	/* the writer's own count agrees with perf's rule checked here */
	ck_assert_uint_eq(late, st.late);
	ck_assert_uint_gt(rounds, 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Memory stays flat: PERFRING_TEST_SCALE x 256 MiB through a small window. */

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

START_TEST(test_streaming_memory)
{
	uint64_t total = test_scaled(256ul * 1024 * 1024);
	struct perfring_attr a;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	unsigned char rec[64];
	uint64_t j, bytes = 0;
	long before;
	int fd, s0, s1, s2;

	if (total < (32u << 20))	/* at least 4 windows */
		total = 32u << 20;
	fd = open("/dev/null", O_WRONLY);
	ck_assert_int_ge(fd, 0);
	PERFRING_WRITER_OPTS(opt, .fd = fd, .window_bytes = 8u << 20,
			     .round_bytes = 1u << 20,
			     .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&opt);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	s0 = perfring_writer_add_source(w);
	s1 = perfring_writer_add_source(w);
	s2 = perfring_writer_add_source(w);	/* never fed, never ended */
	before = maxrss_kb();
	for (j = 0; bytes < total; j++) {
		size_t n = tw_sample(&a, rec, j, 1, 1, 1000 + j, 0, 0, 0);

		write_ok(w, (j % 3) ? s0 : s1, rec, n);
		bytes += n;
	}
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	ck_assert_uint_gt(st.forced_flushes, 0);
	ck_assert_uint_gt(st.records, j - (8u << 20) / 56);
	ck_assert_uint_gt(st.rounds, 0);
	(void)s2;
	close_ok(w);
	close(fd);
	/* window 8 MiB + chunks + output buffer: far below the input size */
	ck_assert_msg(maxrss_kb() - before < 40 * 1024,
		      "RSS grew by %ld kB for %llu MiB of records",
		      maxrss_kb() - before, (unsigned long long)(total >> 20));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Failures: no file under the final name, no temporary left behind.        */

static int write_many(struct perfring_writer *w, size_t nbytes,
		      struct perfring_diag *d)
{
	struct perfring_attr a;
	unsigned char rec[64];
	size_t done = 0;
	int r;

	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	r = tw_add_event(w, &a, NULL, 0, NULL, d);
	while (r >= 0 && done < nbytes) {
		size_t n = tw_sample(&a, rec, done, 1, 1, 1000 + done, 0, 0, 0);

		r = perfring_writer_write(w, 0, rec, n, d);
		done += n;
	}
	return r < 0 ? r : 0;
}

START_TEST(test_fail_fsize)
{
	char out[300];
	pid_t pid;
	int status;
	FILE *f;

	path_in(out, sizeof(out), "big.data");
	f = fopen(out, "w");
	fputs("old", f);
	fclose(f);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = { 100 * 1024, 100 * 1024 };
		struct perfring_writer *w;
		struct perfring_diag d = { 0 };
		char m[1024];
		int r, r2;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		PERFRING_WRITER_OPTS(o, .path = out, .kmap = PERFRING_WRITER_KMAP_NONE);
		if (perfring_writer_open(&o, &d, &w) < 0)
			_exit(10);
		r = write_many(w, 2u << 20, &d);
		/* the write error sticks */
		r2 = perfring_writer_close(w, &d);
		perfring_diag_format(&d, m, sizeof(m));
		if (r != -EFBIG || r2 != -EFBIG)
			_exit(11);
		if (!strstr(m, out) || !strstr(m, "File too large"))
			_exit(12);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %d", status);
	/* the old file is untouched and no temporary is left */
	{
		size_t len;
		unsigned char *b = slurp(out, &len);

		ck_assert_uint_eq(len, 3);
		ck_assert_int_eq(memcmp(b, "old", 3), 0);
		free(b);
	}
	ck_assert_int_eq(dir_entries(), 1);
}
END_TEST

START_TEST(test_fail_enospc_and_abort)
{
	char out[300], m[1024];
	struct perfring_writer *w;
	struct perfring_diag d;
	struct stat sb;
	FILE *f;

	/* /dev/full: a device, streamed into (pipe mode), ENOSPC */
	if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
		PERFRING_WRITER_OPTS(o, .path = "/dev/full",
				     .kmap = PERFRING_WRITER_KMAP_NONE);
		w = open_ok(&o);
		ck_assert_int_eq(write_many(w, 1u << 20, &d), -ENOSPC);
		ck_assert_int_eq(perfring_writer_close(w, &d), -ENOSPC);
		perfring_diag_format(&d, m, sizeof(m));
		ck_assert_ptr_nonnull(strstr(m, "/dev/full"));
		ck_assert_ptr_nonnull(strstr(m, "No space left on device"));
	}

	/* abort: temporary removed, old file untouched */
	path_in(out, sizeof(out), "ab.data");
	f = fopen(out, "w");
	fputs("old", f);
	fclose(f);
	{
		PERFRING_WRITER_OPTS(o, .path = out, .kmap = PERFRING_WRITER_KMAP_NONE);
		w = open_ok(&o);
		ck_assert_int_eq(dir_entries(), 2);	/* the temporary exists */
		ck_assert_int_eq(write_many(w, 1u << 20, &d), 0);
		ck_assert_int_eq(stat(out, &sb), 0);
		ck_assert_int_eq(sb.st_size, 3);	/* not replaced before close */
		perfring_writer_abort(w);
		ck_assert_int_eq(dir_entries(), 1);
		ck_assert_int_eq(stat(out, &sb), 0);
		ck_assert_int_eq(sb.st_size, 3);

		/* a successful close replaces it */
		w = open_ok(&o);
		ck_assert_int_eq(write_many(w, 4096, &d), 0);
		close_ok(w);
		ck_assert_int_eq(stat(out, &sb), 0);
		ck_assert_int_gt(sb.st_size, 4096);
		ck_assert_int_eq(dir_entries(), 1);
	}
	/* a directory that does not exist: -ENOENT naming the temporary */
	{
		PERFRING_WRITER_OPTS(o, .path = "/nonexistent-dir/x.data");
		ck_assert_int_eq(perfring_writer_open(&o, &d, &w), -ENOENT);
		perfring_diag_format(&d, m, sizeof(m));
		ck_assert_ptr_nonnull(strstr(m, "/nonexistent-dir/x.data.tmp."));
	}
	perfring_writer_abort(NULL);
}
END_TEST

/* File mode on a caller's seekable fd: written from offset 0, truncated. */
START_TEST(test_file_on_fd)
{
	char out[300], ref[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	unsigned char rec[64], *f1, *f2, junk[8192];
	size_t l1, l2;
	int fd;

	path_in(out, sizeof(out), "fd.data");
	path_in(ref, sizeof(ref), "ref.data");
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	memset(junk, 0xee, sizeof(junk));
	ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	{
		PERFRING_WRITER_OPTS(o, .fd = fd, .hostname = "h", .argc = 1,
				     .argv = (const char *const[]){ "p" },
				     .kmap = PERFRING_WRITER_KMAP_NONE);
		w = open_ok(&o);
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
		write_ok(w, 0, rec, tw_sample(&a, rec, 0x10, 1, 1, 5, 0, 0, 0));
		close_ok(w);
	}
	ck_assert_int_eq(fcntl(fd, F_GETFD), 0);	/* still open: the caller's */
	close(fd);
	{
		PERFRING_WRITER_OPTS(o, .path = ref, .hostname = "h", .argc = 1,
				     .argv = (const char *const[]){ "p" },
				     .kmap = PERFRING_WRITER_KMAP_NONE);
		w = open_ok(&o);
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
		write_ok(w, 0, rec, tw_sample(&a, rec, 0x10, 1, 1, 5, 0, 0, 0));
		close_ok(w);
	}
	f1 = slurp(out, &l1);
	f2 = slurp(ref, &l2);
	ck_assert_uint_lt(l1, sizeof(junk));
	ck_assert_uint_eq(l1, l2);
	ck_assert_int_eq(memcmp(f1, f2, l1), 0);
	free(f1);
	free(f2);
}
END_TEST

/* The disk taken by the temporary file being written (0 when none is there). */
static long long tmp_blocks_bytes(const char *final_name)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	long long got = 0;
	size_t n = strlen(final_name);
	char p[600];
	struct stat st;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, final_name, n) && !strncmp(e->d_name + n, ".tmp.", 5)) {
			snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
			ck_assert_int_eq(stat(p, &st), 0);
			got = (long long)st.st_blocks * 512;
		}
	closedir(d);
	return got;
}

/*
 * size_hint: the disk is reserved while the output is written and given
 * back at close; the bytes are those written without the hint.  The
 * reservation is only looked for where this filesystem can fallocate.
 */
START_TEST(test_size_hint)
{
	const uint64_t hint = 32u << 20;
	char out[300], ref[300], probe[300];
	struct perfring_attr a;
	struct perfring_writer *w;
	unsigned char rec[64], *f1, *f2;
	size_t l1, l2;
	struct stat st;
	bool can_reserve;
	int fd;

	path_in(out, sizeof(out), "hint.data");
	path_in(ref, sizeof(ref), "nohint.data");
	path_in(probe, sizeof(probe), "probe");
	fd = open(probe, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	can_reserve = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
	close(fd);
	unlink(probe);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	for (int pass = 0; pass < 2; pass++) {
		PERFRING_WRITER_OPTS(o, .path = pass ? ref : out, .hostname = "h", .argc = 1,
				     .argv = (const char *const[]){ "p" },
				     .kmap = PERFRING_WRITER_KMAP_NONE,
				     .size_hint = pass ? 0 : hint);
		w = open_ok(&o);
		if (!pass && can_reserve)
			ck_assert_int_ge(tmp_blocks_bytes("hint.data"), (long long)hint);
		if (pass)
			ck_assert_int_lt(tmp_blocks_bytes("nohint.data"), (long long)hint);
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
		for (uint64_t i = 0; i < 1000; i++)
			write_ok(w, 0, rec, tw_sample(&a, rec, 0x10 + i, 1, 1, 5 + i, 0, 0, 0));
		close_ok(w);
	}
	ck_assert_int_eq(stat(out, &st), 0);
	ck_assert_int_lt((long long)st.st_blocks * 512, (long long)st.st_size + (1 << 20));
	f1 = slurp(out, &l1);
	f2 = slurp(ref, &l2);
	ck_assert_uint_eq(l1, l2);
	ck_assert_int_eq(memcmp(f1, f2, l1), 0);
	free(f1);
	free(f2);
}
END_TEST

/* What the writer wrote, read back by the library's perf.data reader. */
START_TEST(test_roundtrip_reader)
{
	char out[300], m[1024];
	struct perfring_attr a0, a1;
	const uint64_t ids0[] = { 100, 101, 102 };
	unsigned char recs[64][128];
	size_t rn[64], nrec = 0, i;
	int pipe_mode;

	base_attr(&a0, 0, PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
		  PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_PERIOD);
	a1 = a0;
	a1.config = 1;
	/* time-ordered records, alternating events; sources split them */
	rn[nrec] = tw_comm(&a0, recs[nrec], 1, 9, 9, "rt", 10, 100); nrec++;
	rn[nrec] = tw_mmap2(&a0, recs[nrec], 9, 9, 0x1000, 0x1000, 0, "/x", 20, 101); nrec++;
	for (i = 0; i < 40; i++) {
		const struct perfring_attr *a = i % 2 ? &a1 : &a0;

		rn[nrec] = tw_sample(a, recs[nrec], 0x1000 + i, 9, 9, 100 + 10 * i,
				     i % 2 ? 103 : ids0[i % 3], 0, 1);
		nrec++;
	}
	for (pipe_mode = 0; pipe_mode < 2; pipe_mode++) {
		struct perfring_writer *w;
		struct perfring_perfdata *pd;
		struct perfring_perfdata_record r = { .sz = sizeof(r) };
		struct perfring_diag d;
		const struct perfring_attr *ra;
		const uint64_t *rids;
		size_t got = 0;
		uint32_t nids;
		const char *name;
		int k, rc;

		path_in(out, sizeof(out), "rt.data");
		{
			PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = pipe_mode,
					     .round_bytes = 100,
					     .kallsyms_path = fake_kallsyms());
			w = open_ok(&o);
		}
		ck_assert_int_eq(tw_add_event(w, &a0, ids0, 3, "first", NULL), 0);
		ck_assert_int_eq(tw_add_event(w, &a1, NULL, 0, "second", NULL), 1);
		ck_assert_uint_eq(perfring_writer_event_id(w, 1), 103);
		ck_assert_int_eq(perfring_writer_add_source(w), 0);
		ck_assert_int_eq(perfring_writer_add_source(w), 1);
		/* source 0: side-band and event 0; source 1: event 1, fed first */
		for (i = 0; i < nrec; i++)
			if (i >= 2 && (i - 2) % 2)
				write_ok(w, 1, recs[i], rn[i]);
		ck_assert_int_eq(perfring_writer_end_source(w, 1, NULL), 0);
		for (i = 0; i < nrec; i++)
			if (i < 2 || (i - 2) % 2 == 0)
				write_ok(w, 0, recs[i], rn[i]);
		close_ok(w);

		rc = perfring_perfdata_open(out, NULL, &d, &pd);
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		ck_assert_int_eq(perfring_perfdata_is_pipe(pd), pipe_mode);
		/* records in time order, each resolved to its event */
		while ((rc = perfring_perfdata_next(pd, &r, &d)) == 1) {
			if (r.type >= PERFRING_RECORD_HEADER_ATTR ||
			    r.type == PERFRING_RECORD_MMAP)
				continue;	/* ATTR, FEATURE, rounds, kernel map */
			ck_assert_uint_lt(got, nrec);
			ck_assert_uint_eq(r.size, rn[got]);
			ck_assert_int_eq(memcmp(r.header, recs[got], rn[got]), 0);
			if (r.type == PERFRING_RECORD_SAMPLE)
				ck_assert_int_eq(r.attr_idx, (int)((got - 2) % 2));
			ck_assert_uint_eq(r.flags & PERFRING_PERFDATA_REC_UNKNOWN_ID, 0);
			got++;
		}
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		ck_assert_uint_eq(got, nrec);
		ck_assert_uint_gt(pd_stats(pd).by_type[PERFRING_RECORD_FINISHED_ROUND], 0);
		/* events: attrs, ids and names */
		ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), 2);
		for (k = 0; k < 2; k++) {
			ck_assert_int_eq(perfring_perfdata_attr(pd, (size_t)k, &ra, &rids,
								&nids, &name), 0);
			ck_assert_uint_eq(ra->config, (uint64_t)k);
			ck_assert_uint_eq(ra->sample_type, a0.sample_type);
			ck_assert_uint_eq(ra->size, pipe_mode ? 128 : 64);
			ck_assert_uint_eq(nids, k ? 1 : 3);
			ck_assert_uint_eq(rids[0], k ? 103 : 100);
			ck_assert_ptr_nonnull(name);
			ck_assert_str_eq(name, k ? "second" : "first");
		}
		ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 102), 0);
		ck_assert_int_eq(perfring_perfdata_attr_by_id(pd, 103), 1);
		perfring_perfdata_close(pd);
		unlink(out);
	}
}
END_TEST

/* build_ids: perf's build-id table entries (pid -1, 36 + name padded to 64). */
START_TEST(test_build_ids)
{
	char out[300], self[1024];
	struct perfring_attr a;
	struct perfring_writer *w;
	unsigned char rec[256], *f;
	size_t len, n;
	ssize_t sl;
	const unsigned char *p, *end;
	int found_self = 0, found_fake = 0, k;
	uint64_t bm, off = 0, size = 0;

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(sl, 0);
	self[sl] = 0;
	path_in(out, sizeof(out), "bid.data");
	PERFRING_WRITER_OPTS(o, .path = out, .build_ids = 1,
			     .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&o);
	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, NULL, NULL), 0);
	/* this test binary: its id is read from the ELF file at close */
	write_ok(w, 0, rec, tw_mmap2(&a, rec, 1, 1, 0x400000, 0x1000, 0, self, 1, 0));
	write_ok(w, 0, rec, tw_mmap2(&a, rec, 1, 1, 0x500000, 0x1000, 0, self, 2, 0));
	/* an MMAP2 in build-id form for a file that does not exist */
	n = tw_mmap2(&a, rec, 1, 1, 0x600000, 0x1000, 0, "/nonexistent/lib.so", 3, 0);
	{
		uint16_t misc = PERFRING_MISC_USER | PERFRING_MISC_MMAP_BUILD_ID;

		memcpy(rec + 4, &misc, 2);
	}
	memset(rec + 40, 0, 24);
	rec[40] = 20;
	memset(rec + 44, 0xab, 20);
	write_ok(w, 0, rec, n);
	/* not files: no entry */
	write_ok(w, 0, rec, tw_mmap2(&a, rec, 1, 1, 0x700000, 0x1000, 0, "[vdso]", 4, 0));
	write_ok(w, 0, rec, tw_mmap2(&a, rec, 1, 1, 0x800000, 0x1000, 0, "//anon", 5, 0));
	close_ok(w);

	f = slurp(out, &len);
	bm = tw_get64(f + 72);
	ck_assert(bm & (1ull << 2));
	/* BUILD_ID is the lowest set bit: the first table entry */
	for (k = 0; k < 2; k++)
		ck_assert(!(bm & (1ull << k)));
	p = f + tw_get64(f + 40) + tw_get64(f + 48);
	off = tw_get64(p);
	size = tw_get64(p + 8);
	ck_assert_uint_le(off + size, len);
	p = f + off;
	end = p + size;
	while (p < end) {
		uint16_t misc = (uint16_t)(p[4] | p[5] << 8), sz = (uint16_t)(p[6] | p[7] << 8);
		const char *name = (const char *)p + 36;
		size_t nl = strlen(name);

		ck_assert_uint_eq(tw_get32(p), 0);			/* type */
		ck_assert_uint_eq(misc, PERFRING_MISC_USER | PERFRING_MISC_EXT_RESERVED);
		ck_assert_uint_eq(tw_get32(p + 8), 0xffffffffu);	/* pid -1 */
		ck_assert_uint_eq(sz, 36 + ((nl + 1 + 63) & ~(size_t)63));
		if (!strcmp(name, self)) {
			ck_assert_uint_eq(p[32], 20);
			found_self++;
		} else if (!strcmp(name, "/nonexistent/lib.so")) {
			unsigned char want[20];

			memset(want, 0xab, 20);
			ck_assert_uint_eq(p[32], 20);
			ck_assert_int_eq(memcmp(p + 12, want, 20), 0);
			found_fake++;
		} else {
			ck_abort_msg("unexpected build-id entry %s", name);
		}
		p += sz;
	}
	ck_assert_ptr_eq(p, end);
	ck_assert_int_eq(found_self, 1);
	ck_assert_int_eq(found_fake, 1);
	free(f);
}
END_TEST

/* Random records: never a crash or an out-of-bounds read (run under ASan). */
START_TEST(test_random_records)
{
	static const uint32_t types[] = { 1, 2, 3, 4, 7, 9, 10, 14, 22, 64, 68, 69, 80, 200 };
	char out[300];
	struct perfring_attr a0, a1;
	struct perfring_writer *w;
	struct perfring_writer_stats st = { .sz = sizeof(st) };
	uint64_t late, rounds, ok = 0;
	static struct outrec o[20000];
	int i, s0, s1;

	srand(777);
	path_in(out, sizeof(out), "rand.data");
	PERFRING_WRITER_OPTS(opt, .path = out, .window_bytes = 64 * 1024,
			     .round_bytes = 512, .kmap = PERFRING_WRITER_KMAP_NONE);
	w = open_ok(&opt);
	base_attr(&a0, 0, PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
		  PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	a1 = a0;
	a1.config = 1;
	ck_assert_int_eq(tw_add_event(w, &a0, NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(tw_add_event(w, &a1, NULL, 0, NULL, NULL), 1);
	s0 = perfring_writer_add_source(w);
	s1 = perfring_writer_add_source(w);
	for (i = 0; i < 10000; i++) {
		unsigned char *rec;
		size_t len = 8 + (size_t)(rand() % 120), k;
		uint16_t size = (uint16_t)(rand() % 4 ? len : (size_t)(rand() % 200));
		int r;

		rec = malloc(len);	/* exact size: ASan sees any overread */
		ck_assert_ptr_nonnull(rec);
		for (k = 0; k < len; k++)
			rec[k] = (unsigned char)rand();
		tw_put32(rec, types[rand() % (int)(sizeof(types) / sizeof(types[0]))]);
		memcpy(rec + 6, &size, 2);
		if (len >= 16 && rand() % 2)	/* a known id at the front */
			tw_put64(rec + 8, 1 + (uint64_t)(rand() % 3));
		r = perfring_writer_write(w, rand() % 2 ? s0 : s1, rec, len, NULL);
		if (r != 0 && r != -EINVAL)
			ck_abort_msg("write returned %d", r);
		ok += r == 0;
		free(rec);
	}
	ck_assert_uint_gt(ok, 100);
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	close_ok(w);
	/* the data section is still a clean sequence of records */
	(void)parse_rounds(out, o, 20000, &late, &rounds);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Compression (PERF_RECORD_COMPRESSED) and tracing data.                   */

/* A SAMPLE with a RAW payload of raw_len bytes (4 + raw_len a multiple of 8). */
static size_t raw_sample(const struct perfring_attr *a, unsigned char *buf, uint64_t time,
			 uint32_t raw_len, unsigned seed)
{
	size_t n = tw_sample(a, buf, 0x1000 + seed, 7, 7, time, 0, 0, 1);
	uint32_t i;

	tw_put32(buf + n, raw_len);
	for (i = 0; i < raw_len; i++)	/* compressible, not constant */
		buf[n + 4 + i] = (unsigned char)((i / 16 + seed) & 0x3f);
	n += 4 + raw_len;
	tw_header(buf, PERFRING_RECORD_SAMPLE, PERFRING_MISC_USER, n);
	return n;
}

/*
 * Records of 40 bytes to 64 KiB (some straddle two COMPRESSED records) come
 * back from the library's reader byte for byte, flagged COMPRESSED; rounds
 * stay outside; the COMPRESSED feature is perf's (version 0, zstd, level,
 * ratio, mmap_len).  File and pipe mode, levels 1 and 19.
 */
#ifndef HAVE_ZSTD
/* Built without zstd: compression is refused with -ENOTSUP, saying why. */
START_TEST(test_compressed_roundtrip)
{
	struct perfring_writer *w = NULL;
	struct perfring_diag d;
	char out[300];

	path_in(out, sizeof(out), "z.data");
	{
		PERFRING_WRITER_OPTS(o, .path = out, .compression_level = 1);

		ck_assert_int_eq(perfring_writer_open(&o, &d, &w), -ENOTSUP);
	}
	ck_assert_ptr_null(w);
	ck_assert_msg(strstr(d.msg, "built without"), "%s", d.msg);
}
END_TEST
#else
START_TEST(test_compressed_roundtrip)
{
	static unsigned char recs[2000][128];
	static unsigned char big[4][65536];
	size_t rn[2000], bn[4], i, raw_total = 0, file_len;
	struct perfring_attr a;
	char out[300], m[1024];
	int mode;

	base_attr(&a, 0, PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
		  PERFRING_SAMPLE_PERIOD | PERFRING_SAMPLE_RAW);
	for (i = 0; i < 2000; i++) {
		rn[i] = raw_sample(&a, recs[i], 1000 + 10 * i, 12 + 8 * (uint32_t)(i % 10),
				   (unsigned)i);
		raw_total += rn[i];
	}
	for (i = 0; i < 4; i++) {
		bn[i] = raw_sample(&a, big[i], 100000 + i, 65404 - 8 * (uint32_t)i, (unsigned)i);
		raw_total += bn[i];
	}
	for (mode = 0; mode < 4; mode++) {
		int pipe_mode = mode & 1, level = mode & 2 ? 19 : 1;
		struct perfring_writer *w;
		struct perfring_writer_stats st = { .sz = sizeof(st) };
		struct perfring_perfdata *pd;
		struct perfring_perfdata_record r = { .sz = sizeof(r) };
		struct perfring_diag d;
		size_t got = 0, nz = 0, k;
		uint64_t z_rec_bytes = 0;
		int rc, feat = 0;
		unsigned char *f;

		path_in(out, sizeof(out), "z.data");
		{
			PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = pipe_mode,
					     .round_bytes = 40000, .compression_level = level,
					     .kmap = PERFRING_WRITER_KMAP_NONE);
			w = open_ok(&o);
		}
		ck_assert_int_eq(tw_add_event(w, &a, NULL, 0, "raw", NULL), 0);
		for (i = 0; i < 2000; i++)
			write_ok(w, 0, recs[i], rn[i]);
		for (i = 0; i < 4; i++)
			write_ok(w, 0, big[i], bn[i]);
		ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
		close_ok(w);
		ck_assert_uint_gt(st.compressed, 4);
		f = slurp(out, &file_len);
		free(f);
		ck_assert_msg(file_len * 4 < raw_total, "%zu bytes for %zu of records",
			      file_len, raw_total);

		rc = perfring_perfdata_open(out, NULL, &d, &pd);
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		while ((rc = perfring_perfdata_next(pd, &r, &d)) == 1) {
			const unsigned char *want;
			size_t wn;

			if (r.type == PERFRING_RECORD_COMPRESSED) {
				ck_assert_uint_le(r.size, 65535);
				z_rec_bytes += r.size;
				nz++;
				continue;
			}
			if (r.type == PERFRING_RECORD_FINISHED_ROUND)
				ck_assert_uint_eq(r.flags & PERFRING_PERFDATA_REC_COMPRESSED, 0);
			if (r.type != PERFRING_RECORD_SAMPLE)
				continue;
			ck_assert_uint_ne(r.flags & PERFRING_PERFDATA_REC_COMPRESSED, 0);
			want = got < 2000 ? recs[got] : big[got - 2000];
			wn = got < 2000 ? rn[got] : bn[got - 2000];
			ck_assert_uint_eq(r.size, wn);
			ck_assert_int_eq(memcmp(r.header, want, wn), 0);
			got++;
		}
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		ck_assert_uint_eq(got, 2004);
		ck_assert_uint_eq(nz, st.compressed);
		for (k = 0; k < perfring_perfdata_nr_features(pd); k++) {
			struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };
			const unsigned char *q;

			ck_assert_int_eq(perfring_perfdata_feature(pd, k, &ft, &d), 0);
			if (ft.id != PERFRING_FEAT_COMPRESSED)
				continue;
			q = ft.data;
			ck_assert_uint_eq(ft.size, 20);
			ck_assert_uint_eq(tw_get32(q), 0);		/* version */
			ck_assert_uint_eq(tw_get32(q + 4), 1);		/* zstd */
			ck_assert_uint_eq(tw_get32(q + 8), (uint32_t)level);
			if (pipe_mode)
				ck_assert_uint_eq(tw_get32(q + 12), 0);	/* not known */
			else	/* input over output, rounded, as perf record */
				ck_assert_uint_eq(tw_get32(q + 12),
						  (st.compressed_input + z_rec_bytes / 2) /
						  z_rec_bytes);
			/* what one record decompresses to at most: a chunk */
			ck_assert_uint_ge(tw_get32(q + 16), 4096);
			feat = 1;
		}
		ck_assert_int_eq(feat, 1);
		perfring_perfdata_close(pd);
		unlink(out);
	}
}
END_TEST
#endif

/* A fake tracefs under the test directory (removed by rm_tree). */
static const char fmt_exec[] = "name: sched_process_exec\nID: 365\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
	"print fmt: \"filename=%s\", __get_str(filename)\n";
static const char fmt_switch[] = "name: sched_switch\nID: 300\nformat:\n\n"
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";
static const char fmt_irq[] = "name: irq_handler_entry\nID: 50\nformat:\n\n"
	"print fmt: \"irq=%d\", REC->irq\n";

static void put_text(const char *root, const char *rel, const char *text)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	ck_assert_msg(f != NULL, "cannot create %s", p);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *root, const char *rel)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static const char *fake_tracefs(void)
{
	static char root[300];

	path_in(root, sizeof(root), "tracefs");
	mkdir(root, 0755);
	mk(root, "events");
	mk(root, "events/sched");
	mk(root, "events/sched/sched_process_exec");
	mk(root, "events/sched/sched_switch");
	mk(root, "events/irq");
	mk(root, "events/irq/irq_handler_entry");
	put_text(root, "events/header_page", "hp\n");
	put_text(root, "events/header_event", "he\n");
	put_text(root, "events/sched/enable", "0\n");
	put_text(root, "events/sched/sched_process_exec/id", "365\n");
	put_text(root, "events/sched/sched_process_exec/format", fmt_exec);
	put_text(root, "events/sched/sched_switch/id", "300\n");
	put_text(root, "events/sched/sched_switch/format", fmt_switch);
	put_text(root, "events/irq/irq_handler_entry/id", "50\n");
	put_text(root, "events/irq/irq_handler_entry/format", fmt_irq);
	put_text(root, "printk_formats", "0x1 : \"x\"\n");
	put_text(root, "saved_cmdlines", "1 init\n");
	return root;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

static void rm_tree(void)
{
	char root[300];

	path_in(root, sizeof(root), "tracefs");
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	rm_tmpdir();
}

/* The payload perf 6.1 writes for these events, encoded independently. */
static size_t expected_tracing_data(unsigned char *b)
{
	static const char magic[] = "\027\010\104tracing0.6";
	size_t n = 0;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	const char *fmts[3] = { fmt_exec, fmt_switch, fmt_irq };
	int i;

#define PUT(p, len) (memcpy(b + n, (p), (len)), n += (len))
#define PUT32(v) do { uint32_t v32 = (v); PUT(&v32, 4); } while (0)
#define PUT64(v) do { uint64_t v64 = (v); PUT(&v64, 8); } while (0)
	PUT(magic, sizeof(magic));		/* with its NUL */
	b[n++] = 0;				/* little endian */
	b[n++] = 8;				/* sizeof(long) */
	PUT32(page);
	PUT("header_page", 12);
	PUT64(3);
	PUT("hp\n", 3);
	PUT("header_event", 13);
	PUT64(3);
	PUT("he\n", 3);
	PUT32(0);				/* ftrace formats */
	PUT32(2);				/* systems */
	for (i = 0; i < 3; i++) {
		if (i == 0) {
			PUT("sched", 6);
			PUT32(2);
		} else if (i == 2) {
			PUT("irq", 4);
			PUT32(1);
		}
		PUT64(strlen(fmts[i]));
		PUT(fmts[i], strlen(fmts[i]));
	}
	PUT32(0);				/* kallsyms */
	PUT32(10);
	PUT("0x1 : \"x\"\n", 10);
	PUT64(7);
	PUT("1 init\n", 7);
#undef PUT
#undef PUT32
#undef PUT64
	return n;
}

/*
 * Tracepoint events: HEADER_TRACING_DATA in perf's layout from the format
 * files (events found by name, or by id when the name is not theirs; an
 * event twice written once); pipe mode: the 12-byte record, payload and
 * padding; no tracefs: a warning naming what was looked up, no feature;
 * a given payload written as is.
 */
START_TEST(test_tracing_data)
{
	static unsigned char want[4096];
	size_t wn = expected_tracing_data(want), len;
	const char *root = fake_tracefs();
	struct perfring_attr a[4];
	const char *names[4] = { "sched:sched_process_exec", "sched:sched_switch",
				 "tp-by-id", "sched:sched_process_exec" };
	const uint64_t cfg[4] = { 365, 300, 50, 365 };
	char out[300], m[1024];
	int mode, i;

	for (i = 0; i < 4; i++) {
		base_attr(&a[i], cfg[i], PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_TIME |
			  PERFRING_SAMPLE_RAW);
		a[i].type = PERFRING_TYPE_TRACEPOINT;
		a[i].sample_period = 1;
		a[i].flags |= i == 3 ? PERFRING_ATTR_EXCLUDE_USER : 0;
	}
	path_in(out, sizeof(out), "tp.data");
	for (mode = 0; mode < 4; mode++) {
		struct perfring_writer *w;
		struct perfring_writer_stats st = { .sz = sizeof(st) };
		struct perfring_perfdata *pd;
		struct perfring_perfdata_record r = { .sz = sizeof(r) };
		struct perfring_diag d;
		unsigned char *f;
		int found = 0, rc;
		size_t k;

		logbuf[0] = 0;
		perfring_set_log(capture_log, NULL);
		{
			PERFRING_WRITER_OPTS(o, .path = out, .pipe_mode = mode == 1,
					     .kmap = PERFRING_WRITER_KMAP_NONE,
					     .tracefs_path = mode == 2 ? "/nonexistent" : root,
					     .tracing_data = mode == 3 ? "given" : NULL,
					     .tracing_data_size = mode == 3 ? 5 : 0);
			w = open_ok(&o);
		}
		for (i = 0; i < 4; i++)
			ck_assert_int_eq(tw_add_event(w, &a[i], NULL, 0, names[i],
								   NULL), i);
		{
			unsigned char rec[128];

			write_ok(w, 0, rec, raw_sample(&a[0], rec, 1000, 20, 1));
		}
		ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
		close_ok(w);
		perfring_set_log(NULL, NULL);
		ck_assert_int_eq(st.tracing_data, mode != 2);
		if (mode == 2) {
			ck_assert_msg(strstr(logbuf, "no tracefs: looked for /nonexistent/events"),
				      "log: %s", logbuf);
			ck_assert_msg(strstr(logbuf, "HEADER_TRACING_DATA left out"), "log: %s",
				      logbuf);
		}
		f = slurp(out, &len);
		rc = perfring_perfdata_open(out, NULL, &d, &pd);
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		while ((rc = perfring_perfdata_next(pd, &r, &d)) == 1) {
			if (r.type != PERFRING_RECORD_HEADER_TRACING_DATA)
				continue;
			ck_assert_int_eq(mode, 1);
			ck_assert_uint_eq(r.size, 12);
			ck_assert_uint_eq(r.extra_size, (wn + 7) & ~(size_t)7);
			ck_assert_uint_eq(tw_get32((const unsigned char *)r.header + 8),
					  r.extra_size);
			ck_assert_uint_le(r.offset + 12 + r.extra_size, len);
			ck_assert_int_eq(memcmp(f + r.offset + 12, want, wn), 0);
			for (k = wn; k < r.extra_size; k++)
				ck_assert_uint_eq(f[r.offset + 12 + k], 0);
			found = 1;
		}
		ck_assert_msg(rc == 0, "reader: %s", perfring_diag_format(&d, m, sizeof(m)));
		for (k = 0; k < perfring_perfdata_nr_features(pd); k++) {
			struct perfring_perfdata_feature ft = { .sz = sizeof(ft) };

			ck_assert_int_eq(perfring_perfdata_feature(pd, k, &ft, &d), 0);
			if (ft.id != PERFRING_FEAT_TRACING_DATA)
				continue;
			if (mode == 1) {
				/* pipe: the record's payload, padded, is the
				 * stream's TRACING_DATA feature too */
				ck_assert_uint_eq(ft.size, (wn + 7) & ~(size_t)7);
				ck_assert_int_eq(memcmp(ft.data, want, wn), 0);
			} else if (mode == 3) {
				ck_assert_uint_eq(ft.size, 5);
				ck_assert_int_eq(memcmp(ft.data, "given", 5), 0);
			} else {
				ck_assert_uint_eq(ft.size, wn);
				ck_assert_int_eq(memcmp(ft.data, want, wn), 0);
			}
			found = 1;
		}
		ck_assert_int_eq(found, mode != 2);
		perfring_perfdata_close(pd);
		free(f);
		unlink(out);
	}
}
END_TEST

/* perfring_tracefs_dir and perfring_tracepoints_find on the fake tracefs. */
START_TEST(test_tracepoints_find)
{
	const char *root = fake_tracefs();
	struct perfring_tracepoint *tp;
	struct perfring_diag d;
	char buf[300], m[1024];
	int n;

	ck_assert_int_eq(perfring_tracefs_dir(root, buf, sizeof(buf), &d), 0);
	ck_assert_str_eq(buf, root);
	ck_assert_int_eq(perfring_tracefs_dir("/nonexistent", buf, sizeof(buf), &d), -ENOENT);
	ck_assert_msg(strstr(d.msg, "/nonexistent/events"), "%s", d.msg);

	n = perfring_tracepoints_find(root, "sched:*", &tp, &d);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(tp[0].name, "sched:sched_process_exec");
	ck_assert_uint_eq(tp[0].id, 365);
	ck_assert_str_eq(tp[1].name, "sched:sched_switch");
	ck_assert_uint_eq(tp[1].id, 300);
	free(tp);
	n = perfring_tracepoints_find(root, "*:irq_*", &tp, &d);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(tp[0].id, 50);
	free(tp);
	n = perfring_tracepoints_find(root, "sched:sched_switch", &tp, &d);
	ck_assert_int_eq(n, 1);
	free(tp);

	ck_assert_int_eq(perfring_tracepoints_find(root, "sched:nope", &tp, &d), -ENOENT);
	ck_assert_ptr_null(tp);
	perfring_diag_format(&d, m, sizeof(m));
	ck_assert_msg(strstr(m, "unknown tracepoint 'sched:nope'") &&
		      strstr(m, "/events/sched/nope/id"), "%s", m);
	ck_assert_int_eq(perfring_tracepoints_find(root, "x*:y", &tp, &d), -ENOENT);
	ck_assert_msg(strstr(d.msg, "no tracepoint matches 'x*:y'"), "%s", d.msg);
	ck_assert_int_eq(perfring_tracepoints_find(root, "sched", &tp, &d), -EINVAL);
	ck_assert_int_eq(perfring_tracepoints_find(root, "a:b:c", &tp, &d), -EINVAL);
	ck_assert_int_eq(perfring_tracepoints_find(root, "../x:y", &tp, &d), -EINVAL);
	ck_assert_int_eq(perfring_tracepoints_find(root, "..:sched", &tp, &d), -EINVAL);
}
END_TEST

/* Compression options: levels out of range refused. */
START_TEST(test_compression_options)
{
	struct perfring_writer *w = NULL;
	struct perfring_diag d;
	char out[300];
	int lv[] = { -1, 23, 1000 };

	path_in(out, sizeof(out), "opt.data");
	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		PERFRING_WRITER_OPTS(o, .path = out, .compression_level = lv[i]);

		ck_assert_int_eq(perfring_writer_open(&o, &d, &w), -EINVAL);
		ck_assert_ptr_null(w);
		ck_assert_msg(strstr(d.msg, "compression level"), "%s", d.msg);
	}
	ck_assert_int_eq(dir_entries(), 0);
}
END_TEST

static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc;

	tc = tcase_create("layout");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_file_layout);
	tcase_add_test(tc, test_pipe_layout);
	tcase_add_test(tc, test_attr_size);
	tcase_add_test(tc, test_file_on_fd);
	tcase_add_test(tc, test_size_hint);
	tcase_add_test(tc, test_roundtrip_reader);
	tcase_add_test(tc, test_build_ids);
	suite_add_tcase(s, tc);

	tc = tcase_create("validation");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_event_validation);
	tcase_add_test(tc, test_unknown_types);
	tcase_add_test(tc, test_random_records);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_merge_in_order);
	tcase_add_test(tc, test_merge_many_sources);
	tcase_add_test(tc, test_merge_forced_flush);
	tcase_add_test(tc, test_streaming_memory);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("compression");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_compressed_roundtrip);
	tcase_add_test(tc, test_compression_options);
	suite_add_tcase(s, tc);

	tc = tcase_create("tracing");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tree);
	tcase_add_test(tc, test_tracing_data);
	tcase_add_test(tc, test_tracepoints_find);
	suite_add_tcase(s, tc);

	tc = tcase_create("failure");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_fail_fsize);
	tcase_add_test(tc, test_fail_enospc_and_abort);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(writer_suite());
}
