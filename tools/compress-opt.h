/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * -z / --compression-level[=N] of perfring-record and perfring-replay,
 * spelled as perf record spells it: -z is level 1, N from 1 (fastest) to
 * 22 (smallest), 0 no compression.
 */
#ifndef PERFRING_COMPRESS_OPT_H
#define PERFRING_COMPRESS_OPT_H

#include <glib.h>

/* Add the option to ctx's main group. */
void compress_opt_add(GOptionContext *ctx);

/* The level given (0: none). */
int compress_opt_level(void);

#endif
