/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable byte buffer, for payloads built in memory (tracing data, the
 * perf.data writer's header features).  Never installed. */
#ifndef PERFRING_UTIL_BUF_H
#define PERFRING_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "util/internal.h"

/* oom is set once an allocation failed; later puts do nothing. */
struct pr_buf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

PR_HIDDEN void pr_buf_put(struct pr_buf *b, const void *p, size_t n);

static inline void buf_u32(struct pr_buf *b, uint32_t v) { pr_buf_put(b, &v, 4); }
static inline void buf_u64(struct pr_buf *b, uint64_t v) { pr_buf_put(b, &v, 8); }

#endif
