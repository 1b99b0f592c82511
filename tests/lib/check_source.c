/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sources API (lib/source/source.c, lib/ring/validate.c, the ring reader's RESYNC):
 *  - perfring_probe / perfring_probe_fd tell a ring file, file-mode and
 *    pipe-mode perf.data (in a file and in a real pipe, either byte order)
 *    apart, and name the file and the offset for a directory, an empty or
 *    short file and an unknown magic;
 *  - perfring_source_next gives each SAMPLE the event perf gives it
 *    (tests/fixtures/pd-*.events, written by perf script -F time,event),
 *    also byte-swapped and through a pipe, and a ring's records the event
 *    of their id;
 *  - perfring_record_id finds ids where perf does;
 *  - perfring_record_validate: one bad record per check, each beside a good
 *    one that passes;
 *  - RESYNC: a damaged ring gives back the valid records before and after
 *    the damage, says where it went on and counts the bytes skipped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "pd-testlib.h"
#include "testutil.h"

static const char *fixture(const char *name, const char *ext)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s%s", FIXTURES_DIR, name, ext);
	return buf[k];
}

static char tmpdir[64];

static void mk_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_source.XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	}
}

static const char *tmp_file(const char *name, const void *p, size_t n)
{
	static char path[4][128];
	static int k;
	FILE *f;

	mk_tmpdir();
	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	f = fopen(path[k], "wb");
	ck_assert_ptr_nonnull(f);
	if (n)
		ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
	return path[k];
}

/* ---- rings ------------------------------------------------------------------ */

#define ST (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME)

static struct perfring_attr mk_attr(void)
{
	struct perfring_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERFRING_TYPE_SOFTWARE;
	a.size = PERFRING_ATTR_SIZE_VER5;
	a.sample_type = ST;
	a.flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	a.sample_period = 1000;
	return a;
}

static struct perfring_attr ring_attr[2];
static const uint64_t ids0[] = { 7, 8 }, ids1[] = { 9 };

/* A ring with two events (ids 7, 8 and 9); FILE rings at path. */
static struct perfring_ring *mk_ring(enum perfring_ring_backing b, const char *path,
				     uint32_t flags)
{
	struct perfring_event_desc ev[2] = {
		{ .sz = sizeof(ev[0]), .attr = &ring_attr[0], .ids = ids0, .nr_ids = 2,
		  .name = "first" },
		{ .sz = sizeof(ev[1]), .attr = &ring_attr[1], .ids = ids1, .nr_ids = 1,
		  .name = "second" },
	};
	PERFRING_RING_OPTS(o, .backing = b, .path = path, .data_size = 4096,
			   .flags = flags | (b == PERFRING_RING_FILE ? PERFRING_RING_TRUNCATE : 0),
			   .events = ev, .nr_events = 2);
	struct perfring_ring *r = NULL;

	ring_attr[0] = mk_attr();
	ring_attr[1] = mk_attr();
	ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
	return r;
}

/* A 32-byte SAMPLE: IDENTIFIER id, pid/tid 1000, time t. */
static void sample32(unsigned char *p, uint64_t id, uint64_t t)
{
	struct perfring_event_header h = { PERFRING_RECORD_SAMPLE, 0, 32 };
	uint32_t pid = 1000;

	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &pid, 4);
	memcpy(p + 20, &pid, 4);
	memcpy(p + 24, &t, 8);
}

static void write_samples(struct perfring_ring *r, uint64_t id, unsigned n)
{
	unsigned char rec[32];

	for (unsigned i = 0; i < n; i++) {
		sample32(rec, id, 100 + i);
		ck_assert_int_eq(perfring_ring_write(r, rec), 0);
	}
}

static unsigned char *ring_data(struct perfring_ring *r)
{
	return (unsigned char *)perfring_ring_header(r) + perfring_ring_page_size(r);
}

/* ---- probe -------------------------------------------------------------------- */

static int probe(const char *path, struct perfring_probe *p, struct perfring_diag *d)
{
	memset(p, 0, sizeof(*p));
	p->sz = sizeof(*p);
	memset(d, 0, sizeof(*d));
	return perfring_probe(path, p, d);
}

/* an error: names the file and the offset, and says what */
static void assert_diag(const struct perfring_diag *d, const char *file, uint64_t off,
			const char *what)
{
	char msg[1024];

	perfring_diag_format(d, msg, sizeof(msg));
	ck_assert_str_eq(d->file, file);
	ck_assert_msg(d->has_offset, "no offset: %s", msg);
	ck_assert_msg(d->offset == off, "offset %" PRIu64 ", want %" PRIu64 ": %s", d->offset,
		      off, msg);
	ck_assert_msg(strstr(d->msg, what), "\"%s\" not in: %s", what, msg);
}

START_TEST(test_probe_kinds)
{
	struct perfring_probe p;
	struct perfring_diag d;
	struct pdt_buf in = { 0 }, sw = { 0 };
	char why[256], path[128];
	struct perfring_ring *r;
	int fd;

	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/ring", tmpdir);
	r = mk_ring(PERFRING_RING_FILE, path, 0);
	ck_assert_int_eq(probe(path, &p, &d), 0);
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_RING);
	ck_assert_int_eq(p.is_stream, 0);
	perfring_ring_close(r);

	ck_assert_int_eq(probe(fixture("pd-file", ".data"), &p, &d), 0);
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_PERFDATA);
	ck_assert_int_eq(p.swapped, 0);
	ck_assert_int_eq(probe(fixture("pd-pipe", ".data"), &p, &d), 0);
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_PERFDATA_PIPE);
	ck_assert_int_eq(p.is_stream, 0);

	/* the other byte order, file and pipe mode */
	pdt_slurp(fixture("pd-file", ".data"), &in);
	ck_assert_msg(pdt_swap_perfdata(in.p, in.len, &sw, why, sizeof(why)) == 0, "%s", why);
	fd = pdt_memfd(sw.p, sw.len);
	memset(&p, 0, sizeof(p));
	p.sz = sizeof(p);
	ck_assert_int_eq(perfring_probe_fd(fd, "swapped", &p, &d), 0);
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_PERFDATA);
	ck_assert_int_eq(p.swapped, 1);
	close(fd);
	pdt_free(&in);
	pdt_free(&sw);
	pdt_slurp(fixture("pd-pipe", ".data"), &in);
	ck_assert_msg(pdt_swap_perfdata(in.p, in.len, &sw, why, sizeof(why)) == 0, "%s", why);
	ck_assert_int_eq(probe(tmp_file("swapped-pipe", sw.p, sw.len), &p, &d), 0);
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_PERFDATA_PIPE);
	ck_assert_int_eq(p.swapped, 1);
	pdt_free(&in);
	pdt_free(&sw);

	/* sz too small */
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(perfring_probe(fixture("pd-file", ".data"), &p, &d), -EINVAL);
}
END_TEST

