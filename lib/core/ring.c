/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring core: the ring writer (reserve / copy / commit / abort / write,
 * nesting, LOST on a full ring, overwrite mode) and the ring file layout.
 * libperfring.so's perfring_ring_* write functions are these (lib/ring/ring.c
 * hands them its struct perfring_core_ring); a kernel calls them directly.
 *
 * ---- Who writes what ---------------------------------------------------
 *
 *   data_head     producer only (outermost commit), release store
 *   data_tail     consumer only, release store
 *   ws->head      producer only: the reservation head, always >= data_head
 *                 (<= in overwrite mode, where positions decrease)
 *   ws->nest      producer only: nesting depth of open reservations
 *   ws->lost      producer only: records dropped, not yet reported by LOST
 *   ws->dropped, ws->aborted   producer only, totals
 *
 * The producer is one thread (or CPU) plus the signal (interrupt) handlers
 * that interrupt it.  A handler runs to completion before the interrupted
 * code resumes, so producer-private words only need to be single-copy
 * atomic (relaxed atomics) with compiler ordering (pr_signal_fence) at the
 * points where the interrupted code must not be reordered around an
 * interruption.
 *
 * ---- Barriers (the kernel's A/B/C/D, kernel/events/ring_buffer.c) ------
 *
 *   (A) reserve: acquire load of data_tail.  Pairs with (D): the consumer's
 *       release store of data_tail happens after it finished reading the
 *       bytes, so our writes into that space cannot be seen by it early.
 *   (B) commit: release store of data_head.  Pairs with (C): every byte of
 *       the records below the new head is visible before the head.
 *   (C) reader: acquire load of data_head, then read the records.
 *   (D) reader: release store of data_tail after reading the records.
 *
 * ---- Invariants ----------------------------------------------------------
 *
 *  - data_size is a power of two; positions are free-running u64 byte
 *    counters, masked only to index the data area.
 *  - normal mode: 0 <= head - tail <= data_size - 8 (the kernel's
 *    CIRC_SPACE keeps one byte free; with 8-byte records that is 8 bytes).
 *  - every record is 8-byte aligned with 8 <= size <= 65528, so a record
 *    header never straddles the end of the data area (bodies may).
 *  - data_head never decreases (normal; never increases: overwrite) and
 *    never covers a byte that is not committed: only the outermost commit
 *    publishes, after all nested reservations inside it have finished.
 *
 * ---- Nesting (the kernel's perf_output_put_handle and its 2019 fix) ------
 *
 *  reserve:  nest++; signal fence; then read ws->head and claim space with a
 *            CAS loop.  A handler that interrupts between our read and our
 *            CAS claims its space first and makes the CAS fail, so we retry
 *            above it; a handler that interrupts after our CAS lands after
 *            our record.  Every writer gets a disjoint range.
 *  commit:   if nest > 1: nest--, done.  Else: h = ws->head; release-store
 *            data_head = h; fence; nest = 0; fence; if ws->head != h (a
 *            handler reserved and committed after our read) nest = 1 and
 *            repeat.  Publishing before dropping nest means a handler that
 *            interrupts before nest = 0 cannot publish, and one that
 *            interrupts after it publishes a larger head that we then
 *            re-read, so data_head never goes backwards.
 *  abort:    CAS ws->head from the record's end back to its start (nothing
 *            was reserved after it); else the space becomes a header-only
 *            pad record (type PERFRING_RECORD_PAD) that readers skip.  In
 *            overwrite mode the bytes of the reservation may already have
 *            clobbered the oldest records, so abort always pads there.
 *
 * ---- Which instruction gives which guarantee ----------------------------
 *
 *  barrier.h: the claim is an unlocked cmpxchg on x86-64 (a signal or an
 *  interrupt comes before or after one instruction), C11 relaxed atomics
 *  elsewhere (LSE cas or an ldxr/stxr loop, which an exception return
 *  makes retry); release/acquire for data_head/data_tail (plain movs on
 *  x86's TSO, stlr/ldar on aarch64).  doc/porting-a-kernel.md has the
 *  table per architecture.
 *
 * ---- Overwrite mode (write_backward) -------------------------------------
 *
 *  The head decreases by the record size and the record is written at the
 *  new, lower head; data_head is that raw decreasing u64.  No tail check, no
 *  LOST.  The newest records are read from data_head upward.  The region
 *  [ws->head, data_head) is in flight (reserved, not committed) and it
 *  aliases the oldest data_size bytes above data_head, so a reader stops at
 *  ws->head + data_size.
 */
#include "internal.h"
#include "barrier.h"

_Static_assert(offsetof(struct perfring_mmap_page, data_head) == 1024, "data_head");
_Static_assert(offsetof(struct perfring_mmap_page, data_tail) == 1032, "data_tail");
_Static_assert(offsetof(struct perfring_mmap_page, data_offset) == 1040, "data_offset");
_Static_assert(offsetof(struct perfring_mmap_page, data_size) == 1048, "data_size");
_Static_assert(offsetof(struct perfring_mmap_page, size) == 72, "size");
_Static_assert(sizeof(struct perfring_mmap_page) == 1088, "mmap page");
_Static_assert(sizeof(struct perfring_core_wstate) == 64, "wstate");
_Static_assert(offsetof(struct perfring_core_file_desc, format) == 8, "desc format");
_Static_assert(offsetof(struct perfring_core_file_desc, page_size) == 16, "desc page_size");
_Static_assert(offsetof(struct perfring_core_file_desc, desc_size) == 24, "desc desc_size");
_Static_assert(offsetof(struct perfring_core_file_desc, data_size) == 48, "desc data_size");
_Static_assert(offsetof(struct perfring_core_file_desc, clockid) == 64, "desc clockid");
_Static_assert(offsetof(struct perfring_core_file_desc, events_offset) == 72, "desc events");
_Static_assert(offsetof(struct perfring_core_file_desc, ws) == 128, "desc ws");
_Static_assert(sizeof(struct perfring_core_file_desc) == 256, "desc size");
_Static_assert(sizeof(struct perfring_core_file_event) == 80, "desc event");

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define INLINE static inline __attribute__((always_inline))
#define NOINLINE static __attribute__((noinline))

/* ---- setup ----------------------------------------------------------------- */

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int perfring_core_ring_init(struct perfring_core_ring *c, struct perfring_mmap_page *hdr,
			    void *data, uint64_t data_size,
			    struct perfring_core_wstate *ws, uint32_t flags)
{
	uint64_t max;

	if (!c || !hdr || !data || !ws || !is_pow2(data_size) || data_size < 8 ||
	    (flags & ~(PERFRING_CORE_OVERWRITE | PERFRING_CORE_WRITABLE)))
		return -PERFRING_CORE_EINVAL;
	__builtin_memset(c, 0, sizeof(*c));
	c->ws = ws;
	c->hdr = hdr;
	c->data = data;
	c->data_size = data_size;
	c->mask = data_size - 1;
	c->flags = flags | PERFRING_CORE_WRITABLE;
	c->tail_seen = pr_read_once(&hdr->data_tail);
	max = data_size - 8 < PERFRING_RECORD_MAX_SIZE ? data_size - 8 : PERFRING_RECORD_MAX_SIZE;
	/* the fast path of perfring_core_write: normal mode only */
	c->fast_lim = (flags & PERFRING_CORE_OVERWRITE) || max < 8 ? 0 : max - 8 + 1;
	c->room = data_size - 8;
	c->lost_size = PRC_LOST_BODY;	/* LOST without a trailer until set_lost */
	return 0;
}

void perfring_core_ring_set_lost(struct perfring_core_ring *c, const struct perfring_attr *attr,
				 uint64_t id, const struct perfring_sample_id *sid,
				 perfring_core_clock_fn clock, void *user)
{
	c->lost_attr = attr;
	c->lost_id = id;
	c->lost_size = PRC_LOST_BODY +
		       (uint32_t)perfring_core_trailer_size(attr, PERFRING_RECORD_LOST);
	c->clock = clock;
	c->clock_user = user;
	if (sid) {
		c->lost_sid = *sid;
		c->has_lost_sid = 1;
	} else {
		c->has_lost_sid = 0;
	}
}

void perfring_core_page_init(struct perfring_mmap_page *hdr, uint64_t data_offset,
			     uint64_t data_size, struct perfring_core_wstate *ws)
{
	__builtin_memset(hdr, 0, sizeof(*hdr));
	if (ws)
		__builtin_memset(ws, 0, sizeof(*ws));
	hdr->data_offset = data_offset;
	hdr->data_size = data_size;
}

/* ---- copying ---------------------------------------------------------------- */

/* Copy len bytes to ring position pos, wrapping at the end of the data area. */
INLINE void ring_put(struct perfring_core_ring *c, uint64_t pos, const void *src, size_t len)
{
	uint64_t o = pos & c->mask;
	size_t first = len;

	/*
	 * Small records that do not wrap (most of them): copy 16 bytes at a
	 * time inline rather than calling memcpy (a third of the write cost
	 * for a 48-byte record in bench/ring-bench).  len is 8-aligned here.
	 */
	if (len <= 256 && !(len & 7) && o + len <= c->data_size) {
		prc_copy_small(c->data + o, src, len);
		return;
	}
	if (o + len > c->data_size)
		first = (size_t)(c->data_size - o);
	__builtin_memcpy(c->data + o, src, first);
	if (first < len)
		__builtin_memcpy(c->data, (const unsigned char *)src + first, len - first);
}

static void put_pad(struct perfring_core_ring *c, uint64_t pos, uint32_t size)
{
	struct perfring_event_header ph = { PERFRING_RECORD_PAD, 0, (uint16_t)size };

	ring_put(c, pos, &ph, sizeof(ph));
}

/*
 * The kernel's perf_output_put_handle: only the outermost level publishes,
 * before dropping the nest count, then re-checks the head.
 */
INLINE void put_handle(struct perfring_core_ring *c)
{
	struct perfring_core_wstate *ws = c->ws;
	uint64_t nest = pr_read_once(&ws->nest);
	uint64_t head;

	if (nest > 1) {
		pr_write_once(&ws->nest, nest - 1);
		return;
	}
again:
	head = pr_read_once(&ws->head);
	/*
	 * (B) Pairs with the reader's acquire load of data_head (C): the bytes
	 * of every record below head are visible before head is.
	 */
	pr_store_release(&c->hdr->data_head, head);
	pr_signal_fence();
	pr_write_once(&ws->nest, 0);
	pr_signal_fence();
	if (pr_read_once(&ws->head) != head) {
		pr_write_once(&ws->nest, 1);
		pr_signal_fence();
		goto again;
	}
}

/* The pending LOST record at pos (lost_size bytes), with its trailer. */
static void put_lost(struct perfring_core_ring *c, uint64_t pos, uint64_t count)
{
	unsigned char rec[PRC_LOST_BODY + 48];
	struct perfring_lost l = { c->lost_id, count };
	struct perfring_sample_id sid;
	int n;

	__builtin_memset(&sid, 0, sizeof(sid));
	if (c->has_lost_sid)
		sid = c->lost_sid;
	else
		sid.id = sid.identifier = c->lost_id;
	if (c->clock && c->lost_attr && (c->lost_attr->sample_type & PERFRING_SAMPLE_TIME))
		sid.time = c->clock(c->clock_user);
	n = perfring_core_lost_encode(c->lost_attr, &l, &sid, rec, sizeof(rec));
	if (n != (int)c->lost_size) {
		/* cannot happen: lost_size was computed from the same attr */
		put_pad(c, pos, c->lost_size);
		return;
	}
	ring_put(c, pos, rec, c->lost_size);
}

/* ---- reserve / copy / commit / abort ------------------------------------------ */

INLINE int ring_reserve(struct perfring_core_ring *c, size_t size, struct perfring_wr *w)
{
	struct perfring_core_wstate *ws;
	uint64_t old, new, tail, need, lost_sz;

	if (!c || !w)
		return -PERFRING_CORE_EINVAL;
	if (!(c->flags & PERFRING_CORE_WRITABLE))
		return -PERFRING_CORE_EPERM;
	if (size < 8 || (size & 7))
		return -PERFRING_CORE_EINVAL;
	if (size > PERFRING_RECORD_MAX_SIZE || size > c->data_size - 8)
		return -PERFRING_CORE_EMSGSIZE;
	ws = c->ws;

	pr_write_once(&ws->nest, pr_read_once(&ws->nest) + 1);
	pr_signal_fence();	/* the head is read only after nest is raised */

	if (c->flags & PERFRING_CORE_OVERWRITE) {
		old = pr_read_once(&ws->head);
		do {
			new = old - size;
		} while (!pr_local_cas(&ws->head, &old, new));
		/*
		 * The claim before the bytes: pairs with the acquire fence of
		 * a reader that copies the window and then re-reads ws->head.
		 */
		pr_fence_release();
		w->pos = new;
		w->size = (uint32_t)size;
		w->lost_size = 0;
		return 0;
	}

	/*
	 * A pending LOST record goes in front of this one, unless the two
	 * could never fit together: then a later, smaller record carries it.
	 */
	lost_sz = pr_read_once(&ws->lost) &&
			  size + c->lost_size <= c->data_size - 8 ? c->lost_size : 0;
	need = size + lost_sz;
	old = pr_read_once(&ws->head);
	tail = pr_read_once(&c->tail_seen);
	for (;;) {
		uint64_t fresh;

		if (old - tail <= c->data_size - 8 && need <= c->data_size - 8 - (old - tail)) {
			new = old + need;
			if (pr_local_cas(&ws->head, &old, new))
				break;
			continue;	/* a nested writer moved the head */
		}
		/*
		 * (A) Pairs with the reader's release store of data_tail (D).
		 * A tail loaded earlier (tail_seen) was loaded the same way,
		 * so the room it showed is safe to write.
		 */
		fresh = pr_load_acquire(&c->hdr->data_tail);
		if (fresh == tail) {
			/* Full (or a garbage tail): drop and count. */
			pr_local_add(&ws->lost, 1);
			pr_local_add(&ws->dropped, 1);
			put_handle(c);
			return -PERFRING_CORE_ENOSPC;
		}
		tail = fresh;
		pr_write_once(&c->tail_seen, fresh);
	}

	if (lost_sz) {
		uint64_t n = pr_local_xchg(&ws->lost, 0);

		if (n)
			put_lost(c, old, n);
		else	/* an interrupting writer reported it already */
			put_pad(c, old, (uint32_t)lost_sz);
	}
	w->pos = old + lost_sz;
	w->size = (uint32_t)size;
	w->lost_size = (uint32_t)lost_sz;
	return 0;
}

int perfring_core_reserve(struct perfring_core_ring *c, size_t size, struct perfring_wr *w)
{
	return ring_reserve(c, size, w);
}

void perfring_core_copy(struct perfring_core_ring *c, const struct perfring_wr *w, size_t off,
			const void *src, size_t len)
{
	if (!c || !w || off > w->size || len > w->size - off)
		return;
	ring_put(c, w->pos + off, src, len);
}

void *perfring_core_contig(struct perfring_core_ring *c, const struct perfring_wr *w)
{
	uint64_t o;

	if (!c || !w)
		return (void *)0;
	o = w->pos & c->mask;
	if (o + w->size > c->data_size)
		return (void *)0;
	return c->data + o;
}

void perfring_core_commit(struct perfring_core_ring *c, const struct perfring_wr *w)
{
	if (!c || !w)
		return;
	put_handle(c);
}

void perfring_core_abort(struct perfring_core_ring *c, const struct perfring_wr *w)
{
	uint64_t expect;

	if (!c || !w)
		return;
	if (!(c->flags & PERFRING_CORE_OVERWRITE)) {
		expect = w->pos + w->size;
		if (!pr_local_cas(&c->ws->head, &expect, w->pos))
			put_pad(c, w->pos, w->size);
	} else {
		put_pad(c, w->pos, w->size);
	}
	pr_local_add(&c->ws->aborted, 1);
	put_handle(c);
}

/* ---- write ---------------------------------------------------------------------- */

/* The whole write through reserve/commit: every case the fast paths leave. */
NOINLINE int ring_write_slow(struct perfring_core_ring *c, const void *rec, uint16_t size)
{
	struct perfring_wr w;
	int err = ring_reserve(c, size, &w);

	if (err)
		return err;
	ring_put(c, w.pos, rec, size);
	put_handle(c);
	return 0;
}

/*
 * The commit of a fast path: put_handle with the nest value known (a
 * handler that interrupted us raised and lowered it again, so it is
 * nest + 1 here).
 */
INLINE void fast_commit(struct perfring_core_ring *c, struct perfring_core_wstate *ws,
			uint64_t nest)
{
	uint64_t head;

	if (UNLIKELY(nest)) {
		pr_write_once(&ws->nest, nest);
		return;
	}
	for (;;) {
		head = pr_read_once(&ws->head);
		pr_store_release(&c->hdr->data_head, head);	/* (B), as in put_handle */
		pr_signal_fence();
		pr_write_once(&ws->nest, 0);
		pr_signal_fence();
		if (LIKELY(pr_read_once(&ws->head) == head))
			return;
		pr_write_once(&ws->nest, 1);
		pr_signal_fence();
	}
}

/* The fast path's copy and commit for a record it does not copy inline. */
NOINLINE int fast_put_commit(struct perfring_core_ring *c, uint64_t pos, const void *rec,
			     size_t size, uint64_t nest)
{
	ring_put(c, pos, rec, size);
	pr_signal_fence();
	fast_commit(c, c->ws, nest);
	return 0;
}

/* A handler moved the head before our claim: close our level, start over. */
NOINLINE int fast_cas_failed(struct perfring_core_ring *c, const void *rec)
{
	put_handle(c);
	return ring_write_slow(c, rec, prc_get16((const unsigned char *)rec + 6));
}

/*
 * The fast path asks for the line PREFETCH_AHEAD bytes past the record it
 * writes.  A ring larger than the caches was last written a lap ago, so
 * each new line would otherwise be fetched from memory only when the
 * first store to it stalls; asked for early, the fetch overlaps the
 * records in between.  A hint only (no fault, no ordering, no store).
 * Measured in bench/ring-bench, 48-byte records into a 64 MiB ring: on
 * an Intel CPU 6.4 -> 5.1 ns per record at 1024 bytes ahead (256 gave
 * less, 4096 the same); on an AMD EPYC 4096 ahead took the median of
 * ring-write-fork-vs-naive from 1.12 to 1.04 (24 runs each), and no
 * prefetch at all read 1.25.
 */
#define PREFETCH_AHEAD 4096

/*
 * Overwrite mode (a kernel's always-on flight recorder): claim downward,
 * copy, commit.  No tail and no LOST, so the only slow cases are a size
 * the fast path does not copy inline and a ring not open for writing.
 */
NOINLINE int ow_write(struct perfring_core_ring *c, const void *rec, uint16_t size)
{
	struct perfring_core_wstate *ws = c->ws;
	uint64_t old, nest, o;

	if (UNLIKELY(!(c->flags & PERFRING_CORE_WRITABLE) || size < 8 || (size & 7) ||
		     size > 64 || size > c->data_size - 8))
		return ring_write_slow(c, rec, size);
	nest = pr_read_once(&ws->nest);
	pr_write_once(&ws->nest, nest + 1);
	pr_signal_fence();	/* nest is raised before the claim */
	old = pr_read_once(&ws->head);
	while (UNLIKELY(!pr_local_cas(&ws->head, &old, old - size)))
		;
	pr_fence_release();	/* the claim before the bytes, as in ring_reserve */
	o = (old - size) & c->mask;
	/* backward: the line PREFETCH_AHEAD bytes below, as the normal path asks above */
	__builtin_prefetch(c->data + ((o - PREFETCH_AHEAD) & c->mask), 1, 3);
	if (UNLIKELY(o + size > c->data_size))
		return fast_put_commit(c, old - size, rec, size, nest);
	prc_copy_upto64(c->data + o, rec, size);
	pr_signal_fence();
	fast_commit(c, ws, nest);
	return 0;
}


/*
 * Fast path: a normal-mode writable ring, no LOST record pending, room by
 * the last tail seen, and no handler moving the head between our look at
 * it and our claim.  The room check before nest is raised only selects
 * the path: the claim itself is the CAS after it (a handler that ran in
 * between makes the CAS fail).  A failed CAS still closes the nesting
 * level with put_handle (it publishes what such a handler committed)
 * before the slow path starts over.
 *
 * Cost per 48-byte record: the claim is one unlocked cmpxchg (barrier.h),
 * the commit plain stores, the copy three 16-byte moves.  Everything the
 * other cases need (wrap, LOST, large records, the reload of data_tail) is
 * a tail call out of line, so that no value is live across a call and the
 * fast path saves no callee-saved registers.
 */
int perfring_core_write(struct perfring_core_ring *c, const void *rec)
{
	struct perfring_core_wstate *ws;
	uint64_t old, nest, o;
	uint16_t size;

	if (UNLIKELY(!rec || !c))
		return -PERFRING_CORE_EINVAL;
	size = prc_get16((const unsigned char *)rec + 6);
	ws = c->ws;
	old = pr_read_once(&ws->head);
	if (UNLIKELY((uint64_t)size - 8 >= c->fast_lim || (size & 7) ||
		     pr_read_once(&ws->lost) ||
		     old - pr_read_once(&c->tail_seen) > c->room - size)) {
		if (c->flags & PERFRING_CORE_OVERWRITE)
			return ow_write(c, rec, size);
		return ring_write_slow(c, rec, size);
	}
	nest = pr_read_once(&ws->nest);
	pr_write_once(&ws->nest, nest + 1);
	pr_signal_fence();	/* nest is raised before the claim */
	if (UNLIKELY(!pr_local_cas(&ws->head, &old, old + size)))
		return fast_cas_failed(c, rec);
	o = old & c->mask;
	__builtin_prefetch(c->data + ((o + PREFETCH_AHEAD) & c->mask), 1, 3);
	if (UNLIKELY(size > 64 || o + size > c->data_size))
		return fast_put_commit(c, old, rec, size, nest);
	prc_copy_upto64(c->data + o, rec, size);
	pr_signal_fence();	/* the record's bytes before the commit */
	fast_commit(c, ws, nest);
	return 0;
}

/* ---- a ring file image ---------------------------------------------------------- */

static uint64_t events_bytes(const struct perfring_core_event *ev, uint32_t nr)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < nr; i++)
		n += sizeof(struct perfring_core_file_event) + ev[i].attr->size + 8ull * ev[i].nr_ids;
	return n;
}

