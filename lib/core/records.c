/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring core: the record encoders.  The one place that writes the wire
 * layouts of the sample_id_all trailer, SAMPLE, LOST, COMM, MMAP/MMAP2 and
 * FORK/EXIT (lib/core/README.md says who uses them).
 *
 * Freestanding: they write nothing but the caller's buffer (no allocation,
 * no errno, no libc beyond memcpy/memset), so they may run in a signal or
 * interrupt handler.
 */
#include "internal.h"

/* ---- layout pins -------------------------------------------------------- */
#define PRC_PIN(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f)

_Static_assert(sizeof(struct perfring_event_header) == 8, "header size");
PRC_PIN(struct perfring_event_header, misc, 4);
PRC_PIN(struct perfring_event_header, size, 6);
_Static_assert(sizeof(struct perfring_attr) == PERFRING_ATTR_SIZE_VER8, "attr size");
PRC_PIN(struct perfring_attr, sample_type, 24);
PRC_PIN(struct perfring_attr, flags, 40);
_Static_assert(sizeof(struct perfring_sample_id) == 48, "sample_id size");
_Static_assert(sizeof(struct perfring_branch_entry) == 24, "branch entry size");
_Static_assert(sizeof(struct perfring_comm_event) == PRC_COMM_FIXED, "comm body");
_Static_assert(sizeof(struct perfring_mmap_event) == PRC_MMAP_FIXED, "mmap body");
_Static_assert(sizeof(struct perfring_mmap2_event) == PRC_MMAP2_FIXED, "mmap2 body");
PRC_PIN(struct perfring_mmap2_event, build_id, 44);
PRC_PIN(struct perfring_mmap2_event, prot, 64);
_Static_assert(sizeof(struct perfring_task_event) == PRC_TASK_BODY, "task body");

static const struct perfring_sample_id zero_sid;

/* ---- sample_id_all trailer ---------------------------------------------- */
size_t perfring_core_sample_id_size(uint64_t sample_type)
{
	return 8u * prc_popcount64(sample_type & PERFRING_SAMPLE_ID_ALL_BITS);
}

int perfring_core_sample_id_encode(uint64_t sample_type, const struct perfring_sample_id *sid,
				   void *buf, size_t len)
{
	size_t need = perfring_core_sample_id_size(sample_type);
	unsigned char *p = buf;

	if (need > len)
		return -PERFRING_CORE_ENOSPC;
	if (!sid)
		sid = &zero_sid;
	if (sample_type & PERFRING_SAMPLE_TID) {
		prc_put32(p, sid->pid);
		prc_put32(p + 4, sid->tid);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_TIME) {
		prc_put64(p, sid->time);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_ID) {
		prc_put64(p, sid->id);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_STREAM_ID) {
		prc_put64(p, sid->stream_id);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_CPU) {
		prc_put32(p, sid->cpu);
		prc_put32(p + 4, sid->res);
		p += 8;
	}
	if (sample_type & PERFRING_SAMPLE_IDENTIFIER)
		prc_put64(p, sid->identifier);
	return (int)need;
}

