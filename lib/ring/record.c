/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf record codec: type names, the sample_id_all trailer, SAMPLE and LOST
 * bodies.  Layouts: doc/perf-format.md sections 2 to 5.
 *
 * Decoders never trust a count: every length is checked against the bytes
 * left in the record before it is used, with arithmetic that cannot wrap.
 * The encoders are the freestanding core's (lib/core/records.c): the
 * functions here only give them the library's names.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "ring/private.h"
#include "util/internal.h"
#include "core/internal.h"

/* ---- layout pins -------------------------------------------------------- */
#define PR_PIN(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f)

_Static_assert(sizeof(struct perfring_event_header) == 8, "header size");
PR_PIN(struct perfring_event_header, type, 0);
PR_PIN(struct perfring_event_header, misc, 4);
PR_PIN(struct perfring_event_header, size, 6);

_Static_assert(sizeof(struct perfring_attr) == PERFRING_ATTR_SIZE_VER8, "attr size");
PR_PIN(struct perfring_attr, type, 0);
PR_PIN(struct perfring_attr, size, 4);
PR_PIN(struct perfring_attr, config, 8);
PR_PIN(struct perfring_attr, sample_period, 16);
PR_PIN(struct perfring_attr, sample_type, 24);
PR_PIN(struct perfring_attr, read_format, 32);
PR_PIN(struct perfring_attr, flags, 40);
PR_PIN(struct perfring_attr, wakeup_events, 48);
PR_PIN(struct perfring_attr, bp_type, 52);
PR_PIN(struct perfring_attr, config1, 56);
PR_PIN(struct perfring_attr, config2, 64);
PR_PIN(struct perfring_attr, branch_sample_type, 72);
PR_PIN(struct perfring_attr, sample_regs_user, 80);
PR_PIN(struct perfring_attr, sample_stack_user, 88);
PR_PIN(struct perfring_attr, clockid, 92);
PR_PIN(struct perfring_attr, sample_regs_intr, 96);
PR_PIN(struct perfring_attr, aux_watermark, 104);
PR_PIN(struct perfring_attr, sample_max_stack, 108);
PR_PIN(struct perfring_attr, reserved_2, 110);
PR_PIN(struct perfring_attr, aux_sample_size, 112);
PR_PIN(struct perfring_attr, reserved_3, 116);
PR_PIN(struct perfring_attr, sig_data, 120);
PR_PIN(struct perfring_attr, config3, 128);

_Static_assert(sizeof(struct perfring_branch_entry) == 24, "branch entry size");
_Static_assert(sizeof(struct perfring_sample_id) == 48, "sample_id size");

