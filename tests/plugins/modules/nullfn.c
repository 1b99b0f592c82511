/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bad plugin for tests/plugins/check_plugin_perms.c: a record plugin of the right ABI
 * whose record_ops lacks format_json, with an init function that aborts.
 * The host must refuse it from its descriptor alone, before init runs.
 */
#include <stdlib.h>

#include <perfring/plugin.h>

static int nullfn_init(void)
{
	abort();	/* never called: the descriptor is invalid */
}

static int nullfn_decode(const struct perfring_attr *attr, const void *rec,
			 size_t size, void *typed_out, size_t out_size,
			 struct perfring_sample_id *sid_out,
			 struct perfring_diag *diag)
{
	abort();
}

static int nullfn_format(const struct perfring_attr *attr, const void *rec,
			 size_t size, char *buf, size_t len)
{
	abort();
}

static const struct perfring_record_ops nullfn_ops = {
	.struct_size = sizeof(nullfn_ops),
	.decode = nullfn_decode,
	.format_text = nullfn_format,
	.format_json = NULL,
};

static const uint32_t nullfn_types[] = { 201 };

PERFRING_PLUGIN_DEFINE(
	.name = "nullfn",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = nullfn_types,
	.n_types = PERFRING_PLUGIN_N(nullfn_types),
	.record_ops = &nullfn_ops,
	.init = nullfn_init);
