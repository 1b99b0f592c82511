/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dump-mkbad: inputs with known problems for tests/tools/dump-check.sh.
 *
 *   dump-mkbad ring RING    a ring file (normal mode, sample_id_all) with
 *                           good records and, among them, bad ones
 *   dump-mkbad pipe FILE    a pipe-mode perf.data with the same, plus
 *                           FINISHED_ROUND order violations
 *   dump-mkbad good FILE    a pipe-mode perf.data with only good records
 *
 * Prints "WHAT OFFSET" for each bad record (byte offset in the file), so
 * that the test can expect a --check message at exactly that offset.  WHAT:
 *   short8    MMAP2 record 8 bytes short of its sample_id_all trailer
 *   comm32    COMM record without its trailer (32 bytes short)
 *   chain     SAMPLE whose callchain count runs past the record
 *   unknownid SAMPLE whose id matches no attr
 *   backward  ring: SAMPLE older than the previous one of its tid and cpu
 *   order     pipe: SAMPLE older than the previous round's newest record
 *   exitlong  EXIT record 8 bytes longer than body + trailer
 *   attr2     pipe: a second HEADER_ATTR whose sample id is not where the
 *             first one has it (perf: non matching sample_type)
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <perfring/perfring.h>

#define ST (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | \
	    PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD | \
	    PERFRING_SAMPLE_CALLCHAIN)

static const uint64_t chain[2] = { PERFRING_CONTEXT_USER, 0x400100 };

static const struct perfring_attr attr = {
	.type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER7,
	.sample_period = 1000, .sample_type = ST,
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL |
		 PERFRING_ATTR_MMAP2 | PERFRING_ATTR_COMM | PERFRING_ATTR_TASK,
};

static uint64_t ID = 7;

/* Output: a ring, or a pipe-mode stream. */
static struct perfring_ring *ring;
static FILE *out;
static uint64_t out_off;

static uint64_t emit(const void *rec, size_t size)
{
	uint64_t off;

	if (ring) {
		struct perfring_wr w;

		if (perfring_ring_reserve(ring, size, &w) < 0)
			return 0;
		perfring_ring_copy(ring, &w, 0, rec, size);
		perfring_ring_commit(ring, &w);
		return perfring_ring_data_file_offset(ring) +
		       (w.pos & (perfring_ring_data_size(ring) - 1));
	}
	off = out_off;
	fwrite(rec, 1, size, out);
	out_off += size;
	return off;
}

static void hdr(unsigned char *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	memcpy(b, &type, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &s, 2);
}

static size_t trailer(unsigned char *b, size_t at, uint64_t t)
{
	struct perfring_sample_id sid = { .pid = 42, .tid = 42, .time = t, .cpu = 0,
					  .identifier = ID };

	return (size_t)perfring_sample_id_encode(ST, &sid, b + at, 64);
}

/* COMM "guest" (+ trailer unless cut); returns the offset */
static uint64_t comm(uint64_t t, size_t cut)
{
	unsigned char b[128] = { 0 };
	uint32_t pid = 42;
	size_t n = 16;

	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &pid, 4);
	memcpy(b + 16, "guest", 6);
	n += 8;
	n += trailer(b, n, t);
	n -= cut;
	hdr(b, PERFRING_RECORD_COMM, PERFRING_MISC_COMM_EXEC, n);
	return emit(b, n);
}

static uint64_t mmap2(uint64_t t, size_t cut)
{
	unsigned char b[256] = { 0 };
	uint32_t pid = 42, prot = 5, flags = 2;
	uint64_t start = 0x400000, len = 0x1000, pgoff = 0;
	const char *name = "/usr/lib/x86_64-linux-gnu/libguest.so.1";
	size_t n = 72, l = strlen(name) + 1;

	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &pid, 4);
	memcpy(b + 16, &start, 8);
	memcpy(b + 24, &len, 8);
	memcpy(b + 32, &pgoff, 8);
	memcpy(b + 64, &prot, 4);
	memcpy(b + 68, &flags, 4);
	memcpy(b + 72, name, l);
	n += (l + 7) & ~(size_t)7;
	n += trailer(b, n, t);
	n -= cut;
	hdr(b, PERFRING_RECORD_MMAP2, PERFRING_MISC_USER, n);
	return emit(b, n);
}

static uint64_t exit_rec(uint64_t t, size_t extra)
{
	unsigned char b[128] = { 0 };
	uint32_t pid = 42;
	size_t n = 32;

	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &pid, 4);
	memcpy(b + 16, &pid, 4);
	memcpy(b + 20, &pid, 4);
	memcpy(b + 24, &t, 8);
	n += extra;
	n += trailer(b, n, t);
	hdr(b, PERFRING_RECORD_EXIT, 0, n);
	return emit(b, n);
}

