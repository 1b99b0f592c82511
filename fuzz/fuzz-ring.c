/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the ring reader (and writer) over an arbitrary mapping.
 *
 * Input: a 32-byte prefix, then either the mapping itself (control page at
 * offset 0, data area where its data_offset says) or, in file mode, a
 * whole ring file (descriptor, control page, data) as perfring_ring_create
 * writes it for a MEMFD or FILE ring.
 *   u64 ctl          bit 0: overwrite ring; bit 1: describe events
 *                    (else the ring has none); bit 2: write records into
 *                    the ring between reads; bit 3: file mode (the bytes go
 *                    to a memfd opened with perfring_ring_open_fd: the
 *                    descriptor parser; bits 0 and 1 are then the file's
 *                    business); bit 4: file mode opens for writing too;
 *                    bit 5: the reader resynchronises after damage
 *                    (PERFRING_READER_RESYNC); file mode: the memfd is
 *                    also read once through perfring_source_open_fd;
 *                    bits 8..9: extra read rounds
 *   u64 sample_type  of event 0 (id 1); event 1 (id 2) adds IDENTIFIER
 *   u64 attr flags   of both events (SAMPLE_ID_ALL matters)
 *   u64 sample_type  of event 1
 * The ring is wrapped with perfring_ring_wrap over an 8-aligned copy of the
 * mapping (or opened from the memfd); perfring_reader_check and perfring_reader_next then walk it in
 * rounds (consuming in between).  Checked: no memory error, every record
 * returned is 8-aligned in size, within 8..data_size, and no more records
 * come back in one round than the data area can hold.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void problem(const struct perfring_diag *d, void *user)
{
	unsigned *n = user;

	FUZZ_ASSERT(d != NULL);
	FUZZ_ASSERT(memchr(d->msg, '\0', sizeof(d->msg)) != NULL);
	FUZZ_ASSERT(d->error < 0);
	(*n)++;
}

/* Records written into the ring between reading rounds. */
static void write_some(struct perfring_ring *r, unsigned round)
{
	uint64_t rec[4] = { 0 };
	struct perfring_event_header h = {
		.type = 3, /* COMM-sized filler: any type is fine for the ring */
		.misc = 0,
		.size = (uint16_t)(16 + 8 * (round % 3)),
	};
	struct perfring_wr w;

	memcpy(rec, &h, sizeof(h));
	rec[1] = 0x1122334455667788ull;
	(void)perfring_ring_write(r, rec);
	if (perfring_ring_reserve(r, 24, &w) == 0) {
		perfring_ring_copy(r, &w, 0, rec, 16);
		perfring_ring_copy(r, &w, 16, &rec[1], 8);
		if (round & 1)
			perfring_ring_abort(r, &w);
		else {
			/* fix the header size the first copy wrote */
			struct perfring_event_header h2 = h;

			h2.size = 24;
			perfring_ring_copy(r, &w, 0, &h2, sizeof(h2));
			perfring_ring_commit(r, &w);
		}
	}
}

/* A reader's damage (RESYNC): said with a file name and an offset. */
static void damaged(const struct perfring_diag *d, void *user)
{
	FUZZ_ASSERT(d->has_offset && d->file[0]);
	problem(d, user);
}

/* The ring file through the sources API, resynchronising after damage. */
static void read_source(int fd)
{
	unsigned problems = 0;
	PERFRING_SOURCE_OPTS(o, .flags = PERFRING_SOURCE_RESYNC, .on_damage = damaged,
			     .user = &problems);
	struct perfring_source_record rec = { .sz = sizeof(rec) };
	struct perfring_source *s = NULL;
	struct perfring_diag diag;
	uint64_t got = 0;
	int err;

	memset(&diag, 0, sizeof(diag));
	if (perfring_source_open_fd(fd, &o, &diag, &s) < 0) {
		FUZZ_ASSERT(s == NULL && memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
		return;
	}
	while ((err = perfring_source_next(s, &rec, &diag)) == 1) {
		FUZZ_ASSERT(rec.size >= 8 && rec.size % 8 == 0);
		FUZZ_ASSERT(rec.event < (int)perfring_source_nr_events(s));
		FUZZ_ASSERT(++got <= perfring_ring_data_size(perfring_source_ring(s)) / 8);
	}
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -ENOMEM);
	perfring_source_close(s);
}

