/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The API conventions of <perfring/perfring.h>, each checked where the
 * library applies it: versioned structs (options in, results out, arrays
 * of event descriptions), the diag of perfring_ring_create, the one event
 * description shared by rings, the writer and backends, backend tables
 * validated by the registry, and fd borrowing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <check.h>

#include <perfring/perfring.h>
#include <perfring/plugin.h>

#include "testutil.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void assert_has(const char *msg, const char *what)
{
	ck_assert_msg(strstr(msg, what) != NULL, "\"%s\" does not mention \"%s\"", msg, what);
}

static struct perfring_attr test_attr(void)
{
	struct perfring_attr a = {
		.type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER5,
		.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			       PERFRING_SAMPLE_ID,
		.flags = PERFRING_ATTR_SAMPLE_ID_ALL,
	};

	return a;
}

/* ---- perfring_opts_load / perfring_struct_fill ------------------------------ */

struct v2 {			/* "the library's" struct */
	size_t sz;
	uint64_t a;
	uint64_t b;		/* appended in version 2 */
};
struct v3 {			/* a caller built against a newer header */
	struct v2 v2;
	uint64_t c;
};

START_TEST(test_opts_load)
{
	struct perfring_diag d = { 0 };
	struct v3 in = { .v2 = { .sz = sizeof(struct v3), .a = 1, .b = 2 } };
	struct v2 out = { .a = 99 };

	/* first version: through a */
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), &in, 16, "v2", "f", &d), 0);
	ck_assert_uint_eq(out.a, 1);
	ck_assert_uint_eq(out.b, 2);
	in.c = 3;		/* a field this callee does not know is set */
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), &in, 16, "v2", "f", &d), -EINVAL);
	ck_assert_int_eq(d.error, -EINVAL);
	ck_assert_str_eq(d.file, "f");
	assert_has(d.msg, "newer header");
	assert_has(d.msg, "byte 24");
	in.c = 0;
	in.v2.sz = 16;		/* an older caller: b is not there, so it reads 0 */
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), &in, 16, "v2", NULL, &d), 0);
	ck_assert_uint_eq(out.a, 1);
	ck_assert_uint_eq(out.b, 0);
	in.v2.sz = 15;		/* below the first version */
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), &in, 16, "v2", NULL, &d), -EINVAL);
	assert_has(d.msg, "v2.sz is 15");
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), NULL, 16, "v2", NULL, &d), -EINVAL);
	assert_has(d.msg, "no v2");
	in.v2.sz = (size_t)-1;	/* garbage: refused before any byte past the struct is read */
	ck_assert_int_eq(perfring_opts_load(&out, sizeof(out), &in, 16, "v2", NULL, &d), -EINVAL);
	assert_has(d.msg, "was it set?");
}
END_TEST

START_TEST(test_struct_fill)
{
	struct v2 src = { .sz = sizeof(src), .a = 1, .b = 2 };
	struct v3 big;
	struct v2 old;

	memset(&big, 0xee, sizeof(big));
	big.v2.sz = sizeof(big);
	ck_assert_int_eq(perfring_struct_fill(&big, 16, &src, sizeof(src)), 0);
	ck_assert_uint_eq(big.v2.sz, sizeof(big));	/* kept */
	ck_assert_uint_eq(big.v2.a, 1);
	ck_assert_uint_eq(big.v2.b, 2);
	ck_assert_uint_eq(big.c, 0);			/* unknown here: zeroed */
	memset(&old, 0xee, sizeof(old));
	old.sz = 16;					/* an older caller */
	ck_assert_int_eq(perfring_struct_fill(&old, 16, &src, sizeof(src)), 0);
	ck_assert_uint_eq(old.a, 1);
	ck_assert_uint_eq(old.b, 0xeeeeeeeeeeeeeeeeull);	/* not its: untouched */
	old.sz = 8;
	ck_assert_int_eq(perfring_struct_fill(&old, 16, &src, sizeof(src)), -EINVAL);
	old.sz = PERFRING_STRUCT_MAX + 1;	/* never set: refused, nothing written */
	old.a = 5;
	ck_assert_int_eq(perfring_struct_fill(&old, 16, &src, sizeof(src)), -EINVAL);
	ck_assert_uint_eq(old.a, 5);
}
END_TEST

/* ---- perfring_ring_create's diag --------------------------------------------- */

