/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf's rule for a record's sample id, and the one validator of a whole
 * record (used by the ring reader, perfring-dump --check and replay).
 *
 * The id rule (doc/perf-format.md 3.6, "Which event a record belongs to"):
 * a SAMPLE carries its id at word id_pos of its body (IDENTIFIER: the
 * first word; else ID after IP, TID, TIME and ADDR); another kernel record
 * with sample_id_all carries it at word is_pos counted back from its end
 * (IDENTIFIER: the last word; else ID before STREAM_ID and CPU).  perf
 * takes the positions from the first event and requires every event to
 * agree, so the attr of any event of the file finds the id.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "ring/check.h"
#include "ring/private.h"
#include "util/internal.h"

PERFRING_API void perfring_sample_id_pos(uint64_t st, int *id_pos, int *is_pos)
{
	int a = -1, b = -1;

	if (st & PERFRING_SAMPLE_IDENTIFIER) {
		a = 0;
		b = 1;
	} else if (st & PERFRING_SAMPLE_ID) {
		a = pr_popcount64(st & (PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
					       PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ADDR));
		b = 1 + !!(st & PERFRING_SAMPLE_CPU) + !!(st & PERFRING_SAMPLE_STREAM_ID);
	}
	if (id_pos)
		*id_pos = a;
	if (is_pos)
		*is_pos = b;
}

PR_HIDDEN int pr_record_id_at(const struct pr_id_rule *rule, const void *rec, size_t size,
			      uint64_t *id)
{
	const unsigned char *p = rec;
	uint32_t type;

	if (size < 8)
		return -EBADMSG;
	type = pr_get32(p);
	if (type == PERFRING_RECORD_PAD || type >= PERFRING_RECORD_HEADER_ATTR)
		return 0;
	if (type == PERFRING_RECORD_SAMPLE) {
		size_t off = 8 + 8 * (size_t)rule->id_pos;

		if (rule->id_pos < 0)
			return 0;
		if (off + 8 > size)
			return -EBADMSG;
		if (id)
			*id = pr_get64(p + off);
		return 1;
	}
	if (!rule->sample_id_all || rule->is_pos < 0)
		return 0;
	if (size < 8 + 8 * (size_t)rule->is_pos)
		return -EBADMSG;
	if (id)
		*id = pr_get64(p + size - 8 * (size_t)rule->is_pos);
	return 1;
}

PR_HIDDEN void pr_id_rule_init(struct pr_id_rule *rule, const struct perfring_attr *attr)
{
	perfring_sample_id_pos(attr->sample_type, &rule->id_pos, &rule->is_pos);
	rule->sample_id_all = !!(attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL);
}

PERFRING_API int perfring_record_id(const struct perfring_attr *attr, const void *rec,
				    size_t size, uint64_t *id)
{
	struct pr_id_rule rule;

	if (!attr || !rec)
		return 0;
	pr_id_rule_init(&rule, attr);
	return pr_record_id_at(&rule, rec, size, id);
}

/* ---- the early MMAP2 layout ------------------------------------------------- */

/* A filename at byte at of r, NUL-terminated and zero-padded to 8, ends at end. */
static int name_fits(const unsigned char *r, size_t at, size_t end)
{
	const unsigned char *nul;

	if (end <= at)
		return 0;
	nul = memchr(r + at, 0, end - at);
	return nul && at + PR_ALIGN8((size_t)(nul - (r + at)) + 1) == end;
}

PERFRING_API enum perfring_mmap2_layout perfring_mmap2_layout(const void *rec, size_t size,
							      size_t trailer)
{
	const unsigned char *r = rec;
	size_t end;

	if (!r || size < 72 || trailer > size - 72 || pr_get32(r) != PERFRING_RECORD_MMAP2 ||
	    (pr_get16(r + 4) & PERFRING_MISC_MMAP_BUILD_ID))
		return PERFRING_MMAP2_LAYOUT_CURRENT;
	end = size - trailer;
	if (name_fits(r, 64, end) && (!name_fits(r, 72, end) || pr_get32(r + 64) > 0xff))
		return PERFRING_MMAP2_LAYOUT_EARLY;
	return PERFRING_MMAP2_LAYOUT_CURRENT;
}

/* ---- validation -------------------------------------------------------------- */

