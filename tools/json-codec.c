/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON lines <-> records for the perfring tools (see json-codec.h for the
 * format).  The encoder prints a record field by field only when encoding
 * those fields again gives back the very same bytes; otherwise it prints
 * the body as hex.  That makes every printed line decode to the original
 * record, whatever the record holds.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-codec.h"
#include "num-fmt.h"

#define JC_MAX_REC 65536u
#define JC_MAX_DEPTH 64

static inline uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void put16(void *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* ---- tables ---------------------------------------------------------------- */

/* perf_event_attr flag bits 0..37 by their uapi names (15/16: precise_ip). */
static const char *const flag_names[38] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user",
	"exclude_kernel", "exclude_hv", "exclude_idle", "mmap", "comm", "freq",
	"inherit_stat", "enable_on_exec", "task", "watermark", NULL, NULL,
	"mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
	"exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward",
	"namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup",
	"text_poke", "build_id", "inherit_thread", "remove_on_exec", "sigtrap",
};
#define FLAGS_KNOWN ((1ull << 38) - 1)

/* Integer attr fields after the flags, with their offsets and widths. */
struct attr_field {
	const char *name;
	const char *alt;	/* name when the flag `alt_flag` is set */
	uint64_t alt_flag;
	size_t off;
	unsigned width;		/* bytes */
	bool is_signed;
};

static const struct attr_field attr_fields[] = {
	{ "wakeup_events", "wakeup_watermark", PERFRING_ATTR_WATERMARK,
	  offsetof(struct perfring_attr, wakeup_events), 4, false },
	{ "bp_type", NULL, 0, offsetof(struct perfring_attr, bp_type), 4, false },
	{ "config1", NULL, 0, offsetof(struct perfring_attr, config1), 8, false },
	{ "config2", NULL, 0, offsetof(struct perfring_attr, config2), 8, false },
	{ "branch_sample_type", NULL, 0, offsetof(struct perfring_attr, branch_sample_type), 8, false },
	{ "sample_regs_user", NULL, 0, offsetof(struct perfring_attr, sample_regs_user), 8, false },
	{ "sample_stack_user", NULL, 0, offsetof(struct perfring_attr, sample_stack_user), 4, false },
	{ "clockid", NULL, 0, offsetof(struct perfring_attr, clockid), 4, true },
	{ "sample_regs_intr", NULL, 0, offsetof(struct perfring_attr, sample_regs_intr), 8, false },
	{ "aux_watermark", NULL, 0, offsetof(struct perfring_attr, aux_watermark), 4, false },
	{ "sample_max_stack", NULL, 0, offsetof(struct perfring_attr, sample_max_stack), 2, false },
	{ "reserved_2", NULL, 0, offsetof(struct perfring_attr, reserved_2), 2, false },
	{ "aux_sample_size", NULL, 0, offsetof(struct perfring_attr, aux_sample_size), 4, false },
	{ "reserved_3", NULL, 0, offsetof(struct perfring_attr, reserved_3), 4, false },
	{ "sig_data", NULL, 0, offsetof(struct perfring_attr, sig_data), 8, false },
	{ "config3", NULL, 0, offsetof(struct perfring_attr, config3), 8, false },
};
#define N_ATTR_FIELDS (sizeof(attr_fields) / sizeof(attr_fields[0]))

static uint64_t field_get(const struct perfring_attr *a, const struct attr_field *f)
{
	const unsigned char *p = (const unsigned char *)a + f->off;
	uint64_t v = 0;

	switch (f->width) {
	case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
	default: memcpy(&v, p, 8); break;
	}
	return v;
}

