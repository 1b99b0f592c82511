/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring core: private helpers shared by the files of lib/core/ (and the hosted
 * decoders in lib/ring/record.c).  Freestanding: no libc beyond memcpy/memset,
 * which the compiler's builtins become.
 */
#ifndef PERFRING_CORE_INTERNAL_H
#define PERFRING_CORE_INTERNAL_H

#include <perfring/core/core.h>

#define PRC_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

static inline uint16_t prc_get16(const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, 2);
	return v;
}

static inline void prc_put32(void *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
static inline void prc_put64(void *p, uint64_t v) { __builtin_memcpy(p, &v, 8); }

/* len (8-aligned, small) bytes, 16 at a time, inline: no call to memcpy */
static inline __attribute__((always_inline)) void prc_copy_small(void *dst, const void *src,
								   size_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	for (; i + 16 <= len; i += 16)
		__builtin_memcpy(d + i, s + i, 16);
	if (i < len)
		__builtin_memcpy(d + i, s + i, 8);
}

/*
 * 8 <= len <= 64, 8-aligned: two or four 16-byte moves that may overlap
 * (or one 8-byte move), all inside [dst, dst + len).  The writer's fast
 * path and the reader's both copy their small records with it.
 */
static inline __attribute__((always_inline)) void prc_copy_upto64(void *dst, const void *src,
								    size_t len)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (len < 16) {
		__builtin_memcpy(d, s, 8);
		return;
	}
	__builtin_memcpy(d, s, 16);
	__builtin_memcpy(d + len - 16, s + len - 16, 16);
	if (len > 32) {
		__builtin_memcpy(d + 16, s + 16, 16);
		__builtin_memcpy(d + len - 32, s + len - 32, 16);
	}
}

/* Without a call: __builtin_popcountll may become a libgcc call. */
static inline unsigned prc_popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((v * 0x0101010101010101ull) >> 56);
}

/* strnlen without libc */
static inline size_t prc_strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* u64 words of a read_format block: one event, a group's head, a member. */
static inline unsigned prc_read_words_single(uint64_t rf)
{
	return 1 + !!(rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING) +
	       !!(rf & PERFRING_FORMAT_ID) + !!(rf & PERFRING_FORMAT_LOST);
}

static inline unsigned prc_read_words_group_head(uint64_t rf)
{
	return 1 + !!(rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING);
}

static inline unsigned prc_read_words_member(uint64_t rf)
{
	return 1 + !!(rf & PERFRING_FORMAT_ID) + !!(rf & PERFRING_FORMAT_LOST);
}

#define PRC_KNOWN_SAMPLE_BITS (PERFRING_SAMPLE_MAX - 1)
#define PRC_KNOWN_FORMAT_BITS ((PERFRING_FORMAT_LOST << 1) - 1)
#define PRC_WEIGHT_BITS (PERFRING_SAMPLE_WEIGHT | PERFRING_SAMPLE_WEIGHT_STRUCT)

/* Body sizes (header included, before strings and trailer). */
#define PRC_LOST_BODY 24u
#define PRC_COMM_FIXED 16u
#define PRC_MMAP_FIXED 40u
#define PRC_MMAP2_FIXED 72u
#define PRC_TASK_BODY 32u

#endif
