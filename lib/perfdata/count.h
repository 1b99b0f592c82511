/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data headers-only counting (lib/perfdata/count.c), behind
 * perfring_perfdata_count.  Private; built into the library and, alone,
 * into tests/check_perfdata_count (which calls it directly).
 */
#ifndef PERFRING_PERFDATA_COUNT_H
#define PERFRING_PERFDATA_COUNT_H

#include <stdint.h>

#include "util/internal.h"

/* the pieces the file is read in; data sections of less than
 * PR_COUNT_PARALLEL_MIN bytes are read by the calling thread alone */
#define PR_COUNT_CHUNK ((size_t)1 << 20)
#define PR_COUNT_PARALLEL_MIN ((uint64_t)8 << 20)

/*
 * Count the records of [start, end) of fd (file offsets) by their headers
 * with nthreads threads (1: the calling thread alone; 0: one per processor,
 * at most 4, and 1 below PR_COUNT_PARALLEL_MIN).  Returns 0 and fills st
 * (total, by_type, other, bytes; the rest 0) when every record was stepped
 * over by its size and the last one ends exactly at end.  Returns -1
 * (st untouched) on anything the walk does not simply step over: a size
 * below 8 or past end, a record whose payload lies outside its size
 * (HEADER_TRACING_DATA, AUXTRACE), a COMPRESSED record, a short read; the
 * caller then reads the records, which counts as perf does and says what
 * is wrong.
 */
PR_HIDDEN int pr_count_headers(int fd, uint64_t start, uint64_t end, unsigned nthreads,
			       struct perfring_perfdata_stats *st);

#endif
