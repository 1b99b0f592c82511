/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin registry and the comm, mmap2 and task plugins: loading rules
 * and rejections, encode/decode round trips under every sample_id_all
 * trailer, byte-exact re-encoding of kernel-written records, formatting.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/plugin.h>

#include "perfdata_walk.h"
#include "testutil.h"

#ifndef BUILD_PLUGINS_PATH
#error "BUILD_PLUGINS_PATH must name the build tree's plugin directories"
#endif

static struct perfring_registry *reg;

/* Checked fixture: a registry with the three built plugins. */
static void setup_reg(void)
{
	struct perfring_diag d = { 0 };
	int ret;

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ret = perfring_registry_load_path(reg, BUILD_PLUGINS_PATH, &d);
	ck_assert_msg(ret == 3, "loading %s: %d: %s", BUILD_PLUGINS_PATH, ret, d.msg);
}

static void teardown_reg(void)
{
	perfring_registry_free(reg);
	reg = NULL;
}

static const struct perfring_plugin *plugin_for(uint32_t type)
{
	const struct perfring_plugin *p = perfring_registry_find(reg, type);

	ck_assert_msg(p != NULL, "no plugin for record type %u", type);
	return p;
}

static void set_attr(struct perfring_attr *a, bool sia, uint64_t trailer_bits)
{
	memset(a, 0, sizeof(*a));
	a->size = PERFRING_ATTR_SIZE_VER7;
	/* Non-trailer bits must not change the trailer. */
	a->sample_type = trailer_bits | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_PERIOD;
	a->flags = sia ? PERFRING_ATTR_SAMPLE_ID_ALL : 0;
}

/* The six trailer bits in trailer order; subset i of them. */
static uint64_t trailer_subset(unsigned i)
{
	static const uint64_t bits[6] = {
		PERFRING_SAMPLE_TID, PERFRING_SAMPLE_TIME, PERFRING_SAMPLE_ID,
		PERFRING_SAMPLE_STREAM_ID, PERFRING_SAMPLE_CPU, PERFRING_SAMPLE_IDENTIFIER,
	};
	uint64_t st = 0;

	for (unsigned b = 0; b < 6; b++)
		if (i & (1u << b))
			st |= bits[b];
	return st;
}

static void check_sid(const struct perfring_sample_id *want,
		      const struct perfring_sample_id *got, uint64_t st, bool sia)
{
	bool on = sia;

#define SID_FIELD(bit, f)							\
	ck_assert_uint_eq(got->f, on && (st & (bit)) ? want->f : 0)
	SID_FIELD(PERFRING_SAMPLE_TID, pid);
	SID_FIELD(PERFRING_SAMPLE_TID, tid);
	SID_FIELD(PERFRING_SAMPLE_TIME, time);
	SID_FIELD(PERFRING_SAMPLE_ID, id);
	SID_FIELD(PERFRING_SAMPLE_STREAM_ID, stream_id);
	SID_FIELD(PERFRING_SAMPLE_CPU, cpu);
	SID_FIELD(PERFRING_SAMPLE_IDENTIFIER, identifier);
#undef SID_FIELD
}

static const struct perfring_sample_id test_sid = {
	.pid = 0x1111, .tid = 0x2222, .time = 0x3333333333ull, .id = 0x44,
	.stream_id = 0x55, .cpu = 3, .res = 0, .identifier = 0x77,
};

/*
 * Encode typed as type, decode it back into out (out_size), check the
 * header and trailer, re-encode the decoded struct and compare the bytes.
 * Returns the record size; rec gets the first encoding.
 */
static int roundtrip(uint32_t type, const void *typed, void *out, size_t out_size,
		     const struct perfring_attr *attr, size_t body,
		     unsigned char *rec, size_t rec_len)
{
	const struct perfring_plugin *p = plugin_for(type);
	struct perfring_event_header h;
	struct perfring_sample_id sid;
	struct perfring_diag d = { 0 };
	unsigned char *again = malloc(rec_len), *exact;
	bool sia = attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL;
	size_t want = body + (sia ? perfring_sample_id_size(attr->sample_type) : 0);
	int n, m, ret;

	ck_assert_ptr_nonnull(again);
	n = perfring_plugin_encode(p, attr, type, typed, &test_sid, rec, rec_len);
	ck_assert_int_eq(n, (int)want);
	ck_assert_int_eq(n % 8, 0);
	memcpy(&h, rec, sizeof(h));
	ck_assert_uint_eq(h.type, type);
	ck_assert_uint_eq(h.size, (unsigned)n);
	/* Decode from an exact-size copy so ASan sees any overread. */
	exact = malloc((size_t)n);
	ck_assert_ptr_nonnull(exact);
	memcpy(exact, rec, (size_t)n);
	ret = perfring_plugin_decode(p, attr, exact, (size_t)n, out, out_size, &sid, &d);
	ck_assert_msg(ret == 0, "decode: %d: %s", ret, d.msg);
	check_sid(&test_sid, &sid, attr->sample_type, sia);
	m = perfring_plugin_encode(p, attr, type, out, &sid, again, rec_len);
	ck_assert_int_eq(m, n);
	ck_assert_msg(memcmp(again, rec, (size_t)n) == 0,
		      "type %u: decode then encode changed the bytes", type);
	/* The formatters accept what the encoder wrote. */
	ck_assert_int_gt(perfring_plugin_format_text(p, attr, exact, (size_t)n, NULL, 0), 0);
	ck_assert_int_gt(perfring_plugin_format_json(p, attr, exact, (size_t)n, NULL, 0), 0);
	/* A NULL-terminated view of out's pointers must not outlive exact. */
	if (type == PERFRING_RECORD_MMAP2 || type == PERFRING_RECORD_MMAP) {
		struct perfring_mmap2 *mm = out;

		ck_assert_ptr_eq(mm->filename, (const char *)exact +
				 (type == PERFRING_RECORD_MMAP2 ? 72 : 40));
		/* Re-point it into rec, which the caller keeps. */
		mm->filename = (const char *)rec + (mm->filename - (const char *)exact);
	}
	free(exact);
	free(again);
	return n;
}

/* Every subset of the six trailer bits, and no sample_id_all at all. */
#define FOR_EACH_TRAILER(attr)							\
	for (unsigned sub_ = 0; sub_ <= 64; sub_++)				\
		if (set_attr(&(attr), sub_ < 64, sub_ < 64 ? trailer_subset(sub_) : 0), 1)

