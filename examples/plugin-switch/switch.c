/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An out-of-tree libperfring plugin, written as a third-party author would:
 * only <perfring/plugin.h> and `pkg-config --cflags --libs perfring`.
 *
 * It claims PERF_RECORD_SWITCH (type 14): a record with no body, only the
 * sample_id_all trailer; misc says whether the task switched out
 * (SWITCH_OUT) and, if so, whether it was preempted (SWITCH_OUT_PREEMPT).
 *
 * Build: make        Use: PERFRING_PLUGIN_PATH=$PWD perfring-dump --list-plugins
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <perfring/plugin.h>

#include "switch.h"

#define HDR 8u

static size_t trailer_size(const struct perfring_attr *attr)
{
	if (!attr || !(attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	return perfring_sample_id_size(attr->sample_type);
}

static int switch_encode(const struct perfring_attr *attr, uint32_t type,
			 const void *typed, const struct perfring_sample_id *sid,
			 void *buf, size_t len)
{
	static const struct perfring_sample_id zero;
	const struct switch_example *s = typed;
	struct perfring_event_header h;
	size_t total = HDR + trailer_size(attr);
	int ret;

	if (type != PERFRING_RECORD_SWITCH || !s || (s->preempt && !s->out))
		return -EINVAL;
	if (len < total)
		return -ENOSPC;
	h.type = type;
	h.misc = (uint16_t)((s->cpumode & PERFRING_MISC_CPUMODE_MASK) |
			    (s->out ? PERFRING_MISC_SWITCH_OUT : 0) |
			    (s->preempt ? PERFRING_MISC_SWITCH_OUT_PREEMPT : 0));
	h.size = (uint16_t)total;
	memcpy(buf, &h, sizeof(h));
	if (total > HDR) {
		ret = perfring_sample_id_encode(attr->sample_type, sid ? sid : &zero,
						(char *)buf + HDR, total - HDR);
		if (ret < 0)
			return ret;
	}
	return (int)total;
}

static int check(const struct perfring_attr *attr, const void *rec, size_t size,
		 struct perfring_diag *diag)
{
	struct perfring_event_header h;
	size_t want = HDR + trailer_size(attr);

	memcpy(&h, rec, sizeof(h));
	if (h.size != size || size != want) {
		if (diag) {
			diag->error = -EBADMSG;
			diag->has_offset = 1;
			diag->offset = 6;
			diag->file[0] = '\0';
			snprintf(diag->msg, sizeof(diag->msg),
				 "SWITCH record of %zu bytes (header says %u), expected %zu",
				 size, h.size, want);
		}
		return -EBADMSG;
	}
	return 0;
}

static int switch_decode(const struct perfring_attr *attr, const void *rec,
			 size_t size, void *typed_out, size_t out_size,
			 struct perfring_sample_id *sid_out,
			 struct perfring_diag *diag)
{
	struct switch_example *s = typed_out;
	struct perfring_event_header h;
	int ret;

	if (out_size < sizeof(*s))
		return -EINVAL;
	ret = check(attr, rec, size, diag);
	if (ret < 0)
		return ret;
	memcpy(&h, rec, sizeof(h));
	s->out = (h.misc & PERFRING_MISC_SWITCH_OUT) != 0;
	s->preempt = (h.misc & PERFRING_MISC_SWITCH_OUT_PREEMPT) != 0;
	s->cpumode = h.misc & PERFRING_MISC_CPUMODE_MASK;
	if (sid_out) {
		memset(sid_out, 0, sizeof(*sid_out));
		if (size > HDR)
			return perfring_sample_id_decode(attr->sample_type, rec, size, sid_out);
	}
	return 0;
}

static const char *direction(const void *rec)
{
	struct perfring_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (!(h.misc & PERFRING_MISC_SWITCH_OUT))
		return "IN";
	return h.misc & PERFRING_MISC_SWITCH_OUT_PREEMPT ? "OUT preempt" : "OUT";
}

static int switch_format_text(const struct perfring_attr *attr, const void *rec,
			      size_t size, char *buf, size_t len)
{
	int ret = check(attr, rec, size, NULL);

	return ret < 0 ? ret : snprintf(buf, len, "%s", direction(rec));
}

static int switch_format_json(const struct perfring_attr *attr, const void *rec,
			      size_t size, char *buf, size_t len)
{
	struct perfring_event_header h;
	int ret = check(attr, rec, size, NULL);

	if (ret < 0)
		return ret;
	memcpy(&h, rec, sizeof(h));
	return snprintf(buf, len, "\"out\":%s,\"preempt\":%s",
			h.misc & PERFRING_MISC_SWITCH_OUT ? "true" : "false",
			h.misc & PERFRING_MISC_SWITCH_OUT_PREEMPT ? "true" : "false");
}

/*
 * The inverse of switch_format_json (plugin ABI 1.1): "out" and "preempt"
 * give the misc bits, the rest of misc (cpumode) is kept.  An edited
 * "out" in perfring-dump --json output reaches the record replayed.
 */
static int switch_parse_json(const struct perfring_attr *attr, uint32_t type, uint16_t misc,
			     const struct perfring_json_in *in,
			     const struct perfring_sample_id *sid, void *buf, size_t len)
{
	struct switch_example s = {
		.out = misc & PERFRING_MISC_SWITCH_OUT,
		.preempt = misc & PERFRING_MISC_SWITCH_OUT_PREEMPT,
		.cpumode = misc & PERFRING_MISC_CPUMODE_MASK,
	};

	if (in->get_bool(in->host, "out", &s.out) < 0 ||
	    in->get_bool(in->host, "preempt", &s.preempt) < 0)
		return -EINVAL;
	if (s.preempt && !s.out)
		return in->fail(in->host, "preempt", "only a task switching out is preempted");
	return switch_encode(attr, type, &s, sid, buf, len);
}

static const uint32_t switch_types[] = { PERFRING_RECORD_SWITCH };

static const struct perfring_record_ops switch_ops = {
	.struct_size = sizeof(switch_ops),
	.encode = switch_encode,
	.decode = switch_decode,
	.format_text = switch_format_text,
	.format_json = switch_format_json,
	.parse_json = switch_parse_json,
};

PERFRING_PLUGIN_DEFINE(
	.name = "switch",
	.version = "0.1",
	.description = "PERF_RECORD_SWITCH (example out-of-tree plugin)",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = switch_types,
	.n_types = PERFRING_PLUGIN_N(switch_types),
	.record_ops = &switch_ops);