START_TEST(test_probe_errors)
{
	struct perfring_probe p;
	struct perfring_diag d;
	const char *f;

	mk_tmpdir();
	ck_assert_int_eq(probe(tmpdir, &p, &d), -EISDIR);
	assert_diag(&d, tmpdir, 0, "is a directory");

	f = tmp_file("empty", "", 0);
	ck_assert_int_eq(probe(f, &p, &d), -EBADMSG);
	assert_diag(&d, f, 0, "file ends inside the magic");

	f = tmp_file("short", "PERFI", 5);
	ck_assert_int_eq(probe(f, &p, &d), -EBADMSG);
	assert_diag(&d, f, 5, "file ends inside the magic");

	f = tmp_file("magic", "NOTAPERFFILE....", 16);
	ck_assert_int_eq(probe(f, &p, &d), -EBADMSG);
	assert_diag(&d, f, 0, "unknown magic 0x");
	ck_assert_int_eq(p.kind, PERFRING_SOURCE_UNKNOWN);

	/* the same errors from source_open, with the name of the options */
	{
		struct perfring_source *s = (void *)1;
		PERFRING_SOURCE_OPTS(o, .name = "named");

		ck_assert_int_eq(perfring_source_open(f, &o, &d, &s), -EBADMSG);
		ck_assert_ptr_null(s);
		assert_diag(&d, "named", 0, "unknown magic");
		ck_assert_int_eq(perfring_source_open(tmpdir, NULL, &d, &s), -EISDIR);
		assert_diag(&d, tmpdir, 0, "is a directory");
	}

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(probe("/nonexistent/x.data", &p, &d), -ENOENT);
	ck_assert_str_eq(d.file, "/nonexistent/x.data");
}
END_TEST

/* ---- events as perf gives them -------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "TIME EVENT" of every SAMPLE of the source, sorted (the .events format). */
static char *sample_events(struct perfring_source *s, size_t *nsamples)
{
	struct perfring_source_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	char **lines = NULL, *out, msg[1024];
	size_t n = 0, cap = 0, len = 0;
	int r;

	while ((r = perfring_source_next(s, &rec, &d)) == 1) {
		PERFRING_EVENT_DESC(e);
		struct perfring_sample smp;
		char line[128];

		if (rec.type != PERFRING_RECORD_SAMPLE)
			continue;
		ck_assert_int_ge(rec.event, 0);
		ck_assert_int_eq(perfring_source_event(s, (uint32_t)rec.event, &e), 0);
		ck_assert_ptr_eq(e.attr, rec.attr);
		ck_assert_ptr_nonnull(e.name);
		ck_assert_int_eq(perfring_sample_decode(rec.attr, rec.hdr, rec.size, &smp, NULL), 0);
		snprintf(line, sizeof(line), "%" PRIu64 " %s\n", smp.time, e.name);
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			lines = realloc(lines, cap * sizeof(*lines));
		}
		lines[n++] = strdup(line);
		len += strlen(line);
	}
	ck_assert_msg(r == 0, "%s", perfring_diag_format(&d, msg, sizeof(msg)));
	qsort(lines, n, sizeof(*lines), cmp_str);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	*nsamples = n;
	return out;
}

static char *slurp_text(const char *path)
{
	struct pdt_buf b = { 0 };
	char *s;

	pdt_slurp(path, &b);
	s = calloc(1, b.len + 1);
	memcpy(s, b.p, b.len);
	pdt_free(&b);
	return s;
}

static const char *const event_fixtures[] = { "pd-two", "pd-group", "pd-pipe-two" };

/* _i: fixture; as a file, byte-swapped, and (pipe) through a real pipe */
START_TEST(test_events_as_perf)
{
	const char *name = event_fixtures[_i];
	char *want = slurp_text(fixture(name, ".events")), *got, why[256], msg[1024];
	struct perfring_source *s;
	struct perfring_diag d;
	struct pdt_buf in = { 0 }, sw = { 0 };
	size_t n;
	int fd;

	ck_assert_int_eq(perfring_source_open(fixture(name, ".data"), NULL, &d, &s), 0);
	got = sample_events(s, &n);
	ck_assert_uint_eq(perfring_source_nr_events(s), 2);	/* pipe: after the ATTRs */
	ck_assert_uint_gt(n, 100);
	ck_assert_str_eq(got, want);
	free(got);
	perfring_source_close(s);

	/* swapped: the same events */
	pdt_slurp(fixture(name, ".data"), &in);
	ck_assert_msg(pdt_swap_perfdata(in.p, in.len, &sw, why, sizeof(why)) == 0, "%s", why);
	fd = pdt_memfd(sw.p, sw.len);
	ck_assert_msg(perfring_source_open_fd(fd, NULL, &d, &s) == 0, "%s",
		      perfring_diag_format(&d, msg, sizeof(msg)));
	ck_assert_int_eq(perfring_source_swapped(s), 1);
	got = sample_events(s, &n);
	ck_assert_str_eq(got, want);
	free(got);
	perfring_source_close(s);
	close(fd);

	if (strstr(name, "pipe")) {
		/* a real pipe: probe consumes nothing, the reader gets it all */
		struct perfring_probe p = { .sz = sizeof(p) };
		int pfd[2];
		pid_t pid;

		ck_assert_int_eq(pipe(pfd), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			size_t off = 0;

			close(pfd[0]);
			while (off < in.len) {
				ssize_t w = write(pfd[1], in.p + off, in.len - off);

				if (w <= 0)
					_exit(1);
				off += (size_t)w;
			}
			_exit(0);
		}
		close(pfd[1]);
		ck_assert_int_eq(perfring_probe_fd(pfd[0], "pipe", &p, &d), 0);
		ck_assert_int_eq(p.kind, PERFRING_SOURCE_PERFDATA_PIPE);
		ck_assert_int_eq(p.is_stream, 1);
		ck_assert_int_eq(perfring_source_open_fd(pfd[0], NULL, &d, &s), 0);
		ck_assert_int_eq(perfring_source_kind(s), PERFRING_SOURCE_PERFDATA_PIPE);
		ck_assert_ptr_nonnull(perfring_source_perfdata(s));
		ck_assert_ptr_null(perfring_source_ring(s));
		got = sample_events(s, &n);
		ck_assert_str_eq(got, want);
		free(got);
		perfring_source_close(s);
		close(pfd[0]);
		waitpid(pid, NULL, 0);
	}
	pdt_free(&in);
	pdt_free(&sw);
	free(want);
}
END_TEST

