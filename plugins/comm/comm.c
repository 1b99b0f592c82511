/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * comm plugin: PERF_RECORD_COMM.
 *
 * Body: pid u32, tid u32, name NUL-terminated and zero-padded to 8 bytes.
 * The kernel's names are at most 15 bytes (TASK_COMM_LEN 16), so the name
 * field is 8 or 16 bytes; misc carries COMM_EXEC when exec renamed the task.
 */
#include <perfring/plugin.h>
#include <perfring/core/core.h>

#include "plugin-util.h"

#define COMM_MAX_NAME (PERFRING_COMM_LEN - 1)

/* The layout is the core's (lib/core/records.c). */
static int comm_encode(const struct perfring_attr *attr, uint32_t type,
		       const void *typed, const struct perfring_sample_id *sid,
		       void *buf, size_t len)
{
	if (type != PERFRING_RECORD_COMM || !typed)
		return -EINVAL;
	return perfring_core_comm_encode(attr, typed, sid, buf, len);
}

/* The library's decoder (lib/ring/sideband.c) reads and checks the record. */
static int comm_decode(const struct perfring_attr *attr, const void *rec,
		       size_t size, void *typed_out, size_t out_size,
		       struct perfring_sample_id *sid_out,
		       struct perfring_diag *diag)
{
	if (out_size < sizeof(struct perfring_comm))
		return -EINVAL;
	return perfring_comm_decode(attr, rec, size, typed_out, NULL, NULL, sid_out, diag);
}

static int comm_format_text(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_comm c;
	const char *name;
	size_t n;
	int ret = perfring_comm_decode(attr, rec, size, &c, &name, &n, NULL, NULL);

	if (ret < 0)
		return ret;
	/* perf report -D: "PERF_RECORD_COMM exec: ls:1234/1234" */
	pl_printf(&o, "%s", c.exec ? "exec: " : "");
	pl_text_str(&o, name, n);
	pl_printf(&o, ":%d/%d", (int32_t)c.pid, (int32_t)c.tid);
	return pl_done(&o);
}

static int comm_format_json(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_comm c;
	const char *name;
	size_t n;
	int ret = perfring_comm_decode(attr, rec, size, &c, &name, &n, NULL, NULL);

	if (ret < 0)
		return ret;
	pl_printf(&o, "\"pid\":%d,\"tid\":%d,\"comm\":", (int32_t)c.pid, (int32_t)c.tid);
	pl_json_str(&o, name, n);
	pl_printf(&o, ",\"exec\":%s", c.exec ? "true" : "false");
	return pl_done(&o);
}

/* The members comm_format_json prints: pid, tid, comm, exec. */
static int comm_parse_json(const struct perfring_attr *attr, uint32_t type, uint16_t misc,
			   const struct perfring_json_in *in,
			   const struct perfring_sample_id *sid, void *buf, size_t len)
{
	struct perfring_comm c = { .misc = misc, .exec = misc & PERFRING_MISC_COMM_EXEC };
	const char *name = NULL;
	size_t n = 0;

	if (in->get_s32(in->host, "pid", &c.pid) < 0 || in->get_s32(in->host, "tid", &c.tid) < 0 ||
	    in->get_string(in->host, "comm", &name, &n) < 0 ||
	    in->get_bool(in->host, "exec", &c.exec) < 0)
		return -EINVAL;
	if (n > COMM_MAX_NAME || (n && memchr(name, 0, n)))
		return in->fail(in->host, "comm", "expected at most 15 bytes and no NUL");
	if (n)
		memcpy(c.comm, name, n);
	return comm_encode(attr, type, &c, sid, buf, len);
}

static const uint32_t comm_types[] = { PERFRING_RECORD_COMM };

static const struct perfring_record_ops comm_ops = {
	.struct_size = sizeof(comm_ops),
	.encode = comm_encode,
	.decode = comm_decode,
	.format_text = comm_format_text,
	.format_json = comm_format_json,
	.parse_json = comm_parse_json,
};

PERFRING_PLUGIN_DEFINE(
	.name = "comm",
	.version = PERFRING_VERSION_STRING,
	.description = "PERF_RECORD_COMM (task names, exec flag)",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = comm_types,
	.n_types = PERFRING_PLUGIN_N(comm_types),
	.record_ops = &comm_ops);