START_TEST(test_ring_create_diag)
{
	struct perfring_attr a = test_attr();
	PERFRING_EVENT_DESC(ev, .attr = &a, .name = "ev");
	struct perfring_ring *r = (void *)1;
	struct perfring_diag d;
	const char *path = tmp_path("diag.ring");
	char msg[1024];

	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = path,
				   .events = &ev, .nr_events = 1);

		unlink(path);
		ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
		perfring_ring_close(r);
		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EEXIST);
		ck_assert_ptr_null(r);
		ck_assert_int_eq(d.error, -EEXIST);
		ck_assert_str_eq(d.file, path);
		assert_has(perfring_diag_format(&d, msg, sizeof(msg)), "TRUNCATE");
		unlink(path);
	}
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = "/nonexistent/dir/x.ring");

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -ENOENT);
		ck_assert_int_eq(d.error, -ENOENT);
		ck_assert_str_eq(d.file, "/nonexistent/dir/x.ring");
		assert_has(d.msg, "cannot create");
	}
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = path,
				   .data_size = 3 * 4096);

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		ck_assert_str_eq(d.file, path);
		assert_has(d.msg, "power of two");
		ck_assert_int_eq(access(path, F_OK), -1);	/* nothing left behind */
	}
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE);

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		assert_has(d.msg, "opts.path");
	}
	{
		PERFRING_RING_OPTS(o, .flags = 0x100);

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		ck_assert_str_eq(d.file, "anonymous ring");
		assert_has(d.msg, "unknown flags 0x100");
	}
	{
		PERFRING_RING_OPTS(o, .flags = PERFRING_RING_FILE_MODE, .file_mode = 01000);

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		assert_has(d.msg, "0777");
	}
	{
		PERFRING_RING_OPTS(o, .events = &ev, .nr_events = 1);

		o.sz = 8;
		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		assert_has(d.msg, "perfring_ring_opts.sz is 8");
	}
	{
		struct perfring_attr bad = test_attr();
		PERFRING_EVENT_DESC(evbad, .attr = &bad);
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .events = &evbad,
				   .nr_events = 1);

		bad.size = 60;
		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		ck_assert_str_eq(d.file, "memfd ring");
		assert_has(d.msg, "event 0: attr size 60");
	}
	{
		PERFRING_RING_OPTS(o, .flags = PERFRING_RING_CLOCKID, .clockid = 12345);

		memset(&d, 0, sizeof(d));
		ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
		assert_has(d.msg, "clock id 12345");
	}
	ck_assert_int_eq(perfring_ring_create(NULL, NULL, &r), -EINVAL);
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(perfring_ring_create(NULL, &d, &r), -EINVAL);
	assert_has(d.msg, "no perfring_ring_opts");
}
END_TEST

/* ---- structs the library fills: sz first ------------------------------------- */

START_TEST(test_ring_stats_sz)
{
	PERFRING_RING_OPTS(o, .data_size = 4096);
	struct perfring_ring *r;
	struct perfring_ring_stats st;
	uint64_t rec[2] = { 0 };
	struct perfring_event_header h = { .type = 200, .size = 16 };

	ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
	memcpy(rec, &h, sizeof(h));
	ck_assert_int_eq(perfring_ring_write(r, rec), 0);
	memset(&st, 0xee, sizeof(st));
	st.sz = sizeof(st);
	ck_assert_int_eq(perfring_ring_get_stats(r, &st), 0);
	ck_assert_uint_eq(st.sz, sizeof(st));
	ck_assert_uint_eq(st.head, 16);
	ck_assert_uint_eq(st.published, 16);
	ck_assert_uint_eq(st.aborted, 0);
	st.sz = 4;
	ck_assert_int_eq(perfring_ring_get_stats(r, &st), -EINVAL);
	ck_assert_int_eq(perfring_ring_get_stats(r, NULL), -EINVAL);
	perfring_ring_close(r);
}
END_TEST

