/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A descriptor that claims to be smaller than ABI 1.0's. */
#include "bad-common.h"

BAD_EXPORT = {
	.struct_size = 16,
	.abi_major = PERFRING_PLUGIN_ABI_MAJOR,
	.abi_minor = 0,
	.name = "smalldesc",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = 1,
	.record_ops = &bad_ops,
};