/*
 * Read-ahead of a pipe-mode perf.data: the records kept come back first,
 * the same bytes, offsets and events as without it, then the rest; the
 * attrs are known once it returns.  Cut short inside the read-ahead, the
 * records before the cut come out, then the damage, sticky.  A file-mode
 * source reads nothing ahead.
 */
struct rec_copy {
	uint64_t offset;
	int event;
	uint32_t size;
	unsigned char bytes[64];
};

static uint32_t pr_get_type(const unsigned char *b)
{
	uint32_t t;

	memcpy(&t, b, 4);
	return t;
}

static size_t all_records(struct perfring_source *s, struct rec_copy *out, size_t max, int *end)
{
	struct perfring_source_record r = { .sz = sizeof(r) };
	struct perfring_diag d;
	size_t n = 0;
	int ret;

	while ((ret = perfring_source_next(s, &r, &d)) == 1 && n < max) {
		out[n].offset = r.offset;
		out[n].event = r.event;
		out[n].size = r.size;
		memcpy(out[n].bytes, r.hdr, r.size < 64 ? r.size : 64);
		n++;
	}
	*end = ret;
	return n;
}

START_TEST(test_read_ahead)
{
	static struct rec_copy a[20000], b[20000];
	struct perfring_source *s;
	struct perfring_diag d;
	struct pdt_buf in = { 0 };
	size_t na, nb, kept;
	int enda, endb, ret, fd;

	ck_assert_int_eq(perfring_source_open(fixture("pd-pipe-two", ".data"), NULL, &d, &s), 0);
	na = all_records(s, a, 20000, &enda);
	perfring_source_close(s);
	ck_assert_int_eq(enda, 0);

	ck_assert_int_eq(perfring_source_open(fixture("pd-pipe-two", ".data"), NULL, &d, &s), 0);
	ck_assert_uint_eq(perfring_source_nr_events(s), 0);
	ret = perfring_source_read_ahead(s, 0, &d);
	ck_assert_int_gt(ret, 0);
	kept = (size_t)ret;
	ck_assert_uint_eq(perfring_source_nr_events(s), 2);
	ck_assert_int_eq(perfring_source_read_ahead(s, 0, &d), 0);	/* once */
	nb = all_records(s, b, 20000, &endb);
	perfring_source_close(s);
	ck_assert_int_eq(endb, 0);
	ck_assert_uint_eq(na, nb);
	ck_assert_uint_lt(kept, na);
	for (size_t i = 0; i < na; i++) {
		ck_assert_uint_eq(a[i].offset, b[i].offset);
		ck_assert_int_eq(a[i].event, b[i].event);
		ck_assert_uint_eq(a[i].size, b[i].size);
		ck_assert_mem_eq(a[i].bytes, b[i].bytes, a[i].size < 64 ? a[i].size : 64);
	}

	/* cut inside what is read ahead: the records before, then the damage */
	pdt_slurp(fixture("pd-pipe-two", ".data"), &in);
	{
		size_t cut = (size_t)a[kept - 1].offset + a[kept - 1].size / 2;
		struct perfring_source_record r = { .sz = sizeof(r) };
		size_t n = 0;

		fd = pdt_memfd(in.p, cut);
		ck_assert_int_eq(perfring_source_open_fd(fd, NULL, &d, &s), 0);
		ck_assert_int_lt(perfring_source_read_ahead(s, 0, &d), 0);
		while ((ret = perfring_source_next(s, &r, &d)) == 1) {
			ck_assert_uint_eq(r.offset, a[n].offset);
			n++;
		}
		ck_assert_uint_eq(n, kept - 1);
		ck_assert_int_lt(ret, 0);
		ck_assert_int_eq(d.has_offset, 1);
		ck_assert_int_eq(perfring_source_next(s, &r, &d), ret);	/* sticky */
		perfring_source_close(s);
		close(fd);
	}
	pdt_free(&in);

	/* file mode: nothing to read ahead */
	ck_assert_int_eq(perfring_source_open(fixture("pd-two", ".data"), NULL, &d, &s), 0);
	ck_assert_int_eq(perfring_source_read_ahead(s, 0, &d), 0);
	perfring_source_close(s);
}
END_TEST

/*
 * A perf.data source with RESYNC validates every record: a COMM whose name
 * runs into its trailer is reported through on_damage at its offset and
 * left out, and every other record still comes.  Without RESYNC the same
 * record is handed over as it is.
 */
struct damage_seen {
	int n;
	uint64_t offset;
	char file[256];
};

static void count_damage(const struct perfring_diag *d, void *user)
{
	struct damage_seen *ds = user;

	ds->n++;
	ds->offset = d->offset;
	snprintf(ds->file, sizeof(ds->file), "%s", d->file);
}