/* The reader's and the sources' structs follow the same rules. */
START_TEST(test_reader_source_sz)
{
	PERFRING_RING_OPTS(o, .data_size = 4096);
	struct perfring_ring *r;
	struct perfring_reader *rd;
	struct perfring_reader_stats rs;
	struct perfring_record rec = { .sz = 0 };
	struct perfring_probe pr = { .sz = 0 };
	struct perfring_source *src = NULL;
	struct perfring_diag d = { 0 };
	uint64_t rec16[2] = { 0 };
	struct perfring_event_header h = { .type = 200, .size = 16 };
	struct {
		struct perfring_reader_opts o;
		uint64_t newer;		/* a field of a newer header */
	} big = { { .sz = sizeof(big) }, 1 };
	struct {
		struct perfring_source_opts o;
		uint64_t newer;
	} sbig = { { .sz = sizeof(sbig) }, 1 };

	ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
	memcpy(rec16, &h, sizeof(h));
	ck_assert_int_eq(perfring_ring_write(r, rec16), 0);
	/* options: a set byte past what the library knows is refused */
	ck_assert_int_eq(perfring_reader_new_opts(r, &big.o, &rd), -EINVAL);
	big.newer = 0;
	ck_assert_int_eq(perfring_reader_new_opts(r, &big.o, &rd), 0);
	/* a record or stats struct whose sz was never set is refused */
	ck_assert_int_eq(perfring_reader_next(rd, &rec), -EINVAL);
	rec.sz = sizeof(rec);
	ck_assert_int_eq(perfring_reader_next(rd, &rec), 1);
	ck_assert_uint_eq(rec.hdr->type, 200);
	memset(&rs, 0xee, sizeof(rs));
	rs.sz = 4;
	ck_assert_int_eq(perfring_reader_get_stats(rd, &rs), -EINVAL);
	rs.sz = sizeof(rs);
	ck_assert_int_eq(perfring_reader_get_stats(rd, &rs), 0);
	ck_assert_uint_eq(rs.sz, sizeof(rs));
	ck_assert_uint_eq(rs.records, 1);
	ck_assert_uint_eq(rs.data_head, 16);
	perfring_reader_free(rd);
	perfring_ring_close(r);

	ck_assert_int_eq(perfring_probe(FIXTURES_DIR "/pd-file.data", &pr, &d), -EINVAL);
	pr.sz = sizeof(pr);
	ck_assert_int_eq(perfring_probe(FIXTURES_DIR "/pd-file.data", &pr, &d), 0);
	ck_assert_int_eq(pr.kind, PERFRING_SOURCE_PERFDATA);
	ck_assert_int_eq(perfring_source_open(FIXTURES_DIR "/pd-file.data", &sbig.o, &d, &src), -EINVAL);
	ck_assert_ptr_null(src);
	ck_assert_ptr_nonnull(strstr(d.msg, "perfring_source_opts"));
	sbig.newer = 0;
	ck_assert_int_eq(perfring_source_open(FIXTURES_DIR "/pd-file.data", &sbig.o, &d, &src), 0);
	perfring_source_close(src);
}
END_TEST

START_TEST(test_ring_event_sz)
{
	struct perfring_attr a = test_attr(), b = test_attr();
	const uint64_t ids[2] = { 7, 8 };
	struct perfring_event_desc ev[2] = {
		{ .sz = sizeof(ev[0]), .attr = &a, .ids = ids, .nr_ids = 1, .name = "a" },
		{ .sz = sizeof(ev[1]), .attr = &b, .ids = ids + 1, .nr_ids = 1, .name = "b" },
	};
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .events = ev, .nr_events = 2);
	struct perfring_ring *r;
	struct perfring_event_desc out;

	b.config = 1;
	ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
	memset(&out, 0xee, sizeof(out));
	out.sz = sizeof(out);
	ck_assert_int_eq(perfring_ring_event(r, 1, &out), 0);
	ck_assert_uint_eq(out.sz, sizeof(out));
	ck_assert_uint_eq(out.attr->config, 1);
	ck_assert_uint_eq(out.nr_ids, 1);
	ck_assert_uint_eq(out.ids[0], 8);
	ck_assert_str_eq(out.name, "b");
	ck_assert_uint_eq(out.leader, 1);	/* rings have no groups: itself */
	ck_assert_int_eq(out.supported, 1);
	out.sz = 8;
	ck_assert_int_eq(perfring_ring_event(r, 0, &out), -EINVAL);
	ck_assert_int_eq(perfring_ring_event(r, 2, &out), -ENOENT);
	perfring_ring_close(r);
}
END_TEST

/* An event description from a newer header: one more field. */
struct desc_v3 {
	struct perfring_event_desc d;
	uint64_t future;
};

