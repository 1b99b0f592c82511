/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON lines -> records for perfring-replay --json-in (see json-codec.h for
 * the format): each line is parsed by json.c, then its members are encoded
 * into the record with the library's codec or the record's plugin.
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

struct jc_decoder {
	const struct perfring_registry *reg;
	GPtrArray *events;		/* struct jc_event * */
	uint64_t nr_records;
};

/* The context of one line: the first error wins. */
struct dctx {
	char *err;
	GPtrArray *scratch;		/* NULL until used; freed after the record is encoded */
	/*
	 * The dotted names of fields ("attr.sample_type"), needed only by an
	 * error message but made for every field: from here, not from
	 * malloc, while they fit.
	 */
	size_t paths_used;
	char paths[1024];
};

/* p is freed with the line. */
static void *scratch_add(struct dctx *c, void *p)
{
	if (!c->scratch)
		c->scratch = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(c->scratch, p);
	return p;
}

static void dctx_clear(struct dctx *c)
{
	if (c->scratch)
		g_ptr_array_free(c->scratch, TRUE);
	c->scratch = NULL;
	c->paths_used = 0;
}

static void derr(struct dctx *c, const char *field, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void derr(struct dctx *c, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (c->err)
		return;
	va_start(ap, fmt);
	c->err = field ? jc_vmsg("field \"", field, "\": ", fmt, ap) : jc_vmsg("", "", "", fmt, ap);
	va_end(ap);
}

static struct jc_value *member(struct jc_value *obj, const char *key)
{
	size_t i;
	struct jc_value *v = jc_member(obj, key, &i);

	if (v)
		obj->used[i] = true;
	return v;
}

static bool has_member(const struct jc_value *obj, const char *key)
{
	return jc_member(obj, key, NULL) != NULL;
}

static char *path(struct dctx *c, const char *prefix, const char *key)
{
	size_t lp, lk;
	char *p;

	if (!prefix)
		return (char *)key;
	lp = strlen(prefix);
	lk = strlen(key);
	if (lp + lk + 2 <= sizeof(c->paths) - c->paths_used) {
		p = c->paths + c->paths_used;
		c->paths_used += lp + lk + 2;
	} else {
		p = scratch_add(c, g_malloc(lp + lk + 2));
	}
	memcpy(p, prefix, lp);
	p[lp] = '.';
	memcpy(p + lp + 1, key, lk + 1);
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
	b = scratch_add(c, g_malloc(v->len / 2 + 1));
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

/* See json-codec-priv.h.  The JSON of a type has one owner, its plugin, in
 * both directions. */
bool jc_encode_by_plugin(GString *out, const struct perfring_plugin *p,
			 const struct perfring_attr *a, uint32_t type,
			 const void *rec, size_t size, unsigned char *buf,
			 struct perfring_sample_id *sid_out)
{
	/* Grown as needed: an escaped filename takes up to 6 bytes a byte. */
	static char *text;
	static size_t text_size;
	const struct perfring_event_header *h = rec;
	struct perfring_sample_id sid;
	struct jc_value *obj;
	struct dctx c = { 0 };
	char *err = NULL;
	uint64_t st = jc_trailer_bits(a);
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
	    jc_same_bytes(parse_by_plugin(&c, obj, p, a, type, h->misc, &sid, buf), buf, rec, size)) {
		if (n) {
			g_string_append_c(out, ',');
			g_string_append_len(out, text + 1, n);
		}
		*sid_out = sid;
		ok = true;
	}
	jc_value_free(obj);
out:
	g_free(err);
	g_free(c.err);
	dctx_clear(&c);
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

/*
 * The bit of a flag name (jc_flag_names), or -1.  An ATTR line's members
 * are looked up here, a few, rather than each of the 36 names in the line.
 */
static int flag_bit(const char *key)
{
	static GHashTable *bits;

	if (g_once_init_enter(&bits)) {
		GHashTable *t = g_hash_table_new(g_str_hash, g_str_equal);

		for (unsigned b = 0; b < 38; b++)
			if (jc_flag_names[b])
				g_hash_table_insert(t, (gpointer)jc_flag_names[b],
						    GUINT_TO_POINTER(b + 1));
		g_once_init_leave(&bits, t);
	}
	return (int)GPOINTER_TO_UINT(g_hash_table_lookup(bits, key)) - 1;
}

static int decode_attr_line(struct jc_decoder *d, struct dctx *c, struct jc_value *top)
{
	struct jc_value *av = get_kind(c, top, NULL, "attr", JC_OBJECT);
	struct jc_value *ids = get_kind(c, top, NULL, "ids", JC_ARRAY);
	struct jc_value *name = get_kind(c, top, NULL, "name", JC_STRING);
	struct jc_event *e;
	struct perfring_attr *a;
	uint64_t v;

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
	for (size_t i = 0; i < av->len; i++) {
		int bit = flag_bit(av->keys[i]);

		if (bit < 0)
			continue;
		av->used[i] = true;
		if (av->items[i]->kind != JC_BOOL)
			derr(c, path(c, "attr", av->keys[i]), "expected true or false");
		else if (av->items[i]->b)
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
	get_bits(c, av, "read_format", perfring_read_format_bit_name, &a->read_format);
	for (size_t i = 0; i < N_ATTR_FIELDS; i++) {
		const struct attr_field *f = &jc_attr_fields[i];
		const char *key = jc_field_name(a, f);
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
				jc_field_set(a, f, x);
		} else if (get_uint(c, av, "attr", key, max, &v)) {
			jc_field_set(a, f, v);
		}
		if (jc_field_get(a, f) && a->size && f->off + f->width > a->size)
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

				if (jc_ids_contain(e->ids, e->nr_ids, v->mag))
					return e;
			}
	}
	return d->events->pdata[0];
}

static void decode_sample_id(struct dctx *c, struct jc_value *top, const struct perfring_attr *a,
			     struct perfring_sample_id *sid)
{
	uint64_t st = jc_trailer_bits(a), v;
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
	return scratch_add(c, g_new0(uint64_t, n ? n : 1));
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

/* A SAMPLE's keys must be fields of the event's sample_type. */
static void check_sample_keys(struct dctx *c, struct jc_value *top, const struct perfring_attr *a)
{
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
	uint64_t st = a->sample_type;

	for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
		if (!(st & fields[i].bit) && has_member(top, fields[i].key))
			derr(c, fields[i].key, "not in the event's sample_type");
	if (has_member(top, "branch_hw_idx") &&
	    !(a->branch_sample_type & PERFRING_BRANCH_HW_INDEX))
		derr(c, "branch_hw_idx", "the event's branch_sample_type has no HW_INDEX");
}

static void decode_callchain(struct dctx *c, struct jc_value *top, struct perfring_sample *s)
{
	struct jc_value *arr = get_kind(c, top, NULL, "callchain", JC_ARRAY);

	if (arr) {
		uint64_t *cc = scratch_u64(c, arr->len);

		for (size_t i = 0; i < arr->len; i++)
			val_addr(c, "callchain", arr->items[i], &cc[i]);
		s->callchain = cc;
		s->callchain_nr = arr->len;
	}
}

static void decode_raw(struct dctx *c, struct jc_value *top, uint64_t st,
		       struct perfring_sample *s)
{
	const unsigned char *bytes;
	size_t n;

	if (get_hex(c, top, NULL, "raw", &bytes, &n)) {
		if (n > UINT32_MAX)
			derr(c, "raw", "too long");
		s->raw = bytes;
		s->raw_size = (uint32_t)n;
		if (st & PERFRING_SAMPLE_RAW && (4 + n) % 8)
			derr(c, "raw", "4 + its size must be a multiple of 8 (the kernel pads it)");
	}
}

static void decode_branch_stack(struct dctx *c, struct jc_value *top, struct perfring_sample *s)
{
	struct jc_value *arr = get_kind(c, top, NULL, "branch_stack", JC_ARRAY);

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
		s->branches = (const struct perfring_branch_entry *)b;
		s->branch_nr = arr->len;
	}
}

static void decode_stack_user(struct dctx *c, struct jc_value *top, struct perfring_sample *s)
{
	struct jc_value *o = get_kind(c, top, NULL, "stack_user", JC_OBJECT);
	const unsigned char *bytes;
	size_t n;

	if (o) {
		if (get_hex(c, o, "stack_user", "data", &bytes, &n)) {
			s->stack_user = bytes;
			s->stack_user_size = n;
		}
		if (!n && has_member(o, "dyn_size"))
			derr(c, "stack_user.dyn_size", "no dyn_size without data");
		get_uint(c, o, "stack_user", "dyn_size", UINT64_MAX, &s->stack_user_dyn_size);
		check_unused(c, o, "stack_user");
	}
}

static int decode_sample(struct dctx *c, struct jc_value *top, const struct perfring_attr *a,
			 uint16_t misc, unsigned char *buf)
{
	struct perfring_sample s;
	uint64_t v;
	const unsigned char *bytes;
	size_t n;
	int ret;

	memset(&s, 0, sizeof(s));
	check_sample_keys(c, top, a);

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
	decode_callchain(c, top, &s);
	decode_raw(c, top, a->sample_type, &s);
	get_uint(c, top, NULL, "branch_hw_idx", UINT64_MAX, &s.branch_hw_idx);
	decode_branch_stack(c, top, &s);
	decode_regs(c, top, "regs_user", a->sample_regs_user, &s.regs_user_abi, &s.regs_user,
		    &s.regs_user_nr);
	decode_stack_user(c, top, &s);
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
	struct dctx c = { 0 };
	struct jc_value *top, *tv;
	uint32_t type = 0;
	int ret = -1;
	size_t i;

	*err = NULL;
	for (i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			break;
	if (i == len) {
		dctx_clear(&c);
		return JC_LINE_BLANK;
	}
	top = jc_parse(line, len, err);
	if (!top) {
		dctx_clear(&c);
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
	dctx_clear(&c);
	return ret;
}