/* ---- names ---------------------------------------------------------------- */
/* Exactly perf 6.1's perf_event__names[] (tools/perf/util/event.c). */
static const char *const kernel_names[PERFRING_RECORD_KERNEL_MAX] = {
	[PERFRING_RECORD_MMAP] = "MMAP",
	[PERFRING_RECORD_LOST] = "LOST",
	[PERFRING_RECORD_COMM] = "COMM",
	[PERFRING_RECORD_EXIT] = "EXIT",
	[PERFRING_RECORD_THROTTLE] = "THROTTLE",
	[PERFRING_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERFRING_RECORD_FORK] = "FORK",
	[PERFRING_RECORD_READ] = "READ",
	[PERFRING_RECORD_SAMPLE] = "SAMPLE",
	[PERFRING_RECORD_MMAP2] = "MMAP2",
	[PERFRING_RECORD_AUX] = "AUX",
	[PERFRING_RECORD_ITRACE_START] = "ITRACE_START",
	[PERFRING_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERFRING_RECORD_SWITCH] = "SWITCH",
	[PERFRING_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERFRING_RECORD_NAMESPACES] = "NAMESPACES",
	[PERFRING_RECORD_KSYMBOL] = "KSYMBOL",
	[PERFRING_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERFRING_RECORD_CGROUP] = "CGROUP",
	[PERFRING_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERFRING_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
};

#define USER_FIRST PERFRING_RECORD_HEADER_ATTR
static const char *const user_names[PERFRING_RECORD_HEADER_MAX - USER_FIRST] = {
	[PERFRING_RECORD_HEADER_ATTR - USER_FIRST] = "ATTR",
	[PERFRING_RECORD_HEADER_EVENT_TYPE - USER_FIRST] = "EVENT_TYPE",
	[PERFRING_RECORD_HEADER_TRACING_DATA - USER_FIRST] = "TRACING_DATA",
	[PERFRING_RECORD_HEADER_BUILD_ID - USER_FIRST] = "BUILD_ID",
	[PERFRING_RECORD_FINISHED_ROUND - USER_FIRST] = "FINISHED_ROUND",
	[PERFRING_RECORD_ID_INDEX - USER_FIRST] = "ID_INDEX",
	[PERFRING_RECORD_AUXTRACE_INFO - USER_FIRST] = "AUXTRACE_INFO",
	[PERFRING_RECORD_AUXTRACE - USER_FIRST] = "AUXTRACE",
	[PERFRING_RECORD_AUXTRACE_ERROR - USER_FIRST] = "AUXTRACE_ERROR",
	[PERFRING_RECORD_THREAD_MAP - USER_FIRST] = "THREAD_MAP",
	[PERFRING_RECORD_CPU_MAP - USER_FIRST] = "CPU_MAP",
	[PERFRING_RECORD_STAT_CONFIG - USER_FIRST] = "STAT_CONFIG",
	[PERFRING_RECORD_STAT - USER_FIRST] = "STAT",
	[PERFRING_RECORD_STAT_ROUND - USER_FIRST] = "STAT_ROUND",
	[PERFRING_RECORD_EVENT_UPDATE - USER_FIRST] = "EVENT_UPDATE",
	[PERFRING_RECORD_TIME_CONV - USER_FIRST] = "TIME_CONV",
	[PERFRING_RECORD_HEADER_FEATURE - USER_FIRST] = "FEATURE",
	[PERFRING_RECORD_COMPRESSED - USER_FIRST] = "COMPRESSED",
	[PERFRING_RECORD_FINISHED_INIT - USER_FIRST] = "FINISHED_INIT",
};

PERFRING_API const char *perfring_record_type_name(uint32_t type)
{
	if (type < PERFRING_RECORD_KERNEL_MAX)
		return kernel_names[type];
	if (type >= USER_FIRST && type < PERFRING_RECORD_HEADER_MAX)
		return user_names[type - USER_FIRST];
	if (type == PERFRING_RECORD_COMPRESSED2)
		return "COMPRESSED2";	/* newer perf's name */
	return NULL;
}

PERFRING_API int perfring_record_type_from_name(const char *name, uint32_t *type)
{
	uint32_t t;

	if (!name)
		return -EINVAL;
	for (t = 0; t <= PERFRING_RECORD_COMPRESSED2; t++) {
		const char *n = perfring_record_type_name(t);

		if (n && !strcmp(n, name)) {
			if (type)
				*type = t;
			return 0;
		}
	}
	return -ENOENT;
}

static const char *const sample_bit_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};
_Static_assert(sizeof(sample_bit_names) / sizeof(sample_bit_names[0]) == 25,
	       "one name per sample_type bit below PERFRING_SAMPLE_MAX");