START_TEST(test_event_desc_array_stride)
{
	struct perfring_attr a = test_attr(), b = test_attr();
	const uint64_t ids[2] = { 7, 8 };
	struct desc_v3 ev[2] = {
		{ .d = { .sz = sizeof(struct desc_v3), .attr = &a, .ids = ids, .nr_ids = 1,
			 .name = "a" } },
		{ .d = { .sz = sizeof(struct desc_v3), .attr = &b, .ids = ids + 1, .nr_ids = 1,
			 .name = "b" } },
	};
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .events = &ev[0].d,
			   .nr_events = 2);
	PERFRING_EVENT_DESC(out);
	struct perfring_ring *r;
	struct perfring_diag d;

	b.config = 5;
	/* strided by ev[0].sz: event 1 is read where the caller put it */
	ck_assert_int_eq(perfring_ring_create(&o, NULL, &r), 0);
	ck_assert_int_eq(perfring_ring_event(r, 1, &out), 0);
	ck_assert_uint_eq(out.attr->config, 5);
	ck_assert_str_eq(out.name, "b");
	ck_assert_uint_eq(out.ids[0], 8);
	perfring_ring_close(r);
	ev[1].future = 1;	/* a field this library does not know */
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
	assert_has(d.msg, "newer header");
	ev[1].future = 0;
	ev[1].d.sz = sizeof(struct perfring_event_desc);
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(perfring_ring_create(&o, &d, &r), -EINVAL);
	assert_has(d.msg, "perfring_event_desc[1].sz is 48 but [0].sz is 56");
}
END_TEST

START_TEST(test_writer_add_event_desc)
{
	struct perfring_attr a = test_attr();
	const uint64_t ids[2] = { 41, 42 };
	PERFRING_WRITER_OPTS(o, .path = tmp_path("w.data"), .kmap = PERFRING_WRITER_KMAP_NONE);
	PERFRING_EVENT_DESC(ev, .attr = &a, .ids = ids, .nr_ids = 2, .name = "ev");
	struct perfring_writer *w;
	struct perfring_diag d = { 0 };
	struct perfring_event_desc bad = ev;

	ck_assert_int_eq(perfring_writer_open(&o, &d, &w), 0);
	bad.sz = 16;
	ck_assert_int_eq(perfring_writer_add_event(w, &bad, &d), -EINVAL);
	assert_has(d.msg, "perfring_event_desc.sz is 16");
	ck_assert_int_eq(perfring_writer_add_event(w, NULL, &d), -EINVAL);
	ck_assert_int_eq(perfring_writer_add_event(w, &ev, &d), 0);
	ck_assert_uint_eq(perfring_writer_event_id(w, 0), 41);
	ck_assert_uint_eq(perfring_writer_event_id(w, 1), 0);
	perfring_writer_abort(w);
}
END_TEST

START_TEST(test_writer_stats_sz)
{
	PERFRING_WRITER_OPTS(o, .path = tmp_path("s.data"), .kmap = PERFRING_WRITER_KMAP_NONE);
	struct perfring_writer *w;
	struct perfring_writer_stats st;
	struct perfring_diag d = { 0 };

	ck_assert_int_eq(perfring_writer_open(&o, &d, &w), 0);
	memset(&st, 0xee, sizeof(st));
	st.sz = sizeof(st);
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), 0);
	ck_assert_uint_eq(st.sz, sizeof(st));
	ck_assert_uint_eq(st.records, 0);
	st.sz = 2;
	ck_assert_int_eq(perfring_writer_get_stats(w, &st), -EINVAL);
	perfring_writer_abort(w);
}
END_TEST

