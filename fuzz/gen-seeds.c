/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writes the seed corpora of the fuzz targets (fuzz/README.md):
 *   gen-seeds FIXTURES_DIR OUT_DIR
 * OUT_DIR/{ring,record,sideband,perfdata,marks}/ must exist.  Inputs:
 *   perfdata  chosen tests/fixtures .data files, whole and truncated, and
 *             some byte-swapped (big-endian) by tests/lib/pd-testlib.c
 *   record    SAMPLE, LOST and trailer-carrying records of those files,
 *             each after the 56-byte attr prefix of fuzz-record.c
 *   sideband  their COMM/MMAP/MMAP2/FORK/EXIT records after the 24-byte
 *             prefix of fuzz-sideband.c
 *   ring      small rings written with the library's own writer (normal
 *             and overwrite, empty, wrapped, with LOST and pad records)
 *             and MEMFD ring files, after the 32-byte prefix of fuzz-ring.c
 *   marks     marker rings (lib/marks/marks.c's format: few, full, damaged), after
 *             fuzz-marks.c's mode byte
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "pd-testlib.h"

static const char *out_dir;
static unsigned nr_out;

static void put64(FILE *f, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, 8, f);
}

static FILE *out_open(const char *target, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	nr_out++;
	return f;
}

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* ---- perfdata, record, sideband: from the fixtures ------------------------ */