size_t perfring_core_trailer_size(const struct perfring_attr *attr, uint32_t type)
{
	if (!attr || !(attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (type == PERFRING_RECORD_PAD || type == PERFRING_RECORD_SAMPLE ||
	    type >= PERFRING_RECORD_HEADER_ATTR)
		return 0;
	return perfring_core_sample_id_size(attr->sample_type);
}

static void put_header(void *buf, uint32_t type, uint16_t misc, size_t size)
{
	struct perfring_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };

	__builtin_memcpy(buf, &h, sizeof(h));
}

/* The trailer at buf + body (the record is total bytes; len was checked). */
static void put_trailer(const struct perfring_attr *attr, const struct perfring_sample_id *sid,
			void *buf, size_t body, size_t total)
{
	if (body != total)
		perfring_core_sample_id_encode(attr->sample_type, sid, (char *)buf + body,
					       total - body);
}

/* ---- SAMPLE --------------------------------------------------------------- */
static int check_attr(const struct perfring_attr *attr)
{
	if (!attr)
		return -PERFRING_CORE_EINVAL;
	if (attr->sample_type & ~(uint64_t)PRC_KNOWN_SAMPLE_BITS)
		return -PERFRING_CORE_EINVAL;
	if ((attr->sample_type & PRC_WEIGHT_BITS) == PRC_WEIGHT_BITS)
		return -PERFRING_CORE_EINVAL;
	if ((attr->sample_type & PERFRING_SAMPLE_READ) &&
	    (attr->read_format & ~(uint64_t)PRC_KNOWN_FORMAT_BITS))
		return -PERFRING_CORE_EINVAL;
	return 0;
}

/* Size of an array of nr items of `item` bytes, saturating above the max. */
static uint64_t arr_size(uint64_t nr, uint64_t item)
{
	if (nr > (uint64_t)PERFRING_RECORD_MAX_SIZE / item)
		return (uint64_t)PERFRING_RECORD_MAX_SIZE + 1;
	return nr * item;
}

/* Saturating add: stays above PERFRING_RECORD_MAX_SIZE once there. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	if (a > PERFRING_RECORD_MAX_SIZE || b > PERFRING_RECORD_MAX_SIZE)
		return (uint64_t)PERFRING_RECORD_MAX_SIZE + 1;
	return a + b;
}

/*
 * Validate s against attr and compute the encoded size (saturated at
 * PERFRING_RECORD_MAX_SIZE + 1).  Returns 0 or -EINVAL.
 */
static int sample_size(const struct perfring_attr *attr, const struct perfring_sample *s,
		       uint64_t *size)
{
	uint64_t st = attr->sample_type;
	uint64_t sz = sizeof(struct perfring_event_header);

	sz += 8u * prc_popcount64(st & (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
				     PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
				     PERFRING_SAMPLE_ADDR | PERFRING_SAMPLE_ID |
				     PERFRING_SAMPLE_STREAM_ID | PERFRING_SAMPLE_CPU |
				     PERFRING_SAMPLE_PERIOD | PRC_WEIGHT_BITS |
				     PERFRING_SAMPLE_DATA_SRC | PERFRING_SAMPLE_TRANSACTION |
				     PERFRING_SAMPLE_PHYS_ADDR | PERFRING_SAMPLE_CGROUP |
				     PERFRING_SAMPLE_DATA_PAGE_SIZE |
				     PERFRING_SAMPLE_CODE_PAGE_SIZE));
	if (st & PERFRING_SAMPLE_READ) {
		uint64_t rf = attr->read_format;
		uint64_t want;

		if (!s->read_values)
			return -PERFRING_CORE_EINVAL;
		if (rf & PERFRING_FORMAT_GROUP) {
			uint64_t nr;

			if (s->nr_read_words < 1)
				return -PERFRING_CORE_EINVAL;
			__builtin_memcpy(&nr, s->read_values, 8);
			want = sat_add(prc_read_words_group_head(rf),
				       arr_size(nr, prc_read_words_member(rf)));
		} else {
			want = prc_read_words_single(rf);
		}
		if (want != s->nr_read_words)
			return -PERFRING_CORE_EINVAL;
		sz = sat_add(sz, 8u * (uint64_t)s->nr_read_words);
	}
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		if (s->callchain_nr && !s->callchain)
			return -PERFRING_CORE_EINVAL;
		sz = sat_add(sz, sat_add(8, arr_size(s->callchain_nr, 8)));
	}
	if (st & PERFRING_SAMPLE_RAW) {
		if (((uint64_t)s->raw_size + 4) % 8 || (s->raw_size && !s->raw))
			return -PERFRING_CORE_EINVAL;
		sz = sat_add(sz, 4 + (uint64_t)s->raw_size);
	}
	if (st & PERFRING_SAMPLE_BRANCH_STACK) {
		if (s->branch_nr && !s->branches)
			return -PERFRING_CORE_EINVAL;
		sz = sat_add(sz, 8);
		if (attr->branch_sample_type & PERFRING_BRANCH_HW_INDEX)
			sz = sat_add(sz, 8);
		sz = sat_add(sz, arr_size(s->branch_nr, sizeof(struct perfring_branch_entry)));
	}
	if (st & PERFRING_SAMPLE_REGS_USER) {
		sz = sat_add(sz, 8);
		if (s->regs_user_abi) {
			if (s->regs_user_nr != prc_popcount64(attr->sample_regs_user) ||
			    (s->regs_user_nr && !s->regs_user))
				return -PERFRING_CORE_EINVAL;
			sz = sat_add(sz, 8u * (uint64_t)s->regs_user_nr);
		}
	}
	if (st & PERFRING_SAMPLE_STACK_USER) {
		sz = sat_add(sz, 8);
		if (s->stack_user_size) {
			if (s->stack_user_size % 8 || !s->stack_user)
				return -PERFRING_CORE_EINVAL;
			sz = sat_add(sz, sat_add(s->stack_user_size, 8));
		}
	}
	if (st & PERFRING_SAMPLE_REGS_INTR) {
		sz = sat_add(sz, 8);
		if (s->regs_intr_abi) {
			if (s->regs_intr_nr != prc_popcount64(attr->sample_regs_intr) ||
			    (s->regs_intr_nr && !s->regs_intr))
				return -PERFRING_CORE_EINVAL;
			sz = sat_add(sz, 8u * (uint64_t)s->regs_intr_nr);
		}
	}
	if (st & PERFRING_SAMPLE_AUX) {
		if (s->aux_size % 8 || (s->aux_size && !s->aux))
			return -PERFRING_CORE_EINVAL;
		sz = sat_add(sz, sat_add(8, s->aux_size));
	}
	*size = sz;
	return 0;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
	prc_put64(p, v);
	return p + 8;
}