START_TEST(test_perfdata_sz)
{
	char path[4096];
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec;
	struct perfring_perfdata_feature f;
	struct perfring_diag d = { 0 };
	struct {
		struct perfring_perfdata_opts o;
		uint64_t future;
	} big = { .o = { .sz = sizeof(big) }, .future = 1 };

	snprintf(path, sizeof(path), "%s/pd-file.data", FIXTURES_DIR);
	ck_assert_int_eq(perfring_perfdata_open(path, &big.o, &d, &pd), -EINVAL);
	assert_has(d.msg, "perfring_perfdata_opts.sz");
	ck_assert_str_eq(d.file, path);
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(perfring_perfdata_next(pd, &rec, &d), -EINVAL);	/* sz 0 */
	rec.sz = sizeof(rec);
	ck_assert_int_eq(perfring_perfdata_next(pd, &rec, &d), 1);
	ck_assert_uint_eq(rec.sz, sizeof(rec));
	ck_assert_ptr_nonnull(rec.header);
	ck_assert_uint_eq(rec.size, rec.header->size);
	ck_assert_uint_gt(perfring_perfdata_nr_features(pd), 0);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(perfring_perfdata_feature(pd, 0, &f, &d), -EINVAL);
	f.sz = sizeof(f);
	ck_assert_int_eq(perfring_perfdata_feature(pd, 0, &f, &d), 0);
	ck_assert_uint_eq(f.sz, sizeof(f));
	ck_assert_uint_gt(f.id, 0);
	perfring_perfdata_close(pd);
}
END_TEST

/* ---- backend tables, validated when loaded ----------------------------------- */

static int load_one(const char *path, struct perfring_diag *d)
{
	struct perfring_registry *reg;
	int ret;

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	memset(d, 0, sizeof(*d));
	ret = perfring_registry_load_file(reg, path, d);
	if (ret < 0) {
		ck_assert_int_eq(d->error, ret);
		ck_assert_uint_eq(perfring_registry_count(reg), 0);
	}
	perfring_registry_free(reg);
	return ret;
}

START_TEST(test_backend_table_refused)
{
	struct perfring_diag d;
	char msg[1024];
	const char *nowait = TEST_PLUGINS_DIR "/nowait.la";
	const char *small = TEST_PLUGINS_DIR "/smallbackend.la";

	ck_assert_int_eq(load_one(nowait, &d), -EPROTO);
	perfring_diag_format(&d, msg, sizeof(msg));
	assert_has(msg, nowait);
	assert_has(msg, "invalid plugin descriptor: no wait function");
	ck_assert_int_eq(load_one(small, &d), -EPROTO);
	perfring_diag_format(&d, msg, sizeof(msg));
	assert_has(msg, small);
	assert_has(msg, "invalid plugin descriptor: backend_ops table too small");
	/* the real backend passes the same check */
	ck_assert_int_eq(load_one(HW_PLUGIN, &d), 0);
}
END_TEST

/* The hw module runs the library's options check, unknown fields included. */
START_TEST(test_backend_opts_check)
{
	struct perfring_registry *reg;
	const struct perfring_backend_ops *ops;
	struct perfring_backend *b = (void *)1;
	struct perfring_diag d = { 0 };
	struct {
		struct perfring_backend_opts o;
		uint64_t future;
	} big = { .o = { .sz = sizeof(big), .events = "cpu-clock", .pid = 1 }, .future = 1 };

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ck_assert_int_eq(perfring_registry_load_file(reg, HW_PLUGIN, &d), 0);
	ops = perfring_plugin_borrow_descriptor(perfring_registry_plugin_at(reg, 0))->backend_ops;
	ck_assert_int_eq(ops->open(&big.o, &d, &b), -EINVAL);
	ck_assert_ptr_null(b);
	assert_has(d.msg, "perfring_backend_opts.sz");
	assert_has(d.msg, "newer header");
	big.o.sz = 8;
	ck_assert_int_eq(ops->open(&big.o, &d, &b), -EINVAL);
	assert_has(d.msg, "perfring_backend_opts.sz is 8");
	perfring_registry_free(reg);
}
END_TEST

