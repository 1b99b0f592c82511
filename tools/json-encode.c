/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records -> JSON lines for the perfring tools (see json-codec.h for the
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

#include "json-codec-priv.h"
#include "num-fmt.h"

void jc_put_hex(GString *out, const void *data, size_t n)
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
		if (n) {
			g_string_append_c(out, '"');
			g_string_append(out, n);
			g_string_append_c(out, '"');
		} else {
			append_dec(out, (uint64_t)1 << b);
		}
	}
	g_string_append_c(out, ']');
}

void jc_encode_attr(GString *out, const struct perfring_attr *a,
		    const uint64_t *ids, size_t nr_ids, const char *name)
{
	/* by hand too: an ATTR line was a dozen formats */
	g_string_append(out, "{\"type\":\"ATTR\",\"attr\":{\"type\":");
	append_dec(out, a->type);
	put_u64(out, "size", a->size);
	put_u64(out, "config", a->config);
	put_u64(out, a->flags & PERFRING_ATTR_FREQ ? "sample_freq" : "sample_period",
		a->sample_period);
	g_string_append(out, ",\"sample_type\":");
	put_bits(out, a->sample_type, perfring_sample_bit_name);
	g_string_append(out, ",\"read_format\":");
	put_bits(out, a->read_format, perfring_read_format_bit_name);
	for (unsigned b = 0; b < 38; b++)
		if (jc_flag_names[b] && (a->flags & (1ull << b))) {
			append_key(out, jc_flag_names[b]);
			g_string_append_len(out, "true", 4);
		}
	if (a->flags & PERFRING_ATTR_PRECISE_IP_MASK)
		put_u64(out, "precise_ip", (a->flags & PERFRING_ATTR_PRECISE_IP_MASK) >>
			PERFRING_ATTR_PRECISE_IP_SHIFT);
	if (a->flags & ~FLAGS_KNOWN)
		put_u64(out, "flags_reserved", a->flags & ~FLAGS_KNOWN);
	for (size_t i = 0; i < N_ATTR_FIELDS; i++) {
		const struct attr_field *f = &jc_attr_fields[i];
		uint64_t v = jc_field_get(a, f);

		if (!v)
			continue;
		if (f->is_signed)
			put_pid(out, jc_field_name(a, f), (uint32_t)v);
		else
			put_u64(out, jc_field_name(a, f), v);
	}
	g_string_append(out, "},\"ids\":[");
	for (size_t i = 0; i < nr_ids; i++) {
		if (i)
			g_string_append_c(out, ',');
		append_dec(out, ids[i]);
	}
	g_string_append_c(out, ']');
	if (name && *name) {
		g_string_append(out, ",\"name\":");
		put_str(out, name, strlen(name));
	}
	g_string_append_c(out, '}');
}

void jc_put_sample_id(GString *out, const struct perfring_attr *a,
			  const struct perfring_sample_id *sid)
{
	uint64_t st = jc_trailer_bits(a);
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

/* A record as its plugin's members (json-decode.c checks them both ways),
 * then its trailer. */
static bool by_plugin(GString *out, const struct perfring_plugin *p,
		      const struct perfring_attr *a, uint32_t type,
		      const void *rec, size_t size, unsigned char *buf)
{
	struct perfring_sample_id sid;

	if (!jc_encode_by_plugin(out, p, a, type, rec, size, buf, &sid))
		return false;
	jc_put_sample_id(out, a, &sid);
	return true;
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
		jc_put_hex(out, s->raw, s->raw_size);
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
		jc_put_hex(out, s->stack_user, (size_t)s->stack_user_size);
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
		jc_put_hex(out, s->aux, (size_t)s->aux_size);
	}
}

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
		    jc_same_bytes(perfring_sample_encode(a, &s, h->misc, buf, JC_MAX_REC),
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
		if (!a || perfring_lost_decode(a, rec, size, &l, &sid) < 0)
			break;
		n = perfring_lost_encode(a, &l, &sid, buf, JC_MAX_REC);
		if (n >= 8)
			put16(buf + 4, h->misc);
		if (!jc_same_bytes(n, buf, rec, size))
			break;
		put_u64(out, "id", l.id);
		put_u64(out, "lost", l.lost);
		jc_put_sample_id(out, a, &sid);
		decoded = true;
		break;
	}
	case PERFRING_RECORD_COMM:
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2:
	case PERFRING_RECORD_FORK:
	case PERFRING_RECORD_EXIT:
		known = true;
		decoded = a && p && by_plugin(out, p, a, type, rec, size, buf);
		break;
	default:
		decoded = a && p && by_plugin(out, p, a, type, rec, size, buf);
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
		jc_put_hex(out, (const char *)rec + 8, size > 8 ? size - 8 : 0);
	}
	g_string_append_c(out, '}');
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
		if (jc_ids_contain(ids[i], nr_ids[i], id))
			return i;
	return 0;
}

const struct perfring_attr *jc_field_attr(const struct perfring_attr *const *attrs,
					  const uint64_t *const *ids, const size_t *nr_ids,
					  size_t n, const struct perfring_attr *attr,
					  const void *rec, size_t size)
{
	const struct perfring_attr *pick = NULL;
	size_t lines = 0;
	uint64_t id;

	if (!attr)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (attrs[i] && !lines++)
			pick = attrs[i];
	if (!pick)
		return NULL;	/* no ATTR line yet: the decoder reads no fields */
	/* the id the fields carry is the one at attr's own positions */
	if (lines > 1 && perfring_record_id(attr, rec, size, &id) == 1)
		for (size_t i = 0; i < n; i++)
			if (attrs[i] && jc_ids_contain(ids[i], nr_ids[i], id)) {
				pick = attrs[i];
				break;
			}
	return pick == attr || !memcmp(pick, attr, sizeof(*attr)) ? attr : NULL;
}