/* The ring file in a memfd, opened as a reader (and writer). */
static int open_file(const uint8_t *p, size_t n, int rw, int source, struct perfring_ring **r)
{
	struct perfring_diag diag;
	int fd, err;

	fd = (int)syscall(SYS_memfd_create, "fuzz-ring", 0);
	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
	if (source)
		read_source(fd);
	memset(&diag, 0, sizeof(diag));
	err = perfring_ring_open_fd(fd, PERFRING_RING_READ | (rw ? PERFRING_RING_WRITE : 0),
				    &diag, r);
	close(fd);
	if (err) {
		FUZZ_ASSERT(err < 0 && *r == NULL);
		FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
	}
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t n = size;
	uint64_t ctl = fuzz_take(&p, &n, 8);
	struct perfring_attr attr[2];
	uint64_t ids[2] = { 1, 2 };
	struct perfring_event_desc ev[2] = { { .sz = sizeof(ev[0]) }, { .sz = sizeof(ev[1]) } };
	struct perfring_diag diag;
	struct perfring_ring *r = NULL;
	struct perfring_reader *rd = NULL;
	struct perfring_reader_stats st = { .sz = sizeof(st) };
	unsigned rounds, problems = 0;
	uint64_t dsz;
	void *map;
	int err;

	memset(attr, 0, sizeof(attr));
	attr[0].size = PERFRING_ATTR_SIZE_VER8;
	attr[0].sample_type = fuzz_take(&p, &n, 8);
	attr[0].flags = fuzz_take(&p, &n, 8);
	attr[1] = attr[0];
	attr[1].sample_type = fuzz_take(&p, &n, 8) | PERFRING_SAMPLE_IDENTIFIER;
	for (int i = 0; i < 2; i++) {
		ev[i].attr = &attr[i];
		ev[i].ids = &ids[i];
		ev[i].nr_ids = 1;
		ev[i].name = i ? "second" : "first";
	}
	rounds = 2 + (unsigned)((ctl >> 8) & 3);

	if (ctl & 8) {
		map = NULL;
		if (open_file(p, n, (ctl & 16) != 0, (ctl & 32) != 0, &r))
			goto out;
		if (!(ctl & 16))
			ctl &= ~(uint64_t)4;	/* a reader cannot write */
		ctl = (ctl & ~(uint64_t)3) |
		      ((perfring_ring_flags(r) & PERFRING_RING_OVERWRITE) ? 1 : 0) |
		      (perfring_ring_nr_events(r) ? 2 : 0);
	} else {
		map = fuzz_dup(p, n);
		memset(&diag, 0, sizeof(diag));
		err = perfring_ring_wrap(map, n, (ctl & 1) ? PERFRING_RING_OVERWRITE : 0,
					 (ctl & 2) ? ev : NULL, (ctl & 2) ? 2 : 0, &diag, &r);
		if (err) {
			FUZZ_ASSERT(err < 0 && r == NULL);
			goto out;
		}
	}
	dsz = perfring_ring_data_size(r);
	FUZZ_ASSERT(dsz >= 8 && dsz <= n);
	{
		PERFRING_READER_OPTS(ro, .flags = (ctl & 32) ? PERFRING_READER_RESYNC : 0,
				     .on_damage = damaged, .user = &problems);

		err = perfring_reader_new_opts(r, &ro, &rd);
	}
	if (err)
		goto out;
	for (unsigned round = 0; round < rounds; round++) {
		struct perfring_record rec = { .sz = sizeof(rec) };
		uint64_t got = 0;
		int ret, pr;

		pr = perfring_reader_check(rd, problem, &problems);
		FUZZ_ASSERT(pr >= 0 || pr == -ENOMEM);
		while ((ret = perfring_reader_next(rd, &rec)) == 1) {
			const uint8_t *b = (const uint8_t *)rec.hdr;
			uint16_t rsz = rec.hdr->size;
			unsigned sum = 0;

			FUZZ_ASSERT(rsz >= 8 && rsz % 8 == 0 && rsz <= dsz);
			for (uint16_t i = 0; i < rsz; i++)	/* ASan: all readable */
				sum += b[i];
			(void)sum;
			{
				/* the trailer's last u64 is IDENTIFIER when set */
				uint64_t id;

				memcpy(&id, b + rsz - 8, 8);
				FUZZ_ASSERT(perfring_ring_attr_for_id(r, id) != NULL ||
					    !(ctl & 2));
			}
			got++;
			FUZZ_ASSERT(got <= dsz / 8);
		}
		if (ret < 0) {
			const struct perfring_diag *d = perfring_reader_diag(rd);

			FUZZ_ASSERT(ret == -EBADMSG || ret == -ENOMEM);
			FUZZ_ASSERT(d && d->error == ret);
			/* sticky */
			FUZZ_ASSERT(perfring_reader_next(rd, &rec) == ret);
			break;
		}
		perfring_reader_consume(rd);
		if (ctl & 4)
			write_some(r, round);
	}
	perfring_reader_get_stats(rd, &st);
	FUZZ_ASSERT(st.bytes >= 8 * st.records);
out:
	perfring_reader_free(rd);
	perfring_ring_close(r);
	free(map);
	return 0;
}
