/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring core: the wire layouts of perf records and of the ring's control
 * page, as plain structs and constants.  Freestanding: this header needs
 * only <stddef.h>, <stdint.h> and <stdbool.h>, so a kernel can include it.
 *
 * The one place these layouts are defined: <perfring/records.h>,
 * <perfring/sideband.h> and <perfring/ring.h> include it.  All integers are
 * in the producing machine's byte order.  Layouts are pinned with static
 * assertions in lib/core/ and the tests.  Who encodes which layout:
 * lib/core/README.md.
 */
#ifndef PERFRING_CORE_WIRE_H
#define PERFRING_CORE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- record types (kernel range < 64, perf-tool range >= 64) ---------- */
enum perfring_record_type {
	PERFRING_RECORD_MMAP = 1,
	PERFRING_RECORD_LOST = 2,
	PERFRING_RECORD_COMM = 3,
	PERFRING_RECORD_EXIT = 4,
	PERFRING_RECORD_THROTTLE = 5,
	PERFRING_RECORD_UNTHROTTLE = 6,
	PERFRING_RECORD_FORK = 7,
	PERFRING_RECORD_READ = 8,
	PERFRING_RECORD_SAMPLE = 9,
	PERFRING_RECORD_MMAP2 = 10,
	PERFRING_RECORD_AUX = 11,
	PERFRING_RECORD_ITRACE_START = 12,
	PERFRING_RECORD_LOST_SAMPLES = 13,
	PERFRING_RECORD_SWITCH = 14,
	PERFRING_RECORD_SWITCH_CPU_WIDE = 15,
	PERFRING_RECORD_NAMESPACES = 16,
	PERFRING_RECORD_KSYMBOL = 17,
	PERFRING_RECORD_BPF_EVENT = 18,
	PERFRING_RECORD_CGROUP = 19,
	PERFRING_RECORD_TEXT_POKE = 20,
	PERFRING_RECORD_AUX_OUTPUT_HW_ID = 21,
	PERFRING_RECORD_KERNEL_MAX = 22,	/* first type perf 6.1 does not know */

	PERFRING_RECORD_HEADER_ATTR = 64,
	PERFRING_RECORD_HEADER_EVENT_TYPE = 65,
	PERFRING_RECORD_HEADER_TRACING_DATA = 66,
	PERFRING_RECORD_HEADER_BUILD_ID = 67,
	PERFRING_RECORD_FINISHED_ROUND = 68,
	PERFRING_RECORD_ID_INDEX = 69,
	PERFRING_RECORD_AUXTRACE_INFO = 70,
	PERFRING_RECORD_AUXTRACE = 71,
	PERFRING_RECORD_AUXTRACE_ERROR = 72,
	PERFRING_RECORD_THREAD_MAP = 73,
	PERFRING_RECORD_CPU_MAP = 74,
	PERFRING_RECORD_STAT_CONFIG = 75,
	PERFRING_RECORD_STAT = 76,
	PERFRING_RECORD_STAT_ROUND = 77,
	PERFRING_RECORD_EVENT_UPDATE = 78,
	PERFRING_RECORD_TIME_CONV = 79,
	PERFRING_RECORD_HEADER_FEATURE = 80,
	PERFRING_RECORD_COMPRESSED = 81,
	PERFRING_RECORD_FINISHED_INIT = 82,
	PERFRING_RECORD_HEADER_MAX = 83,	/* first user type perf 6.1 does not know */
	/*
	 * Newer perf's COMPRESSED with an 8-aligned size: header, u64
	 * data_size, data_size bytes of zstd data, zero padding.  perf 6.1
	 * refuses it; libperfring names it, counts it and decompresses it.
	 */
	PERFRING_RECORD_COMPRESSED2 = 83,
};

/*
 * Type 0 is never a perf record.  Rings written by this library use it for
 * the space of an aborted nested reservation: a header-only "pad" record that
 * readers skip (and count).  It never reaches a perf.data file.
 */
#define PERFRING_RECORD_PAD 0u

/* ---- header and misc ---------------------------------------------------- */
struct perfring_event_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;		/* whole record, header included */
};

