/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-side record encoders for the writer tests (COMM, MMAP2, FORK/EXIT,
 * SAMPLE with the sample_id_all trailer).  Written here on purpose, from
 * doc/perf-format.md section 3, so the writer tests depend on no plugin.
 * Supported SAMPLE fields: IDENTIFIER, IP, TID, TIME, ID, STREAM_ID, CPU,
 * PERIOD.
 */
#ifndef PERFRING_WRITER_TEST_H
#define PERFRING_WRITER_TEST_H

#include <stdint.h>
#include <string.h>

#include <perfring/perfring.h>

#define TW_ST_BITS(st, b) (((st) & (b)) != 0)

/* perfring_writer_add_event with the description built from its parts. */
static inline int tw_add_event(struct perfring_writer *w, const struct perfring_attr *attr,
			       const uint64_t *ids, uint32_t nr_ids, const char *name,
			       struct perfring_diag *diag)
{
	PERFRING_EVENT_DESC(ev, .attr = attr, .ids = ids, .nr_ids = nr_ids, .name = name);

	return perfring_writer_add_event(w, &ev, diag);
}

struct tw_ids {
	uint32_t pid, tid;	/* trailer task */
	uint64_t time;
	uint64_t id;
	uint32_t cpu;
};

static inline void tw_put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void tw_put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline uint64_t tw_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}
static inline uint32_t tw_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void tw_header(unsigned char *p, uint32_t type, uint16_t misc,
			     size_t size)
{
	uint16_t s = (uint16_t)size;

	tw_put32(p, type);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &s, 2);
}

/* Append the sample_id_all trailer at p; returns its size. */
static inline size_t tw_trailer(const struct perfring_attr *a, unsigned char *p,
				const struct tw_ids *t)
{
	uint64_t st = a->sample_type;
	size_t n = 0;

	if (!(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL))
		return 0;
	if (st & PERFRING_SAMPLE_TID) {
		tw_put32(p + n, t->pid);
		tw_put32(p + n + 4, t->tid);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_TIME) {
		tw_put64(p + n, t->time);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_ID) {
		tw_put64(p + n, t->id);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_STREAM_ID) {
		tw_put64(p + n, t->id);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_CPU) {
		tw_put32(p + n, t->cpu);
		tw_put32(p + n + 4, 0);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_IDENTIFIER) {
		tw_put64(p + n, t->id);
		n += 8;
	}
	return n;
}

static inline size_t tw_str8(unsigned char *p, const char *s)
{
	size_t n = strlen(s) + 1, a = (n + 7) & ~(size_t)7;

	memset(p, 0, a);
	memcpy(p, s, n);
	return a;
}

/* COMM; the trailer is the task itself. */
static inline size_t tw_comm(const struct perfring_attr *a, unsigned char *buf,
			     int exec, uint32_t pid, uint32_t tid,
			     const char *comm, uint64_t time, uint64_t id)
{
	struct tw_ids t = { pid, tid, time, id, 0 };
	size_t n = 16;

	tw_put32(buf + 8, pid);
	tw_put32(buf + 12, tid);
	n += tw_str8(buf + n, comm);
	n += tw_trailer(a, buf + n, &t);
	tw_header(buf, PERFRING_RECORD_COMM, exec ? PERFRING_MISC_COMM_EXEC : 0, n);
	return n;
}

static inline size_t tw_mmap2(const struct perfring_attr *a, unsigned char *buf,
			      uint32_t pid, uint32_t tid, uint64_t addr,
			      uint64_t len, uint64_t pgoff, const char *file,
			      uint64_t time, uint64_t id)
{
	struct tw_ids t = { pid, tid, time, id, 0 };
	size_t n = 72;

	memset(buf, 0, 72);
	tw_put32(buf + 8, pid);
	tw_put32(buf + 12, tid);
	tw_put64(buf + 16, addr);
	tw_put64(buf + 24, len);
	tw_put64(buf + 32, pgoff);
	tw_put32(buf + 40, 8);		/* maj */
	tw_put32(buf + 44, 1);		/* min */
	tw_put64(buf + 48, 12345);	/* ino */
	tw_put64(buf + 56, 0);
	tw_put32(buf + 64, 5);		/* PROT_READ | PROT_EXEC */
	tw_put32(buf + 68, 2);		/* MAP_PRIVATE */
	n += tw_str8(buf + n, file);
	n += tw_trailer(a, buf + n, &t);
	tw_header(buf, PERFRING_RECORD_MMAP2, PERFRING_MISC_USER, n);
	return n;
}

/* FORK (trailer: the parent) or EXIT (trailer: the exiting task). */
static inline size_t tw_task(const struct perfring_attr *a, unsigned char *buf,
			     uint32_t type, uint32_t pid, uint32_t ppid,
			     uint32_t tid, uint32_t ptid, uint64_t time,
			     uint64_t id)
{
	struct tw_ids t = { type == PERFRING_RECORD_FORK ? ppid : pid,
			    type == PERFRING_RECORD_FORK ? ptid : tid, time, id, 0 };
	size_t n = 32;

	tw_put32(buf + 8, pid);
	tw_put32(buf + 12, ppid);
	tw_put32(buf + 16, tid);
	tw_put32(buf + 20, ptid);
	tw_put64(buf + 24, time);
	n += tw_trailer(a, buf + n, &t);
	tw_header(buf, type, 0, n);
	return n;
}

static inline size_t tw_sample(const struct perfring_attr *a, unsigned char *buf,
			       uint64_t ip, uint32_t pid, uint32_t tid,
			       uint64_t time, uint64_t id, uint32_t cpu,
			       uint64_t period)
{
	uint64_t st = a->sample_type;
	size_t n = 8;

	if (st & PERFRING_SAMPLE_IDENTIFIER) {
		tw_put64(buf + n, id);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_IP) {
		tw_put64(buf + n, ip);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_TID) {
		tw_put32(buf + n, pid);
		tw_put32(buf + n + 4, tid);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_TIME) {
		tw_put64(buf + n, time);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_ID) {
		tw_put64(buf + n, id);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_STREAM_ID) {
		tw_put64(buf + n, id);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_CPU) {
		tw_put32(buf + n, cpu);
		tw_put32(buf + n + 4, 0);
		n += 8;
	}
	if (st & PERFRING_SAMPLE_PERIOD) {
		tw_put64(buf + n, period);
		n += 8;
	}
	tw_header(buf, PERFRING_RECORD_SAMPLE, PERFRING_MISC_USER, n);
	return n;
}

/* A raw record of any type: header + body of zeros (size a multiple of 8). */
static inline size_t tw_raw(unsigned char *buf, uint32_t type, size_t size)
{
	memset(buf, 0, size);
	tw_header(buf, type, 0, size);
	return size;
}

#endif