static unsigned char *put_u32x2(unsigned char *p, uint32_t a, uint32_t b)
{
	prc_put32(p, a);
	prc_put32(p + 4, b);
	return p + 8;
}

static unsigned char *put_bytes(unsigned char *p, const void *src, size_t n)
{
	if (n)
		__builtin_memcpy(p, src, n);
	return p + n;
}

size_t perfring_core_time_raw_head(void *buf, uint16_t misc, uint64_t time, uint32_t raw_size)
{
	unsigned char *p = buf;
	size_t size = 20 + (size_t)raw_size;

	put_header(p, PERFRING_RECORD_SAMPLE, misc, size);
	__builtin_memcpy(p + 8, &time, 8);
	__builtin_memcpy(p + 16, &raw_size, 4);
	return size;
}

int perfring_core_sample_encode(const struct perfring_attr *attr,
				const struct perfring_sample *s, uint16_t misc,
				void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t size, st;
	int err;

	if (!s)
		return -PERFRING_CORE_EINVAL;
	err = check_attr(attr);
	if (err)
		return err;
	err = sample_size(attr, s, &size);
	if (err)
		return err;
	if (size > PERFRING_RECORD_MAX_SIZE)
		return -PERFRING_CORE_EMSGSIZE;
	if (!buf || size > len)
		return -PERFRING_CORE_ENOSPC;

	st = attr->sample_type;
	put_header(p, PERFRING_RECORD_SAMPLE, misc, size);
	p += 8;
	if (st & PERFRING_SAMPLE_IDENTIFIER)
		p = put_u64(p, s->identifier);
	if (st & PERFRING_SAMPLE_IP)
		p = put_u64(p, s->ip);
	if (st & PERFRING_SAMPLE_TID)
		p = put_u32x2(p, s->pid, s->tid);
	if (st & PERFRING_SAMPLE_TIME)
		p = put_u64(p, s->time);
	if (st & PERFRING_SAMPLE_ADDR)
		p = put_u64(p, s->addr);
	if (st & PERFRING_SAMPLE_ID)
		p = put_u64(p, s->id);
	if (st & PERFRING_SAMPLE_STREAM_ID)
		p = put_u64(p, s->stream_id);
	if (st & PERFRING_SAMPLE_CPU)
		p = put_u32x2(p, s->cpu, s->cpu_res);
	if (st & PERFRING_SAMPLE_PERIOD)
		p = put_u64(p, s->period);
	if (st & PERFRING_SAMPLE_READ)
		p = put_bytes(p, s->read_values, 8u * (size_t)s->nr_read_words);
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		p = put_u64(p, s->callchain_nr);
		p = put_bytes(p, s->callchain, 8u * (size_t)s->callchain_nr);
	}
	if (st & PERFRING_SAMPLE_RAW) {
		prc_put32(p, s->raw_size);
		p = put_bytes(p + 4, s->raw, s->raw_size);
	}
	if (st & PERFRING_SAMPLE_BRANCH_STACK) {
		p = put_u64(p, s->branch_nr);
		if (attr->branch_sample_type & PERFRING_BRANCH_HW_INDEX)
			p = put_u64(p, s->branch_hw_idx);
		p = put_bytes(p, s->branches,
			      (size_t)s->branch_nr * sizeof(struct perfring_branch_entry));
	}
	if (st & PERFRING_SAMPLE_REGS_USER) {
		p = put_u64(p, s->regs_user_abi);
		if (s->regs_user_abi)
			p = put_bytes(p, s->regs_user, 8u * (size_t)s->regs_user_nr);
	}
	if (st & PERFRING_SAMPLE_STACK_USER) {
		p = put_u64(p, s->stack_user_size);
		if (s->stack_user_size) {
			p = put_bytes(p, s->stack_user, (size_t)s->stack_user_size);
			p = put_u64(p, s->stack_user_dyn_size);
		}
	}
	if (st & PRC_WEIGHT_BITS)
		p = put_u64(p, s->weight);
	if (st & PERFRING_SAMPLE_DATA_SRC)
		p = put_u64(p, s->data_src);
	if (st & PERFRING_SAMPLE_TRANSACTION)
		p = put_u64(p, s->transaction);
	if (st & PERFRING_SAMPLE_REGS_INTR) {
		p = put_u64(p, s->regs_intr_abi);
		if (s->regs_intr_abi)
			p = put_bytes(p, s->regs_intr, 8u * (size_t)s->regs_intr_nr);
	}
	if (st & PERFRING_SAMPLE_PHYS_ADDR)
		p = put_u64(p, s->phys_addr);
	if (st & PERFRING_SAMPLE_CGROUP)
		p = put_u64(p, s->cgroup);
	if (st & PERFRING_SAMPLE_DATA_PAGE_SIZE)
		p = put_u64(p, s->data_page_size);
	if (st & PERFRING_SAMPLE_CODE_PAGE_SIZE)
		p = put_u64(p, s->code_page_size);
	if (st & PERFRING_SAMPLE_AUX) {
		p = put_u64(p, s->aux_size);
		p = put_bytes(p, s->aux, (size_t)s->aux_size);
	}
	return (int)size;
}