#define PERFRING_RECORD_MAX_SIZE 65528u	/* largest 8-aligned u16 size */

#define PERFRING_MISC_CPUMODE_MASK	0x7u
#define PERFRING_MISC_CPUMODE_UNKNOWN	0u
#define PERFRING_MISC_KERNEL		1u
#define PERFRING_MISC_USER		2u
#define PERFRING_MISC_HYPERVISOR	3u
#define PERFRING_MISC_GUEST_KERNEL	4u
#define PERFRING_MISC_GUEST_USER	5u
#define PERFRING_MISC_PROC_MAP_PARSE_TIMEOUT (1u << 12)
#define PERFRING_MISC_MMAP_DATA		(1u << 13)
#define PERFRING_MISC_COMM_EXEC		(1u << 13)
#define PERFRING_MISC_FORK_EXEC		(1u << 13)
#define PERFRING_MISC_SWITCH_OUT	(1u << 13)
#define PERFRING_MISC_EXACT_IP		(1u << 14)
#define PERFRING_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define PERFRING_MISC_MMAP_BUILD_ID	(1u << 14)
#define PERFRING_MISC_EXT_RESERVED	(1u << 15)

/* ---- perf_event_attr ---------------------------------------------------- */
/*
 * Byte-identical to the kernel's struct perf_event_attr up to VER8 (136
 * bytes).  The flag bitfield at offset 40 is one u64 here; use the
 * PERFRING_ATTR_* masks.  attr.size says how many bytes are meaningful.
 */
struct perfring_attr {
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t sample_period;		/* or sample_freq when FREQ is set */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;			/* PERFRING_ATTR_* */
	uint32_t wakeup_events;		/* or wakeup_watermark */
	uint32_t bp_type;
	uint64_t config1;		/* bp_addr, kprobe_func, uprobe_path */
	uint64_t config2;		/* bp_len, kprobe_addr, probe_offset */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint16_t reserved_2;
	uint32_t aux_sample_size;
	uint32_t reserved_3;
	uint64_t sig_data;
	uint64_t config3;
};

#define PERFRING_ATTR_SIZE_VER0 64u
#define PERFRING_ATTR_SIZE_VER1 72u
#define PERFRING_ATTR_SIZE_VER2 80u
#define PERFRING_ATTR_SIZE_VER3 96u
#define PERFRING_ATTR_SIZE_VER4 104u
#define PERFRING_ATTR_SIZE_VER5 112u
#define PERFRING_ATTR_SIZE_VER6 120u
#define PERFRING_ATTR_SIZE_VER7 128u
#define PERFRING_ATTR_SIZE_VER8 136u

/* attr.type */
#define PERFRING_TYPE_HARDWARE		0u
#define PERFRING_TYPE_SOFTWARE		1u
#define PERFRING_TYPE_TRACEPOINT	2u
#define PERFRING_TYPE_HW_CACHE		3u
#define PERFRING_TYPE_RAW		4u
#define PERFRING_TYPE_BREAKPOINT	5u

