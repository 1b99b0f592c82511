/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf wire formats: record header, perf_event_attr, the sample_id_all
 * trailer, SAMPLE and LOST bodies, and their codec.
 *
 * These are byte formats, so they are plain structs (like libperf's
 * <perf/event.h>).  All integers are in the producing machine's byte order.
 * Layouts are pinned with static assertions in lib/ and the tests.
 */
#ifndef PERFRING_RECORDS_H
#define PERFRING_RECORDS_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/records.h>"
#endif

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

/*
 * The name `perf report -D` prints for a record type ("MMAP", "SAMPLE",
 * "ATTR", "FINISHED_ROUND", "FEATURE", ...), or NULL if the type is not one
 * that perf 6.1 names (PERFRING_RECORD_PAD included: perf's index 0,
 * "TOTAL", is only a statistics row).  PERFRING_RECORD_COMPRESSED2 is
 * named as newer perf names it, "COMPRESSED2".
 */
PERFRING_API const char *perfring_record_type_name(uint32_t type);
/* Inverse of perfring_record_type_name; returns -ENOENT for unknown names. */
PERFRING_API int perfring_record_type_from_name(const char *name, uint32_t *type);

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

/* Name of one sample_type / read_format bit without prefix ("IP"), or NULL. */
PERFRING_API const char *perfring_sample_bit_name(unsigned bit);
PERFRING_API const char *perfring_format_bit_name(unsigned bit);

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

/* Size in bytes of the trailer for this sample_type (0..48). */
PERFRING_API size_t perfring_sample_id_size(uint64_t sample_type);

/*
 * Write the trailer for sample_type into buf (len bytes available).
 * Returns the number of bytes written, or -ENOSPC.  Async-signal-safe.
 */
PERFRING_API int perfring_sample_id_encode(uint64_t sample_type,
					   const struct perfring_sample_id *sid,
					   void *buf, size_t len);

/*
 * Read the trailer at the end of a whole record (header included) of
 * rec_size bytes.  Fields not selected by sample_type are set to 0.
 * Returns 0, or -EBADMSG if the record is too short to hold header + trailer.
 */
PERFRING_API int perfring_sample_id_decode(uint64_t sample_type,
					   const void *rec, size_t rec_size,
					   struct perfring_sample_id *sid);

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

/*
 * Decode a whole SAMPLE record (header included) of rec_size bytes laid out
 * by attr (sample_type, read_format, sample_regs_user/intr,
 * branch_sample_type).  Every count is bounds-checked against rec_size.
 * Returns 0; -EBADMSG if a field runs past the record, bytes are left over,
 * or the header size is not rec_size (diag, if not NULL, says which field
 * and its offset within the record, in diag->offset); -EINVAL if rec is not
 * a SAMPLE or attr cannot describe a layout (sample_type bits at or above
 * PERFRING_SAMPLE_MAX, both WEIGHT bits, unknown read_format bits with READ).
 * RAW sizes whose 4 + raw_size is not a multiple of 8 are accepted (perf
 * accepts them); the encoder refuses them.  out may be NULL to only check
 * the record; it is written only on success.
 */
PERFRING_API int perfring_sample_decode(const struct perfring_attr *attr,
					const void *rec, size_t rec_size,
					struct perfring_sample *s,
					struct perfring_diag *diag);

/*
 * Encode a SAMPLE with header misc into buf (len bytes).  Every field that
 * perfring_sample_decode decodes is encoded.  Returns the record size (a
 * multiple of 8), -EMSGSIZE if it would exceed PERFRING_RECORD_MAX_SIZE,
 * -ENOSPC if len is too small, -EINVAL for a malformed field (RAW whose
 * 4 + raw_size is not a multiple of 8, both WEIGHT bits, ...).
 * Async-signal-safe.
 */
PERFRING_API int perfring_sample_encode(const struct perfring_attr *attr,
					const struct perfring_sample *s,
					uint16_t misc, void *buf, size_t len);

/* ---- LOST ---------------------------------------------------------------- */
struct perfring_lost {
	uint64_t id;
	uint64_t lost;
};