START_TEST(test_roundtrip_comm)
{
	static const char *const names[] = { "", "ls", "1234567", "12345678",
					     "123456789012345" };
	unsigned char rec[256];
	struct perfring_attr attr;
	int nrec = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (int exec = 0; exec < 2; exec++) {
			FOR_EACH_TRAILER(attr) {
				struct perfring_comm c = PERFRING_COMM_INIT, out;
				size_t len = strlen(names[i]);

				c.pid = 100 + (uint32_t)i;
				c.tid = 200 + (uint32_t)i;
				c.exec = exec;
				snprintf(c.comm, sizeof(c.comm), "%s", names[i]);
				roundtrip(PERFRING_RECORD_COMM, &c, &out, sizeof(out), &attr,
					  16 + ((len + 1 + 7) & ~7u), rec, sizeof(rec));
				ck_assert_uint_eq(out.pid, c.pid);
				ck_assert_uint_eq(out.tid, c.tid);
				ck_assert_str_eq(out.comm, c.comm);
				ck_assert_int_eq(out.exec, exec);
				ck_assert_uint_eq(out.misc, PERFRING_MISC_USER |
						  (exec ? PERFRING_MISC_COMM_EXEC : 0));
				nrec++;
			}
		}
	}
	ck_assert_int_eq(nrec, 5 * 2 * 65);
}
END_TEST

static void check_mmap2_eq(const struct perfring_mmap2 *a, const struct perfring_mmap2 *b,
			   uint32_t type)
{
	ck_assert_uint_eq(a->pid, b->pid);
	ck_assert_uint_eq(a->tid, b->tid);
	ck_assert_uint_eq(a->addr, b->addr);
	ck_assert_uint_eq(a->len, b->len);
	ck_assert_uint_eq(a->pgoff, b->pgoff);
	ck_assert_uint_eq(a->misc, b->misc);
	ck_assert_uint_eq(a->filename_len, b->filename_len);
	ck_assert(memcmp(a->filename, b->filename, a->filename_len) == 0);
	if (type != PERFRING_RECORD_MMAP2)
		return;
	ck_assert_uint_eq(a->prot, b->prot);
	ck_assert_uint_eq(a->flags, b->flags);
	if (a->misc & PERFRING_MISC_MMAP_BUILD_ID) {
		ck_assert_uint_eq(a->build_id_size, b->build_id_size);
		ck_assert(memcmp(a->build_id, b->build_id, PERFRING_BUILD_ID_SIZE) == 0);
	} else {
		ck_assert_uint_eq(a->maj, b->maj);
		ck_assert_uint_eq(a->min, b->min);
		ck_assert_uint_eq(a->ino, b->ino);
		ck_assert_uint_eq(a->ino_generation, b->ino_generation);
	}
}

START_TEST(test_roundtrip_mmap2)
{
	static const char *const files[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
					     "[vdso]", "//anon", "1234567", "" };
	unsigned char rec[512];
	struct perfring_attr attr;
	int nrec = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		/* 0: MMAP2 inode form, 1: build-id form, 2: data, 3: MMAP */
		for (int form = 0; form < 4; form++) {
			FOR_EACH_TRAILER(attr) {
				struct perfring_mmap2 m = PERFRING_MMAP2_INIT, out;
				uint32_t type = form == 3 ? PERFRING_RECORD_MMAP
							  : PERFRING_RECORD_MMAP2;
				size_t fixed = form == 3 ? 40 : 72;

				m.pid = 4242;
				m.tid = 4243 + (uint32_t)i;
				m.addr = 0x7f0000001000ull + i;
				m.len = 0x156000;
				m.pgoff = 0x26000;
				m.maj = 0xfe;
				m.min = 1;
				m.ino = 332835;
				m.ino_generation = 510959478;
				m.prot = 5;
				m.flags = 2;
				m.filename = files[i];
				m.filename_len = strlen(files[i]);
				if (form == 1) {
					m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
					m.maj = m.min = 0;
					m.ino = m.ino_generation = 0;
					m.build_id_size = 20 - (uint8_t)i;
					for (int b = 0; b < 20; b++)
						m.build_id[b] = b < m.build_id_size ?
							(uint8_t)(0xa0 + b) : 0;
				} else if (form == 2) {
					m.misc |= PERFRING_MISC_MMAP_DATA;
					m.prot = 3;
				}
				roundtrip(type, &m, &out, sizeof(out), &attr,
					  fixed + ((m.filename_len + 1 + 7) & ~7u),
					  rec, sizeof(rec));
				check_mmap2_eq(&m, &out, type);
				nrec++;
			}
		}
	}
	ck_assert_int_eq(nrec, 5 * 4 * 65);
}
END_TEST

START_TEST(test_roundtrip_task)
{
	static const uint32_t types[] = { PERFRING_RECORD_FORK, PERFRING_RECORD_EXIT };
	unsigned char rec[128];
	struct perfring_attr attr;
	int nrec = 0;

	for (int t = 0; t < 2; t++) {
		FOR_EACH_TRAILER(attr) {
			struct perfring_task k = {
				.pid = 20628, .ppid = 20626, .tid = 20629, .ptid = 20627,
				.time = 410079964693ull + (uint64_t)t,
			}, out;

			roundtrip(types[t], &k, &out, sizeof(out), &attr, 32, rec, sizeof(rec));
			ck_assert_uint_eq(out.pid, k.pid);
			ck_assert_uint_eq(out.ppid, k.ppid);
			ck_assert_uint_eq(out.tid, k.tid);
			ck_assert_uint_eq(out.ptid, k.ptid);
			ck_assert_uint_eq(out.time, k.time);
			ck_assert_uint_eq(out.misc, 0);
			nrec++;
		}
	}
	ck_assert_int_eq(nrec, 2 * 65);
}
END_TEST

/*
 * Every truncation of every record shape: the decoder and formatters
 * return -EBADMSG (or succeed on a shorter but consistent record) and never
 * read outside the record (ASan builds check that).
 */
START_TEST(test_truncated)
{
	struct perfring_comm c = PERFRING_COMM_INIT;
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT;
	struct perfring_task k = { .pid = 1, .ppid = 2, .tid = 1, .ptid = 2 };
	struct {
		uint32_t type;
		const void *typed;
	} cases[] = {
		{ PERFRING_RECORD_COMM, &c }, { PERFRING_RECORD_MMAP2, &m },
		{ PERFRING_RECORD_MMAP, &m }, { PERFRING_RECORD_FORK, &k },
	};
	union {
		struct perfring_comm c;
		struct perfring_mmap2 m;
		struct perfring_task k;
	} out;
	struct perfring_attr attr;
	unsigned char rec[256];
	int bad = 0;

	strcpy(c.comm, "truncate");
	m.filename = "/lib/x";
	m.filename_len = 6;
	set_attr(&attr, true, PERFRING_SAMPLE_ID_ALL_BITS);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct perfring_plugin *p = plugin_for(cases[i].type);
		int n = perfring_plugin_encode(p, &attr, cases[i].type, cases[i].typed,
					       &test_sid, rec, sizeof(rec));

		ck_assert_int_gt(n, 0);
		for (int len = 8; len < n; len++) {
			unsigned char *t = malloc((size_t)len);
			struct perfring_diag d = { 0 };
			uint16_t sz = (uint16_t)len;
			int r;

			memcpy(t, rec, (size_t)len);
			memcpy(t + 6, &sz, 2);
			r = perfring_plugin_decode(p, &attr, t, (size_t)len, &out,
						   sizeof(out), NULL, &d);
			/*
			 * A cut inside the padding after a string's NUL still
			 * leaves a consistent record; anything else is refused.
			 */
			ck_assert_msg(r == -EBADMSG || r == 0, "type %u len %d: %d",
				      cases[i].type, len, r);
			if (r == 0) {
				ck_assert_int_gt(perfring_plugin_format_text(p, &attr, t,
						(size_t)len, NULL, 0), 0);
				free(t);
				continue;
			}
			ck_assert(d.msg[0] != '\0');
			ck_assert_int_eq(perfring_plugin_format_text(p, &attr, t, (size_t)len,
								     NULL, 0), -EBADMSG);
			ck_assert_int_eq(perfring_plugin_format_json(p, &attr, t, (size_t)len,
								     NULL, 0), -EBADMSG);
			/* Header size disagreeing with the buffer size. */
			ck_assert_int_eq(perfring_plugin_decode(p, &attr, rec, (size_t)n - 8,
								&out, sizeof(out), NULL, NULL),
					 -EBADMSG);
			free(t);
			bad++;
		}
	}
	ck_assert_int_gt(bad, 100);
}
END_TEST