/* ---- LOST ----------------------------------------------------------------- */
int perfring_core_lost_encode(const struct perfring_attr *attr, const struct perfring_lost *l,
			      const struct perfring_sample_id *sid, void *buf, size_t len)
{
	size_t tsz = perfring_core_trailer_size(attr, PERFRING_RECORD_LOST);
	size_t size = PRC_LOST_BODY + tsz;
	unsigned char *p = buf;

	if (!l)
		return -PERFRING_CORE_EINVAL;
	if (!buf || size > len)
		return -PERFRING_CORE_ENOSPC;
	put_header(p, PERFRING_RECORD_LOST, 0, size);
	prc_put64(p + 8, l->id);
	prc_put64(p + 16, l->lost);
	put_trailer(attr, sid, p, PRC_LOST_BODY, size);
	return (int)size;
}

/* ---- COMM ----------------------------------------------------------------- */
int perfring_core_comm_encode(const struct perfring_attr *attr, const struct perfring_comm *c,
			      const struct perfring_sample_id *sid, void *buf, size_t len)
{
	size_t n, body, total;
	uint16_t misc;
	char *p = buf;

	if (!c || !buf)
		return -PERFRING_CORE_EINVAL;
	n = prc_strnlen(c->comm, PERFRING_COMM_LEN - 1);
	body = PRC_COMM_FIXED + PRC_ALIGN8(n + 1);
	total = body + perfring_core_trailer_size(attr, PERFRING_RECORD_COMM);
	if (len < total)
		return -PERFRING_CORE_ENOSPC;
	misc = (uint16_t)((c->misc & ~PERFRING_MISC_COMM_EXEC) |
			  (c->exec ? PERFRING_MISC_COMM_EXEC : 0));
	put_header(p, PERFRING_RECORD_COMM, misc, total);
	prc_put32(p + 8, c->pid);
	prc_put32(p + 12, c->tid);
	__builtin_memcpy(p + PRC_COMM_FIXED, c->comm, n);
	__builtin_memset(p + PRC_COMM_FIXED + n, 0, body - PRC_COMM_FIXED - n);
	put_trailer(attr, sid, p, body, total);
	return (int)total;
}

