/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON-lines codec of the tools (tools/libtool-json.la: json.c,
 * json-encode.c, json-decode.c): the strict parser,
 * byte-exact record -> JSON -> record round trips for every field the codec
 * knows (SAMPLE with every sample_type bit, LOST, COMM, MMAP, MMAP2 in both
 * union forms, FORK, EXIT, trailers), the hex fallback for records the
 * fields would not reproduce and for unknown types, attrs with every field,
 * error messages naming the field, and mutated lines (no crash).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "json-codec.h"
#include "testutil.h"

static struct perfring_registry *reg;

static void load_plugins(void)
{
	struct perfring_diag d = { 0 };

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ck_assert_int_ge(perfring_registry_load_path(reg, BUILD_PLUGINS_PATH, &d), 3);
}

static void free_plugins(void)
{
	perfring_registry_free(reg);
	reg = NULL;
}

/* ---- parser ------------------------------------------------------------------ */

static struct jc_value *parse_ok(const char *s)
{
	char *err = NULL;
	struct jc_value *v = jc_parse(s, strlen(s), &err);

	ck_assert_msg(v != NULL, "%s: %s", s, err ? err : "");
	return v;
}

static void parse_bad(const char *s, const char *want)
{
	char *err = NULL;
	struct jc_value *v = jc_parse(s, strlen(s), &err);

	ck_assert_msg(v == NULL, "accepted: %s", s);
	ck_assert_msg(err && strstr(err, want), "%s: got \"%s\", want \"%s\"", s, err, want);
	g_free(err);
}

START_TEST(test_parse_integers)
{
	struct jc_value *v = parse_ok("[18446744073709551615,-9223372036854775808,0,-0,42]");

	ck_assert_int_eq(v->kind, JC_ARRAY);
	ck_assert_uint_eq(v->len, 5);
	ck_assert(!v->items[0]->neg && v->items[0]->mag == UINT64_MAX);
	ck_assert(v->items[1]->neg && v->items[1]->mag == (1ull << 63));
	ck_assert(!v->items[2]->neg && v->items[2]->mag == 0);
	ck_assert(!v->items[3]->neg && v->items[3]->mag == 0);
	ck_assert_uint_eq(v->items[4]->mag, 42);
	jc_value_free(v);
	parse_bad("18446744073709551616", "64-bit range");
	parse_bad("-9223372036854775809", "64-bit range");
	parse_bad("1.5", "only integers");
	parse_bad("1e3", "only integers");
	parse_bad("012", "leading zero");
	parse_bad("-", "expected a digit");
}
END_TEST

START_TEST(test_parse_strings)
{
	struct jc_value *v = parse_ok("\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\\u0000z\"");
	static const char want[] = "q\"b\\s/\b\f\n\r\tA\xe9\xe2\x82\xac\xf0\x9f\x98\x80\0z";

	ck_assert_int_eq(v->kind, JC_STRING);
	ck_assert_uint_eq(v->len, sizeof(want) - 1);
	ck_assert_mem_eq(v->s, want, sizeof(want) - 1);
	jc_value_free(v);
	parse_bad("\"a\\ud83dx\"", "surrogate");
	parse_bad("\"a\\ude00\"", "surrogate");
	parse_bad("\"a\tb\"", "control character");
	parse_bad("\"abc", "unterminated");
	parse_bad("\"\\x\"", "bad escape");
	parse_bad("\"\\u12g4\"", "bad \\u escape");
}
END_TEST

START_TEST(test_parse_structure)
{
	struct jc_value *v = parse_ok(" {\"a\" : [true, false, null, {}], \"b\":\"\"} ");
	char deep[200];

	ck_assert_int_eq(v->kind, JC_OBJECT);
	ck_assert_uint_eq(v->len, 2);
	ck_assert_str_eq(v->keys[1], "b");
	ck_assert_int_eq(v->items[0]->items[0]->kind, JC_BOOL);
	ck_assert(v->items[0]->items[0]->b);
	ck_assert_int_eq(v->items[0]->items[2]->kind, JC_NULL);
	jc_value_free(v);
	parse_bad("{\"a\":1,\"a\":2}", "duplicate member \"a\"");
	parse_bad("{\"a\":1} x", "after the value");
	parse_bad("{\"a\" 1}", "expected ':'");
	parse_bad("[1 2]", "expected ',' or ']'");
	parse_bad("{a:1}", "member name");
	parse_bad("tru", "unexpected character");
	parse_bad("", "end of line");
	memset(deep, '[', sizeof(deep));
	deep[sizeof(deep) - 1] = '\0';
	parse_bad(deep, "nested too deeply");
}
END_TEST