static void field_set(struct perfring_attr *a, const struct attr_field *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)a + f->off;

	switch (f->width) {
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static const char *field_name(const struct perfring_attr *a, const struct attr_field *f)
{
	return f->alt && (a->flags & f->alt_flag) ? f->alt : f->name;
}

static uint64_t trailer_bits(const struct perfring_attr *a)
{
	if (!a || !(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	return a->sample_type & PERFRING_SAMPLE_ID_ALL_BITS;
}

/* ---- encoder ---------------------------------------------------------------- */

static void put_hex(GString *out, const void *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;

	g_string_append_c(out, '"');
	for (size_t i = 0; i < n; i++) {
		g_string_append_c(out, hex[p[i] >> 4]);
		g_string_append_c(out, hex[p[i] & 15]);
	}
	g_string_append_c(out, '"');
}

static void put_str(GString *out, const char *s, size_t n)
{
	char small[256];
	int need = perfring_format_json_string(s, n, small, sizeof(small));

	if (need < 0)
		return;
	if ((size_t)need < sizeof(small)) {
		g_string_append_len(out, small, need);
	} else {
		char *big = g_malloc((size_t)need + 1);

		perfring_format_json_string(s, n, big, (size_t)need + 1);
		g_string_append_len(out, big, need);
		g_free(big);
	}
}

/* Numbers by hand (num-fmt.h): not one g_string_append_printf per field. */
static void append_dec(GString *out, uint64_t v)
{
	char b[NUM_DEC_MAX];
	const char *d = num_dec(b, v);

	g_string_append_len(out, d, (gssize)(b + NUM_DEC_MAX - d));
}

static void append_i32(GString *out, int32_t v)
{
	if (v < 0) {
		g_string_append_c(out, '-');
		append_dec(out, (uint64_t)0 - (uint64_t)(int64_t)v);
	} else {
		append_dec(out, (uint64_t)v);
	}
}

/* "0x..." in lower case, quoted */
static void append_qhex(GString *out, uint64_t v)
{
	char b[NUM_HEX_MAX];
	const char *d = num_hex(b, v, 1);

	g_string_append_len(out, "\"0x", 3);
	g_string_append_len(out, d, (gssize)(b + NUM_HEX_MAX - d));
	g_string_append_c(out, '"');
}

/* ,"key": */
static void append_key(GString *out, const char *key)
{
	g_string_append_len(out, ",\"", 2);
	g_string_append(out, key);
	g_string_append_len(out, "\":", 2);
}

static void put_addr(GString *out, const char *key, uint64_t v)
{
	append_key(out, key);
	append_qhex(out, v);
}

static void put_u64(GString *out, const char *key, uint64_t v)
{
	append_key(out, key);
	append_dec(out, v);
}

static void put_pid(GString *out, const char *key, uint32_t v)
{
	append_key(out, key);
	append_i32(out, (int32_t)v);
}

static void put_bits(GString *out, uint64_t v, const char *(*name)(unsigned))
{
	bool first = true;

	g_string_append_c(out, '[');
	for (unsigned b = 0; b < 64; b++) {
		const char *n;

		if (!(v & (1ull << b)))
			continue;
		if (!first)
			g_string_append_c(out, ',');
		first = false;
		n = name(b);
		if (n)
			g_string_append_printf(out, "\"%s\"", n);
		else
			g_string_append_printf(out, "%" PRIu64, (uint64_t)1 << b);
	}
	g_string_append_c(out, ']');
}

void jc_encode_attr(GString *out, const struct perfring_attr *a,
		    const uint64_t *ids, size_t nr_ids, const char *name)
{
	g_string_append_printf(out, "{\"type\":\"ATTR\",\"attr\":{\"type\":%" PRIu32
			       ",\"size\":%" PRIu32 ",\"config\":%" PRIu64,
			       a->type, a->size, a->config);
	put_u64(out, a->flags & PERFRING_ATTR_FREQ ? "sample_freq" : "sample_period",
		a->sample_period);
	g_string_append(out, ",\"sample_type\":");
	put_bits(out, a->sample_type, perfring_sample_bit_name);
	g_string_append(out, ",\"read_format\":");
	put_bits(out, a->read_format, perfring_format_bit_name);
	for (unsigned b = 0; b < 38; b++)
		if (flag_names[b] && (a->flags & (1ull << b)))
			g_string_append_printf(out, ",\"%s\":true", flag_names[b]);
	if (a->flags & PERFRING_ATTR_PRECISE_IP_MASK)
		put_u64(out, "precise_ip", (a->flags & PERFRING_ATTR_PRECISE_IP_MASK) >>
			PERFRING_ATTR_PRECISE_IP_SHIFT);
	if (a->flags & ~FLAGS_KNOWN)
		put_u64(out, "flags_reserved", a->flags & ~FLAGS_KNOWN);
	for (size_t i = 0; i < N_ATTR_FIELDS; i++) {
		const struct attr_field *f = &attr_fields[i];
		uint64_t v = field_get(a, f);

		if (!v)
			continue;
		if (f->is_signed)
			g_string_append_printf(out, ",\"%s\":%" PRId32, field_name(a, f),
					       (int32_t)(uint32_t)v);
		else
			put_u64(out, field_name(a, f), v);
	}
	g_string_append(out, "},\"ids\":[");
	for (size_t i = 0; i < nr_ids; i++)
		g_string_append_printf(out, "%s%" PRIu64, i ? "," : "", ids[i]);
	g_string_append_c(out, ']');
	if (name && *name) {
		g_string_append(out, ",\"name\":");
		put_str(out, name, strlen(name));
	}
	g_string_append_c(out, '}');
}

static void put_sample_id(GString *out, const struct perfring_attr *a,
			  const struct perfring_sample_id *sid)
{
	uint64_t st = trailer_bits(a);
	size_t first;

	if (!st)
		return;
	/* the members, each with a leading comma; the first comma goes */
	g_string_append(out, ",\"sample_id\":{");
	first = out->len;
	if (st & PERFRING_SAMPLE_TID) {
		put_pid(out, "pid", sid->pid);
		put_pid(out, "tid", sid->tid);
	}
	if (st & PERFRING_SAMPLE_TIME)
		put_u64(out, "time", sid->time);
	if (st & PERFRING_SAMPLE_ID)
		put_u64(out, "id", sid->id);
	if (st & PERFRING_SAMPLE_STREAM_ID)
		put_u64(out, "stream_id", sid->stream_id);
	if (st & PERFRING_SAMPLE_CPU) {
		put_u64(out, "cpu", sid->cpu);
		if (sid->res)
			put_u64(out, "res", sid->res);
	}
	if (st & PERFRING_SAMPLE_IDENTIFIER)
		put_u64(out, "identifier", sid->identifier);
	g_string_erase(out, (gssize)first, 1);
	g_string_append_c(out, '}');
}

static void put_u64s(GString *out, const void *p, size_t n, bool addr)
{
	g_string_append_c(out, '[');
	for (size_t i = 0; i < n; i++) {
		uint64_t v = get64((const char *)p + 8 * i);

		if (i)
			g_string_append_c(out, ',');
		if (addr)
			append_qhex(out, v);
		else
			append_dec(out, v);
	}
	g_string_append_c(out, ']');
}

static void put_read(GString *out, const struct perfring_attr *a, const struct perfring_sample *s)
{
	uint64_t rf = a->read_format;
	const char *w = (const char *)s->read_values;
	size_t i = 0, nw = s->nr_read_words;

#define NEXT() (i < nw ? get64(w + 8 * i++) : 0)
	g_string_append(out, ",\"read\":{");
	if (rf & PERFRING_FORMAT_GROUP) {
		uint64_t nr = NEXT();
		bool first = true;

		if (rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED) {
			g_string_append(out, "\"time_enabled\":");
			append_dec(out, NEXT());
			g_string_append_c(out, ',');
		}
		if (rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING) {
			g_string_append(out, "\"time_running\":");
			append_dec(out, NEXT());
			g_string_append_c(out, ',');
		}
		g_string_append(out, "\"values\":[");
		for (uint64_t k = 0; k < nr && i < nw; k++) {
			g_string_append(out, first ? "{\"value\":" : ",{\"value\":");
			append_dec(out, NEXT());
			first = false;
			if (rf & PERFRING_FORMAT_ID)
				put_u64(out, "id", NEXT());
			if (rf & PERFRING_FORMAT_LOST)
				put_u64(out, "lost", NEXT());
			g_string_append_c(out, '}');
		}
		g_string_append(out, "]}");
	} else {
		g_string_append(out, "\"value\":");
		append_dec(out, NEXT());
		if (rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED)
			put_u64(out, "time_enabled", NEXT());
		if (rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING)
			put_u64(out, "time_running", NEXT());
		if (rf & PERFRING_FORMAT_ID)
			put_u64(out, "id", NEXT());
		if (rf & PERFRING_FORMAT_LOST)
			put_u64(out, "lost", NEXT());
		g_string_append_c(out, '}');
	}
#undef NEXT
}

static void put_regs(GString *out, const char *key, uint64_t abi, const uint64_t *regs,
		     uint32_t nr)
{
	g_string_append_printf(out, ",\"%s\":{\"abi\":%" PRIu64 ",\"regs\":", key, abi);
	put_u64s(out, regs, abi ? nr : 0, true);
	g_string_append_c(out, '}');
}

static void put_sample(GString *out, const struct perfring_attr *a, const struct perfring_sample *s)
{
	uint64_t st = a->sample_type;

	if (st & PERFRING_SAMPLE_IDENTIFIER)
		put_u64(out, "identifier", s->identifier);
	if (st & PERFRING_SAMPLE_IP)
		put_addr(out, "ip", s->ip);
	if (st & PERFRING_SAMPLE_TID) {
		put_pid(out, "pid", s->pid);
		put_pid(out, "tid", s->tid);
	}
	if (st & PERFRING_SAMPLE_TIME)
		put_u64(out, "time", s->time);
	if (st & PERFRING_SAMPLE_ADDR)
		put_addr(out, "addr", s->addr);
	if (st & PERFRING_SAMPLE_ID)
		put_u64(out, "id", s->id);
	if (st & PERFRING_SAMPLE_STREAM_ID)
		put_u64(out, "stream_id", s->stream_id);
	if (st & PERFRING_SAMPLE_CPU) {
		put_u64(out, "cpu", s->cpu);
		if (s->cpu_res)
			put_u64(out, "res", s->cpu_res);
	}
	if (st & PERFRING_SAMPLE_PERIOD)
		put_u64(out, "period", s->period);
	if (st & PERFRING_SAMPLE_READ)
		put_read(out, a, s);
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		g_string_append(out, ",\"callchain\":");
		put_u64s(out, s->callchain, (size_t)s->callchain_nr, true);
	}
	if (st & PERFRING_SAMPLE_RAW) {
		g_string_append(out, ",\"raw\":");
		put_hex(out, s->raw, s->raw_size);
	}
	if (st & PERFRING_SAMPLE_BRANCH_STACK) {
		const char *b = (const char *)s->branches;

		if (a->branch_sample_type & PERFRING_BRANCH_HW_INDEX)
			put_u64(out, "branch_hw_idx", s->branch_hw_idx);
		g_string_append(out, ",\"branch_stack\":[");
		for (uint64_t i = 0; i < s->branch_nr; i++, b += 24) {
			g_string_append(out, i ? ",{\"from\":" : "{\"from\":");
			append_qhex(out, get64(b));
			put_addr(out, "to", get64(b + 8));
			put_u64(out, "flags", get64(b + 16));
			g_string_append_c(out, '}');
		}
		g_string_append_c(out, ']');
	}
	if (st & PERFRING_SAMPLE_REGS_USER)
		put_regs(out, "regs_user", s->regs_user_abi, s->regs_user, s->regs_user_nr);
	if (st & PERFRING_SAMPLE_STACK_USER) {
		g_string_append(out, ",\"stack_user\":{\"data\":");
		put_hex(out, s->stack_user, (size_t)s->stack_user_size);
		if (s->stack_user_size)
			put_u64(out, "dyn_size", s->stack_user_dyn_size);
		g_string_append_c(out, '}');
	}
	if (st & (PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT))
		put_u64(out, "weight", s->weight);
	if (st & PERFRING_SAMPLE_DATA_SRC)
		put_u64(out, "data_src", s->data_src);
	if (st & PERFRING_SAMPLE_TRANSACTION)
		put_u64(out, "transaction", s->transaction);
	if (st & PERFRING_SAMPLE_REGS_INTR)
		put_regs(out, "regs_intr", s->regs_intr_abi, s->regs_intr, s->regs_intr_nr);
	if (st & PERFRING_SAMPLE_PHYS_ADDR)
		put_addr(out, "phys_addr", s->phys_addr);
	if (st & PERFRING_SAMPLE_CGROUP)
		put_u64(out, "cgroup", s->cgroup);
	if (st & PERFRING_SAMPLE_DATA_PAGE_SIZE)
		put_u64(out, "data_page_size", s->data_page_size);
	if (st & PERFRING_SAMPLE_CODE_PAGE_SIZE)
		put_u64(out, "code_page_size", s->code_page_size);
	if (st & PERFRING_SAMPLE_AUX) {
		g_string_append(out, ",\"aux\":");
		put_hex(out, s->aux, (size_t)s->aux_size);
	}
}

static bool same_bytes(int n, const void *buf, const void *rec, size_t size)
{
	return n >= 0 && (size_t)n == size && memcmp(buf, rec, size) == 0;
}

/* A record as its plugin's JSON members: see encode_by_plugin (below). */
static bool encode_by_plugin(GString *out, const struct perfring_plugin *p,
			     const struct perfring_attr *a, uint32_t type,
			     const void *rec, size_t size, unsigned char *buf);

void jc_encode_record(GString *out, const struct perfring_registry *reg,
		      const struct perfring_attr *a, const void *rec, size_t size,
		      bool has_offset, uint64_t offset)
{
	const struct perfring_event_header *h = rec;
	uint32_t type = h->type;
	const char *name = perfring_record_type_name(type);
	const struct perfring_plugin *p = reg ? perfring_registry_find(reg, type) : NULL;
	/* one scratch record for the round trips: the tools are single-threaded */
	static unsigned char buf[JC_MAX_REC];
	size_t start = out->len;
	bool decoded = false, known = false;

	g_string_append_len(out, "{\"type\":", 8);
	if (name) {
		g_string_append_c(out, '"');
		g_string_append(out, name);
		g_string_append_c(out, '"');
	} else {
		append_dec(out, type);
	}
	put_u64(out, "misc", h->misc);
	if (has_offset)
		put_u64(out, "offset", offset);
	start = out->len;

	switch (type) {
	case PERFRING_RECORD_SAMPLE: {
		struct perfring_sample s;

		known = true;
		if (a && perfring_sample_decode(a, rec, size, &s, NULL) == 0 &&
		    same_bytes(perfring_sample_encode(a, &s, h->misc, buf, JC_MAX_REC),
			       buf, rec, size)) {
			put_sample(out, a, &s);
			decoded = true;
		}
		break;
	}
	case PERFRING_RECORD_LOST: {
		struct perfring_lost l;
		struct perfring_sample_id sid;
		int n;

		known = true;
		if (perfring_lost_decode(a, rec, size, &l, &sid) < 0)
			break;
		n = perfring_lost_encode(a, &l, &sid, buf, JC_MAX_REC);
		if (n >= 8)
			put16(buf + 4, h->misc);
		if (!same_bytes(n, buf, rec, size))
			break;
		put_u64(out, "id", l.id);
		put_u64(out, "lost", l.lost);
		put_sample_id(out, a, &sid);
		decoded = true;
		break;
	}
	case PERFRING_RECORD_COMM:
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2:
	case PERFRING_RECORD_FORK:
	case PERFRING_RECORD_EXIT:
		known = true;
		decoded = p && encode_by_plugin(out, p, a, type, rec, size, buf);
		break;
	default:
		decoded = p && encode_by_plugin(out, p, a, type, rec, size, buf);
		break;
	}
	if (!decoded) {
		g_string_truncate(out, start);
		if (!known && p) {
			/* A third-party plugin's members, for the reader only. */
			int n = perfring_plugin_format_json(p, a, rec, size, (char *)buf,
							    JC_MAX_REC);

			if (n > 0 && (size_t)n < JC_MAX_REC) {
				g_string_append_c(out, ',');
				g_string_append_len(out, (char *)buf, n);
			}
		}
		g_string_append_printf(out, ",\"%s\":", known ? "body" : "raw");
		put_hex(out, (const char *)rec + 8, size > 8 ? size - 8 : 0);
	}
	g_string_append_c(out, '}');
}

static bool ids_contain(const uint64_t *ids, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

size_t jc_record_event(const struct perfring_attr *const *attrs,
		       const uint64_t *const *ids, const size_t *nr_ids, size_t n,
		       const void *rec, size_t size)
{
	uint64_t id;

	/* perf's rule, by the first event (perf requires them to agree) */
	if (n <= 1 || perfring_record_id(attrs[0], rec, size, &id) != 1)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (ids_contain(ids[i], nr_ids[i], id))
			return i;
	return 0;
}

/* ---- parser ----------------------------------------------------------------- */

struct parser {
	const char *p, *start, *end;
	char *err;
};

static void perr(struct parser *ps, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (ps->err)
		return;
	va_start(ap, fmt);
	m = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	ps->err = g_strdup_printf("at column %zu: %s", (size_t)(ps->p - ps->start) + 1, m);
	g_free(m);
}

void jc_value_free(struct jc_value *v)
{
	if (!v)
		return;
	if (v->kind == JC_ARRAY || v->kind == JC_OBJECT) {
		for (size_t i = 0; i < v->len; i++) {
			jc_value_free(v->items[i]);
			if (v->keys)
				g_free(v->keys[i]);
		}
	}
	g_free(v->items);
	g_free(v->keys);
	g_free(v->used);
	g_free(v->s);
	g_free(v);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
				   *ps->p == '\r'))
		ps->p++;
}

static int hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;

	if (ps->end - ps->p < 4) {
		perr(ps, "truncated \\u escape");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else {
			ps->p--;
			perr(ps, "bad \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static char *parse_string(struct parser *ps, size_t *lenp)
{
	GString *s;
	const char *q;

	ps->p++;	/* opening quote */
	/*
	 * Most strings (keys, names, hex) have no escape: copy them in one
	 * allocation.  Anything else (an escape, a control byte, no closing
	 * quote) takes the loop below from the start of the string.
	 */
	for (q = ps->p; q < ps->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
		;
	if (q < ps->end && *q == '"') {
		char *r = g_strndup(ps->p, (size_t)(q - ps->p));

		*lenp = (size_t)(q - ps->p);
		ps->p = q + 1;
		return r;
	}
	s = g_string_sized_new((size_t)(q - ps->p) + 16);
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			goto fail;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			perr(ps, "control character in a string");
			goto fail;
		}
		if (c != '\\') {
			g_string_append_c(s, (char)c);
			ps->p++;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			goto fail;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': g_string_append_c(s, '"'); break;
		case '\\': g_string_append_c(s, '\\'); break;
		case '/': g_string_append_c(s, '/'); break;
		case 'b': g_string_append_c(s, '\b'); break;
		case 'f': g_string_append_c(s, '\f'); break;
		case 'n': g_string_append_c(s, '\n'); break;
		case 'r': g_string_append_c(s, '\r'); break;
		case 't': g_string_append_c(s, '\t'); break;
		case 'u': {
			unsigned u, lo;

			if (hex4(ps, &u) < 0)
				goto fail;
			if (u >= 0x80 && u <= 0xff) {
				/* A byte that was not UTF-8 (see the header). */
				g_string_append_c(s, (char)u);
				break;
			}
			if (u >= 0xd800 && u <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
					perr(ps, "lone surrogate in \\u escape");
					goto fail;
				}
				ps->p += 2;
				if (hex4(ps, &lo) < 0)
					goto fail;
				if (lo < 0xdc00 || lo > 0xdfff) {
					perr(ps, "bad surrogate pair");
					goto fail;
				}
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				perr(ps, "lone surrogate in \\u escape");
				goto fail;
			}
			if (u < 0x80)
				g_string_append_c(s, (char)u);
			else
				g_string_append_unichar(s, (gunichar)u);
			break;
		}
		default:
			ps->p--;
			perr(ps, "bad escape \\%c", c);
			goto fail;
		}
	}
	*lenp = s->len;
	return g_string_free(s, FALSE);
fail:
	g_string_free(s, TRUE);
	return NULL;
}

static struct jc_value *parse_value(struct parser *ps, int depth);

static struct jc_value *parse_container(struct parser *ps, int depth, bool obj)
{
	struct jc_value *v = g_new0(struct jc_value, 1);
	GPtrArray *items = g_ptr_array_new();
	GPtrArray *keys = obj ? g_ptr_array_new() : NULL;
	char close = obj ? '}' : ']';

	v->kind = obj ? JC_OBJECT : JC_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		goto done;
	}
	for (;;) {
		struct jc_value *item;

		skip_ws(ps);
		if (obj) {
			size_t klen;
			char *key;

			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a member name");
				goto fail;
			}
			key = parse_string(ps, &klen);
			if (!key)
				goto fail;
			for (size_t i = 0; i < keys->len; i++)
				if (((char *)keys->pdata[i])[0] == key[0] &&
				    !strcmp(keys->pdata[i], key)) {
					perr(ps, "duplicate member \"%s\"", key);
					g_free(key);
					goto fail;
				}
			g_ptr_array_add(keys, key);
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				goto fail;
			}
			ps->p++;
		}
		item = parse_value(ps, depth + 1);
		if (!item)
			goto fail;
		g_ptr_array_add(items, item);
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		perr(ps, "expected ',' or '%c'", close);
		goto fail;
	}
