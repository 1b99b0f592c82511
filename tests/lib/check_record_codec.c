/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Record codec tests: layouts against <linux/perf_event.h>, type names,
 * the sample_id_all trailer, SAMPLE and LOST codecs against real perf.data
 * files (tests/fixtures/rec-*.data, made by make-fixtures.sh), a seeded
 * round-trip property test, truncation and hostile-count rejection.
 *
 * PERFRING_TEST_SCALE (tests/testutil.h, default 1) multiplies the iteration counts of the
 * property and truncation tests.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "testutil.h"
#include "perfdata_walk.h"
#include <perfring/perfring.h>

/* ---- helpers ------------------------------------------------------------- */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void put64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static uint64_t get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Two u32 as they sit in one u64 slot (pid/tid, cpu/res). */
static uint64_t pair32(uint32_t lo, uint32_t hi)
{
	uint64_t v;

	memcpy(&v, &lo, 4);
	memcpy((char *)&v + 4, &hi, 4);
	return v;
}

static void put_header(void *p, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perfring_event_header h = { .type = type, .misc = misc, .size = size };

	memcpy(p, &h, sizeof(h));
}

/* ---- layout against the kernel's uapi header ------------------------------ */
#define PIN(f) _Static_assert(offsetof(struct perf_event_attr, f) ==		\
			      offsetof(struct perfring_attr, f), #f)
PIN(type);
PIN(size);
PIN(config);
PIN(sample_period);
PIN(sample_type);
PIN(read_format);
PIN(wakeup_events);
PIN(bp_type);
PIN(config1);
PIN(config2);
PIN(branch_sample_type);
PIN(sample_regs_user);
PIN(sample_stack_user);
PIN(clockid);
PIN(sample_regs_intr);
PIN(aux_watermark);
PIN(sample_max_stack);
PIN(aux_sample_size);
PIN(sig_data);
#ifdef PERF_ATTR_SIZE_VER8
PIN(config3);
#endif
_Static_assert(offsetof(struct perf_event_attr, sample_max_stack) + 2 ==
	       offsetof(struct perfring_attr, reserved_2), "__reserved_2");
_Static_assert(offsetof(struct perf_event_attr, aux_sample_size) + 4 ==
	       offsetof(struct perfring_attr, reserved_3), "__reserved_3");
_Static_assert(offsetof(struct perfring_attr, flags) == 40, "flags");
_Static_assert(sizeof(struct perf_event_header) == sizeof(struct perfring_event_header),
	       "header");
_Static_assert(sizeof(struct perf_branch_entry) == sizeof(struct perfring_branch_entry),
	       "branch entry");

START_TEST(test_attr_layout)
{
	/* 6.1 headers: 128 bytes (VER7); newer ones 136 (VER8) */
	ck_assert(sizeof(struct perf_event_attr) == PERFRING_ATTR_SIZE_VER7 ||
		  sizeof(struct perf_event_attr) == PERFRING_ATTR_SIZE_VER8);
	ck_assert_uint_eq(sizeof(struct perfring_attr), PERFRING_ATTR_SIZE_VER8);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER0, PERFRING_ATTR_SIZE_VER0);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER1, PERFRING_ATTR_SIZE_VER1);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER2, PERFRING_ATTR_SIZE_VER2);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER3, PERFRING_ATTR_SIZE_VER3);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER4, PERFRING_ATTR_SIZE_VER4);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER5, PERFRING_ATTR_SIZE_VER5);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER6, PERFRING_ATTR_SIZE_VER6);
	ck_assert_uint_eq(PERF_ATTR_SIZE_VER7, PERFRING_ATTR_SIZE_VER7);
}
END_TEST

/* Set one kernel bitfield alone and compare the u64 at offset 40. */
#define FLAG(field, val, mask)							\
	do {									\
		struct perf_event_attr a;					\
		uint64_t v;							\
		memset(&a, 0, sizeof(a));					\
		a.field = (val);						\
		memcpy(&v, (const char *)&a + 40, 8);				\
		ck_assert_msg(v == (mask), #field ": 0x%" PRIx64 " != 0x%" PRIx64, \
			      v, (uint64_t)(mask));				\
		n++;								\
	} while (0)

START_TEST(test_attr_flags)
{
	unsigned n = 0;

	FLAG(disabled, 1, PERFRING_ATTR_DISABLED);
	FLAG(inherit, 1, PERFRING_ATTR_INHERIT);
	FLAG(pinned, 1, PERFRING_ATTR_PINNED);
	FLAG(exclusive, 1, PERFRING_ATTR_EXCLUSIVE);
	FLAG(exclude_user, 1, PERFRING_ATTR_EXCLUDE_USER);
	FLAG(exclude_kernel, 1, PERFRING_ATTR_EXCLUDE_KERNEL);
	FLAG(exclude_hv, 1, PERFRING_ATTR_EXCLUDE_HV);
	FLAG(exclude_idle, 1, PERFRING_ATTR_EXCLUDE_IDLE);
	FLAG(mmap, 1, PERFRING_ATTR_MMAP);
	FLAG(comm, 1, PERFRING_ATTR_COMM);
	FLAG(freq, 1, PERFRING_ATTR_FREQ);
	FLAG(inherit_stat, 1, PERFRING_ATTR_INHERIT_STAT);
	FLAG(enable_on_exec, 1, PERFRING_ATTR_ENABLE_ON_EXEC);
	FLAG(task, 1, PERFRING_ATTR_TASK);
	FLAG(watermark, 1, PERFRING_ATTR_WATERMARK);
	FLAG(precise_ip, 3, PERFRING_ATTR_PRECISE_IP_MASK);
	FLAG(precise_ip, 2, 2ull << PERFRING_ATTR_PRECISE_IP_SHIFT);
	FLAG(mmap_data, 1, PERFRING_ATTR_MMAP_DATA);
	FLAG(sample_id_all, 1, PERFRING_ATTR_SAMPLE_ID_ALL);
	FLAG(exclude_host, 1, PERFRING_ATTR_EXCLUDE_HOST);
	FLAG(exclude_guest, 1, PERFRING_ATTR_EXCLUDE_GUEST);
	FLAG(exclude_callchain_kernel, 1, PERFRING_ATTR_EXCLUDE_CALLCHAIN_KERNEL);
	FLAG(exclude_callchain_user, 1, PERFRING_ATTR_EXCLUDE_CALLCHAIN_USER);
	FLAG(mmap2, 1, PERFRING_ATTR_MMAP2);
	FLAG(comm_exec, 1, PERFRING_ATTR_COMM_EXEC);
	FLAG(use_clockid, 1, PERFRING_ATTR_USE_CLOCKID);
	FLAG(context_switch, 1, PERFRING_ATTR_CONTEXT_SWITCH);
	FLAG(write_backward, 1, PERFRING_ATTR_WRITE_BACKWARD);
	FLAG(namespaces, 1, PERFRING_ATTR_NAMESPACES);
	FLAG(ksymbol, 1, PERFRING_ATTR_KSYMBOL);
	FLAG(bpf_event, 1, PERFRING_ATTR_BPF_EVENT);
	FLAG(aux_output, 1, PERFRING_ATTR_AUX_OUTPUT);
	FLAG(cgroup, 1, PERFRING_ATTR_CGROUP);
	FLAG(text_poke, 1, PERFRING_ATTR_TEXT_POKE);
	FLAG(build_id, 1, PERFRING_ATTR_BUILD_ID);
	FLAG(inherit_thread, 1, PERFRING_ATTR_INHERIT_THREAD);
	FLAG(remove_on_exec, 1, PERFRING_ATTR_REMOVE_ON_EXEC);
	FLAG(sigtrap, 1, PERFRING_ATTR_SIGTRAP);
	ck_assert_uint_eq(n, 38);
}
END_TEST

