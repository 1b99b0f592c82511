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

#define COMM_FIXED 16u		/* header + pid + tid */
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

static int comm_decode(const struct perfring_attr *attr, const void *rec,
		       size_t size, void *typed_out, size_t out_size,
		       struct perfring_sample_id *sid_out,
		       struct perfring_diag *diag)
{
	struct perfring_comm *c = typed_out;
	const char *r = rec;
	size_t end;
	long n;
	int ret;

	if (out_size < sizeof(*c) || pl_get32(r) != PERFRING_RECORD_COMM)
		return -EINVAL;
	/* At least one 8-byte name slot. */
	ret = pl_check_record(attr, rec, size, COMM_FIXED + 8, &end, sid_out, diag);
	if (ret < 0)
		return ret;
	n = pl_strlen(rec, COMM_FIXED, end);
	if (n < 0) {
		pl_diag(diag, -EBADMSG, COMM_FIXED, "COMM name is not NUL-terminated within its %zu bytes",
			end - COMM_FIXED);
		return -EBADMSG;
	}
	memset(c, 0, sizeof(*c));
	c->misc = pl_get16(r + 4);
	c->exec = (c->misc & PERFRING_MISC_COMM_EXEC) != 0;
	c->pid = pl_get32(r + 8);
	c->tid = pl_get32(r + 12);
	memcpy(c->comm, r + COMM_FIXED, (size_t)n < COMM_MAX_NAME ? (size_t)n : COMM_MAX_NAME);
	return 0;
}

/* Name and its length, for the formatters. */
static int comm_body(const struct perfring_attr *attr, const void *rec, size_t size,
		     size_t *name_len)
{
	size_t end;
	long n;
	int ret = pl_check_record(attr, rec, size, COMM_FIXED + 8, &end, NULL, NULL);

	if (ret < 0)
		return ret;
	n = pl_strlen(rec, COMM_FIXED, end);
	if (n < 0)
		return -EBADMSG;
	*name_len = (size_t)n;
	return 0;
}

static int comm_format_text(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	const char *r = rec;
	size_t n;
	int ret = comm_body(attr, rec, size, &n);

	if (ret < 0)
		return ret;
	/* perf report -D: "PERF_RECORD_COMM exec: ls:1234/1234" */
	pl_printf(&o, "%s", pl_get16(r + 4) & PERFRING_MISC_COMM_EXEC ? "exec: " : "");
	pl_text_str(&o, r + COMM_FIXED, n);
	pl_printf(&o, ":%d/%d", (int32_t)pl_get32(r + 8), (int32_t)pl_get32(r + 12));
	return pl_done(&o);
}

static int comm_format_json(const struct perfring_attr *attr, const void *rec,
			    size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	const char *r = rec;
	size_t n;
	int ret = comm_body(attr, rec, size, &n);

	if (ret < 0)
		return ret;
	pl_printf(&o, "\"pid\":%d,\"tid\":%d,\"comm\":", (int32_t)pl_get32(r + 8), (int32_t)pl_get32(r + 12));
	pl_json_str(&o, r + COMM_FIXED, n);
	pl_printf(&o, ",\"exec\":%s",
		  pl_get16(r + 4) & PERFRING_MISC_COMM_EXEC ? "true" : "false");
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
