/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JIT support (include/perfring/jit.h): the jitdump reader on files built
 * here byte by byte (both byte orders, padded records, unknown types, files
 * cut at every byte, damaged records), the jitdump writer read back, the
 * perf-map reader, the synthesized ELF parsed back field by field with
 * <elf.h>, and the MMAP2 encoder.  The end-to-end checks with the real perf
 * and hotspot-perfparser are in tests/tools/jit-*.sh.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <perfring/perfring.h>

#include "testutil.h"

static char tmpdir[256];

/* Unaligned access to the bytes of a dump or a record (no casts: UBSan). */
static uint64_t ld64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t ld32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t ld16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void st64(void *p, uint64_t v) { memcpy(p, &v, 8); }

static void mk_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/check_jit.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- a jitdump builder, either byte order --------------------------------- */

struct dump {
	GByteArray *b;
	int swap;
};

static void p32(struct dump *d, uint32_t v)
{
	if (d->swap)
		v = __builtin_bswap32(v);
	g_byte_array_append(d->b, (const guint8 *)&v, 4);
}

static void p64(struct dump *d, uint64_t v)
{
	if (d->swap)
		v = __builtin_bswap64(v);
	g_byte_array_append(d->b, (const guint8 *)&v, 8);
}

static void pbytes(struct dump *d, const void *p, size_t n)
{
	g_byte_array_append(d->b, p, (guint)n);
}

static void dump_init(struct dump *d, int swap)
{
	d->b = g_byte_array_new();
	d->swap = swap;
	p32(d, PERFRING_JITDUMP_MAGIC);
	p32(d, 1);
	p32(d, 40);
	p32(d, EM_X86_64);
	p32(d, 0xdeadbeef);
	p32(d, 4242);
	p64(d, 123);
	p64(d, 0);
}

static void prefix(struct dump *d, uint32_t id, uint32_t size, uint64_t ts)
{
	p32(d, id);
	p32(d, size);
	p64(d, ts);
}

/* CODE_LOAD, pad bytes of padding between the name and the code. */
static void add_load(struct dump *d, const char *name, uint64_t addr, const void *code,
		     uint64_t size, uint64_t index, uint64_t ts)
{
	size_t nl = strlen(name) + 1;

	prefix(d, 0, (uint32_t)(56 + nl + size), ts);
	p32(d, 4242);
	p32(d, 4243);
	p64(d, addr);
	p64(d, addr);
	p64(d, size);
	p64(d, index);
	pbytes(d, name, nl);
	pbytes(d, code, (size_t)size);
}

static void add_debug(struct dump *d, uint64_t addr, int pad, uint64_t ts)
{
	static const char f1[] = "a.js", f2[] = "\xff";
	uint32_t size = 32 + 16 + sizeof(f1) + 16 + sizeof(f2);

	prefix(d, 2, size + (uint32_t)pad, ts);
	p64(d, addr);
	p64(d, 2);
	p64(d, addr + 0x40);
	p32(d, 7);
	p32(d, 0);
	pbytes(d, f1, sizeof(f1));
	p64(d, addr + 0x48);
	p32(d, 8);
	p32(d, 1);
	pbytes(d, f2, sizeof(f2));
	for (int i = 0; i < pad; i++)
		g_byte_array_append(d->b, (const guint8 *)"", 1);
}

static void add_unwind(struct dump *d, uint64_t ts)
{
	prefix(d, 4, 40 + 24, ts);
	p64(d, 24);
	p64(d, 8);
	p64(d, 0);
	pbytes(d, "EHFRAME.EHFRAME.HDRHDR..", 24);
}

static void add_move(struct dump *d, uint64_t index, uint64_t from, uint64_t to, uint64_t ts)
{
	prefix(d, 1, 64, ts);
	p32(d, 4242);
	p32(d, 4243);
	p64(d, to);
	p64(d, from);
	p64(d, to);
	p64(d, 16);
	p64(d, index);
}

static void add_unknown(struct dump *d, uint32_t id, uint32_t size, uint64_t ts)
{
	prefix(d, id, size, ts);
	for (uint32_t i = 16; i < size; i++)
		g_byte_array_append(d->b, (const guint8 *)"u", 1);
}

static const uint8_t code1[16] = { 0x55, 0x48, 0x89, 0xe5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x5d, 0xc3 };
static const uint8_t code2[5] = { 0x90, 0x90, 0x90, 0x90, 0xc3 };

