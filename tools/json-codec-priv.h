/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the JSON-lines encoder (json-encode.c) and decoder (json-decode.c)
 * share: the attr field tables (json-attr.c), byte helpers, and the calls
 * each side makes into the other.  Not installed.
 */
#ifndef PERFRING_TOOLS_JSON_CODEC_PRIV_H
#define PERFRING_TOOLS_JSON_CODEC_PRIV_H

#include <string.h>

#include "json-codec.h"

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

/* ---- attr tables (json-attr.c) ---- */

/* perf_event_attr flag bits 0..37 by their uapi names (15/16: precise_ip). */
extern const char *const jc_flag_names[38];
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

extern const struct attr_field jc_attr_fields[];
extern const size_t jc_n_attr_fields;
#define N_ATTR_FIELDS jc_n_attr_fields

static inline uint64_t jc_field_get(const struct perfring_attr *a, const struct attr_field *f)
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

static inline void jc_field_set(struct perfring_attr *a, const struct attr_field *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)a + f->off;

	switch (f->width) {
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static inline const char *jc_field_name(const struct perfring_attr *a, const struct attr_field *f)
{
	return f->alt && (a->flags & f->alt_flag) ? f->alt : f->name;
}

static inline uint64_t jc_trailer_bits(const struct perfring_attr *a)
{
	if (!a || !(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	return a->sample_type & PERFRING_SAMPLE_ID_ALL_BITS;
}

static inline bool jc_same_bytes(int n, const void *buf, const void *rec, size_t size)
{
	return n >= 0 && (size_t)n == size && memcmp(buf, rec, size) == 0;
}

static inline bool jc_ids_contain(const uint64_t *ids, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* ---- json-encode.c ---- */
void jc_put_hex(GString *out, const void *data, size_t n);
void jc_put_sample_id(GString *out, const struct perfring_attr *a,
		      const struct perfring_sample_id *sid);

/* ---- json-decode.c ---- */
/*
 * A record as its plugin's JSON members (format_json), appended to out if
 * and only if the plugin's parse_json gives the same bytes back from them;
 * *sid_out is then the record's trailer, for the caller to append.
 */
bool jc_encode_by_plugin(GString *out, const struct perfring_plugin *p,
			 const struct perfring_attr *a, uint32_t type,
			 const void *rec, size_t size, unsigned char *buf,
			 struct perfring_sample_id *sid_out);

#endif