static const char *const format_bit_names[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

PERFRING_API const char *perfring_sample_bit_name(unsigned bit)
{
	if (bit >= sizeof(sample_bit_names) / sizeof(sample_bit_names[0]))
		return NULL;
	return sample_bit_names[bit];
}

PERFRING_API const char *perfring_read_format_bit_name(unsigned bit)
{
	if (bit >= sizeof(format_bit_names) / sizeof(format_bit_names[0]))
		return NULL;
	return format_bit_names[bit];
}

PERFRING_API const char *perfring_format_bit_name(unsigned bit)
{
	return perfring_read_format_bit_name(bit);
}

/* ---- sample_id_all trailer ---------------------------------------------- */
/* The encoders are the core's (lib/core/records.c). */
PERFRING_API size_t perfring_sample_id_size(uint64_t sample_type)
{
	return perfring_core_sample_id_size(sample_type);
}

PERFRING_API int perfring_sample_id_encode(uint64_t sample_type,
					   const struct perfring_sample_id *sid,
					   void *buf, size_t len)
{
	return perfring_core_sample_id_encode(sample_type, sid, buf, len);
}

PERFRING_API int perfring_sample_id_decode(uint64_t sample_type,
					   const void *rec, size_t rec_size,
					   struct perfring_sample_id *sid)
{
	size_t tsize = perfring_sample_id_size(sample_type);
	const unsigned char *p;
	struct perfring_sample_id tmp;

	if (!rec || rec_size < sizeof(struct perfring_event_header) ||
	    rec_size - sizeof(struct perfring_event_header) < tsize)
		return -EBADMSG;
	memset(&tmp, 0, sizeof(tmp));
	p = (const unsigned char *)rec + rec_size - tsize;
	if (sample_type & PERFRING_SAMPLE_TID) {
		tmp.pid = pr_get32(p);
		tmp.tid = pr_get32(p + 4);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_TIME) {
		tmp.time = pr_get64(p);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_ID) {
		tmp.id = pr_get64(p);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_STREAM_ID) {
		tmp.stream_id = pr_get64(p);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_CPU) {
		tmp.cpu = pr_get32(p);
		tmp.res = pr_get32(p + 4);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_IDENTIFIER)
		tmp.identifier = pr_get64(p);
	if (sid)
		*sid = tmp;
	return 0;
}

/* ---- generic helpers ------------------------------------------------------ */
PERFRING_API size_t perfring_record_trailer_size(const struct perfring_attr *attr,
						 uint32_t type)
{
	return perfring_core_trailer_size(attr, type);
}

/*
 * The body of each kernel record type: header plus fixed body (strings and
 * arrays count as empty), and how the whole body (trailer excluded) follows
 * from the record's own fields.  The one table of body sizes: min_size and
 * the validator (validate.c) read it.
 */
static const struct pr_body_rule kernel_body[PERFRING_RECORD_KERNEL_MAX] = {
	[PERFRING_RECORD_MMAP] = { 40, PR_BODY_STRING },	/* pid tid addr len pgoff fn */
	[PERFRING_RECORD_LOST] = { 24, PR_BODY_FIXED },		/* id lost */
	[PERFRING_RECORD_COMM] = { 16, PR_BODY_STRING },	/* pid tid comm */
	[PERFRING_RECORD_EXIT] = { 32, PR_BODY_FIXED },		/* pid ppid tid ptid time */
	[PERFRING_RECORD_THROTTLE] = { 32, PR_BODY_FIXED },	/* time id stream_id */
	[PERFRING_RECORD_UNTHROTTLE] = { 32, PR_BODY_FIXED },
	[PERFRING_RECORD_FORK] = { 32, PR_BODY_FIXED },
	[PERFRING_RECORD_READ] = { 24, PR_BODY_MIN },		/* pid tid + read_format */
	[PERFRING_RECORD_SAMPLE] = { 8, PR_BODY_MIN },		/* sample_type may be 0 */
	[PERFRING_RECORD_MMAP2] = { 72, PR_BODY_STRING },	/* ... prot flags fn */
	[PERFRING_RECORD_AUX] = { 32, PR_BODY_FIXED },		/* aux_offset aux_size flags */
	[PERFRING_RECORD_ITRACE_START] = { 16, PR_BODY_FIXED },	/* pid tid */
	[PERFRING_RECORD_LOST_SAMPLES] = { 16, PR_BODY_FIXED },	/* lost */
	[PERFRING_RECORD_SWITCH] = { 8, PR_BODY_FIXED },
	[PERFRING_RECORD_SWITCH_CPU_WIDE] = { 16, PR_BODY_FIXED }, /* next_prev_pid/tid */
	[PERFRING_RECORD_NAMESPACES] = { 24, PR_BODY_NAMESPACES }, /* pid tid nr, nr x 16 */
	[PERFRING_RECORD_KSYMBOL] = { 24, PR_BODY_STRING },	/* addr len ksym_type flags name */
	[PERFRING_RECORD_BPF_EVENT] = { 24, PR_BODY_FIXED },	/* type flags id tag[8] */
	[PERFRING_RECORD_CGROUP] = { 16, PR_BODY_STRING },	/* id path */
	[PERFRING_RECORD_TEXT_POKE] = { 24, PR_BODY_TEXT_POKE }, /* addr old_len new_len bytes */
	[PERFRING_RECORD_AUX_OUTPUT_HW_ID] = { 16, PR_BODY_FIXED }, /* hw_id */
};

PR_HIDDEN const struct pr_body_rule *pr_body_rule(uint32_t type)
{
	if (type >= PERFRING_RECORD_KERNEL_MAX || !kernel_body[type].min)
		return NULL;
	return &kernel_body[type];
}

static const uint16_t user_min[PERFRING_RECORD_HEADER_MAX - USER_FIRST] = {
	[PERFRING_RECORD_HEADER_ATTR - USER_FIRST] = 8 + PERFRING_ATTR_SIZE_VER0,
	[PERFRING_RECORD_HEADER_EVENT_TYPE - USER_FIRST] = 80, /* id name[64] */
	[PERFRING_RECORD_HEADER_TRACING_DATA - USER_FIRST] = 12, /* u32 size */
	[PERFRING_RECORD_HEADER_BUILD_ID - USER_FIRST] = 36, /* pid build_id[24] */
	[PERFRING_RECORD_FINISHED_ROUND - USER_FIRST] = 8,
	[PERFRING_RECORD_ID_INDEX - USER_FIRST] = 16,	/* nr */
	[PERFRING_RECORD_AUXTRACE_INFO - USER_FIRST] = 16, /* type reserved */
	[PERFRING_RECORD_AUXTRACE - USER_FIRST] = 48,
	[PERFRING_RECORD_AUXTRACE_ERROR - USER_FIRST] = 104, /* fmt < 2 layout */
	[PERFRING_RECORD_THREAD_MAP - USER_FIRST] = 16,	/* nr */
	[PERFRING_RECORD_CPU_MAP - USER_FIRST] = 12,	/* u16 type + u16 */
	[PERFRING_RECORD_STAT_CONFIG - USER_FIRST] = 16, /* nr */
	[PERFRING_RECORD_STAT - USER_FIRST] = 48,
	[PERFRING_RECORD_STAT_ROUND - USER_FIRST] = 24,
	[PERFRING_RECORD_EVENT_UPDATE - USER_FIRST] = 24, /* type id */
	[PERFRING_RECORD_TIME_CONV - USER_FIRST] = 32,	/* shift mult zero */
	[PERFRING_RECORD_HEADER_FEATURE - USER_FIRST] = 16, /* feat_id */
	[PERFRING_RECORD_COMPRESSED - USER_FIRST] = 8,
	[PERFRING_RECORD_FINISHED_INIT - USER_FIRST] = 8,
};

PERFRING_API size_t perfring_record_min_size(uint32_t type)
{
	size_t m = 0;

	if (type < PERFRING_RECORD_KERNEL_MAX)
		m = kernel_body[type].min;
	else if (type >= USER_FIRST && type < PERFRING_RECORD_HEADER_MAX)
		m = user_min[type - USER_FIRST];
	else if (type == PERFRING_RECORD_COMPRESSED2)
		m = 16;		/* data_size */
	return m ? m : sizeof(struct perfring_event_header);
}

/* ---- SAMPLE --------------------------------------------------------------- */
#define KNOWN_SAMPLE_BITS (PERFRING_SAMPLE_MAX - 1)
#define KNOWN_FORMAT_BITS ((PERFRING_FORMAT_LOST << 1) - 1)
#define WEIGHT_BITS (PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT)

#define read_words_single prc_read_words_single
#define read_words_group_head prc_read_words_group_head
#define read_words_member prc_read_words_member

/* What the attr asks for is a layout (the core checks the same for encode). */
static int check_attr(const struct perfring_attr *attr, struct perfring_diag *diag)
{
	if (!attr) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "SAMPLE: no attr");
		return -EINVAL;
	}
	if (attr->sample_type & ~(uint64_t)KNOWN_SAMPLE_BITS) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "SAMPLE: unknown sample_type bits 0x%" PRIx64,
			    attr->sample_type & ~(uint64_t)KNOWN_SAMPLE_BITS);
		return -EINVAL;
	}
	if ((attr->sample_type & WEIGHT_BITS) == WEIGHT_BITS) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "SAMPLE: sample_type has both WEIGHT and WEIGHT_STRUCT");
		return -EINVAL;
	}
	if ((attr->sample_type & PERFRING_SAMPLE_READ) &&
	    (attr->read_format & ~(uint64_t)KNOWN_FORMAT_BITS)) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "SAMPLE: unknown read_format bits 0x%" PRIx64,
			    attr->read_format & ~(uint64_t)KNOWN_FORMAT_BITS);
		return -EINVAL;
	}
	return 0;
}

