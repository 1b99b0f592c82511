/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the record codec (lib/ring/record.c).
 *
 * Input: a 56-byte prefix describing the attr, then one record.
 *   u64 mode           bit 0: set the record's header type to SAMPLE and
 *                      its size to the record's length (so the fuzzer
 *                      spends its time inside the SAMPLE body); bit 1: the
 *                      same for LOST
 *   u64 sample_type, read_format, attr flags, sample_regs_user,
 *       sample_regs_intr, branch_sample_type
 * The record is decoded with perfring_sample_decode, perfring_lost_decode
 * and perfring_sample_id_decode, validated with perfring_record_validate
 * (with and without the attr) and its id found with perfring_record_id.
 * A record that validates with the attr: a SAMPLE decodes, a LOST decodes,
 * an id perfring_record_id finds lies inside the record.  Checked: no memory error; every pointer a
 * decoded SAMPLE returns lies inside the record; a SAMPLE that decodes and
 * re-encodes gives back the same bytes, which decode to the same fields;
 * so does a LOST record of the size the encoder writes.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <perfring/perfring.h>

#include "fuzz.h"

#define PREFIX 56

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* [ptr, ptr+len) lies inside [rec, rec+size); touch it for ASan. */
static void inside(const void *rec, size_t size, const void *ptr, uint64_t len)
{
	const uint8_t *b = rec, *q = ptr;
	volatile uint8_t sink = 0;

	if (!len)
		return;
	FUZZ_ASSERT(q != NULL);
	FUZZ_ASSERT(q >= b && q <= b + size);
	FUZZ_ASSERT(len <= (uint64_t)(b + size - q));
	for (uint64_t i = 0; i < len; i++)
		sink ^= q[i];
	(void)sink;
}

static void check_sample(const struct perfring_attr *attr, const void *rec,
			 size_t size, const struct perfring_sample *s)
{
	inside(rec, size, s->read_values, (uint64_t)s->nr_read_words * 8);
	FUZZ_ASSERT(s->callchain_nr <= size / 8);
	inside(rec, size, s->callchain, s->callchain_nr * 8);
	inside(rec, size, s->raw, s->raw_size);
	FUZZ_ASSERT(s->branch_nr <= size / 24);
	inside(rec, size, s->branches, s->branch_nr * sizeof(struct perfring_branch_entry));
	inside(rec, size, s->regs_user, (uint64_t)s->regs_user_nr * 8);
	inside(rec, size, s->regs_intr, (uint64_t)s->regs_intr_nr * 8);
	inside(rec, size, s->stack_user, s->stack_user_size);
	inside(rec, size, s->aux, s->aux_size);
	(void)attr;
}

