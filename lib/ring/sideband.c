/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoders of the side-band records: COMM, MMAP / MMAP2 (both MMAP2
 * layouts), FORK / EXIT.  Their encoders are the core's
 * (lib/core/records.c); every reader of these records in the tree decodes
 * them here: the comm, mmap2 and task plugins (their decode and
 * formatters), the writer's build-id collection, and the tools.
 *
 * Each decoder checks what it reads: the header size is the record's, the
 * fixed body and the sample_id_all trailer fit, a string is NUL-terminated
 * before the trailer, an MMAP2 build id is at most 20 bytes, a FORK/EXIT
 * has nothing between body and trailer.  A failure is -EBADMSG with diag
 * (offset inside the record), -EINVAL for a record of another type.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ring/private.h"
#include "util/internal.h"

/* The wire structs of <perfring/core/wire.h> have the offsets decoded here
 * (doc/perf-format.md 3.2 and 3.3). */
_Static_assert(offsetof(struct perfring_comm_event, comm) == 16, "COMM layout");
_Static_assert(offsetof(struct perfring_mmap_event, filename) == 40, "MMAP layout");
_Static_assert(offsetof(struct perfring_mmap2_event, maj) == 40 &&
	       offsetof(struct perfring_mmap2_event, ino) == 48 &&
	       offsetof(struct perfring_mmap2_event, ino_generation) == 56 &&
	       offsetof(struct perfring_mmap2_event, build_id_size) == 40 &&
	       offsetof(struct perfring_mmap2_event, build_id) == 44 &&
	       offsetof(struct perfring_mmap2_event, prot) == 64 &&
	       offsetof(struct perfring_mmap2_event, filename) == 72, "MMAP2 layout");
_Static_assert(sizeof(struct perfring_task_event) == 32 &&
	       offsetof(struct perfring_task_event, time) == 24, "FORK/EXIT layout");

#define COMM_FIXED 16u		/* header + pid + tid */
#define MMAP_FIXED 40u		/* header .. pgoff */
#define MMAP2_FIXED 72u		/* header .. flags */
#define MMAP2_EARLY_FIXED 64u	/* header .. ino_generation */
#define TASK_BODY 32u		/* header + 4 u32 + time */