/*
 * jc_member: on objects below and above JC_INDEX_MIN members (scanned, and
 * looked up by hash), every key found at its place, absent keys (some
 * sharing a first byte or a prefix with present ones) not found; and a
 * tree larger than many arena chunks keeps every value.
 */
START_TEST(test_parse_members)
{
	for (size_t n = 0; n <= 300; n = n < 20 ? n + 1 : n * 3) {
		GString *s = g_string_new("{");
		struct jc_value *v;
		size_t at;

		for (size_t i = 0; i < n; i++)
			g_string_append_printf(s, "%s\"k%zu\":[%zu,\"%zu\"]", i ? "," : "", i, i, i);
		g_string_append_c(s, '}');
		v = parse_ok(s->str);
		ck_assert_uint_eq(v->len, n);
		ck_assert_int_eq(v->index != NULL, n >= JC_INDEX_MIN);
		for (size_t i = 0; i < n; i++) {
			char key[32], absent[40];
			struct jc_value *m;

			snprintf(key, sizeof(key), "k%zu", i);
			m = jc_member(v, key, &at);
			ck_assert_msg(m != NULL, "%zu members: %s not found", n, key);
			ck_assert_uint_eq(at, i);
			ck_assert_ptr_eq(m, v->items[i]);
			ck_assert_uint_eq(m->items[0]->mag, i);
			ck_assert_uint_eq(strtoull(m->items[1]->s, NULL, 10), i);
			snprintf(absent, sizeof(absent), "k%zux", i);
			ck_assert_ptr_null(jc_member(v, absent, NULL));
			snprintf(absent, sizeof(absent), "K%zu", i);
			ck_assert_ptr_null(jc_member(v, absent, NULL));
		}
		ck_assert_ptr_null(jc_member(v, "", NULL));
		ck_assert_ptr_null(jc_member(v, "k", NULL));
		jc_value_free(v);
		/*
		 * A duplicate of the first, a middle or the last member is
		 * refused where its name ends, and before a syntax error after
		 * it; the same names in an object inside are not duplicates.
		 */
		for (size_t j = 0; n && j < n; j += j + 1 < n ? (n + 2) / 3 : 1) {
			GString *d = g_string_new_len(s->str, (gssize)s->len - 1);
			char want[96], *err = NULL;

			g_string_append_printf(d, ",\"in\":%s", s->str);
			g_string_append_printf(d, ",\"k%zu\"", j);
			snprintf(want, sizeof(want), "at column %zu: duplicate member \"k%zu\"",
				 d->len + 1, j);
			g_string_append(d, ":1,:}");
			ck_assert_ptr_null(jc_parse(d->str, d->len, &err));
			ck_assert_msg(err && !strcmp(err, want), "%zu members: got \"%s\", want \"%s\"",
				      n, err, want);
			g_free(err);
			g_string_free(d, TRUE);
		}
		g_string_free(s, TRUE);
	}
	/* a message longer than the formatting buffer, whole */
	{
		char *key = g_strnfill(400, 'k'), *line, *want, *err = NULL;

		line = g_strdup_printf("{\"%s\":1,\"%s\":2}", key, key);
		want = g_strdup_printf("at column %zu: duplicate member \"%s\"", 2 * strlen(key) + 9,
				       key);
		ck_assert_ptr_null(jc_parse(line, strlen(line), &err));
		ck_assert_str_eq(err, want);
		g_free(err);
		g_free(want);
		g_free(line);
		g_free(key);
	}
	/* the empty key is a key like another */
	{
		struct jc_value *v = parse_ok("{\"\":1,\"a\":2,\"b\":3,\"c\":4,\"d\":5,\"e\":6,\"f\":7,\"g\":8}");

		ck_assert_ptr_nonnull(v->index);
		ck_assert_uint_eq(jc_member(v, "", NULL)->mag, 1);
		ck_assert_uint_eq(jc_member(v, "g", NULL)->mag, 8);
		jc_value_free(v);
	}
}
END_TEST

/* ---- round trips ---------------------------------------------------------------- */

