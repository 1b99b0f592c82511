/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable byte buffer (util/buf.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

void pr_buf_put(struct pr_buf *b, const void *p, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}