/*
 * Random bytes under a valid header, for every claimed type and random
 * trailers: decode and format return 0 or -EBADMSG and stay inside the
 * record (ASan builds check that); whatever decodes re-encodes to a record
 * that decodes to the same struct.
 */
START_TEST(test_random_bytes)
{
	static const uint32_t types[] = { PERFRING_RECORD_COMM, PERFRING_RECORD_MMAP,
					  PERFRING_RECORD_MMAP2, PERFRING_RECORD_FORK,
					  PERFRING_RECORD_EXIT };
	unsigned int seed = 12345;
	unsigned decoded = 0, rejected = 0;
	int iters = (int)test_scaled(20000);
	for (int it = 0; it < iters; it++) {
		uint32_t type = types[rand_r(&seed) % 5];
		const struct perfring_plugin *p = plugin_for(type);
		struct perfring_attr attr;
		size_t size = 8 + (size_t)(rand_r(&seed) % 160);
		unsigned char *rec = malloc(size), again[512];
		struct perfring_event_header h = { type, (uint16_t)rand_r(&seed), (uint16_t)size };
		union {
			struct perfring_comm c;
			struct perfring_mmap2 m;
			struct perfring_task k;
		} out, out2;
		int r, n;

		set_attr(&attr, rand_r(&seed) & 1, trailer_subset((unsigned)rand_r(&seed) % 64));
		for (size_t i = 8; i < size; i++)
			rec[i] = (rand_r(&seed) & 3) ? 0 : (unsigned char)rand_r(&seed);
		memcpy(rec, &h, sizeof(h));
		r = perfring_plugin_decode(p, &attr, rec, size, &out, sizeof(out), NULL, NULL);
		ck_assert_msg(r == 0 || r == -EBADMSG, "type %u size %zu: %d", type, size, r);
		n = perfring_plugin_format_text(p, &attr, rec, size, NULL, 0);
		ck_assert_int_eq(n < 0, r < 0);
		n = perfring_plugin_format_json(p, &attr, rec, size, NULL, 0);
		ck_assert_int_eq(n < 0, r < 0);
		if (r == 0) {
			/* Build-id size byte may exceed 20 only if rejected above. */
			n = perfring_plugin_encode(p, &attr, type, &out, NULL, again, sizeof(again));
			decoded++;
			if (type == PERFRING_RECORD_MMAP2 && out.m.prot > 0xff) {
				/* not PROT_* bits: it would read back as the
				 * early layout, so it is not written */
				ck_assert_int_eq(n, -EINVAL);
				free(rec);
				continue;
			}
			ck_assert_int_gt(n, 0);
			ck_assert_int_eq(perfring_plugin_decode(p, &attr, again, (size_t)n, &out2,
								sizeof(out2), NULL, NULL), 0);
		} else {
			rejected++;
		}
		free(rec);
	}
	ck_assert_uint_gt(decoded, 0);
	ck_assert_uint_gt(rejected, 0);
}
END_TEST

START_TEST(test_malformed)
{
	const struct perfring_plugin *pc = plugin_for(PERFRING_RECORD_COMM);
	const struct perfring_plugin *pm = plugin_for(PERFRING_RECORD_MMAP2);
	struct perfring_comm c = PERFRING_COMM_INIT, co;
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT, mo;
	struct perfring_diag d = { 0 };
	unsigned char rec[256];
	int n;

	/* A COMM name without its NUL: offset 16 is reported. */
	strcpy(c.comm, "1234567");
	n = perfring_plugin_encode(pc, NULL, PERFRING_RECORD_COMM, &c, NULL, rec, sizeof(rec));
	ck_assert_int_eq(n, 24);
	rec[23] = 'x';
	ck_assert_int_eq(perfring_plugin_decode(pc, NULL, rec, 24, &co, sizeof(co), NULL, &d),
			 -EBADMSG);
	ck_assert(d.has_offset);
	ck_assert_uint_eq(d.offset, 16);
	ck_assert_ptr_nonnull(strstr(d.msg, "NUL"));
	/* Output struct too small. */
	rec[23] = 0;
	ck_assert_int_eq(perfring_plugin_decode(pc, NULL, rec, 24, &co, sizeof(co) - 1,
						NULL, NULL), -EINVAL);
	/* Not the plugin's record type. */
	ck_assert_int_eq(perfring_plugin_decode(pm, NULL, rec, 24, &mo, sizeof(mo),
						NULL, NULL), -EINVAL);
	ck_assert_int_eq(perfring_plugin_encode(pc, NULL, PERFRING_RECORD_MMAP2, &c, NULL,
						rec, sizeof(rec)), -EINVAL);
	/* Build-id size above 20. */
	m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
	m.build_id_size = 20;
	m.filename = "f";
	m.filename_len = 1;
	n = perfring_plugin_encode(pm, NULL, PERFRING_RECORD_MMAP2, &m, NULL, rec, sizeof(rec));
	ck_assert_int_eq(n, 80);
	rec[40] = 21;
	ck_assert_int_eq(perfring_plugin_decode(pm, NULL, rec, 80, &mo, sizeof(mo), NULL, &d),
			 -EBADMSG);
	ck_assert_uint_eq(d.offset, 40);
	m.build_id_size = 21;
	ck_assert_int_eq(perfring_plugin_encode(pm, NULL, PERFRING_RECORD_MMAP2, &m, NULL,
						rec, sizeof(rec)), -EINVAL);
	/* No plugin: every call says so. */
	ck_assert_int_eq(perfring_plugin_decode(NULL, NULL, rec, 80, &mo, sizeof(mo), NULL,
						NULL), -EOPNOTSUPP);
	ck_assert_ptr_null(perfring_registry_find(reg, PERFRING_RECORD_SWITCH));
}
END_TEST