static int invalid(struct perfring_diag *d, uint64_t offset, const char *fmt, ...) PR_PRINTF(3, 4);
static __attribute__((cold, noinline)) int invalid(struct perfring_diag *d, uint64_t offset,
						   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(d, -EBADMSG, NULL, offset, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* perf writes these with any size (pipe-mode features, build ids,
 * compressed frames, tracing data) */
static int any_size_type(uint32_t type)
{
	return type == PERFRING_RECORD_HEADER_FEATURE || type == PERFRING_RECORD_HEADER_BUILD_ID ||
	       type == PERFRING_RECORD_COMPRESSED || type == PERFRING_RECORD_HEADER_TRACING_DATA;
}

static void bits_str(uint64_t st, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned b = 0; b < 64 && n < len; b++) {
		const char *name;

		if (!(st & (1ull << b)))
			continue;
		name = perfring_sample_bit_name(b);
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "|" : "", name ? name : "?");
	}
}

/*
 * The body size (header included, trailer excluded) of a kernel record by
 * its type's rule and its own fields: > 0, 0 when the type has no rule (or
 * its count is absurd), -1 when its string has no NUL inside the record.
 * *exact: the record must be exactly body + trailer.
 */
static long body_size(const struct pr_body_rule *rule, const unsigned char *r, size_t n,
		      int *exact)
{
	const unsigned char *nul;

	*exact = 1;
	switch (rule->shape) {
	case PR_BODY_FIXED:
		return rule->min;
	case PR_BODY_NAMESPACES:
		if (n < 24 || pr_get64(r + 16) > 4096)
			return 0;
		return (long)(24 + 16 * pr_get64(r + 16));
	case PR_BODY_TEXT_POKE:
		if (n < 20)
			return 0;
		return (long)PR_ALIGN8(20 + (size_t)pr_get16(r + 16) + pr_get16(r + 18));
	case PR_BODY_STRING:
		/* NUL-terminated, zero-padded to 8; the trailer may follow */
		*exact = 0;
		if (n <= rule->min)
			return -1;
		nul = memchr(r + rule->min, 0, n - rule->min);
		if (!nul)
			return -1;
		return (long)PR_ALIGN8((size_t)(nul - r) + 1);
	default:
		*exact = 0;
		return 0;
	}
}

/* The u64 fields of a SAMPLE before a callchain, and after it. */
#define SAMPLE_HEAD_BITS (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | \
			  PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ADDR | PERFRING_SAMPLE_ID | \
			  PERFRING_SAMPLE_STREAM_ID | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD)
#define SAMPLE_TAIL_BITS (PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_DATA_SRC | \
			  PERFRING_SAMPLE_TRANSACTION | PERFRING_SAMPLE_PHYS_ADDR | \
			  PERFRING_SAMPLE_CGROUP | PERFRING_SAMPLE_DATA_PAGE_SIZE | \
			  PERFRING_SAMPLE_CODE_PAGE_SIZE | PERFRING_SAMPLE_WEIGHT_STRUCT)

/*
 * The common layouts at the cost of a few instructions: fixed u64 fields
 * and at most a callchain.  perfring_sample_decode reads such a SAMPLE as
 * the head fields, the callchain's nr and nr ips, the tail fields, and
 * wants the record to end there; this says whether it would.  1: valid;
 * 0: not such a layout, or not valid (the decoder then says why).  Replay
 * validates every record, and the full decode was a sixth of its CPU.
 */
static int sample_fast_ok(uint64_t st, const unsigned char *r, size_t len)
{
	size_t head, tail;
	uint64_t nr;

	if (st & ~(uint64_t)(SAMPLE_HEAD_BITS | SAMPLE_TAIL_BITS | PERFRING_SAMPLE_CALLCHAIN))
		return 0;
	if ((st & PERFRING_SAMPLE_WEIGHT) && (st & PERFRING_SAMPLE_WEIGHT_STRUCT))
		return 0;
	head = 8 + 8 * (size_t)pr_popcount64(st & SAMPLE_HEAD_BITS);
	tail = 8 * (size_t)pr_popcount64(st & SAMPLE_TAIL_BITS);
	if (!(st & PERFRING_SAMPLE_CALLCHAIN))
		return len == head + tail;
	if (len < head + 8 + tail)
		return 0;
	nr = pr_get64(r + head);
	return nr <= (len - head - 8 - tail) / 8 && len == head + 8 + 8 * nr + tail;
}