/* ---- MMAP / MMAP2 --------------------------------------------------------- */
int perfring_core_mmap2_encode(const struct perfring_attr *attr, uint32_t type,
			       const struct perfring_mmap2 *m,
			       const struct perfring_sample_id *sid, void *buf, size_t len)
{
	size_t n, fixed, body, total;
	char *p = buf;

	if (!m || !buf || (type != PERFRING_RECORD_MMAP2 && type != PERFRING_RECORD_MMAP))
		return -PERFRING_CORE_EINVAL;
	if (!m->filename && m->filename_len)
		return -PERFRING_CORE_EINVAL;
	if (type == PERFRING_RECORD_MMAP2 && (m->misc & PERFRING_MISC_MMAP_BUILD_ID) &&
	    m->build_id_size > PERFRING_BUILD_ID_SIZE)
		return -PERFRING_CORE_EINVAL;
	/* prot is PROT_* bits; a prot above 0xff would read back as the
	 * early layout's filename (perfring_mmap2_layout) */
	if (type == PERFRING_RECORD_MMAP2 && m->prot > 0xff)
		return -PERFRING_CORE_EINVAL;
	/*
	 * Never read more than a record can hold, whatever filename_len
	 * says; checked in steps so that nothing can overflow.
	 */
	n = m->filename_len < PERFRING_RECORD_MAX_SIZE + 1 ? m->filename_len
							    : PERFRING_RECORD_MAX_SIZE + 1;
	n = m->filename ? prc_strnlen(m->filename, n) : 0;
	fixed = type == PERFRING_RECORD_MMAP2 ? PRC_MMAP2_FIXED : PRC_MMAP_FIXED;
	if (n > PERFRING_RECORD_MAX_SIZE)
		return -PERFRING_CORE_EMSGSIZE;
	body = fixed + PRC_ALIGN8(n + 1);
	total = body + perfring_core_trailer_size(attr, type);
	if (total > PERFRING_RECORD_MAX_SIZE)
		return -PERFRING_CORE_EMSGSIZE;
	if (len < total)
		return -PERFRING_CORE_ENOSPC;
	put_header(p, type, m->misc, total);
	prc_put32(p + 8, m->pid);
	prc_put32(p + 12, m->tid);
	prc_put64(p + 16, m->addr);
	prc_put64(p + 24, m->len);
	prc_put64(p + 32, m->pgoff);
	if (type == PERFRING_RECORD_MMAP2) {
		if (m->misc & PERFRING_MISC_MMAP_BUILD_ID) {
			p[40] = (char)m->build_id_size;
			__builtin_memset(p + 41, 0, 3);
			__builtin_memcpy(p + 44, m->build_id, PERFRING_BUILD_ID_SIZE);
		} else {
			prc_put32(p + 40, m->maj);
			prc_put32(p + 44, m->min);
			prc_put64(p + 48, m->ino);
			prc_put64(p + 56, m->ino_generation);
		}
		prc_put32(p + 64, m->prot);
		prc_put32(p + 68, m->flags);
	}
	if (n)
		__builtin_memcpy(p + fixed, m->filename, n);
	__builtin_memset(p + fixed + n, 0, body - fixed - n);
	put_trailer(attr, sid, p, body, total);
	return (int)total;
}

/* ---- FORK / EXIT ---------------------------------------------------------- */
int perfring_core_task_encode(const struct perfring_attr *attr, uint32_t type,
			      const struct perfring_task *t,
			      const struct perfring_sample_id *sid, void *buf, size_t len)
{
	size_t total = PRC_TASK_BODY + perfring_core_trailer_size(attr, type);
	char *p = buf;

	if (!t || !buf || (type != PERFRING_RECORD_FORK && type != PERFRING_RECORD_EXIT))
		return -PERFRING_CORE_EINVAL;
	if (len < total)
		return -PERFRING_CORE_ENOSPC;
	put_header(p, type, t->misc, total);
	prc_put32(p + 8, t->pid);
	prc_put32(p + 12, t->ppid);
	prc_put32(p + 16, t->tid);
	prc_put32(p + 20, t->ptid);
	prc_put64(p + 24, t->time);
	put_trailer(attr, sid, p, PRC_TASK_BODY, total);
	return (int)total;
}