START_TEST(test_comm_limits)
{
	const struct perfring_plugin *p = plugin_for(PERFRING_RECORD_COMM);
	struct perfring_comm c = PERFRING_COMM_INIT, out;
	unsigned char rec[64];
	int n;

	/* A 16-byte array without NUL: cut to 15 bytes, 16-byte name slot. */
	memcpy(c.comm, "0123456789abcdefXXXX", PERFRING_COMM_LEN);
	n = perfring_plugin_encode(p, NULL, PERFRING_RECORD_COMM, &c, NULL, rec, sizeof(rec));
	ck_assert_int_eq(n, 32);
	ck_assert_int_eq(rec[16 + 15], 0);
	ck_assert_int_eq(perfring_plugin_decode(p, NULL, rec, (size_t)n, &out, sizeof(out),
						NULL, NULL), 0);
	ck_assert_str_eq(out.comm, "0123456789abcde");
	/* A longer name on the wire (the kernel never writes one) is cut. */
	{
		unsigned char big[48] = { 0 };
		struct perfring_event_header h = { PERFRING_RECORD_COMM, 0, 40 };

		memcpy(big, &h, 8);
		memcpy(big + 16, "abcdefghijklmnopqrstu", 21);
		ck_assert_int_eq(perfring_plugin_decode(p, NULL, big, 40, &out, sizeof(out),
							NULL, NULL), 0);
		ck_assert_str_eq(out.comm, "abcdefghijklmno");
		ck_assert_int_eq(out.exec, 0);
		ck_assert_uint_eq(out.misc, 0);
	}
	/* ENOSPC, never a partial write past len. */
	memset(rec, 0xee, sizeof(rec));
	ck_assert_int_eq(perfring_plugin_encode(p, NULL, PERFRING_RECORD_COMM, &c, NULL, rec, 31),
			 -ENOSPC);
	/* Zero-initialised struct: the kernel's cpumode 0. */
	memset(&c, 0, sizeof(c));
	c.exec = true;
	n = perfring_plugin_encode(p, NULL, PERFRING_RECORD_COMM, &c, NULL, rec, sizeof(rec));
	ck_assert_int_eq(n, 24);
	ck_assert_uint_eq(((struct perfring_event_header *)rec)->misc, PERFRING_MISC_COMM_EXEC);
}
END_TEST

START_TEST(test_mmap2_limits)
{
	const struct perfring_plugin *p = plugin_for(PERFRING_RECORD_MMAP2);
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT, out;
	struct perfring_attr attr;
	size_t big = 70000, room = 72 * 1024;
	char *name = malloc(big);
	unsigned char *rec = malloc(room);
	int n;

	ck_assert_ptr_nonnull(name);
	ck_assert_ptr_nonnull(rec);
	memset(name, 'a', big);
	name[0] = '/';
	m.filename = name;
	/* A PATH_MAX path (4095 bytes + NUL) fits. */
	m.filename_len = PATH_MAX - 1;
	set_attr(&attr, true, PERFRING_SAMPLE_ID_ALL_BITS);
	n = perfring_plugin_encode(p, &attr, PERFRING_RECORD_MMAP2, &m, &test_sid, rec, room);
	ck_assert_int_eq(n, 72 + PATH_MAX + 48);
	ck_assert_int_eq(perfring_plugin_decode(p, &attr, rec, (size_t)n, &out, sizeof(out),
						NULL, NULL), 0);
	ck_assert_uint_eq(out.filename_len, PATH_MAX - 1);
	/* The largest record: 72 + 65456 = 65528 bytes without trailer. */
	m.filename_len = 65528 - 72 - 8;
	n = perfring_plugin_encode(p, NULL, PERFRING_RECORD_MMAP2, &m, NULL, rec, room);
	ck_assert_int_eq(n, 65528);
	/* The same with a trailer no longer fits in u16: refused, not cut. */
	ck_assert_int_eq(perfring_plugin_encode(p, &attr, PERFRING_RECORD_MMAP2, &m, &test_sid,
						rec, room), -EMSGSIZE);
	m.filename_len = big;
	ck_assert_int_eq(perfring_plugin_encode(p, NULL, PERFRING_RECORD_MMAP2, &m, NULL,
						rec, room), -EMSGSIZE);
	m.filename_len = (size_t)-1;
	ck_assert_int_eq(perfring_plugin_encode(p, NULL, PERFRING_RECORD_MMAP2, &m, NULL,
						rec, room), -EMSGSIZE);
	/* A filename_len past an embedded NUL stops at the NUL. */
	m.filename = "abc\0def";
	m.filename_len = 7;
	n = perfring_plugin_encode(p, NULL, PERFRING_RECORD_MMAP2, &m, NULL, rec, room);
	ck_assert_int_eq(n, 80);
	m.filename = NULL;
	ck_assert_int_eq(perfring_plugin_encode(p, NULL, PERFRING_RECORD_MMAP2, &m, NULL,
						rec, room), -EINVAL);
	free(name);
	free(rec);
}
END_TEST

/* ---- kernel-written records ---------------------------------------------- */

#define FIXTURE FIXTURES_DIR "/sideband.data"

static bool is_sideband(uint32_t type)
{
	return type == PERFRING_RECORD_COMM || type == PERFRING_RECORD_MMAP ||
	       type == PERFRING_RECORD_MMAP2 || type == PERFRING_RECORD_FORK ||
	       type == PERFRING_RECORD_EXIT;
}

