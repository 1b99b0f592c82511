/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-rewrite: turn a perf.data that perf 6.1 recorded here into one that
 * another kernel or another perf would have written, record by record, for
 * tests/tools/replay-oldnew.sh.  Little-endian, file or pipe mode.
 *
 *   pd-rewrite comp2 IN OUT
 *	every COMPRESSED record (type 81, perf record -z) becomes a
 *	COMPRESSED2 (type 83, newer perf): u64 data_size after the header,
 *	then the same zstd bytes, padded to 8.
 *   pd-rewrite early-mmap2 IN OUT [noid]
 *	every MMAP2 record (without MMAP_BUILD_ID) becomes the early layout
 *	of kernels 3.12 to 3.15 (and RHEL 7's 3.10): no prot and flags, the
 *	filename at byte 64 instead of 72.  With "noid", the first attr
 *	loses sample_id_all and every kernel record but SAMPLE its trailer,
 *	as a perf that did not ask for it would have written them.
 *
 * The data section's size and the feature sections' offsets follow.
 * Prints "OFFSET TYPE" (in OUT) for every rewritten record.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *in;
static size_t in_len;

static uint16_t g16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t g32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t g64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void p16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void p32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void p64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static unsigned char *out;
static size_t out_len, out_cap;

static void put(const void *d, size_t n)
{
	if (out_len + n > out_cap) {
		out_cap = (out_len + n) * 2;
		out = realloc(out, out_cap);
		if (!out)
			exit(2);
	}
	memcpy(out + out_len, d, n);
	out_len += n;
}

static int mode_comp2, mode_mmap2, noid;
static size_t trailer;		/* the first attr's sample_id_all trailer */

#define SAMPLE_TID (1u << 1)
#define SAMPLE_TIME (1u << 2)
#define SAMPLE_ID (1u << 6)
#define SAMPLE_CPU (1u << 7)
#define SAMPLE_STREAM_ID (1u << 9)
#define SAMPLE_IDENTIFIER (1u << 16)
#define SAMPLE_ID_ALL_BIT (1ull << 18)	/* attr flags bit */

static size_t trailer_of(uint64_t st)
{
	return 8 * (size_t)__builtin_popcountll(st & (SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID |
						      SAMPLE_CPU | SAMPLE_STREAM_ID |
						      SAMPLE_IDENTIFIER));
}

/* One record at in+off; the bytes it becomes go to out. */
static void one(const unsigned char *r, size_t size)
{
	uint32_t type = g32(r);
	unsigned char buf[65536 + 16];
	size_t n = size;

	memcpy(buf, r, size);
	if (mode_comp2 && type == 81) {
		size_t data = size - 8, total = (16 + data + 7) & ~(size_t)7;

		if (total > 65528) {
			fprintf(stderr, "pd-rewrite: a COMPRESSED record too big for COMPRESSED2\n");
			exit(2);
		}
		memset(buf, 0, total);
		p32(buf, 83);
		p16(buf + 4, g16(r + 4));
		p16(buf + 6, (uint16_t)total);
		p64(buf + 8, data);
		memcpy(buf + 16, r + 8, data);
		n = total;
		printf("%zu 83\n", out_len);
	} else if (mode_mmap2 && type == 10 && !(g16(r + 4) & (1u << 14)) && size > 72) {
		size_t len = strnlen((const char *)r + 72, size - 72);
		size_t body = 72 + ((len + 1 + 7) & ~(size_t)7);
		size_t tr = size - body, nb = body - 8;

		if (len == size - 72 || body > size) {
			fprintf(stderr, "pd-rewrite: an MMAP2 record without a filename\n");
			exit(2);
		}
		memcpy(buf + 64, r + 72, body - 72);	/* the filename */
		if (noid)
			tr = 0;
		else
			memcpy(buf + nb, r + body, tr);
		n = nb + tr;
		p16(buf + 6, (uint16_t)n);
		printf("%zu 10\n", out_len);
	} else if (noid && type >= 1 && type < 64 && type != 9 && size >= 8 + trailer) {
		n = size - trailer;
		p16(buf + 6, (uint16_t)n);
	}
	put(buf, n);
}

/* Records in [off, end) of in. */
static void records(size_t off, size_t end)
{
	while (off + 8 <= end) {
		uint32_t type = g32(in + off);
		size_t size = g16(in + off + 6);

		if (size < 8 || off + size > end) {
			fprintf(stderr, "pd-rewrite: bad record at %zu\n", off);
			exit(2);
		}
		one(in + off, size);
		/* pipe-mode payloads after the record: copied as they are */
		if (type == 66 && off + size + 0 <= end) {	/* TRACING_DATA: u32 size */
			size_t extra = g32(in + off + 8);

			if (off + size + extra > end)
				exit(2);
			put(in + off + size, extra);
			size += extra;
		} else if (type == 71) {	/* AUXTRACE: u64 size */
			size_t extra = g64(in + off + 8);

			if (off + size + extra > end)
				exit(2);
			put(in + off + size, extra);
			size += extra;
		}
		off += size;
	}
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc < 4 || (strcmp(argv[1], "comp2") && strcmp(argv[1], "early-mmap2"))) {
		fprintf(stderr, "usage: pd-rewrite comp2|early-mmap2 IN OUT [noid]\n");
		return 2;
	}
	mode_comp2 = !strcmp(argv[1], "comp2");
	mode_mmap2 = !mode_comp2;
	noid = mode_mmap2 && argc > 4 && !strcmp(argv[4], "noid");
	f = fopen(argv[2], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	in_len = (size_t)ftell(f);
	rewind(f);
	in = malloc(in_len + 1);
	if (!in || fread(in, 1, in_len, f) != in_len)
		return 2;
	fclose(f);
	if (in_len < 16 || memcmp(in, "PERFILE2", 8)) {
		fprintf(stderr, "pd-rewrite: not a little-endian perf.data\n");
		return 2;
	}
	if (g64(in + 8) == 16) {
		/* pipe mode: the header, then records; the first attr is an ATTR record */
		size_t off = 16;

		put(in, 16);
		if (noid) {
			/* ATTR records: clear sample_id_all in each */
			for (size_t o = 16; o + 8 <= in_len; o += g16(in + o + 6)) {
				if (g16(in + o + 6) < 8)
					return 2;
				if (g32(in + o) == 64) {
					uint64_t fl = g64(in + o + 8 + 40);

					if (!trailer)
						trailer = trailer_of(g64(in + o + 8 + 24));
					p64(in + o + 8 + 40, fl & ~SAMPLE_ID_ALL_BIT);
				}
				if (g32(in + o) == 66 || g32(in + o) == 71)
					break;	/* no ATTR after a payload */
			}
		}
		records(off, in_len);
	} else {
		uint64_t hsize = g64(in + 8), attrs = g64(in + 24), data = g64(in + 40);
		uint64_t dsize = g64(in + 48), end = data + dsize;
		int64_t delta;

		if (hsize < 104 || end > in_len)
			return 2;
		if (noid) {
			/* every attr entry (attr_size bytes of attr, then its ids section) */
			uint64_t asz = g64(in + 16), n = g64(in + 32) / asz;

			trailer = trailer_of(g64(in + attrs + 24));
			for (uint64_t i = 0; i < n; i++) {
				unsigned char *a = in + attrs + i * asz;

				p64(a + 40, g64(a + 40) & ~SAMPLE_ID_ALL_BIT);
			}
		}
		put(in, data);
		records(data, end);
		delta = (int64_t)(out_len - data) - (int64_t)dsize;
		p64(out + 48, out_len - data);
		/* the feature table follows the data: one section per bit */
		{
			size_t nfeat = 0, tab = out_len;

			for (unsigned b = 0; b < 256; b++)
				nfeat += (in[72 + b / 8] >> (b % 8)) & 1;
			put(in + end, in_len - end);
			for (size_t i = 0; i < nfeat; i++) {
				unsigned char *s = out + tab + 16 * i;

				p64(s, (uint64_t)((int64_t)g64(s) + delta));
			}
		}
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(out, 1, out_len, f) != out_len || fclose(f))
		return 2;
	return 0;
}