/* The full sample: every type, padding, an unknown type. */
static void build_sample(struct dump *d, int swap)
{
	dump_init(d, swap);
	add_debug(d, 0x1000, 3, 10);
	add_unwind(d, 11);
	add_load(d, "JS:*fib a.js:1:13", 0x1000, code1, sizeof(code1), 0, 12);
	add_unknown(d, 9, 27, 13);
	add_load(d, "second fn", 0x2000, code2, sizeof(code2), 1, 14);
	add_move(d, 1, 0x2000, 0x3000, 15);
	prefix(d, 3, 16, 16);
}

static void check_sample(struct perfring_jitdump *r, int swapped)
{
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	struct perfring_jit_debug_entry e = { .sz = sizeof(e) };
	struct perfring_jitdump_stats st = { .sz = sizeof(st) };
	struct perfring_diag diag;
	size_t pos = 0;

	ck_assert_int_eq(perfring_jitdump_header(r)->swapped, swapped);
	ck_assert_uint_eq(perfring_jitdump_header(r)->pid, 4242);
	ck_assert_uint_eq(perfring_jitdump_header(r)->elf_mach, EM_X86_64);

	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_DEBUG_INFO);
	ck_assert_uint_eq(rec.offset, 40);
	ck_assert_uint_eq(rec.timestamp, 10);
	ck_assert_uint_eq(rec.u.debug.nr_entry, 2);
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 1);
	ck_assert_uint_eq(e.addr, 0x1040);
	ck_assert_int_eq(e.lineno, 7);
	ck_assert_str_eq(e.file, "a.js");
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 1);
	ck_assert_int_eq(e.lineno, 8);
	ck_assert_int_eq(e.discrim, 1);
	ck_assert_str_eq(e.file, "\xff");
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 0);

	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_UNWINDING_INFO);
	ck_assert_uint_eq(rec.u.unwind.unwinding_size, 24);
	ck_assert_uint_eq(rec.u.unwind.eh_frame_hdr_size, 8);
	ck_assert_int_eq(memcmp(rec.u.unwind.data, "EHFRAME.", 8), 0);

	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_LOAD);
	ck_assert_uint_eq(rec.u.load.pid, 4242);
	ck_assert_uint_eq(rec.u.load.tid, 4243);
	ck_assert_uint_eq(rec.u.load.code_addr, 0x1000);
	ck_assert_uint_eq(rec.u.load.code_size, sizeof(code1));
	ck_assert_str_eq(rec.u.load.name, "JS:*fib a.js:1:13");
	ck_assert_int_eq(memcmp(rec.u.load.code, code1, sizeof(code1)), 0);

	/* the unknown type 9 is skipped */
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_LOAD);
	ck_assert_str_eq(rec.u.load.name, "second fn");
	ck_assert_uint_eq(rec.u.load.code_index, 1);
	ck_assert_uint_eq(rec.timestamp, 14);
	ck_assert_int_eq(memcmp(rec.u.load.code, code2, sizeof(code2)), 0);

	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_MOVE);
	ck_assert_uint_eq(rec.u.move.old_code_addr, 0x2000);
	ck_assert_uint_eq(rec.u.move.new_code_addr, 0x3000);
	ck_assert_uint_eq(rec.u.move.code_index, 1);

	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_CLOSE);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 0);
	perfring_jitdump_get_stats(r, &st);
	ck_assert_uint_eq(st.records[PERFRING_JIT_CODE_LOAD], 2);
	ck_assert_uint_eq(st.records[PERFRING_JIT_CODE_DEBUG_INFO], 1);
	ck_assert_uint_eq(st.unknown, 1);
	ck_assert_int_eq(st.closed, 1);
	ck_assert_uint_eq(st.truncated_bytes, 0);
}

START_TEST(test_read_both_orders)
{
	for (int swap = 0; swap < 2; swap++) {
		struct perfring_jitdump *r;
		struct perfring_diag diag;
		struct dump d;
		char path[512];
		FILE *f;

		build_sample(&d, swap);
		ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "mem", &diag, &r), 0);
		check_sample(r, swap);
		perfring_jitdump_close(r);

		/* the same through a file */
		snprintf(path, sizeof(path), "%s/jit-4242.dump", tmpdir);
		f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(d.b->data, 1, d.b->len, f), d.b->len);
		fclose(f);
		ck_assert_int_eq(perfring_jitdump_open(path, &diag, &r), 0);
		check_sample(r, swap);
		perfring_jitdump_close(r);
		g_byte_array_free(d.b, TRUE);
	}
}
END_TEST

