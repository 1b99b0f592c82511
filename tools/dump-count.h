/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-dump --stats on a plain file-mode perf.data: count the records
 * of [start, end) of a regular file by walking their headers, with the
 * file read by several threads at once (page-cache copies are the whole
 * cost of counting; two cores copy about twice as fast as one).
 */
#ifndef PERFRING_DUMP_COUNT_H
#define PERFRING_DUMP_COUNT_H

#include <stdint.h>

/* the pieces the file is read in; files of less than DUMP_COUNT_PARALLEL_MIN
 * bytes of data are read by the calling thread alone */
#define DUMP_COUNT_CHUNK ((size_t)1 << 20)
#define DUMP_COUNT_PARALLEL_MIN ((uint64_t)8 << 20)

struct dump_count {
	uint64_t *by_type;	/* ntypes counters, filled in */
	uint32_t ntypes;
	uint64_t other;		/* records of type >= ntypes */
	uint64_t total;
	uint64_t bytes;
};

/*
 * Count the records of [start, end) of fd.  Returns 0 when every record
 * was stepped over by its size and the last one ends exactly at end.
 * Returns -1 (counting nothing the caller should use) on anything the walk
 * does not simply step over: a size below 8 or past end, a record whose
 * payload lies outside its size (HEADER_TRACING_DATA, AUXTRACE), a
 * COMPRESSED record, a short read; the caller then hands the file to the
 * reader, which counts as perf does and says what is wrong.
 */
int dump_count_records(int fd, uint64_t start, uint64_t end, struct dump_count *c);

/* the same with nthreads threads (1: the calling thread alone; 0: one per
 * processor, at most 4) whatever the size: for the tests */
int dump_count_records_threads(int fd, uint64_t start, uint64_t end, struct dump_count *c,
			       unsigned nthreads);

#endif
