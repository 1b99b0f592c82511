/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hello-ring: the smallest libperfring producer and consumer.
 *
 * Creates a self-describing file ring with one software event, writes a few
 * SAMPLE records into it (the way an emulator or JIT would), then opens the
 * file again as a reader, as another process would, and prints each record.
 *
 *   cc hello-ring.c $(pkg-config --cflags --libs perfring) -o hello-ring
 *   ./hello-ring /tmp/hello.ring
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <perfring/perfring.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "hello.ring";
	struct perfring_attr attr = {
		.type = PERFRING_TYPE_SOFTWARE,
		.size = PERFRING_ATTR_SIZE_VER7,
		.config = 0, /* cpu-clock */
		.sample_period = 100000,
		.sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP |
			       PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			       PERFRING_SAMPLE_PERIOD,
		.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL,
	};
	uint64_t id = 1;
	struct perfring_event_desc ev = { .attr = &attr, .ids = &id, .nr_ids = 1,
					  .name = "cpu-clock" };
	PERFRING_RING_OPTS(opts, .backing = PERFRING_RING_FILE, .path = path,
			   .data_size = 16 * 4096, .flags = PERFRING_RING_TRUNCATE,
			   .events = &ev, .nr_events = 1);
	struct perfring_ring *ring, *rd_ring;
	struct perfring_reader *rd;
	struct perfring_diag diag = { 0 };
	struct perfring_record rec = { .sz = sizeof(rec) };
	char msg[1024];
	uint8_t buf[256];
	int err, n;

	err = perfring_ring_create(&opts, &ring);
	if (err) {
		fprintf(stderr, "hello-ring: %s: cannot create ring: %s\n", path, strerror(-err));
		return 1;
	}
	for (int i = 0; i < 5; i++) {
		struct perfring_sample s = { .identifier = id, .ip = 0x401000 + 16u * (unsigned)i,
					     .pid = 42, .tid = 42, .time = now_ns(),
					     .period = 100000 };
		n = perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, buf, sizeof(buf));
		if (n < 0 || (err = perfring_ring_write(ring, buf)) < 0) {
			fprintf(stderr, "hello-ring: write failed: %s\n", strerror(n < 0 ? -n : -err));
			return 1;
		}
	}
	perfring_ring_close(ring);

	/* A reader needs nothing but the file: the descriptor carries the attr. */
	err = perfring_ring_open(path, PERFRING_RING_READ, &diag, &rd_ring);
	if (err) {
		fprintf(stderr, "hello-ring: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		return 1;
	}
	if ((err = perfring_reader_new(rd_ring, &rd)) < 0)
		return 1;
	while ((n = perfring_reader_next(rd, &rec)) > 0) {
		const struct perfring_attr *a = perfring_ring_attr_for_id(rd_ring, 0);
		struct perfring_sample s;

		if (rec.hdr->type == PERFRING_RECORD_SAMPLE &&
		    perfring_sample_decode(a, rec.hdr, rec.hdr->size, &s, NULL) == 0)
			printf("offset 0x%06" PRIx64 " %-6s size %2u pid %u ip 0x%" PRIx64
			       " period %" PRIu64 "\n", rec.offset,
			       perfring_record_type_name(rec.hdr->type), rec.hdr->size,
			       s.pid, s.ip, s.period);
	}
	if (n < 0) {
		fprintf(stderr, "hello-ring: %s\n",
			perfring_diag_format(perfring_reader_diag(rd), msg, sizeof(msg)));
		return 1;
	}
	perfring_reader_consume(rd);
	perfring_reader_free(rd);
	perfring_ring_close(rd_ring);
	return 0;
}