/* ---- fds: "Borrows fd (the caller keeps and closes it)" --------------------- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

START_TEST(test_perfdata_stats_event)
{
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_perfdata_stats st = { .sz = 4 };
	struct perfring_event_desc e = { .sz = sizeof(e) };
	const struct perfring_attr *a;
	const char *name;
	struct perfring_diag d = { 0 };
	uint32_t n = 0;

	ck_assert_int_eq(perfring_perfdata_open(FIXTURES_DIR "/pd-file.data", NULL, &d, &pd), 0);
	while (perfring_perfdata_next(pd, &rec, &d) == 1) {
		ck_assert_ptr_eq(rec.hdr, rec.header);	/* the 0.1 names alias */
		ck_assert_int_eq(rec.event, rec.attr_idx);
		n++;
	}
	ck_assert_int_eq(perfring_perfdata_get_stats(pd, &st), -EINVAL);
	ck_assert_int_eq(perfring_perfdata_get_stats(pd, NULL), -EINVAL);
	st.sz = sizeof(st);
	ck_assert_int_eq(perfring_perfdata_get_stats(pd, &st), 0);
	ck_assert_uint_eq(st.sz, sizeof(st));
	ck_assert_uint_eq(st.total, n);
	/* an event as perfring_source_event gives one */
	ck_assert_int_eq(perfring_perfdata_event(pd, 0, &e), 0);
	ck_assert_int_eq(perfring_perfdata_attr(pd, 0, &a, NULL, NULL, &name), 0);
	ck_assert_ptr_eq(e.attr, a);
	ck_assert_ptr_eq(e.name, name);
	ck_assert_uint_eq(e.leader, 0);
	ck_assert_int_eq(e.supported, 1);
	ck_assert_int_eq(perfring_perfdata_event(pd, perfring_perfdata_nr_attrs(pd), &e), -ENOENT);
	e.sz = 4;
	ck_assert_int_eq(perfring_perfdata_event(pd, 0, &e), -EINVAL);
	perfring_perfdata_close(pd);
	/* the renamed calls give what the old names gave */
	ck_assert_str_eq(perfring_read_format_bit_name(0), "TOTAL_TIME_ENABLED");
	ck_assert_ptr_null(perfring_read_format_bit_name(64));
}
END_TEST

START_TEST(test_fd_borrowed_perfdata)
{
	char path[4096];
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag d = { 0 };
	int before = count_fds(), fd, n = 0;

	snprintf(path, sizeof(path), "%s/pd-file.data", FIXTURES_DIR);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), 0);
	ck_assert_int_eq(close(fd), 0);		/* the caller may close it at once */
	while (perfring_perfdata_next(pd, &rec, &d) == 1)
		n++;
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq((uint64_t)n, pd_stats(pd).total);
	perfring_perfdata_close(pd);
	ck_assert_int_eq(count_fds(), before);	/* its duplicate is closed */
	/* and close never closes the caller's own */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), 0);
	perfring_perfdata_close(pd);
	ck_assert(fd_is_open(fd));
	close(fd);
	ck_assert_int_eq(perfring_perfdata_open_fd(fd, NULL, &d, &pd), -EBADF);
	assert_has(d.msg, "bad fd");
}
END_TEST

START_TEST(test_fd_borrowed_writer)
{
	struct perfring_attr a = test_attr();
	PERFRING_EVENT_DESC(ev, .attr = &a, .name = "ev");
	const char *path = tmp_path("fd.data");
	struct perfring_writer *w;
	struct perfring_perfdata *pd;
	struct perfring_diag d = { 0 };
	int before = count_fds();
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	{
		PERFRING_WRITER_OPTS(o, .fd = fd, .kmap = PERFRING_WRITER_KMAP_NONE);

		ck_assert_int_eq(perfring_writer_open(&o, &d, &w), 0);
	}
	ck_assert_int_eq(close(fd), 0);		/* before anything is written */
	ck_assert_int_eq(perfring_writer_add_event(w, &ev, &d), 0);
	ck_assert_int_eq(perfring_writer_close(w, &d), 0);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_int_eq(perfring_perfdata_open(path, NULL, &d, &pd), 0);
	ck_assert_uint_eq(perfring_perfdata_nr_attrs(pd), 1);
	perfring_perfdata_close(pd);
	unlink(path);
}
END_TEST

START_TEST(test_fd_borrowed_ring)
{
	struct perfring_attr a = test_attr();
	PERFRING_EVENT_DESC(ev, .attr = &a, .name = "ev");
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .events = &ev, .nr_events = 1);
	struct perfring_ring *r, *r2;
	struct perfring_diag d = { 0 };
	int before = count_fds(), fd;

	ck_assert_int_eq(perfring_ring_create(&o, &d, &r), 0);
	fd = perfring_ring_fd(r);		/* borrowed: owned by r */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(perfring_ring_open_fd(fd, PERFRING_RING_READ, &d, &r2), 0);
	perfring_ring_close(r);			/* closes fd, not r2's duplicate */
	ck_assert(!fd_is_open(fd) || fd == perfring_ring_fd(r2));
	ck_assert_uint_eq(perfring_ring_nr_events(r2), 1);
	ck_assert_int_ge(perfring_ring_fd(r2), 0);
	perfring_ring_close(r2);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