START_TEST(test_perfdata_validate)
{
	static struct rec_copy a[20000];
	struct damage_seen ds = { 0 };
	struct perfring_source *s;
	struct perfring_source_record r = { .sz = sizeof(r) };
	struct perfring_diag d;
	struct pdt_buf in = { 0 };
	uint64_t comm_off = 0;
	size_t n, k, n2 = 0;
	int end, ret, fd;

	ck_assert_int_eq(perfring_source_open(fixture("pd-two", ".data"), NULL, &d, &s), 0);
	n = all_records(s, a, 20000, &end);
	perfring_source_close(s);
	ck_assert_int_eq(end, 0);
	for (k = 0; k < n; k++)
		if (pr_get_type(a[k].bytes) == PERFRING_RECORD_COMM)
			break;
	ck_assert_uint_lt(k, n);
	comm_off = a[k].offset;
	pdt_slurp(fixture("pd-two", ".data"), &in);
	memset(in.p + comm_off + 16, 'x', a[k].size - 16);	/* name and trailer */
	fd = pdt_memfd(in.p, in.len);

	{
		PERFRING_SOURCE_OPTS(o, .flags = PERFRING_SOURCE_RESYNC, .on_damage = count_damage,
				     .user = &ds, .name = "damaged.data");

		ck_assert_int_eq(perfring_source_open_fd(fd, &o, &d, &s), 0);
		while ((ret = perfring_source_next(s, &r, &d)) == 1) {
			ck_assert_uint_ne(r.offset, comm_off);
			n2++;
		}
		ck_assert_int_eq(ret, 0);
		perfring_source_close(s);
	}
	ck_assert_int_eq(ds.n, 1);
	ck_assert_uint_eq(ds.offset, comm_off);
	ck_assert_str_eq(ds.file, "damaged.data");
	ck_assert_uint_eq(n2, n - 1);

	/* without RESYNC: handed over as it is */
	n2 = 0;
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);	/* the reader shares fd's offset */
	ck_assert_int_eq(perfring_source_open_fd(fd, NULL, &d, &s), 0);
	while (perfring_source_next(s, &r, &d) == 1)
		n2++;
	perfring_source_close(s);
	ck_assert_uint_eq(n2, n);
	close(fd);
	pdt_free(&in);
}
END_TEST

/* A ring source: each record's event from its id; unknown ids flagged. */
START_TEST(test_ring_source)
{
	struct perfring_source_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d;
	struct perfring_source *s;
	struct perfring_ring *r;
	char path[128];
	int want[] = { 0, 0, 1, 0, 0 }, n = 0;
	uint64_t idv[] = { 7, 8, 9, 0, 55 };

	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/ring-src", tmpdir);
	r = mk_ring(PERFRING_RING_FILE, path, 0);
	for (int i = 0; i < 5; i++)
		write_samples(r, idv[i], 1);
	ck_assert_int_eq(perfring_source_open(path, NULL, &d, &s), 0);
	ck_assert_int_eq(perfring_source_kind(s), PERFRING_SOURCE_RING);
	ck_assert_ptr_nonnull(perfring_source_ring(s));
	ck_assert_ptr_null(perfring_source_perfdata(s));
	ck_assert_uint_eq(perfring_source_nr_events(s), 2);
	ck_assert_int_eq(perfring_source_event_by_id(s, 9), 1);
	ck_assert_int_eq(perfring_source_event_by_id(s, 8), 0);
	ck_assert_int_eq(perfring_source_event_by_id(s, 55), -ENOENT);
	while (perfring_source_next(s, &rec, &d) == 1) {
		ck_assert_int_lt(n, 5);
		ck_assert_int_eq(rec.event, want[n]);
		ck_assert_ptr_eq(rec.attr, perfring_ring_attr_for_id(perfring_source_ring(s),
								     idv[n] == 9 ? 9 : 7));
		ck_assert(rec.flags & PERFRING_SOURCE_REC_ID);
		ck_assert_uint_eq(rec.id, idv[n]);
		ck_assert_int_eq(!!(rec.flags & PERFRING_SOURCE_REC_UNKNOWN_ID), n == 4);
		ck_assert_uint_eq(rec.offset, perfring_ring_data_file_offset(r) + 32u * (unsigned)n);
		n++;
	}
	ck_assert_int_eq(n, 5);
	perfring_source_close(s);
	perfring_ring_close(r);
}
END_TEST

/* ---- the id rule ------------------------------------------------------------------ */

START_TEST(test_record_id)
{
	struct perfring_attr a = mk_attr();
	unsigned char rec[64] = { 0 };
	struct perfring_event_header h = { PERFRING_RECORD_SAMPLE, 0, 40 };
	uint64_t id = 0, v;
	int ip, is;

	/* ID after IP, TID, TIME and ADDR; in a trailer before STREAM_ID, CPU */
	a.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_ID |
			PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_STREAM_ID;
	perfring_sample_id_pos(a.sample_type, &ip, &is);
	ck_assert_int_eq(ip, 2);
	ck_assert_int_eq(is, 3);
	perfring_sample_id_pos(PERFRING_SAMPLE_TIME, &ip, &is);
	ck_assert_int_eq(ip, -1);
	ck_assert_int_eq(is, -1);
	memcpy(rec, &h, 8);
	v = 1234;
	memcpy(rec + 8 + 16, &v, 8);
	ck_assert_int_eq(perfring_record_id(&a, rec, 40, &id), 1);
	ck_assert_uint_eq(id, 1234);
	ck_assert_int_eq(perfring_record_id(&a, rec, 24, &id), -EBADMSG);
	/* a COMM with the trailer: id is the 3rd word from the end */
	h.type = PERFRING_RECORD_COMM;
	h.size = 64;
	memcpy(rec, &h, 8);
	v = 99;
	memcpy(rec + 64 - 24, &v, 8);
	ck_assert_int_eq(perfring_record_id(&a, rec, 64, &id), 1);
	ck_assert_uint_eq(id, 99);
	ck_assert_int_eq(perfring_record_id(&a, rec, 16, &id), -EBADMSG);
	a.flags = 0;	/* no sample_id_all: no id */
	ck_assert_int_eq(perfring_record_id(&a, rec, 64, &id), 0);
	h.type = PERFRING_RECORD_FINISHED_ROUND;
	memcpy(rec, &h, 8);
	ck_assert_int_eq(perfring_record_id(&a, rec, 64, &id), 0);
	ck_assert_int_eq(perfring_record_id(NULL, rec, 64, &id), 0);
}
END_TEST