/* Encode the attr line and the record line, decode both, compare bytes. */
static char *round_trip(const struct perfring_attr *attr, const uint64_t *ids, size_t nr_ids,
			const void *rec, size_t size)
{
	struct jc_decoder *d = jc_decoder_new(reg);
	GString *line = g_string_new(NULL);
	unsigned char *buf = g_malloc(65536);
	size_t out = 0;
	char *err = NULL;
	int kind;

	jc_encode_attr(line, attr, ids, nr_ids, "ev");
	kind = jc_decode_line(d, line->str, line->len, buf, &out, &err);
	ck_assert_msg(kind == JC_LINE_ATTR, "%s: %s", line->str, err ? err : "");
	ck_assert_mem_eq(&jc_decoder_event(d, 0)->attr, attr, sizeof(*attr));
	g_string_truncate(line, 0);
	jc_encode_record(line, reg, attr, rec, size, true, 1234);
	kind = jc_decode_line(d, line->str, line->len, buf, &out, &err);
	ck_assert_msg(kind == JC_LINE_RECORD, "%s: %s", line->str, err ? err : "");
	ck_assert_msg(out == size && !memcmp(buf, rec, size), "not the same bytes: %s", line->str);
	g_free(buf);
	jc_decoder_free(d);
	return g_string_free(line, FALSE);
}

static const uint64_t ID = 99;

static struct perfring_attr full_attr(uint64_t st, uint64_t rf)
{
	struct perfring_attr a = {
		.type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER7,
		.sample_period = 1000, .sample_type = st, .read_format = rf,
		.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_MMAP2,
		.branch_sample_type = PERFRING_BRANCH_HW_INDEX | 1,
		.sample_regs_user = 0x1ff, .sample_regs_intr = 0x3,
		.sample_stack_user = 64,
	};
	return a;
}