START_TEST(test_kernel_bytes)
{
	struct pdw_file f;
	char err[256];
	const void *rec;
	size_t size;
	uint64_t pos = 0;
	unsigned count[PERFRING_RECORD_KERNEL_MAX] = { 0 }, comm_exec = 0;
	unsigned char again[8192];
	int ret;

	ret = pdw_open(FIXTURE, &f, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s: %s", FIXTURE, err);
	while ((ret = pdw_next(&f, &pos, &rec, &size)) == 1) {
		const struct pdw_attr *a;
		const struct perfring_plugin *p;
		union {
			struct perfring_comm c;
			struct perfring_mmap2 m;
			struct perfring_task k;
		} out;
		struct perfring_sample_id sid;
		struct perfring_diag d = { 0 };
		struct perfring_event_header h;
		int n;

		memcpy(&h, rec, sizeof(h));
		if (!is_sideband(h.type))
			continue;
		a = pdw_attr_of(&f, rec, size);
		ck_assert_ptr_nonnull(a);
		ck_assert(a->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL);
		p = plugin_for(h.type);
		ret = perfring_plugin_decode(p, &a->attr, rec, size, &out, sizeof(out), &sid, &d);
		ck_assert_msg(ret == 0, "record at data offset 0x%llx: %d: %s",
			      (unsigned long long)pos, ret, d.msg);
		n = perfring_plugin_encode(p, &a->attr, h.type, &out, &sid, again, sizeof(again));
		ck_assert_int_eq(n, (int)size);
		ck_assert_msg(memcmp(again, rec, size) == 0,
			      "type %u record at data offset 0x%llx re-encodes differently",
			      h.type, (unsigned long long)pos);
		/* The trailer is the emitting context: parent for FORK. */
		if (h.type == PERFRING_RECORD_FORK)
			ck_assert_uint_eq(sid.pid, out.k.ppid);
		if (h.type == PERFRING_RECORD_EXIT)
			ck_assert_uint_eq(sid.pid, out.k.pid);
		if (h.type == PERFRING_RECORD_COMM && out.c.exec)
			comm_exec++;
		count[h.type]++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_ge(count[PERFRING_RECORD_COMM], 3);
	ck_assert_uint_ge(comm_exec, 3);
	ck_assert_uint_gt(count[PERFRING_RECORD_COMM], comm_exec);	/* synthesised one */
	ck_assert_uint_ge(count[PERFRING_RECORD_FORK], 2);
	ck_assert_uint_ge(count[PERFRING_RECORD_EXIT], 3);
	ck_assert_uint_ge(count[PERFRING_RECORD_MMAP2], 8);
	ck_assert_uint_ge(count[PERFRING_RECORD_MMAP], 1);
	pdw_close(&f);
}
END_TEST

/*
 * Our text matches what `perf report -D` prints after PERF_RECORD_<NAME>
 * for every side-band record of the fixture.
 */
START_TEST(test_kernel_text_vs_perf)
{
	const char *perf = getenv("PERF");
	struct pdw_file f;
	char err[256], cmd[1024], line[8192];
	unsigned matched = 0, sideband = 0;
	const void *rec;
	size_t size;
	uint64_t pos = 0;
	FILE *fp;
	int ret;

	if (!perf || !*perf)
		perf = "perf";
	ck_assert_int_eq(pdw_open(FIXTURE, &f, err, sizeof(err)), 0);
	while ((ret = pdw_next(&f, &pos, &rec, &size)) == 1)
		sideband += is_sideband(((const struct perfring_event_header *)rec)->type);
	snprintf(cmd, sizeof(cmd), "'%s' report -f -D -i '%s' 2>/dev/null", perf, FIXTURE);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	while (fgets(line, sizeof(line), fp)) {
		char *s = strstr(line, " PERF_RECORD_"), *rest, *nl;
		unsigned long long off;
		char name[32], ours[8192];
		const struct pdw_attr *a;
		const struct perfring_plugin *p;
		uint32_t type;
		int k = 0;

		if (!s || sscanf(line, "%*s %*s 0x%llx [0x%*x]:", &off) != 1)
			continue;
		s += strlen(" PERF_RECORD_");
		while (k < 31 && ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
				  s[k] == '_')) {
			name[k] = s[k];
			k++;
		}
		name[k] = '\0';
		if (perfring_record_type_from_name(name, &type) < 0 || !is_sideband(type))
			continue;
		rest = s + k;
		while (*rest == ':' || *rest == ' ')
			rest++;
		nl = strchr(rest, '\n');
		if (nl)
			*nl = '\0';
		ck_assert(off >= f.data_offset && off < f.data_offset + f.data_size);
		rec = f.buf + off;
		size = ((const struct perfring_event_header *)rec)->size;
		ck_assert_uint_eq(((const struct perfring_event_header *)rec)->type, type);
		a = pdw_attr_of(&f, rec, size);
		p = plugin_for(type);
		ck_assert_int_gt(perfring_plugin_format_text(p, &a->attr, rec, size, ours,
							     sizeof(ours)), 0);
		ck_assert_msg(strcmp(ours, rest) == 0, "%s at 0x%llx: perf \"%s\", ours \"%s\"",
			      name, off, rest, ours);
		matched++;
	}
	ck_assert_int_eq(pclose(fp), 0);
	ck_assert_uint_eq(matched, sideband);
	pdw_close(&f);
}
END_TEST

/* ---- formatting ------------------------------------------------------------ */

START_TEST(test_format)
{
	const struct perfring_plugin *pc = plugin_for(PERFRING_RECORD_COMM);
	const struct perfring_plugin *pm = plugin_for(PERFRING_RECORD_MMAP2);
	const struct perfring_plugin *pt = plugin_for(PERFRING_RECORD_FORK);
	struct perfring_comm c = PERFRING_COMM_INIT;
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT;
	struct perfring_task k = { .pid = 7, .ppid = 6, .tid = 8, .ptid = 9, .time = 12345 };
	struct perfring_attr attr;
	unsigned char rec[256];
	char buf[512], want[512], small[8];
	int n, len;

	set_attr(&attr, true, PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME);
	c.pid = 42;
	c.tid = 43;
	c.exec = true;
	strcpy(c.comm, "a\"b\\c\td");
	n = perfring_plugin_encode(pc, &attr, PERFRING_RECORD_COMM, &c, &test_sid, rec, sizeof(rec));
	ck_assert_int_gt(n, 0);
	ck_assert_int_gt(perfring_plugin_format_text(pc, &attr, rec, (size_t)n, buf, sizeof(buf)), 0);
	/* Text escapes backslash and control bytes: one line, no escapes sent. */
	ck_assert_str_eq(buf, "exec: a\"b\\\\c\\td:42/43");
	strcpy(c.comm, "x\ny\033z");
	n = perfring_plugin_encode(pc, &attr, PERFRING_RECORD_COMM, &c, &test_sid, rec, sizeof(rec));
	ck_assert_int_gt(n, 0);
	perfring_plugin_format_text(pc, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "exec: x\\ny\\x1bz:42/43");
	strcpy(c.comm, "a\"b\\c\td");
	n = perfring_plugin_encode(pc, &attr, PERFRING_RECORD_COMM, &c, &test_sid, rec, sizeof(rec));
	ck_assert_int_gt(n, 0);
	snprintf(want, sizeof(want), "exec: %s:%u/%u", "a\"b\\\\c\\td", c.pid, c.tid);
	perfring_plugin_format_text(pc, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, want);
	len = perfring_plugin_format_json(pc, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"pid\":42,\"tid\":43,\"comm\":\"a\\\"b\\\\c\\td\",\"exec\":true");
	ck_assert_int_eq(len, (int)strlen(buf));
	/* snprintf semantics: truncated, terminated, full length returned. */
	ck_assert_int_eq(perfring_plugin_format_json(pc, &attr, rec, (size_t)n, small,
						     sizeof(small)), len);
	ck_assert_str_eq(small, "\"pid\":4");

	m.pid = 1;
	m.tid = 2;
	m.addr = 0x7f0000001000ull;
	m.len = 0x2000;
	m.pgoff = 0;
	m.maj = 0xfe;
	m.min = 0;
	m.ino = 99;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/lib/x.so";
	m.filename_len = strlen(m.filename);
	n = perfring_plugin_encode(pm, &attr, PERFRING_RECORD_MMAP2, &m, NULL, rec, sizeof(rec));
	perfring_plugin_format_text(pm, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1/2: [0x7f0000001000(0x2000) @ 0 fe:00 99 0]: r-xp /lib/x.so");
	perfring_plugin_format_json(pm, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"pid\":1,\"tid\":2,\"addr\":\"0x7f0000001000\",\"len\":\"0x2000\","
			 "\"pgoff\":\"0x0\",\"maj\":254,\"min\":0,\"ino\":99,\"ino_generation\":0,"
			 "\"prot\":5,\"flags\":2,\"filename\":\"/lib/x.so\"");
	m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
	m.build_id_size = 2;
	m.build_id[0] = 0xab;
	m.build_id[1] = 0x01;
	n = perfring_plugin_encode(pm, &attr, PERFRING_RECORD_MMAP2, &m, NULL, rec, sizeof(rec));
	perfring_plugin_format_json(pm, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, ",\"build_id\":\"ab01\",\"prot\":5"));
	ck_assert_ptr_null(strstr(buf, "\"ino\""));
	perfring_plugin_format_text(pm, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1/2: [0x7f0000001000(0x2000) @ 0 <ab01>]: r-xp /lib/x.so");

	n = perfring_plugin_encode(pt, &attr, PERFRING_RECORD_EXIT, &k, NULL, rec, sizeof(rec));
	perfring_plugin_format_text(pt, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "(7:8):(6:9)");
	perfring_plugin_format_json(pt, &attr, rec, (size_t)n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"pid\":7,\"ppid\":6,\"tid\":8,\"ptid\":9,\"time\":12345");
}
END_TEST

START_TEST(test_format_helpers)
{
	const unsigned char bytes[] = { 0x04, 0x00, 0xab, 0xff };
	char buf[64];

	ck_assert_int_eq(perfring_format_raw_hex(bytes, sizeof(bytes), buf, sizeof(buf)), 11);
	ck_assert_str_eq(buf, "04 00 ab ff");
	ck_assert_int_eq(perfring_format_raw_hex(bytes, sizeof(bytes), buf, 6), 11);
	ck_assert_str_eq(buf, "04 00");
	ck_assert_int_eq(perfring_format_raw_hex(bytes, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");

	/* Valid UTF-8 passes; invalid bytes and controls are escaped. */
	perfring_format_json_string("caf\xc3\xa9", 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"caf\xc3\xa9\"");
	perfring_format_json_string("a\xff\x01\n\xc3", 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"a\\u00ff\\u0001\\n\\u00c3\"");
	/* Overlong encoding and surrogate are not valid UTF-8. */
	perfring_format_json_string("\xc0\xaf\xed\xa0\x80", 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"\\u00c0\\u00af\\u00ed\\u00a0\\u0080\"");
	/* Stops at n or at a NUL. */
	ck_assert_int_eq(perfring_format_json_string("abc\0def", 7, buf, sizeof(buf)), 5);
	ck_assert_int_eq(perfring_format_json_string("abcdef", 2, buf, sizeof(buf)), 4);
	ck_assert_str_eq(buf, "\"ab\"");
}
END_TEST

/* ---- the loader -------------------------------------------------------------- */

#define TEST_PLUGIN(name) TEST_PLUGINS_DIR "/" name ".la"

/* Load path into a fresh registry; return the error and the formatted diag. */
static int load_one(const char *path, char *msg, size_t len)
{
	struct perfring_registry *r;
	struct perfring_diag d = { 0 };
	int ret;

	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ret = perfring_registry_load_file(r, path, &d);
	perfring_diag_format(&d, msg, len);
	if (ret < 0) {
		ck_assert_int_eq(d.error, ret);
		ck_assert_uint_eq(perfring_registry_count(r), 0);
	}
	perfring_registry_free(r);
	return ret;
}

static void assert_has(const char *msg, const char *what)
{
	ck_assert_msg(strstr(msg, what) != NULL, "\"%s\" does not mention \"%s\"", msg, what);
}

START_TEST(test_load_builtin)
{
	const struct perfring_plugin *p;
	const uint32_t *types;
	unsigned maj, min;

	ck_assert_uint_eq(perfring_registry_count(reg), 3);
	p = plugin_for(PERFRING_RECORD_COMM);
	ck_assert_str_eq(perfring_plugin_name(p), "comm");
	ck_assert_int_eq(perfring_plugin_kind(p), PERFRING_PLUGIN_KIND_RECORD);
	ck_assert_str_eq(perfring_plugin_kind_name(perfring_plugin_kind(p)), "record");
	ck_assert_uint_eq(perfring_plugin_types(p, &types), 1);
	ck_assert_uint_eq(types[0], PERFRING_RECORD_COMM);
	perfring_plugin_abi(p, &maj, &min);
	ck_assert_uint_eq(maj, PERFRING_PLUGIN_ABI_MAJOR);
	ck_assert_uint_eq(min, PERFRING_PLUGIN_ABI_MINOR);
	assert_has(perfring_plugin_file(p), "/plugins/comm/comm.la");
	ck_assert_ptr_eq(perfring_plugin_borrow_descriptor(p)->name, perfring_plugin_name(p));
	ck_assert_ptr_eq(plugin_for(PERFRING_RECORD_MMAP), plugin_for(PERFRING_RECORD_MMAP2));
	ck_assert_ptr_eq(plugin_for(PERFRING_RECORD_FORK), plugin_for(PERFRING_RECORD_EXIT));
	ck_assert_str_eq(perfring_plugin_name(plugin_for(PERFRING_RECORD_FORK)), "task");
	/* Unclaimed types have no plugin. */
	ck_assert_ptr_null(perfring_registry_find(reg, PERFRING_RECORD_SAMPLE));
	ck_assert_ptr_null(perfring_registry_find(reg, 200));
	/* Iteration covers every plugin once, in load order. */
	ck_assert_str_eq(perfring_plugin_name(perfring_registry_plugin_at(reg, 0)), "comm");
	ck_assert_str_eq(perfring_plugin_name(perfring_registry_plugin_at(reg, 1)), "mmap2");
	ck_assert_str_eq(perfring_plugin_name(perfring_registry_plugin_at(reg, 2)), "task");
	ck_assert_ptr_null(perfring_registry_plugin_at(reg, 3));
	/* Loading the same files again is a no-op, not a duplicate claim. */
	ck_assert_int_eq(perfring_registry_load_path(reg, BUILD_PLUGINS_PATH, NULL), 0);
	ck_assert_uint_eq(perfring_registry_count(reg), 3);
}
END_TEST

START_TEST(test_reject_major)
{
	char msg[1024], v[32];

	ck_assert_int_eq(load_one(TEST_PLUGIN("badmajor"), msg, sizeof(msg)), -EPROTO);
	assert_has(msg, TEST_PLUGIN("badmajor"));
	snprintf(v, sizeof(v), "%d.0", PERFRING_PLUGIN_ABI_MAJOR + 1);
	assert_has(msg, v);
	snprintf(v, sizeof(v), "%d.%d", PERFRING_PLUGIN_ABI_MAJOR, PERFRING_PLUGIN_ABI_MINOR);
	assert_has(msg, v);
}
END_TEST

START_TEST(test_reject_minor)
{
	char msg[1024], v[32];

	ck_assert_int_eq(load_one(TEST_PLUGIN("newminor"), msg, sizeof(msg)), -EPROTO);
	assert_has(msg, TEST_PLUGIN("newminor"));
	snprintf(v, sizeof(v), "%d.%d", PERFRING_PLUGIN_ABI_MAJOR, PERFRING_PLUGIN_ABI_MINOR + 1);
	assert_has(msg, v);
	snprintf(v, sizeof(v), "%d.%d", PERFRING_PLUGIN_ABI_MAJOR, PERFRING_PLUGIN_ABI_MINOR);
	assert_has(msg, v);
	assert_has(msg, "newer");
}
END_TEST

START_TEST(test_reject_others)
{
	char msg[1024];

	ck_assert_int_eq(load_one(TEST_PLUGIN("nosymbol"), msg, sizeof(msg)), -ELIBBAD);
	assert_has(msg, TEST_PLUGIN("nosymbol"));
	assert_has(msg, "not a perfring plugin (no perfring_plugin_descriptor symbol)");

	ck_assert_int_eq(load_one(TEST_PLUGIN("initfail"), msg, sizeof(msg)), -ECANCELED);
	assert_has(msg, TEST_PLUGIN("initfail"));
	assert_has(msg, "init failed");

	ck_assert_int_eq(load_one(TEST_PLUGIN("noops"), msg, sizeof(msg)), -EPROTO);
	assert_has(msg, TEST_PLUGIN("noops"));
	assert_has(msg, "record_ops");

	ck_assert_int_eq(load_one(TEST_PLUGIN("smalldesc"), msg, sizeof(msg)), -EPROTO);
	assert_has(msg, "too small");

	ck_assert_int_eq(load_one(TEST_PLUGINS_DIR "/no-such-plugin.so", msg, sizeof(msg)),
			 -ENOENT);
	assert_has(msg, "no-such-plugin.so");

	/* A file that is not a shared object at all. */
	ck_assert_int_eq(load_one(FIXTURE, msg, sizeof(msg)), -ELIBBAD);
	assert_has(msg, FIXTURE);
}
END_TEST

START_TEST(test_reject_duplicate)
{
	struct perfring_diag d = { 0 };
	char msg[1024];

	ck_assert_int_eq(perfring_registry_load_file(reg, TEST_PLUGIN("dupcomm"), &d), -EEXIST);
	perfring_diag_format(&d, msg, sizeof(msg));
	assert_has(msg, TEST_PLUGIN("dupcomm"));
	assert_has(msg, perfring_plugin_file(plugin_for(PERFRING_RECORD_COMM)));
	assert_has(msg, "COMM");
	ck_assert_uint_eq(perfring_registry_count(reg), 3);
	ck_assert_str_eq(perfring_plugin_name(plugin_for(PERFRING_RECORD_COMM)), "comm");

	/* The other order: the second file named is the built comm plugin. */
	{
		struct perfring_registry *r;

		ck_assert_int_eq(perfring_registry_new(0, &r), 0);
		ck_assert_int_eq(perfring_registry_load_file(r, TEST_PLUGIN("dupcomm"), NULL), 0);
		ck_assert_int_eq(perfring_registry_load_path(r, BUILD_PLUGINS_PATH, &d), -EEXIST);
		perfring_diag_format(&d, msg, sizeof(msg));
		assert_has(msg, TEST_PLUGIN("dupcomm"));
		assert_has(msg, "/plugins/comm/comm.la");
		perfring_registry_free(r);
	}
}
END_TEST

START_TEST(test_dirs)
{
	struct perfring_registry *r;
	struct perfring_diag d = { 0 };
	char tmpl[] = "/tmp/perfring-plugins-XXXXXX", path[512], msg[1024];
	const char *so = BUILD_PLUGINS_PATH;	/* first entry: .../plugins/comm */
	char comm_dir[512];
	const char *colon = strchr(so, ':');

	ck_assert_ptr_nonnull(colon);
	snprintf(comm_dir, sizeof(comm_dir), "%.*s", (int)(colon - so), so);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);

	/* Empty directory: nothing loaded, no error. */
	ck_assert_int_eq(perfring_registry_load_dir(r, tmpl, &d), 0);
	ck_assert_uint_eq(perfring_registry_count(r), 0);

	/* Missing directory: named in the error. */
	snprintf(path, sizeof(path), "%s/missing", tmpl);
	ck_assert_int_eq(perfring_registry_load_dir(r, path, &d), -ENOENT);
	perfring_diag_format(&d, msg, sizeof(msg));
	assert_has(msg, path);
	ck_assert_int_eq(perfring_registry_load_path(r, path, &d), -ENOENT);
	assert_has(d.file, path);

	/* comm.so and comm.la side by side: one plugin, the .so. */
	ck_assert_int_lt(snprintf(path, sizeof(path), "%.400s/.libs/comm.so", comm_dir), 500);
	{
		char l1[600], l2[600], l3[600];

		snprintf(l1, sizeof(l1), "%s/comm.so", tmpl);
		snprintf(l2, sizeof(l2), "%s/comm.la", tmpl);
		snprintf(l3, sizeof(l3), "%s/README", tmpl);
		ck_assert_int_eq(symlink(path, l1), 0);
		ck_assert_int_eq(symlink(path, l2), 0);	/* never opened */
		ck_assert_int_eq(symlink(path, l3), 0);	/* not a plugin name */
		ck_assert_int_eq(perfring_registry_load_dir(r, tmpl, &d), 1);
		ck_assert_uint_eq(perfring_registry_count(r), 1);
		ck_assert_str_eq(perfring_plugin_file(perfring_registry_plugin_at(r, 0)), l1);
		unlink(l1);
		unlink(l2);
		unlink(l3);
	}
	perfring_registry_free(r);
	rmdir(tmpl);
}
END_TEST

static char logged[2048];

static void capture_log(enum perfring_log_level level, const char *msg, void *user)
{
	if (level <= PERFRING_LOG_WARN)
		snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%s\n", msg);
}

START_TEST(test_path_rules)
{
	struct perfring_registry *r;
	struct perfring_diag d = { 0 };
	char dir[512], *slash;

	/* Empty entries never mean the current directory. */
	ck_assert_int_eq(chdir(TEST_PLUGINS_DIR), 0);
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_path(r, "::", &d), 0);
	ck_assert_int_eq(perfring_registry_load_path(r, "", &d), 0);
	ck_assert_uint_eq(perfring_registry_count(r), 0);
	perfring_registry_free(r);

	/* A relative entry is honoured but warned about. */
	snprintf(dir, sizeof(dir), "%s", BUILD_PLUGINS_PATH);
	*strchr(dir, ':') = '\0';		/* .../plugins/comm */
	slash = strrchr(dir, '/');
	*slash = '\0';				/* .../plugins */
	ck_assert_int_eq(chdir(dir), 0);
	logged[0] = '\0';
	perfring_set_log(capture_log, NULL);
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_path(r, ":comm:", &d), 1);
	perfring_set_log(NULL, NULL);
	assert_has(logged, "'comm'");
	assert_has(logged, "relative");
	perfring_registry_free(r);

	/* load_default searches PERFRING_PLUGIN_PATH first. */
	setenv("PERFRING_PLUGIN_PATH", TEST_PLUGIN("badmajor"), 1);
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_default(r, &d), -EPROTO);
	assert_has(d.file, "badmajor.la");
	perfring_registry_free(r);
	unsetenv("PERFRING_PLUGIN_PATH");

	ck_assert_str_eq(perfring_registry_plugins_dir(), PLUGINSDIR);
	ck_assert_int_eq(perfring_registry_new(1, &r), -EINVAL);
	ck_assert_ptr_null(r);
	perfring_registry_free(NULL);
}
END_TEST