/* Through a pipe fed in small pieces: no size known in advance. */
START_TEST(test_read_pipe)
{
	struct perfring_jitdump *r;
	struct perfring_diag diag;
	struct dump d;
	char path[64];
	int fds[2];
	pid_t pid;

	build_sample(&d, 0);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		for (guint off = 0; off < d.b->len; off += 7) {
			guint n = d.b->len - off < 7 ? d.b->len - off : 7;

			if (write(fds[1], d.b->data + off, n) != (ssize_t)n)
				_exit(1);
			usleep(200);
		}
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	ck_assert_int_eq(perfring_jitdump_open(path, &diag, &r), 0);
	check_sample(r, 0);
	perfring_jitdump_close(r);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	g_byte_array_free(d.b, TRUE);
}
END_TEST

/* Count the whole records a reader returns; 0 = clean end expected. */
static int read_all(const void *p, size_t n, uint64_t *records, struct perfring_diag *diag,
		    struct perfring_jitdump_stats *st)
{
	struct perfring_jitdump *r;
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	int err;

	*records = 0;
	err = perfring_jitdump_open_mem(p, n, "cut.dump", diag, &r);
	if (err)
		return err;
	while ((err = perfring_jitdump_next(r, &rec, diag)) == 1)
		(*records)++;
	perfring_jitdump_get_stats(r, st);
	perfring_jitdump_close(r);
	return err;
}

START_TEST(test_cut_everywhere)
{
	/* record ends (file offsets), to know how many whole records precede a cut */
	struct dump d;
	uint64_t ends[8];
	size_t nends = 0;

	dump_init(&d, 0);
	add_debug(&d, 0x1000, 3, 10);
	ends[nends++] = d.b->len;
	add_load(&d, "f", 0x1000, code1, sizeof(code1), 0, 12);
	ends[nends++] = d.b->len;
	add_unknown(&d, 77, 20, 13);
	add_load(&d, "g", 0x2000, code2, sizeof(code2), 1, 14);
	ends[nends++] = d.b->len;
	for (size_t cut = 40; cut <= d.b->len; cut++) {
		struct perfring_jitdump_stats st = { .sz = sizeof(st) };
		struct perfring_diag diag;
		uint64_t n, want = 0, last = 40;

		for (size_t i = 0; i < nends; i++)
			if (ends[i] <= cut) {
				want = i + 1;
				last = ends[i];
			}
		ck_assert_int_eq(read_all(d.b->data, cut, &n, &diag, &st), 0);
		ck_assert_uint_eq(n, want);
		/* the unknown record, when whole, is read and skipped */
		if (cut >= ends[1] + 20)
			last = cut >= ends[2] ? ends[2] : ends[1] + 20;
		ck_assert_uint_eq(st.truncated_bytes, cut - last);
	}
	/* the header itself cut short is an error naming the offset */
	for (size_t cut = 0; cut < 40; cut++) {
		struct perfring_jitdump *r = NULL;
		struct perfring_diag diag;

		ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, cut, "h.dump", &diag, &r),
				 -EBADMSG);
		ck_assert_ptr_null(r);
		ck_assert_str_eq(diag.file, "h.dump");
	}
	g_byte_array_free(d.b, TRUE);
}
END_TEST

/* A damaged record: the records before it come back, then -EBADMSG at it. */
static void expect_damage(struct dump *d, uint64_t before, uint64_t off, const char *what)
{
	struct perfring_jitdump *r;
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	struct perfring_diag diag;
	uint64_t n = 0;
	int err;

	ck_assert_int_eq(perfring_jitdump_open_mem(d->b->data, d->b->len, "bad.dump", &diag, &r), 0);
	while ((err = perfring_jitdump_next(r, &rec, &diag)) == 1)
		n++;
	ck_assert_int_eq(err, -EBADMSG);
	ck_assert_uint_eq(n, before);
	ck_assert_int_eq(diag.has_offset, 1);
	ck_assert_uint_eq(diag.offset, off);
	ck_assert_str_eq(diag.file, "bad.dump");
	ck_assert_ptr_nonnull(strstr(diag.msg, what));
	/* sticky */
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), -EBADMSG);
	perfring_jitdump_close(r);
	g_byte_array_free(d->b, TRUE);
}