/* ---- the validator ----------------------------------------------------------------- */

struct vcase {
	const char *what;	/* in the message; NULL: valid */
	uint32_t type;
	uint16_t size;		/* header size */
	size_t len;		/* bytes given */
	int attr;		/* with the trailer attr (TID|TIME|ID|CPU: 32 bytes) */
	void (*fill)(unsigned char *rec);
};

static void fill_comm_nonul(unsigned char *p)
{
	memset(p + 16, 'x', 24);
}

static void fill_comm_ok(unsigned char *p)
{
	memcpy(p + 16, "dd", 3);
}

static void fill_ns2(unsigned char *p)
{
	uint64_t nr = 2;

	memcpy(p + 16, &nr, 8);
}

static void fill_chain(unsigned char *p)
{
	uint64_t nr = 9000;	/* SAMPLE with CALLCHAIN only */

	memcpy(p + 8, &nr, 8);
}

static void fill_chain_ok(unsigned char *p)
{
	uint64_t nr = 2;

	memcpy(p + 8, &nr, 8);
}

static void fill_branch(unsigned char *p)
{
	uint64_t nr = 100;	/* SAMPLE with BRANCH_STACK only */

	memcpy(p + 8, &nr, 8);
}

static void fill_branch_ok(unsigned char *p)
{
	uint64_t nr = 1;

	memcpy(p + 8, &nr, 8);
}

static const struct vcase vcases[] = {
	{ "shorter than its 8-byte header", PERFRING_RECORD_COMM, 8, 4, 0, NULL },
	{ "header says 48 bytes", PERFRING_RECORD_COMM, 48, 40, 0, fill_comm_ok },
	{ "unknown record type 30", 30, 16, 16, 0, NULL },
	{ "unknown record type 200", 200, 16, 16, 0, NULL },
	{ "COMM record size 28 is not a multiple of 8", PERFRING_RECORD_COMM, 28, 28, 0, NULL },
	{ "MMAP2 record of 64 bytes is shorter than its fixed part (72 bytes)",
	  PERFRING_RECORD_MMAP2, 64, 64, 0, NULL },
	{ "COMM record: the string at byte 16 is not NUL-terminated", PERFRING_RECORD_COMM, 40,
	  40, 0, fill_comm_nonul },
	{ NULL, PERFRING_RECORD_COMM, 24, 24, 0, fill_comm_ok },
	{ "NAMESPACES record of 40 bytes is shorter than its body (56 bytes)",
	  PERFRING_RECORD_NAMESPACES, 40, 40, 0, fill_ns2 },
	{ NULL, PERFRING_RECORD_NAMESPACES, 56, 56, 0, fill_ns2 },
	{ "EXIT record at offset 0x1000 is 8 bytes short of its sample_id_all trailer (32 bytes: TID|TIME|ID|CPU)",
	  PERFRING_RECORD_EXIT, 56, 56, 1, NULL },
	{ "EXIT record has 8 bytes more than its body (32) and sample_id_all trailer (32)",
	  PERFRING_RECORD_EXIT, 72, 72, 1, NULL },
	{ NULL, PERFRING_RECORD_EXIT, 64, 64, 1, NULL },
	{ NULL, PERFRING_RECORD_EXIT, 64, 64, 0, NULL },	/* no attr: may be a trailer */
	{ "READ record of 48 bytes cannot hold its body (24) and sample_id_all trailer (32)",
	  PERFRING_RECORD_READ, 48, 48, 1, NULL },
	{ NULL, PERFRING_RECORD_READ, 56, 56, 1, NULL },
	{ "LOST record at offset 0x1000 is 32 bytes short", PERFRING_RECORD_LOST, 24, 24, 1, NULL },
	{ NULL, PERFRING_RECORD_LOST, 56, 56, 1, NULL },
	{ "FINISHED_ROUND record size 12 is not a multiple of 8", PERFRING_RECORD_FINISHED_ROUND,
	  12, 12, 0, NULL },
	{ NULL, PERFRING_RECORD_HEADER_FEATURE, 21, 21, 0, NULL },	/* perf: any size */
	{ "ATTR record of 16 bytes is shorter than its fixed part", PERFRING_RECORD_HEADER_ATTR,
	  16, 16, 0, NULL },
};

START_TEST(test_validate)
{
	const struct vcase *c = &vcases[_i];
	struct perfring_attr a = mk_attr();
	unsigned char rec[256] = { 0 };
	struct perfring_event_header h = { c->type, 0, c->size };
	struct perfring_diag d;
	int ret;

	a.sample_type = PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |
			PERFRING_SAMPLE_CPU;
	memcpy(rec, &h, 8);
	if (c->fill)
		c->fill(rec);
	memset(&d, 0, sizeof(d));
	ret = perfring_record_validate(NULL, c->attr ? &a : NULL, rec, c->len, 0x1000, &d);
	if (!c->what) {
		ck_assert_msg(ret == 0, "case %d: %s", _i, d.msg);
		return;
	}
	ck_assert_int_eq(ret, -EBADMSG);
	ck_assert_int_eq(d.error, -EBADMSG);
	ck_assert(d.has_offset);
	ck_assert_uint_eq(d.offset, 0x1000);
	ck_assert_msg(strstr(d.msg, c->what), "case %d: \"%s\" not in \"%s\"", _i, c->what, d.msg);
}
END_TEST

