/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: header features carried into a rewrite
 * (perfring_writer_copy_features: the byte-order swapper of every known
 * feature layout, the BUILD_ID merge, the TRACING_DATA check) and written
 * by the writer in file or pipe mode.
 *
 * Input: byte 0 the feature id, byte 1 flags (bit 0: the perf.data is
 * byte-swapped; bit 1: the output is a pipe-mode stream; bit 2: the file
 * also has an NRCPUS feature, whose 8 bytes follow), then the payload.
 * The target builds a file-mode perf.data holding one event and those
 * features, in memory, reads it back with the library's reader, copies
 * its features into a writer and reads the writer's output back.
 * Checked: no memory error or leak; the copy either succeeds or fails
 * with a documented error; the output is a perf.data the reader opens;
 * a native-order feature the writer does not build comes out byte for
 * byte (or is left out, for a TRACING_DATA the check refuses); a swapped
 * one keeps its size where it is kept.
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	perfring_set_log(fuzz_quiet_log, NULL);
	return 0;
}

static void put64(unsigned char *p, uint64_t v, int swap)
{
	if (swap)
		v = bswap_64(v);
	memcpy(p, &v, 8);
}

static void put32(unsigned char *p, uint32_t v, int swap)
{
	if (swap)
		v = bswap_32(v);
	memcpy(p, &v, 4);
}

/* A file-mode perf.data: header, one 64-byte attr without ids, no data,
 * one record, the features (ascending ids).  Returns its size in buf. */
static size_t build(unsigned char *buf, size_t cap, int swap, uint32_t id,
		    const uint8_t *pay, size_t n, const uint8_t *cpus)
{
	const size_t attr_off = 104, data_off = attr_off + 64 + 16;
	size_t nf = (cpus != NULL) + (id != 7 || !cpus), off, pos;
	uint64_t bits[4] = { 0 };

	if (data_off + 8 + 16 * nf + 8 + n > cap)
		return 0;
	memset(buf, 0, data_off);
	memcpy(buf, "PERFILE2", 8);
	if (swap)
		put64(buf, 0x32454c4946524550ull, 1);
	put64(buf + 8, 104, swap);
	put64(buf + 16, 64 + 16, swap);
	put64(buf + 24, attr_off, swap);
	put64(buf + 32, 64 + 16, swap);
	put64(buf + 40, data_off, swap);
	put64(buf + 48, 8, swap);
	put32(buf + attr_off + 4, 64, swap);	/* attr.size; type 0 (hardware), config 0 */
	/* data: one FINISHED_ROUND (an empty data section means "read on") */
	memset(buf + data_off, 0, 8);
	put32(buf + data_off, 68, swap);
	{
		uint16_t rsz = swap ? bswap_16(8) : 8;

		memcpy(buf + data_off + 6, &rsz, 2);
	}
	off = data_off + 8;
	pos = off + 16 * nf;
	if (cpus) {
		bits[0] |= 1ull << 7;
		put64(buf + off, pos, swap);
		put64(buf + off + 8, 8, swap);
		memcpy(buf + pos, cpus, 8);
		off += 16;
		pos += 8;
	}
	if (id != 7 || !cpus) {
		bits[id / 64] |= 1ull << (id % 64);
		put64(buf + off, pos, swap);
		put64(buf + off + 8, n, swap);
		memcpy(buf + pos, pay, n);
		pos += n;
	}
	for (int i = 0; i < 4; i++)
		put64(buf + 72 + 8 * i, bits[i], swap);
	return pos;
}

/* The payload of feature id in pd (NULL if none), its size in *n. */
static const void *feature_of(struct perfring_perfdata *pd, uint32_t id, uint64_t *n)
{
	for (uint32_t i = 0; i < perfring_perfdata_nr_features(pd); i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };

		if (perfring_perfdata_feature(pd, i, &f, NULL) == 0 && f.id == id) {
			*n = f.size;
			return f.data;
		}
	}
	return NULL;
}

