/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * marks-mkring: marker ring files (the format of include/perfring/marks.h and
 * lib/marks/marks.c) for tests/tools/markers.sh, written with the ring API as the
 * library's marking functions will write them.
 *
 *   marks-mkring [OPTIONS] RING STEP...
 *     -p PID -t TID   the THREAD record's ids (default: this process's)
 *     -s BYTES        data size (default 65536)
 *     -l              live: RING is a folder; the ring is
 *                     RING/perfring-marks-PID-TID.ring, its first page is
 *                     mapped PROT_READ|PROT_EXEC (the "jitdump trick"), and
 *                     each marker's TIME is milliseconds of CPU burnt before
 *                     it (its time is then CLOCK_MONOTONIC's); RING "-":
 *                     $PERFRING_MARKS_DIR (else /tmp), as the library does
 *     -n              with -l: do not map the ring (no MMAP2 names it)
 *   steps:
 *     KIND,TIME,NAME[,VALUE[,TEXT]]   a marker: KIND i(nstant), b(egin),
 *                     e(nd); NAME "#name" uses a registered id (a NAME record
 *                     precedes its first use), else the name goes inline;
 *                     VALUE "-" for none
 *     flood,TIME,N    N inline instants "flood" (a small ring drops some:
 *                     counted as pending lost)
 *     drain           a reader consumes what is in the ring (so that room
 *                     returns and the next write brings a LOST record)
 *
 * Prints "ring PATH" first, "mark N OFFSET SIZE" per marker step (file
 * offset of its record), and "dropped N" at the end.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perfring.h>

static const struct perfring_attr attr = {
	.type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER8, .config = 9,
	.sample_period = 1,
	.sample_type = PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW,
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_USE_CLOCKID,
	.clockid = 1,
};

static struct perfring_ring *ring;
static char names[1024][64];
static int nr_names;
static uint64_t dropped;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static void __attribute__((noinline)) marks_burn(unsigned ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i * 7;
}

/* One record: kind, flags, id, then the optional parts; 0 or -1 (dropped). */
static int put(uint64_t time, unsigned kind, unsigned id, const uint64_t *value,
	       const char *name, const char *text, uint64_t *off, size_t *sizep)
{
	unsigned char rec[512] = { 0 };
	size_t raw = 4, size;
	uint32_t raw_size;
	struct perfring_wr w;
	struct perfring_event_header h = { .type = PERFRING_RECORD_SAMPLE,
					   .misc = PERFRING_MISC_USER };
	unsigned char *p = rec + 20;

	p[0] = (unsigned char)kind;
	p[1] = (unsigned char)((value ? 1 : 0) | (name ? 2 : 0) | (text ? 4 : 0));
	memcpy(p + 2, &(uint16_t){ (uint16_t)id }, 2);
	if (value) {
		memcpy(p + raw, value, 8);
		raw += 8;
	}
	if (name) {
		p[raw] = (unsigned char)strlen(name);
		memcpy(p + raw + 1, name, strlen(name));
		raw += 1 + strlen(name);
	}
	if (text) {
		p[raw] = (unsigned char)strlen(text);
		memcpy(p + raw + 1, text, strlen(text));
		raw += 1 + strlen(text);
	}
	while ((4 + raw) % 8)
		raw++;
	raw_size = (uint32_t)raw;
	size = 20 + raw;
	h.size = (uint16_t)size;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &time, 8);
	memcpy(rec + 16, &raw_size, 4);
	if (perfring_ring_reserve(ring, size, &w) < 0) {
		dropped++;
		return -1;
	}
	perfring_ring_copy(ring, &w, 0, rec, size);
	perfring_ring_commit(ring, &w);
	if (off)
		*off = perfring_ring_data_file_offset(ring) +
		       (w.pos & (perfring_ring_data_size(ring) - 1));
	if (sizep)
		*sizep = size;
	return 0;
}

static unsigned name_id(const char *name, uint64_t time)
{
	for (int i = 0; i < nr_names; i++)
		if (!strcmp(names[i], name))
			return (unsigned)i + 1;
	snprintf(names[nr_names], sizeof(names[0]), "%s", name);
	nr_names++;
	put(time, 3, (unsigned)nr_names, NULL, name, NULL, NULL, NULL);
	return (unsigned)nr_names;
}

