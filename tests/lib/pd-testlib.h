/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-side helpers for the perf.data reader tests: a byte buffer, a
 * builder of synthetic perf.data files (any attr size, old 72-byte
 * header), and an independent byte-swapper that turns a little-endian
 * perf.data into the big-endian file a big-endian perf would have written.
 * Written from the format description (doc/perf-format.md 5), not from
 * lib/perfdata/swap.c, so that a wrong rule does not cancel itself out.
 */
#ifndef PERFRING_PD_TESTLIB_H
#define PERFRING_PD_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct pdt_buf {
	unsigned char *p;
	size_t len, cap;
};

void pdt_put(struct pdt_buf *b, const void *d, size_t n);
void pdt_u16(struct pdt_buf *b, uint16_t v);
void pdt_u32(struct pdt_buf *b, uint32_t v);
void pdt_u64(struct pdt_buf *b, uint64_t v);
void pdt_zero(struct pdt_buf *b, size_t n);
void pdt_free(struct pdt_buf *b);

/* Read a whole file (aborts on error). */
void pdt_slurp(const char *path, struct pdt_buf *out);
/* A sealed-less memfd holding the bytes, positioned at 0. */
int pdt_memfd(const void *p, size_t n);

/* A perf string feature value: u32 len (padded to 8) + string. */
void pdt_str(struct pdt_buf *b, const char *s);

struct pdt_feat {
	unsigned id;
	const void *data;
	size_t size;
};

/*
 * Build a file-mode perf.data: header (hdr_size 104, or 72 without the
 * feature bitmap), the ids of every attr, the attr entries (attr_bytes
 * bytes each, taken from attrs[i], which also holds attr.size as the file
 * should say), the data section, the feature table and payloads.
 */
void pdt_build(struct pdt_buf *out, size_t hdr_size, size_t attr_bytes,
	       size_t nr_attrs, const void *const *attrs,
	       const uint64_t *const *ids, const size_t *nr_ids,
	       const void *data, size_t data_len,
	       const struct pdt_feat *feats, size_t nr_feats);

/*
 * Swap a little-endian perf.data (file or pipe mode) into big-endian.  The
 * feature sections it cannot swap are dropped (file mode) or copied as they
 * are (pipe mode).  Returns 0, or -1 with a reason in why if a record type
 * or sample field it does not know is met.
 */
int pdt_swap_perfdata(const unsigned char *in, size_t len, struct pdt_buf *out,
		      char *why, size_t why_len);

/* perf report -D names of record types, NULL if none. */
const char *pdt_type_name(uint32_t type);

#endif
