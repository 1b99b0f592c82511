/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Built against a newer plugin ABI minor than the host's. */
#include "bad-common.h"

BAD_EXPORT = {
	.struct_size = sizeof(struct perfring_plugin_descriptor),
	.abi_major = PERFRING_PLUGIN_ABI_MAJOR,
	.abi_minor = PERFRING_PLUGIN_ABI_MINOR + 1,
	.name = "newminor",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = 1,
	.record_ops = &bad_ops,
};
