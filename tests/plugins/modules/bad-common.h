/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deliberately bad plugins for tests/plugins/check_plugins.c.  Each defines its
 * descriptor by hand (not with PERFRING_PLUGIN_DEFINE) where it needs to
 * lie about its ABI.  Their functions must never run: the host validates
 * the descriptor first.
 */
#ifndef PERFRING_TEST_BAD_COMMON_H
#define PERFRING_TEST_BAD_COMMON_H

#include <errno.h>
#include <stdlib.h>

#include <perfring/plugin.h>

static int bad_decode(const struct perfring_attr *attr, const void *rec,
		      size_t size, void *typed_out, size_t out_size,
		      struct perfring_sample_id *sid_out,
		      struct perfring_diag *diag)
{
	abort();	/* the host must not call an invalid plugin */
}

static int bad_format(const struct perfring_attr *attr, const void *rec,
		      size_t size, char *buf, size_t len)
{
	abort();
}

static const struct perfring_record_ops bad_ops = {
	.struct_size = sizeof(bad_ops),
	.decode = bad_decode,
	.format_text = bad_format,
	.format_json = bad_format,
};

/* A type no real plugin claims. */
static const uint32_t bad_types[] = { 200 };

#define BAD_EXPORT PERFRING_PLUGIN_EXTERN_C PERFRING_PLUGIN_EXPORT		\
	const struct perfring_plugin_descriptor perfring_plugin_descriptor;	\
	PERFRING_PLUGIN_EXPORT const struct perfring_plugin_descriptor		\
	perfring_plugin_descriptor

#endif
