/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the in-tree record plugins (comm, mmap2, task).  Only
 * the public headers are used, as an out-of-tree plugin would; everything
 * here is static so each module keeps exporting its descriptor only.
 */
#ifndef PERFRING_PLUGIN_UTIL_H
#define PERFRING_PLUGIN_UTIL_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <perfring/plugin.h>

#define PL_HDR_SIZE sizeof(struct perfring_event_header)
#define PL_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

static inline uint64_t pl_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pl_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t pl_get16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline void pl_put64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void pl_put32(void *p, uint32_t v) { memcpy(p, &v, 4); }

/* Size of the sample_id_all trailer records carry under attr. */
static inline size_t pl_trailer_size(const struct perfring_attr *attr)
{
	if (!attr || !(attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	return perfring_sample_id_size(attr->sample_type);
}

/* Write the 8-byte header. */
static inline void pl_put_header(void *buf, uint32_t type, uint16_t misc,
				 size_t size)
{
	struct perfring_event_header h = {
		.type = type, .misc = misc, .size = (uint16_t)size,
	};

	memcpy(buf, &h, sizeof(h));
}

/*
 * Append the trailer at buf + off (the record is `total` bytes long, the
 * caller checked len).  Returns 0 or a negative errno.
 */
static inline int pl_put_trailer(const struct perfring_attr *attr,
				 const struct perfring_sample_id *sid,
				 void *buf, size_t off, size_t total)
{
	static const struct perfring_sample_id zero;
	int ret;

	if (off == total)
		return 0;
	ret = perfring_sample_id_encode(attr->sample_type, sid ? sid : &zero,
					(char *)buf + off, total - off);
	if (ret < 0)
		return ret;
	return (size_t)ret == total - off ? 0 : -EINVAL;
}

/* Fill a diagnostic (if any): what is wrong at which offset in the record. */
static inline void pl_diag(struct perfring_diag *d, int err, size_t off,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void pl_diag(struct perfring_diag *d, int err, size_t off,
			   const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	d->error = err;
	d->has_offset = 1;
	d->offset = off;
	d->file[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

/*
 * Checks common to every decoder: the header size field matches the
 * record size we were given, it is large enough for the fixed body plus
 * trailer.  *body_end gets the offset where the trailer starts.  Decodes
 * the trailer into sid (if not NULL).
 */
static inline int pl_check_record(const struct perfring_attr *attr,
				  const void *rec, size_t size, size_t fixed,
				  size_t *body_end, struct perfring_sample_id *sid,
				  struct perfring_diag *diag)
{
	size_t tr = pl_trailer_size(attr);
	uint16_t hsize;

	if (size < PL_HDR_SIZE) {
		pl_diag(diag, -EBADMSG, 0, "record of %zu bytes is shorter than its header", size);
		return -EBADMSG;
	}
	hsize = pl_get16((const char *)rec + 6);
	if (hsize != size) {
		pl_diag(diag, -EBADMSG, 6, "header size %u does not match the record's %zu bytes",
			hsize, size);
		return -EBADMSG;
	}
	if (size < fixed + tr) {
		pl_diag(diag, -EBADMSG, 0,
			"record of %zu bytes is %zu bytes short of its %zu-byte body and %zu-byte sample_id_all trailer",
			size, fixed + tr - size, fixed, tr);
		return -EBADMSG;
	}
	*body_end = size - tr;
	if (sid) {
		memset(sid, 0, sizeof(*sid));
		if (tr) {
			int ret = perfring_sample_id_decode(attr->sample_type, rec, size, sid);

			if (ret < 0) {
				pl_diag(diag, ret, *body_end, "bad sample_id_all trailer");
				return ret;
			}
		}
	}
	return 0;
}

/*
 * A NUL-terminated string in [off, end) of rec: returns its length, or -1
 * if no NUL is found before end.
 */
static inline long pl_strlen(const void *rec, size_t off, size_t end)
{
	const char *s = (const char *)rec + off;
	const char *z = memchr(s, '\0', end - off);

	return z ? (long)(z - s) : -1;
}

/* snprintf-style output accumulator for the format functions. */
struct pl_out {
	char *buf;
	size_t len;
	size_t pos;
};

static inline void pl_printf(struct pl_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void pl_printf(struct pl_out *o, const char *fmt, ...)
{
	size_t room = o->pos < o->len ? o->len - o->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

/*
 * Append n bytes of a name from a record to a line of text: control bytes,
 * DEL and backslash are escaped (\n, \t, \\, \xNN) so that a hostile
 * record cannot break the one-line rule or send terminal escapes; other
 * bytes (UTF-8 included) are copied.
 */
static inline void pl_text_str(struct pl_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4];
		size_t k = 0;

		if (c == '\\' || c == '\n' || c == '\t') {
			e[k++] = '\\';
			e[k++] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		} else if (c < 0x20 || c == 0x7f) {
			e[k++] = '\\';
			e[k++] = 'x';
			e[k++] = hex[c >> 4];
			e[k++] = hex[c & 15];
		} else {
			e[k++] = (char)c;
		}
		for (size_t j = 0; j < k; j++, o->pos++)
			if (o->pos + 1 < o->len)
				o->buf[o->pos] = e[j];
	}
}

/* Append a JSON string literal for s (n bytes at most). */
static inline void pl_json_str(struct pl_out *o, const char *s, size_t n)
{
	size_t room = o->pos < o->len ? o->len - o->pos : 0;
	int k = perfring_format_json_string(s, n, room ? o->buf + o->pos : NULL, room);

	if (k > 0)
		o->pos += (size_t)k;
}

static inline int pl_done(struct pl_out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
	return o->pos > 0x7fffffff ? -EOVERFLOW : (int)o->pos;
}

#endif