struct cursor {
	const unsigned char *base;
	size_t size;		/* whole record */
	size_t off;		/* next byte to read */
	struct perfring_diag *diag;
};

static __attribute__((cold, noinline)) int short_field(struct cursor *c, const char *field,
							  uint64_t need)
{
	pr_diag_set(c->diag, -EBADMSG, NULL, c->off,
		    "SAMPLE field %s at record offset %zu needs %" PRIu64
		    " bytes, only %zu left in the %zu-byte record",
		    field, c->off, need, c->size - c->off, c->size);
	return -EBADMSG;
}

/* Take n bytes (n may be any u64); returns a pointer or NULL (diag set). */
static inline __attribute__((always_inline)) const void *take(struct cursor *c, const char *field,
							      uint64_t n)
{
	const void *p;

	if (n > c->size - c->off) {
		short_field(c, field, n);
		return NULL;
	}
	p = c->base + c->off;
	c->off += (size_t)n;
	return p;
}

/* Take nr items of `item` bytes each, nr from the record (any value). */
static const void *take_array(struct cursor *c, const char *field,
			      uint64_t nr, size_t item)
{
	size_t left = c->size - c->off;

	if (nr > left / item) {
		/* nr * item may not fit in 64 bits; report the count. */
		pr_diag_set(c->diag, -EBADMSG, NULL, c->off,
			    "SAMPLE field %s at record offset %zu: %" PRIu64
			    " entries of %zu bytes do not fit in the %zu bytes left",
			    field, c->off, nr, item, left);
		return NULL;
	}
	return take(c, field, nr * item);
}

