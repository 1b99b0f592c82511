/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring core: the freestanding record encoders and ring writer.
 *
 * Builds as C11 with -ffreestanding -nostdlib and the flags kernels use
 * (-mno-red-zone, -fno-pic, -mgeneral-regs-only): only <stddef.h>,
 * <stdint.h>, <stdbool.h> and <stdatomic.h>; no libc beyond memcpy and
 * memset, no allocation, no errno, no system calls, no thread-local storage.
 * The caller gives the ring memory and the state struct.  libperfring.so's
 * write path and encoders are these same functions (lib/core/).
 *
 * One producer per ring: one thread (or CPU) plus the signal handlers (or
 * interrupt handlers) that interrupt it on the same CPU.  A write that
 * interrupts another one nests like the Linux kernel's: its record lands
 * after the outer one's, and only the outermost commit publishes data_head.
 * No interrupt needs to be masked around a write.
 *
 * Errors are negative Linux errno values, spelled PERFRING_CORE_E*.
 * Porting a kernel: doc/porting-a-kernel.md.
 */
#ifndef PERFRING_CORE_CORE_H
#define PERFRING_CORE_CORE_H

#include <perfring/core/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Nothing by default.  libperfring.so builds the core with default
 * visibility, and exports only the encoders its plugins call.
 */
#ifndef PERFRING_CORE_API
#define PERFRING_CORE_API
#endif

#define PERFRING_CORE_EPERM	1
#define PERFRING_CORE_EINVAL	22
#define PERFRING_CORE_ENOSPC	28
#define PERFRING_CORE_EMSGSIZE	90

/* ---- encoders -------------------------------------------------------------
 * Each writes one whole record (header, body, and the sample_id_all trailer
 * when attr has PERFRING_ATTR_SAMPLE_ID_ALL) into buf (len bytes) and
 * returns its size, a multiple of 8; -ENOSPC when len is too small,
 * -EINVAL for a bad argument, -EMSGSIZE beyond PERFRING_RECORD_MAX_SIZE.
 * attr may be NULL (no trailer); sid NULL writes a zero trailer.  They
 * touch nothing but buf: safe from any context.
 */

/* Trailer size for sample_type (0..48), and the trailer itself. */
PERFRING_CORE_API size_t perfring_core_sample_id_size(uint64_t sample_type);
PERFRING_CORE_API int perfring_core_sample_id_encode(uint64_t sample_type,
				   const struct perfring_sample_id *sid,
				   void *buf, size_t len);
/* Bytes of trailer a record of type carries under attr (0 for SAMPLE). */
PERFRING_CORE_API size_t perfring_core_trailer_size(const struct perfring_attr *attr, uint32_t type);

/* SAMPLE with header misc, every field perfring_sample_decode knows. */
PERFRING_CORE_API int perfring_core_sample_encode(const struct perfring_attr *attr,
				const struct perfring_sample *s, uint16_t misc,
				void *buf, size_t len);
/*
 * The head of a SAMPLE whose attr samples TIME and RAW and nothing else
 * (a marker's): header, time and raw_size, 20 bytes; the caller writes
 * the raw_size payload bytes at buf + 20 (4 + raw_size a multiple of 8).
 * Returns the record's size, 20 + raw_size; the caller checked len.  For
 * writers that build the payload in place, on a hot path.
 */
PERFRING_CORE_API size_t perfring_core_time_raw_head(void *buf, uint16_t misc, uint64_t time,
						     uint32_t raw_size);
/* LOST, misc 0. */
PERFRING_CORE_API int perfring_core_lost_encode(const struct perfring_attr *attr,
			      const struct perfring_lost *l,
			      const struct perfring_sample_id *sid, void *buf, size_t len);
/* COMM: name cut to 15 bytes; misc gets COMM_EXEC from c->exec. */
PERFRING_CORE_API int perfring_core_comm_encode(const struct perfring_attr *attr,
			      const struct perfring_comm *c,
			      const struct perfring_sample_id *sid, void *buf, size_t len);
/* MMAP2, or MMAP with type PERFRING_RECORD_MMAP; an MMAP2 prot above 0xff
 * (PROT_* bits only) is -EINVAL: it would read back as the early layout. */