START_TEST(test_uapi_constants)
{
	static const struct { uint64_t k, p; const char *n; } c[] = {
#define C(k, p) { (uint64_t)(k), (uint64_t)(p), #k }
		C(PERF_SAMPLE_IP, PERFRING_SAMPLE_IP),
		C(PERF_SAMPLE_TID, PERFRING_SAMPLE_TID),
		C(PERF_SAMPLE_TIME, PERFRING_SAMPLE_TIME),
		C(PERF_SAMPLE_ADDR, PERFRING_SAMPLE_ADDR),
		C(PERF_SAMPLE_READ, PERFRING_SAMPLE_READ),
		C(PERF_SAMPLE_CALLCHAIN, PERFRING_SAMPLE_CALLCHAIN),
		C(PERF_SAMPLE_ID, PERFRING_SAMPLE_ID),
		C(PERF_SAMPLE_CPU, PERFRING_SAMPLE_CPU),
		C(PERF_SAMPLE_PERIOD, PERFRING_SAMPLE_PERIOD),
		C(PERF_SAMPLE_STREAM_ID, PERFRING_SAMPLE_STREAM_ID),
		C(PERF_SAMPLE_RAW, PERFRING_SAMPLE_RAW),
		C(PERF_SAMPLE_BRANCH_STACK, PERFRING_SAMPLE_BRANCH_STACK),
		C(PERF_SAMPLE_REGS_USER, PERFRING_SAMPLE_REGS_USER),
		C(PERF_SAMPLE_STACK_USER, PERFRING_SAMPLE_STACK_USER),
		C(PERF_SAMPLE_WEIGHT, PERFRING_SAMPLE_WEIGHT),
		C(PERF_SAMPLE_DATA_SRC, PERFRING_SAMPLE_DATA_SRC),
		C(PERF_SAMPLE_IDENTIFIER, PERFRING_SAMPLE_IDENTIFIER),
		C(PERF_SAMPLE_TRANSACTION, PERFRING_SAMPLE_TRANSACTION),
		C(PERF_SAMPLE_REGS_INTR, PERFRING_SAMPLE_REGS_INTR),
		C(PERF_SAMPLE_PHYS_ADDR, PERFRING_SAMPLE_PHYS_ADDR),
		C(PERF_SAMPLE_AUX, PERFRING_SAMPLE_AUX),
		C(PERF_SAMPLE_CGROUP, PERFRING_SAMPLE_CGROUP),
		C(PERF_SAMPLE_DATA_PAGE_SIZE, PERFRING_SAMPLE_DATA_PAGE_SIZE),
		C(PERF_SAMPLE_CODE_PAGE_SIZE, PERFRING_SAMPLE_CODE_PAGE_SIZE),
		C(PERF_SAMPLE_WEIGHT_STRUCT, PERFRING_SAMPLE_WEIGHT_STRUCT),
		C(PERF_SAMPLE_MAX, PERFRING_SAMPLE_MAX),
		C(PERF_FORMAT_TOTAL_TIME_ENABLED, PERFRING_FORMAT_TOTAL_TIME_ENABLED),
		C(PERF_FORMAT_TOTAL_TIME_RUNNING, PERFRING_FORMAT_TOTAL_TIME_RUNNING),
		C(PERF_FORMAT_ID, PERFRING_FORMAT_ID),
		C(PERF_FORMAT_GROUP, PERFRING_FORMAT_GROUP),
		C(PERF_FORMAT_LOST, PERFRING_FORMAT_LOST),
		C(PERF_SAMPLE_BRANCH_HW_INDEX, PERFRING_BRANCH_HW_INDEX),
		C(PERF_RECORD_MMAP, PERFRING_RECORD_MMAP),
		C(PERF_RECORD_LOST, PERFRING_RECORD_LOST),
		C(PERF_RECORD_COMM, PERFRING_RECORD_COMM),
		C(PERF_RECORD_EXIT, PERFRING_RECORD_EXIT),
		C(PERF_RECORD_THROTTLE, PERFRING_RECORD_THROTTLE),
		C(PERF_RECORD_UNTHROTTLE, PERFRING_RECORD_UNTHROTTLE),
		C(PERF_RECORD_FORK, PERFRING_RECORD_FORK),
		C(PERF_RECORD_READ, PERFRING_RECORD_READ),
		C(PERF_RECORD_SAMPLE, PERFRING_RECORD_SAMPLE),
		C(PERF_RECORD_MMAP2, PERFRING_RECORD_MMAP2),
		C(PERF_RECORD_AUX, PERFRING_RECORD_AUX),
		C(PERF_RECORD_ITRACE_START, PERFRING_RECORD_ITRACE_START),
		C(PERF_RECORD_LOST_SAMPLES, PERFRING_RECORD_LOST_SAMPLES),
		C(PERF_RECORD_SWITCH, PERFRING_RECORD_SWITCH),
		C(PERF_RECORD_SWITCH_CPU_WIDE, PERFRING_RECORD_SWITCH_CPU_WIDE),
		C(PERF_RECORD_NAMESPACES, PERFRING_RECORD_NAMESPACES),
		C(PERF_RECORD_KSYMBOL, PERFRING_RECORD_KSYMBOL),
		C(PERF_RECORD_BPF_EVENT, PERFRING_RECORD_BPF_EVENT),
		C(PERF_RECORD_CGROUP, PERFRING_RECORD_CGROUP),
		C(PERF_RECORD_TEXT_POKE, PERFRING_RECORD_TEXT_POKE),
		C(PERF_RECORD_AUX_OUTPUT_HW_ID, PERFRING_RECORD_AUX_OUTPUT_HW_ID),
		C(PERF_RECORD_MISC_CPUMODE_MASK, PERFRING_MISC_CPUMODE_MASK),
		C(PERF_RECORD_MISC_KERNEL, PERFRING_MISC_KERNEL),
		C(PERF_RECORD_MISC_USER, PERFRING_MISC_USER),
		C(PERF_RECORD_MISC_HYPERVISOR, PERFRING_MISC_HYPERVISOR),
		C(PERF_RECORD_MISC_GUEST_KERNEL, PERFRING_MISC_GUEST_KERNEL),
		C(PERF_RECORD_MISC_GUEST_USER, PERFRING_MISC_GUEST_USER),
		C(PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT, PERFRING_MISC_PROC_MAP_PARSE_TIMEOUT),
		C(PERF_RECORD_MISC_MMAP_DATA, PERFRING_MISC_MMAP_DATA),
		C(PERF_RECORD_MISC_COMM_EXEC, PERFRING_MISC_COMM_EXEC),
		C(PERF_RECORD_MISC_FORK_EXEC, PERFRING_MISC_FORK_EXEC),
		C(PERF_RECORD_MISC_SWITCH_OUT, PERFRING_MISC_SWITCH_OUT),
		C(PERF_RECORD_MISC_EXACT_IP, PERFRING_MISC_EXACT_IP),
		C(PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, PERFRING_MISC_SWITCH_OUT_PREEMPT),
		C(PERF_RECORD_MISC_MMAP_BUILD_ID, PERFRING_MISC_MMAP_BUILD_ID),
		C(PERF_RECORD_MISC_EXT_RESERVED, PERFRING_MISC_EXT_RESERVED),
		C(PERF_CONTEXT_HV, PERFRING_CONTEXT_HV),
		C(PERF_CONTEXT_KERNEL, PERFRING_CONTEXT_KERNEL),
		C(PERF_CONTEXT_USER, PERFRING_CONTEXT_USER),
		C(PERF_CONTEXT_GUEST, PERFRING_CONTEXT_GUEST),
		C(PERF_CONTEXT_GUEST_KERNEL, PERFRING_CONTEXT_GUEST_KERNEL),
		C(PERF_CONTEXT_GUEST_USER, PERFRING_CONTEXT_GUEST_USER),
		C(PERF_CONTEXT_MAX, PERFRING_CONTEXT_MAX),
		C(PERF_TYPE_HARDWARE, PERFRING_TYPE_HARDWARE),
		C(PERF_TYPE_SOFTWARE, PERFRING_TYPE_SOFTWARE),
		C(PERF_TYPE_TRACEPOINT, PERFRING_TYPE_TRACEPOINT),
		C(PERF_TYPE_HW_CACHE, PERFRING_TYPE_HW_CACHE),
		C(PERF_TYPE_RAW, PERFRING_TYPE_RAW),
		C(PERF_TYPE_BREAKPOINT, PERFRING_TYPE_BREAKPOINT),
#undef C
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ck_assert_msg(c[i].k == c[i].p, "%s: kernel 0x%" PRIx64 " ours 0x%" PRIx64,
			      c[i].n, c[i].k, c[i].p);
	/* the 6.1 uapi knows kernel types up to AUX_OUTPUT_HW_ID */
	ck_assert_uint_ge(PERF_RECORD_MAX, PERFRING_RECORD_KERNEL_MAX);
	ck_assert_uint_eq(PERFRING_SAMPLE_ID_ALL_BITS,
			  PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
}
END_TEST

/* ---- names ---------------------------------------------------------------- */
/* perf 6.1 tools/perf/util/event.c perf_event__names[], as -D prints them. */
static const struct { uint32_t type; const char *name; } perf_names[] = {
	{ 1, "MMAP" }, { 2, "LOST" }, { 3, "COMM" }, { 4, "EXIT" },
	{ 5, "THROTTLE" }, { 6, "UNTHROTTLE" }, { 7, "FORK" }, { 8, "READ" },
	{ 9, "SAMPLE" }, { 10, "MMAP2" }, { 11, "AUX" }, { 12, "ITRACE_START" },
	{ 13, "LOST_SAMPLES" }, { 14, "SWITCH" }, { 15, "SWITCH_CPU_WIDE" },
	{ 16, "NAMESPACES" }, { 17, "KSYMBOL" }, { 18, "BPF_EVENT" },
	{ 19, "CGROUP" }, { 20, "TEXT_POKE" }, { 21, "AUX_OUTPUT_HW_ID" },
	{ 64, "ATTR" }, { 65, "EVENT_TYPE" }, { 66, "TRACING_DATA" },
	{ 67, "BUILD_ID" }, { 68, "FINISHED_ROUND" }, { 69, "ID_INDEX" },
	{ 70, "AUXTRACE_INFO" }, { 71, "AUXTRACE" }, { 72, "AUXTRACE_ERROR" },
	{ 73, "THREAD_MAP" }, { 74, "CPU_MAP" }, { 75, "STAT_CONFIG" },
	{ 76, "STAT" }, { 77, "STAT_ROUND" }, { 78, "EVENT_UPDATE" },
	{ 79, "TIME_CONV" }, { 80, "FEATURE" }, { 81, "COMPRESSED" },
	{ 82, "FINISHED_INIT" },
	{ 83, "COMPRESSED2" },	/* newer perf's event.c names it (6.1 does not) */
};

START_TEST(test_type_names)
{
	size_t i;
	uint32_t t, back;
	unsigned named = 0;

	for (i = 0; i < sizeof(perf_names) / sizeof(perf_names[0]); i++) {
		const char *n = perfring_record_type_name(perf_names[i].type);

		ck_assert_ptr_nonnull(n);
		ck_assert_str_eq(n, perf_names[i].name);
		ck_assert_int_eq(perfring_record_type_from_name(perf_names[i].name, &t), 0);
		ck_assert_uint_eq(t, perf_names[i].type);
	}
	/* everything else is unnamed; names are unique */
	for (t = 0; t < 1024; t++) {
		const char *n = perfring_record_type_name(t);

		if (!n)
			continue;
		named++;
		ck_assert_int_eq(perfring_record_type_from_name(n, &back), 0);
		ck_assert_uint_eq(back, t);
	}
	ck_assert_uint_eq(named, sizeof(perf_names) / sizeof(perf_names[0]));
	ck_assert_ptr_null(perfring_record_type_name(PERFRING_RECORD_PAD));
	ck_assert_ptr_null(perfring_record_type_name(PERFRING_RECORD_KERNEL_MAX));
	ck_assert_ptr_null(perfring_record_type_name(63));
	ck_assert_ptr_null(perfring_record_type_name(PERFRING_RECORD_COMPRESSED2 + 1));
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_COMPRESSED2), 16);
	ck_assert_ptr_null(perfring_record_type_name(UINT32_MAX));
	ck_assert_int_eq(perfring_record_type_from_name("TOTAL", &t), -ENOENT);
	ck_assert_int_eq(perfring_record_type_from_name("mmap", &t), -ENOENT);
	ck_assert_int_eq(perfring_record_type_from_name("", &t), -ENOENT);
	ck_assert_int_eq(perfring_record_type_from_name(NULL, &t), -EINVAL);
}
END_TEST