done:
	v->len = items->len;
	v->items = (struct jc_value **)g_ptr_array_free(items, FALSE);
	if (obj) {
		v->keys = (char **)g_ptr_array_free(keys, FALSE);
		v->used = g_new0(bool, v->len ? v->len : 1);
	}
	return v;
fail:
	g_ptr_array_set_free_func(items, (GDestroyNotify)jc_value_free);
	g_ptr_array_free(items, TRUE);
	if (keys) {
		g_ptr_array_set_free_func(keys, g_free);
		g_ptr_array_free(keys, TRUE);
	}
	g_free(v);
	return NULL;
}

static struct jc_value *parse_number(struct parser *ps)
{
	struct jc_value *v;
	bool neg = false;
	uint64_t mag = 0;
	const char *d;

	if (*ps->p == '-') {
		neg = true;
		ps->p++;
	}
	d = ps->p;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		unsigned dig = (unsigned)(*ps->p - '0');

		if (mag > (UINT64_MAX - dig) / 10) {
			perr(ps, "integer out of the 64-bit range");
			return NULL;
		}
		mag = mag * 10 + dig;
		ps->p++;
	}
	if (ps->p == d) {
		perr(ps, "expected a digit");
		return NULL;
	}
	if (ps->p - d > 1 && *d == '0') {
		ps->p = d;
		perr(ps, "leading zero in an integer");
		return NULL;
	}
	if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')) {
		perr(ps, "only integers are accepted (no fraction or exponent)");
		return NULL;
	}
	if (neg && mag > (1ull << 63)) {
		perr(ps, "integer out of the 64-bit range");
		return NULL;
	}
	v = g_new0(struct jc_value, 1);
	v->kind = JC_INT;
	v->neg = neg && mag;
	v->mag = mag;
	return v;
}

