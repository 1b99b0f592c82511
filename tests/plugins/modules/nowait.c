/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A backend plugin whose table lacks its (required) wait function. */
#include "bad-backend.h"

static const struct perfring_backend_ops ops = {
	.struct_size = sizeof(ops), BAD_BACKEND_OPS_BUT_WAIT,
};

PERFRING_PLUGIN_DEFINE(.name = "nowait", .kind = PERFRING_PLUGIN_KIND_BACKEND,
		       .backend_ops = &ops);
