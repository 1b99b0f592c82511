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

/*
 * ---- Producer-local read-modify-write ----------------------------------
 *
 * The producer state (reservation head, nest, lost, dropped, aborted) is
 * written by one thread and the signal handlers that interrupt it, never by
 * another thread or process (the single-writer rule of the ring).  A signal
 * is delivered between two instructions, and a handler runs to completion
 * before the interrupted code resumes.  So a read-modify-write only has to
 * be indivisible with respect to an interruption on the same CPU, as the
 * kernel's local_t: it needs no bus lock and no CPU fence.  Other threads
 * and processes only read these words (stats, an overwrite-mode reader),
 * and each store is one aligned 8-byte store, which they see whole.
 *
 *   x86-64   pr_local_cas is one "cmpxchgq" without the lock prefix, and
 *            pr_local_add one "addq" to memory.  One instruction cannot be
 *            split by a signal; without "lock" its load and store are not
 *            one bus transaction, which only another CPU writing the same
 *            word could notice, and none does.  Cost on the CPUs this was
 *            measured on: a few cycles, against about 20 ns for "lock
 *            cmpxchg" (a full barrier that drains the store buffer).  The
 *            asm's "memory" clobber is also a compiler barrier, so the
 *            compiler keeps program order around it as pr_signal_fence
 *            does.
 *
 *   aarch64  there is no unlocked single-instruction compare-and-swap that
 *   and the  is cheaper than the atomic one, and the atomic one is cheap:
 *   others   the generic code below is C11 relaxed atomics, which the
 *            compiler makes an LSE "cas" (one instruction: a signal comes
 *            before or after it) or an "ldxr"/"stxr" loop.  Relaxed means
 *            no "dmb": no fence, no ordering cost.  An ldxr/stxr pair is
 *            still signal-safe: taking the signal and returning from it
 *            (exception entry, handler, ERET) clears the exclusive
 *            monitor, so the interrupted "stxr" fails and the loop reads
 *            the word again, now with the handler's update in it.  This is
 *            what the kernel's local_t is on arm64 (asm-generic/local.h).
 *            The same C11 code is the fallback everywhere else: lock-free
 *            atomics (asserted above) are async-signal-safe in C11, so it
 *            is always correct, only possibly dearer (a locked
 *            instruction on x86).
 *
 * ThreadSanitizer does not see inline asm, so a TSan build uses the C11
 * versions on x86-64 too (same semantics, TSan models them).
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PR_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(PR_TSAN)
#define PR_TSAN 1
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PR_TSAN) && !defined(PR_GENERIC_LOCAL)
#define PR_LOCAL_ASM 1

/* *p == *expected ? (*p = desired, 1) : (*expected = *p, 0), unlocked. */
static inline int pr_local_cas(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	uint64_t old = *expected, prev;

	__asm__ __volatile__("cmpxchgq %2, %1"
			     : "=a"(prev), "+m"(*p)
			     : "r"(desired), "0"(old)
			     : "memory", "cc");
	if (prev == old)
		return 1;
	*expected = prev;
	return 0;
}

/* *p += v, unlocked (one instruction). */
static inline void pr_local_add(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("addq %1, %0" : "+m"(*p) : "r"(v) : "memory", "cc");
}
#else
static inline int pr_local_cas(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return atomic_compare_exchange_strong_explicit(PR_A64(p), expected, desired,
						       memory_order_relaxed,
						       memory_order_relaxed);
}

static inline void pr_local_add(uint64_t *p, uint64_t v)
{
	atomic_fetch_add_explicit(PR_A64(p), v, memory_order_relaxed);
}
#endif

/*
 * Old value of *p, now v.  x86's xchg with memory is always locked, so it is
 * built on pr_local_cas (the loop runs again only if a handler changed *p).
 */
static inline uint64_t pr_local_xchg(uint64_t *p, uint64_t v)
{
	uint64_t old = pr_read_once(p);

	while (!pr_local_cas(p, &old, v))
		;
	return old;
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