/* SAMPLE fields: callchain and branch-stack counts within the record. */
START_TEST(test_validate_sample)
{
	struct perfring_attr a = mk_attr();
	unsigned char rec[256] = { 0 };
	struct perfring_event_header h = { PERFRING_RECORD_SAMPLE, 0, 32 };
	struct perfring_diag d;

	a.sample_type = PERFRING_SAMPLE_CALLCHAIN;
	memcpy(rec, &h, 8);
	fill_chain_ok(rec);
	ck_assert_int_eq(perfring_record_validate(NULL, &a, rec, 32, 8, &d), 0);
	fill_chain(rec);
	ck_assert_int_eq(perfring_record_validate(NULL, &a, rec, 32, 8, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 8);
	ck_assert_msg(strstr(d.msg, "SAMPLE") && strstr(d.msg, "CALLCHAIN") &&
		      strstr(d.msg, "9000"), "%s", d.msg);
	/* without attr a SAMPLE cannot be decoded: framing only */
	ck_assert_int_eq(perfring_record_validate(NULL, NULL, rec, 32, 8, &d), 0);

	a.sample_type = PERFRING_SAMPLE_BRANCH_STACK;
	h.size = 16 + 24;
	memcpy(rec, &h, 8);
	fill_branch_ok(rec);
	ck_assert_msg(perfring_record_validate(NULL, &a, rec, 40, 8, &d) == 0, "%s", d.msg);
	fill_branch(rec);
	ck_assert_int_eq(perfring_record_validate(NULL, &a, rec, 40, 8, &d), -EBADMSG);
	ck_assert_msg(strstr(d.msg, "SAMPLE") && strstr(d.msg, "BRANCH_STACK") &&
		      strstr(d.msg, "100"), "%s", d.msg);
}
END_TEST

/*
 * The validator's quick walk of the common SAMPLE layouts (fixed fields and
 * a callchain) agrees with the full decoder: random sample_types (callchain
 * or not, once in a while a bit outside those layouts or WEIGHT with
 * WEIGHT_STRUCT), records of every size around the right one and callchain
 * counts around the right one, each judged by both.
 */
START_TEST(test_validate_sample_fast)
{
	static const uint64_t bits[] = {
		PERFRING_SAMPLE_IDENTIFIER, PERFRING_SAMPLE_IP, PERFRING_SAMPLE_TID,
		PERFRING_SAMPLE_TIME, PERFRING_SAMPLE_ADDR, PERFRING_SAMPLE_ID,
		PERFRING_SAMPLE_STREAM_ID, PERFRING_SAMPLE_CPU, PERFRING_SAMPLE_PERIOD,
		PERFRING_SAMPLE_CALLCHAIN, PERFRING_SAMPLE_WEIGHT, PERFRING_SAMPLE_DATA_SRC,
		PERFRING_SAMPLE_TRANSACTION, PERFRING_SAMPLE_PHYS_ADDR, PERFRING_SAMPLE_CGROUP,
		PERFRING_SAMPLE_DATA_PAGE_SIZE, PERFRING_SAMPLE_CODE_PAGE_SIZE,
		PERFRING_SAMPLE_WEIGHT_STRUCT, PERFRING_SAMPLE_RAW, PERFRING_SAMPLE_READ,
	};
	static uint64_t rec[64];
	struct perfring_attr a = mk_attr();
	unsigned long n = test_scaled(3000), valid = 0, judged = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned long i = 0; i < n; i++) {
		size_t fields = 0, head = 0, len, right;
		uint64_t nr;

		a.sample_type = 0;
		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* RAW and READ (beyond the quick walk) one time in 16 */
			if ((x & (b >= 18 ? 15 : 1)) == 0)
				a.sample_type |= bits[b];
		}
		for (size_t b = 0; b < 9; b++)
			head += !!(a.sample_type & bits[b]);
		for (size_t b = 0; b < 18; b++)
			fields += b != 9 && (a.sample_type & bits[b]);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		nr = x % 8;
		right = 8 + 8 * fields + (a.sample_type & PERFRING_SAMPLE_CALLCHAIN ? 8 + 8 * nr : 0);
		for (len = right >= 24 ? right - 16 : 8; len <= right + 16 && len <= sizeof(rec);
		     len += 8) {
			for (int dn = -2; dn <= 3; dn++) {
				struct perfring_event_header h = { PERFRING_RECORD_SAMPLE, 0,
								   (uint16_t)len };
				struct perfring_diag d;
				int full, fast;

				memset(rec, 0, sizeof(rec));
				memcpy(rec, &h, 8);
				/* dn 3: a count that wraps to the right size in 64 bits */
				if (8 + 8 * head + 8 <= len)
					rec[1 + head] = dn == 3 ? nr + (1ull << 61) :
							dn < 0 && nr < 2 ? UINT64_MAX - (uint64_t)-dn :
							nr + (uint64_t)dn;
				full = perfring_sample_decode(&a, rec, len, NULL, NULL);
				fast = perfring_record_validate(NULL, &a, rec, len, 0, &d);
				ck_assert_msg((full == 0) == (fast == 0),
					      "sample_type 0x%llx, %zu bytes, nr %llu: decode %d, validate %d",
					      (unsigned long long)a.sample_type, len,
					      (unsigned long long)rec[1 + head], full, fast);
				judged++;
				valid += full == 0;
			}
		}
	}
	/* both verdicts came up often */
	ck_assert_uint_gt(valid, n / 2);
	ck_assert_uint_gt(judged - valid, n);
}
END_TEST

/* A plugin-claimed type, given a registry, is decoded by its plugin: an
 * MMAP2 whose framing, body and string are fine but whose build-id size
 * is too large is refused by the mmap2 plugin, and only with the registry. */
