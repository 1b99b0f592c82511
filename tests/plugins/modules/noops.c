/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A record plugin without its required record_ops table. */
#include "bad-common.h"

PERFRING_PLUGIN_DEFINE(
	.name = "noops",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = PERFRING_PLUGIN_N(bad_types));

/* Keep bad_ops referenced so the compiler does not warn. */
PERFRING_PLUGIN_EXPORT const void *noops_unused(void);
PERFRING_PLUGIN_EXPORT const void *noops_unused(void)
{
	return &bad_ops;
}