static uint64_t sample(uint64_t t, uint64_t id)
{
	struct perfring_sample s = { .identifier = id, .ip = 0x400100 + t, .pid = 42,
				     .tid = 42, .time = t, .period = 1000,
				     .callchain_nr = 2, .callchain = chain };
	unsigned char b[128];
	int n = perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, b, sizeof(b));

	return n < 0 ? 0 : emit(b, (size_t)n);
}

/* A SAMPLE whose callchain says 1000 entries (nr is at byte 56). */
static uint64_t sample_bad_chain(uint64_t t)
{
	struct perfring_sample s = { .identifier = ID, .ip = 0x400100, .pid = 42,
				     .tid = 42, .time = t, .period = 1000,
				     .callchain_nr = 2, .callchain = chain };
	unsigned char b[128];
	uint64_t nr = 1000;
	int n = perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, b, sizeof(b));

	if (n < 0)
		return 0;
	memcpy(b + 56, &nr, 8);
	return emit(b, (size_t)n);
}

static void finished_round(void)
{
	unsigned char b[8];

	hdr(b, PERFRING_RECORD_FINISHED_ROUND, 0, 8);
	emit(b, 8);
}

static uint64_t header_attr(const struct perfring_attr *a, uint64_t id)
{
	unsigned char b[8 + sizeof(attr) + 8] = { 0 };
	size_t n = 8 + PERFRING_ATTR_SIZE_VER7;

	memcpy(b + 8, a, PERFRING_ATTR_SIZE_VER7);
	memcpy(b + n, &id, 8);
	n += 8;
	hdr(b, PERFRING_RECORD_HEADER_ATTR, 0, n);
	return emit(b, n);
}

int main(int argc, char **argv)
{
	int good;

	if (argc != 3 || (strcmp(argv[1], "ring") && strcmp(argv[1], "pipe") &&
			  strcmp(argv[1], "good"))) {
		fprintf(stderr, "usage: dump-mkbad ring|pipe|good FILE\n");
		return 2;
	}
	good = !strcmp(argv[1], "good");
	if (!strcmp(argv[1], "ring")) {
		PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &ID, .nr_ids = 1, .name = "guest-clock");
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = argv[2],
				   .data_size = 65536, .events = &ev, .nr_events = 1,
				   .flags = PERFRING_RING_TRUNCATE);

		if (perfring_ring_create(&o, NULL, &ring) < 0) {
			fprintf(stderr, "dump-mkbad: cannot create %s\n", argv[2]);
			return 1;
		}
	} else {
		out = fopen(argv[2], "wb");
		if (!out) {
			perror(argv[2]);
			return 1;
		}
		fwrite("PERFILE2\x10\0\0\0\0\0\0\0", 1, 16, out);
		out_off = 16;
		header_attr(&attr, ID);
	}
	comm(1000, 0);
	mmap2(1010, 0);
	sample(1100, ID);
	if (!good) {
		printf("short8 %" PRIu64 "\n", mmap2(1120, 8));
		printf("comm32 %" PRIu64 "\n", comm(1130, 32));
	}
	sample(1200, ID);
	if (!good) {
		printf("chain %" PRIu64 "\n", sample_bad_chain(1210));
		printf("unknownid %" PRIu64 "\n", sample(1220, 99));
	}
	sample(1300, ID);
	if (ring) {
		printf("backward %" PRIu64 "\n", sample(1250, ID));
	} else {
		finished_round();
		sample(1400, ID);
		finished_round();
		sample(1500, ID);
		if (!good)	/* older than 1300, the newest before the first round */
			printf("order %" PRIu64 "\n", sample(1250, ID));
		else
			sample(1450, ID);	/* older than 1500 but not than 1300 */
		finished_round();
	}
	if (!good)
		printf("exitlong %" PRIu64 "\n", exit_rec(1600, 8));
	exit_rec(1700, 0);
	sample(1800, ID);
	if (out && !good) {
		struct perfring_attr a2 = attr;

		a2.sample_type = (ST & ~PERFRING_SAMPLE_IDENTIFIER) | PERFRING_SAMPLE_ID;
		printf("attr2 %" PRIu64 "\n", header_attr(&a2, 8));
	}
	if (ring)
		perfring_ring_close(ring);
	else if (fclose(out) != 0)
		return 1;
	return 0;
}
