/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A valid plugin built for plugin ABI 1.0: its record ops end at
 * format_json (no parse_json).  It claims type 201, a record of any size
 * whose body it formats as {"bytes":N}.  Hosts of a later ABI minor must
 * load it and carry its records through their raw bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <perfring/plugin.h>

static int abi10_decode(const struct perfring_attr *attr, const void *rec, size_t size,
			void *typed_out, size_t out_size, struct perfring_sample_id *sid_out,
			struct perfring_diag *diag)
{
	(void)attr, (void)rec, (void)diag;
	if (out_size < sizeof(size_t))
		return -EINVAL;
	memcpy(typed_out, &size, sizeof(size));
	if (sid_out)
		memset(sid_out, 0, sizeof(*sid_out));
	return 0;
}

static int abi10_format_text(const struct perfring_attr *attr, const void *rec, size_t size,
			     char *buf, size_t len)
{
	(void)attr, (void)rec;
	return snprintf(buf, len, "%zu bytes", size);
}

static int abi10_format_json(const struct perfring_attr *attr, const void *rec, size_t size,
			     char *buf, size_t len)
{
	(void)attr, (void)rec;
	return snprintf(buf, len, "\"bytes\":%zu", size);
}

/* The table as plugin ABI 1.0 laid it out: up to format_json. */
struct ops_1_0 {
	uint32_t struct_size;
	void *encode, *decode, *format_text, *format_json;
};
_Static_assert(sizeof(struct ops_1_0) == offsetof(struct perfring_record_ops, parse_json),
	       "ABI 1.0 record ops end where parse_json begins");

static const struct perfring_record_ops abi10_ops = {
	.struct_size = sizeof(struct ops_1_0),
	.decode = abi10_decode,
	.format_text = abi10_format_text,
	.format_json = abi10_format_json,
};

static const uint32_t abi10_types[] = { 201 };

PERFRING_PLUGIN_EXTERN_C PERFRING_PLUGIN_EXPORT
const struct perfring_plugin_descriptor perfring_plugin_descriptor;
PERFRING_PLUGIN_EXPORT const struct perfring_plugin_descriptor perfring_plugin_descriptor = {
	.struct_size = sizeof(struct perfring_plugin_descriptor),
	.abi_major = PERFRING_PLUGIN_ABI_MAJOR,
	.abi_minor = 0,
	.name = "abi10",
	.version = "1.0",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = abi10_types,
	.n_types = 1,
	.record_ops = &abi10_ops,
};