/* attr.flags bits (the kernel's bitfield, bit by bit) */
#define PERFRING_ATTR_DISABLED		(1ull << 0)
#define PERFRING_ATTR_INHERIT		(1ull << 1)
#define PERFRING_ATTR_PINNED		(1ull << 2)
#define PERFRING_ATTR_EXCLUSIVE		(1ull << 3)
#define PERFRING_ATTR_EXCLUDE_USER	(1ull << 4)
#define PERFRING_ATTR_EXCLUDE_KERNEL	(1ull << 5)
#define PERFRING_ATTR_EXCLUDE_HV	(1ull << 6)
#define PERFRING_ATTR_EXCLUDE_IDLE	(1ull << 7)
#define PERFRING_ATTR_MMAP		(1ull << 8)
#define PERFRING_ATTR_COMM		(1ull << 9)
#define PERFRING_ATTR_FREQ		(1ull << 10)
#define PERFRING_ATTR_INHERIT_STAT	(1ull << 11)
#define PERFRING_ATTR_ENABLE_ON_EXEC	(1ull << 12)
#define PERFRING_ATTR_TASK		(1ull << 13)
#define PERFRING_ATTR_WATERMARK		(1ull << 14)
#define PERFRING_ATTR_PRECISE_IP_SHIFT	15
#define PERFRING_ATTR_PRECISE_IP_MASK	(3ull << 15)
#define PERFRING_ATTR_MMAP_DATA		(1ull << 17)
#define PERFRING_ATTR_SAMPLE_ID_ALL	(1ull << 18)
#define PERFRING_ATTR_EXCLUDE_HOST	(1ull << 19)
#define PERFRING_ATTR_EXCLUDE_GUEST	(1ull << 20)
#define PERFRING_ATTR_EXCLUDE_CALLCHAIN_KERNEL (1ull << 21)
#define PERFRING_ATTR_EXCLUDE_CALLCHAIN_USER (1ull << 22)
#define PERFRING_ATTR_MMAP2		(1ull << 23)
#define PERFRING_ATTR_COMM_EXEC		(1ull << 24)
#define PERFRING_ATTR_USE_CLOCKID	(1ull << 25)
#define PERFRING_ATTR_CONTEXT_SWITCH	(1ull << 26)
#define PERFRING_ATTR_WRITE_BACKWARD	(1ull << 27)
#define PERFRING_ATTR_NAMESPACES	(1ull << 28)
#define PERFRING_ATTR_KSYMBOL		(1ull << 29)
#define PERFRING_ATTR_BPF_EVENT		(1ull << 30)
#define PERFRING_ATTR_AUX_OUTPUT	(1ull << 31)
#define PERFRING_ATTR_CGROUP		(1ull << 32)
#define PERFRING_ATTR_TEXT_POKE		(1ull << 33)
#define PERFRING_ATTR_BUILD_ID		(1ull << 34)
#define PERFRING_ATTR_INHERIT_THREAD	(1ull << 35)
#define PERFRING_ATTR_REMOVE_ON_EXEC	(1ull << 36)
#define PERFRING_ATTR_SIGTRAP		(1ull << 37)

/* sample_type bits */
#define PERFRING_SAMPLE_IP		(1ull << 0)
#define PERFRING_SAMPLE_TID		(1ull << 1)
#define PERFRING_SAMPLE_TIME		(1ull << 2)
#define PERFRING_SAMPLE_ADDR		(1ull << 3)
#define PERFRING_SAMPLE_READ		(1ull << 4)
#define PERFRING_SAMPLE_CALLCHAIN	(1ull << 5)
#define PERFRING_SAMPLE_ID		(1ull << 6)
#define PERFRING_SAMPLE_CPU		(1ull << 7)
#define PERFRING_SAMPLE_PERIOD		(1ull << 8)
#define PERFRING_SAMPLE_STREAM_ID	(1ull << 9)
#define PERFRING_SAMPLE_RAW		(1ull << 10)
#define PERFRING_SAMPLE_BRANCH_STACK	(1ull << 11)
#define PERFRING_SAMPLE_REGS_USER	(1ull << 12)
#define PERFRING_SAMPLE_STACK_USER	(1ull << 13)
#define PERFRING_SAMPLE_WEIGHT		(1ull << 14)
#define PERFRING_SAMPLE_DATA_SRC	(1ull << 15)
#define PERFRING_SAMPLE_IDENTIFIER	(1ull << 16)
#define PERFRING_SAMPLE_TRANSACTION	(1ull << 17)
#define PERFRING_SAMPLE_REGS_INTR	(1ull << 18)
#define PERFRING_SAMPLE_PHYS_ADDR	(1ull << 19)
#define PERFRING_SAMPLE_AUX		(1ull << 20)
#define PERFRING_SAMPLE_CGROUP		(1ull << 21)
#define PERFRING_SAMPLE_DATA_PAGE_SIZE	(1ull << 22)
#define PERFRING_SAMPLE_CODE_PAGE_SIZE	(1ull << 23)
#define PERFRING_SAMPLE_WEIGHT_STRUCT	(1ull << 24)
#define PERFRING_SAMPLE_MAX		(1ull << 25)