PERFRING_CORE_API int perfring_core_mmap2_encode(const struct perfring_attr *attr, uint32_t type,
			       const struct perfring_mmap2 *m,
			       const struct perfring_sample_id *sid, void *buf, size_t len);
/* FORK or EXIT (type); the trailer describes the emitting task. */
PERFRING_CORE_API int perfring_core_task_encode(const struct perfring_attr *attr, uint32_t type,
			      const struct perfring_task *t,
			      const struct perfring_sample_id *sid, void *buf, size_t len);

/* ---- the ring writer ------------------------------------------------------ */

/*
 * The producer's private state.  It may live in memory the reader sees (a
 * ring file keeps it in its descriptor, so that after a crash the
 * reservation head tells what was in flight).  64 bytes, 8-aligned.
 */
struct perfring_core_wstate {
	uint64_t head;		/* reservation head */
	uint64_t nest;		/* open reservations */
	uint64_t lost;		/* dropped, not yet reported */
	uint64_t dropped;	/* dropped in total */
	uint64_t aborted;	/* aborted reservations */
	uint64_t writer_pid;	/* last process that attached as writer */
	uint64_t reserved[2];
};

/* perfring_core_ring.flags */
#define PERFRING_CORE_OVERWRITE	0x1u	/* write backward, keep the newest */
#define PERFRING_CORE_WRITABLE	0x2u	/* writes allowed (set by init) */

/* A clock for the TIME of LOST records' trailers (may be NULL: time 0). */
typedef uint64_t (*perfring_core_clock_fn)(void *user);

/*
 * One ring as its writer sees it.  Fill it with perfring_core_ring_init;
 * the fields are the core's, not an interface (they may change with the
 * version of the core a kernel compiles in).
 */
struct perfring_core_ring {
	struct perfring_core_wstate *ws;
	struct perfring_mmap_page *hdr;
	unsigned char *data;
	uint64_t data_size, mask;
	uint64_t tail_seen;	/* last data_tail loaded (acquire) */
	uint64_t fast_lim;	/* size - 8 < fast_lim: the fast path may apply */
	uint64_t room;		/* data_size - 8 */
	uint32_t flags;		/* PERFRING_CORE_* */
	/* LOST records: event 0's attr and id, the trailer to write */
	uint32_t lost_size;	/* whole LOST record */
	const struct perfring_attr *lost_attr;
	uint64_t lost_id;
	struct perfring_sample_id lost_sid;
	int has_lost_sid;
	perfring_core_clock_fn clock;
	void *clock_user;
};

/*
 * Set c up for a ring whose control page is hdr and whose data area is
 * data (data_size bytes, a power of two >= 8).  ws: the producer state
 * (its head should equal data_head; perfring_core_ring_reset does that).
 * flags: PERFRING_CORE_OVERWRITE or 0.  Writes nothing to the ring.
 * Returns 0 or -EINVAL.
 */
PERFRING_CORE_API int perfring_core_ring_init(struct perfring_core_ring *c, struct perfring_mmap_page *hdr,
			    void *data, uint64_t data_size,
			    struct perfring_core_wstate *ws, uint32_t flags);
/*
 * LOST records: attr (borrowed; NULL, as after init: LOST records without
 * a trailer), the id they carry, the trailer (pid/tid/cpu; NULL: only id
 * and identifier, set to id) and the clock for its TIME (NULL: 0).
 * Call it before the first write, not from a handler.
 */
PERFRING_CORE_API void perfring_core_ring_set_lost(struct perfring_core_ring *c,
				 const struct perfring_attr *attr, uint64_t id,
				 const struct perfring_sample_id *sid,
				 perfring_core_clock_fn clock, void *user);

/*
 * A fresh ring: zero the control page and the producer state (ws may be
 * NULL), then set the page's data_offset (bytes from the control page to
 * the data area) and data_size.
 */
PERFRING_CORE_API void perfring_core_page_init(struct perfring_mmap_page *hdr, uint64_t data_offset,
			     uint64_t data_size, struct perfring_core_wstate *ws);