START_TEST(test_damage)
{
	struct dump d;
	uint64_t off;

	/* code_size larger than the record */
	dump_init(&d, 0);
	add_load(&d, "ok", 0x1000, code1, sizeof(code1), 0, 1);
	off = d.b->len;
	add_load(&d, "bad", 0x2000, code2, sizeof(code2), 1, 2);
	st64(d.b->data + off + 40, 1000);
	add_load(&d, "after", 0x3000, code2, sizeof(code2), 2, 3);
	expect_damage(&d, 1, off, "code_size");

	/* name without NUL */
	dump_init(&d, 1);
	add_load(&d, "ok", 0x1000, code1, sizeof(code1), 0, 1);
	off = d.b->len;
	add_load(&d, "bad", 0x2000, code2, sizeof(code2), 1, 2);
	d.b->data[off + 56 + 3] = 'x';
	expect_damage(&d, 1, off + 56, "without NUL");

	/* size below the fixed part */
	dump_init(&d, 0);
	off = d.b->len;
	prefix(&d, 1, 24, 0);
	p64(&d, 0);
	expect_damage(&d, 0, off, "below its fixed part");

	/* unknown type with a size below the prefix */
	dump_init(&d, 0);
	add_move(&d, 0, 1, 2, 3);
	off = d.b->len;
	prefix(&d, 99, 8, 0);
	expect_damage(&d, 1, off, "below");

	/* DEBUG_INFO entries past the record */
	dump_init(&d, 0);
	off = d.b->len;
	add_debug(&d, 0x1000, 0, 1);
	st64(d.b->data + off + 24, 3);
	expect_damage(&d, 0, off + 32 + 16 + 5 + 16 + 2, "entry 2");
}
END_TEST

START_TEST(test_bad_header)
{
	struct perfring_jitdump *r;
	struct perfring_diag diag;
	struct dump d;

	dump_init(&d, 0);
	d.b->data[4] = 2;	/* version 2 */
	ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "v.dump", &diag, &r),
			 -EBADMSG);
	ck_assert_uint_eq(diag.offset, 4);
	ck_assert_ptr_nonnull(strstr(diag.msg, "version 2"));
	d.b->data[4] = 1;
	d.b->data[32] = 2;	/* unknown flag */
	ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "v.dump", &diag, &r),
			 -EBADMSG);
	ck_assert_uint_eq(diag.offset, 32);
	d.b->data[32] = 1;	/* ARCH_TIMESTAMP is known */
	ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "v.dump", &diag, &r), 0);
	perfring_jitdump_close(r);
	d.b->data[0] = 'X';
	ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "v.dump", &diag, &r),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(diag.msg, "magic"));
	g_byte_array_free(d.b, TRUE);

	/* a larger header: the extra bytes are skipped */
	dump_init(&d, 0);
	d.b->data[8] = 48;
	p64(&d, 0x5555);
	add_move(&d, 3, 1, 2, 9);
	{
		struct perfring_jit_record rec = { .sz = sizeof(rec) };

		ck_assert_int_eq(perfring_jitdump_open_mem(d.b->data, d.b->len, "x", &diag, &r), 0);
		ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
		ck_assert_uint_eq(rec.offset, 48);
		ck_assert_uint_eq(rec.u.move.code_index, 3);
		perfring_jitdump_close(r);
	}
	g_byte_array_free(d.b, TRUE);
	ck_assert_int_eq(perfring_jitdump_open("/nonexistent/jit-1.dump", &diag, &r), -ENOENT);
	ck_assert_str_eq(diag.file, "/nonexistent/jit-1.dump");
}
END_TEST