static int bad(struct perfring_diag *d, size_t off, const char *fmt, ...) PR_PRINTF(3, 4);
static int bad(struct perfring_diag *d, size_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(d, -EBADMSG, NULL, off, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/*
 * The checks every side-band record gets: header size = size, room for the
 * fixed body and the trailer.  *end: where the trailer starts.  The
 * trailer is decoded into sid (if not NULL).
 */
static int frame(const struct perfring_attr *attr, const void *rec, size_t size, size_t fixed,
		 size_t *end, struct perfring_sample_id *sid, struct perfring_diag *diag)
{
	size_t tr = perfring_record_trailer_size(attr, PERFRING_RECORD_COMM);
	uint16_t hsize;

	if (size < 8)
		return bad(diag, 0, "record of %zu bytes is shorter than its header", size);
	hsize = pr_get16((const unsigned char *)rec + 6);
	if (hsize != size)
		return bad(diag, 6, "header size %u does not match the record's %zu bytes", hsize,
			   size);
	if (size < fixed + tr)
		return bad(diag, 0,
			   "record of %zu bytes is %zu bytes short of its %zu-byte body and %zu-byte sample_id_all trailer",
			   size, fixed + tr - size, fixed, tr);
	*end = size - tr;
	if (sid) {
		memset(sid, 0, sizeof(*sid));
		if (tr) {
			int ret = perfring_sample_id_decode(attr->sample_type, rec, size, sid);

			if (ret < 0) {
				pr_diag_set(diag, ret, NULL, *end, "bad sample_id_all trailer");
				return ret;
			}
		}
	}
	return 0;
}

/* A NUL-terminated string in [off, end): its length, or -1. */
static long str_len(const void *rec, size_t off, size_t end)
{
	const char *s = (const char *)rec + off;
	const char *z = memchr(s, '\0', end - off);

	return z ? (long)(z - s) : -1;
}

PERFRING_API int perfring_comm_decode(const struct perfring_attr *attr, const void *rec,
				      size_t size, struct perfring_comm *out,
				      const char **name, size_t *name_len,
				      struct perfring_sample_id *sid, struct perfring_diag *diag)
{
	const unsigned char *r = rec;
	size_t end;
	long n;
	int ret;

	if (!rec || size < 8 || pr_get32(r) != PERFRING_RECORD_COMM)
		return -EINVAL;
	/* at least one 8-byte name slot */
	ret = frame(attr, rec, size, COMM_FIXED + 8, &end, sid, diag);
	if (ret < 0)
		return ret;
	n = str_len(rec, COMM_FIXED, end);
	if (n < 0)
		return bad(diag, COMM_FIXED, "COMM name is not NUL-terminated within its %zu bytes",
			   end - COMM_FIXED);
	if (out) {
		memset(out, 0, sizeof(*out));
		out->misc = pr_get16(r + 4);
		out->exec = (out->misc & PERFRING_MISC_COMM_EXEC) != 0;
		out->pid = pr_get32(r + 8);
		out->tid = pr_get32(r + 12);
		memcpy(out->comm, r + COMM_FIXED,
		       (size_t)n < PERFRING_COMM_LEN - 1 ? (size_t)n : PERFRING_COMM_LEN - 1);
	}
	if (name)
		*name = (const char *)r + COMM_FIXED;
	if (name_len)
		*name_len = (size_t)n;
	return 0;
}

PERFRING_API int perfring_mmap2_decode(const struct perfring_attr *attr, const void *rec,
				       size_t size, struct perfring_mmap2 *out,
				       struct perfring_sample_id *sid, struct perfring_diag *diag)
{
	const unsigned char *r = rec;
	uint32_t type;
	size_t fixed, end;
	int early = 0;
	long n;
	int ret;

	if (!rec || size < 8)
		return -EINVAL;
	type = pr_get32(r);
	if (type == PERFRING_RECORD_MMAP2)
		early = perfring_mmap2_layout(rec, size,
					      perfring_record_trailer_size(attr, type)) ==
			PERFRING_MMAP2_LAYOUT_EARLY;
	else if (type != PERFRING_RECORD_MMAP)
		return -EINVAL;
	fixed = type == PERFRING_RECORD_MMAP ? MMAP_FIXED : early ? MMAP2_EARLY_FIXED : MMAP2_FIXED;
	/* the fixed body and at least one 8-byte filename slot */
	ret = frame(attr, rec, size, fixed + 8, &end, sid, diag);
	if (ret < 0)
		return ret;
	n = str_len(rec, fixed, end);
	if (n < 0)
		return bad(diag, fixed, "%s filename is not NUL-terminated within its %zu bytes",
			   type == PERFRING_RECORD_MMAP2 ? "MMAP2" : "MMAP", end - fixed);
	if (type == PERFRING_RECORD_MMAP2 && (pr_get16(r + 4) & PERFRING_MISC_MMAP_BUILD_ID) &&
	    r[40] > PERFRING_BUILD_ID_SIZE)
		return bad(diag, 40, "MMAP2 build-id size %u is larger than %u", r[40],
			   PERFRING_BUILD_ID_SIZE);
	if (!out)
		return 0;
	memset(out, 0, sizeof(*out));
	out->misc = pr_get16(r + 4);
	out->pid = pr_get32(r + 8);
	out->tid = pr_get32(r + 12);
	out->addr = pr_get64(r + 16);
	out->len = pr_get64(r + 24);
	out->pgoff = pr_get64(r + 32);
	if (type == PERFRING_RECORD_MMAP2) {
		if (out->misc & PERFRING_MISC_MMAP_BUILD_ID) {
			out->build_id_size = r[40];
			memcpy(out->build_id, r + 44, PERFRING_BUILD_ID_SIZE);
		} else {
			out->maj = pr_get32(r + 40);
			out->min = pr_get32(r + 44);
			out->ino = pr_get64(r + 48);
			out->ino_generation = pr_get64(r + 56);
		}
		if (!early) {
			out->prot = pr_get32(r + 64);
			out->flags = pr_get32(r + 68);
		}
	}
	out->filename = (const char *)r + fixed;
	out->filename_len = (size_t)n;
	return 0;
}

PERFRING_API int perfring_task_decode(const struct perfring_attr *attr, const void *rec,
				      size_t size, struct perfring_task *out,
				      struct perfring_sample_id *sid, struct perfring_diag *diag)
{
	const unsigned char *r = rec;
	uint32_t type;
	size_t end;
	int ret;

	if (!rec || size < 8)
		return -EINVAL;
	type = pr_get32(r);
	if (type != PERFRING_RECORD_FORK && type != PERFRING_RECORD_EXIT)
		return -EINVAL;
	ret = frame(attr, rec, size, TASK_BODY, &end, sid, diag);
	if (ret < 0)
		return ret;
	if (end != TASK_BODY)
		return bad(diag, TASK_BODY, "%zu unexpected bytes between the %s body and its trailer",
			   end - TASK_BODY, type == PERFRING_RECORD_FORK ? "FORK" : "EXIT");
	if (out) {
		memset(out, 0, sizeof(*out));
		out->misc = pr_get16(r + 4);
		out->pid = pr_get32(r + 8);
		out->ppid = pr_get32(r + 12);
		out->tid = pr_get32(r + 16);
		out->ptid = pr_get32(r + 20);
		out->time = pr_get64(r + 24);
	}
	return 0;
}