static struct jc_value *parse_value(struct parser *ps, int depth)
{
	struct jc_value *v;

	skip_ws(ps);
	if (depth > JC_MAX_DEPTH) {
		perr(ps, "nested too deeply");
		return NULL;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end of line");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, depth, true);
	case '[':
		return parse_container(ps, depth, false);
	case '"':
		v = g_new0(struct jc_value, 1);
		v->kind = JC_STRING;
		v->s = parse_string(ps, &v->len);
		if (!v->s) {
			g_free(v);
			return NULL;
		}
		return v;
	case '-':
	case '0' ... '9':
		return parse_number(ps);
	default:
		break;
	}
	v = g_new0(struct jc_value, 1);
	if ((size_t)(ps->end - ps->p) >= 4 && !memcmp(ps->p, "true", 4)) {
		v->kind = JC_BOOL;
		v->b = true;
		ps->p += 4;
	} else if ((size_t)(ps->end - ps->p) >= 5 && !memcmp(ps->p, "false", 5)) {
		v->kind = JC_BOOL;
		ps->p += 5;
	} else if ((size_t)(ps->end - ps->p) >= 4 && !memcmp(ps->p, "null", 4)) {
		v->kind = JC_NULL;
		ps->p += 4;
	} else {
		g_free(v);
		perr(ps, "unexpected character '%c'", *ps->p);
		return NULL;
	}
	return v;
}

struct jc_value *jc_parse(const char *text, size_t len, char **err)
{
	struct parser ps = { text, text, text + len, NULL };
	struct jc_value *v = parse_value(&ps, 0);

	if (v) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			perr(&ps, "unexpected text after the value");
			jc_value_free(v);
			v = NULL;
		}
	}
	if (!v) {
		*err = ps.err ? ps.err : g_strdup("bad JSON");
		return NULL;
	}
	return v;
}

/* ---- decoder ----------------------------------------------------------------- */

struct jc_decoder {
	const struct perfring_registry *reg;
	GPtrArray *events;		/* struct jc_event * */
	uint64_t nr_records;
};

/* The context of one line: the first error wins. */
struct dctx {
	char *err;
	GPtrArray *scratch;		/* freed after the record is encoded */
};