static int validate_sample(const struct perfring_attr *attr, const void *rec, size_t len,
			   uint64_t offset, struct perfring_diag *diag)
{
	int ret;

	if (sample_fast_ok(attr->sample_type, rec, len))
		return 0;
	ret = perfring_sample_decode(attr, rec, len, NULL, diag);

	if (ret == 0)
		return 0;
	if (diag) {
		/* the message says where inside; the offset is the record's */
		diag->error = -EBADMSG;
		diag->has_offset = 1;
		diag->offset = offset;
		diag->file[0] = 0;
		if (!diag->msg[0])
			snprintf(diag->msg, sizeof(diag->msg), "SAMPLE does not decode");
	}
	return -EBADMSG;
}

static int body_check(const struct pr_body_check *bc, const struct perfring_attr *attr,
		      const char *name, const void *rec, size_t len, uint64_t offset,
		      struct perfring_diag *diag)
{
	return bc && attr ? bc->check(bc, attr, name, rec, len, offset, diag) : 0;
}

PERFRING_API int perfring_record_validate(const struct perfring_registry *reg,
					  const struct perfring_attr *attr,
					  const void *rec, size_t len, uint64_t offset,
					  struct perfring_diag *diag)
{
	const unsigned char *r = rec;
	const struct pr_body_rule *rule;
	const char *name;
	uint32_t type, size;
	size_t min, tr;
	long body;
	int exact;

	if (!rec)
		return -EINVAL;
	if (len < 8)
		return invalid(diag, offset, "record of %zu bytes is shorter than its 8-byte header",
			       len);
	type = pr_get32(r);
	size = pr_get16(r + 6);
	if (size != len)
		return invalid(diag, offset, "record header says %" PRIu32 " bytes, the record has %zu",
			       size, len);
	if (type == PERFRING_RECORD_PAD)
		return 0;
	name = perfring_record_type_name(type);
	if (!name)
		return invalid(diag, offset, "unknown record type %" PRIu32 " (%zu bytes): perf 6.1 refuses it",
			       type, len);
	if ((len & 7) && !any_size_type(type))
		return invalid(diag, offset, "%s record size %zu is not a multiple of 8", name, len);
	min = perfring_record_min_size(type);
	if (len < min)
		return invalid(diag, offset, "%s record of %zu bytes is shorter than its fixed part (%zu bytes)",
			       name, len, min);
	if (type >= PERFRING_RECORD_HEADER_ATTR)
		return 0;
	if (type == PERFRING_RECORD_SAMPLE)
		return attr ? validate_sample(attr, rec, len, offset, diag) : 0;

	rule = pr_body_rule(type);
	tr = perfring_record_trailer_size(attr, type);
	/* perf 6.1 keeps it (misreading its filename): the plugin decodes it */
	if (type == PERFRING_RECORD_MMAP2 &&
	    perfring_mmap2_layout(rec, len, tr) == PERFRING_MMAP2_LAYOUT_EARLY)
		return body_check(pr_body_check_of(reg), attr, name, rec, len, offset, diag);
	body = rule ? body_size(rule, r, len, &exact) : 0;
	if (body < 0)
		return invalid(diag, offset, "%s record: the string at byte %u is not NUL-terminated inside the record",
			       name, (unsigned)rule->min);
	if (body > 0 && len < (size_t)body + tr) {
		char bits[256];

		if (len < (size_t)body)
			return invalid(diag, offset, "%s record of %zu bytes is shorter than its body (%ld bytes)",
				       name, len, body);
		bits_str(attr->sample_type & PERFRING_SAMPLE_ID_ALL_BITS, bits, sizeof(bits));
		return invalid(diag, offset,
			       "%s record at offset 0x%" PRIx64 " is %zu bytes short of its sample_id_all trailer (%zu bytes: %s)",
			       name, offset, (size_t)body + tr - len, tr, bits);
	}
	/* without an attr the bytes past the body may be a trailer */
	if (body > 0 && exact && attr && len > (size_t)body + tr)
		return invalid(diag, offset,
			       "%s record has %zu bytes more than its body (%ld) and sample_id_all trailer (%zu)",
			       name, len - (size_t)body - tr, body, tr);
	if (len < min + tr)
		return invalid(diag, offset,
			       "%s record of %zu bytes cannot hold its body (%zu) and sample_id_all trailer (%zu)",
			       name, len, min, tr);
	if (type != PERFRING_RECORD_LOST && type != PERFRING_RECORD_LOST_SAMPLES)
		return body_check(pr_body_check_of(reg), attr, name, rec, len, offset, diag);
	return 0;
}
