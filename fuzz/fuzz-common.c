/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, what);
	abort();
}
