/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only perf.data walker (see perfdata_walk.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_walk.h"

#define FILE_HEADER_SIZE 104u
#define PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" */

static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return e;
}

/* Is [off, off + n) inside a buffer of len bytes? */
static int in_range(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

int pdw_open(const char *path, struct pdw_file *f, char *err, size_t errlen)
{
	uint64_t attr_size, attrs_off, attrs_size, pos;
	FILE *fp;
	long l;
	size_t i;

	memset(f, 0, sizeof(*f));
	fp = fopen(path, "rb");
	if (!fp)
		return fail(err, errlen, -errno, "%s: cannot open", path);
	if (fseek(fp, 0, SEEK_END) || (l = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return fail(err, errlen, -EIO, "%s: cannot seek", path);
	}
	f->len = (size_t)l;
	f->buf = malloc(f->len ? f->len : 1);
	if (!f->buf || fread(f->buf, 1, f->len, fp) != f->len) {
		fclose(fp);
		pdw_close(f);
		return fail(err, errlen, -EIO, "%s: cannot read", path);
	}
	fclose(fp);

	if (f->len < FILE_HEADER_SIZE || get64(f->buf) != PERF_MAGIC2 ||
	    get64(f->buf + 8) != FILE_HEADER_SIZE) {
		pdw_close(f);
		return fail(err, errlen, -EBADMSG,
			    "%s: not a native-endian file-mode perf.data", path);
	}
	attr_size = get64(f->buf + 16);
	attrs_off = get64(f->buf + 24);
	attrs_size = get64(f->buf + 32);
	f->data_offset = get64(f->buf + 40);
	f->data_size = get64(f->buf + 48);
	if (attr_size < 16 + PERFRING_ATTR_SIZE_VER0 ||
	    !in_range(attrs_off, attrs_size, f->len) ||
	    !in_range(f->data_offset, f->data_size, f->len)) {
		pdw_close(f);
		return fail(err, errlen, -EBADMSG, "%s: bad section table", path);
	}
	f->nr_attrs = attrs_size / attr_size;
	f->attrs = calloc(f->nr_attrs ? f->nr_attrs : 1, sizeof(*f->attrs));
	if (!f->attrs) {
		pdw_close(f);
		return fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	/* perf walks the entries by attr.size, and counts them by attr_size */
	pos = attrs_off;
	for (i = 0; i < f->nr_attrs; i++) {
		struct pdw_attr *a = &f->attrs[i];
		uint64_t asz, ids_off, ids_size;
		uint64_t *ids;
		uint32_t asz32;

		if (!in_range(pos, 8, f->len)) {
			pdw_close(f);
			return fail(err, errlen, -EBADMSG, "%s: attr %zu truncated", path, i);
		}
		memcpy(&asz32, f->buf + pos + 4, 4);
		asz = asz32;
		if (asz == 0)
			asz = PERFRING_ATTR_SIZE_VER0;
		if (asz > sizeof(a->attr) || !in_range(pos, asz + 16, f->len)) {
			pdw_close(f);
			return fail(err, errlen, -EBADMSG, "%s: attr %zu has size %" PRIu64,
				    path, i, asz);
		}
		memcpy(&a->attr, f->buf + pos, asz);
		ids_off = get64(f->buf + pos + asz);
		ids_size = get64(f->buf + pos + asz + 8);
		if (!in_range(ids_off, ids_size, f->len) || ids_size % 8) {
			pdw_close(f);
			return fail(err, errlen, -EBADMSG, "%s: attr %zu ids out of file",
				    path, i);
		}
		a->nr_ids = ids_size / 8;
		ids = malloc(ids_size ? ids_size : 1);
		if (!ids) {
			pdw_close(f);
			return fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		}
		memcpy(ids, f->buf + ids_off, ids_size);
		a->ids = ids;
		pos += asz + 16;
	}
	return 0;
}

void pdw_close(struct pdw_file *f)
{
	size_t i;

	if (!f)
		return;
	if (f->attrs)
		for (i = 0; i < f->nr_attrs; i++)
			free((void *)f->attrs[i].ids);
	free(f->attrs);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

int pdw_next(const struct pdw_file *f, uint64_t *pos, const void **rec,
	     size_t *size)
{
	struct perfring_event_header h;
	uint64_t left;

	if (*pos >= f->data_size)
		return 0;
	left = f->data_size - *pos;
	if (left < sizeof(h))
		return -EBADMSG;
	memcpy(&h, f->buf + f->data_offset + *pos, sizeof(h));
	if (h.size < sizeof(h) || h.size > left)
		return -EBADMSG;
	*rec = f->buf + f->data_offset + *pos;
	*size = h.size;
	*pos += h.size;
	return 1;
}

static const struct pdw_attr *by_id(const struct pdw_file *f, uint64_t id)
{
	size_t i, j;

	for (i = 0; i < f->nr_attrs; i++)
		for (j = 0; j < f->attrs[i].nr_ids; j++) {
			uint64_t v;

			memcpy(&v, &f->attrs[i].ids[j], 8);
			if (v == id)
				return &f->attrs[i];
		}
	return &f->attrs[0];
}

const struct pdw_attr *pdw_attr_of(const struct pdw_file *f, const void *rec,
				   size_t size)
{
	const unsigned char *p = rec;
	uint64_t st, idx;
	uint32_t type;

	if (f->nr_attrs == 0)
		return NULL;
	if (f->nr_attrs == 1)
		return &f->attrs[0];
	st = f->attrs[0].attr.sample_type;
	memcpy(&type, p, 4);
	if (type == PERFRING_RECORD_SAMPLE) {
		if (st & PERFRING_SAMPLE_IDENTIFIER)
			idx = 0;
		else if (st & PERFRING_SAMPLE_ID)
			idx = __builtin_popcountll(st & (PERFRING_SAMPLE_IP |
							 PERFRING_SAMPLE_TID |
							 PERFRING_SAMPLE_TIME |
							 PERFRING_SAMPLE_ADDR));
		else
			return &f->attrs[0];
		if (8 + 8 * idx + 8 > size)
			return &f->attrs[0];
		return by_id(f, get64(p + 8 + 8 * idx));
	}
	if (!(f->attrs[0].attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return &f->attrs[0];
	if (st & PERFRING_SAMPLE_IDENTIFIER)
		idx = 1;
	else if (st & PERFRING_SAMPLE_ID)
		idx = 1 + !!(st & PERFRING_SAMPLE_CPU) + !!(st & PERFRING_SAMPLE_STREAM_ID);
	else
		return &f->attrs[0];
	if (8 * idx + 8 > size)
		return &f->attrs[0];
	return by_id(f, get64(p + size - 8 * idx));
}