static inline __attribute__((always_inline)) int get_u64(struct cursor *c, const char *field,
							 uint64_t *v)
{
	const void *p = take(c, field, 8);

	if (!p)
		return -EBADMSG;
	*v = pr_get64(p);
	return 0;
}

static inline __attribute__((always_inline)) int get_u32x2(struct cursor *c, const char *field,
							   uint32_t *a, uint32_t *b)
{
	const unsigned char *p = take(c, field, 8);

	if (!p)
		return -EBADMSG;
	*a = pr_get32(p);
	*b = pr_get32(p + 4);
	return 0;
}

static int get_regs(struct cursor *c, const char *field, uint64_t mask,
		    uint64_t *abi, uint32_t *nr, const uint64_t **regs)
{
	if (get_u64(c, field, abi))
		return -EBADMSG;
	*nr = 0;
	*regs = NULL;
	if (*abi) {
		*nr = pr_popcount64(mask);
		*regs = take_array(c, field, *nr, 8);
		if (!*regs)
			return -EBADMSG;
	}
	return 0;
}

static int get_read(struct cursor *c, uint64_t rf, struct perfring_sample *s)
{
	uint64_t words;

	if (rf & PERFRING_FORMAT_GROUP) {
		uint64_t nr;
		const unsigned char *p = c->base + c->off;

		if (c->size - c->off < 8)
			return short_field(c, "READ.nr", 8);
		nr = pr_get64(p);
		/* header words, then nr members */
		if (!take(c, "READ", 8u * read_words_group_head(rf)))
			return -EBADMSG;
		if (!take_array(c, "READ.values", nr, 8u * read_words_member(rf)))
			return -EBADMSG;
		words = read_words_group_head(rf) + nr * read_words_member(rf);
		if (words > UINT32_MAX)	/* impossible below 64 KiB, be sure */
			return short_field(c, "READ", words);
		s->read_values = (const uint64_t *)p;
	} else {
		words = read_words_single(rf);
		s->read_values = take(c, "READ", 8u * words);
		if (!s->read_values)
			return -EBADMSG;
	}
	s->nr_read_words = (uint32_t)words;
	return 0;
}