/* ---- index types: uint32_t, or int for an index-or-error -------------------- */

#define IS_TYPE(expr, type) __builtin_types_compatible_p(__typeof__(expr), type)
#define NO_PD ((const struct perfring_perfdata *)0)
#define NO_REG ((const struct perfring_registry *)0)

_Static_assert(IS_TYPE(perfring_ring_nr_events(0), uint32_t), "ring events: uint32_t");
_Static_assert(IS_TYPE(perfring_perfdata_nr_attrs(NO_PD), uint32_t), "attrs: uint32_t");
_Static_assert(IS_TYPE(perfring_perfdata_nr_features(NO_PD), uint32_t), "features: uint32_t");
_Static_assert(IS_TYPE(perfring_registry_count(NO_REG), uint32_t), "plugins: uint32_t");
_Static_assert(IS_TYPE(perfring_registry_shadowed_count(NO_REG), uint32_t), "shadowed: uint32_t");
_Static_assert(IS_TYPE(perfring_plugin_types(0, 0), uint32_t), "types: uint32_t");
_Static_assert(IS_TYPE(perfring_writer_add_event(0, 0, 0), int), "index-or-error: int");
_Static_assert(IS_TYPE(perfring_writer_add_source(0), int), "index-or-error: int");
_Static_assert(IS_TYPE(((struct perfring_event_desc *)0)->nr_ids, uint32_t), "ids: uint32_t");
_Static_assert(IS_TYPE(((struct perfring_event_desc *)0)->leader, uint32_t), "leader: uint32_t");

/* The index arguments are uint32_t: a pointer to one of another type is refused. */
typedef int (*pd_attr_fn)(const struct perfring_perfdata *, uint32_t,
			  const struct perfring_attr **, const uint64_t **, uint32_t *,
			  const char **);
_Static_assert(IS_TYPE(&perfring_perfdata_attr, pd_attr_fn), "perfdata_attr: uint32_t");
typedef int (*wr_write_fn)(struct perfring_writer *, uint32_t, const void *, size_t,
			   struct perfring_diag *);
_Static_assert(IS_TYPE(&perfring_writer_write, wr_write_fn), "writer_write: uint32_t");

START_TEST(test_writer_source_index)
{
	PERFRING_WRITER_OPTS(o, .path = tmp_path("src.data"), .kmap = PERFRING_WRITER_KMAP_NONE);
	struct perfring_writer *w;
	struct perfring_diag d = { 0 };
	uint64_t rec[2] = { 0 };
	struct perfring_event_header h = { .type = PERFRING_RECORD_FINISHED_INIT, .size = 8 };
	int s;

	memcpy(rec, &h, sizeof(h));
	ck_assert_int_eq(perfring_writer_open(&o, &d, &w), 0);
	s = perfring_writer_add_source(w);
	ck_assert_int_ge(s, 0);
	/* what a caller gets by passing an error return as an index */
	ck_assert_int_eq(perfring_writer_write(w, (uint32_t)-ENOMEM, rec, 8, &d), -EINVAL);
	assert_has(d.msg, "no source 4294967284");
	ck_assert_int_eq(perfring_writer_end_source(w, 7, &d), -EINVAL);
	assert_has(d.msg, "no source 7");
	ck_assert_int_eq(perfring_writer_end_source(w, (uint32_t)s, &d), 0);
	perfring_writer_abort(w);
}
END_TEST