/* The trailer bits (sample_id_all) */
#define PERFRING_SAMPLE_ID_ALL_BITS						\
	(PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |	\
	 PERFRING_SAMPLE_STREAM_ID | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_IDENTIFIER)

/* read_format bits */
#define PERFRING_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define PERFRING_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define PERFRING_FORMAT_ID		(1ull << 2)
#define PERFRING_FORMAT_GROUP		(1ull << 3)
#define PERFRING_FORMAT_LOST		(1ull << 4)

/* branch_sample_type bit that adds hw_idx to BRANCH_STACK */
#define PERFRING_BRANCH_HW_INDEX	(1ull << 17)

/* callchain context markers */
#define PERFRING_CONTEXT_HV		((uint64_t)-32)
#define PERFRING_CONTEXT_KERNEL		((uint64_t)-128)
#define PERFRING_CONTEXT_USER		((uint64_t)-512)
#define PERFRING_CONTEXT_GUEST		((uint64_t)-2048)
#define PERFRING_CONTEXT_GUEST_KERNEL	((uint64_t)-2176)
#define PERFRING_CONTEXT_GUEST_USER	((uint64_t)-2560)
#define PERFRING_CONTEXT_MAX		((uint64_t)-4095)

/* ---- sample_id_all trailer --------------------------------------------- */
/*
 * The trailer appended to every non-SAMPLE record when attr.sample_id_all is
 * set: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, in that order, each present
 * when its sample_type bit is set.
 */
struct perfring_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, res;
	uint64_t identifier;
};

/* ---- SAMPLE -------------------------------------------------------------- */
struct perfring_branch_entry {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};

/*
 * A decoded SAMPLE.  Variable-length parts point into the record that was
 * decoded (they are valid as long as its bytes are) and are not aligned
 * copies: read them with memcpy if the record may be unaligned.
 */
struct perfring_sample {
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	/* READ: the raw read_format values (nr_read_words u64s). */
	const uint64_t *read_values;
	uint32_t nr_read_words;
	/* CALLCHAIN */
	uint64_t callchain_nr;
	const uint64_t *callchain;
	/* RAW: raw_size bytes (padding included, as the kernel counts it) */
	uint32_t raw_size;
	const void *raw;
	/* BRANCH_STACK */
	uint64_t branch_nr;
	uint64_t branch_hw_idx;		/* only with PERFRING_BRANCH_HW_INDEX */
	const struct perfring_branch_entry *branches;
	/* REGS_USER */
	uint64_t regs_user_abi;
	uint32_t regs_user_nr;
	const uint64_t *regs_user;
	/* STACK_USER */
	uint64_t stack_user_size;
	const void *stack_user;
	uint64_t stack_user_dyn_size;
	uint64_t weight;		/* WEIGHT or WEIGHT_STRUCT (raw u64) */
	uint64_t data_src;
	uint64_t transaction;
	/* REGS_INTR */
	uint64_t regs_intr_abi;
	uint32_t regs_intr_nr;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	/* AUX */
	uint64_t aux_size;
	const void *aux;
};

/* ---- LOST ---------------------------------------------------------------- */
struct perfring_lost {
	uint64_t id;
	uint64_t lost;
};


/* ---- wire layouts ---------------------------------------------------------- */

/* PERF_RECORD_COMM: name NUL-terminated, zero-padded to 8. */
struct perfring_comm_event {
	struct perfring_event_header header;
	uint32_t pid, tid;
	char comm[];
};

/* PERF_RECORD_MMAP (type 1): filename NUL-terminated, zero-padded to 8. */
struct perfring_mmap_event {
	struct perfring_event_header header;
	uint32_t pid, tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;		/* byte offset into the file */
	char filename[];
};

#define PERFRING_BUILD_ID_SIZE 20

/*
 * PERF_RECORD_MMAP2 (type 10).  The union holds maj/min/ino/ino_generation,
 * or, when misc has PERFRING_MISC_MMAP_BUILD_ID, the build id.
 */