START_TEST(test_sample_all_fields)
{
	/* every bit but WEIGHT_STRUCT (never with WEIGHT); group READ; then plain READ */
	uint64_t st = (PERFRING_SAMPLE_MAX - 1) & ~PERFRING_SAMPLE_WEIGHT_STRUCT;
	uint64_t rf = PERFRING_FORMAT_GROUP | PERFRING_FORMAT_ID | PERFRING_FORMAT_LOST |
		      PERFRING_FORMAT_TOTAL_TIME_ENABLED | PERFRING_FORMAT_TOTAL_TIME_RUNNING;
	uint64_t rv[3 + 2 * 3] = { 2, 111, 222, 5, ID, 0, 7, ID + 1, 3 };
	uint64_t rv1[5] = { 77, 1, 2, ID, 4 };
	uint64_t cc[4] = { PERFRING_CONTEXT_USER, 0x401000, 0x401234, 0xffffffffffffffffull };
	unsigned char raw[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct perfring_branch_entry br[2] = { { 0x10, 0x20, 0x30 }, { 0x40, 0x50, 1ull << 40 } };
	uint64_t ru[9] = { 1, 2, 3, 4, 5, 6, 7, 0xffffffffffffffffull, 9 };
	uint64_t ri[2] = { 0xdead, 0xbeef };
	unsigned char stack[64], aux[16];
	unsigned char buf[4096];
	struct perfring_attr a = full_attr(st, rf);
	struct perfring_sample s = {
		.identifier = ID, .ip = 0xffffffff81000000ull, .pid = (uint32_t)-1, .tid = 3,
		.time = UINT64_MAX, .addr = 0x1234, .id = ID, .stream_id = 5, .cpu = 7,
		.cpu_res = 1, .period = 1000,
		.read_values = rv, .nr_read_words = 9,
		.callchain_nr = 4, .callchain = cc, .raw_size = 12, .raw = raw,
		.branch_nr = 2, .branch_hw_idx = 3, .branches = br,
		.regs_user_abi = 2, .regs_user_nr = 9, .regs_user = ru,
		.stack_user_size = 64, .stack_user = stack, .stack_user_dyn_size = 40,
		.weight = 0x100000002ull, .data_src = 0x1e05080021ull, .transaction = 9,
		.regs_intr_abi = 2, .regs_intr_nr = 2, .regs_intr = ri,
		.phys_addr = 0x7000, .cgroup = 1, .data_page_size = 4096, .code_page_size = 4096,
		.aux_size = 16, .aux = aux,
	};
	char *line;
	int n;

	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)(i * 7);
	memset(aux, 0xa5, sizeof(aux));
	n = perfring_sample_encode(&a, &s, PERFRING_MISC_USER | PERFRING_MISC_EXACT_IP, buf,
				   sizeof(buf));
	ck_assert_int_gt(n, 0);
	line = round_trip(&a, &ID, 1, buf, (size_t)n);
	ck_assert_ptr_null(strstr(line, "\"body\""));
	ck_assert_ptr_nonnull(strstr(line, "\"ip\":\"0xffffffff81000000\""));
	ck_assert_ptr_nonnull(strstr(line, "\"pid\":-1"));
	ck_assert_ptr_nonnull(strstr(line, "\"time\":18446744073709551615"));
	ck_assert_ptr_nonnull(strstr(line, "\"raw\":\"0102030405060708090a0b0c\""));
	ck_assert_ptr_nonnull(strstr(line, "\"offset\":1234"));
	g_free(line);

	/* Plain READ, WEIGHT_STRUCT, regs ABI 0 (no registers), empty stack. */
	a = full_attr((st & ~PERFRING_SAMPLE_WEIGHT) | PERFRING_SAMPLE_WEIGHT_STRUCT,
		      rf & ~PERFRING_FORMAT_GROUP);
	s.read_values = rv1;
	s.nr_read_words = 5;
	s.regs_user_abi = 0;
	s.regs_user_nr = 0;
	s.stack_user_size = 0;
	s.stack_user_dyn_size = 0;
	s.branch_nr = 0;
	s.callchain_nr = 0;
	n = perfring_sample_encode(&a, &s, PERFRING_MISC_KERNEL, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	line = round_trip(&a, &ID, 1, buf, (size_t)n);
	ck_assert_ptr_null(strstr(line, "\"body\""));
	ck_assert_ptr_nonnull(strstr(line, "\"read\":{\"value\":77,"));
	g_free(line);
}
END_TEST

static struct perfring_sample_id all_sid(void)
{
	struct perfring_sample_id sid = { .pid = 1, .tid = 2, .time = 3, .id = ID,
					  .stream_id = 5, .cpu = 6, .res = 0, .identifier = ID };
	return sid;
}

static void sideband_trip(const struct perfring_attr *a, uint32_t type, const void *typed,
			  const char *expect)
{
	const struct perfring_plugin *p = perfring_registry_find(reg, type);
	struct perfring_sample_id sid = all_sid();
	unsigned char buf[4096];
	char *line;
	int n;

	ck_assert_ptr_nonnull(p);
	n = perfring_plugin_encode(p, a, type, typed, &sid, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	line = round_trip(a, &ID, 1, buf, (size_t)n);
	ck_assert_msg(strstr(line, expect), "%s lacks %s", line, expect);
	ck_assert_ptr_null(strstr(line, "\"body\""));
	g_free(line);
}

START_TEST(test_sideband)
{
	struct perfring_attr a = full_attr(PERFRING_SAMPLE_IP | PERFRING_SAMPLE_ID_ALL_BITS, 0);
	struct perfring_comm c = PERFRING_COMM_INIT;
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT;
	struct perfring_task t = { .pid = 10, .ppid = 11, .tid = 12, .ptid = 13, .time = 14 };
	struct perfring_lost l = { .id = ID, .lost = 1234567 };
	struct perfring_sample_id sid = all_sid();
	unsigned char buf[256];
	char *line;
	int n;

	c.pid = c.tid = 4242;
	strcpy(c.comm, "fifteen-chars!!");
	c.exec = true;
	sideband_trip(&a, PERFRING_RECORD_COMM, &c, "\"comm\":\"fifteen-chars!!\",\"exec\":true");
	m.pid = (uint32_t)-1;
	m.addr = 0xffffffff81000000ull;
	m.len = 0x1000;
	m.pgoff = 0xffffffff81000000ull;
	m.filename = "/usr/lib/\xe9t\xc3\xa9\"\\\n";
	m.filename_len = strlen(m.filename);
	sideband_trip(&a, PERFRING_RECORD_MMAP, &m, "\"pgoff\":\"0xffffffff81000000\"");
	m.maj = 8;
	m.min = 1;
	m.ino = 1ull << 40;
	m.ino_generation = 3;
	m.prot = 5;
	m.flags = 2;
	sideband_trip(&a, PERFRING_RECORD_MMAP2, &m, "\"ino\":1099511627776");
	m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
	m.build_id_size = 20;
	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(i + 0xf0);
	sideband_trip(&a, PERFRING_RECORD_MMAP2, &m, "\"build_id\":\"f0f1f2");
	sideband_trip(&a, PERFRING_RECORD_FORK, &t, "\"ppid\":11,\"tid\":12,\"ptid\":13");
	sideband_trip(&a, PERFRING_RECORD_EXIT, &t, "\"time\":14");

	n = perfring_lost_encode(&a, &l, &sid, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	line = round_trip(&a, &ID, 1, buf, (size_t)n);
	ck_assert_ptr_nonnull(strstr(line, "\"lost\":1234567,\"sample_id\":{\"pid\":1,\"tid\":2,"
					   "\"time\":3,\"id\":99,\"stream_id\":5,\"cpu\":6,"
					   "\"identifier\":99}"));
	g_free(line);
}
END_TEST

/* Decode one line with an ATTR line first; returns the record size or -1. */
static int decode_with_attr(const struct perfring_attr *a, const char *rec_line,
			    unsigned char *buf, char **err)
{
	struct jc_decoder *d = jc_decoder_new(reg);
	GString *line = g_string_new(NULL);
	size_t out = 0;
	int kind;

	jc_encode_attr(line, a, &ID, 1, "ev");
	kind = jc_decode_line(d, line->str, line->len, buf, &out, err);
	ck_assert_int_eq(kind, JC_LINE_ATTR);
	kind = jc_decode_line(d, rec_line, strlen(rec_line), buf, &out, err);
	g_string_free(line, TRUE);
	jc_decoder_free(d);
	return kind == JC_LINE_RECORD ? (int)out : -1;
}

/*
 * A record type's JSON has one owner, its plugin: an edited field reaches
 * the record built (COMM through comm's parse_json); a plugin built for
 * plugin ABI 1.0 (no parse_json) still loads, its records travel through
 * their raw bytes, and a line of its type without them is refused.
 */
START_TEST(test_plugin_owns_json)
{
	struct perfring_attr a = full_attr(PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
					   PERFRING_SAMPLE_TIME, 0);
	struct perfring_comm c = PERFRING_COMM_INIT;
	struct perfring_diag d = { 0 };
	const struct perfring_plugin *p;
	unsigned char buf[65536], rec[64];
	char *line, *err = NULL, *edited;
	int n;

	strcpy(c.comm, "before");
	c.pid = c.tid = 7;
	n = perfring_plugin_encode(perfring_registry_find(reg, PERFRING_RECORD_COMM), &a,
				   PERFRING_RECORD_COMM, &c, NULL, rec, sizeof(rec));
	ck_assert_int_gt(n, 0);
	line = round_trip(&a, &ID, 1, rec, (size_t)n);
	ck_assert_ptr_null(strstr(line, "\"body\""));
	edited = g_strdup(line);
	memcpy(strstr(edited, "\"before\"") + 1, "edited", 6);
	n = decode_with_attr(&a, edited, buf, &err);
	ck_assert_msg(n > 0, "%s: %s", edited, err);
	ck_assert_str_eq((const char *)buf + 16, "edited");
	g_free(edited);
	g_free(line);

	/* The ABI 1.0 plugin: loaded, and parse_json says it has none. */
	ck_assert_int_eq(perfring_registry_load_file(reg, TEST_PLUGINS_DIR "/abi10.la", &d), 0);
	p = perfring_registry_find(reg, 201);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(perfring_plugin_parse_json(p, &a, 201, 0,
						    &(struct perfring_json_in){ .struct_size = 0 },
						    NULL, buf, sizeof(buf)), -EOPNOTSUPP);
	memset(rec, 0, sizeof(rec));
	memcpy(rec, "\xc9\0\0\0\0\0\x18\0" "abcdefghijklmnop", 24);
	line = round_trip(&a, &ID, 1, rec, 24);
	ck_assert_msg(strstr(line, "\"bytes\":24,\"raw\":\"6162"), "%s", line);
	n = decode_with_attr(&a, "{\"type\":201,\"misc\":0,\"bytes\":24}", buf, &err);
	ck_assert_int_eq(n, -1);
	ck_assert_msg(err && strstr(err, "plugin 'abi10'") && strstr(err, "body as hex"), "%s", err);
	g_free(err);
	g_free(line);
}
END_TEST

START_TEST(test_hex_fallback)
{
	struct perfring_attr a = full_attr(PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID, 0);
	struct perfring_comm c = PERFRING_COMM_INIT;
	unsigned char buf[256];
	char *line;
	int n;

	a.flags &= ~PERFRING_ATTR_SAMPLE_ID_ALL;
	strcpy(c.comm, "ab");
	n = perfring_plugin_encode(perfring_registry_find(reg, PERFRING_RECORD_COMM), &a,
				   PERFRING_RECORD_COMM, &c, NULL, buf, sizeof(buf));
	ck_assert_int_eq(n, 24);
	buf[23] = 'x';		/* garbage in the padding: fields would drop it */
	line = round_trip(&a, &ID, 1, buf, 24);
	ck_assert_ptr_nonnull(strstr(line, "{\"type\":\"COMM\",\"misc\":2,\"offset\":1234,\"body\":\""));
	g_free(line);

	/* A COMM name over 15 bytes (perf writes none, but accepts them). */
	memcpy(buf + 16, "sixteen-chars-ab\0\0\0\0\0\0\0\0", 24);
	buf[6] = 40;
	line = round_trip(&a, &ID, 1, buf, 40);
	ck_assert_ptr_nonnull(strstr(line, "\"body\""));
	g_free(line);

	/* Unknown type, a known name without a codec, an empty body. */
	memcpy(buf, "\xc8\0\0\0\x05\0\x10\0" "12345678", 16);
	line = round_trip(&a, &ID, 1, buf, 16);
	ck_assert_str_eq(line, "{\"type\":200,\"misc\":5,\"offset\":1234,\"raw\":\"3132333435363738\"}");
	g_free(line);
	memcpy(buf, "\x0e\0\0\0\0\x20\x08\0", 8);
	line = round_trip(&a, &ID, 1, buf, 8);
	ck_assert_str_eq(line, "{\"type\":\"SWITCH\",\"misc\":8192,\"offset\":1234,\"raw\":\"\"}");
	g_free(line);

	/* A SAMPLE with bytes left over. */
	memcpy(buf, "\x09\0\0\0\x02\0\x20\0", 8);
	memset(buf + 8, 1, 24);
	line = round_trip(&a, &ID, 1, buf, 32);
	ck_assert_ptr_nonnull(strstr(line, "\"type\":\"SAMPLE\",\"misc\":2,\"offset\":1234,\"body\""));
	g_free(line);
}
END_TEST

START_TEST(test_attr_every_field)
{
	struct perfring_attr a;
	uint64_t ids[3] = { 0, UINT64_MAX, 5 };
	struct jc_decoder *d = jc_decoder_new(reg);
	GString *line = g_string_new(NULL);
	unsigned char buf[64];
	size_t out;
	char *err = NULL;

	memset(&a, 0, sizeof(a));
	a.type = 0xfffffff0;
	a.size = PERFRING_ATTR_SIZE_VER8;
	a.config = UINT64_MAX;
	a.sample_period = 4000;
	a.sample_type = (1ull << 25) | PERFRING_SAMPLE_IP | (1ull << 63);
	a.read_format = PERFRING_FORMAT_LOST | (1ull << 9);
	a.flags = ((1ull << 38) - 1) | (1ull << 50);	/* every flag, precise_ip 3, reserved */
	a.wakeup_events = 7;
	a.bp_type = 1;
	a.config1 = 2;
	a.config2 = 3;
	a.branch_sample_type = 4;
	a.sample_regs_user = 5;
	a.sample_stack_user = 6;
	a.clockid = -1;
	a.sample_regs_intr = 8;
	a.aux_watermark = 9;
	a.sample_max_stack = 10;
	a.reserved_2 = 11;
	a.aux_sample_size = 12;
	a.reserved_3 = 13;
	a.sig_data = 14;
	a.config3 = 15;
	jc_encode_attr(line, &a, ids, 3, "na\"me");
	ck_assert_ptr_nonnull(strstr(line->str, "\"sample_freq\":4000"));
	ck_assert_ptr_nonnull(strstr(line->str, "\"wakeup_watermark\":7"));
	ck_assert_ptr_nonnull(strstr(line->str, "\"precise_ip\":3"));
	ck_assert_ptr_nonnull(strstr(line->str, "\"clockid\":-1"));
	ck_assert_ptr_nonnull(strstr(line->str, "\"sample_type\":[\"IP\",33554432,9223372036854775808]"));
	ck_assert_int_eq(jc_decode_line(d, line->str, line->len, buf, &out, &err), JC_LINE_ATTR);
	ck_assert_mem_eq(&jc_decoder_event(d, 0)->attr, &a, sizeof(a));
	ck_assert_uint_eq(jc_decoder_event(d, 0)->nr_ids, 3);
	ck_assert_mem_eq(jc_decoder_event(d, 0)->ids, ids, sizeof(ids));
	ck_assert_str_eq(jc_decoder_event(d, 0)->name, "na\"me");

	/* Zero-valued optional keys are left out. */
	memset(&a, 0, sizeof(a));
	a.size = 64;
	g_string_truncate(line, 0);
	jc_encode_attr(line, &a, NULL, 0, NULL);
	ck_assert_str_eq(line->str, "{\"type\":\"ATTR\",\"attr\":{\"type\":0,\"size\":64,\"config\":0,"
			 "\"sample_period\":0,\"sample_type\":[],\"read_format\":[]},\"ids\":[]}");
	g_string_free(line, TRUE);
	jc_decoder_free(d);
}
END_TEST

/* ---- errors ----------------------------------------------------------------------- */

static void decode_err(struct jc_decoder *d, const char *line, const char *want)
{
	unsigned char buf[65536];
	size_t out;
	char *err = NULL;
	int kind = jc_decode_line(d, line, strlen(line), buf, &out, &err);

	ck_assert_msg(kind == -1, "accepted: %s", line);
	ck_assert_msg(err && !strcmp(err, want), "%s: got \"%s\", want \"%s\"", line, err, want);
	g_free(err);
}

START_TEST(test_errors)
{
	struct jc_decoder *d = jc_decoder_new(reg);
	unsigned char buf[256];
	size_t out;
	char *err = NULL;
	static const char attr[] =
		"{\"type\":\"ATTR\",\"attr\":{\"type\":1,\"size\":64,\"sample_type\":[\"IP\",\"TID\","
		"\"TIME\",\"IDENTIFIER\"],\"sample_id_all\":true,\"mmap2\":true},\"ids\":[7]}";

	decode_err(d, "{\"type\":\"SAMPLE\",\"ip\":\"0x1\"}", "field \"type\": a record before any ATTR line");
	ck_assert_int_eq(jc_decode_line(d, attr, strlen(attr), buf, &out, &err), JC_LINE_ATTR);
	ck_assert_int_eq(jc_decode_line(d, " \t", 2, buf, &out, &err), JC_LINE_BLANK);
	decode_err(d, "{\"type\":\"MMAP2\",\"misc\":2,\"addr\":\"0x1000\",\"pgoff\":4096}",
		   "field \"pgoff\": expected a \"0x…\" string");
	decode_err(d, "{\"type\":\"SAMPLE\",\"ip\":\"1000\"}", "field \"ip\": expected a \"0x…\" string");
	decode_err(d, "{\"type\":\"SAMPLE\",\"ip\":\"0x10000000000000000\"}",
		   "field \"ip\": expected a \"0x…\" string");
	decode_err(d, "{\"type\":\"SAMPLE\",\"addr\":\"0x1\"}", "field \"addr\": not in the event's sample_type");
	decode_err(d, "{\"type\":\"SAMPLE\",\"misc\":65536}", "field \"misc\": expected an integer from 0 to 65535");
	decode_err(d, "{\"type\":\"SAMPLE\",\"pid\":-2147483649}", "field \"pid\": expected a 32-bit integer");
	decode_err(d, "{\"type\":\"COMM\",\"pid\":1,\"sample_id\":{\"cpu\":1}}",
		   "field \"sample_id.cpu\": not in the event's sample_type");
	decode_err(d, "{\"type\":\"COMM\",\"comm\":\"a\",\"exec\":1}", "field \"exec\": expected true or false");
	decode_err(d, "{\"type\":\"FORK\",\"pid\":1,\"pgoff\":\"0x0\"}", "field \"pgoff\": not expected here");
	decode_err(d, "{\"type\":200,\"misc\":0,\"raw\":\"abc\"}", "field \"raw\": expected a string of hex digit pairs");
	decode_err(d, "{\"type\":200,\"misc\":0}", "field \"body\": missing (the record's body as hex)");
	decode_err(d, "{\"type\":\"ATTR\",\"attr\":{\"size\":64,\"config2\":1}}",
		   "field \"attr.config2\": lies beyond attr.size 64");
	decode_err(d, "{\"type\":\"ATTR\",\"attr\":{\"sample_period\":1,\"sample_freq\":1}}",
		   "field \"attr.sample_freq\": sample_period and sample_freq are the same field");
	decode_err(d, "{\"type\":\"ATTR\",\"attr\":{\"sample_type\":[\"IPX\"]}}",
		   "field \"attr.sample_type\": unknown bit name \"IPX\"");
	decode_err(d, "{\"type\":\"ATTR\",\"attr\":{\"size\":65}}",
		   "field \"attr.size\": must be 0 or a multiple of 8 from 64");
	decode_err(d, "{\"type\":\"ATTR\",\"attr\":{\"disabled\":true,\"freq\":1}}",
		   "field \"attr.freq\": expected true or false");
	decode_err(d, "[1]", "expected one JSON object per line");
	ck_assert_uint_eq(jc_decoder_nr_events(d), 1);
	/* flags by name, among other members, false ones left out */
	{
		const char *l = "{\"type\":\"ATTR\",\"attr\":{\"type\":1,\"exclude_kernel\":true,"
				"\"config\":9,\"inherit\":false,\"disabled\":true,\"freq\":true,"
				"\"sample_freq\":99}}";
		unsigned char abuf[8];
		size_t aout = 0;
		char *aerr = NULL;

		ck_assert_int_eq(jc_decode_line(d, l, strlen(l), abuf, &aout, &aerr), JC_LINE_ATTR);
		ck_assert_ptr_null(aerr);
		ck_assert_uint_eq(jc_decoder_event(d, 1)->attr.flags,
				  PERFRING_ATTR_DISABLED | PERFRING_ATTR_EXCLUDE_KERNEL |
				  PERFRING_ATTR_FREQ);
		ck_assert_uint_eq(jc_decoder_event(d, 1)->attr.config, 9);
	}
	jc_decoder_free(d);
}
END_TEST

/* Lines with random bytes changed: decoded or refused, never a crash. */
START_TEST(test_mutations)
{
	struct perfring_attr a = full_attr((PERFRING_SAMPLE_MAX - 1) & ~PERFRING_SAMPLE_WEIGHT_STRUCT,
					   PERFRING_FORMAT_GROUP | PERFRING_FORMAT_ID);
	uint64_t rv[5] = { 2, 5, ID, 7, ID + 1 };
	uint64_t ru[9] = { 0 }, ri[2] = { 0 };
	struct perfring_sample s = { .identifier = ID, .read_values = rv, .nr_read_words = 5,
				     .regs_user_abi = 2, .regs_user_nr = 9, .regs_user = ru,
				     .regs_intr_abi = 1, .regs_intr_nr = 2, .regs_intr = ri,
				     .raw_size = 4, .raw = "abcd" };
	unsigned char buf[4096], *out = g_malloc(65536);
	GString *base = g_string_new(NULL), *line = g_string_new(NULL);
	static const char alphabet[] = "{}[]\",:0123456789-x\\u tfn";
	struct jc_decoder *d = jc_decoder_new(reg);
	unsigned seed = 1;
	size_t size;
	char *err;
	int n = perfring_sample_encode(&a, &s, 2, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	jc_encode_attr(line, &a, &ID, 1, NULL);
	ck_assert_int_eq(jc_decode_line(d, line->str, line->len, out, &size, &err), JC_LINE_ATTR);
	jc_encode_record(base, reg, &a, buf, (size_t)n, false, 0);
	for (int i = 0; i < 3000; i++) {
		g_string_assign(line, base->str);
		for (int k = 0; k < 1 + i % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			line->str[(seed >> 8) % line->len] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
		}
		err = NULL;
		if (jc_decode_line(d, line->str, line->len, out, &size, &err) < 0)
			ck_assert_ptr_nonnull(err);
		else
			ck_assert_uint_le(size, 65535);
		g_free(err);
	}
	jc_decoder_free(d);
	g_string_free(base, TRUE);
	g_string_free(line, TRUE);
	g_free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("parser");

	tcase_add_test(tc, test_parse_integers);
	tcase_add_test(tc, test_parse_strings);
	tcase_add_test(tc, test_parse_structure);
	tcase_add_test(tc, test_parse_members);
	suite_add_tcase(s, tc);
	tc = tcase_create("codec");
	tcase_add_checked_fixture(tc, load_plugins, free_plugins);
	tcase_add_test(tc, test_sample_all_fields);
	tcase_add_test(tc, test_sideband);
	tcase_add_test(tc, test_hex_fallback);
	tcase_add_test(tc, test_plugin_owns_json);
	tcase_add_test(tc, test_attr_every_field);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_mutations);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