START_TEST(test_bit_names)
{
	unsigned b, c;

	for (b = 0; (1ull << b) < PERFRING_SAMPLE_MAX; b++) {
		ck_assert_ptr_nonnull(perfring_sample_bit_name(b));
		for (c = 0; c < b; c++)
			ck_assert_str_ne(perfring_sample_bit_name(b),
					 perfring_sample_bit_name(c));
	}
	ck_assert_uint_eq(b, 25);
	ck_assert_ptr_null(perfring_sample_bit_name(25));
	ck_assert_ptr_null(perfring_sample_bit_name(64));
	ck_assert_str_eq(perfring_sample_bit_name(0), "IP");
	ck_assert_str_eq(perfring_sample_bit_name(16), "IDENTIFIER");
	ck_assert_str_eq(perfring_sample_bit_name(24), "WEIGHT_STRUCT");
	ck_assert_str_eq(perfring_read_format_bit_name(0), "TOTAL_TIME_ENABLED");
	ck_assert_str_eq(perfring_read_format_bit_name(3), "GROUP");
	ck_assert_str_eq(perfring_read_format_bit_name(4), "LOST");
	ck_assert_ptr_null(perfring_read_format_bit_name(5));
}
END_TEST

/* ---- trailer -------------------------------------------------------------- */
static const uint64_t trailer_order[6] = {
	PERFRING_SAMPLE_TID, PERFRING_SAMPLE_TIME, PERFRING_SAMPLE_ID,
	PERFRING_SAMPLE_STREAM_ID, PERFRING_SAMPLE_CPU, PERFRING_SAMPLE_IDENTIFIER,
};

START_TEST(test_trailer_subsets)
{
	struct perfring_sample_id sid = {
		.pid = 0x11111111, .tid = 0x22222222, .time = 0x3333333333333333ull,
		.id = 0x4444444444444444ull, .stream_id = 0x5555555555555555ull,
		.cpu = 0x66666666, .res = 0x77777777,
		.identifier = 0x8888888888888888ull,
	};
	unsigned mask;

	for (mask = 0; mask < 64; mask++) {
		unsigned char rec[8 + 16 + 48], buf[48];
		uint64_t st = 0, expect[6];
		struct perfring_sample_id got;
		unsigned i, nw = 0;
		size_t tsize;
		int rc;

		for (i = 0; i < 6; i++) {
			if (!(mask & (1u << i)))
				continue;
			st |= trailer_order[i];
			switch (i) {
			case 0: memcpy(&expect[nw], &sid.pid, 4);
				memcpy((char *)&expect[nw++] + 4, &sid.tid, 4); break;
			case 1: expect[nw++] = sid.time; break;
			case 2: expect[nw++] = sid.id; break;
			case 3: expect[nw++] = sid.stream_id; break;
			case 4: memcpy(&expect[nw], &sid.cpu, 4);
				memcpy((char *)&expect[nw++] + 4, &sid.res, 4); break;
			case 5: expect[nw++] = sid.identifier; break;
			}
		}
		/* non-trailer bits do not count */
		tsize = perfring_sample_id_size(st | PERFRING_SAMPLE_IP |
						PERFRING_SAMPLE_CALLCHAIN |
						PERFRING_SAMPLE_PERIOD);
		ck_assert_uint_eq(tsize, 8u * nw);
		memset(buf, 0xee, sizeof(buf));
		rc = perfring_sample_id_encode(st, &sid, buf, sizeof(buf));
		ck_assert_int_eq(rc, (int)tsize);
		for (i = 0; i < nw; i++)
			ck_assert_uint_eq(get64(buf + 8 * i), expect[i]);
		if (tsize < sizeof(buf))
			ck_assert_uint_eq(buf[tsize], 0xee);	/* nothing past */
		if (tsize)
			ck_assert_int_eq(perfring_sample_id_encode(st, &sid, buf, tsize - 1),
					 -ENOSPC);

		/* decode from the end of a record with a 16-byte body */
		put_header(rec, PERFRING_RECORD_COMM, 0, (uint16_t)(24 + tsize));
		memset(rec + 8, 0xab, 16);
		memcpy(rec + 24, buf, tsize);
		memset(&got, 0xcd, sizeof(got));
		ck_assert_int_eq(perfring_sample_id_decode(st, rec, 24 + tsize, &got), 0);
		ck_assert_uint_eq(got.pid, (st & PERFRING_SAMPLE_TID) ? sid.pid : 0);
		ck_assert_uint_eq(got.tid, (st & PERFRING_SAMPLE_TID) ? sid.tid : 0);
		ck_assert_uint_eq(got.time, (st & PERFRING_SAMPLE_TIME) ? sid.time : 0);
		ck_assert_uint_eq(got.id, (st & PERFRING_SAMPLE_ID) ? sid.id : 0);
		ck_assert_uint_eq(got.stream_id,
				  (st & PERFRING_SAMPLE_STREAM_ID) ? sid.stream_id : 0);
		ck_assert_uint_eq(got.cpu, (st & PERFRING_SAMPLE_CPU) ? sid.cpu : 0);
		ck_assert_uint_eq(got.res, (st & PERFRING_SAMPLE_CPU) ? sid.res : 0);
		ck_assert_uint_eq(got.identifier,
				  (st & PERFRING_SAMPLE_IDENTIFIER) ? sid.identifier : 0);
		/* IDENTIFIER is always the last u64 of the record */
		if (st & PERFRING_SAMPLE_IDENTIFIER)
			ck_assert_uint_eq(get64(rec + 24 + tsize - 8), sid.identifier);
		/* the header alone must still fit before the trailer */
		ck_assert_int_eq(perfring_sample_id_decode(st, rec, 8 + tsize, &got), 0);
		ck_assert_int_eq(perfring_sample_id_decode(st, rec, 7 + tsize, &got),
				 -EBADMSG);
	}
}
END_TEST

START_TEST(test_trailer_size)
{
	struct perfring_attr a;
	uint32_t t;

	memset(&a, 0, sizeof(a));
	a.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD;
	for (t = 0; t < 100; t++)
		ck_assert_uint_eq(perfring_record_trailer_size(&a, t), 0);
	a.flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	for (t = 0; t < 100; t++) {
		size_t want = (t >= 1 && t < 64 && t != PERFRING_RECORD_SAMPLE) ? 24 : 0;

		ck_assert_uint_eq(perfring_record_trailer_size(&a, t), want);
	}
	a.sample_type |= PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_ID |
			 PERFRING_SAMPLE_STREAM_ID;
	ck_assert_uint_eq(perfring_record_trailer_size(&a, PERFRING_RECORD_MMAP2), 48);
	ck_assert_uint_eq(perfring_record_trailer_size(&a, PERFRING_RECORD_SAMPLE), 0);
	ck_assert_uint_eq(perfring_record_trailer_size(NULL, PERFRING_RECORD_MMAP2), 0);
}
END_TEST

START_TEST(test_min_size)
{
	/* fixed bodies from doc/perf-format.md 3.2 and 5.6 */
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_LOST), 24);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_MMAP), 40);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_MMAP2), 72);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_COMM), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_EXIT), 32);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_FORK), 32);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_SWITCH), 8);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_SWITCH_CPU_WIDE), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_LOST_SAMPLES), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_SAMPLE), 8);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_HEADER_ATTR), 72);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_FINISHED_ROUND), 8);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_ID_INDEX), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_THREAD_MAP), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_HEADER_FEATURE), 16);
	ck_assert_uint_eq(perfring_record_min_size(PERFRING_RECORD_PAD), 8);
	ck_assert_uint_eq(perfring_record_min_size(40), 8);
	ck_assert_uint_eq(perfring_record_min_size(200), 8);
}
END_TEST