static void derr(struct dctx *c, const char *field, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void derr(struct dctx *c, const char *field, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (c->err)
		return;
	va_start(ap, fmt);
	m = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (field)
		c->err = g_strdup_printf("field \"%s\": %s", field, m);
	else
		c->err = g_strdup(m);
	g_free(m);
}

/* The first bytes are compared first: most keys differ there (and a
 * strcmp call per key was a sixth of a decode under the fuzzer). */
static struct jc_value *member(struct jc_value *obj, const char *key)
{
	for (size_t i = 0; i < obj->len; i++)
		if (obj->keys[i][0] == key[0] && !strcmp(obj->keys[i], key)) {
			obj->used[i] = true;
			return obj->items[i];
		}
	return NULL;
}

static bool has_member(const struct jc_value *obj, const char *key)
{
	for (size_t i = 0; i < obj->len; i++)
		if (obj->keys[i][0] == key[0] && !strcmp(obj->keys[i], key))
			return true;
	return false;
}

static char *path(struct dctx *c, const char *prefix, const char *key)
{
	char *p;

	if (!prefix)
		return (char *)key;
	p = g_strdup_printf("%s.%s", prefix, key);
	g_ptr_array_add(c->scratch, p);
	return p;
}

static void check_unused(struct dctx *c, const struct jc_value *obj, const char *prefix)
{
	for (size_t i = 0; i < obj->len; i++)
		if (!obj->used[i]) {
			derr(c, path(c, prefix, obj->keys[i]), "not expected here");
			return;
		}
}

static bool val_uint(struct dctx *c, const char *field, const struct jc_value *v,
		     uint64_t max, uint64_t *out)
{
	if (v->kind != JC_INT || v->neg || v->mag > max) {
		derr(c, field, "expected an integer from 0 to %" PRIu64, max);
		return false;
	}
	*out = v->mag;
	return true;
}

/* Optional unsigned member (0 when absent). */
static bool get_uint(struct dctx *c, struct jc_value *obj, const char *prefix,
		     const char *key, uint64_t max, uint64_t *out)
{
	struct jc_value *v = member(obj, key);

	*out = 0;
	if (!v)
		return true;
	return val_uint(c, path(c, prefix, key), v, max, out);
}

/* A 32-bit value printed signed: -2^31 .. 2^32-1. */
static bool get_s32(struct dctx *c, struct jc_value *obj, const char *prefix,
		    const char *key, uint32_t *out)
{
	struct jc_value *v = member(obj, key);

	*out = 0;
	if (!v)
		return true;
	if (v->kind != JC_INT || (v->neg && v->mag > (1ull << 31)) ||
	    (!v->neg && v->mag > UINT32_MAX)) {
		derr(c, path(c, prefix, key), "expected a 32-bit integer");
		return false;
	}
	*out = v->neg ? (uint32_t)(0u - (uint32_t)v->mag) : (uint32_t)v->mag;
	return true;
}

static bool val_addr(struct dctx *c, const char *field, const struct jc_value *v, uint64_t *out)
{
	const char *s;
	uint64_t x = 0;
	size_t n;

	if (v->kind != JC_STRING || v->len < 3 || v->len > 18 || v->s[0] != '0' ||
	    (v->s[1] != 'x' && v->s[1] != 'X'))
		goto bad;
	s = v->s + 2;
	n = v->len - 2;
	for (size_t i = 0; i < n; i++) {
		int d = g_ascii_xdigit_value(s[i]);

		if (d < 0)
			goto bad;
		x = (x << 4) | (uint64_t)d;
	}
	*out = x;
	return true;
bad:
	derr(c, field, "expected a \"0x…\" string");
	return false;
}

static bool get_addr(struct dctx *c, struct jc_value *obj, const char *prefix,
		     const char *key, uint64_t *out)
{
	struct jc_value *v = member(obj, key);

	*out = 0;
	if (!v)
		return true;
	return val_addr(c, path(c, prefix, key), v, out);
}

/* Hex bytes (no 0x) into a scratch buffer. */
static bool get_hex(struct dctx *c, struct jc_value *obj, const char *prefix,
		    const char *key, const unsigned char **data, size_t *len)
{
	struct jc_value *v = member(obj, key);
	unsigned char *b;

	*data = NULL;
	*len = 0;
	if (!v)
		return true;
	if (v->kind != JC_STRING || v->len % 2)
		goto bad;
	b = g_malloc(v->len / 2 + 1);
	g_ptr_array_add(c->scratch, b);
	for (size_t i = 0; i < v->len / 2; i++) {
		int hi = g_ascii_xdigit_value(v->s[2 * i]);
		int lo = g_ascii_xdigit_value(v->s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			goto bad;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	*data = b;
	*len = v->len / 2;
	return true;
bad:
	derr(c, path(c, prefix, key), "expected a string of hex digit pairs");
	return false;
}

static bool get_bool(struct dctx *c, struct jc_value *obj, const char *prefix,
		     const char *key, bool *out, bool *present)
{
	struct jc_value *v = member(obj, key);

	if (present)
		*present = v != NULL;
	if (!v)
		return true;
	if (v->kind != JC_BOOL) {
		derr(c, path(c, prefix, key), "expected true or false");
		return false;
	}
	*out = v->b;
	return true;
}

static struct jc_value *get_kind(struct dctx *c, struct jc_value *obj, const char *prefix,
				 const char *key, enum jc_kind kind)
{
	struct jc_value *v = member(obj, key);

	if (v && v->kind != kind) {
		derr(c, path(c, prefix, key), "expected %s",
		     kind == JC_OBJECT ? "an object" : kind == JC_ARRAY ? "an array" : "a string");
		return NULL;
	}
	return v;
}

/* ---- a record's members for its plugin's parse_json ---------------------- */

/* The host side of struct perfring_json_in: one object of one line. */
struct json_host {
	struct dctx *c;
	struct jc_value *obj;
};

static int jh_get_uint(void *h, const char *name, uint64_t max, uint64_t *out)
{
	struct json_host *j = h;
	uint64_t v;

	if (!has_member(j->obj, name))
		return 0;
	if (!get_uint(j->c, j->obj, NULL, name, max, &v))
		return -EINVAL;
	*out = v;
	return 1;
}

static int jh_get_s32(void *h, const char *name, uint32_t *out)
{
	struct json_host *j = h;
	uint32_t v;

	if (!has_member(j->obj, name))
		return 0;
	if (!get_s32(j->c, j->obj, NULL, name, &v))
		return -EINVAL;
	*out = v;
	return 1;
}

static int jh_get_addr(void *h, const char *name, uint64_t *out)
{
	struct json_host *j = h;
	uint64_t v;

	if (!has_member(j->obj, name))
		return 0;
	if (!get_addr(j->c, j->obj, NULL, name, &v))
		return -EINVAL;
	*out = v;
	return 1;
}

static int jh_get_bool(void *h, const char *name, bool *out)
{
	struct json_host *j = h;
	bool present;

	if (!get_bool(j->c, j->obj, NULL, name, out, &present))
		return -EINVAL;
	return present;
}

static int jh_get_string(void *h, const char *name, const char **str, size_t *len)
{
	struct json_host *j = h;
	struct jc_value *v;

	if (!has_member(j->obj, name))
		return 0;
	v = get_kind(j->c, j->obj, NULL, name, JC_STRING);
	if (!v)
		return -EINVAL;
	*str = v->s;
	*len = v->len;
	return 1;
}

static int jh_get_hex(void *h, const char *name, const void **bytes, size_t *len)
{
	struct json_host *j = h;
	const unsigned char *b;
	size_t n;

	if (!has_member(j->obj, name))
		return 0;
	if (!get_hex(j->c, j->obj, NULL, name, &b, &n))
		return -EINVAL;
	*bytes = b;
	*len = n;
	return 1;
}

static int jh_fail(void *h, const char *name, const char *msg)
{
	struct json_host *j = h;

	derr(j->c, name, "%s", msg ? msg : "invalid value");
	return -EINVAL;
}

static struct perfring_json_in json_in(struct json_host *j)
{
	struct perfring_json_in in = {
		.struct_size = sizeof(in), .host = j,
		.get_uint = jh_get_uint, .get_s32 = jh_get_s32, .get_addr = jh_get_addr,
		.get_bool = jh_get_bool, .get_string = jh_get_string, .get_hex = jh_get_hex,
		.fail = jh_fail,
	};

	return in;
}

/*
 * Build the record of an object's members through the plugin that owns
 * its type; the trailer is the library's (sid).  Returns the size, -1 with
 * the error in c, or -EOPNOTSUPP when the plugin parses no JSON.
 */
static int parse_by_plugin(struct dctx *c, struct jc_value *obj, const struct perfring_plugin *p,
			   const struct perfring_attr *a, uint32_t type, uint16_t misc,
			   const struct perfring_sample_id *sid, unsigned char *buf)
{
	struct json_host j = { c, obj };
	struct perfring_json_in in = json_in(&j);
	int ret = perfring_plugin_parse_json(p, a, type, misc, &in, sid, buf, JC_MAX_REC);

	if (ret == -EOPNOTSUPP)
		return ret;
	if (ret < 0 || c->err) {
		derr(c, NULL, "the %s record does not encode: %s", perfring_record_type_name(type) ?
		     perfring_record_type_name(type) : "plugin's", g_strerror(-ret));
		return -1;
	}
	check_unused(c, obj, NULL);
	return c->err ? -1 : ret;
}

static bool same_bytes(int n, const void *buf, const void *rec, size_t size);
static void put_sample_id(GString *out, const struct perfring_attr *a,
			  const struct perfring_sample_id *sid);

/*
 * A record as its plugin's JSON members (format_json), and the trailer, if
 * and only if the plugin's parse_json gives the same bytes back from them:
 * the JSON of a type has one owner, its plugin, in both directions.
 */
static bool encode_by_plugin(GString *out, const struct perfring_plugin *p,
			     const struct perfring_attr *a, uint32_t type,
			     const void *rec, size_t size, unsigned char *buf)
{
	/* Grown as needed: an escaped filename takes up to 6 bytes a byte. */
	static char *text;
	static size_t text_size;
	const struct perfring_event_header *h = rec;
	struct perfring_sample_id sid;
	struct jc_value *obj;
	struct dctx c = { NULL, g_ptr_array_new_with_free_func(g_free) };
	char *err = NULL;
	uint64_t st = trailer_bits(a);
	bool ok = false;
	int n;

	memset(&sid, 0, sizeof(sid));
	if (st && perfring_sample_id_decode(st, rec, size, &sid) < 0)
		goto out;
	n = perfring_plugin_format_json(p, a, rec, size, text ? text + 1 : NULL,
					text_size > 2 ? text_size - 2 : 0);
	if (n < 0)
		goto out;
	if ((size_t)n + 2 >= text_size) {
		g_free(text);
		text_size = (size_t)n + 3;
		text = g_malloc(text_size);
		n = perfring_plugin_format_json(p, a, rec, size, text + 1, text_size - 2);
		if (n < 0 || (size_t)n + 2 >= text_size)
			goto out;
	}
	text[0] = '{';
	text[n + 1] = '}';
	obj = jc_parse(text, (size_t)n + 2, &err);
	if (!obj)
		goto out;
	if (obj->kind == JC_OBJECT &&
	    same_bytes(parse_by_plugin(&c, obj, p, a, type, h->misc, &sid, buf), buf, rec, size)) {
		if (n) {
			g_string_append_c(out, ',');
			g_string_append_len(out, text + 1, n);
		}
		put_sample_id(out, a, &sid);
		ok = true;
	}
	jc_value_free(obj);
out:
	g_free(err);
	g_free(c.err);
	g_ptr_array_free(c.scratch, TRUE);
	return ok;
}

/* sample_type / read_format: array of names (or bit values), or an integer. */
static bool get_bits(struct dctx *c, struct jc_value *obj, const char *key,
		     const char *(*name)(unsigned), uint64_t *out)
{
	struct jc_value *v = member(obj, key);
	char *field = path(c, "attr", key);

	*out = 0;
	if (!v)
		return true;
	if (v->kind == JC_INT)
		return val_uint(c, field, v, UINT64_MAX, out);
	if (v->kind != JC_ARRAY) {
		derr(c, field, "expected an array of bit names");
		return false;
	}
	for (size_t i = 0; i < v->len; i++) {
		struct jc_value *e = v->items[i];
		unsigned b;

		if (e->kind == JC_INT) {
			uint64_t x;

			if (!val_uint(c, field, e, UINT64_MAX, &x))
				return false;
			*out |= x;
			continue;
		}
		if (e->kind != JC_STRING)
			goto bad;
		for (b = 0; b < 64; b++) {
			const char *n = name(b);

			if (n && !strcmp(n, e->s))
				break;
		}
		if (b == 64) {
			derr(c, field, "unknown bit name \"%s\"", e->s);
			return false;
		}
		*out |= 1ull << b;
	}
	return true;
bad:
	derr(c, field, "expected an array of bit names");
	return false;
}

struct jc_decoder *jc_decoder_new(const struct perfring_registry *reg)
{
	struct jc_decoder *d = g_new0(struct jc_decoder, 1);

	d->reg = reg;
	d->events = g_ptr_array_new();
	return d;
}

static void event_free(struct jc_event *e)
{
	if (!e)
		return;
	g_free(e->ids);
	g_free(e->name);
	g_free(e);
}

void jc_decoder_free(struct jc_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->events->len; i++)
		event_free(d->events->pdata[i]);
	g_ptr_array_free(d->events, TRUE);
	g_free(d);
}

size_t jc_decoder_nr_events(const struct jc_decoder *d)
{
	return d->events->len;
}

const struct jc_event *jc_decoder_event(const struct jc_decoder *d, size_t idx)
{
	return idx < d->events->len ? d->events->pdata[idx] : NULL;
}

uint64_t jc_decoder_nr_records(const struct jc_decoder *d)
{
	return d->nr_records;
}

static int decode_attr_line(struct jc_decoder *d, struct dctx *c, struct jc_value *top)
{
	struct jc_value *av = get_kind(c, top, NULL, "attr", JC_OBJECT);
	struct jc_value *ids = get_kind(c, top, NULL, "ids", JC_ARRAY);
	struct jc_value *name = get_kind(c, top, NULL, "name", JC_STRING);
	struct jc_event *e;
	struct perfring_attr *a;
	uint64_t v;
	bool b, present;

	if (c->err)
		return -1;
	if (!av) {
		derr(c, "attr", "missing");
		return -1;
	}
	e = g_new0(struct jc_event, 1);
	a = &e->attr;
	if (get_uint(c, av, "attr", "type", UINT32_MAX, &v))
		a->type = (uint32_t)v;
	a->size = PERFRING_ATTR_SIZE_VER7;
	if (has_member(av, "size") && get_uint(c, av, "attr", "size", UINT32_MAX, &v))
		a->size = (uint32_t)v;
	get_uint(c, av, "attr", "config", UINT64_MAX, &a->config);
	/* flags first: freq and watermark choose names below */
	for (unsigned bit = 0; bit < 38; bit++) {
		if (!flag_names[bit])
			continue;
		b = false;
		if (get_bool(c, av, "attr", flag_names[bit], &b, &present) && b)
			a->flags |= 1ull << bit;
	}
	if (get_uint(c, av, "attr", "precise_ip", 3, &v))
		a->flags |= v << PERFRING_ATTR_PRECISE_IP_SHIFT;
	if (get_uint(c, av, "attr", "flags_reserved", UINT64_MAX, &v)) {
		if (v & FLAGS_KNOWN)
			derr(c, "attr.flags_reserved", "has bits below 38 (use the flag names)");
		a->flags |= v;
	}
	if (has_member(av, "sample_period") && has_member(av, "sample_freq"))
		derr(c, "attr.sample_freq", "sample_period and sample_freq are the same field");
	else if (has_member(av, "sample_freq") && !(a->flags & PERFRING_ATTR_FREQ))
		derr(c, "attr.sample_freq", "needs \"freq\":true");
	else if (has_member(av, "sample_period") && (a->flags & PERFRING_ATTR_FREQ))
		derr(c, "attr.sample_period", "with \"freq\":true the field is sample_freq");
	get_uint(c, av, "attr", a->flags & PERFRING_ATTR_FREQ ? "sample_freq" : "sample_period",
		 UINT64_MAX, &a->sample_period);
	get_bits(c, av, "sample_type", perfring_sample_bit_name, &a->sample_type);
	get_bits(c, av, "read_format", perfring_format_bit_name, &a->read_format);
	for (size_t i = 0; i < N_ATTR_FIELDS; i++) {
		const struct attr_field *f = &attr_fields[i];
		const char *key = field_name(a, f);
		char *fp = path(c, "attr", key);
		uint64_t max = f->width == 8 ? UINT64_MAX : (1ull << (8 * f->width)) - 1;

		if (f->alt && has_member(av, f->alt == key ? f->name : f->alt)) {
			const char *other = f->alt == key ? f->name : f->alt;

			derr(c, path(c, "attr", other), "not the name of this field here (%s)",
			     key);
		}
		if (f->is_signed) {
			uint32_t x;

			if (get_s32(c, av, "attr", key, &x))
				field_set(a, f, x);
		} else if (get_uint(c, av, "attr", key, max, &v)) {
			field_set(a, f, v);
		}
		if (field_get(a, f) && a->size && f->off + f->width > a->size)
			derr(c, fp, "lies beyond attr.size %" PRIu32, a->size);
	}
	if (a->size && (a->size < PERFRING_ATTR_SIZE_VER0 || a->size % 8))
		derr(c, "attr.size", "must be 0 or a multiple of 8 from 64");
	check_unused(c, av, "attr");
	if (ids) {
		e->nr_ids = ids->len;
		e->ids = g_new0(uint64_t, ids->len ? ids->len : 1);
		for (size_t i = 0; i < ids->len; i++)
			val_uint(c, "ids", ids->items[i], UINT64_MAX, &e->ids[i]);
	}
	if (name) {
		if (memchr(name->s, 0, name->len))
			derr(c, "name", "holds a NUL byte");
		e->name = g_strdup(name->s);
	}
	check_unused(c, top, NULL);
	if (c->err) {
		event_free(e);
		return -1;
	}
	g_ptr_array_add(d->events, e);
	return JC_LINE_ATTR;
}

/* The event a record's id picks (0 when it picks none). */
static const struct jc_event *pick_event(struct jc_decoder *d, const struct jc_value *obj)
{
	const struct jc_value *v = NULL;

	if (d->events->len > 1 && obj) {
		for (size_t i = 0; i < obj->len; i++)
			if (!strcmp(obj->keys[i], "identifier"))
				v = obj->items[i];
		for (size_t i = 0; i < obj->len && !v; i++)
			if (!strcmp(obj->keys[i], "id"))
				v = obj->items[i];
		if (v && v->kind == JC_INT && !v->neg)
			for (size_t i = 0; i < d->events->len; i++) {
				const struct jc_event *e = d->events->pdata[i];

				if (ids_contain(e->ids, e->nr_ids, v->mag))
					return e;
			}
	}
	return d->events->pdata[0];
}

static void decode_sample_id(struct dctx *c, struct jc_value *top, const struct perfring_attr *a,
			     struct perfring_sample_id *sid)
{
	uint64_t st = trailer_bits(a), v;
	struct jc_value *o = get_kind(c, top, NULL, "sample_id", JC_OBJECT);

	memset(sid, 0, sizeof(*sid));
	if (!o)
		return;
	if (!st) {
		derr(c, "sample_id", "the event has no sample_id_all trailer");
		return;
	}
#define WANT(bit, key) \
	do { if (!(st & (bit)) && has_member(o, key)) \
		derr(c, path(c, "sample_id", key), "not in the event's sample_type"); } while (0)
	WANT(PERFRING_SAMPLE_TID, "pid");
	WANT(PERFRING_SAMPLE_TID, "tid");
	WANT(PERFRING_SAMPLE_TIME, "time");
	WANT(PERFRING_SAMPLE_ID, "id");
	WANT(PERFRING_SAMPLE_STREAM_ID, "stream_id");
	WANT(PERFRING_SAMPLE_CPU, "cpu");
	WANT(PERFRING_SAMPLE_CPU, "res");
	WANT(PERFRING_SAMPLE_IDENTIFIER, "identifier");
#undef WANT
	get_s32(c, o, "sample_id", "pid", &sid->pid);
	get_s32(c, o, "sample_id", "tid", &sid->tid);
	get_uint(c, o, "sample_id", "time", UINT64_MAX, &sid->time);
	get_uint(c, o, "sample_id", "id", UINT64_MAX, &sid->id);
	get_uint(c, o, "sample_id", "stream_id", UINT64_MAX, &sid->stream_id);
	if (get_uint(c, o, "sample_id", "cpu", UINT32_MAX, &v))
		sid->cpu = (uint32_t)v;
	if (get_uint(c, o, "sample_id", "res", UINT32_MAX, &v))
		sid->res = (uint32_t)v;
	get_uint(c, o, "sample_id", "identifier", UINT64_MAX, &sid->identifier);
	check_unused(c, o, "sample_id");
}

static uint64_t *scratch_u64(struct dctx *c, size_t n)
{
	uint64_t *p = g_new0(uint64_t, n ? n : 1);

	g_ptr_array_add(c->scratch, p);
	return p;
}

static void decode_regs(struct dctx *c, struct jc_value *top, const char *key, uint64_t mask,
			uint64_t *abi, const uint64_t **regs, uint32_t *nr)
{
	struct jc_value *o = get_kind(c, top, NULL, key, JC_OBJECT);
	struct jc_value *arr;
	uint64_t *r;

	*abi = 0;
	*regs = NULL;
	*nr = 0;
	if (!o)
		return;
	get_uint(c, o, key, "abi", UINT64_MAX, abi);
	arr = get_kind(c, o, key, "regs", JC_ARRAY);
	check_unused(c, o, key);
	if (c->err)
		return;
	if ((arr ? arr->len : 0) != (*abi ? (size_t)__builtin_popcountll(mask) : 0)) {
		derr(c, path(c, key, "regs"), "%s %d registers (one per bit of the attr's mask)",
		     *abi ? "expected" : "with abi 0 expected", *abi ? __builtin_popcountll(mask) : 0);
		return;
	}
	r = scratch_u64(c, arr ? arr->len : 0);
	for (size_t i = 0; arr && i < arr->len; i++)
		if (!val_addr(c, path(c, key, "regs"), arr->items[i], &r[i]))
			return;
	*regs = r;
	*nr = arr ? (uint32_t)arr->len : 0;
}

static void decode_read(struct dctx *c, struct jc_value *top, const struct perfring_attr *a,
			struct perfring_sample *s)
{
	struct jc_value *o = get_kind(c, top, NULL, "read", JC_OBJECT);
	uint64_t rf = a->read_format, *w;
	size_t n = 0;

	if (!o)
		return;
	if (rf & PERFRING_FORMAT_GROUP) {
		struct jc_value *vals = get_kind(c, o, "read", "values", JC_ARRAY);
		size_t nv = vals ? vals->len : 0;
		size_t per = 1 + !!(rf & PERFRING_FORMAT_ID) + !!(rf & PERFRING_FORMAT_LOST);

		w = scratch_u64(c, 3 + nv * per);
		w[n++] = nv;
		if (rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED)
			get_uint(c, o, "read", "time_enabled", UINT64_MAX, &w[n++]);
		if (rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING)
			get_uint(c, o, "read", "time_running", UINT64_MAX, &w[n++]);
		for (size_t i = 0; i < nv; i++) {
			struct jc_value *e = vals->items[i];

			if (e->kind != JC_OBJECT) {
				derr(c, "read.values", "expected objects");
				return;
			}
			get_uint(c, e, "read.values", "value", UINT64_MAX, &w[n++]);
			if (rf & PERFRING_FORMAT_ID)
				get_uint(c, e, "read.values", "id", UINT64_MAX, &w[n++]);
			if (rf & PERFRING_FORMAT_LOST)
				get_uint(c, e, "read.values", "lost", UINT64_MAX, &w[n++]);
			check_unused(c, e, "read.values");
		}
	} else {
		w = scratch_u64(c, 5);
		get_uint(c, o, "read", "value", UINT64_MAX, &w[n++]);
		if (rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED)
			get_uint(c, o, "read", "time_enabled", UINT64_MAX, &w[n++]);
		if (rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING)
			get_uint(c, o, "read", "time_running", UINT64_MAX, &w[n++]);
		if (rf & PERFRING_FORMAT_ID)
			get_uint(c, o, "read", "id", UINT64_MAX, &w[n++]);
		if (rf & PERFRING_FORMAT_LOST)
			get_uint(c, o, "read", "lost", UINT64_MAX, &w[n++]);
	}
	check_unused(c, o, "read");
	s->read_values = w;
	s->nr_read_words = (uint32_t)n;
}

static int decode_sample(struct dctx *c, struct jc_value *top, const struct perfring_attr *a,
			 uint16_t misc, unsigned char *buf)
{
	struct perfring_sample s;
	uint64_t st = a->sample_type, v;
	struct jc_value *arr;
	const unsigned char *bytes;
	size_t n;
	int ret;

	memset(&s, 0, sizeof(s));
	static const struct { uint64_t bit; const char *key; } fields[] = {
		{ PERFRING_SAMPLE_IDENTIFIER, "identifier" }, { PERFRING_SAMPLE_IP, "ip" },
		{ PERFRING_SAMPLE_TID, "pid" }, { PERFRING_SAMPLE_TID, "tid" },
		{ PERFRING_SAMPLE_TIME, "time" }, { PERFRING_SAMPLE_ADDR, "addr" },
		{ PERFRING_SAMPLE_ID, "id" }, { PERFRING_SAMPLE_STREAM_ID, "stream_id" },
		{ PERFRING_SAMPLE_CPU, "cpu" }, { PERFRING_SAMPLE_CPU, "res" },
		{ PERFRING_SAMPLE_PERIOD, "period" }, { PERFRING_SAMPLE_READ, "read" },
		{ PERFRING_SAMPLE_CALLCHAIN, "callchain" }, { PERFRING_SAMPLE_RAW, "raw" },
		{ PERFRING_SAMPLE_BRANCH_STACK, "branch_stack" },
		{ PERFRING_SAMPLE_BRANCH_STACK, "branch_hw_idx" },
		{ PERFRING_SAMPLE_REGS_USER, "regs_user" },
		{ PERFRING_SAMPLE_STACK_USER, "stack_user" },
		{ PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT, "weight" },
		{ PERFRING_SAMPLE_DATA_SRC, "data_src" },
		{ PERFRING_SAMPLE_TRANSACTION, "transaction" },
		{ PERFRING_SAMPLE_REGS_INTR, "regs_intr" },
		{ PERFRING_SAMPLE_PHYS_ADDR, "phys_addr" }, { PERFRING_SAMPLE_CGROUP, "cgroup" },
		{ PERFRING_SAMPLE_DATA_PAGE_SIZE, "data_page_size" },
		{ PERFRING_SAMPLE_CODE_PAGE_SIZE, "code_page_size" },
		{ PERFRING_SAMPLE_AUX, "aux" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
		if (!(st & fields[i].bit) && has_member(top, fields[i].key))
			derr(c, fields[i].key, "not in the event's sample_type");
	if (has_member(top, "branch_hw_idx") &&
	    !(a->branch_sample_type & PERFRING_BRANCH_HW_INDEX))
		derr(c, "branch_hw_idx", "the event's branch_sample_type has no HW_INDEX");

	get_uint(c, top, NULL, "identifier", UINT64_MAX, &s.identifier);
	get_addr(c, top, NULL, "ip", &s.ip);
	get_s32(c, top, NULL, "pid", &s.pid);
	get_s32(c, top, NULL, "tid", &s.tid);
	get_uint(c, top, NULL, "time", UINT64_MAX, &s.time);
	get_addr(c, top, NULL, "addr", &s.addr);
	get_uint(c, top, NULL, "id", UINT64_MAX, &s.id);
	get_uint(c, top, NULL, "stream_id", UINT64_MAX, &s.stream_id);
	if (get_uint(c, top, NULL, "cpu", UINT32_MAX, &v))
		s.cpu = (uint32_t)v;
	if (get_uint(c, top, NULL, "res", UINT32_MAX, &v))
		s.cpu_res = (uint32_t)v;
	get_uint(c, top, NULL, "period", UINT64_MAX, &s.period);
	decode_read(c, top, a, &s);
	arr = get_kind(c, top, NULL, "callchain", JC_ARRAY);
	if (arr) {
		uint64_t *cc = scratch_u64(c, arr->len);

		for (size_t i = 0; i < arr->len; i++)
			val_addr(c, "callchain", arr->items[i], &cc[i]);
		s.callchain = cc;
		s.callchain_nr = arr->len;
	}
	if (get_hex(c, top, NULL, "raw", &bytes, &n)) {
		if (n > UINT32_MAX)
			derr(c, "raw", "too long");
		s.raw = bytes;
		s.raw_size = (uint32_t)n;
		if (st & PERFRING_SAMPLE_RAW && (4 + n) % 8)
			derr(c, "raw", "4 + its size must be a multiple of 8 (the kernel pads it)");
	}
	get_uint(c, top, NULL, "branch_hw_idx", UINT64_MAX, &s.branch_hw_idx);
	arr = get_kind(c, top, NULL, "branch_stack", JC_ARRAY);
	if (arr) {
		uint64_t *b = scratch_u64(c, 3 * arr->len);

		for (size_t i = 0; i < arr->len && !c->err; i++) {
			struct jc_value *e = arr->items[i];

			if (e->kind != JC_OBJECT) {
				derr(c, "branch_stack", "expected objects");
				break;
			}
			get_addr(c, e, "branch_stack", "from", &b[3 * i]);
			get_addr(c, e, "branch_stack", "to", &b[3 * i + 1]);
			get_uint(c, e, "branch_stack", "flags", UINT64_MAX, &b[3 * i + 2]);
			check_unused(c, e, "branch_stack");
		}
		s.branches = (const struct perfring_branch_entry *)b;
		s.branch_nr = arr->len;
	}
	decode_regs(c, top, "regs_user", a->sample_regs_user, &s.regs_user_abi, &s.regs_user,
		    &s.regs_user_nr);
	{
		struct jc_value *o = get_kind(c, top, NULL, "stack_user", JC_OBJECT);

		if (o) {
			if (get_hex(c, o, "stack_user", "data", &bytes, &n)) {
				s.stack_user = bytes;
				s.stack_user_size = n;
			}
			if (!n && has_member(o, "dyn_size"))
				derr(c, "stack_user.dyn_size", "no dyn_size without data");
			get_uint(c, o, "stack_user", "dyn_size", UINT64_MAX, &s.stack_user_dyn_size);
			check_unused(c, o, "stack_user");
		}
	}
	get_uint(c, top, NULL, "weight", UINT64_MAX, &s.weight);
	get_uint(c, top, NULL, "data_src", UINT64_MAX, &s.data_src);
	get_uint(c, top, NULL, "transaction", UINT64_MAX, &s.transaction);
	decode_regs(c, top, "regs_intr", a->sample_regs_intr, &s.regs_intr_abi, &s.regs_intr,
		    &s.regs_intr_nr);
	get_addr(c, top, NULL, "phys_addr", &s.phys_addr);
	get_uint(c, top, NULL, "cgroup", UINT64_MAX, &s.cgroup);
	get_uint(c, top, NULL, "data_page_size", UINT64_MAX, &s.data_page_size);
	get_uint(c, top, NULL, "code_page_size", UINT64_MAX, &s.code_page_size);
	if (get_hex(c, top, NULL, "aux", &bytes, &n)) {
		s.aux = bytes;
		s.aux_size = n;
	}
	check_unused(c, top, NULL);
	if (c->err)
		return -1;
	ret = perfring_sample_encode(a, &s, misc, buf, JC_MAX_REC);
	if (ret < 0) {
		derr(c, NULL, "the SAMPLE does not encode: %s", g_strerror(-ret));
		return -1;
	}
	return ret;
}

/* A side-band or third-party record from its fields, through its plugin. */
static int decode_by_plugin(struct jc_decoder *d, struct dctx *c, struct jc_value *top,
			    const struct perfring_attr *a, uint32_t type, uint16_t misc,
			    unsigned char *buf)
{
	const struct perfring_plugin *p = d->reg ? perfring_registry_find(d->reg, type) : NULL;
	const char *name = perfring_record_type_name(type);
	char num[16];
	struct perfring_sample_id sid;
	int ret;

	if (!name) {
		snprintf(num, sizeof(num), "%u", type);
		name = num;
	}
	decode_sample_id(c, top, a, &sid);
	if (c->err)
		return -1;
	if (!p) {
		derr(c, "type", "no plugin encodes %s records (is PERFRING_PLUGIN_PATH right?)", name);
		return -1;
	}
	ret = parse_by_plugin(c, top, p, a, type, misc, &sid, buf);
	if (ret == -EOPNOTSUPP) {
		derr(c, "type", "plugin '%s' (%s) reads no %s fields: give the record's body as hex",
		     perfring_plugin_name(p), perfring_plugin_file(p), name);
		return -1;
	}
	return ret;
}

static int decode_record(struct jc_decoder *d, struct dctx *c, struct jc_value *top,
			 uint32_t type, unsigned char *buf)
{
	const struct jc_event *e = NULL;
	const char *hexkey = NULL;
	uint64_t misc;
	int ret = -1;

	if (!get_uint(c, top, NULL, "misc", UINT16_MAX, &misc))
		return -1;
	member(top, "offset");	/* informative only */

	switch (type) {
	case PERFRING_RECORD_SAMPLE:
	case PERFRING_RECORD_LOST:
	case PERFRING_RECORD_COMM:
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2:
	case PERFRING_RECORD_FORK:
	case PERFRING_RECORD_EXIT:
		if (has_member(top, "body")) {
			hexkey = "body";
			break;
		}
		if (!d->events->len) {
			derr(c, "type", "a record before any ATTR line");
			return -1;
		}
		if (type == PERFRING_RECORD_SAMPLE) {
			e = pick_event(d, top);
			return decode_sample(c, top, &e->attr, (uint16_t)misc, buf);
		}
		{
			struct jc_value *sidv = NULL;

			for (size_t i = 0; i < top->len; i++)
				if (!strcmp(top->keys[i], "sample_id") &&
				    top->items[i]->kind == JC_OBJECT)
					sidv = top->items[i];
			e = pick_event(d, sidv);
		}
		if (type == PERFRING_RECORD_LOST) {
			struct perfring_lost l;
			struct perfring_sample_id sid;

			get_uint(c, top, NULL, "id", UINT64_MAX, &l.id);
			get_uint(c, top, NULL, "lost", UINT64_MAX, &l.lost);
			decode_sample_id(c, top, &e->attr, &sid);
			check_unused(c, top, NULL);
			if (c->err)
				return -1;
			ret = perfring_lost_encode(&e->attr, &l, &sid, buf, JC_MAX_REC);
			if (ret < 0) {
				derr(c, NULL, "the LOST record does not encode: %s", g_strerror(-ret));
				return -1;
			}
			put16(buf + 4, (uint16_t)misc);
			return ret;
		}
		return decode_by_plugin(d, c, top, &e->attr, type, (uint16_t)misc, buf);
	default: {
		const struct perfring_plugin *p = d->reg ? perfring_registry_find(d->reg, type) : NULL;

		hexkey = has_member(top, "raw") ? "raw" : "body";
		if (p && !has_member(top, hexkey)) {
			/* No bytes: the plugin builds the record from its fields. */
			struct jc_value *sidv = NULL;

			if (!d->events->len) {
				derr(c, "type", "a record before any ATTR line");
				return -1;
			}
			for (size_t i = 0; i < top->len; i++)
				if (!strcmp(top->keys[i], "sample_id") &&
				    top->items[i]->kind == JC_OBJECT)
					sidv = top->items[i];
			e = pick_event(d, sidv);
			return decode_by_plugin(d, c, top, &e->attr, type, (uint16_t)misc, buf);
		}
		if (p)
			/* A plugin's informative members: the bytes count. */
			for (size_t i = 0; i < top->len; i++)
				top->used[i] = true;
		break;
	}
	}
	{
		const unsigned char *bytes;
		size_t n;

		if (!has_member(top, hexkey)) {
			derr(c, hexkey, "missing (the record's body as hex)");
			return -1;
		}
		if (!get_hex(c, top, NULL, hexkey, &bytes, &n))
			return -1;
		check_unused(c, top, NULL);
		if (c->err)
			return -1;
		if (n + 8 > UINT16_MAX) {
			derr(c, hexkey, "a record holds at most %u bytes", UINT16_MAX);
			return -1;
		}
		memcpy(buf, &type, 4);
		put16(buf + 4, (uint16_t)misc);
		put16(buf + 6, (uint16_t)(n + 8));
		if (n)
			memcpy(buf + 8, bytes, n);
		ret = (int)(n + 8);
	}
	return ret;
}

int jc_decode_line(struct jc_decoder *d, const char *line, size_t len,
		   unsigned char *buf, size_t *rec_size, char **err)
{
	struct dctx c = { NULL, g_ptr_array_new_with_free_func(g_free) };
	struct jc_value *top, *tv;
	uint32_t type = 0;
	int ret = -1;
	size_t i;

	*err = NULL;
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len) {
		g_ptr_array_free(c.scratch, TRUE);
		return JC_LINE_BLANK;
	}
	top = jc_parse(line, len, err);
	if (!top) {
		g_ptr_array_free(c.scratch, TRUE);
		return -1;
	}
	if (top->kind != JC_OBJECT) {
		derr(&c, NULL, "expected one JSON object per line");
		goto out;
	}
	tv = member(top, "type");
	if (!tv) {
		derr(&c, "type", "missing");
		goto out;
	}
	if (tv->kind == JC_STRING && !strcmp(tv->s, "ATTR") && has_member(top, "attr")) {
		ret = decode_attr_line(d, &c, top);
		goto out;
	}
	if (tv->kind == JC_STRING) {
		if (perfring_record_type_from_name(tv->s, &type) < 0) {
			derr(&c, "type", "unknown record type name \"%s\"", tv->s);
			goto out;
		}
	} else {
		uint64_t v;

		if (!val_uint(&c, "type", tv, UINT32_MAX, &v))
			goto out;
		type = (uint32_t)v;
	}
	ret = decode_record(d, &c, top, type, buf);
	if (ret >= 0) {
		*rec_size = (size_t)ret;
		d->nr_records++;
		ret = JC_LINE_RECORD;
	}
out:
	if (c.err) {
		*err = c.err;
		ret = -1;
	}
	jc_value_free(top);
	g_ptr_array_free(c.scratch, TRUE);
	return ret;
}
