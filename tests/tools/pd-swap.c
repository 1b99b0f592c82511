/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-swap IN OUT: write the big-endian perf.data a big-endian perf would
 * have written for the little-endian IN (tests/pd-testlib.c's swapper,
 * independent of the library's).  Exit 0, or 1 with the reason.
 */
#include "config.h"

#include <stdio.h>

#include "pd-testlib.h"

int main(int argc, char **argv)
{
	struct pdt_buf in = { 0 }, out = { 0 };
	char why[256] = "";
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: pd-swap IN OUT\n");
		return 2;
	}
	pdt_slurp(argv[1], &in);
	if (pdt_swap_perfdata(in.p, in.len, &out, why, sizeof(why)) < 0) {
		fprintf(stderr, "pd-swap: %s: %s\n", argv[1], why);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	pdt_free(&in);
	pdt_free(&out);
	return 0;
}