/* The header of a SAMPLE record of REC_SIZE bytes: 0, -EBADMSG or -EINVAL. */
static inline int check_sample_header(const void *rec, size_t rec_size,
				      struct perfring_diag *diag)
{
	struct perfring_event_header h;

	if (!rec || rec_size < sizeof(h)) {
		pr_diag_set(diag, -EBADMSG, NULL, 0,
			    "SAMPLE: record of %zu bytes has no room for a header",
			    rec_size);
		return -EBADMSG;
	}
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERFRING_RECORD_SAMPLE) {
		pr_diag_set(diag, -EINVAL, NULL, 0,
			    "record type %" PRIu32 " is not SAMPLE", h.type);
		return -EINVAL;
	}
	if (h.size != rec_size) {
		pr_diag_set(diag, -EBADMSG, NULL, 6,
			    "SAMPLE: header size %u does not match record size %zu",
			    h.size, rec_size);
		return -EBADMSG;
	}
	return 0;
}

/*
 * The fields of a SAMPLE come in the order of the sample_type bits; the
 * three walkers below take them in that order, each one a run of it:
 * the ids and counters (IDENTIFIER to READ), the variable-sized areas
 * (CALLCHAIN to STACK_USER), and the rest (WEIGHT to AUX).  Each returns
 * 0 or -EBADMSG (the cursor's diag set).
 */
#define U64(bit, name, dst)						\
	do {								\
		if ((st & (bit)) && get_u64(c, name, &s->dst))		\
			return -EBADMSG;				\
	} while (0)

static inline int walk_sample_ids(struct cursor *c, uint64_t st,
				  const struct perfring_attr *attr,
				  struct perfring_sample *s)
{
	U64(PERFRING_SAMPLE_IDENTIFIER, "IDENTIFIER", identifier);
	U64(PERFRING_SAMPLE_IP, "IP", ip);
	if ((st & PERFRING_SAMPLE_TID) && get_u32x2(c, "TID", &s->pid, &s->tid))
		return -EBADMSG;
	U64(PERFRING_SAMPLE_TIME, "TIME", time);
	U64(PERFRING_SAMPLE_ADDR, "ADDR", addr);
	U64(PERFRING_SAMPLE_ID, "ID", id);
	U64(PERFRING_SAMPLE_STREAM_ID, "STREAM_ID", stream_id);
	if ((st & PERFRING_SAMPLE_CPU) &&
	    get_u32x2(c, "CPU", &s->cpu, &s->cpu_res))
		return -EBADMSG;
	U64(PERFRING_SAMPLE_PERIOD, "PERIOD", period);
	if ((st & PERFRING_SAMPLE_READ) && get_read(c, attr->read_format, s))
		return -EBADMSG;
	return 0;
}

static inline int walk_sample_areas(struct cursor *c, uint64_t st,
				    const struct perfring_attr *attr,
				    struct perfring_sample *s)
{
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		if (get_u64(c, "CALLCHAIN.nr", &s->callchain_nr))
			return -EBADMSG;
		s->callchain = take_array(c, "CALLCHAIN.ips", s->callchain_nr, 8);
		if (!s->callchain)
			return -EBADMSG;
	}
	if (st & PERFRING_SAMPLE_RAW) {
		const void *p = take(c, "RAW.size", 4);

		if (!p)
			return -EBADMSG;
		s->raw_size = pr_get32(p);
		s->raw = take(c, "RAW.data", s->raw_size);
		if (!s->raw)
			return -EBADMSG;
	}
	if (st & PERFRING_SAMPLE_BRANCH_STACK) {
		if (get_u64(c, "BRANCH_STACK.nr", &s->branch_nr))
			return -EBADMSG;
		if (attr->branch_sample_type & PERFRING_BRANCH_HW_INDEX)
			U64(PERFRING_SAMPLE_BRANCH_STACK, "BRANCH_STACK.hw_idx",
			    branch_hw_idx);
		s->branches = take_array(c, "BRANCH_STACK.entries", s->branch_nr,
					 sizeof(struct perfring_branch_entry));
		if (!s->branches)
			return -EBADMSG;
	}
	if ((st & PERFRING_SAMPLE_REGS_USER) &&
	    get_regs(c, "REGS_USER", attr->sample_regs_user, &s->regs_user_abi,
		     &s->regs_user_nr, &s->regs_user))
		return -EBADMSG;
	if (st & PERFRING_SAMPLE_STACK_USER) {
		if (get_u64(c, "STACK_USER.size", &s->stack_user_size))
			return -EBADMSG;
		if (s->stack_user_size) {
			s->stack_user = take(c, "STACK_USER.data", s->stack_user_size);
			if (!s->stack_user)
				return -EBADMSG;
			if (get_u64(c, "STACK_USER.dyn_size", &s->stack_user_dyn_size))
				return -EBADMSG;
		}
	}
	return 0;
}

