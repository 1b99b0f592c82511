/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Side-band records: COMM, MMAP / MMAP2, FORK / EXIT.
 *
 * Two views of each record:
 *  - the wire layout (struct perfring_*_event), a plain byte format like
 *    libperf's <perf/event.h>, header included;
 *  - the typed struct (struct perfring_comm, perfring_mmap2, perfring_task)
 *    that the comm, mmap2 and task plugins encode from and decode into.
 *    Encode and decode through the plugin registry (<perfring/registry.h>):
 *    perfring_registry_find() then perfring_plugin_encode()/_decode().
 *
 * Every record also carries the sample_id_all trailer when its attr has
 * PERFRING_ATTR_SAMPLE_ID_ALL; the header size includes it.
 */
#ifndef PERFRING_SIDEBAND_H
#define PERFRING_SIDEBAND_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/sideband.h>"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * The two layouts of an MMAP2 record.  CURRENT (Linux 3.16 and later):
 * maj..ino_generation, then prot and flags (u32), the filename at byte 72.
 * EARLY (Linux 3.12 to 3.15, and 3.10 enterprise kernels with MMAP2
 * backported, RHEL 7): no prot and flags, the filename at byte 64.
 */
enum perfring_mmap2_layout {
	PERFRING_MMAP2_LAYOUT_CURRENT = 0,
	PERFRING_MMAP2_LAYOUT_EARLY = 1,
};

/*
 * Which layout an MMAP2 record of `size` bytes, `trailer` of them its
 * sample_id_all trailer (perfring_record_trailer_size), has: EARLY when
 * the filename at byte 64, NUL-terminated and padded to 8, ends exactly
 * where the trailer starts, and either the filename at byte 72 does not,
 * or the u32 at byte 64 (the current layout's prot, at most 0xff: PROT_*)
 * is above 0xff (the first bytes of a filename).  CURRENT otherwise, also
 * for records that are not MMAP2 or have MMAP_BUILD_ID (5.12 and later).
 */
PERFRING_API enum perfring_mmap2_layout perfring_mmap2_layout(const void *rec, size_t size,
							      size_t trailer);

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

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_SIDEBAND_H */