START_TEST(test_writer_roundtrip)
{
	struct perfring_jitdump_writer *w;
	struct perfring_jitdump *r;
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	struct perfring_jit_debug_entry de[2] = {
		{ .sz = sizeof(de[0]), .addr = 0x5000, .lineno = 3, .file = "x.c" },
		{ .sz = sizeof(de[1]), .addr = 0x5004, .lineno = 4, .file = "\xff" },
	}, e = { .sz = sizeof(e) };
	struct perfring_diag diag;
	uint64_t idx, t0 = perfring_jit_timestamp();
	char path[512], maps[64], line[4096];
	size_t pos = 0;
	int found = 0;
	FILE *f;

	ck_assert_int_eq(perfring_jitdump_writer_open(tmpdir, &diag, &w), 0);
	snprintf(path, sizeof(path), "%s/jit-%d.dump", tmpdir, (int)getpid());
	ck_assert_str_eq(perfring_jitdump_writer_path(w), path);
	ck_assert(perfring_jitdump_is_marker(path, (uint32_t)getpid()));
	/* the marker mapping is there, readable and executable */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)getpid());
	f = fopen(maps, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, path) && strstr(line, "r-xp"))
			found = 1;
	fclose(f);
	ck_assert_int_eq(found, 1);
	ck_assert_int_eq(perfring_jitdump_write_debug_info(w, 0x5000, de, 2), 0);
	ck_assert_int_eq(perfring_jitdump_write_load(w, "fn one", 0x5000, code1, sizeof(code1), &idx), 0);
	ck_assert_uint_eq(idx, 0);
	ck_assert_int_eq(perfring_jitdump_write_load(w, "fn two", 0x6000, code2, sizeof(code2), &idx), 0);
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(perfring_jitdump_write_move(w, 1, 0x6000, 0x7000, sizeof(code2)), 0);

	/* readable while still open (no CLOSE yet) */
	ck_assert_int_eq(perfring_jitdump_open(path, &diag, &r), 0);
	ck_assert_uint_eq(perfring_jitdump_header(r)->pid, (uint32_t)getpid());
	ck_assert_uint_eq(perfring_jitdump_header(r)->version, 1);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_DEBUG_INFO);
	ck_assert_uint_eq(rec.total_size % 8, 0);
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 1);
	ck_assert_str_eq(e.file, "x.c");
	ck_assert_int_eq(perfring_jit_debug_entry_next(&rec, &pos, &e), 1);
	ck_assert_uint_eq(e.addr, 0x5004);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_str_eq(rec.u.load.name, "fn one");
	ck_assert_uint_ge(rec.timestamp, t0);
	ck_assert_uint_le(rec.timestamp, perfring_jit_timestamp());
	ck_assert_uint_eq(rec.u.load.pid, (uint32_t)getpid());
	ck_assert_int_eq(memcmp(rec.u.load.code, code1, sizeof(code1)), 0);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_MOVE);
	ck_assert_uint_eq(rec.u.move.new_code_addr, 0x7000);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 0);
	perfring_jitdump_close(r);

	ck_assert_int_eq(perfring_jitdump_writer_close(w), 0);
	ck_assert_int_eq(perfring_jitdump_open(path, &diag, &r), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_int_eq(perfring_jitdump_next(r, &rec, &diag), 1);
	ck_assert_uint_eq(rec.id, PERFRING_JIT_CODE_CLOSE);
	perfring_jitdump_close(r);
}
END_TEST

START_TEST(test_marker_names)
{
	ck_assert(perfring_jitdump_is_marker("/home/u/.debug/jit/java-jit-x/jit-123.dump", 123));
	ck_assert(perfring_jitdump_is_marker("jit-123.dump", 0));
	ck_assert(!perfring_jitdump_is_marker("/tmp/jit-123.dump", 124));
	ck_assert(!perfring_jitdump_is_marker("/tmp/jit-.dump", 0));
	ck_assert(!perfring_jitdump_is_marker("/tmp/jit-12a.dump", 0));
	ck_assert(!perfring_jitdump_is_marker("/tmp/jit-12.dump.bak", 0));
	ck_assert(!perfring_jitdump_is_marker("/tmp/xjit-12.dump", 0));
	ck_assert(perfring_jit_is_anon_map("//anon"));
	ck_assert(perfring_jit_is_anon_map("[anon:v8 code]"));
	ck_assert(perfring_jit_is_anon_map("/memfd:doublemapper (deleted)"));
	ck_assert(!perfring_jit_is_anon_map("/usr/bin/node"));
	ck_assert(!perfring_jit_is_anon_map("[heap]"));
}
END_TEST

/* ---- perf map -------------------------------------------------------------- */

