/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A backend plugin whose table says it ends before target(). */
#include <stddef.h>

#include "bad-backend.h"

static const struct perfring_backend_ops ops = {
	.struct_size = offsetof(struct perfring_backend_ops, target),
	BAD_BACKEND_OPS_BUT_WAIT, .wait = bb_wait,
};

PERFRING_PLUGIN_DEFINE(.name = "smallbackend", .kind = PERFRING_PLUGIN_KIND_BACKEND,
		       .backend_ops = &ops);
