/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pprof writer: profile.proto (github.com/google/pprof, proto/
 * profile.proto), gzipped.
 *
 * The protobuf encoding is written by hand, not with libprotobuf-c: the
 * writer only ever encodes, and only this one schema, whose wire format
 * needs four things (varints, packed varint arrays, length-delimited
 * strings and sub-messages).  That is some 80 lines here against a
 * generated .pb-c.c, a protoc-c build step and a run-time library, and the
 * generated code would want the whole profile as a tree of C structs in
 * memory before packing it, where this encodes each message straight from
 * the arrays the reader built.  Sub-messages are encoded into a scratch
 * buffer first so that their length can precede them.  The field numbers
 * are those of profile.proto; the tests read the result with two decoders
 * no one here wrote (go tool pprof, npm pprof-format).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "export.h"

/* ---- the wire format ------------------------------------------------------ */

enum { WT_VARINT = 0, WT_LEN = 2 };

static void pb_varint(GByteArray *b, uint64_t v)
{
	uint8_t t[10];
	unsigned n = 0;

	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	g_byte_array_append(b, t, n);
}

static void pb_key(GByteArray *b, unsigned field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* A varint field; proto3 leaves zero values out. */
static void pb_uint(GByteArray *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(GByteArray *b, unsigned field, const void *p, size_t n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	g_byte_array_append(b, p, (guint)n);
}

/* A sub-message from its encoding in m (which is then emptied). */
static void pb_msg(GByteArray *b, unsigned field, GByteArray *m)
{
	pb_bytes(b, field, m->data, m->len);
	g_byte_array_set_size(m, 0);
}

/* ---- the string table ------------------------------------------------------ */

struct strtab {
	GHashTable *idx;	/* string -> index + 1 */
	GPtrArray *strs;	/* borrowed or owned (own) strings, in order */
	GPtrArray *own;
};

static uint64_t str_id(struct strtab *t, const char *s)
{
	gpointer v;

	if (!s || !*s)
		return 0;
	v = g_hash_table_lookup(t->idx, s);
	if (v)
		return (uint64_t)GPOINTER_TO_SIZE(v) - 1;
	g_ptr_array_add(t->strs, (gpointer)s);
	g_hash_table_insert(t->idx, (gpointer)s, GSIZE_TO_POINTER(t->strs->len));
	return t->strs->len - 1;
}

static uint64_t str_own(struct strtab *t, char *s)
{
	g_ptr_array_add(t->own, s);
	return str_id(t, s);
}

/* ---- the profile ------------------------------------------------------------ */

static void value_type(GByteArray *b, unsigned field, GByteArray *m, struct strtab *t,
		       const char *type, const char *unit)
{
	pb_uint(m, 1, str_id(t, type));
	pb_uint(m, 2, str_id(t, unit));
	pb_msg(b, field, m);
}

static void label(GByteArray *b, GByteArray *m, struct strtab *t, const char *key,
		  const char *str, uint64_t num)
{
	pb_uint(m, 1, str_id(t, key));
	if (str) {
		pb_uint(m, 2, str_id(t, str));
	} else {	/* even 0: a label without num or str would read as empty */
		pb_key(m, 3, WT_VARINT);
		pb_varint(m, num);
	}
	pb_msg(b, 3, m);
}

static void hex_id(char *out, const uint8_t *id, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[id[i] >> 4];
		out[2 * i + 1] = hx[id[i] & 15];
	}
	out[2 * n] = 0;
}

/* Encode the whole profile into out. */
static void encode(const struct ex_profile *p, GByteArray *out)
{
	struct strtab t = {
		.idx = g_hash_table_new(g_str_hash, g_str_equal),
		.strs = g_ptr_array_new(),
		.own = g_ptr_array_new_with_free_func(g_free),
	};
	GByteArray *m = g_byte_array_new(), *m2 = g_byte_array_new(), *pk = g_byte_array_new();
	guint i, j, nev = p->events->len;

	g_ptr_array_add(t.strs, (gpointer)"");	/* string 0 is "" */
	for (i = 0; i < nev; i++) {
		const struct ex_event *e = &g_array_index(p->events, struct ex_event, i);

		char *nm = g_strdup_printf("%s_samples", e->name);

		g_ptr_array_add(t.own, nm);
		value_type(out, 1, m, &t, nm, "count");
		value_type(out, 1, m, &t, e->name, e->unit);
	}
	for (i = 0; i < p->samples->len; i++) {
		const struct ex_sample *s = &g_array_index(p->samples, struct ex_sample, i);

		for (j = 0; j < s->nframes; j++)
			pb_varint(pk, s->frames[j]);
		if (pk->len)
			pb_msg(m, 1, pk);
		for (j = 0; j < nev; j++) {
			pb_varint(pk, j == s->event ? s->count : 0);
			pb_varint(pk, j == s->event ? s->period : 0);
		}
		pb_msg(m, 2, pk);
		label(m, m2, &t, "pid", NULL, s->pid);
		label(m, m2, &t, "tid", NULL, s->tid);
		label(m, m2, &t, "comm", p->comms->pdata[s->comm], 0);
		if (s->cpu != EX_NO_CPU)
			label(m, m2, &t, "cpu", NULL, s->cpu);
		pb_msg(out, 2, m);
	}
	/* the main binary first: pprof names the profile after mapping[0] */
	for (guint n = 0; n <= p->mappings->len; n++) {
		const struct ex_mapping *mp;

		i = n == 0 ? p->main_mapping - 1 : n - 1;
		if (i >= p->mappings->len || (n && i == p->main_mapping - 1))
			continue;
		mp = &g_array_index(p->mappings, struct ex_mapping, i);
		if (!mp->used)
			continue;
		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, mp->start);
		pb_uint(m, 3, mp->limit);
		pb_uint(m, 4, mp->pgoff);
		pb_uint(m, 5, str_id(&t, mp->file));
		if (mp->build_id_len) {
			char *h = g_malloc(2 * mp->build_id_len + 1);

			hex_id(h, mp->build_id, mp->build_id_len);
			pb_uint(m, 6, str_own(&t, h));
		}
		pb_uint(m, 7, mp->has_functions);
		pb_msg(out, 3, m);
	}
	for (i = 0; i < p->locations->len; i++) {
		const struct ex_location *l = &g_array_index(p->locations, struct ex_location, i);

		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, l->mapping);
		pb_uint(m, 3, l->addr);
		if (l->function) {
			pb_uint(m2, 1, l->function);
			pb_msg(m, 4, m2);
		}
		pb_msg(out, 4, m);
	}
	for (i = 0; i < p->functions->len; i++) {
		const struct ex_function *f = &g_array_index(p->functions, struct ex_function, i);

		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, str_id(&t, f->name));
		pb_uint(m, 3, str_id(&t, f->system_name));
		pb_uint(m, 4, str_id(&t, f->file));
		pb_msg(out, 5, m);
	}
	/* the string table: every string referenced above, in index order */
	for (i = 0; i < t.strs->len; i++) {
		const char *s = t.strs->pdata[i];

		pb_bytes(out, 6, s, strlen(s));
	}
	if (p->time_nanos > 0)
		pb_uint(out, 9, (uint64_t)p->time_nanos);
	if (p->duration_nanos > 0)
		pb_uint(out, 10, (uint64_t)p->duration_nanos);
	if (nev) {
		const struct ex_event *e = &g_array_index(p->events, struct ex_event, 0);

		pb_uint(m, 1, str_id(&t, e->name));
		pb_uint(m, 2, str_id(&t, e->unit));
		pb_msg(out, 11, m);	/* period_type */
		pb_uint(out, 12, e->period);
		pb_uint(out, 14, str_id(&t, e->name));	/* default_sample_type */
	}
	g_byte_array_free(m, TRUE);
	g_byte_array_free(m2, TRUE);
	g_byte_array_free(pk, TRUE);
	g_hash_table_destroy(t.idx);
	g_ptr_array_free(t.strs, TRUE);
	g_ptr_array_free(t.own, TRUE);
}

/* gzip (RFC 1952, zlib's windowBits 16 + 15) of buf to fp. */
static int gzip_to(const uint8_t *buf, size_t len, FILE *fp)
{
	z_stream z = { 0 };
	uint8_t chunk[1 << 16];
	int r;

	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)buf;
	do {
		uInt step = len > (1u << 30) ? (1u << 30) : (uInt)len;

		z.avail_in = step;
		len -= step;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			r = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (r == Z_STREAM_ERROR) {
				deflateEnd(&z);
				return -EIO;
			}
			if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, fp) !=
			    sizeof(chunk) - z.avail_out) {
				deflateEnd(&z);
				return -errno ? -errno : -EIO;
			}
		} while (z.avail_out == 0);
	} while (len);
	deflateEnd(&z);
	return r == Z_STREAM_END ? 0 : -EIO;
}

int ex_write_pprof(const struct ex_profile *p, FILE *fp)
{
	GByteArray *out = g_byte_array_new();
	int r;

	encode(p, out);
	r = gzip_to(out->data, out->len, fp);
	g_byte_array_free(out, TRUE);
	return r;
}