static void drain(void)
{
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };

	if (perfring_reader_new(ring, &rd) < 0)
		exit(1);
	while (perfring_reader_next(rd, &rec) == 1)
		;
	perfring_reader_consume(rd);
	perfring_reader_free(rd);
}

int main(int argc, char **argv)
{
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)getpid();
	uint64_t size = 65536, id = 1, thread;
	bool live = false, nomap = false;
	char path[4096];
	int opt, n = 0;

	while ((opt = getopt(argc, argv, "p:t:s:ln")) != -1) {
		switch (opt) {
		case 'p':
			pid = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			tid = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			live = true;
			break;
		case 'n':
			nomap = true;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: marks-mkring [-p PID] [-t TID] [-s BYTES] [-l [-n]] RING STEP...\n");
		return 2;
	}
	if (live) {
		const char *dir = argv[optind];

		if (!strcmp(dir, "-"))	/* as the library: $PERFRING_MARKS_DIR, else /tmp */
			dir = getenv("PERFRING_MARKS_DIR") ? getenv("PERFRING_MARKS_DIR") : "/tmp";
		snprintf(path, sizeof(path), "%s/perfring-marks-%" PRIu32 "-%" PRIu32 ".ring",
			 dir, pid, tid);
	}
	else
		snprintf(path, sizeof(path), "%s", argv[optind]);
	{
		PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &id, .nr_ids = 1,
				    .name = "perfring:mark");
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = path,
				   .data_size = size, .events = &ev, .nr_events = 1,
				   .flags = PERFRING_RING_TRUNCATE | PERFRING_RING_CLOCKID,
				   .clockid = 1);
		struct perfring_diag d = { 0 };

		if (perfring_ring_create(&o, &d, &ring) < 0) {
			fprintf(stderr, "marks-mkring: %s: %s\n", path, d.msg);
			return 1;
		}
	}
	printf("ring %s\n", path);
	if (live && !nomap) {
		int fd = perfring_ring_fd(ring);
		void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_EXEC,
			       MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror("marks-mkring: mmap");
			return 1;
		}
	}
	thread = (uint64_t)pid << 32 | tid;
	put(live ? now_ns() : 1, 4, 0, &thread, NULL, NULL, NULL, NULL);
	for (int i = optind + 1; i < argc; i++) {
		char *s = strdup(argv[i]), *f[5] = { 0 }, *save = NULL;
		int nf = 0;
		uint64_t t, v, off = 0;
		size_t sz = 0;

		for (char *tok = strtok_r(s, ",", &save); tok && nf < 5;
		     tok = strtok_r(NULL, ",", &save))
			f[nf++] = tok;
		if (nf == 1 && !strcmp(f[0], "drain")) {
			drain();
			free(s);
			continue;
		}
		if (nf < 3) {
			fprintf(stderr, "marks-mkring: bad step %s\n", argv[i]);
			return 2;
		}
		t = strtoull(f[1], NULL, 0);
		if (live) {
			marks_burn((unsigned)t);
			t = now_ns();
		}
		if (!strcmp(f[0], "flood")) {
			unsigned long k = strtoul(f[2], NULL, 0);

			for (unsigned long j = 0; j < k; j++)
				put(t, 0, 0, NULL, "flood", NULL, NULL, NULL);
			free(s);
			continue;
		}
		{
			unsigned kind = f[0][0] == 'b' ? 1 : f[0][0] == 'e' ? 2 : 0;
			bool reg = f[2][0] == '#';
			unsigned nid = reg ? name_id(f[2] + 1, t) : 0;
			bool hv = nf > 3 && strcmp(f[3], "-");

			v = hv ? strtoull(f[3], NULL, 0) : 0;
			if (put(t, kind, nid, hv ? &v : NULL, reg ? NULL : f[2], nf > 4 ? f[4] : NULL,
				&off, &sz) == 0)
				printf("mark %d %" PRIu64 " %zu\n", n, off, sz);
			n++;
		}
		free(s);
	}
	if (live)
		marks_burn(50);
	printf("dropped %" PRIu64 "\n", dropped);
	/* live: the ring stays mapped until exit, as the library leaves it */
	perfring_ring_close(ring);
	return 0;
}
