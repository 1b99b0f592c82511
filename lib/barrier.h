/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The only place that spells memory orders.  Ring code uses these named
 * operations on the shared words of the ring (data_head, data_tail, the
 * producer state), implemented on <stdatomic.h>.
 *
 * The shared words live in memory that may be mapped by other processes (and
 * by the kernel for perf_event rings), declared as plain uint64_t in the
 * public wire structs.  They are accessed through _Atomic-qualified pointers
 * of the same size and alignment; static assertions below make sure the
 * atomic types are lock-free (required for cross-process use and for use in
 * signal handlers).
 */
#ifndef PERFRING_BARRIER_H
#define PERFRING_BARRIER_H

#include <stdatomic.h>
#include <stdint.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");
_Static_assert(sizeof(_Atomic uint64_t) == sizeof(uint64_t), "atomic u64 layout");
_Static_assert(_Alignof(_Atomic uint64_t) == _Alignof(uint64_t), "atomic u64 align");

#define PR_A64(p) ((_Atomic uint64_t *)(void *)(p))
#define PR_A32(p) ((_Atomic uint32_t *)(void *)(p))

/* Acquire load: later reads are not hoisted above it. */
static inline uint64_t pr_load_acquire(const uint64_t *p)
{
	return atomic_load_explicit(PR_A64(p), memory_order_acquire);
}

/* Release store: earlier writes are visible before the value. */
static inline void pr_store_release(uint64_t *p, uint64_t v)
{
	atomic_store_explicit(PR_A64(p), v, memory_order_release);
}

/* Relaxed "read once" / "write once": atomic, no ordering. */
static inline uint64_t pr_read_once(const uint64_t *p)
{
	return atomic_load_explicit(PR_A64(p), memory_order_relaxed);
}

static inline void pr_write_once(uint64_t *p, uint64_t v)
{
	atomic_store_explicit(PR_A64(p), v, memory_order_relaxed);
}

static inline uint32_t pr_read_once32(const uint32_t *p)
{
	return atomic_load_explicit(PR_A32(p), memory_order_relaxed);
}

static inline void pr_write_once32(uint32_t *p, uint32_t v)
{
	atomic_store_explicit(PR_A32(p), v, memory_order_relaxed);
}

/* Compare-and-swap used to claim ring space against interrupting writers. */
static inline int pr_cas(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return atomic_compare_exchange_strong_explicit(PR_A64(p), expected, desired,
						       memory_order_relaxed,
						       memory_order_relaxed);
}

static inline uint64_t pr_xchg(uint64_t *p, uint64_t v)
{
	return atomic_exchange_explicit(PR_A64(p), v, memory_order_relaxed);
}

static inline uint64_t pr_fetch_add(uint64_t *p, uint64_t v)
{
	return atomic_fetch_add_explicit(PR_A64(p), v, memory_order_relaxed);
}

/*
 * Fences for the seqlock-like pattern of overwrite rings: the producer
 * orders its claim of space before the bytes it writes there (release), the
 * reader orders its copy of the bytes before re-reading the claim (acquire).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wtsan"	/* TSan does not model fences */
#endif
static inline void pr_fence_release(void)
{
	atomic_thread_fence(memory_order_release);
}

static inline void pr_fence_acquire(void)
{
	atomic_thread_fence(memory_order_acquire);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/*
 * Compiler-only barrier: orders this thread's accesses against a signal
 * handler that interrupts it (same-thread nesting needs no CPU fence).
 */
static inline void pr_signal_fence(void)
{
	atomic_signal_fence(memory_order_seq_cst);
}

#endif
