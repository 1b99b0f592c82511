/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A perf.data rewritten in place with records merged in: see file-rewrite.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "file-rewrite.h"
#include "tool-common.h"

#define FILE_BATCH 256

int file_rewrite_copy_events(struct perfring_writer *w, struct perfring_perfdata *pd,
			     struct perfring_diag *diag)
{
	for (uint32_t i = 0; i < perfring_perfdata_nr_attrs(pd); i++) {
		PERFRING_EVENT_DESC(e);

		perfring_perfdata_event(pd, i, &e);
		if (!e.nr_ids)
			e.ids = NULL;
		if (perfring_writer_add_event(w, &e, diag) < 0)
			return -1;
	}
	return 0;
}

/* Feed up to FILE_BATCH records of pd to source 0; *done at the end. */
static int copy_batch(const struct file_rewrite_ops *ops, struct perfring_perfdata *pd,
		      struct perfring_writer *w, const char *in, uint64_t *problems, bool *done)
{
	struct perfring_perfdata_record r = { .sz = sizeof(r) };
	struct perfring_diag diag;
	int ret;

	for (int n = 0; n < FILE_BATCH; n++) {
		const void *rec;
		size_t size;

		tool_diag_reset(&diag);
		ret = perfring_perfdata_next(pd, &r, &diag);
		if (ret <= 0) {
			if (ret < 0)
				tool_error_diag(&diag);
			*done = true;
			return ret < 0 ? -1 : 0;
		}
		if (r.flags & PERFRING_PERFDATA_REC_COMPRESSED)
			;	/* the records inside: kept below */
		else if (r.type == PERFRING_RECORD_COMPRESSED)
			continue;
		if (r.type == PERFRING_RECORD_HEADER_ATTR || r.type == PERFRING_RECORD_FINISHED_ROUND)
			continue;
		size = ops->record(ops->user, r.attr, r.hdr, r.size, &rec);
		if (!size)
			continue;
		tool_diag_reset(&diag);
		ret = perfring_writer_write(w, 0, rec, size, &diag);
		if (ret < 0 && ret != -EINVAL) {
			tool_error_diag(&diag);
			return -1;
		}
		if (ret < 0) {
			tool_error("%s: offset %#" PRIx64 ": %s", in, r.offset, diag.msg);
			(*problems)++;
		}
	}
	return 0;
}

int file_rewrite(const char *path, int argc, const char *const *argv, int compression_level,
		 const struct file_rewrite_ops *ops, uint64_t *problems)
{
	struct perfring_perfdata *pd = NULL;
	struct perfring_writer *w = NULL;
	struct perfring_diag diag;
	bool done = false, xdone = false;
	int ret, status = -1, xsrc;

	tool_diag_reset(&diag);
	if (perfring_perfdata_open(path, NULL, &diag, &pd) < 0) {
		tool_error_diag(&diag);
		goto out;
	}
	{
		/* The file's own header goes into its rewrite, as it is. */
		PERFRING_WRITER_OPTS(o, .path = path, .kmap = PERFRING_WRITER_KMAP_NONE,
				     .argc = argc, .argv = argv,
				     .compression_level = compression_level,
				     .host = PERFRING_WRITER_HOST_NONE);

		if (perfring_writer_open(&o, &diag, &w) < 0 ||
		    perfring_writer_copy_features(w, pd, PERFRING_WRITER_COPY_ALL, NULL,
						  &diag) < 0 ||
		    ops->setup(ops->user, w, pd, &diag) < 0) {
			if (diag.msg[0])
				tool_error_diag(&diag);
			goto out;
		}
	}
	perfring_writer_add_source(w);
	xsrc = perfring_writer_add_source(w);
	while (!done || !xdone) {
		if (!done) {
			if (copy_batch(ops, pd, w, path, problems, &done) < 0)
				goto out;
			if (done && perfring_writer_end_source(w, 0, &diag) < 0)
				goto out;
		}
		for (int n = 0; !xdone && n < FILE_BATCH; n++) {
			const void *rec;
			size_t size;

			if (ops->next(ops->user, &rec, &size) != 1) {
				xdone = true;
				if (perfring_writer_end_source(w, (uint32_t)xsrc, &diag) < 0)
					goto out;
				break;
			}
			if (perfring_writer_write(w, (uint32_t)xsrc, rec, size, &diag) < 0) {
				tool_error_diag(&diag);
				goto out;
			}
		}
	}
	ret = perfring_writer_close(w, &diag);
	w = NULL;
	if (ret < 0) {
		tool_error_diag(&diag);
		goto out;
	}
	status = 0;
out:
	perfring_writer_abort(w);
	perfring_perfdata_close(pd);
	return status;
}
