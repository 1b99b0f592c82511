/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracepoint lookup of the hw backend (see tracepoint.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tracepoint.h"

int hw_tp_lookup(const char *s, size_t n, struct perfring_tracepoint **out,
		 char *err, size_t errlen)
{
	struct perfring_diag d;
	char root[4096], pat[2 * PERFRING_TRACEPOINT_NAME_MAX];
	int r;

	*out = NULL;
	if (n >= sizeof(pat)) {
		snprintf(err, errlen, "tracepoint '%.*s...' is too long", 64, s);
		return -EINVAL;
	}
	memcpy(pat, s, n);
	pat[n] = 0;
	r = perfring_tracefs_dir(NULL, root, sizeof(root), &d);
	if (r < 0) {
		char m[1024];

		snprintf(err, errlen, "%s: %s", pat, perfring_diag_format(&d, m, sizeof(m)));
		return r;
	}
	r = perfring_tracepoints_find(root, pat, out, &d);
	if (r < 0) {
		char m[1024];

		/* the message names the pattern and the files looked for */
		snprintf(err, errlen, "%s", perfring_diag_format(&d, m, sizeof(m)));
	}
	return r;
}