static char debug_logged[2048];

static void capture_debug(enum perfring_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level == PERFRING_LOG_DEBUG)
		snprintf(debug_logged + strlen(debug_logged),
			 sizeof(debug_logged) - strlen(debug_logged), "%s\n", msg);
}

/*
 * A later file of a loaded plugin's name is shadowed: recorded, logged at
 * debug level, never opened (the tripwire plugin is built for another ABI
 * major: opening it would fail the load).  The installed directory is
 * replaced by PERFRING_PLUGIN_SYSTEM_PATH, searched after
 * PERFRING_PLUGIN_PATH by load_default.
 */
START_TEST(test_shadowing)
{
	struct perfring_registry *r;
	struct perfring_diag d = { 0 };
	const struct perfring_plugin *by;
	char tmpl[] = "/tmp/perfring-shadow-XXXXXX", comm[600], mmap2[600];

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(comm, sizeof(comm), "%s/comm.so", tmpl);
	snprintf(mmap2, sizeof(mmap2), "%s/mmap2.la", tmpl);
	ck_assert_int_eq(symlink(TEST_PLUGINS_DIR "/.libs/tripwire.so", comm), 0);
	ck_assert_int_eq(symlink(TEST_PLUGINS_DIR "/.libs/tripwire.so", mmap2), 0);
	/* First in the search, the tripwire is opened, and refused. */
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_file(r, comm, &d), -EPROTO);
	perfring_registry_free(r);

	ck_assert_uint_eq(perfring_registry_shadowed_count(reg), 0);
	ck_assert_ptr_null(perfring_registry_shadowed_at(reg, 0, &by));
	ck_assert_ptr_null(by);
	debug_logged[0] = '\0';
	perfring_set_log(capture_debug, NULL);
	ck_assert_int_eq(perfring_registry_load_dir(reg, tmpl, &d), 0);
	ck_assert_int_eq(perfring_registry_load_file(reg, comm, &d), 0);
	perfring_set_log(NULL, NULL);
	ck_assert_uint_eq(perfring_registry_count(reg), 3);
	ck_assert_uint_eq(perfring_registry_shadowed_count(reg), 3);
	ck_assert_str_eq(perfring_registry_shadowed_at(reg, 0, &by), comm);
	ck_assert_ptr_eq(by, plugin_for(PERFRING_RECORD_COMM));
	ck_assert_str_eq(perfring_registry_shadowed_at(reg, 1, &by), mmap2);
	ck_assert_ptr_eq(by, plugin_for(PERFRING_RECORD_MMAP2));
	ck_assert_str_eq(perfring_registry_shadowed_at(reg, 2, NULL), comm);
	ck_assert_ptr_null(perfring_registry_shadowed_at(reg, 3, NULL));
	assert_has(debug_logged, comm);
	assert_has(debug_logged, "shadowed by");
	assert_has(debug_logged, "/plugins/comm/comm.la");

	/* load_default: PERFRING_PLUGIN_PATH, then the system path. */
	setenv("PERFRING_PLUGIN_PATH", BUILD_PLUGINS_PATH, 1);
	setenv("PERFRING_PLUGIN_SYSTEM_PATH", tmpl, 1);
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_default(r, &d), 3);
	ck_assert_uint_eq(perfring_registry_shadowed_count(r), 2);
	perfring_registry_free(r);
	/* Alone, the system path is searched, and its tripwire refused. */
	unsetenv("PERFRING_PLUGIN_PATH");
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_default(r, &d), -EPROTO);
	perfring_registry_free(r);
	/* Empty: no installed plugins at all. */
	setenv("PERFRING_PLUGIN_SYSTEM_PATH", "", 1);
	ck_assert_int_eq(perfring_registry_new(0, &r), 0);
	ck_assert_int_eq(perfring_registry_load_installed(r, &d), 0);
	ck_assert_uint_eq(perfring_registry_count(r), 0);
	perfring_registry_free(r);
	unsetenv("PERFRING_PLUGIN_SYSTEM_PATH");
	unlink(comm);
	unlink(mmap2);
	rmdir(tmpl);
}
END_TEST