START_TEST(test_jit_sz)
{
	static const char map[] = "1000 10 foo\n";
	struct perfring_jitdump_writer *jw;
	struct perfring_jitdump *jr;
	struct perfring_perfmap *pm;
	struct perfring_jit_record rec;
	struct perfring_jitdump_stats st;
	struct perfring_perfmap_entry pe;
	struct perfring_jit_debug_entry de[2] = {
		{ .sz = sizeof(de[0]), .addr = 0x1000, .lineno = 1, .file = "a.c" },
		{ .sz = sizeof(de[1]), .addr = 0x1004, .lineno = 2, .file = "a.c" },
	}, e = { .sz = sizeof(e) };
	struct perfring_diag d = { 0 };
	char path[1024];
	size_t pos = 0;
	uint64_t idx;

	ck_assert_int_eq(perfring_jitdump_writer_open(tmpdir, &d, &jw), 0);
	snprintf(path, sizeof(path), "%s", perfring_jitdump_writer_path(jw));
	de[1].sz = 8;		/* an array has one sz */
	ck_assert_int_eq(perfring_jitdump_write_debug_info(jw, 0x1000, de, 2), -EINVAL);
	de[1].sz = sizeof(de[1]);
	ck_assert_int_eq(perfring_jitdump_write_debug_info(jw, 0x1000, de, 2), 0);
	ck_assert_int_eq(perfring_jitdump_write_load(jw, "f", 0x1000, "\xc3", 1, &idx), 0);
	ck_assert_int_eq(perfring_jitdump_writer_close(jw), 0);

	ck_assert_int_eq(perfring_jitdump_open(path, &d, &jr), 0);
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(perfring_jitdump_next(jr, &rec, &d), -EINVAL);
	rec.sz = sizeof(rec);
	ck_assert_int_eq(perfring_jitdump_next(jr, &rec, &d), 1);
	ck_assert_uint_eq(rec.sz, sizeof(rec));
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_DEBUG_INFO);
	e.sz = 4;
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), -EINVAL);
	e.sz = sizeof(e);
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 1);
	ck_assert_uint_eq(e.sz, sizeof(e));
	ck_assert_uint_eq(e.addr, 0x1000);
	ck_assert_str_eq(e.file, "a.c");
	memset(&st, 0xee, sizeof(st));
	st.sz = 4;
	ck_assert_int_eq(perfring_jitdump_get_stats(jr, &st), -EINVAL);
	st.sz = sizeof(st);
	ck_assert_int_eq(perfring_jitdump_get_stats(jr, &st), 0);
	ck_assert_uint_eq(st.records[PERFRING_JIT_CODE_DEBUG_INFO], 1);
	ck_assert_uint_eq(st.unknown, 0);
	perfring_jitdump_close(jr);
	unlink(path);

	ck_assert_int_eq(perfring_perfmap_open_mem(map, sizeof(map) - 1, "m", &d, &pm), 0);
	memset(&pe, 0, sizeof(pe));
	ck_assert_int_eq(perfring_perfmap_next(pm, &pe, &d), -EINVAL);
	pe.sz = sizeof(pe);
	ck_assert_int_eq(perfring_perfmap_next(pm, &pe, &d), 1);
	ck_assert_uint_eq(pe.start, 0x1000);
	ck_assert_str_eq(pe.name, "foo");
	perfring_perfmap_close(pm);
}
END_TEST

static Suite *conventions_suite(void)
{
	Suite *s = suite_create("conventions");
	TCase *tc = tcase_create("versioned");

	tcase_add_test(tc, test_opts_load);
	tcase_add_test(tc, test_struct_fill);
	tcase_add_test(tc, test_ring_stats_sz);
	tcase_add_test(tc, test_ring_event_sz);
	tcase_add_test(tc, test_reader_source_sz);
	tcase_add_test(tc, test_event_desc_array_stride);
	tcase_add_test(tc, test_writer_add_event_desc);
	tcase_add_test(tc, test_writer_stats_sz);
	tcase_add_test(tc, test_perfdata_sz);
	tcase_add_test(tc, test_writer_source_index);
	tcase_add_test(tc, test_jit_sz);
	suite_add_tcase(s, tc);
	tc = tcase_create("diag");
	tcase_add_test(tc, test_ring_create_diag);
	suite_add_tcase(s, tc);
	tc = tcase_create("backend");
	tcase_add_test(tc, test_backend_table_refused);
	tcase_add_test(tc, test_backend_opts_check);
	suite_add_tcase(s, tc);
	tc = tcase_create("fd");
	tcase_add_test(tc, test_fd_borrowed_perfdata);
	tcase_add_test(tc, test_perfdata_stats_event);
	tcase_add_test(tc, test_fd_borrowed_writer);
	tcase_add_test(tc, test_fd_borrowed_ring);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "%s/check_conventions.XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 200 ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	rc = test_run_suite(conventions_suite());
	unlink(tmp_path("w.data"));
	unlink(tmp_path("s.data"));
	unlink(tmp_path("diag.ring"));
	rmdir(tmpdir);
	return rc;
}