uint64_t perfring_core_file_desc_size(uint32_t page_size, const struct perfring_core_event *ev,
				      uint32_t nr)
{
	uint64_t need = sizeof(struct perfring_core_file_desc) + events_bytes(ev, nr);

	return (need + page_size - 1) / page_size * page_size;
}

int64_t perfring_core_file_init(void *mem, uint64_t len, uint32_t page_size,
				uint64_t data_size, uint32_t flags, int32_t clockid,
				const struct perfring_core_event *ev, uint32_t nr,
				struct perfring_core_ring *c)
{
	struct perfring_core_file_desc d;
	unsigned char *base = mem, *p;
	uint64_t desc_size, total;
	uint32_t i;

	if (!mem || ((uintptr_t)mem & 7) || page_size < 4096 || !is_pow2(page_size) ||
	    !is_pow2(data_size) || data_size < page_size || (flags & ~PERFRING_CORE_OVERWRITE) ||
	    (nr && !ev))
		return -PERFRING_CORE_EINVAL;
	for (i = 0; i < nr; i++)
		if (!ev[i].attr || ev[i].attr->size < PERFRING_ATTR_SIZE_VER0 ||
		    ev[i].attr->size > PERFRING_ATTR_SIZE_VER8 || ev[i].attr->size % 8 ||
		    (ev[i].nr_ids && !ev[i].ids))
			return -PERFRING_CORE_EINVAL;
	desc_size = perfring_core_file_desc_size(page_size, ev, nr);
	total = desc_size + page_size + data_size;
	if (total > len)
		return -PERFRING_CORE_ENOSPC;