START_TEST(test_validate_plugin)
{
	struct perfring_registry *reg;
	struct perfring_attr a = mk_attr();
	unsigned char rec[104] = { 0 };
	struct perfring_event_header h = { PERFRING_RECORD_MMAP2, PERFRING_MISC_MMAP_BUILD_ID,
					   104 };
	struct perfring_diag d;

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ck_assert_int_gt(perfring_registry_load_path(reg, BUILD_PLUGINS_PATH, &d), 0);
	ck_assert_ptr_nonnull(perfring_registry_find(reg, PERFRING_RECORD_MMAP2));
	memcpy(rec, &h, 8);
	memcpy(rec + 72, "/bin/x", 7);	/* padded to 80, then the trailer (24 bytes) */
	rec[40] = 20;
	ck_assert_msg(perfring_record_validate(reg, &a, rec, 104, 0x200, &d) == 0, "%s", d.msg);
	rec[40] = 30;
	ck_assert_int_eq(perfring_record_validate(NULL, &a, rec, 104, 0x200, &d), 0);
	ck_assert_int_eq(perfring_record_validate(reg, &a, rec, 104, 0x200, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 0x200);
	ck_assert_msg(strstr(d.msg, "MMAP2 build-id size 30"), "%s", d.msg);
	perfring_registry_free(reg);
}
END_TEST

/* Every record of every perf.data fixture validates (perf wrote them). */
START_TEST(test_validate_fixtures)
{
	static const char *const names[] = { "pd-file", "pd-two", "pd-group", "pd-switch",
		"pd-callchain", "pd-syswide", "pd-pipe", "pd-pipe-two", "pd-pipe-tp" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct perfring_source_record rec = { .sz = sizeof(rec) };
		struct perfring_source *s;
		struct perfring_diag d;
		unsigned n = 0;

		ck_assert_int_eq(perfring_source_open(fixture(names[i], ".data"), NULL, &d, &s), 0);
		while (perfring_source_next(s, &rec, &d) == 1) {
			ck_assert_msg(perfring_record_validate(NULL, rec.attr, rec.hdr, rec.size,
							       rec.offset, &d) == 0,
				      "%s: offset 0x%" PRIx64 ": %s", names[i], rec.offset, d.msg);
			n++;
		}
		ck_assert_uint_gt(n, 10);
		perfring_source_close(s);
	}
}
END_TEST

/* ---- resynchronisation -------------------------------------------------------------- */

struct damage_log {
	int n;
	char msg[4][512];
	uint64_t off[4];
};

static void on_damage(const struct perfring_diag *d, void *user)
{
	struct damage_log *l = user;

	if (l->n < 4) {
		snprintf(l->msg[l->n], sizeof(l->msg[0]), "%s", d->msg);
		l->off[l->n] = d->offset;
		ck_assert(d->has_offset);
		ck_assert(d->file[0]);
	}
	l->n++;
}

/* Read everything: the times of the records (100 + index written). */
static int read_times(struct perfring_reader *rd, uint64_t *t, int max)
{
	struct perfring_record rec = { .sz = sizeof(rec) };
	int n = 0, r;

	while ((r = perfring_reader_next(rd, &rec)) == 1) {
		ck_assert_int_lt(n, max);
		memcpy(&t[n++], (const unsigned char *)rec.hdr + 24, 8);
	}
	return r < 0 ? r : n;
}

/* _i 0: the size of record 4 is unaligned (framing); 1: it covers record 5
 * too (framing is fine, the SAMPLE does not decode); either way record 4 is
 * lost and the scan from its start finds record 5 */
START_TEST(test_resync)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, 0);
	unsigned char *data = ring_data(r);
	struct damage_log log = { 0 };
	struct perfring_reader *rd;
	PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage,
			     .user = &log);
	struct perfring_reader_stats st = { .sz = sizeof(st) };
	uint64_t t[16];
	uint16_t bad = _i == 0 ? 36 : 64;
	int n;

	write_samples(r, 7, 10);
	memcpy(data + 4 * 32 + 6, &bad, 2);

	/* without RESYNC: the records before, then the error */
	ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
	n = read_times(rd, t, 16);
	if (_i == 0) {
		ck_assert_int_eq(n, -EBADMSG);
	} else {
		ck_assert_int_eq(n, 9);		/* nothing checks the body: 4 swallows 5 */
		ck_assert_uint_eq(t[4], 104);
		ck_assert_uint_eq(t[5], 106);
	}
	perfring_reader_free(rd);

	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), 0);
	n = read_times(rd, t, 16);
	ck_assert_int_eq(n, 9);
	for (int k = 0; k < 4; k++)
		ck_assert_uint_eq(t[k], 100 + (unsigned)k);
	for (int k = 4; k < n; k++)
		ck_assert_uint_eq(t[k], 101 + (unsigned)k);
	perfring_reader_get_stats(rd, &st);
	ck_assert_uint_eq(st.resyncs, 1);
	ck_assert_uint_eq(st.skipped_bytes, 32);
	ck_assert_uint_eq(st.records, (uint64_t)n);
	ck_assert_int_eq(log.n, 2);
	ck_assert_uint_eq(log.off[0], 4 * 32);
	ck_assert_msg(strstr(log.msg[0], _i == 0 ? "not a multiple of 8" : "SAMPLE"), "%s",
		      log.msg[0]);
	ck_assert_uint_eq(log.off[1], 5 * 32);
	ck_assert_msg(strstr(log.msg[1], "resynchronised after 32 damaged bytes"), "%s",
		      log.msg[1]);
	/* the reader is not stuck: later records are read */
	write_samples(r, 7, 1);
	ck_assert_int_eq(read_times(rd, t, 16), 1);
	ck_assert_uint_eq(t[0], 100);
	perfring_reader_free(rd);

	/* bad options */
	o.flags = 0x80;
	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), -EINVAL);
	o.flags = 0;
	o.sz = 4;
	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), -EINVAL);
	perfring_ring_close(r);
}
END_TEST

/* Nothing valid after the damage: said, counted up to the head. */
START_TEST(test_resync_nothing_after)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, 0);
	unsigned char *data = ring_data(r);
	struct damage_log log = { 0 };
	struct perfring_reader *rd;
	PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage,
			     .user = &log);
	struct perfring_reader_stats st = { .sz = sizeof(st) };
	uint64_t t[16];

	write_samples(r, 7, 4);
	memset(data + 2 * 32, 0xff, 64);	/* records 2 and 3 */
	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), 0);
	ck_assert_int_eq(read_times(rd, t, 16), 2);
	perfring_reader_get_stats(rd, &st);
	ck_assert_uint_eq(st.skipped_bytes, 64);
	ck_assert_int_eq(log.n, 2);
	ck_assert_msg(strstr(log.msg[1], "no valid record in the 64 bytes after the damage"), "%s",
		      log.msg[1]);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}