static inline int walk_sample_rest(struct cursor *c, uint64_t st,
				   const struct perfring_attr *attr,
				   struct perfring_sample *s)
{
	U64(WEIGHT_BITS, (st & PERFRING_SAMPLE_WEIGHT) ? "WEIGHT" : "WEIGHT_STRUCT",
	    weight);
	U64(PERFRING_SAMPLE_DATA_SRC, "DATA_SRC", data_src);
	U64(PERFRING_SAMPLE_TRANSACTION, "TRANSACTION", transaction);
	if ((st & PERFRING_SAMPLE_REGS_INTR) &&
	    get_regs(c, "REGS_INTR", attr->sample_regs_intr, &s->regs_intr_abi,
		     &s->regs_intr_nr, &s->regs_intr))
		return -EBADMSG;
	U64(PERFRING_SAMPLE_PHYS_ADDR, "PHYS_ADDR", phys_addr);
	U64(PERFRING_SAMPLE_CGROUP, "CGROUP", cgroup);
	U64(PERFRING_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE", data_page_size);
	U64(PERFRING_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE", code_page_size);
	if (st & PERFRING_SAMPLE_AUX) {
		if (get_u64(c, "AUX.size", &s->aux_size))
			return -EBADMSG;
		s->aux = take(c, "AUX.data", s->aux_size);
		if (!s->aux)
			return -EBADMSG;
	}
	return 0;
}
#undef U64

PERFRING_API int perfring_sample_decode(const struct perfring_attr *attr,
					const void *rec, size_t rec_size,
					struct perfring_sample *out,
					struct perfring_diag *diag)
{
	struct perfring_sample sv, *s = &sv;
	struct cursor c;
	uint64_t st;
	int err;

	err = check_attr(attr, diag);
	if (err)
		return err;
	err = check_sample_header(rec, rec_size, diag);
	if (err)
		return err;

	/* Validation only (out == NULL): every field read below is set first. */
	if (out)
		memset(s, 0, sizeof(*s));
	c.base = rec;
	c.size = rec_size;
	c.off = sizeof(struct perfring_event_header);
	c.diag = diag;
	st = attr->sample_type;
	if (walk_sample_ids(&c, st, attr, s) ||
	    walk_sample_areas(&c, st, attr, s) ||
	    walk_sample_rest(&c, st, attr, s))
		return -EBADMSG;

	if (c.off != c.size) {
		pr_diag_set(diag, -EBADMSG, NULL, c.off,
			    "SAMPLE: %zu bytes left over at record offset %zu after the last field",
			    c.size - c.off, c.off);
		return -EBADMSG;
	}
	if (out)
		*out = sv;
	return 0;
}

PERFRING_API int perfring_sample_encode(const struct perfring_attr *attr,
					const struct perfring_sample *s,
					uint16_t misc, void *buf, size_t len)
{
	return perfring_core_sample_encode(attr, s, misc, buf, len);
}

/* ---- LOST ----------------------------------------------------------------- */
#define LOST_BODY 24u

static uint64_t trailer_type(const struct perfring_attr *attr)
{
	if (!attr || !(attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	return attr->sample_type;
}

PERFRING_API int perfring_lost_encode(const struct perfring_attr *attr,
				      const struct perfring_lost *l,
				      const struct perfring_sample_id *sid,
				      void *buf, size_t len)
{
	return perfring_core_lost_encode(attr, l, sid, buf, len);
}

PERFRING_API int perfring_lost_decode(const struct perfring_attr *attr,
				      const void *rec, size_t rec_size,
				      struct perfring_lost *l,
				      struct perfring_sample_id *sid)
{
	uint64_t st = trailer_type(attr);
	struct perfring_event_header h;
	const unsigned char *p = rec;

	if (!rec || rec_size < sizeof(h))
		return -EBADMSG;
	memcpy(&h, rec, sizeof(h));
	if (h.type != PERFRING_RECORD_LOST)
		return -EINVAL;
	if (h.size != rec_size ||
	    rec_size < LOST_BODY + perfring_sample_id_size(st))
		return -EBADMSG;
	if (l) {
		l->id = pr_get64(p + 8);
		l->lost = pr_get64(p + 16);
	}
	if (sid) {
		/* st == 0 (no sample_id_all) zeroes sid and cannot fail */
		perfring_sample_id_decode(st, rec, rec_size, sid);
	}
	return 0;
}

/* ---- SAMPLE heads, and adding IDENTIFIER ------------------------------------- */

PERFRING_API int perfring_sample_head_decode(const struct perfring_attr *attr, const void *rec,
					     size_t size, struct perfring_sample_id *out)
{
	const unsigned char *p = rec;
	uint64_t st;
	size_t off = 8;

	if (!attr || !rec || !out || size < 8 || pr_get32(p) != PERFRING_RECORD_SAMPLE)
		return -EINVAL;
	st = attr->sample_type;
	memset(out, 0, sizeof(*out));
#define HEAD_TAKE(bit, stmt)							\
	do {									\
		if (st & (bit)) {						\
			if (off + 8 > size)					\
				return -EBADMSG;				\
			stmt;							\
			off += 8;						\
		}								\
	} while (0)
	HEAD_TAKE(PERFRING_SAMPLE_IDENTIFIER, out->identifier = pr_get64(p + off));
	HEAD_TAKE(PERFRING_SAMPLE_IP, (void)0);
	HEAD_TAKE(PERFRING_SAMPLE_TID, (out->pid = pr_get32(p + off), out->tid = pr_get32(p + off + 4)));
	HEAD_TAKE(PERFRING_SAMPLE_TIME, out->time = pr_get64(p + off));
	HEAD_TAKE(PERFRING_SAMPLE_ADDR, (void)0);
	HEAD_TAKE(PERFRING_SAMPLE_ID, out->id = pr_get64(p + off));
	HEAD_TAKE(PERFRING_SAMPLE_STREAM_ID, out->stream_id = pr_get64(p + off));
	HEAD_TAKE(PERFRING_SAMPLE_CPU, (out->cpu = pr_get32(p + off), out->res = pr_get32(p + off + 4)));
#undef HEAD_TAKE
	return 0;
}

PERFRING_API int perfring_record_add_identifier(const struct perfring_attr *attr, uint64_t id,
						const void *rec, size_t size, void *buf)
{
	const unsigned char *p = rec;
	unsigned char *b = buf;
	uint32_t type;
	size_t tr;
	uint64_t own;

	if (!attr || !rec || !buf || size < 8)
		return -EINVAL;
	type = pr_get32(p);
	tr = type == PERFRING_RECORD_SAMPLE ? 0 : perfring_record_trailer_size(attr, type);
	if (type != PERFRING_RECORD_SAMPLE && (!tr || size < 8 + tr))
		return 0;
	if (size + 8 > 65535)
		return 0;	/* no room for the id: perf would misread it */
	if (perfring_record_id(attr, rec, size, &own) == 1)
		id = own;
	if (type == PERFRING_RECORD_SAMPLE) {
		memcpy(b, p, 8);
		memcpy(b + 8, &id, 8);
		memcpy(b + 16, p + 8, size - 8);
	} else {
		memcpy(b, p, size);
		memcpy(b + size, &id, 8);
	}
	pr_put16(b + 6, (uint16_t)(size + 8));
	return (int)(size + 8);
}