static Suite *plugins_suite(bool have_perf)
{
	Suite *s = suite_create("plugins");
	TCase *tc;

	tc = tcase_create("loader");
	tcase_add_checked_fixture(tc, setup_reg, teardown_reg);
	tcase_add_test(tc, test_load_builtin);
	tcase_add_test(tc, test_reject_major);
	tcase_add_test(tc, test_reject_minor);
	tcase_add_test(tc, test_reject_others);
	tcase_add_test(tc, test_reject_duplicate);
	tcase_add_test(tc, test_dirs);
	tcase_add_test(tc, test_path_rules);
	tcase_add_test(tc, test_shadowing);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_add_checked_fixture(tc, setup_reg, teardown_reg);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_roundtrip_comm);
	tcase_add_test(tc, test_roundtrip_mmap2);
	tcase_add_test(tc, test_roundtrip_task);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_comm_limits);
	tcase_add_test(tc, test_mmap2_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("kernel");
	tcase_add_checked_fixture(tc, setup_reg, teardown_reg);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kernel_bytes);
	if (have_perf)
		tcase_add_test(tc, test_kernel_text_vs_perf);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_checked_fixture(tc, setup_reg, teardown_reg);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_format_helpers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *perf = getenv("PERF");
	char cmd[1024];
	bool have_perf;

	/* Comparing with perf's own text needs perf; the rest does not. */
	snprintf(cmd, sizeof(cmd), "'%s' version >/dev/null 2>&1",
		 perf && *perf ? perf : "perf");
	have_perf = system(cmd) == 0;
	if (!have_perf)
		printf("check_plugins: perf not found: not comparing text with perf report -D\n");
	/* Keep plugin code mapped for ASan / valgrind reports. */
	setenv("PERFRING_NO_DLCLOSE", "1", 0);
	return test_run_suite(plugins_suite(have_perf));
}
