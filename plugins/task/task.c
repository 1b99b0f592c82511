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


/* The layout is the core's (lib/core/records.c). */
static int task_encode(const struct perfring_attr *attr, uint32_t type,
		       const void *typed, const struct perfring_sample_id *sid,
		       void *buf, size_t len)
{
	return perfring_core_task_encode(attr, type, typed, sid, buf, len);
}

/* The library's decoder (lib/ring/sideband.c) reads and checks the record. */
static int task_decode(const struct perfring_attr *attr, const void *rec,
		       size_t size, void *typed_out, size_t out_size,
		       struct perfring_sample_id *sid_out,
		       struct perfring_diag *diag)
{
	if (out_size < sizeof(struct perfring_task))
		return -EINVAL;
	return perfring_task_decode(attr, rec, size, typed_out, sid_out, diag);
}

static int task_format_text(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_task t;
	int ret = perfring_task_decode(attr, rec, size, &t, NULL, NULL);

	if (ret < 0)
		return ret;
	/* perf report -D: "PERF_RECORD_FORK(child:tid):(parent:ptid)" */
	pl_printf(&o, "(%d:%d):(%d:%d)", (int32_t)t.pid, (int32_t)t.tid, (int32_t)t.ppid,
		  (int32_t)t.ptid);
	return pl_done(&o);
}

static int task_format_json(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_task t;
	int ret = perfring_task_decode(attr, rec, size, &t, NULL, NULL);

	if (ret < 0)
		return ret;
	pl_printf(&o, "\"pid\":%d,\"ppid\":%d,\"tid\":%d,\"ptid\":%d,\"time\":%" PRIu64,
		  (int32_t)t.pid, (int32_t)t.ppid, (int32_t)t.tid, (int32_t)t.ptid, t.time);
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
