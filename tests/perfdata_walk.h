/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-only walker for file-mode perf.data (native endian only): the file
 * header, the attrs with their ids, and the records of the data section.
 * It is scaffolding for the codec tests, not the library's reader.
 */
#ifndef PERFRING_TESTS_PERFDATA_WALK_H
#define PERFRING_TESTS_PERFDATA_WALK_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct pdw_attr {
	struct perfring_attr attr;	/* attr.size bytes from the file, rest 0 */
	const uint64_t *ids;		/* unaligned-safe copy (malloc'd) */
	size_t nr_ids;
};

struct pdw_file {
	unsigned char *buf;		/* whole file */
	size_t len;
	uint64_t data_offset, data_size;
	struct pdw_attr *attrs;
	size_t nr_attrs;
};

/* Read path into f.  Returns 0 or a negative errno; err gets a message. */
int pdw_open(const char *path, struct pdw_file *f, char *err, size_t errlen);
void pdw_close(struct pdw_file *f);

/*
 * Next record of the data section.  *pos is the offset within the data
 * section (start with 0).  Returns 1 with *rec / *size set, 0 at the end,
 * -EBADMSG if a header is malformed (size < 8 or past the section).
 */
int pdw_next(const struct pdw_file *f, uint64_t *pos, const void **rec,
	     size_t *size);

/*
 * The attr a kernel record belongs to, found the way perf does: the only
 * attr, else by IDENTIFIER / ID (id_pos for SAMPLE, is_pos from the end for
 * the others); id 0 or an unknown id gives the first attr.
 */
const struct pdw_attr *pdw_attr_of(const struct pdw_file *f, const void *rec,
				   size_t size);

#endif