START_TEST(test_perfmap)
{
	static const char text[] =
		"7f0000001000 40 LazyCompile:*fib /x/fib.js:1:13\n"
		"0x00007F0000002000 0x10 long H.f(long)\r\n"
		"\n"
		"zz 10 bad\n"
		"1000 10\n"
		"  1000\t20\tleading blanks\n"
		"12345678901234567 1 too long\n"
		"ffffffffffffffff 2 wraps\n"
		"3000 8 last line without newline";
	struct perfring_perfmap *m;
	struct perfring_perfmap_entry e = { .sz = sizeof(e) };
	struct perfring_diag diag;
	uint64_t lines, entries, bad;

	ck_assert_int_eq(perfring_perfmap_open_mem(text, sizeof(text) - 1, "perf-1.map", &diag, &m), 0);
	memset(&diag, 0, sizeof(diag));
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 1);
	ck_assert_uint_eq(e.start, 0x7f0000001000ull);
	ck_assert_uint_eq(e.size, 0x40);
	ck_assert_str_eq(e.name, "LazyCompile:*fib /x/fib.js:1:13");
	ck_assert_uint_eq(e.line, 1);
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 1);
	ck_assert_uint_eq(e.start, 0x7f0000002000ull);
	ck_assert_uint_eq(e.size, 0x10);
	ck_assert_str_eq(e.name, "long H.f(long)");
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 1);
	ck_assert_str_eq(e.name, "leading blanks");
	ck_assert_uint_eq(e.line, 6);
	/* the first bad line is line 4 */
	ck_assert_int_eq(diag.error, -EBADMSG);
	ck_assert_str_eq(diag.file, "perf-1.map");
	ck_assert_ptr_nonnull(strstr(diag.msg, "line 4:"));
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 1);
	ck_assert_str_eq(e.name, "last line without newline");
	ck_assert_uint_eq(e.line, 9);
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 0);
	perfring_perfmap_counts(m, &lines, &entries, &bad);
	ck_assert_uint_eq(lines, 9);
	ck_assert_uint_eq(entries, 4);
	ck_assert_uint_eq(bad, 4);
	perfring_perfmap_close(m);

	ck_assert_int_eq(perfring_perfmap_open_mem("", 0, "empty", &diag, &m), 0);
	ck_assert_int_eq(perfring_perfmap_next(m, &e, &diag), 0);
	perfring_perfmap_close(m);
	ck_assert_int_eq(perfring_perfmap_open("/nonexistent/perf-1.map", &diag, &m), -ENOENT);
}
END_TEST

/* ---- ELF ---------------------------------------------------------------------- */

struct elf_view {
	uint8_t *p;
	size_t n;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
};

static void elf_map(const char *path, struct elf_view *v)
{
	struct stat sb;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0644);
	v->n = (size_t)sb.st_size;
	v->p = mmap(NULL, v->n, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(v->p, MAP_FAILED);
	close(fd);
	v->eh = (Elf64_Ehdr *)(void *)v->p;
	ck_assert_int_eq(memcmp(v->p, ELFMAG, SELFMAG), 0);
	ck_assert_uint_le(v->eh->e_shoff + v->eh->e_shnum * sizeof(Elf64_Shdr), v->n);
	v->sh = (Elf64_Shdr *)(void *)(v->p + v->eh->e_shoff);
}

static Elf64_Shdr *section(struct elf_view *v, const char *name)
{
	const char *names = (const char *)v->p + v->sh[v->eh->e_shstrndx].sh_offset;

	for (int i = 0; i < v->eh->e_shnum; i++)
		if (!strcmp(names + v->sh[i].sh_name, name))
			return &v->sh[i];
	return NULL;
}

