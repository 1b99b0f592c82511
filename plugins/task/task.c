/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * task plugin: PERF_RECORD_FORK and PERF_RECORD_EXIT.
 *
 * Body: pid, ppid, tid, ptid (u32), time (u64); misc 0 in kernel records.
 * FORK: pid/tid the child, ppid/ptid the parent (pid == ppid for a new
 * thread).  The trailer describes the emitting context: the parent for
 * FORK, the exiting task for EXIT; the caller passes it as the sample_id.
 */
#include <perfring/plugin.h>
#include <perfring/core/core.h>

#include "plugin-util.h"

#define TASK_BODY 32u		/* header + 4 u32 + time */

static bool is_task(uint32_t type)
{
	return type == PERFRING_RECORD_FORK || type == PERFRING_RECORD_EXIT;
}

/* The layout is the core's (lib/core/records.c). */
static int task_encode(const struct perfring_attr *attr, uint32_t type,
		       const void *typed, const struct perfring_sample_id *sid,
		       void *buf, size_t len)
{
	return perfring_core_task_encode(attr, type, typed, sid, buf, len);
}

/* Header, body and trailer, nothing else: shared by decode and format. */
static int task_check(const struct perfring_attr *attr, const void *rec, size_t size,
		      struct perfring_sample_id *sid, struct perfring_diag *diag)
{
	size_t end;
	int ret = pl_check_record(attr, rec, size, TASK_BODY, &end, sid, diag);

	if (ret < 0)
		return ret;
	if (end != TASK_BODY) {
		pl_diag(diag, -EBADMSG, TASK_BODY,
			"%zu unexpected bytes between the %s body and its trailer",
			end - TASK_BODY,
			pl_get32(rec) == PERFRING_RECORD_FORK ? "FORK" : "EXIT");
		return -EBADMSG;
	}
	return 0;
}

static int task_decode(const struct perfring_attr *attr, const void *rec,
		       size_t size, void *typed_out, size_t out_size,
		       struct perfring_sample_id *sid_out,
		       struct perfring_diag *diag)
{
	struct perfring_task *t = typed_out;
	const char *r = rec;
	int ret;

	if (out_size < sizeof(*t) || !is_task(pl_get32(r)))
		return -EINVAL;
	ret = task_check(attr, rec, size, sid_out, diag);
	if (ret < 0)
		return ret;
	memset(t, 0, sizeof(*t));
	t->misc = pl_get16(r + 4);
	t->pid = pl_get32(r + 8);
	t->ppid = pl_get32(r + 12);
	t->tid = pl_get32(r + 16);
	t->ptid = pl_get32(r + 20);
	t->time = pl_get64(r + 24);
	return 0;
}

static int task_format_text(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	const char *r = rec;
	int ret = task_check(attr, rec, size, NULL, NULL);

	if (ret < 0)
		return ret;
	/* perf report -D: "PERF_RECORD_FORK(child:tid):(parent:ptid)" */
	pl_printf(&o, "(%d:%d):(%d:%d)", (int32_t)pl_get32(r + 8),
		  (int32_t)pl_get32(r + 16), (int32_t)pl_get32(r + 12),
		  (int32_t)pl_get32(r + 20));
	return pl_done(&o);
}

static int task_format_json(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	const char *r = rec;
	int ret = task_check(attr, rec, size, NULL, NULL);

	if (ret < 0)
		return ret;
	pl_printf(&o, "\"pid\":%d,\"ppid\":%d,\"tid\":%d,\"ptid\":%d,\"time\":%" PRIu64,
		  (int32_t)pl_get32(r + 8), (int32_t)pl_get32(r + 12),
		  (int32_t)pl_get32(r + 16), (int32_t)pl_get32(r + 20),
		  pl_get64(r + 24));
	return pl_done(&o);
}

/* The members task_format_json prints: pid, ppid, tid, ptid, time. */
static int task_parse_json(const struct perfring_attr *attr, uint32_t type, uint16_t misc,
			   const struct perfring_json_in *in,
			   const struct perfring_sample_id *sid, void *buf, size_t len)
{
	struct perfring_task t = { .misc = misc };

	if (in->get_s32(in->host, "pid", &t.pid) < 0 || in->get_s32(in->host, "ppid", &t.ppid) < 0 ||
	    in->get_s32(in->host, "tid", &t.tid) < 0 || in->get_s32(in->host, "ptid", &t.ptid) < 0 ||
	    in->get_uint(in->host, "time", UINT64_MAX, &t.time) < 0)
		return -EINVAL;
	return task_encode(attr, type, &t, sid, buf, len);
}

static const uint32_t task_types[] = { PERFRING_RECORD_EXIT, PERFRING_RECORD_FORK };

static const struct perfring_record_ops task_ops = {
	.struct_size = sizeof(task_ops),
	.encode = task_encode,
	.decode = task_decode,
	.format_text = task_format_text,
	.format_json = task_format_json,
	.parse_json = task_parse_json,
};

PERFRING_PLUGIN_DEFINE(
	.name = "task",
	.version = PERFRING_VERSION_STRING,
	.description = "PERF_RECORD_FORK and PERF_RECORD_EXIT (task lifetime)",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = task_types,
	.n_types = PERFRING_PLUGIN_N(task_types),
	.record_ops = &task_ops);
