/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Built against a future, incompatible plugin ABI major. */
#include "bad-common.h"

BAD_EXPORT = {
	.struct_size = sizeof(struct perfring_plugin_descriptor),
	.abi_major = PERFRING_PLUGIN_ABI_MAJOR + 1,
	.abi_minor = 0,
	.name = "badmajor",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = 1,
	.record_ops = &bad_ops,
};