END_TEST

/* Through a source: RESYNC, the damage reported with the file's name. */
START_TEST(test_resync_source)
{
	struct perfring_source_record rec = { .sz = sizeof(rec) };
	struct damage_log log = { 0 };
	struct perfring_source *s;
	struct perfring_diag d;
	struct perfring_ring *r;
	char path[128];
	uint16_t bad = 12;
	int n = 0, ret;

	mk_tmpdir();
	snprintf(path, sizeof(path), "%s/ring-resync", tmpdir);
	r = mk_ring(PERFRING_RING_FILE, path, 0);
	write_samples(r, 9, 6);
	memcpy(ring_data(r) + 32 + 6, &bad, 2);
	{
		PERFRING_SOURCE_OPTS(o, .flags = PERFRING_SOURCE_RESYNC, .on_damage = on_damage,
				     .user = &log);

		ck_assert_int_eq(perfring_source_open(path, &o, &d, &s), 0);
	}
	while ((ret = perfring_source_next(s, &rec, &d)) == 1) {
		ck_assert_int_eq(rec.event, 1);
		n++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(log.n, 2);
	ck_assert_uint_eq(log.off[0], perfring_ring_data_file_offset(r) + 32);
	perfring_source_close(s);

	/* without RESYNC the source fails, naming file and offset (here the
	 * name the options give: the path is still what is opened) */
	{
		PERFRING_SOURCE_OPTS(o, .name = "named ring");

		ck_assert_int_eq(perfring_source_open(path, &o, &d, &s), 0);
	}
	n = 0;
	while ((ret = perfring_source_next(s, &rec, &d)) == 1)
		n++;
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(ret, -EBADMSG);
	assert_diag(&d, "named ring", perfring_ring_data_file_offset(r) + 32, "not a multiple of 8");
	/* sticky */
	ck_assert_int_eq(perfring_source_next(s, &rec, &d), -EBADMSG);
	perfring_source_close(s);
	perfring_ring_close(r);
}
END_TEST

/* RESYNC: a record of a type perf does not name is the caller's, not damage. */
START_TEST(test_resync_unknown_type)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, 0);
	struct damage_log log = { 0 };
	struct perfring_reader *rd;
	PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage,
			     .user = &log);
	struct perfring_record rec = { .sz = sizeof(rec) };
	unsigned char odd[24] = { 0 };
	struct perfring_event_header h = { 40, 0, 24 };
	int n = 0;

	write_samples(r, 7, 1);
	memcpy(odd, &h, 8);
	ck_assert_int_eq(perfring_ring_write(r, odd), 0);
	write_samples(r, 7, 1);
	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), 0);
	while (perfring_reader_next(rd, &rec) == 1) {
		ck_assert_uint_eq(rec.hdr->type, n == 1 ? 40 : PERFRING_RECORD_SAMPLE);
		n++;
	}
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(log.n, 0);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}
END_TEST

/* Overwrite rings: the damage ends the window; reported once, counted. */
START_TEST(test_resync_overwrite)
{
	struct perfring_ring *r = mk_ring(PERFRING_RING_ANON, NULL, PERFRING_RING_OVERWRITE);
	unsigned char *data = ring_data(r);
	struct damage_log log = { 0 };
	struct perfring_reader *rd;
	PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage,
			     .user = &log);
	struct perfring_reader_stats st = { .sz = sizeof(st) };
	uint16_t bad = 36;
	uint64_t t[16];

	write_samples(r, 7, 4);		/* newest first from 4096 - 128 */
	memcpy(data + 4096 - 64 + 6, &bad, 2);	/* the second oldest */
	ck_assert_int_eq(perfring_reader_new_opts(r, &o, &rd), 0);
	ck_assert_int_eq(read_times(rd, t, 16), 2);
	ck_assert_uint_eq(t[0], 102);
	ck_assert_uint_eq(t[1], 103);
	ck_assert_int_eq(read_times(rd, t, 16), 0);	/* no error, not reported again */
	ck_assert_int_eq(log.n, 1);
	ck_assert_uint_eq(log.off[0], 4096 - 64);
	perfring_reader_get_stats(rd, &st);
	ck_assert_uint_eq(st.skipped_bytes, 4096 - 64);	/* the rest of the window */
	ck_assert_uint_eq(st.resyncs, 1);
	write_samples(r, 7, 1);
	ck_assert_int_eq(read_times(rd, t, 16), 1);
	ck_assert_int_eq(log.n, 1);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}
END_TEST

static Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("probe");

	tcase_add_test(tc, test_probe_kinds);
	tcase_add_test(tc, test_probe_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("read");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_events_as_perf, 0,
			    (int)(sizeof(event_fixtures) / sizeof(event_fixtures[0])));
	tcase_add_test(tc, test_read_ahead);
	tcase_add_test(tc, test_perfdata_validate);
	tcase_add_test(tc, test_ring_source);
	tcase_add_test(tc, test_record_id);
	suite_add_tcase(s, tc);
	tc = tcase_create("validate");
	tcase_add_loop_test(tc, test_validate, 0, (int)(sizeof(vcases) / sizeof(vcases[0])));
	tcase_add_test(tc, test_validate_sample);
	tcase_add_test(tc, test_validate_sample_fast);
	tcase_add_test(tc, test_validate_plugin);
	tcase_add_test(tc, test_validate_fixtures);
	suite_add_tcase(s, tc);
	tc = tcase_create("resync");
	tcase_add_loop_test(tc, test_resync, 0, 2);
	tcase_add_test(tc, test_resync_nothing_after);
	tcase_add_test(tc, test_resync_source);
	tcase_add_test(tc, test_resync_overwrite);
	tcase_add_test(tc, test_resync_unknown_type);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(source_suite());
}
