/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plugin whose init function fails. */
#include "bad-common.h"

static int fail_init(void)
{
	return -EIO;
}

PERFRING_PLUGIN_DEFINE(
	.name = "initfail",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = PERFRING_PLUGIN_N(bad_types),
	.init = fail_init,
	.record_ops = &bad_ops);
