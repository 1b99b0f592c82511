/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private declarations shared by lib/ files.  Never installed. */
#ifndef PERFRING_INTERNAL_H
#define PERFRING_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfring/perfring.h>

#include "util/asan.h"

#define PR_HIDDEN __attribute__((visibility("hidden")))
#define PR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PR_ALIGN8(x) (((x) + 7u) & ~(size_t)7u)


/* Fill d (if non-NULL): error, file, offset (has_offset if off != UINT64_MAX). */
PR_HIDDEN void pr_diag_set(struct perfring_diag *d, int error, const char *file,
			   uint64_t off, const char *fmt, ...) PR_PRINTF(5, 6);
PR_HIDDEN void pr_diag_vset(struct perfring_diag *d, int error, const char *file,
			    uint64_t off, const char *fmt, va_list ap);
#define PR_NO_OFFSET UINT64_MAX

/*
 * Element i of a caller's array of versioned structs (strided by the
 * first element's sz, which every element must repeat) into dst, by the
 * options rule.  Returns 0 or -EINVAL with diag naming file and type.
 */
PR_HIDDEN int pr_array_load(void *dst, size_t dst_size, const void *array, size_t i,
			    size_t min_size, const char *type, const char *file,
			    struct perfring_diag *diag);

/* The first version of struct perfring_event_desc (the whole 0.2 struct). */
#define PR_EVENT_DESC_MIN sizeof(struct perfring_event_desc)
/* pr_array_load of event description i. */
PR_HIDDEN int pr_event_desc_load(const struct perfring_event_desc *events, uint32_t i,
				 struct perfring_event_desc *out, const char *file,
				 struct perfring_diag *diag);

/* Log through the process-wide callback. */
PR_HIDDEN void pr_log(enum perfring_log_level lvl, const char *fmt, ...) PR_PRINTF(2, 3);

/* Unaligned native-endian loads and stores. */
static inline uint64_t pr_get64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint32_t pr_get32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint16_t pr_get16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}
/*
 * Bits set in v.  The x86-64 baseline has no POPCNT instruction, and
 * __builtin_popcountll then calls libgcc, a call per record on the
 * validator's and writer's paths (3% of replay): the bit-parallel sum is a
 * dozen inline instructions.
 */
static inline unsigned pr_popcount64(uint64_t v)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(v);
#else
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((v * 0x0101010101010101ull) >> 56);
#endif
}

/* Copy src into dst[size] (size > 0), cut to fit, NUL-terminated: what
 * snprintf(dst, size, "%s", src) does, without the format. */
static inline void pr_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static inline void pr_put64(void *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void pr_put32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void pr_put16(void *p, uint16_t v) { memcpy(p, &v, 2); }

#endif