/*
 * Encode PERF_RECORD_LOST (+ trailer when attr has sample_id_all; sid NULL
 * writes zeros), misc 0.  Returns the size, -ENOSPC or -EINVAL (l NULL).
 */
PERFRING_API int perfring_lost_encode(const struct perfring_attr *attr,
				      const struct perfring_lost *l,
				      const struct perfring_sample_id *sid,
				      void *buf, size_t len);
/*
 * Decode PERF_RECORD_LOST; l and sid may be NULL.  Returns 0, -EBADMSG (too
 * short for body + trailer, or header size != rec_size) or -EINVAL (not LOST).
 */
PERFRING_API int perfring_lost_decode(const struct perfring_attr *attr,
				      const void *rec, size_t rec_size,
				      struct perfring_lost *l,
				      struct perfring_sample_id *sid);

/* ---- generic helpers ------------------------------------------------------ */
/* Trailer size a record of this type carries under attr (0 for SAMPLE). */
PERFRING_API size_t perfring_record_trailer_size(const struct perfring_attr *attr,
						 uint32_t type);

/*
 * Minimum size of a well-formed record of this type (header and fixed body,
 * without trailer; strings and arrays count as empty, so e.g. MMAP2 is 72),
 * or 8 for types without a known fixed body.
 */
PERFRING_API size_t perfring_record_min_size(uint32_t type);

/*
 * Helper for a wire struct: is a record of `size` bytes long enough to hold
 * `field` of struct type `T`?  (libperf's event_contains.)
 */
#define perfring_record_contains(size, T, field)				\
	((size_t)(size) >= offsetof(T, field) + sizeof(((T *)0)->field))

/* ---- sample id and validation (lib/validate.c) ------------------------------ */
struct perfring_registry;

/*
 * perf's id positions for a sample_type (evsel id_pos / is_pos): *id_pos is
 * the u64 word of the id in a SAMPLE body (IDENTIFIER: 0), *is_pos the
 * word counted back from the end of a sample_id_all trailer (IDENTIFIER:
 * 1); both -1 when the sample_type has neither ID nor IDENTIFIER.
 * Either pointer may be NULL.
 */
PERFRING_API void perfring_sample_id_pos(uint64_t sample_type, int *id_pos, int *is_pos);

/*
 * The sample id of a record, by perf's rule: a SAMPLE's from the start of
 * its body (ID/IDENTIFIER position), another kernel record's from the end of
 * its sample_id_all trailer.  attr: any event of the file (perf requires the
 * positions to agree).  Returns 1 and *id; 0 when the record carries none
 * (no attr, a perf-tool record, no ID/IDENTIFIER, no sample_id_all);
 * -EBADMSG when it is too short to hold it.
 */
PERFRING_API int perfring_record_id(const struct perfring_attr *attr, const void *rec,
				    size_t size, uint64_t *id);

/*
 * One validator for a whole record: header (size >= 8, size == len, type's
 * minimum body), the body size of each known type (exact where fixed),
 * terminated strings (COMM, MMAP, MMAP2, KSYMBOL, CGROUP), the
 * sample_id_all trailer against attr, SAMPLE fields incl. callchain nr and
 * branch-stack nr within the record, LOST; with reg, a plugin-claimed type
 * is decoded by its plugin.  attr may be NULL (then only what needs no
 * attr).  Returns 0, or -EBADMSG with diag: diag->offset = `offset` (the
 * caller's offset of the record), diag->msg says what and where inside
 * ("SAMPLE: callchain nr 9000 ...").  Records with type >= 64 (perf's user
 * records) are checked for framing and the known fixed sizes only; their
 * size need not be a multiple of 8 for HEADER_FEATURE, HEADER_BUILD_ID,
 * COMPRESSED and HEADER_TRACING_DATA (perf writes those with any size).
 * Types in the kernel range this library does not know are refused.
 * diag->file is left empty: the caller names the file.
 */
PERFRING_API int perfring_record_validate(const struct perfring_registry *reg,
					  const struct perfring_attr *attr,
					  const void *rec, size_t len, uint64_t offset,
					  struct perfring_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RECORDS_H */