static void from_fixture(const char *dir, const char *file, int truncate)
{
	char path[4096], name[512];
	struct perfring_perfdata *pd;
	struct perfring_perfdata_record rec = { .sz = sizeof(rec) };
	struct perfring_diag diag;
	unsigned per_type[256] = { 0 };
	unsigned char *bytes;
	size_t size;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	bytes = slurp(path, &size);
	f = out_open("perfdata", file);
	fwrite(bytes, 1, size, f);
	fclose(f);
	if (truncate) {
		/* a cut inside the data, and one inside the header/attrs */
		snprintf(name, sizeof(name), "%s.cut-half", file);
		f = out_open("perfdata", name);
		fwrite(bytes, 1, size / 2, f);
		fclose(f);
		snprintf(name, sizeof(name), "%s.cut-200", file);
		f = out_open("perfdata", name);
		fwrite(bytes, 1, size < 200 ? size : 200, f);
		fclose(f);
	}
	{
		/* the same file as a big-endian perf would have written it */
		struct pdt_buf sw = { 0 };
		char why[256];

		if (pdt_swap_perfdata(bytes, size, &sw, why, sizeof(why)) == 0) {
			snprintf(name, sizeof(name), "%s.swapped", file);
			f = out_open("perfdata", name);
			fwrite(sw.p, 1, sw.len, f);
			fclose(f);
			if (truncate) {
				snprintf(name, sizeof(name), "%s.swapped.cut-half", file);
				f = out_open("perfdata", name);
				fwrite(sw.p, 1, sw.len / 2, f);
				fclose(f);
			}
		} else {
			fprintf(stderr, "%s: not swapped: %s\n", file, why);
		}
		pdt_free(&sw);
	}
	free(bytes);

	err = perfring_perfdata_open(path, NULL, &diag, &pd);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		exit(1);
	}
	while (perfring_perfdata_next(pd, &rec, &diag) == 1) {
		const struct perfring_attr *a = rec.attr;
		uint32_t t = rec.type;
		uint16_t sz = rec.header->size;
		int is_sb = t == 1 || t == 3 || t == 4 || t == 7 || t == 10;

		if (!a || t >= 64 || per_type[t] >= 2)
			continue;
		if (t != 9 && t != 2 && !is_sb && !(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
			continue;
		per_type[t]++;
		snprintf(name, sizeof(name), "%s.%s.%u", file,
			 perfring_record_type_name(t) ? perfring_record_type_name(t) : "rec",
			 per_type[t]);
		f = out_open("record", name);
		put64(f, 0);
		put64(f, a->sample_type);
		put64(f, a->read_format);
		put64(f, a->flags);
		put64(f, a->sample_regs_user);
		put64(f, a->sample_regs_intr);
		put64(f, a->branch_sample_type);
		fwrite(rec.header, 1, sz, f);
		fclose(f);
		if (is_sb) {
			f = out_open("sideband", name);
			put64(f, 0);
			put64(f, a->sample_type);
			put64(f, a->flags);
			fwrite(rec.header, 1, sz, f);
			fclose(f);
		}
	}
	perfring_perfdata_close(pd);
}

/* ---- ring: written by the library into a small wrapped mapping ------------- */

#define RING_HDR 1088u

struct ring_seed {
	const char *name;
	uint64_t ctl;		/* fuzz-ring.c prefix */
	uint32_t data_size;
	unsigned records;	/* records written */
	unsigned consume_every;	/* read + consume after every N records (0: never) */
	unsigned aborts;	/* every Nth reservation aborted (0: none) */
};

static void ring_seed(const struct ring_seed *rs)
{
	const uint64_t st0 = PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |
			     PERFRING_SAMPLE_IP | PERFRING_SAMPLE_PERIOD;
	const uint64_t flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	const uint64_t st1 = PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU;
	size_t len = RING_HDR + rs->data_size;
	struct perfring_mmap_page *h;
	struct perfring_attr attr[2];
	uint64_t ids[2] = { 1, 2 };
	struct perfring_event_desc ev[2] = { { .sz = sizeof(ev[0]) }, { .sz = sizeof(ev[1]) } };
	struct perfring_ring *r;
	struct perfring_reader *rd = NULL;
	struct perfring_diag diag;
	unsigned char *map;
	FILE *f;
	int err;

	map = aligned_alloc(8, len);
	if (!map)
		exit(1);
	memset(map, 0, len);
	h = (struct perfring_mmap_page *)map;
	h->data_offset = RING_HDR;
	h->data_size = rs->data_size;
	memset(attr, 0, sizeof(attr));
	attr[0].size = PERFRING_ATTR_SIZE_VER8;
	attr[0].sample_type = st0;
	attr[0].flags = flags;
	attr[1] = attr[0];
	attr[1].sample_type = st1 | PERFRING_SAMPLE_IDENTIFIER;
	for (int i = 0; i < 2; i++) {
		ev[i].attr = &attr[i];
		ev[i].ids = &ids[i];
		ev[i].nr_ids = 1;
		ev[i].name = NULL;
	}
	err = perfring_ring_wrap(map, len, (rs->ctl & 1) ? PERFRING_RING_OVERWRITE : 0,
				 ev, 2, &diag, &r);
	if (err) {
		fprintf(stderr, "ring seed %s: wrap: %s\n", rs->name, strerror(-err));
		exit(1);
	}
	if (!(rs->ctl & 1) && perfring_reader_new(r, &rd))
		exit(1);
	for (unsigned i = 0; i < rs->records; i++) {
		unsigned char buf[256];
		int n;

		if (i % 3 == 2) {
			/* a COMM-like record with a trailer */
			struct perfring_sample_id sid = { .pid = 7, .tid = 7, .time = 1000 + i, .id = 1 };

			memset(buf, 0, sizeof(buf));
			n = 8 + 16 + (int)perfring_sample_id_size(st0);
			((struct perfring_event_header *)buf)->type = 3;
			((struct perfring_event_header *)buf)->size = (uint16_t)n;
			memcpy(buf + 8, "\7\0\0\0\7\0\0\0seed\0\0\0\0", 16);
			perfring_sample_id_encode(st0, &sid, buf + 24, sizeof(buf) - 24);
		} else {
			struct perfring_sample s;

			memset(&s, 0, sizeof(s));
			s.ip = 0x400000 + i;
			s.pid = s.tid = 7;
			s.time = 1000 + i;
			s.id = 1;
			s.period = 1;
			n = perfring_sample_encode(&attr[0], &s, PERFRING_MISC_USER, buf, sizeof(buf));
		}
		if (n < 0)
			exit(1);
		if (rs->aborts && i % rs->aborts == rs->aborts - 1) {
			struct perfring_wr w;

			if (perfring_ring_reserve(r, (size_t)n, &w) == 0)
				perfring_ring_abort(r, &w);
		}
		(void)perfring_ring_write(r, buf);	/* -ENOSPC: counted, LOST follows */
		if (rd && rs->consume_every && i % rs->consume_every == rs->consume_every - 1) {
			struct perfring_record rec = { .sz = sizeof(rec) };

			while (perfring_reader_next(rd, &rec) == 1)
				;
			perfring_reader_consume(rd);
		}
	}
	perfring_reader_free(rd);
	perfring_ring_close(r);
	f = out_open("ring", rs->name);
	put64(f, rs->ctl);
	put64(f, st0);
	put64(f, flags);
	put64(f, st1);
	fwrite(map, 1, len, f);
	fclose(f);
	free(map);
}

/* A MEMFD ring written by the library, saved whole (file mode of fuzz-ring). */
static void ring_file_seed(const char *name, uint32_t flags, unsigned records,
			   unsigned consume_every, uint64_t ctl)
{
	const uint64_t st0 = PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_ID |
			     PERFRING_SAMPLE_IP;
	struct perfring_attr attr;
	uint64_t id = 5;
	PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &id, .nr_ids = 1, .name = "cpu-clock");
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .data_size = 4096,
			   .flags = flags, .events = &ev, .nr_events = 1);
	struct perfring_ring *r;
	struct perfring_reader *rd = NULL;
	struct stat st;
	unsigned char *buf;
	FILE *f;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = PERFRING_ATTR_SIZE_VER8;
	attr.sample_type = st0;
	attr.flags = PERFRING_ATTR_SAMPLE_ID_ALL;
	if (perfring_ring_create(&o, NULL, &r)) {
		fprintf(stderr, "ring file seed %s: create failed\n", name);
		exit(1);
	}
	if (!(flags & PERFRING_RING_OVERWRITE) && perfring_reader_new(r, &rd))
		exit(1);
	for (unsigned i = 0; i < records; i++) {
		struct perfring_sample s;
		unsigned char rec[256];

		memset(&s, 0, sizeof(s));
		s.ip = 0x400000 + i;
		s.pid = s.tid = 9;
		s.time = 2000 + i;
		s.id = 5;
		if (perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, rec, sizeof(rec)) < 0)
			exit(1);
		(void)perfring_ring_write(r, rec);
		if (rd && consume_every && i % consume_every == consume_every - 1) {
			struct perfring_record pr = { .sz = sizeof(pr) };

			while (perfring_reader_next(rd, &pr) == 1)
				;
			perfring_reader_consume(rd);
		}
	}
	fd = perfring_ring_fd(r);
	if (fd < 0 || fstat(fd, &st) || !(buf = malloc((size_t)st.st_size)) ||
	    pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		exit(1);
	f = out_open("ring", name);
	put64(f, ctl);
	put64(f, 0);
	put64(f, 0);
	put64(f, 0);
	fwrite(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	free(buf);
	perfring_reader_free(rd);
	perfring_ring_close(r);
}

/* ---- marks: marker rings (lib/marks/marks.c's format), after fuzz-marks.c's mode byte */

/* One marker record: SAMPLE with TIME|RAW, raw as lib/marks/marks.c lays it out. */
static size_t mark_rec(unsigned char *rec, uint64_t time, unsigned kind, unsigned flags,
		       unsigned id, uint64_t value, const char *name, const char *text)
{
	unsigned char raw[256];
	size_t n = 4, size;
	uint32_t rs;

	memset(raw, 0, sizeof(raw));
	raw[0] = (unsigned char)kind;
	raw[1] = (unsigned char)flags;
	raw[2] = (unsigned char)id;
	raw[3] = (unsigned char)(id >> 8);
	if (flags & 1) {
		memcpy(raw + n, &value, 8);
		n += 8;
	}
	if (flags & 2) {
		raw[n] = (unsigned char)strlen(name);
		memcpy(raw + n + 1, name, raw[n]);
		n += 1 + raw[n];
	}
	if (flags & 4) {
		raw[n] = (unsigned char)strlen(text);
		memcpy(raw + n + 1, text, raw[n]);
		n += 1 + raw[n];
	}
	while ((4 + n) % 8)
		n++;
	rs = (uint32_t)n;
	size = 20 + n;
	memset(rec, 0, size);
	rec[0] = 9;			/* SAMPLE */
	rec[4] = 2;			/* misc USER */
	rec[6] = (unsigned char)size;
	memcpy(rec + 8, &time, 8);
	memcpy(rec + 16, &rs, 4);
	memcpy(rec + 20, raw, n);
	return size;
}

static void marks_seed(const char *name, unsigned spans, int damage)
{
	struct perfring_attr attr;
	uint64_t id = 1;
	PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = &id, .nr_ids = 1, .name = "perfring:mark");
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_MEMFD, .data_size = 4096,
			   .events = &ev, .nr_events = 1);
	struct perfring_ring *r;
	struct stat st;
	unsigned char rec[256], *buf;
	uint64_t t = 1000000;
	FILE *f;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERFRING_TYPE_SOFTWARE;
	attr.config = 9;
	attr.size = PERFRING_ATTR_SIZE_VER8;
	attr.sample_type = PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW;
	attr.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_USE_CLOCKID;
	attr.clockid = 1;
	if (perfring_ring_create(&o, NULL, &r))
		exit(1);
	mark_rec(rec, t++, 4, 3, 0, (uint64_t)77 << 32 | 78, "worker", NULL);
	(void)perfring_ring_write(r, rec);
	mark_rec(rec, t++, 3, 2, 1, 0, "frame", NULL);
	(void)perfring_ring_write(r, rec);
	for (unsigned i = 0; i < spans; i++) {
		mark_rec(rec, t++, 1, 1, 1, i, NULL, NULL);
		(void)perfring_ring_write(r, rec);
		mark_rec(rec, t++, 0, 6, 0, 0, "checkpoint", "late");
		(void)perfring_ring_write(r, rec);
		mark_rec(rec, t++, 2, 0, 1, 0, NULL, NULL);
		(void)perfring_ring_write(r, rec);
	}
	fd = perfring_ring_fd(r);
	if (fd < 0 || fstat(fd, &st) || !(buf = malloc((size_t)st.st_size)) ||
	    pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		exit(1);
	if (damage)	/* the second record's raw size, past its record */
		buf[st.st_size - 4096 + 40 + 16] = 0xf0;
	f = out_open("marks", name);
	fputc(1, f);
	fwrite(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	free(buf);
	perfring_ring_close(r);
}

static const struct ring_seed ring_seeds[] = {
	{ "empty", 2, 256, 0, 0, 0 },
	{ "empty-noevents", 0, 64, 0, 0, 0 },
	{ "few", 2, 512, 4, 0, 0 },
	{ "few-noevents", 0, 512, 4, 0, 0 },
	{ "full-lost", 2, 256, 20, 0, 0 },
	{ "wrapped", 2 | 4, 256, 40, 3, 0 },
	{ "wrapped-lost-aborts", 2, 512, 60, 7, 4 },
	{ "pads", 2 | 4, 1024, 12, 0, 3 },
	{ "overwrite-few", 3, 512, 5, 0, 0 },
	{ "overwrite-wrapped", 3 | 4, 256, 40, 0, 0 },
	{ "overwrite-aborts", 3, 512, 50, 0, 5 },
	{ "bigger", 2 | 4 | 0x100, 4096, 100, 9, 11 },
	{ "resync-few", 2 | 32, 512, 6, 0, 0 },		/* the reader's RESYNC */
	{ "resync-overwrite", 3 | 32, 512, 5, 0, 0 },
};

int main(int argc, char **argv)
{
	/* small fixtures that between them cover file and pipe mode, zstd,
	 * both attr layouts, LOST, callchains, regs, groups, sideband */
	static const char *const fixtures[] = {
		"pd-pipe-zstd.data", "pd-zstd.data", "pd-pipe.data", "pd-file.data",
		"pd-pipe-tp.data", "pd-switch.data", "pd-group.data", "sideband.data",
		"rec-plain.data", "rec-regs.data", "rec-cgroup.data", "rec-callchain.data",
		"rec-readone.data", "rec-group.data", "rec-lost.data", "rec-addr.data",
		"rec-ident.data", "rec-rawsw.data",
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s FIXTURES_DIR OUT_DIR\n", argv[0]);
		return 2;
	}
	out_dir = argv[2];
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		from_fixture(argv[1], fixtures[i], i < 8);
	for (size_t i = 0; i < sizeof(ring_seeds) / sizeof(ring_seeds[0]); i++)
		ring_seed(&ring_seeds[i]);
	ring_file_seed("file-few", 0, 6, 0, 8);
	ring_file_seed("file-wrapped-lost", 0, 300, 50, 8 | 4);
	ring_file_seed("file-writer", 0, 10, 0, 8 | 16 | 4);
	ring_file_seed("file-overwrite", PERFRING_RING_OVERWRITE, 300, 0, 8 | 16 | 4);
	ring_file_seed("file-source", 0, 6, 0, 8 | 32);	/* + perfring_source_open_fd */
	marks_seed("ring-few", 3, 0);
	marks_seed("ring-full", 200, 0);
	marks_seed("ring-damaged", 3, 1);
	printf("%u seed files written\n", nr_out);
	return 0;
}
