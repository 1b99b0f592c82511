/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay-mkring: ring files for tests/tools/replay-ring.sh.
 *
 *   replay-mkring wrap RING        a one-page ring whose records wrap around
 *                                  the end of the data area: 60 SAMPLEs
 *                                  written and consumed, then 60 more
 *   replay-mkring overwrite RING   a one-page flight-recorder ring that
 *                                  was written 200 SAMPLEs
 *
 * Prints "FILE-OFFSET SIZE TIME" for every record a reader will find
 * (oldest first), so that the test can damage one and name it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <perfring/perfring.h>

static const struct perfring_attr attr = {
	.type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER7,
	.sample_period = 1000,
	.sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
		       PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_PERIOD,
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL,
};

struct rec_pos {
	uint64_t off, time;
	uint32_t size;
};

static int put(struct perfring_ring *r, uint64_t t, struct rec_pos *where)
{
	struct perfring_sample s = { .identifier = 1, .ip = 0x400000 + t, .pid = 7, .tid = 7,
				     .time = t, .period = 1000 };
	unsigned char buf[128];
	struct perfring_wr w;
	int n = perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, buf, sizeof(buf));

	if (n < 0 || perfring_ring_reserve(r, (size_t)n, &w) < 0)
		return -1;
	perfring_ring_copy(r, &w, 0, buf, (size_t)n);
	perfring_ring_commit(r, &w);
	where->off = perfring_ring_data_file_offset(r) + (w.pos & (perfring_ring_data_size(r) - 1));
	where->size = (uint32_t)n;
	where->time = t;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t id = 1;
	PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &id, .nr_ids = 1);
	struct rec_pos pos[200];
	struct perfring_ring *r;
	int overwrite, n = 0, first = 0;

	if (argc != 3 || (strcmp(argv[1], "wrap") && strcmp(argv[1], "overwrite"))) {
		fprintf(stderr, "usage: replay-mkring wrap|overwrite RING\n");
		return 2;
	}
	overwrite = !strcmp(argv[1], "overwrite");
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = argv[2],
				   .data_size = 4096, .events = &ev, .nr_events = 1,
				   .flags = PERFRING_RING_TRUNCATE |
					    (overwrite ? PERFRING_RING_OVERWRITE : 0));
		if (perfring_ring_create(&o, NULL, &r) < 0) {
			fprintf(stderr, "replay-mkring: cannot create %s\n", argv[2]);
			return 1;
		}
	}
	if (overwrite) {
		/* 4096 / 48-byte records: the newest 85 survive. */
		for (n = 0; n < 200; n++)
			if (put(r, 1000 + (uint64_t)n, &pos[n]) < 0)
				return 1;
		first = n - 4096 / (int)pos[0].size;
	} else {
		struct perfring_reader *rd;
		struct perfring_record rec = { .sz = sizeof(rec) };

		for (n = 0; n < 60; n++)
			if (put(r, 1000 + (uint64_t)n, &pos[n]) < 0)
				return 1;
		if (perfring_reader_new(r, &rd) < 0)
			return 1;
		while (perfring_reader_next(rd, &rec) > 0)
			;
		perfring_reader_consume(rd);
		perfring_reader_free(rd);
		first = n;
		for (; n < 120; n++)
			if (put(r, 1000 + (uint64_t)n, &pos[n]) < 0)
				return 1;
	}
	for (int i = first; i < n; i++)
		printf("%" PRIu64 " %u %" PRIu64 "\n", pos[i].off, pos[i].size, pos[i].time);
	perfring_ring_close(r);
	return 0;
}