static int memfd_with(const void *p, size_t n)
{
	int fd = memfd_create("fuzz-features", MFD_CLOEXEC);

	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(write(fd, p, n) == (ssize_t)n);
	FUZZ_ASSERT(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char file[70000], out[140000];
	struct perfring_perfdata *pd = NULL, *od = NULL;
	struct perfring_writer *w = NULL;
	struct perfring_diag diag = { 0 };
	struct perfring_attr attr = { .size = 64, .type = 1 };
	uint32_t id;
	int flags, swap, in_fd, out_fd, r;
	const uint8_t *cpus = NULL;
	size_t len, olen;
	uint64_t conflicts = 0;

	if (size < 2 || size > 65536)
		return 0;
	id = data[0];
	flags = data[1];
	swap = flags & 1;
	data += 2;
	size -= 2;
	if ((flags & 4) && size >= 8) {
		cpus = data;
		data += 8;
		size -= 8;
	}
	if (!id)
		return 0;
	len = build(file, sizeof(file), swap, id, data, size, cpus);
	if (!len)
		return 0;
	in_fd = memfd_with(file, len);
	r = perfring_perfdata_open_fd(in_fd, NULL, &diag, &pd);
	close(in_fd);
	if (r < 0)
		return 0;	/* the reader's own target covers refusals */
	out_fd = memfd_create("fuzz-features-out", MFD_CLOEXEC);
	FUZZ_ASSERT(out_fd >= 0);
	{
		PERFRING_WRITER_OPTS(o, .fd = out_fd, .pipe_mode = !!(flags & 2),
				     .kmap = PERFRING_WRITER_KMAP_NONE,
				     .host = PERFRING_WRITER_HOST_NONE, .argc = 1,
				     .argv = (const char *const[]){ "fuzz" });
		PERFRING_EVENT_DESC(ev, .attr = &attr, .name = "e");

		FUZZ_ASSERT(perfring_writer_open(&o, &diag, &w) == 0);
		FUZZ_ASSERT(perfring_writer_add_event(w, &ev, &diag) >= 0);
	}
	r = perfring_writer_copy_features(w, pd, PERFRING_WRITER_COPY_ALL, &conflicts, &diag);
	FUZZ_ASSERT(r >= 0 || r == -ENOMEM);
	FUZZ_ASSERT(conflicts == 0);	/* one input: nothing to clash with */
	{
		/* one empty SAMPLE (sample_type 0): a data section perf reads */
		const struct perfring_event_header s = { PERFRING_RECORD_SAMPLE, 0, 8 };

		FUZZ_ASSERT(perfring_writer_write(w, 0, &s, sizeof(s), &diag) == 0);
	}
	FUZZ_ASSERT(perfring_writer_close(w, &diag) == 0);
	olen = (size_t)lseek(out_fd, 0, SEEK_END);
	FUZZ_ASSERT(olen <= sizeof(out));
	FUZZ_ASSERT(pread(out_fd, out, olen, 0) == (ssize_t)olen);
	FUZZ_ASSERT(lseek(out_fd, 0, SEEK_SET) == 0);
	FUZZ_ASSERT(perfring_perfdata_open_fd(out_fd, NULL, &diag, &od) == 0);
	close(out_fd);
	if (!(flags & 2)) {
		uint64_t in_n = 0, out_n = 0;
		const void *in_p = feature_of(pd, id, &in_n);
		const void *out_p = feature_of(od, id, &out_n);
		int kept_as_is = id != 11 && id != 12 && id != 18 && id != 21 && id != 24 &&
				 id != 27;

		/* a swapped file without HOSTNAME: perf's rule (and the
		 * reader's) guesses the bitmap's word size, maybe wrong */
		FUZZ_ASSERT(in_p || swap);
		if (!in_p) {
		} else if (out_p && kept_as_is) {
			FUZZ_ASSERT(out_n == in_n);
			if (!swap || id == 1)
				FUZZ_ASSERT(!memcmp(out_p, in_p, in_n));
		} else if (kept_as_is && !swap && id != 1 && in_n) {
			FUZZ_ASSERT(0);	/* a native feature went missing */
		}
	}
	perfring_perfdata_close(od);
	perfring_perfdata_close(pd);
	return 0;
}
