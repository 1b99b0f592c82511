/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A perf.data rewritten in place with records merged in (perfring-record
 * at the end: JIT maps, jit-bake.c; markers, marks-merge.c): the file's
 * header features carried, its records filtered or changed by the caller,
 * one more time-ordered source of the caller's records, the result renamed
 * over the file.
 */
#ifndef PERFRING_TOOLS_FILE_REWRITE_H
#define PERFRING_TOOLS_FILE_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct file_rewrite_ops {
	void *user;
	/* The events (and features the copy does not give): 0 or -1 with diag
	 * set.  file_rewrite_copy_events adds the file's as they are. */
	int (*setup)(void *user, struct perfring_writer *w, struct perfring_perfdata *pd,
		     struct perfring_diag *diag);
	/* A record of the file: the size to write from *out (rec, or the
	 * caller's copy), 0 to drop it. */
	size_t (*record)(void *user, const struct perfring_attr *attr, const void *rec,
			 size_t size, const void **out);
	/* The caller's next record in time order: 1 and *rec, or 0. */
	int (*next)(void *user, const void **rec, size_t *size);
};

int file_rewrite_copy_events(struct perfring_writer *w, struct perfring_perfdata *pd,
			     struct perfring_diag *diag);

/*
 * Rewrite path (argc/argv: the CMDLINE feature; compression_level: the
 * zstd level of its data, 0 for none, as it was recorded).  Records the
 * writer refuses are reported with their offset and counted in
 * *problems.  Returns 0, or -1 (message printed; the file is then
 * unchanged).
 */
int file_rewrite(const char *path, int argc, const char *const *argv, int compression_level,
		 const struct file_rewrite_ops *ops, uint64_t *problems);

#endif