struct perfring_mmap2_event {
	struct perfring_event_header header;
	uint32_t pid, tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	union {
		struct {
			uint32_t maj;
			uint32_t min;
			uint64_t ino;
			uint64_t ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved_1;
			uint16_t reserved_2;
			uint8_t build_id[PERFRING_BUILD_ID_SIZE];
		};
	};
	uint32_t prot;
	uint32_t flags;
	char filename[];
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT: same body. */
struct perfring_task_event {
	struct perfring_event_header header;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
};

/* ---- typed structs (what the plugins encode and decode) --------------------- */

/* Kernel task names: at most 15 bytes and a NUL (TASK_COMM_LEN). */
#define PERFRING_COMM_LEN 16

/*
 * COMM.  Encoding writes misc = (misc & ~COMM_EXEC) | (exec ? COMM_EXEC : 0)
 * and the name cut to 15 bytes.  Decoding fills every field from the record
 * (misc exactly as found, exec from its COMM_EXEC bit; a longer name, which
 * the kernel never writes, is cut to 15 bytes).
 *
 * The kernel itself writes cpumode 0 in COMM records; PERFRING_COMM_INIT
 * gives the library's default, USER.
 */
struct perfring_comm {
	uint32_t pid, tid;
	char comm[PERFRING_COMM_LEN];	/* NUL-terminated */
	bool exec;			/* name changed by exec (COMM_EXEC) */
	uint16_t misc;			/* header misc: cpumode and flags */
};
#define PERFRING_COMM_INIT { .misc = PERFRING_MISC_USER }

/*
 * MMAP2 (and MMAP, which has only pid..pgoff and filename).
 *
 * misc is written as given (cpumode, PERFRING_MISC_MMAP_DATA for a non-exec
 * mapping, PERFRING_MISC_MMAP_BUILD_ID to select the build-id form of the
 * union).  filename: on encode filename_len bytes are written (no NUL
 * needed; filename may be NULL when filename_len is 0); a record that would
 * exceed PERFRING_RECORD_MAX_SIZE is refused with -EMSGSIZE, never cut.
 * On decode filename points into the decoded record, where it is
 * NUL-terminated, and filename_len is its strlen.
 */
struct perfring_mmap2 {
	uint32_t pid, tid;
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t ino_generation;
	uint8_t build_id_size;		/* MMAP_BUILD_ID form: 0..20 */
	uint8_t build_id[PERFRING_BUILD_ID_SIZE];
	uint32_t prot;			/* PROT_* */
	uint32_t flags;			/* MAP_* */
	uint16_t misc;
	const char *filename;
	size_t filename_len;
};
#define PERFRING_MMAP2_INIT { .misc = PERFRING_MISC_USER }

/*
 * FORK and EXIT: pid/tid = the child (FORK) or the exiting task (EXIT),
 * ppid/ptid = its parent.  misc is 0 in kernel records.  The trailer
 * describes the context that emits the record: the parent for FORK, the
 * exiting task for EXIT; pass it as the sample_id.
 */
struct perfring_task {
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
	uint16_t misc;
};

/* ---- ring control page and reservations --------------------------------- */

/*
 * The control page, byte-compatible with the kernel's struct
 * perf_event_mmap_page (sizeof 1088; data_head at byte 1024).  The data area
 * follows at data_offset.  Do not access data_head / data_tail directly: the
 * library does it with the right memory orders.
 */
struct perfring_mmap_page {
	uint32_t version;
	uint32_t compat_version;
	uint32_t lock;
	uint32_t index;
	int64_t offset;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t capabilities;
	uint16_t pmc_width;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_offset;
	uint64_t time_zero;
	uint32_t size;
	uint32_t reserved_1;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t reserved[928];
	uint64_t data_head;
	uint64_t data_tail;
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t aux_head;
	uint64_t aux_tail;
	uint64_t aux_offset;
	uint64_t aux_size;
};

/* A reservation in a ring (perfring_ring_reserve, perfring_core_reserve). */
struct perfring_wr {
	uint64_t pos;		/* ring position of the caller's record */
	uint32_t size;		/* its size */
	uint32_t lost_size;	/* a LOST record written just before it */
};

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_CORE_WIRE_H */
