/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private parts of the perf.data writer shared by lib/writer.c,
 * lib/writer-zstd.c (COMPRESSED records) and lib/tracefs.c (the tracing
 * data of tracepoint events).  Never installed.
 */
#ifndef PERFRING_WRITER_PRIVATE_H
#define PERFRING_WRITER_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* ---- COMPRESSED records (writer-zstd.c) ---------------------------------- */

#define PR_WZ_HDR	8u		/* struct perf_record_compressed */
#define PR_WZ_REC_MAX	65535u		/* header.size is 16 bits */
#define PR_WZ_CHUNK	(60u * 1024u)	/* record bytes per COMPRESSED record */

struct pr_wz;

/* A compression stream at zstd level (1..pr_wz_max_level()).  0, -EINVAL
 * (level), -ENOMEM, -ENOTSUP (built without zstd). */
PR_HIDDEN int pr_wz_new(int level, struct pr_wz **out);
PR_HIDDEN void pr_wz_free(struct pr_wz *z);
PR_HIDDEN int pr_wz_max_level(void);

/*
 * Compress n (1..PR_WZ_CHUNK) bytes of records into one COMPRESSED record
 * at rec (PR_WZ_REC_MAX bytes).  Returns its size, or a negative errno
 * with *why saying what went wrong.
 */
PR_HIDDEN long pr_wz_record(struct pr_wz *z, const void *src, size_t n,
			    unsigned char *rec, const char **why);

/* ---- tracing data (tracefs.c) ---------------------------------------------- */

/* A growable byte buffer (oom set once an allocation failed). */
struct pr_buf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

PR_HIDDEN void pr_buf_put(struct pr_buf *b, const void *p, size_t n);

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