/*
 * Reserve size bytes (a multiple of 8, 8..65528) for one record.
 * 0; -EINVAL (size), -EMSGSIZE (larger than the ring can ever hold),
 * -ENOSPC (full: dropped and counted, a LOST record precedes the next one
 * that fits), -EPERM (not writable).
 */
PERFRING_CORE_API int perfring_core_reserve(struct perfring_core_ring *c, size_t size, struct perfring_wr *w);
/* Copy len bytes at offset off of the reservation, wrapping as needed. */
PERFRING_CORE_API void perfring_core_copy(struct perfring_core_ring *c, const struct perfring_wr *w,
			size_t off, const void *src, size_t len);
/* The reservation's bytes if they do not wrap, else NULL. */
PERFRING_CORE_API void *perfring_core_contig(struct perfring_core_ring *c, const struct perfring_wr *w);
/* Finish; the outermost commit publishes data_head (release). */
PERFRING_CORE_API void perfring_core_commit(struct perfring_core_ring *c, const struct perfring_wr *w);
/* Give up: rolled back if nothing follows, else a pad record. */
PERFRING_CORE_API void perfring_core_abort(struct perfring_core_ring *c, const struct perfring_wr *w);
/* reserve + copy + commit of a whole record (size from its header). */
PERFRING_CORE_API int perfring_core_write(struct perfring_core_ring *c, const void *rec);

/* ---- a ring file image ------------------------------------------------------
 * The self-describing layout of libperfring's ring files (and memfd rings):
 * a descriptor (magic, format, sizes, clock id, the events' attrs, ids and
 * names, the producer state) in whole pages, the control page, the data
 * area.  A kernel that lays it out in memory the host can map (a shared
 * memory device, guest RAM backed by a file) is read by perfring_ring_open
 * (at offset 0 of a file) or perfring_ring_open_at, and so by every tool.
 */
#define PERFRING_CORE_FILE_MAGIC "PRFRING"
#define PERFRING_CORE_FILE_FORMAT 1u
#define PERFRING_CORE_BYTE_ORDER 0x01020304u

/* The descriptor's fixed part (256 bytes), then its event entries. */
struct perfring_core_file_desc {
	char magic[8];
	uint32_t format;
	uint32_t byte_order;
	uint32_t page_size;
	uint32_t flags;			/* PERFRING_CORE_OVERWRITE */
	uint64_t desc_size;
	uint64_t header_offset;
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t file_size;
	int32_t clockid;
	uint32_t nr_events;
	uint64_t events_offset;
	uint64_t events_size;
	uint8_t reserved[40];
	struct perfring_core_wstate ws;
	uint8_t reserved2[64];
};

/* One event entry: this, then attr_size bytes of attr, then nr_ids u64. */
struct perfring_core_file_event {
	uint32_t entry_size;
	uint32_t attr_size;
	uint32_t nr_ids;
	uint32_t reserved;
	char name[64];			/* NUL-terminated */
};

/* What a ring file describes of one event. */
struct perfring_core_event {
	const struct perfring_attr *attr;	/* attr->size bytes, 64..136 */
	const uint64_t *ids;
	uint32_t nr_ids;
	const char *name;			/* may be NULL; cut to 63 bytes */
};

/* Bytes of descriptor (whole pages) for these events. */
PERFRING_CORE_API uint64_t perfring_core_file_desc_size(uint32_t page_size,
				      const struct perfring_core_event *ev, uint32_t nr);
/*
 * Lay a ring file out in mem (len bytes, 8-aligned): descriptor, control
 * page, data_size bytes of data area (a power of two, at least one page).
 * clockid: the clock TIME uses, as Linux numbers it (1 CLOCK_MONOTONIC).
 * c (may be NULL) is then set up to write it, with LOST records for event 0.
 * Returns the file's size, or -EINVAL (sizes, attrs), -ENOSPC (len).
 */
PERFRING_CORE_API int64_t perfring_core_file_init(void *mem, uint64_t len, uint32_t page_size,
				uint64_t data_size, uint32_t flags, int32_t clockid,
				const struct perfring_core_event *ev, uint32_t nr,
				struct perfring_core_ring *c);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_CORE_CORE_H */