	__builtin_memset(base, 0, desc_size + page_size);
	__builtin_memset(&d, 0, sizeof(d));
	__builtin_memcpy(d.magic, PERFRING_CORE_FILE_MAGIC, 8);
	d.format = PERFRING_CORE_FILE_FORMAT;
	d.byte_order = PERFRING_CORE_BYTE_ORDER;
	d.page_size = page_size;
	d.flags = flags;
	d.desc_size = desc_size;
	d.header_offset = desc_size;
	d.data_offset = desc_size + page_size;
	d.data_size = data_size;
	d.file_size = total;
	d.clockid = clockid;
	d.nr_events = nr;
	d.events_offset = sizeof(d);
	d.events_size = events_bytes(ev, nr);
	__builtin_memcpy(base, &d, sizeof(d));
	p = base + sizeof(d);
	for (i = 0; i < nr; i++) {
		struct perfring_core_file_event de;
		uint32_t asz = ev[i].attr->size;

		__builtin_memset(&de, 0, sizeof(de));
		de.attr_size = asz;
		de.nr_ids = ev[i].nr_ids;
		de.entry_size = (uint32_t)(sizeof(de) + asz + 8ull * ev[i].nr_ids);
		if (ev[i].name)
			__builtin_memcpy(de.name, ev[i].name,
					 prc_strnlen(ev[i].name, sizeof(de.name) - 1));
		__builtin_memcpy(p, &de, sizeof(de));
		p += sizeof(de);
		__builtin_memcpy(p, ev[i].attr, asz);
		p += asz;
		if (ev[i].nr_ids)
			__builtin_memcpy(p, ev[i].ids, 8ull * ev[i].nr_ids);
		p += 8ull * ev[i].nr_ids;
	}
	{
		struct perfring_core_file_desc *dp = (struct perfring_core_file_desc *)(void *)base;
		struct perfring_mmap_page *hdr = (struct perfring_mmap_page *)(void *)(base + desc_size);

		perfring_core_page_init(hdr, page_size, data_size, &dp->ws);
		if (c) {
			perfring_core_ring_init(c, hdr, base + desc_size + page_size, data_size,
						&dp->ws, flags);
			if (nr)
				perfring_core_ring_set_lost(c, ev[0].attr,
							    ev[0].nr_ids ? ev[0].ids[0] : 0,
							    (void *)0, (perfring_core_clock_fn)0,
							    (void *)0);
		}
	}
	return (int64_t)total;
}
