/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private declarations of lib/tracing/ for the perf.data writer.  Never
 * installed. */
#ifndef PERFRING_TRACING_H
#define PERFRING_TRACING_H

#include <stddef.h>

#include "util/buf.h"

/* One tracepoint of the recording: "sys" and "name" under events/. */
struct pr_tp_ref {
	const char *sys;
	const char *name;
};

/*
 * The HEADER_TRACING_DATA payload, version 0.6, as perf 6.1 writes it:
 * magic, version, byte order, sizeof(long), page size; header_page and
 * header_event; the ftrace formats (none); per system, the format files of
 * the recorded events; kallsyms (empty); printk_formats; saved_cmdlines
 * (empty).  Appended to b.  root: the tracefs directory.  Returns 0, or a
 * negative errno with the file that failed in err (errlen bytes).
 */
PR_HIDDEN int pr_tracing_data(const char *root, const struct pr_tp_ref *tps,
			      size_t n, struct pr_buf *b, char *err, size_t errlen);

#endif