START_TEST(test_elf_code)
{
	struct perfring_jit_elf *e;
	struct perfring_diag diag;
	struct elf_view v;
	uint64_t off[3];
	uint8_t id[20];
	char path[512];
	Elf64_Phdr *ph;
	Elf64_Shdr *text, *symtab, *strtab, *note;
	Elf64_Sym *sym;
	const char *names[3] = { "JS:*fib a.js:1:13", "second", "JS:*fib a.js:1:13" };
	const uint8_t *codes[3] = { code1, code2, code2 };
	size_t sizes[3] = { sizeof(code1), sizeof(code2), sizeof(code2) };

	ck_assert_int_eq(perfring_jit_elf_new(EM_AARCH64, &e), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(perfring_jit_elf_add(e, names[i], codes[i], sizes[i], &off[i], &diag), 0);
	/* every load its own bytes, even for the same name and code */
	ck_assert_uint_lt(off[0], off[1]);
	ck_assert_uint_lt(off[1], off[2]);
	ck_assert_uint_ge(off[1], off[0] + sizeof(code1));
	ck_assert_uint_ge(off[2], off[1] + sizeof(code2));
	ck_assert_int_eq(perfring_jit_elf_add(e, "nocode", NULL, 8, &off[0], &diag), -EINVAL);
	ck_assert_int_eq(perfring_jit_elf_add(e, "zero", code1, 0, &off[0], &diag), -EINVAL);
	ck_assert_uint_eq(perfring_jit_elf_count(e), 3);
	snprintf(path, sizeof(path), "%s/out.jit.so", tmpdir);
	ck_assert_int_eq(perfring_jit_elf_write(e, path, id, &diag), 0);

	elf_map(path, &v);
	ck_assert_uint_eq(v.eh->e_ident[EI_CLASS], ELFCLASS64);
	ck_assert_uint_eq(v.eh->e_type, ET_DYN);
	ck_assert_uint_eq(v.eh->e_machine, EM_AARCH64);
	ck_assert_uint_eq(v.eh->e_phnum, 2);
	ph = (Elf64_Phdr *)(void *)(v.p + v.eh->e_phoff);
	ck_assert_uint_eq(ph[0].p_type, PT_LOAD);
	ck_assert_uint_eq(ph[0].p_flags, PF_R | PF_X);
	/* from offset 0 at address 0 (elfutils places the module by it) */
	ck_assert_uint_eq(ph[0].p_offset, 0);
	ck_assert_uint_eq(ph[0].p_vaddr, 0);
	text = section(&v, ".text");
	symtab = section(&v, ".symtab");
	strtab = section(&v, ".strtab");
	note = section(&v, ".note.gnu.build-id");
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(symtab);
	ck_assert_ptr_nonnull(strtab);
	ck_assert_ptr_nonnull(note);
	ck_assert_uint_eq(text->sh_type, SHT_PROGBITS);
	ck_assert_uint_eq(text->sh_flags, SHF_ALLOC | SHF_EXECINSTR);
	ck_assert_uint_eq(text->sh_addr, text->sh_offset);
	ck_assert_uint_eq(text->sh_offset + text->sh_size, ph[0].p_filesz);
	ck_assert_uint_eq(ph[0].p_filesz, ph[0].p_memsz);
	ck_assert_uint_eq(&v.sh[symtab->sh_link] - v.sh, strtab - v.sh);
	ck_assert_uint_eq(symtab->sh_type, SHT_SYMTAB);
	ck_assert_uint_eq(symtab->sh_size / sizeof(Elf64_Sym), 4);
	sym = (Elf64_Sym *)(void *)(v.p + symtab->sh_offset);
	for (int i = 0; i < 3; i++) {
		Elf64_Sym *s = &sym[i + 1];

		ck_assert_str_eq((const char *)v.p + strtab->sh_offset + s->st_name, names[i]);
		ck_assert_uint_eq(ELF64_ST_TYPE(s->st_info), STT_FUNC);
		ck_assert_uint_eq(s->st_shndx, text - v.sh);
		/* file offset of the symbol (perf: st_value - (p_vaddr - p_offset)) */
		ck_assert_uint_eq(s->st_value - (ph[0].p_vaddr - ph[0].p_offset), off[i]);
		ck_assert_uint_eq(s->st_size, sizes[i]);
		ck_assert_int_eq(memcmp(v.p + off[i], codes[i], sizes[i]), 0);
	}
	ck_assert_uint_eq(note->sh_type, SHT_NOTE);
	ck_assert_uint_eq(ld32(v.p + note->sh_offset + 4), 20);
	ck_assert_uint_eq(ld32(v.p + note->sh_offset + 8), NT_GNU_BUILD_ID);
	ck_assert_int_eq(memcmp(v.p + note->sh_offset + 12, "GNU", 4), 0);
	ck_assert_int_eq(memcmp(v.p + note->sh_offset + 16, id, 20), 0);
	ck_assert_uint_eq(ph[1].p_type, PT_NOTE);
	ck_assert_uint_eq(ph[1].p_offset, note->sh_offset);
	munmap(v.p, v.n);

	/* the build-id depends on the content */
	{
		uint8_t id2[20];

		ck_assert_int_eq(perfring_jit_elf_write(e, path, id2, &diag), 0);
		ck_assert_int_eq(memcmp(id, id2, 20), 0);
		ck_assert_int_eq(perfring_jit_elf_add(e, "more", code1, 4, NULL, &diag), 0);
		ck_assert_int_eq(perfring_jit_elf_write(e, path, id2, &diag), 0);
		ck_assert_int_ne(memcmp(id, id2, 20), 0);
	}
	perfring_jit_elf_free(e);

	/* an unwritable place: an error naming the file, nothing left */
	ck_assert_int_eq(perfring_jit_elf_new(0, &e), 0);
	ck_assert_int_eq(perfring_jit_elf_add(e, "f", code1, 4, NULL, &diag), 0);
	ck_assert_int_eq(perfring_jit_elf_write(e, "/nonexistent/dir/x.so", NULL, &diag), -ENOENT);
	ck_assert_ptr_nonnull(strstr(diag.file, "/nonexistent/dir/x.so"));
	perfring_jit_elf_free(e);
}
END_TEST

START_TEST(test_elf_symbols_only)
{
	struct perfring_jit_elf *e;
	struct perfring_diag diag;
	struct elf_view v;
	uint64_t o1, o2;
	char path[512];
	Elf64_Phdr *ph;
	Elf64_Shdr *text;

	ck_assert_int_eq(perfring_jit_elf_new(0, &e), 0);
	ck_assert_int_eq(perfring_jit_elf_add(e, "a", NULL, 0x100, &o1, &diag), 0);
	ck_assert_int_eq(perfring_jit_elf_add(e, "a", NULL, 0x100, &o2, &diag), 0);
	ck_assert_uint_ge(o2, o1 + 0x100);
	ck_assert_int_eq(perfring_jit_elf_add(e, "b", code1, 4, NULL, &diag), -EINVAL);
	snprintf(path, sizeof(path), "%s/map.jit.so", tmpdir);
	ck_assert_int_eq(perfring_jit_elf_write(e, path, NULL, &diag), 0);
	elf_map(path, &v);
	text = section(&v, ".text");
	ck_assert_uint_eq(text->sh_type, SHT_NOBITS);
	ck_assert_uint_eq(text->sh_size, o2 + 0x100 - o1);
	ph = (Elf64_Phdr *)(void *)(v.p + v.eh->e_phoff);
	ck_assert_uint_lt(ph[0].p_filesz, text->sh_offset);
	ck_assert_uint_eq(ph[0].p_memsz, text->sh_offset + text->sh_size);
	/* small: no space for the absent code */
	ck_assert_uint_lt(v.n, 0x1000 + 1024);
	munmap(v.p, v.n);
	perfring_jit_elf_free(e);
}
END_TEST

START_TEST(test_mmap2_encode)
{
	struct perfring_attr attr;
	struct perfring_sample_id sid;
	struct perfring_jit_mmap2 m = {
		.pid = 10, .tid = 11, .addr = 0x7f0000001000ull, .len = 0x40, .pgoff = 0x1010,
		.maj = 8, .min = 1, .ino = 99, .ino_generation = 0, .time = 123456789,
		.id = 77, .cpu = 1, .filename = "/x/perf.data.jit-10.so",
	};
	uint8_t buf[512];
	int n;

	memset(&attr, 0, sizeof(attr));
	attr.flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	attr.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			   PERFRING_SAMPLE_ID | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD;
	n = perfring_jit_mmap2_encode(&attr, &m, buf, sizeof(buf));
	/* 72 + 24 (name padded) + 32 (tid, time, id, cpu) */
	ck_assert_int_eq(n, 72 + 24 + 32);
	ck_assert_uint_eq(ld32(buf), PERFRING_RECORD_MMAP2);
	ck_assert_uint_eq(ld16(buf + 4), PERFRING_MISC_USER);
	ck_assert_uint_eq(ld16(buf + 6), n);
	ck_assert_uint_eq(ld64(buf + 16), m.addr);
	ck_assert_uint_eq(ld64(buf + 24), m.len);
	ck_assert_uint_eq(ld64(buf + 32), m.pgoff);
	ck_assert_uint_eq(ld64(buf + 48), 99);
	ck_assert_uint_eq(ld32(buf + 64), PROT_READ | PROT_EXEC);
	ck_assert_uint_eq(ld32(buf + 68), MAP_PRIVATE);
	ck_assert_str_eq((const char *)buf + 72, m.filename);
	ck_assert_int_eq(perfring_sample_id_decode(attr.sample_type, buf, (size_t)n, &sid), 0);
	ck_assert_uint_eq(sid.pid, 10);
	ck_assert_uint_eq(sid.tid, 11);
	ck_assert_uint_eq(sid.time, 123456789);
	ck_assert_uint_eq(sid.id, 77);
	ck_assert_uint_eq(sid.cpu, 1);
	ck_assert_int_eq(perfring_jit_mmap2_encode(&attr, &m, buf, (size_t)n - 1), -ENOSPC);
	attr.flags = 0;
	ck_assert_int_eq(perfring_jit_mmap2_encode(&attr, &m, buf, sizeof(buf)), 72 + 24);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jit");
	TCase *tc = tcase_create("jitdump");

	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_read_both_orders);
	tcase_add_test(tc, test_read_pipe);
	tcase_add_test(tc, test_cut_everywhere);
	tcase_add_test(tc, test_damage);
	tcase_add_test(tc, test_bad_header);
	tcase_add_test(tc, test_writer_roundtrip);
	tcase_add_test(tc, test_marker_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("perfmap");
	tcase_add_test(tc, test_perfmap);
	suite_add_tcase(s, tc);
	tc = tcase_create("elf");
	tcase_add_checked_fixture(tc, mk_tmpdir, rm_tmpdir);
	tcase_add_test(tc, test_elf_code);
	tcase_add_test(tc, test_elf_symbols_only);
	tcase_add_test(tc, test_mmap2_encode);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
