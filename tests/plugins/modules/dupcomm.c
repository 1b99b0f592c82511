/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A valid plugin that claims COMM, which the comm plugin already claims. */
#include "bad-common.h"

static const uint32_t dup_types[] = { PERFRING_RECORD_COMM };

PERFRING_PLUGIN_DEFINE(
	.name = "dupcomm",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = dup_types,
	.n_types = PERFRING_PLUGIN_N(dup_types),
	.record_ops = &bad_ops);
