/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mkring FILE DATA_SIZE: fill a file-backed ring of DATA_SIZE bytes (rounded
 * up to a power of two pages) with what a profiler of a few processes
 * writes: COMM, MMAP2 and FORK for each process, then cpu-clock SAMPLEs with
 * 16-frame callchains, times increasing, until the ring is full.  Used as
 * the common input of the replay and memory benchmarks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perfring.h>

#define NPROC 64
#define NFRAMES 16

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void put_hdr(unsigned char *p, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(p, type);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size, 2);
}

/* trailer for sample_type IP|TID|TIME|PERIOD|CALLCHAIN: TID, TIME */
static void trailer(unsigned char *p, uint32_t pid, uint64_t t)
{
	put32(p, pid);
	put32(p + 4, pid);
	put64(p + 8, t);
}

int main(int argc, char **argv)
{
	static uint64_t id = 7;
	struct perfring_attr attr;
	PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &id, .nr_ids = 1, .name = "cpu-clock");
	struct perfring_ring *r;
	unsigned char rec[512];
	uint64_t size, pg = (uint64_t)sysconf(_SC_PAGESIZE), t = 1000000000ull, n = 0;
	uint64_t chain[NFRAMES];
	int err, i;

	if (argc != 3) {
		fprintf(stderr, "usage: mkring FILE DATA_SIZE\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	for (uint64_t s = pg; ; s <<= 1)
		if (s >= size) {
			size = s;
			break;
		}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERFRING_TYPE_SOFTWARE;
	attr.size = PERFRING_ATTR_SIZE_VER8;
	attr.config = 0;	/* cpu-clock */
	attr.sample_period = 10000;
	attr.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			   PERFRING_SAMPLE_PERIOD | PERFRING_SAMPLE_CALLCHAIN;
	attr.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_COMM | PERFRING_ATTR_MMAP2 |
		     PERFRING_ATTR_TASK | PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_HV;
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = argv[1],
				   .data_size = size, .flags = PERFRING_RING_TRUNCATE,
				   .events = &ev, .nr_events = 1);

		err = perfring_ring_create(&o, NULL, &r);
	}
	if (err) {
		fprintf(stderr, "mkring: %s: %s\n", argv[1], strerror(-err));
		return 2;
	}
	/* side band: FORK from pid 1, COMM, MMAP2 of the executable */
	for (i = 0; i < NPROC; i++) {
		uint32_t pid = 2000 + (uint32_t)i;

		memset(rec, 0, sizeof(rec));
		put_hdr(rec, PERFRING_RECORD_FORK, 0, 48);
		put32(rec + 8, pid);
		put32(rec + 12, 1);
		put32(rec + 16, pid);
		put32(rec + 20, 1);
		put64(rec + 24, t);
		trailer(rec + 32, 1, t++);
		perfring_ring_write(r, rec);

		memset(rec, 0, sizeof(rec));
		put_hdr(rec, PERFRING_RECORD_COMM, PERFRING_MISC_COMM_EXEC, 48);
		put32(rec + 8, pid);
		put32(rec + 12, pid);
		snprintf((char *)rec + 16, 16, "bench-%d", i);
		trailer(rec + 32, pid, t++);
		perfring_ring_write(r, rec);

		memset(rec, 0, sizeof(rec));
		put_hdr(rec, PERFRING_RECORD_MMAP2, PERFRING_MISC_USER, 112);
		put32(rec + 8, pid);
		put32(rec + 12, pid);
		put64(rec + 16, 0x400000);
		put64(rec + 24, 0x100000);
		put64(rec + 32, 0);
		put32(rec + 40, 8);
		put32(rec + 44, 1);
		put64(rec + 48, 4242);
		put32(rec + 64, 5);
		put32(rec + 68, 2);
		memcpy(rec + 72, "/usr/bin/bench-prog", 20);
		trailer(rec + 96, pid, t++);
		perfring_ring_write(r, rec);
	}
	/* samples until the ring is full */
	for (;;) {
		struct perfring_sample s;
		uint32_t pid = 2000 + (uint32_t)(n % NPROC);
		int len;

		memset(&s, 0, sizeof(s));
		s.ip = 0x401000 + (n * 64) % 0x80000;
		s.pid = s.tid = pid;
		s.time = t;
		t += 10000;
		s.period = 10000;
		chain[0] = PERFRING_CONTEXT_USER;
		for (i = 1; i < NFRAMES; i++)
			chain[i] = 0x401000 + ((n + (uint64_t)i * 977) * 64) % 0x80000;
		s.callchain_nr = NFRAMES;
		s.callchain = chain;
		len = perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, rec, sizeof(rec));
		if (len < 0) {
			fprintf(stderr, "mkring: sample_encode: %s\n", strerror(-len));
			return 2;
		}
		err = perfring_ring_write(r, rec);
		if (err == -ENOSPC)
			break;
		if (err) {
			fprintf(stderr, "mkring: write: %s\n", strerror(-err));
			return 2;
		}
		n++;
	}
	printf("mkring: %s: %" PRIu64 " samples, data_size %" PRIu64 "\n", argv[1], n, size);
	perfring_ring_close(r);
	return 0;
}