/* ---- fixtures ------------------------------------------------------------- */
static const char *const fixtures[] = {
	"rec-plain", "rec-ident", "rec-addr", "rec-callchain", "rec-regs",
	"rec-dwarf", "rec-group", "rec-readone", "rec-cgroup", "rec-rawsw",
	"rec-raw", "rec-lost",
};
#define NR_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static void open_fixture(const char *name, struct pdw_file *f)
{
	char path[512], err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s.data", FIXTURES_DIR, name);
	rc = pdw_open(path, f, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_ge(f->nr_attrs, 1);
}

/* Parse NAME.stats ("  SAMPLE events:  12  (40.0%)").  Returns total. */
static long read_stats(const char *name, long counts[256])
{
	char path[512], line[256];
	long total = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.stats", FIXTURES_DIR, name);
	fp = fopen(path, "r");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	memset(counts, 0xff, 256 * sizeof(long));	/* -1: not listed */
	while (fgets(line, sizeof(line), fp)) {
		char tname[64];
		long n;
		uint32_t t;

		if (sscanf(line, " %63[A-Z0-9_] events: %ld", tname, &n) != 2)
			continue;
		if (!strcmp(tname, "TOTAL")) {
			total = n;
			continue;
		}
		ck_assert_msg(perfring_record_type_from_name(tname, &t) == 0,
			      "%s: perf name %s unknown to us", name, tname);
		ck_assert_uint_lt(t, 256);
		counts[t] = n;
	}
	fclose(fp);
	ck_assert_msg(total > 0, "%s: no TOTAL line", name);
	return total;
}

START_TEST(test_fixture)
{
	const char *name = fixtures[_i];
	static unsigned char out[65536];
	long want[256], got[256] = { 0 };
	long total = 0, want_total;
	unsigned samples = 0, trailers = 0, losts = 0;
	struct pdw_file f;
	uint64_t pos = 0;
	const void *rec;
	size_t size;
	int rc;
	unsigned t;

	open_fixture(name, &f);
	want_total = read_stats(name, want);
	while ((rc = pdw_next(&f, &pos, &rec, &size)) == 1) {
		struct perfring_event_header h;
		const struct pdw_attr *pa = pdw_attr_of(&f, rec, size);
		const struct perfring_attr *a = &pa->attr;
		size_t tsize;

		memcpy(&h, rec, sizeof(h));
		ck_assert_msg(perfring_record_type_name(h.type) != NULL,
			      "%s: record type %u at data+%" PRIu64 " has no name",
			      name, h.type, pos - size);
		ck_assert_uint_lt(h.type, 256);
		got[h.type]++;
		total++;
		tsize = perfring_record_trailer_size(a, h.type);
		ck_assert_msg(size >= perfring_record_min_size(h.type) + tsize,
			      "%s: %s of %zu bytes < min %zu + trailer %zu", name,
			      perfring_record_type_name(h.type), size,
			      perfring_record_min_size(h.type), tsize);

		if (h.type == PERFRING_RECORD_SAMPLE) {
			struct perfring_sample s;
			struct perfring_diag d;
			char msg[1024];

			memset(&d, 0, sizeof(d));
			rc = perfring_sample_decode(a, rec, size, &s, &d);
			ck_assert_msg(rc == 0, "%s: sample at data+%" PRIu64 ": %s", name,
				      pos - size, perfring_diag_format(&d, msg, sizeof(msg)));
			rc = perfring_sample_encode(a, &s, h.misc, out, sizeof(out));
			ck_assert_int_eq(rc, (int)size);
			ck_assert_msg(!memcmp(out, rec, size),
				      "%s: sample at data+%" PRIu64 " re-encodes differently",
				      name, pos - size);
			/* with several attrs the id must be one of the attr's */
			if (f.nr_attrs > 1) {
				uint64_t id = (a->sample_type & PERFRING_SAMPLE_IDENTIFIER) ?
					      s.identifier : s.id;
				bool found = false;
				size_t j;

				for (j = 0; j < pa->nr_ids; j++)
					found |= get64(&pa->ids[j]) == id;
				ck_assert_msg(found, "%s: sample id %" PRIu64 " not in its attr",
					      name, id);
			}
			samples++;
		} else if (h.type < PERFRING_RECORD_HEADER_ATTR && tsize) {
			struct perfring_sample_id sid;
			unsigned char tb[48];

			ck_assert_int_eq(perfring_sample_id_decode(a->sample_type, rec, size,
								   &sid), 0);
			ck_assert_int_eq(perfring_sample_id_encode(a->sample_type, &sid, tb,
								   sizeof(tb)), (int)tsize);
			ck_assert_msg(!memcmp(tb, (const char *)rec + size - tsize, tsize),
				      "%s: trailer of %s differs", name,
				      perfring_record_type_name(h.type));
			trailers++;
		}
		if (h.type == PERFRING_RECORD_LOST) {
			struct perfring_lost l;
			struct perfring_sample_id sid;

			ck_assert_int_eq(perfring_lost_decode(a, rec, size, &l, &sid), 0);
			ck_assert_uint_gt(l.lost, 0);
			rc = perfring_lost_encode(a, &l, &sid, out, sizeof(out));
			ck_assert_int_eq(rc, (int)size);
			out[4] = ((const unsigned char *)rec)[4];	/* misc as recorded */
			out[5] = ((const unsigned char *)rec)[5];
			ck_assert_msg(!memcmp(out, rec, size), "%s: LOST differs", name);
			losts++;
		}
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(pos, f.data_size);

	/* counts equal perf report -D's "Aggregated stats" */
	ck_assert_int_eq(total, want_total);
	for (t = 0; t < 256; t++) {
		if (want[t] < 0)
			ck_assert_msg(got[t] == 0, "%s: %ld %s records, perf saw none",
				      name, got[t], perfring_record_type_name(t));
		else
			ck_assert_msg(got[t] == want[t], "%s: %ld %s records, perf saw %ld",
				      name, got[t], perfring_record_type_name(t), want[t]);
	}
	if (strcmp(name, "rec-lost"))
		ck_assert_msg(samples > 0, "%s: no samples", name);
	else
		ck_assert_uint_gt(losts, 0);
	ck_assert_msg(trailers > 0, "%s: no trailer checked", name);
	pdw_close(&f);
}
END_TEST

/*
 * The fixtures together hold group and non-group READ samples and every
 * sample_type field listed below, so each is decoded from real bytes.
 */
START_TEST(test_fixture_coverage)
{
	uint64_t st = 0;
	bool group = false, nongroup = false;
	size_t i, j;

	for (i = 0; i < NR_FIXTURES; i++) {
		struct pdw_file f;

		open_fixture(fixtures[i], &f);
		for (j = 0; j < f.nr_attrs; j++) {
			const struct perfring_attr *a = &f.attrs[j].attr;

			st |= a->sample_type;
			if (a->sample_type & PERFRING_SAMPLE_READ) {
				if (a->read_format & PERFRING_FORMAT_GROUP)
					group = true;
				else
					nongroup = true;
			}
		}
		pdw_close(&f);
	}
	ck_assert(group && nongroup);
	ck_assert_msg((st & (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
			     PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			     PERFRING_SAMPLE_ADDR | PERFRING_SAMPLE_ID |
			     PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD |
			     PERFRING_SAMPLE_READ | PERFRING_SAMPLE_CALLCHAIN |
			     PERFRING_SAMPLE_RAW | PERFRING_SAMPLE_REGS_USER |
			     PERFRING_SAMPLE_STACK_USER | PERFRING_SAMPLE_DATA_SRC |
			     PERFRING_SAMPLE_PHYS_ADDR | PERFRING_SAMPLE_CGROUP |
			     PERFRING_SAMPLE_DATA_PAGE_SIZE |
			     PERFRING_SAMPLE_CODE_PAGE_SIZE)) ==
		      (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
		       PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
		       PERFRING_SAMPLE_ADDR | PERFRING_SAMPLE_ID |
		       PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD |
		       PERFRING_SAMPLE_READ | PERFRING_SAMPLE_CALLCHAIN |
		       PERFRING_SAMPLE_RAW | PERFRING_SAMPLE_REGS_USER |
		       PERFRING_SAMPLE_STACK_USER | PERFRING_SAMPLE_DATA_SRC |
		       PERFRING_SAMPLE_PHYS_ADDR | PERFRING_SAMPLE_CGROUP |
		       PERFRING_SAMPLE_DATA_PAGE_SIZE | PERFRING_SAMPLE_CODE_PAGE_SIZE),
		      "fixtures cover sample_type 0x%" PRIx64, st);
}
END_TEST

/* ---- synthetic samples ---------------------------------------------------- */
struct gen {
	struct perfring_attr attr;
	struct perfring_sample s;
	uint64_t read[64];
	uint64_t cc[64];
	unsigned char raw[256];
	struct perfring_branch_entry br[16];
	uint64_t ru[64], ri[64];
	unsigned char stack[512];
	unsigned char aux[256];
};

static void fill(void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)rnd();
}

static uint64_t rnd_mask(void)
{
	/* sparse-ish masks: 0 to 64 bits */
	switch (rnd_below(4)) {
	case 0: return 0;
	case 1: return rnd() & rnd() & rnd();
	case 2: return rnd();
	default: return ~0ull;
	}
}

static void gen_sample(struct gen *g)
{
	struct perfring_attr *a = &g->attr;
	struct perfring_sample *s = &g->s;
	uint64_t rf;

	memset(g, 0, sizeof(*g));
	a->sample_type = rnd() & (PERFRING_SAMPLE_MAX - 1);
	if ((a->sample_type & PERFRING_SAMPLE_WEIGHT) &&
	    (a->sample_type & PERFRING_SAMPLE_WEIGHT_STRUCT))
		a->sample_type &= rnd_below(2) ? ~PERFRING_SAMPLE_WEIGHT :
						 ~PERFRING_SAMPLE_WEIGHT_STRUCT;
	a->read_format = rf = rnd() & 0x1f;
	a->branch_sample_type = rnd_below(2) ? PERFRING_BRANCH_HW_INDEX : 0;
	a->sample_regs_user = rnd_mask();
	a->sample_regs_intr = rnd_mask();
	a->flags = PERFRING_ATTR_SAMPLE_ID_ALL;

	s->identifier = rnd();
	s->ip = rnd();
	s->pid = (uint32_t)rnd();
	s->tid = (uint32_t)rnd();
	s->time = rnd();
	s->addr = rnd();
	s->id = rnd();
	s->stream_id = rnd();
	s->cpu = (uint32_t)rnd();
	s->cpu_res = (uint32_t)rnd();
	s->period = rnd();
	if (rf & PERFRING_FORMAT_GROUP) {
		unsigned head = 1 + !!(rf & 1) + !!(rf & 2);
		unsigned mem = 1 + !!(rf & PERFRING_FORMAT_ID) + !!(rf & PERFRING_FORMAT_LOST);
		uint64_t nr = rnd_below(8);

		fill(g->read, sizeof(g->read));
		g->read[0] = nr;
		s->nr_read_words = (uint32_t)(head + nr * mem);
	} else {
		fill(g->read, sizeof(g->read));
		s->nr_read_words = 1 + __builtin_popcountll(rf & ~PERFRING_FORMAT_GROUP);
	}
	s->read_values = g->read;
	s->callchain_nr = rnd_below(65);
	fill(g->cc, sizeof(g->cc));
	s->callchain = g->cc;
	s->raw_size = (uint32_t)(8 * rnd_below(32) + 4);
	fill(g->raw, sizeof(g->raw));
	s->raw = g->raw;
	s->branch_nr = rnd_below(17);
	s->branch_hw_idx = (a->branch_sample_type & PERFRING_BRANCH_HW_INDEX) ? rnd() : 0;
	fill(g->br, sizeof(g->br));
	s->branches = g->br;
	s->regs_user_abi = rnd_below(3);
	s->regs_user_nr = s->regs_user_abi ? __builtin_popcountll(a->sample_regs_user) : 0;
	fill(g->ru, sizeof(g->ru));
	s->regs_user = s->regs_user_nr ? g->ru : NULL;
	s->stack_user_size = 8 * rnd_below(65);
	fill(g->stack, sizeof(g->stack));
	s->stack_user = s->stack_user_size ? g->stack : NULL;
	s->stack_user_dyn_size = s->stack_user_size ? rnd() : 0;
	s->weight = rnd();
	s->data_src = rnd();
	s->transaction = rnd();
	s->regs_intr_abi = rnd_below(3);
	s->regs_intr_nr = s->regs_intr_abi ? __builtin_popcountll(a->sample_regs_intr) : 0;
	fill(g->ri, sizeof(g->ri));
	s->regs_intr = s->regs_intr_nr ? g->ri : NULL;
	s->phys_addr = rnd();
	s->cgroup = rnd();
	s->data_page_size = rnd();
	s->code_page_size = rnd();
	s->aux_size = 8 * rnd_below(33);
	fill(g->aux, sizeof(g->aux));
	s->aux = g->aux;
}

/* Compare what attr selects of the source sample with the decoded one. */
static void check_same(const struct perfring_attr *a, const struct perfring_sample *x,
		       const struct perfring_sample *y)
{
	uint64_t st = a->sample_type;

#define EQ(bit, f) do { if (st & (bit)) ck_assert_uint_eq(x->f, y->f); } while (0)
#define MEM(bit, f, n) do { if ((st & (bit)) && (n) != 0) ck_assert(!memcmp(x->f, y->f, n)); } while (0)
	EQ(PERFRING_SAMPLE_IDENTIFIER, identifier);
	EQ(PERFRING_SAMPLE_IP, ip);
	EQ(PERFRING_SAMPLE_TID, pid);
	EQ(PERFRING_SAMPLE_TID, tid);
	EQ(PERFRING_SAMPLE_TIME, time);
	EQ(PERFRING_SAMPLE_ADDR, addr);
	EQ(PERFRING_SAMPLE_ID, id);
	EQ(PERFRING_SAMPLE_STREAM_ID, stream_id);
	EQ(PERFRING_SAMPLE_CPU, cpu);
	EQ(PERFRING_SAMPLE_CPU, cpu_res);
	EQ(PERFRING_SAMPLE_PERIOD, period);
	EQ(PERFRING_SAMPLE_READ, nr_read_words);
	MEM(PERFRING_SAMPLE_READ, read_values, 8u * x->nr_read_words);
	EQ(PERFRING_SAMPLE_CALLCHAIN, callchain_nr);
	MEM(PERFRING_SAMPLE_CALLCHAIN, callchain, 8u * x->callchain_nr);
	EQ(PERFRING_SAMPLE_RAW, raw_size);
	MEM(PERFRING_SAMPLE_RAW, raw, x->raw_size);
	EQ(PERFRING_SAMPLE_BRANCH_STACK, branch_nr);
	EQ(PERFRING_SAMPLE_BRANCH_STACK, branch_hw_idx);
	MEM(PERFRING_SAMPLE_BRANCH_STACK, branches, 24u * x->branch_nr);
	EQ(PERFRING_SAMPLE_REGS_USER, regs_user_abi);
	EQ(PERFRING_SAMPLE_REGS_USER, regs_user_nr);
	MEM(PERFRING_SAMPLE_REGS_USER, regs_user, 8u * x->regs_user_nr);
	EQ(PERFRING_SAMPLE_STACK_USER, stack_user_size);
	MEM(PERFRING_SAMPLE_STACK_USER, stack_user, x->stack_user_size);
	EQ(PERFRING_SAMPLE_STACK_USER, stack_user_dyn_size);
	EQ(PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT, weight);
	EQ(PERFRING_SAMPLE_DATA_SRC, data_src);
	EQ(PERFRING_SAMPLE_TRANSACTION, transaction);
	EQ(PERFRING_SAMPLE_REGS_INTR, regs_intr_abi);
	EQ(PERFRING_SAMPLE_REGS_INTR, regs_intr_nr);
	MEM(PERFRING_SAMPLE_REGS_INTR, regs_intr, 8u * x->regs_intr_nr);
	EQ(PERFRING_SAMPLE_PHYS_ADDR, phys_addr);
	EQ(PERFRING_SAMPLE_CGROUP, cgroup);
	EQ(PERFRING_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	EQ(PERFRING_SAMPLE_CODE_PAGE_SIZE, code_page_size);
	EQ(PERFRING_SAMPLE_AUX, aux_size);
	MEM(PERFRING_SAMPLE_AUX, aux, x->aux_size);
#undef EQ
#undef MEM
}

/* Field words of the fixed-size fields, to check sizes independently. */
static size_t expected_size(const struct gen *g)
{
	const struct perfring_attr *a = &g->attr;
	const struct perfring_sample *s = &g->s;
	uint64_t st = a->sample_type;
	size_t n = 8;
	unsigned b;

	for (b = 0; b < 25; b++) {
		uint64_t bit = 1ull << b;

		if (!(st & bit))
			continue;
		switch (bit) {
		case PERFRING_SAMPLE_READ: n += 8u * s->nr_read_words; break;
		case PERFRING_SAMPLE_CALLCHAIN: n += 8 + 8 * s->callchain_nr; break;
		case PERFRING_SAMPLE_RAW: n += 4 + s->raw_size; break;
		case PERFRING_SAMPLE_BRANCH_STACK:
			n += 8 + 24 * s->branch_nr +
			     ((a->branch_sample_type & PERFRING_BRANCH_HW_INDEX) ? 8 : 0);
			break;
		case PERFRING_SAMPLE_REGS_USER: n += 8 + 8u * s->regs_user_nr; break;
		case PERFRING_SAMPLE_REGS_INTR: n += 8 + 8u * s->regs_intr_nr; break;
		case PERFRING_SAMPLE_STACK_USER:
			n += 8 + (s->stack_user_size ? s->stack_user_size + 8 : 0);
			break;
		case PERFRING_SAMPLE_AUX: n += 8 + s->aux_size; break;
		default: n += 8; break;
		}
	}
	return n;
}

START_TEST(test_roundtrip_property)
{
	static unsigned char b1[65536], b2[65536];
	unsigned i, n = (unsigned)test_scaled(20000);
	unsigned long covered = 0;

	rng_state = 0x9e3779b97f4a7c15ull;
	for (i = 0; i < n; i++) {
		static struct gen g;
		struct perfring_sample d;
		struct perfring_diag diag;
		uint16_t misc = (uint16_t)rnd();
		int r1, r2, rc;

		gen_sample(&g);
		covered |= g.attr.sample_type;
		r1 = perfring_sample_encode(&g.attr, &g.s, misc, b1, sizeof(b1));
		ck_assert_msg(r1 > 0, "iteration %u: encode %d (sample_type 0x%" PRIx64 ")",
			      i, r1, g.attr.sample_type);
		ck_assert_uint_eq((size_t)r1, expected_size(&g));
		ck_assert_uint_eq(r1 % 8, 0);
		{
			uint16_t m;

			memcpy(&m, b1 + 4, 2);
			ck_assert_uint_eq(m, misc);
		}
		rc = perfring_sample_decode(&g.attr, b1, (size_t)r1, &d, &diag);
		ck_assert_msg(rc == 0, "iteration %u: decode: %s", i, diag.msg);
		check_same(&g.attr, &g.s, &d);
		r2 = perfring_sample_encode(&g.attr, &d, misc, b2, sizeof(b2));
		ck_assert_int_eq(r2, r1);
		ck_assert(!memcmp(b1, b2, (size_t)r1));
	}
	ck_assert_uint_eq(covered, PERFRING_SAMPLE_MAX - 1);
}
END_TEST

/*
 * Every field at once, laid out by hand in doc/perf-format.md 3.4 order
 * (not bit order): IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ
 * CALLCHAIN RAW BRANCH_STACK REGS_USER STACK_USER WEIGHT DATA_SRC
 * TRANSACTION REGS_INTR PHYS_ADDR CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE AUX.
 */
START_TEST(test_sample_field_order)
{
	static const uint64_t readv[3] = { 100, 101, 102 };	/* value id lost */
	static const uint64_t cc[2] = { PERFRING_CONTEXT_USER, 0x400000 };
	static const unsigned char raw[12] = "raw-payload";
	static const struct perfring_branch_entry br[1] = { { 1, 2, 3 } };
	static const uint64_t ru[2] = { 0x7ffc0000, 0x401000 };	/* SP(7) IP(8) */
	static const unsigned char stack[16] = "stack-bytes-16b";
	static const uint64_t ri[1] = { 0xabc };
	static const unsigned char aux[8] = "auxdata";
	uint64_t want[64];
	unsigned char buf[1024], wbuf[1024];
	struct perfring_attr a;
	struct perfring_sample s, d;
	unsigned w = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	a.sample_type = (PERFRING_SAMPLE_MAX - 1) & ~PERFRING_SAMPLE_WEIGHT;
	a.read_format = PERFRING_FORMAT_ID | PERFRING_FORMAT_LOST;
	a.branch_sample_type = PERFRING_BRANCH_HW_INDEX;
	a.sample_regs_user = (1u << 7) | (1u << 8);
	a.sample_regs_intr = 1u << 3;
	memset(&s, 0, sizeof(s));
	s.identifier = 0x1001; s.ip = 0x1002; s.pid = 0x13; s.tid = 0x14;
	s.time = 0x1005; s.addr = 0x1006; s.id = 0x1007; s.stream_id = 0x1008;
	s.cpu = 0x19; s.cpu_res = 0x1a; s.period = 0x100b;
	s.read_values = readv; s.nr_read_words = 3;
	s.callchain_nr = 2; s.callchain = cc;
	s.raw_size = sizeof(raw); s.raw = raw;
	s.branch_nr = 1; s.branch_hw_idx = 0x100c; s.branches = br;
	s.regs_user_abi = 2; s.regs_user_nr = 2; s.regs_user = ru;
	s.stack_user_size = 16; s.stack_user = stack; s.stack_user_dyn_size = 9;
	s.weight = 0x100d; s.data_src = 0x100e; s.transaction = 0x100f;
	s.regs_intr_abi = 2; s.regs_intr_nr = 1; s.regs_intr = ri;
	s.phys_addr = 0x1010; s.cgroup = 0x1011; s.data_page_size = 0x1012;
	s.code_page_size = 0x1013; s.aux_size = 8; s.aux = aux;

	want[w++] = 0;	/* header, filled below */
	want[w++] = 0x1001;
	want[w++] = 0x1002;
	want[w++] = pair32(0x13, 0x14);
	want[w++] = 0x1005;
	want[w++] = 0x1006;
	want[w++] = 0x1007;
	want[w++] = 0x1008;
	want[w++] = pair32(0x19, 0x1a);
	want[w++] = 0x100b;
	want[w++] = 100; want[w++] = 101; want[w++] = 102;
	want[w++] = 2; want[w++] = cc[0]; want[w++] = cc[1];
	put32(wbuf, 12);			/* raw: u32 size + 12 bytes */
	memcpy(wbuf + 4, raw, 12);
	memcpy(&want[w], wbuf, 16); w += 2;
	want[w++] = 1; want[w++] = 0x100c; want[w++] = 1; want[w++] = 2; want[w++] = 3;
	want[w++] = 2; want[w++] = ru[0]; want[w++] = ru[1];
	want[w++] = 16; memcpy(&want[w], stack, 16); w += 2; want[w++] = 9;
	want[w++] = 0x100d;
	want[w++] = 0x100e;
	want[w++] = 0x100f;
	want[w++] = 2; want[w++] = 0xabc;
	want[w++] = 0x1010;
	want[w++] = 0x1011;
	want[w++] = 0x1012;
	want[w++] = 0x1013;
	want[w++] = 8; memcpy(&want[w], aux, 8); w++;
	put_header(&want[0], PERFRING_RECORD_SAMPLE, PERFRING_MISC_USER, (uint16_t)(8 * w));

	rc = perfring_sample_encode(&a, &s, PERFRING_MISC_USER, buf, sizeof(buf));
	ck_assert_int_eq(rc, (int)(8 * w));
	ck_assert(!memcmp(buf, want, 8 * w));
	/* decode the hand-made bytes */
	ck_assert_int_eq(perfring_sample_decode(&a, want, 8 * w, &d, NULL), 0);
	check_same(&a, &s, &d);
	/* WEIGHT_STRUCT takes the same single slot */
	a.sample_type ^= PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT;
	ck_assert_int_eq(perfring_sample_decode(&a, want, 8 * w, &d, NULL), 0);
	ck_assert_uint_eq(d.weight, 0x100d);
}
END_TEST

/* Decode of every prefix of rec must fail with -EBADMSG. */
static void check_truncations(const struct perfring_attr *a, const unsigned char *rec,
			      size_t size)
{
	size_t len;

	for (len = 0; len < size; len++) {
		unsigned char *cut = malloc(len ? len : 1);	/* exact: ASan sees overreads */
		struct perfring_sample s;
		struct perfring_diag d;
		int rc;

		ck_assert_ptr_nonnull(cut);
		memcpy(cut, rec, len);
		/* header size left as it was */
		rc = perfring_sample_decode(a, cut, len, &s, NULL);
		ck_assert_msg(rc == -EBADMSG, "len %zu of %zu: %d", len, size, rc);
		if (len >= 8) {
			/* header size patched to the cut length: the fields must
			 * be what runs out */
			uint16_t l16 = (uint16_t)len;

			memcpy(cut + 6, &l16, 2);
			memset(&d, 0, sizeof(d));
			rc = perfring_sample_decode(a, cut, len, &s, &d);
			ck_assert_msg(rc == -EBADMSG, "patched len %zu of %zu: %d", len,
				      size, rc);
			ck_assert_int_eq(d.error, -EBADMSG);
			ck_assert(d.has_offset);
			ck_assert_uint_le(d.offset, len);
			ck_assert(strstr(d.msg, "SAMPLE") != NULL);
		}
		free(cut);
	}
}

START_TEST(test_truncation_synthetic)
{
	static unsigned char b[65536];
	unsigned i, n = (unsigned)test_scaled(300);

	rng_state = 0x0123456789abcdefull;
	for (i = 0; i < n; i++) {
		static struct gen g;
		int r;

		gen_sample(&g);
		r = perfring_sample_encode(&g.attr, &g.s, 0, b, sizeof(b));
		ck_assert_int_gt(r, 0);
		check_truncations(&g.attr, b, (size_t)r);
	}
}
END_TEST

START_TEST(test_truncation_fixtures)
{
	size_t i;
	unsigned per_file;

	for (i = 0; i < NR_FIXTURES; i++) {
		struct pdw_file f;
		uint64_t pos = 0;
		const void *rec;
		size_t size;

		per_file = 0;
		open_fixture(fixtures[i], &f);
		while (pdw_next(&f, &pos, &rec, &size) == 1 && per_file < (unsigned)test_scaled(4)) {
			uint32_t type;

			memcpy(&type, rec, 4);
			if (type != PERFRING_RECORD_SAMPLE)
				continue;
			check_truncations(&pdw_attr_of(&f, rec, size)->attr, rec, size);
			per_file++;
		}
		pdw_close(&f);
	}
}
END_TEST

/*
 * Random bytes under random valid attrs: decode never crashes (ASan build)
 * and returns 0 or -EBADMSG; whatever decodes with kernel-style alignment
 * re-encodes to the same bytes.
 */
START_TEST(test_random_bytes)
{
	static unsigned char out[65536];
	unsigned i, n = (unsigned)test_scaled(50000), ok = 0;

	rng_state = 0xfeedfacecafebeefull;
	for (i = 0; i < n; i++) {
		static struct gen g;
		size_t len = 8 * rnd_below(12), j;
		unsigned char *rec = malloc(len ? len : 1);
		struct perfring_sample s;
		int rc;

		gen_sample(&g);	/* for a random valid attr */
		ck_assert_ptr_nonnull(rec);
		for (j = 0; j < len; j++)	/* mostly small numbers, so counts fit */
			rec[j] = rnd_below(4) ? (unsigned char)rnd_below(3) : (unsigned char)rnd();
		if (len >= 8)
			put_header(rec, PERFRING_RECORD_SAMPLE, 0, (uint16_t)len);
		rc = perfring_sample_decode(&g.attr, rec, len, &s, NULL);
		ck_assert_msg(rc == 0 || rc == -EBADMSG, "rc %d", rc);
		if (rc == 0 && (!(g.attr.sample_type & PERFRING_SAMPLE_RAW) ||
				(s.raw_size + 4) % 8 == 0) &&
		    s.stack_user_size % 8 == 0 && s.aux_size % 8 == 0) {
			ck_assert_int_eq(perfring_sample_encode(&g.attr, &s, 0, out,
								sizeof(out)), (int)len);
			ck_assert(!memcmp(out, rec, len));
			ok++;
		}
		free(rec);
	}
	ck_assert_uint_gt(ok, 0);
}
END_TEST

/* ---- hostile counts -------------------------------------------------------- */
static void expect_reject(uint64_t st, uint64_t rf, const uint64_t *words, size_t nw,
			  const char *field, size_t field_off)
{
	unsigned char rec[8 + 8 * 16];
	struct perfring_attr a;
	struct perfring_sample s;
	struct perfring_diag d;
	size_t size = 8 + 8 * nw;
	int rc;

	memset(&a, 0, sizeof(a));
	a.sample_type = st;
	a.read_format = rf;
	a.sample_regs_user = ~0ull;
	put_header(rec, PERFRING_RECORD_SAMPLE, 0, (uint16_t)size);
	memcpy(rec + 8, words, 8 * nw);
	memset(&d, 0, sizeof(d));
	rc = perfring_sample_decode(&a, rec, size, &s, &d);
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_int_eq(d.error, -EBADMSG);
	ck_assert_msg(strstr(d.msg, field) != NULL, "diag '%s' lacks %s", d.msg, field);
	ck_assert(d.has_offset);
	ck_assert_uint_eq(d.offset, field_off);
}

START_TEST(test_huge_counts)
{
	uint64_t w[4] = { 0 };

	w[0] = 1ull << 63;
	expect_reject(PERFRING_SAMPLE_CALLCHAIN, 0, w, 2, "CALLCHAIN", 16);
	w[0] = UINT64_MAX;
	expect_reject(PERFRING_SAMPLE_CALLCHAIN, 0, w, 2, "CALLCHAIN", 16);
	w[0] = 0xffffffffull;	/* raw size u32 then 4 bytes */
	expect_reject(PERFRING_SAMPLE_RAW, 0, w, 1, "RAW", 12);
	w[0] = 0x1234;	/* IP, then raw size 0xfffffffc */
	w[1] = 0xfffffffcull;
	expect_reject(PERFRING_SAMPLE_IP | PERFRING_SAMPLE_RAW, 0, w, 3, "RAW", 20);
	w[1] = 0;
	w[0] = 1ull << 62;
	expect_reject(PERFRING_SAMPLE_BRANCH_STACK, 0, w, 3, "BRANCH_STACK", 16);
	w[0] = (uint64_t)-8;
	expect_reject(PERFRING_SAMPLE_STACK_USER, 0, w, 2, "STACK_USER", 16);
	w[0] = (uint64_t)-8;
	expect_reject(PERFRING_SAMPLE_AUX, 0, w, 2, "AUX", 16);
	w[0] = 1ull << 61;
	expect_reject(PERFRING_SAMPLE_READ, PERFRING_FORMAT_GROUP | PERFRING_FORMAT_ID,
		      w, 3, "READ", 16);
	w[0] = 2;	/* abi 64, 64 regs wanted, 2 words there */
	expect_reject(PERFRING_SAMPLE_REGS_USER, 0, w, 3, "REGS_USER", 16);
	/* left-over bytes */
	expect_reject(PERFRING_SAMPLE_IP, 0, w, 2, "left over", 16);
}
END_TEST

START_TEST(test_decode_misc_errors)
{
	unsigned char rec[32];
	struct perfring_attr a;
	struct perfring_sample s;
	struct perfring_diag d;

	memset(&a, 0, sizeof(a));
	memset(rec, 0, sizeof(rec));
	a.sample_type = PERFRING_SAMPLE_IP;
	put_header(rec, PERFRING_RECORD_COMM, 0, 16);
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), -EINVAL);
	put_header(rec, PERFRING_RECORD_SAMPLE, 0, 16);
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), 0);
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 24, &s, &d), -EBADMSG);
	ck_assert_int_eq(perfring_sample_decode(NULL, rec, 16, &s, &d), -EINVAL);
	a.sample_type = PERFRING_SAMPLE_MAX;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), -EINVAL);
	a.sample_type = PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), -EINVAL);
	a.sample_type = PERFRING_SAMPLE_WEIGHT_STRUCT;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), 0);
	/* REGS_USER with abi NONE has no registers */
	a.sample_type = PERFRING_SAMPLE_REGS_USER;
	a.sample_regs_user = 0x180;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), 0);
	ck_assert_uint_eq(s.regs_user_nr, 0);
	/* STACK_USER size 0: nothing follows */
	a.sample_type = PERFRING_SAMPLE_STACK_USER;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 16, &s, &d), 0);
	ck_assert_uint_eq(s.stack_user_size, 0);
	/* hw_idx only with HW_INDEX */
	a.sample_type = PERFRING_SAMPLE_BRANCH_STACK;
	put_header(rec, PERFRING_RECORD_SAMPLE, 0, 24);
	put64(rec + 16, 77);
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 24, &s, &d), -EBADMSG);
	a.branch_sample_type = PERFRING_BRANCH_HW_INDEX;
	ck_assert_int_eq(perfring_sample_decode(&a, rec, 24, &s, &d), 0);
	ck_assert_uint_eq(s.branch_hw_idx, 77);
}
END_TEST