/* Decode, re-encode, decode again: the two decodes must agree. */
static void round_trip(const struct perfring_attr *attr, const void *rec, size_t size,
		       const struct perfring_sample *s)
{
	static uint8_t buf[PERFRING_RECORD_MAX_SIZE + 8];
	struct perfring_sample s2;
	const struct perfring_event_header *h = rec;
	int len, err;

	len = perfring_sample_encode(attr, s, h->misc, buf, sizeof(buf));
	if (len < 0)
		return;	/* the encoder is stricter (RAW padding): fine */
	FUZZ_ASSERT(len % 8 == 0 && (size_t)len <= sizeof(buf));
	memset(&s2, 0, sizeof(s2));
	err = perfring_sample_decode(attr, buf, (size_t)len, &s2, NULL);
	FUZZ_ASSERT(err == 0);
	check_sample(attr, buf, (size_t)len, &s2);
	FUZZ_ASSERT(s2.ip == s->ip && s2.pid == s->pid && s2.tid == s->tid);
	FUZZ_ASSERT(s2.time == s->time && s2.addr == s->addr && s2.id == s->id);
	FUZZ_ASSERT(s2.stream_id == s->stream_id && s2.cpu == s->cpu);
	FUZZ_ASSERT(s2.period == s->period && s2.identifier == s->identifier);
	FUZZ_ASSERT(s2.nr_read_words == s->nr_read_words);
	FUZZ_ASSERT(s2.callchain_nr == s->callchain_nr);
	FUZZ_ASSERT(s2.raw_size == s->raw_size);
	FUZZ_ASSERT(s2.branch_nr == s->branch_nr);
	FUZZ_ASSERT(s2.regs_user_nr == s->regs_user_nr);
	FUZZ_ASSERT(s2.stack_user_size == s->stack_user_size);
	FUZZ_ASSERT(s2.stack_user_dyn_size == s->stack_user_dyn_size);
	FUZZ_ASSERT(s2.regs_intr_nr == s->regs_intr_nr);
	FUZZ_ASSERT(s2.aux_size == s->aux_size);
	FUZZ_ASSERT(s2.weight == s->weight && s2.data_src == s->data_src);
	FUZZ_ASSERT(s2.cgroup == s->cgroup && s2.phys_addr == s->phys_addr);
	if (s->callchain_nr)
		FUZZ_ASSERT(!memcmp(s2.callchain, s->callchain, s->callchain_nr * 8));
	if (s->raw_size)
		FUZZ_ASSERT(!memcmp(s2.raw, s->raw, s->raw_size));
	/* what the decoder accepted and the encoder wrote back is the record */
	FUZZ_ASSERT((size_t)len == size);
	FUZZ_ASSERT(memcmp(buf, rec, size) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t n = size;
	uint64_t mode = fuzz_take(&p, &n, 8);
	struct perfring_attr attr;
	struct perfring_sample s;
	struct perfring_lost l;
	struct perfring_sample_id sid;
	struct perfring_diag diag;
	uint8_t *rec;
	uint32_t type;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.size = PERFRING_ATTR_SIZE_VER8;
	attr.sample_type = fuzz_take(&p, &n, 8);
	attr.read_format = fuzz_take(&p, &n, 8);
	attr.flags = fuzz_take(&p, &n, 8);
	attr.sample_regs_user = fuzz_take(&p, &n, 8);
	attr.sample_regs_intr = fuzz_take(&p, &n, 8);
	attr.branch_sample_type = fuzz_take(&p, &n, 8);

	rec = fuzz_dup(p, n);
	if ((mode & 3) && n >= 8 && n <= 0xffff) {
		struct perfring_event_header h;

		memcpy(&h, rec, sizeof(h));
		h.type = (mode & 1) ? 9 /* SAMPLE */ : 2 /* LOST */;
		h.size = (uint16_t)n;
		memcpy(rec, &h, sizeof(h));
	}
	type = n >= 4 ? ((const struct perfring_event_header *)rec)->type : 0;

	memset(&s, 0, sizeof(s));
	memset(&diag, 0, sizeof(diag));
	err = perfring_sample_decode(&attr, rec, n, &s, &diag);
	if (err == 0) {
		check_sample(&attr, rec, n, &s);
		round_trip(&attr, rec, n, &s);
	} else {
		FUZZ_ASSERT(err == -EBADMSG || err == -EINVAL);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
	}

	err = perfring_lost_decode(&attr, rec, n, &l, &sid);
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);
	if (err == 0) {
		/* LOST re-encodes to the same bytes (misc is always 0) */
		static uint8_t buf[256];
		int len = perfring_lost_encode(&attr, &l, &sid, buf, sizeof(buf));

		FUZZ_ASSERT(len > 0);
		if ((size_t)len == n && ((const struct perfring_event_header *)rec)->misc == 0)
			FUZZ_ASSERT(memcmp(buf, rec, n) == 0);
	}
	err = perfring_lost_decode(&attr, rec, n, NULL, NULL);
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);

	err = perfring_sample_id_decode(attr.sample_type, rec, n, &sid);
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);
	if (err == 0)
		FUZZ_ASSERT(perfring_sample_id_size(attr.sample_type) + 8 <= n);

	/* the validator, with and without the attr */
	memset(&diag, 0, sizeof(diag));
	err = perfring_record_validate(NULL, &attr, rec, n, 0x40, &diag);
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);
	if (err) {
		FUZZ_ASSERT(diag.error == -EBADMSG && diag.has_offset && diag.offset == 0x40);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
	} else if (type == 9) {
		FUZZ_ASSERT(perfring_sample_decode(&attr, rec, n, NULL, NULL) == 0);
	} else if (type == 2) {
		FUZZ_ASSERT(perfring_lost_decode(&attr, rec, n, NULL, NULL) == 0);
	}
	/*
	 * What passes with the attr passes without it, but for a SAMPLE and
	 * for an MMAP2 that the attr's trailer makes an early-layout one: its
	 * filename is elsewhere than in the kernel's layout, which is what a
	 * check without the attr (no trailer) reads it as.
	 */
	if (err == 0)
		FUZZ_ASSERT(perfring_record_validate(NULL, NULL, rec, n, 0, NULL) == 0 ||
			    type == 9 ||
			    (type == PERFRING_RECORD_MMAP2 &&
			     perfring_mmap2_layout(rec, n, perfring_record_trailer_size(&attr, type)) ==
				     PERFRING_MMAP2_LAYOUT_EARLY));
	else
		(void)perfring_record_validate(NULL, NULL, rec, n, 0, NULL);
	{
		uint64_t id = 0;
		int ip, is;

		err = perfring_record_id(&attr, rec, n, &id);
		FUZZ_ASSERT(err == 0 || err == 1 || err == -EBADMSG);
		perfring_sample_id_pos(attr.sample_type, &ip, &is);
		if (err == 1)
			FUZZ_ASSERT(type == 9 ? 16 + 8 * (size_t)ip <= n : 8 + 8 * (size_t)is <= n);
	}

	FUZZ_ASSERT(perfring_record_trailer_size(&attr, type) <= 48);
	FUZZ_ASSERT(perfring_record_min_size(type) >= 8);
	(void)perfring_record_type_name(type);

	free(rec);
	return 0;
}
