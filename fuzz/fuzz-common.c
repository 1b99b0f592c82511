/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <perfring/perfring.h>

#include "fuzz.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, what);
	abort();
}

void fuzz_quiet_log(enum perfring_log_level level, const char *msg, void *user)
{
	(void)level;
	(void)msg;
	(void)user;
}
