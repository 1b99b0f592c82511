/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data format's constants, for the reader (perfdata/), the writer
 * (writer/) and the sources (source/): the one place they are spelled.
 * Feature ids are the public PERFRING_FEAT_* of <perfring/perfdata.h>.
 * Never installed.
 */
#ifndef PERFRING_PERFDATA_FORMAT_H
#define PERFRING_PERFDATA_FORMAT_H

/* The first 8 bytes as a u64 read in the writer's byte order. */
#define PR_PD_MAGIC		0x32454c4946524550ull	/* "PERFILE2" */
#define PR_PD_MAGIC_V1		0x454c494646524550ull	/* "PERFFILE": legacy, either order */
#define PR_PD_MAGIC_STR		"PERFILE2"

#define PR_PD_FILE_HEADER_SIZE	104u	/* with the feature bitmap */
#define PR_PD_OLD_HEADER_SIZE	72u	/* without it (2.6.31/32) */
#define PR_PD_PIPE_HEADER_SIZE	16u	/* magic, size */

#define PR_PD_NR_FEAT_IDS	256u	/* bits of the header's feature bitmap */
#define PR_PD_FEAT_LAST_61	32u	/* HEADER_LAST_FEATURE of perf 6.1 */

/* The on-disk attr sizes this library knows (VER8), and the largest
 * attr.size accepted (perf has none; the kernel caps at a page). */
#define PR_PD_ATTR_KNOWN	136u
#define PR_PD_ATTR_MAX		4096u

#endif