/* ---- encode refusals ------------------------------------------------------- */
START_TEST(test_encode_refusal)
{
	static uint64_t cc[8200];
	static unsigned char buf[65536];
	struct perfring_attr a;
	struct perfring_sample s;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_CALLCHAIN;
	s.callchain = cc;
	s.callchain_nr = (PERFRING_RECORD_MAX_SIZE - 16) / 8;	/* exactly 65528 */
	rc = perfring_sample_encode(&a, &s, 0, buf, sizeof(buf));
	ck_assert_int_eq(rc, PERFRING_RECORD_MAX_SIZE);
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, PERFRING_RECORD_MAX_SIZE - 1),
			 -ENOSPC);
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, NULL, 0), -ENOSPC);
	s.callchain_nr++;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);
	s.callchain_nr = UINT64_MAX;	/* must not wrap to a small size */
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);
	s.callchain_nr = 1ull << 61;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);

	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_RAW;
	s.raw = buf;
	s.raw_size = 0xfffffffc;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);
	s.raw_size = 5;		/* 4 + 5 not a multiple of 8 */
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);
	s.raw_size = 4;
	s.raw = NULL;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);
	s.raw_size = 0;		/* no data: 4 + 4 zero bytes in the kernel: 4 bytes here */
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);

	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_STACK_USER;
	s.stack_user = buf;
	s.stack_user_size = (uint64_t)-8;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);
	s.stack_user_size = 12;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);

	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_AUX;
	s.aux = buf;
	s.aux_size = PERFRING_RECORD_MAX_SIZE;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EMSGSIZE);

	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);

	a.sample_type = PERFRING_SAMPLE_REGS_USER;
	a.sample_regs_user = 0x180;
	s.regs_user_abi = 2;
	s.regs_user = cc;
	s.regs_user_nr = 3;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);
	s.regs_user_nr = 2;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), 32);

	memset(&s, 0, sizeof(s));
	a.sample_type = PERFRING_SAMPLE_READ;
	a.read_format = PERFRING_FORMAT_ID;
	s.read_values = cc;
	s.nr_read_words = 3;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);
	s.nr_read_words = 2;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), 24);
	a.read_format = PERFRING_FORMAT_GROUP | PERFRING_FORMAT_ID;
	cc[0] = 2;	/* nr 2: 1 + 2 * 2 words */
	s.nr_read_words = 5;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), 48);
	cc[0] = UINT64_MAX;
	ck_assert_int_eq(perfring_sample_encode(&a, &s, 0, buf, sizeof(buf)), -EINVAL);
	cc[0] = 0;
	ck_assert_int_eq(perfring_sample_encode(&a, NULL, 0, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/*
 * perfring_sample_head_decode reads what perfring_sample_encode wrote at a
 * SAMPLE's head; perfring_record_add_identifier puts the id first in a
 * SAMPLE and last in a trailer, where perf's rule then finds it.
 */
START_TEST(test_sample_head_and_identifier)
{
	struct perfring_attr a = { .size = PERFRING_ATTR_SIZE_VER5,
				   .sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
						  PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |
						  PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD,
				   .flags = PERFRING_ATTR_SAMPLE_ID_ALL };
	struct perfring_attr ai = a;
	struct perfring_sample smp = { .ip = 0x1234, .pid = 5, .tid = 6, .time = 777, .id = 42,
				       .cpu = 3, .period = 100 };
	struct perfring_sample_id sid = { .pid = 5, .tid = 6, .time = 778, .id = 42, .cpu = 3 }, h;
	struct perfring_sample back;
	struct perfring_comm c = PERFRING_COMM_INIT;
	unsigned char buf[256], out[300];
	uint64_t id;
	int len, n;

	len = perfring_sample_encode(&a, &smp, PERFRING_MISC_USER, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(perfring_sample_head_decode(&a, buf, (size_t)len, &h), 0);
	ck_assert_uint_eq(h.pid, 5);
	ck_assert_uint_eq(h.tid, 6);
	ck_assert_uint_eq(h.time, 777);
	ck_assert_uint_eq(h.id, 42);
	ck_assert_uint_eq(h.cpu, 3);
	ck_assert_int_eq(perfring_sample_head_decode(&a, buf, 24, &h), -EBADMSG);
	ck_assert_int_eq(perfring_sample_head_decode(NULL, buf, (size_t)len, &h), -EINVAL);

	/* a SAMPLE: the id first, then the record as it was */
	ai.sample_type |= PERFRING_SAMPLE_IDENTIFIER;
	n = perfring_record_add_identifier(&a, 99, buf, (size_t)len, out);
	ck_assert_int_eq(n, len + 8);
	ck_assert_int_eq(perfring_record_id(&ai, out, (size_t)n, &id), 1);
	ck_assert_uint_eq(id, 42);	/* its own id, not the one given */
	ck_assert_int_eq(perfring_sample_decode(&ai, out, (size_t)n, &back, NULL), 0);
	ck_assert_uint_eq(back.ip, 0x1234);
	ck_assert_uint_eq(back.period, 100);

	/* a COMM: the id as the trailer's last u64 */
	c.pid = c.tid = 9;
	strcpy(c.comm, "x");
	len = perfring_core_comm_encode(&a, &c, &sid, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	n = perfring_record_add_identifier(&a, 99, buf, (size_t)len, out);
	ck_assert_int_eq(n, len + 8);
	ck_assert_int_eq(perfring_record_id(&ai, out, (size_t)n, &id), 1);
	ck_assert_uint_eq(id, 42);
	ck_assert_int_eq(perfring_comm_decode(&ai, out, (size_t)n, NULL, NULL, NULL, &h, NULL), 0);
	ck_assert_uint_eq(h.time, 778);
	/* no trailer: no place for it */
	a.flags = 0;
	len = perfring_core_comm_encode(&a, &c, NULL, buf, sizeof(buf));
	ck_assert_int_eq(perfring_record_add_identifier(&a, 99, buf, (size_t)len, out), 0);
}
END_TEST

/*
 * The side-band decoders (lib/ring/sideband.c) against the core's
 * encoders: every field back, with and without a trailer, both MMAP2
 * forms; then the damage each refuses, with its offset.
 */
START_TEST(test_sideband_decoders)
{
	struct perfring_attr a = { .size = PERFRING_ATTR_SIZE_VER5,
				   .sample_type = PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME,
				   .flags = PERFRING_ATTR_SAMPLE_ID_ALL };
	struct perfring_sample_id sid = { .pid = 7, .tid = 8, .time = 123456789 }, got_sid;
	struct perfring_comm c = PERFRING_COMM_INIT, cd;
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT, md;
	struct perfring_task t = { .pid = 10, .ppid = 9, .tid = 11, .ptid = 9, .time = 5 }, td;
	struct perfring_diag d;
	unsigned char buf[512];
	const char *name;
	size_t n;
	int len;

	c.pid = 42;
	c.tid = 43;
	strcpy(c.comm, "worker");
	c.exec = true;
	c.misc |= PERFRING_MISC_COMM_EXEC;
	len = perfring_core_comm_encode(&a, &c, &sid, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(perfring_comm_decode(&a, buf, (size_t)len, &cd, &name, &n, &got_sid, &d), 0);
	ck_assert_uint_eq(cd.pid, 42);
	ck_assert_uint_eq(cd.tid, 43);
	ck_assert_str_eq(cd.comm, "worker");
	ck_assert(cd.exec);
	ck_assert_uint_eq(n, 6);
	ck_assert_mem_eq(name, "worker", 6);
	ck_assert_uint_eq(got_sid.time, 123456789);
	ck_assert_uint_eq(got_sid.tid, 8);
	/* the name not NUL-terminated before the trailer */
	memset(buf + 16, 'x', 8);
	ck_assert_int_eq(perfring_comm_decode(&a, buf, (size_t)len, &cd, NULL, NULL, NULL, &d),
			 -EBADMSG);
	ck_assert_uint_eq(d.offset, 16);
	ck_assert_int_eq(perfring_task_decode(&a, buf, (size_t)len, &td, NULL, &d), -EINVAL);

	m.pid = 1;
	m.tid = 2;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.pgoff = 0x2000;
	m.maj = 8;
	m.min = 1;
	m.ino = 99;
	m.ino_generation = 3;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/usr/bin/true";
	m.filename_len = strlen(m.filename);
	len = perfring_core_mmap2_encode(&a, PERFRING_RECORD_MMAP2, &m, &sid, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(perfring_mmap2_decode(&a, buf, (size_t)len, &md, NULL, &d), 0);
	ck_assert_uint_eq(md.addr, 0x400000);
	ck_assert_uint_eq(md.len, 0x1000);
	ck_assert_uint_eq(md.pgoff, 0x2000);
	ck_assert_uint_eq(md.ino, 99);
	ck_assert_uint_eq(md.prot, 5);
	ck_assert_uint_eq(md.flags, 2);
	ck_assert_str_eq(md.filename, "/usr/bin/true");
	ck_assert_uint_eq(md.build_id_size, 0);
	/* the build-id form */
	m.misc |= PERFRING_MISC_MMAP_BUILD_ID;
	m.build_id_size = 20;
	memset(m.build_id, 0xab, 20);
	len = perfring_core_mmap2_encode(&a, PERFRING_RECORD_MMAP2, &m, &sid, buf, sizeof(buf));
	ck_assert_int_eq(perfring_mmap2_decode(&a, buf, (size_t)len, &md, NULL, &d), 0);
	ck_assert_uint_eq(md.build_id_size, 20);
	ck_assert_uint_eq(md.build_id[19], 0xab);
	buf[40] = 21;
	ck_assert_int_eq(perfring_mmap2_decode(&a, buf, (size_t)len, &md, NULL, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 40);
	/* a header size that is not the record's */
	ck_assert_int_eq(perfring_mmap2_decode(&a, buf, (size_t)len - 8, &md, NULL, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 6);

	len = perfring_core_task_encode(&a, PERFRING_RECORD_FORK, &t, &sid, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(perfring_task_decode(&a, buf, (size_t)len, &td, NULL, &d), 0);
	ck_assert_uint_eq(td.pid, 10);
	ck_assert_uint_eq(td.ppid, 9);
	ck_assert_uint_eq(td.tid, 11);
	ck_assert_uint_eq(td.time, 5);
	/* without the attr, the trailer's 16 bytes lie between body and end */
	ck_assert_int_eq(perfring_task_decode(NULL, buf, (size_t)len, &td, NULL, &d), -EBADMSG);
	ck_assert_uint_eq(d.offset, 32);
}
END_TEST

/* ---- LOST ------------------------------------------------------------------ */
START_TEST(test_lost)
{
	struct perfring_attr a;
	struct perfring_lost l = { .id = 42, .lost = 1000 }, l2;
	struct perfring_sample_id sid = { .pid = 1, .tid = 2, .time = 3, .id = 42,
					  .cpu = 5, .identifier = 42 }, sid2;
	unsigned char buf[128], buf2[128];
	int rc;

	memset(&a, 0, sizeof(a));
	a.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			PERFRING_SAMPLE_ID | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_IDENTIFIER;
	/* no sample_id_all: 24 bytes */
	rc = perfring_lost_encode(&a, &l, &sid, buf, sizeof(buf));
	ck_assert_int_eq(rc, 24);
	{
		struct perfring_event_header h;

		memcpy(&h, buf, sizeof(h));
		ck_assert_uint_eq(h.type, PERFRING_RECORD_LOST);
		ck_assert_uint_eq(h.misc, 0);
		ck_assert_uint_eq(h.size, 24);
	}
	ck_assert_uint_eq(get64(buf + 8), 42);
	ck_assert_uint_eq(get64(buf + 16), 1000);
	memset(&sid2, 0xff, sizeof(sid2));
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 24, &l2, &sid2), 0);
	ck_assert_uint_eq(l2.id, 42);
	ck_assert_uint_eq(l2.lost, 1000);
	ck_assert_uint_eq(sid2.pid, 0);
	ck_assert_uint_eq(sid2.identifier, 0);

	/* with the trailer: 24 + 40 = 64 bytes, like the kernel's */
	a.flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	rc = perfring_lost_encode(&a, &l, &sid, buf, sizeof(buf));
	ck_assert_int_eq(rc, 64);
	ck_assert_int_eq(perfring_lost_encode(&a, &l, &sid, buf2, 63), -ENOSPC);
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 64, &l2, &sid2), 0);
	ck_assert_uint_eq(l2.lost, 1000);
	ck_assert_uint_eq(sid2.tid, 2);
	ck_assert_uint_eq(sid2.cpu, 5);
	ck_assert_uint_eq(sid2.identifier, 42);
	ck_assert_uint_eq(get64(buf + 56), 42);	/* IDENTIFIER last */
	ck_assert_int_eq(perfring_lost_encode(&a, &l2, &sid2, buf2, sizeof(buf2)), 64);
	ck_assert(!memcmp(buf, buf2, 64));
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 64, NULL, NULL), 0);

	/* truncations and wrong types */
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 56, &l2, &sid2), -EBADMSG);
	put_header(buf2, PERFRING_RECORD_LOST, 0, 56);
	ck_assert_int_eq(perfring_lost_decode(&a, buf2, 56, &l2, &sid2), -EBADMSG);
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 4, &l2, &sid2), -EBADMSG);
	put32(buf, PERFRING_RECORD_LOST_SAMPLES);
	ck_assert_int_eq(perfring_lost_decode(&a, buf, 64, &l2, &sid2), -EINVAL);
	ck_assert_int_eq(perfring_lost_encode(&a, NULL, &sid, buf, sizeof(buf)), -EINVAL);
	/* sid NULL writes a zero trailer */
	ck_assert_int_eq(perfring_lost_encode(&a, &l, NULL, buf, sizeof(buf)), 64);
	ck_assert_uint_eq(get64(buf + 56), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("record");
	TCase *tc;

	tc = tcase_create("layout");
	tcase_add_test(tc, test_attr_layout);
	tcase_add_test(tc, test_attr_flags);
	tcase_add_test(tc, test_uapi_constants);
	tcase_add_test(tc, test_type_names);
	tcase_add_test(tc, test_bit_names);
	tcase_add_test(tc, test_min_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("trailer");
	tcase_add_test(tc, test_trailer_subsets);
	tcase_add_test(tc, test_trailer_size);
	suite_add_tcase(s, tc);

	tc = tcase_create("fixtures");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_fixture, 0, NR_FIXTURES);
	tcase_add_test(tc, test_fixture_coverage);
	tcase_add_test(tc, test_truncation_fixtures);
	suite_add_tcase(s, tc);

	tc = tcase_create("sample");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sample_field_order);
	tcase_add_test(tc, test_roundtrip_property);
	tcase_add_test(tc, test_truncation_synthetic);
	tcase_add_test(tc, test_random_bytes);
	tcase_add_test(tc, test_huge_counts);
	tcase_add_test(tc, test_decode_misc_errors);
	tcase_add_test(tc, test_encode_refusal);
	tcase_add_test(tc, test_lost);
	tcase_add_test(tc, test_sideband_decoders);
	tcase_add_test(tc, test_sample_head_and_identifier);
	suite_add_tcase(s, tc);

	return test_run_suite(s);
}
