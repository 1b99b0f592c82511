/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Markers and spans (lib/marks/marks.c): what lands in each thread's ring file,
 * read back with the library's reader and perfring_mark_decode; the name
 * table; threads, signal handlers, fork, a full ring, marking off, the r-x
 * page perf sees, thread exit; and the decoder against malformed payloads.
 *
 * The environment is read once per process (the first mark), and the
 * name table is process-wide: every test runs in a child of its own
 * (CK_FORK, forced in main), with its own PERFRING_MARKS_DIR.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include <perfring/perfring.h>
#include <perfring/marks.h>

static char dir[256];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/check-marks-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("PERFRING_MARKS_DIR", dir, 1);
	unsetenv("PERFRING_MARKS");
	unsetenv("PERFRING_MARKS_SIZE");
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[600];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(dir);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static const char *ring_path(pid_t pid, pid_t tid)
{
	static __thread char p[600];

	snprintf(p, sizeof(p), "%s/perfring-marks-%d-%d.ring", dir, (int)pid, (int)tid);
	return p;
}

static int nr_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- reading a ring back ---------------------------------------------------- */

struct rec {
	unsigned kind, flags, id;
	uint64_t value, time;
	char name[PERFRING_MARK_NAME_MAX + 1];
	size_t name_len;
	char text[PERFRING_MARK_TEXT_MAX + 1];
	size_t text_len;
	size_t size;		/* the whole record's */
};

struct ring_read {
	struct rec *r;
	size_t n;
	uint64_t lost;		/* LOST records' counts plus the pending count */
	uint64_t damage;
	uint64_t data_size;
	uint32_t nr_events;
	struct perfring_attr attr;	/* event 0's */
	char event_name[64];
	uint32_t nr_ids;
	uint64_t id0;
	int32_t clockid;
};

static void on_damage(const struct perfring_diag *d, void *user)
{
	char buf[1024];

	((struct ring_read *)user)->damage++;
	fprintf(stderr, "damage: %s\n", perfring_diag_format(d, buf, sizeof(buf)));
}

/* Every record of the ring file at path; each SAMPLE must decode. */
static void read_ring(const char *path, struct ring_read *rr)
{
	struct perfring_diag diag;
	struct perfring_ring *ring;
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };
	struct perfring_reader_stats st = { .sz = sizeof(st) };
	size_t cap = 0;
	int rc;

	memset(rr, 0, sizeof(*rr));
	rc = perfring_ring_open(path, PERFRING_RING_READ, &diag, &ring);
	ck_assert_msg(rc == 0, "open %s: %d", path, rc);
	rr->data_size = perfring_ring_data_size(ring);
	rr->nr_events = perfring_ring_nr_events(ring);
	rr->clockid = perfring_ring_clockid(ring);
	{
		PERFRING_EVENT_DESC(ev);

		ck_assert_int_eq(perfring_ring_event(ring, 0, &ev), 0);
		memcpy(&rr->attr, ev.attr, sizeof(rr->attr) < ev.attr->size ? sizeof(rr->attr)
									     : ev.attr->size);
		snprintf(rr->event_name, sizeof(rr->event_name), "%s", ev.name ? ev.name : "");
		rr->nr_ids = ev.nr_ids;
		rr->id0 = ev.nr_ids ? ev.ids[0] : 0;
	}
	PERFRING_READER_OPTS(o, .flags = PERFRING_READER_RESYNC, .on_damage = on_damage, .user = rr);
	ck_assert_int_eq(perfring_reader_new_opts(ring, &o, &rd), 0);
	while ((rc = perfring_reader_next(rd, &rec)) == 1) {
		const unsigned char *p = (const unsigned char *)rec.hdr;
		struct perfring_mark m = { .sz = sizeof(m) };
		struct rec *x;
		uint32_t raw_size;

		if (rec.hdr->type == PERFRING_RECORD_LOST)
			continue;	/* counted by the reader's stats */
		ck_assert_uint_eq(rec.hdr->type, PERFRING_RECORD_SAMPLE);
		ck_assert_uint_eq(rec.hdr->misc, PERFRING_MISC_USER);
		memcpy(&raw_size, p + 16, 4);
		ck_assert_uint_eq(20 + raw_size, rec.hdr->size);
		ck_assert_uint_eq((4 + raw_size) % 8, 0);
		ck_assert_int_eq(perfring_mark_decode(p + 20, raw_size, &m), 0);
		if (rr->n == cap) {
			cap = cap ? 2 * cap : 64;
			rr->r = realloc(rr->r, cap * sizeof(*rr->r));
			ck_assert_ptr_nonnull(rr->r);
		}
		x = &rr->r[rr->n++];
		memset(x, 0, sizeof(*x));
		x->kind = m.kind;
		x->flags = m.flags;
		x->id = m.id;
		x->value = m.value;
		memcpy(&x->time, p + 8, 8);
		x->name_len = m.name_len;
		if (m.name)
			memcpy(x->name, m.name, m.name_len);
		x->text_len = m.text_len;
		if (m.text)
			memcpy(x->text, m.text, m.text_len);
		x->size = rec.hdr->size;
	}
	ck_assert_msg(rc == 0, "reader: %d", rc);
	ck_assert_int_eq(perfring_reader_get_stats(rd, &st), 0);
	rr->lost = st.lost + st.lost_pending;
	perfring_reader_free(rd);
	perfring_ring_close(ring);
	ck_assert_uint_eq(rr->damage, 0);
}

static void check_thread_rec(const struct ring_read *rr, pid_t pid, pid_t tid)
{
	ck_assert_uint_ge(rr->n, 1);
	ck_assert_uint_eq(rr->r[0].kind, PERFRING_MARK_THREAD);
	ck_assert(rr->r[0].flags & PERFRING_MARKF_VALUE);
	ck_assert_uint_eq(rr->r[0].value, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid);
}

static struct perfring_marks_stats stats(void)
{
	struct perfring_marks_stats st = { .sz = sizeof(st) };

	ck_assert_int_eq(perfring_marks_get_stats(&st), 0);
	return st;
}

/* ---- every kind, by id and by name, with and without value and text --------- */

START_TEST(test_kinds)
{
	static const unsigned kinds[] = { PERFRING_MARK_INSTANT, PERFRING_MARK_BEGIN,
					  PERFRING_MARK_END };
	struct ring_read rr;
	struct perfring_marks_stats st;
	int frame, other;
	size_t i, n = 0, k;
	int seen_frame_name = 0, seen_other_name = 0;

	ck_assert_int_eq(prctl(PR_SET_NAME, "marks-kinds", 0, 0, 0), 0);
	frame = perfring_mark_register("frame");
	other = perfring_mark_register("other");
	ck_assert_int_gt(frame, 0);
	ck_assert_int_gt(other, 0);
	ck_assert_int_ne(frame, other);
	ck_assert_int_eq(nr_files(), 0);	/* registering creates no ring */
	for (k = 0; k < 3; k++)
		for (unsigned v = 0; v < 2; v++)
			for (unsigned t = 0; t < 2; t++) {
				unsigned how = kinds[k] | (v ? PERFRING_MARK_VALUE : 0);
				const char *text = t ? "some text" : (k ? "" : NULL);

				ck_assert_int_eq(perfring_mark_id(how, frame, 1000 + n, text), 0);
				ck_assert_int_eq(perfring_mark_str(how, "frame", 2000 + n, text), 0);
				n++;
			}
	ck_assert_int_eq(perfring_mark("checkpoint"), 0);
	ck_assert_int_eq(perfring_span_begin(other), 0);
	ck_assert_int_eq(perfring_span_end(other), 0);
	st = stats();
	ck_assert_uint_eq(st.marks, 2 * n + 3);
	ck_assert_uint_eq(st.rings, 1);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_int_eq(nr_files(), 1);

	read_ring(ring_path(getpid(), my_tid()), &rr);
	check_thread_rec(&rr, getpid(), my_tid());
	ck_assert(rr.r[0].flags & PERFRING_MARKF_NAME);
	ck_assert_uint_eq(rr.r[0].name_len, strlen("marks-kinds"));
	ck_assert_str_eq(rr.r[0].name, "marks-kinds");
	ck_assert_uint_eq(rr.n, 1 + 1 + 2 * n + 3 + 1);	/* THREAD, 2 NAMEs */
	/* NAME(frame) comes right after THREAD, before frame's first use */
	ck_assert_uint_eq(rr.r[1].kind, PERFRING_MARK_NAME);
	ck_assert_uint_eq(rr.r[1].id, (unsigned)frame);
	ck_assert_str_eq(rr.r[1].name, "frame");
	ck_assert_uint_eq(rr.r[1].flags, PERFRING_MARKF_NAME);
	i = 2;
	n = 0;
	for (k = 0; k < 3; k++)
		for (unsigned v = 0; v < 2; v++)
			for (unsigned t = 0; t < 2; t++) {
				const struct rec *a = &rr.r[i++], *b = &rr.r[i++];
				unsigned fl = (v ? PERFRING_MARKF_VALUE : 0) |
					      (t ? PERFRING_MARKF_TEXT : 0);

				ck_assert_uint_eq(a->kind, kinds[k]);
				ck_assert_uint_eq(a->id, (unsigned)frame);
				ck_assert_uint_eq(a->flags, fl);
				ck_assert_uint_eq(a->value, v ? 1000 + n : 0);
				ck_assert_uint_eq(b->kind, kinds[k]);
				ck_assert_uint_eq(b->id, 0);
				ck_assert_uint_eq(b->flags, fl | PERFRING_MARKF_NAME);
				ck_assert_str_eq(b->name, "frame");
				ck_assert_uint_eq(b->value, v ? 2000 + n : 0);
				if (t) {
					ck_assert_str_eq(a->text, "some text");
					ck_assert_str_eq(b->text, "some text");
				}
				/* the spec's sizes */
				if (!t) {
					ck_assert_uint_eq(a->size, v ? 32 : 24);
					/* 4 + 1 + 5 (+ 8) -> raw 12 (20) -> 32 (40) */
					ck_assert_uint_eq(b->size, v ? 40 : 32);
				}
				n++;
			}
	ck_assert_uint_eq(rr.r[i].kind, PERFRING_MARK_INSTANT);
	ck_assert_str_eq(rr.r[i].name, "checkpoint");
	i++;
	ck_assert_uint_eq(rr.r[i].kind, PERFRING_MARK_NAME);
	ck_assert_uint_eq(rr.r[i].id, (unsigned)other);
	ck_assert_str_eq(rr.r[i].name, "other");
	i++;
	ck_assert_uint_eq(rr.r[i].kind, PERFRING_MARK_BEGIN);
	ck_assert_uint_eq(rr.r[i].id, (unsigned)other);
	ck_assert_uint_eq(rr.r[i].size, 24);
	i++;
	ck_assert_uint_eq(rr.r[i].kind, PERFRING_MARK_END);
	ck_assert_uint_eq(rr.r[i].id, (unsigned)other);
	for (i = 0; i < rr.n; i++) {
		if (rr.r[i].kind == PERFRING_MARK_NAME) {
			seen_frame_name += rr.r[i].id == (unsigned)frame;
			seen_other_name += rr.r[i].id == (unsigned)other;
		}
		ck_assert_uint_ne(rr.r[i].time, 0);
		if (i)
			ck_assert_uint_ge(rr.r[i].time, rr.r[i - 1].time);
	}
	ck_assert_int_eq(seen_frame_name, 1);	/* once per ring */
	ck_assert_int_eq(seen_other_name, 1);
	ck_assert_uint_eq(rr.lost, 0);
	ck_assert_uint_eq(rr.data_size, 4u << 20);	/* the default size */
	/* the one event, as the spec has it */
	ck_assert_uint_eq(rr.nr_events, 1);
	ck_assert_str_eq(rr.event_name, "perfring:mark");
	ck_assert_uint_eq(rr.attr.type, PERFRING_TYPE_SOFTWARE);
	ck_assert_uint_eq(rr.attr.config, 9);
	ck_assert_uint_eq(rr.attr.size, PERFRING_ATTR_SIZE_VER8);
	ck_assert_uint_eq(rr.attr.sample_type, PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW);
	ck_assert_uint_eq(rr.attr.flags, PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_USE_CLOCKID);
	ck_assert_int_eq(rr.attr.clockid, CLOCK_MONOTONIC);
	ck_assert_int_eq(rr.clockid, CLOCK_MONOTONIC);
	ck_assert_uint_eq(rr.nr_ids, 1);
	ck_assert_uint_eq(rr.id0, 1);
	free(rr.r);
}
END_TEST

/* The marker's time is CLOCK_MONOTONIC. */
START_TEST(test_time)
{
	struct timespec a, b;
	struct ring_read rr;
	uint64_t ta, tb;

	ck_assert_int_eq(perfring_marks_thread_init(), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(perfring_mark("now"), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ta = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
	tb = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
	read_ring(ring_path(getpid(), my_tid()), &rr);
	ck_assert_uint_eq(rr.n, 2);
	ck_assert_uint_ge(rr.r[1].time, ta);
	ck_assert_uint_le(rr.r[1].time, tb);
	free(rr.r);
}
END_TEST

/* ---- arguments ---------------------------------------------------------------- */

START_TEST(test_register)
{
	char name[80];
	int a = perfring_mark_register("alpha"), ids[PERFRING_MARK_IDS_MAX + 1];
	int n;

	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(perfring_mark_register("alpha"), a);
	ck_assert_int_ne(perfring_mark_register("beta"), a);
	ck_assert_int_eq(perfring_mark_register(NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_register(""), -EINVAL);
	/* unregistered ids, bad kinds and flags */
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, -1, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, 3, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, PERFRING_MARK_IDS_MAX + 1, 0, NULL),
			 -EINVAL);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_NAME, a, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_THREAD, a, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_id(0x200, a, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_str(PERFRING_MARK_INSTANT, NULL, 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_str(PERFRING_MARK_INSTANT, "", 0, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_str(7, "x", 0, NULL), -EINVAL);
	ck_assert_uint_eq(stats().errors, 10);
	ck_assert_uint_eq(stats().marks, 0);

	/* fill the table: 2 taken, PERFRING_MARK_IDS_MAX - 2 more */
	for (n = 2; n < PERFRING_MARK_IDS_MAX; n++) {
		snprintf(name, sizeof(name), "name-%d", n);
		ids[n] = perfring_mark_register(name);
		ck_assert_int_gt(ids[n], 0);
		ck_assert_int_le(ids[n], PERFRING_MARK_IDS_MAX);
	}
	ck_assert_int_eq(perfring_mark_register("one too many"), -ENOSPC);
	ck_assert_int_eq(perfring_mark_register("alpha"), a);	/* still found */
	for (n = 2; n < PERFRING_MARK_IDS_MAX; n++) {
		snprintf(name, sizeof(name), "name-%d", n);
		ck_assert_int_eq(perfring_mark_register(name), ids[n]);
	}
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, ids[PERFRING_MARK_IDS_MAX - 1], 0,
					  NULL), 0);
}
END_TEST

/* Threads registering the same names at once get the same ids. */
static atomic_int reg_go;
static int reg_ids[4][64];

static void *reg_thread(void *arg)
{
	int *out = arg;
	char name[32];

	while (!atomic_load(&reg_go))
		;
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "shared-%d", i);
		out[i] = perfring_mark_register(name);
	}
	return NULL;
}

START_TEST(test_register_threads)
{
	pthread_t th[4];

	for (int t = 0; t < 4; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, reg_thread, reg_ids[t]), 0);
	atomic_store(&reg_go, 1);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < 64; i++) {
		char name[32];

		snprintf(name, sizeof(name), "shared-%d", i);
		ck_assert_int_gt(reg_ids[0][i], 0);
		for (int t = 1; t < 4; t++)
			ck_assert_int_eq(reg_ids[t][i], reg_ids[0][i]);
		ck_assert_int_eq(perfring_mark_register(name), reg_ids[0][i]);
		ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, reg_ids[0][i], 0, NULL), 0);
	}
}
END_TEST

/* Longer names and texts are cut to the limits, not refused. */
START_TEST(test_cut)
{
	char name[200], text[300];
	struct ring_read rr;
	int id, id63;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(text, 't', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	id = perfring_mark_register(name);
	ck_assert_int_gt(id, 0);
	name[PERFRING_MARK_NAME_MAX] = '\0';
	id63 = perfring_mark_register(name);	/* the same name once cut */
	ck_assert_int_eq(id63, id);
	name[PERFRING_MARK_NAME_MAX] = 'n';
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, id, 0, text), 0);
	ck_assert_int_eq(perfring_mark_str(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, name,
					   UINT64_MAX, text), 0);
	read_ring(ring_path(getpid(), my_tid()), &rr);
	ck_assert_uint_eq(rr.n, 4);
	ck_assert_uint_eq(rr.r[1].kind, PERFRING_MARK_NAME);
	ck_assert_uint_eq(rr.r[1].name_len, PERFRING_MARK_NAME_MAX);
	ck_assert_mem_eq(rr.r[1].name, name, PERFRING_MARK_NAME_MAX);
	ck_assert_uint_eq(rr.r[2].text_len, PERFRING_MARK_TEXT_MAX);
	ck_assert_mem_eq(rr.r[2].text, text, PERFRING_MARK_TEXT_MAX);
	ck_assert_uint_eq(rr.r[3].name_len, PERFRING_MARK_NAME_MAX);
	ck_assert_uint_eq(rr.r[3].text_len, PERFRING_MARK_TEXT_MAX);
	ck_assert_uint_eq(rr.r[3].value, UINT64_MAX);
	/* the largest record: 20 + 4 + 8 + 64 + 128 -> 224 */
	ck_assert_uint_eq(rr.r[3].size, 224);
	free(rr.r);
}
END_TEST

/* ---- threads ------------------------------------------------------------------ */

#define NTHREADS 4
#define PER_THREAD 5000

struct th_arg {
	int idx;
	int id;
	pid_t tid;
	int fails;
};

static void *mark_thread(void *p)
{
	struct th_arg *a = p;

	a->tid = my_tid();
	for (int i = 0; i < PER_THREAD; i++)
		if (perfring_mark_id(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, a->id,
				     (uint64_t)a->idx << 32 | (unsigned)i, NULL))
			a->fails++;
	return NULL;
}

START_TEST(test_threads)
{
	pthread_t th[NTHREADS];
	struct th_arg args[NTHREADS];
	int id = perfring_mark_register("work");

	for (int t = 0; t < NTHREADS; t++) {
		args[t] = (struct th_arg){ .idx = t, .id = id };
		ck_assert_int_eq(pthread_create(&th[t], NULL, mark_thread, &args[t]), 0);
	}
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	ck_assert_uint_eq(stats().rings, NTHREADS);
	ck_assert_uint_eq(stats().marks, NTHREADS * PER_THREAD);
	ck_assert_int_eq(nr_files(), NTHREADS);	/* the files outlive their threads */
	for (int t = 0; t < NTHREADS; t++) {
		struct ring_read rr;

		ck_assert_int_eq(args[t].fails, 0);
		read_ring(ring_path(getpid(), args[t].tid), &rr);
		check_thread_rec(&rr, getpid(), args[t].tid);
		ck_assert_uint_eq(rr.n, 2 + PER_THREAD);
		ck_assert_uint_eq(rr.r[1].kind, PERFRING_MARK_NAME);
		for (int i = 0; i < PER_THREAD; i++)
			ck_assert_uint_eq(rr.r[2 + i].value, (uint64_t)t << 32 | (unsigned)i);
		free(rr.r);
	}
}
END_TEST

/* ---- signal handlers nest ----------------------------------------------------- */

static int sig_id;
static volatile sig_atomic_t in_mark, sig_total, sig_inside, sig_fail;

static void on_alarm(int sig)
{
	(void)sig;
	if (in_mark)
		sig_inside++;
	if (perfring_mark_id(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, sig_id,
			     (uint64_t)sig_total, "from the handler"))
		sig_fail++;
	sig_total++;
}

START_TEST(test_signal_nesting)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { .it_interval = { 0, 50 }, .it_value = { 0, 50 } };
	struct itimerval stop = { { 0, 0 }, { 0, 0 } };
	struct ring_read rr;
	struct timespec t0, t;
	int id = perfring_mark_register("loop");
	uint64_t loops = 0, main_n = 0, sig_n = 0;

	/* room for every marker: 400000 of 32 bytes, the handlers' of 56 */
	setenv("PERFRING_MARKS_SIZE", "33554432", 1);
	sig_id = perfring_mark_register("signal");
	ck_assert_int_eq(perfring_marks_thread_init(), 0);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100; i++) {
			in_mark = 1;
			ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_BEGIN | PERFRING_MARK_VALUE, id,
							  loops, NULL), 0);
			in_mark = 0;
			loops++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((sig_inside < 20 || sig_total < 200) && t.tv_sec - t0.tv_sec < 5 &&
		 loops < 400000);
	setitimer(ITIMER_REAL, &stop, NULL);
	signal(SIGALRM, SIG_IGN);
	ck_assert_int_eq(sig_fail, 0);
	ck_assert_int_gt(sig_total, 0);
	ck_assert_int_gt(sig_inside, 0);	/* some handlers did interrupt a mark */
	ck_assert_uint_eq(stats().marks, loops + (uint64_t)sig_total);
	ck_assert_uint_eq(stats().dropped, 0);

	read_ring(ring_path(getpid(), my_tid()), &rr);
	check_thread_rec(&rr, getpid(), my_tid());
	for (size_t i = 1; i < rr.n; i++) {
		const struct rec *r = &rr.r[i];

		if (r->kind == PERFRING_MARK_NAME)
			continue;
		if (r->id == (unsigned)id) {
			ck_assert_uint_eq(r->kind, PERFRING_MARK_BEGIN);
			ck_assert_uint_eq(r->value, main_n);	/* in order, none lost */
			ck_assert_uint_eq(r->size, 32);
			main_n++;
		} else {
			ck_assert_uint_eq(r->id, (unsigned)sig_id);
			ck_assert_uint_eq(r->value, sig_n);
			ck_assert_str_eq(r->text, "from the handler");
			sig_n++;
		}
	}
	ck_assert_uint_eq(main_n, loops);
	ck_assert_uint_eq(sig_n, (uint64_t)sig_total);
	free(rr.r);
}
END_TEST

/* ---- fork ----------------------------------------------------------------------- */

START_TEST(test_fork)
{
	struct ring_read rr;
	pid_t child;
	int status, child_marks = 0, parent_marks = 0;

	ck_assert_int_eq(perfring_mark("parent-before"), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int bad = 0;

		for (int i = 0; i < 3; i++)
			bad |= perfring_mark("child") != 0;
		_exit(bad ? 1 : access(ring_path(getpid(), getpid()), F_OK) ? 2 : 0);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(perfring_mark("parent-after"), 0);

	read_ring(ring_path(getpid(), my_tid()), &rr);
	check_thread_rec(&rr, getpid(), my_tid());
	for (size_t i = 1; i < rr.n; i++) {
		ck_assert_str_ne(rr.r[i].name, "child");
		parent_marks++;
	}
	ck_assert_int_eq(parent_marks, 2);
	ck_assert_str_eq(rr.r[2].name, "parent-after");
	free(rr.r);

	read_ring(ring_path(child, child), &rr);
	check_thread_rec(&rr, child, child);
	for (size_t i = 1; i < rr.n; i++) {
		ck_assert_str_eq(rr.r[i].name, "child");
		child_marks++;
	}
	ck_assert_int_eq(child_marks, 3);
	free(rr.r);
	ck_assert_int_eq(nr_files(), 2);
}
END_TEST

/* ---- a full ring -------------------------------------------------------------- */

START_TEST(test_full)
{
	struct ring_read rr;
	struct perfring_marks_stats st;
	int id = perfring_mark_register("fill");
	uint64_t ok = 0, refused = 0;
	int rc;

	setenv("PERFRING_MARKS_SIZE", "65536", 1);
	while ((rc = perfring_mark_id(PERFRING_MARK_INSTANT | PERFRING_MARK_VALUE, id, ok,
				      NULL)) == 0)
		ok++;
	ck_assert_int_eq(rc, -ENOSPC);
	refused = 1;
	for (int i = 0; i < 100; i++, refused++)
		ck_assert_int_eq(perfring_mark("more"), -ENOSPC);
	/* 64 KiB, 32-byte markers: about 2048 fit */
	ck_assert_uint_gt(ok, 1900);
	ck_assert_uint_lt(ok, 2048);
	st = stats();
	ck_assert_uint_eq(st.marks, ok);
	ck_assert_uint_eq(st.dropped, refused);
	ck_assert_uint_eq(st.errors, 0);

	read_ring(ring_path(getpid(), my_tid()), &rr);
	ck_assert_uint_eq(rr.data_size, 65536);
	ck_assert_uint_eq(rr.n, 2 + ok);
	ck_assert_uint_eq(rr.lost, refused);	/* the ring's own count agrees */
	free(rr.r);
}
END_TEST

/* $PERFRING_MARKS_SIZE: raised to 64 KiB, rounded up to a power of two;
 * what is not a number gives the default. */
static const struct {
	const char *env;
	uint64_t size;
} size_cases[] = {
	{ "65536", 65536 }, { "100000", 131072 }, { "4096", 65536 }, { "0", 65536 },
	{ "0x100000", 1u << 20 }, { "12ab", 4u << 20 }, { "", 4u << 20 },
};

START_TEST(test_size)
{
	struct ring_read rr;

	setenv("PERFRING_MARKS_SIZE", size_cases[_i].env, 1);
	ck_assert_int_eq(perfring_mark("x"), 0);
	read_ring(ring_path(getpid(), my_tid()), &rr);
	ck_assert_msg(rr.data_size == size_cases[_i].size, "\"%s\": %llu bytes",
		      size_cases[_i].env, (unsigned long long)rr.data_size);
	free(rr.r);
}
END_TEST

/* ---- off ----------------------------------------------------------------------- */

START_TEST(test_off)
{
	struct perfring_marks_stats st;
	int id;

	setenv("PERFRING_MARKS", "off", 1);
	id = perfring_mark_register("still registers");
	ck_assert_int_gt(id, 0);
	ck_assert_int_eq(perfring_marks_thread_init(), 0);
	ck_assert_int_eq(perfring_mark("x"), 0);
	ck_assert_int_eq(perfring_span_begin(id), 0);
	ck_assert_int_eq(perfring_span_end(id), 0);
	ck_assert_int_eq(perfring_mark_id(PERFRING_MARK_INSTANT, 999, 0, "bad id, still 0"), 0);
	ck_assert_int_eq(nr_files(), 0);
	st = stats();
	ck_assert_uint_eq(st.marks, 0);
	ck_assert_uint_eq(st.rings, 0);
	ck_assert_uint_eq(st.errors, 0);
}
END_TEST

/* The environment is read once: later changes do not matter. */
START_TEST(test_env_once)
{
	ck_assert_int_eq(perfring_mark("first"), 0);
	setenv("PERFRING_MARKS", "off", 1);
	ck_assert_int_eq(perfring_mark("second"), 0);
	ck_assert_uint_eq(stats().marks, 2);
}
END_TEST

/* A directory that cannot hold the ring: the error, counted. */
START_TEST(test_no_dir)
{
	char missing[400];

	snprintf(missing, sizeof(missing), "%s/missing", dir);
	setenv("PERFRING_MARKS_DIR", missing, 1);
	ck_assert_int_eq(perfring_mark("x"), -ENOENT);
	ck_assert_int_eq(perfring_mark("x"), -ENOENT);
	ck_assert_int_eq(perfring_marks_thread_init(), -ENOENT);
	ck_assert_uint_eq(stats().errors, 2);
	ck_assert_uint_eq(stats().rings, 0);
}
END_TEST

/* A handler that marks while its thread creates the ring gets -EBUSY: the
 * log callback of the failing creation raises the signal. */
static atomic_int creating_rc = 1, creating_logs;

static void on_usr2(int sig)
{
	(void)sig;
	atomic_store(&creating_rc, perfring_mark("inside the creation"));
}

static void raise_on_log(enum perfring_log_level level, const char *msg, void *user)
{
	(void)level;
	(void)msg;
	(void)user;
	atomic_fetch_add(&creating_logs, 1);
	raise(SIGUSR2);
}

START_TEST(test_creating)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	char missing[400];

	snprintf(missing, sizeof(missing), "%s/missing", dir);
	setenv("PERFRING_MARKS_DIR", missing, 1);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	perfring_set_log(raise_on_log, NULL);
	ck_assert_int_eq(perfring_mark("outer"), -ENOENT);
	perfring_set_log(NULL, NULL);
	ck_assert_int_ge(atomic_load(&creating_logs), 1);
	ck_assert_int_eq(atomic_load(&creating_rc), -EBUSY);
	ck_assert_uint_eq(stats().errors, 2);
}
END_TEST

/* ---- the page perf sees ------------------------------------------------------- */

static int maps_has(const char *path, char *perms)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n >= strlen(path) && !strcmp(line + n - strlen(path), path)) {
			sscanf(line, "%*s %4s", perms);
			found++;
		}
	}
	fclose(f);
	return found;
}

static void *exit_thread(void *p)
{
	*(pid_t *)p = my_tid();
	perfring_mark("and gone");
	return NULL;
}

START_TEST(test_maps)
{
	char perms[8] = "", exec_ok;
	pthread_t th;
	pid_t tid;

	ck_assert_int_eq(perfring_marks_thread_init(), 0);
	ck_assert_int_ge(maps_has(ring_path(getpid(), my_tid()), perms), 1);
	/* r-x, or r-- where the folder is on a noexec file system */
	exec_ok = !strcmp(perms, "r-xp");
	ck_assert_msg(exec_ok || !strcmp(perms, "r--p"), "perms %s", perms);
	ck_assert_int_eq(pthread_create(&th, NULL, exit_thread, &tid), 0);
	pthread_join(th, NULL);
	/* the thread is gone, its page stays */
	ck_assert_int_eq(maps_has(ring_path(getpid(), tid), perms), 1);
	ck_assert_str_eq(perms, exec_ok ? "r-xp" : "r--p");
}
END_TEST

/* ---- thread exit: marks after the teardown touch nothing ---------------------- */

static pthread_key_t late_key;
static atomic_int late_rc = 1, late_sig_rc = 1;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_store(&late_sig_rc, perfring_mark("late, in a handler"));
}

static void late_destructor(void *p)
{
	(void)p;
	/* the library's key was created first: its destructor ran already */
	atomic_store(&late_rc, perfring_mark("late"));
	raise(SIGUSR1);
}

static void *late_thread(void *p)
{
	*(pid_t *)p = my_tid();
	perfring_mark("alive");
	pthread_setspecific(late_key, p);
	return NULL;
}

START_TEST(test_thread_exit)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct ring_read rr;
	pthread_t th;
	pid_t tid;

	ck_assert_int_eq(perfring_marks_thread_init(), 0);	/* the library's key first */
	ck_assert_int_eq(pthread_key_create(&late_key, late_destructor), 0);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, late_thread, &tid), 0);
	pthread_join(th, NULL);
	ck_assert_int_eq(atomic_load(&late_rc), -EBUSY);
	ck_assert_int_eq(atomic_load(&late_sig_rc), -EBUSY);
	read_ring(ring_path(getpid(), tid), &rr);
	ck_assert_uint_eq(rr.n, 2);
	ck_assert_str_eq(rr.r[1].name, "alive");
	free(rr.r);
	ck_assert_uint_eq(stats().rings, 2);
	ck_assert_uint_eq(stats().marks, 1);
}
END_TEST

/* ---- the decoder -------------------------------------------------------------- */

struct raw_case {
	const char *what;
	unsigned char raw[40];
	size_t len;
	int rc;
};

static const struct raw_case raw_cases[] = {
	{ "id marker", { 0, 0, 1, 0 }, 4, 0 },
	{ "id marker with value", { 1, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8 }, 12, 0 },
	{ "inline name", { 0, 2, 0, 0, 5, 'f', 'r', 'a', 'm', 'e', 0, 0 }, 12, 0 },
	{ "name and text", { 2, 6, 0, 0, 1, 'a', 2, 'h', 'i', 0, 0, 0 }, 12, 0 },
	{ "NAME", { 3, 2, 7, 0, 1, 'a', 0, 0, 0, 0, 0, 0 }, 12, 0 },
	{ "THREAD", { 4, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0 }, 12, 0 },
	{ "THREAD with comm", { 4, 3, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0 }, 20, 0 },
	{ "too short", { 0, 0, 1 }, 3, -EBADMSG },
	{ "unknown kind", { 5, 0, 1, 0 }, 4, -EBADMSG },
	{ "unknown flag", { 0, 8, 1, 0 }, 4, -EBADMSG },
	{ "id over the limit", { 0, 0, 0x00, 0x04 }, 4, -EBADMSG },
	{ "neither id nor name", { 0, 0, 0, 0 }, 4, -EBADMSG },
	{ "both id and name", { 0, 2, 1, 0, 1, 'a', 0, 0 }, 8, -EBADMSG },
	{ "value past the end", { 0, 1, 1, 0, 1, 2, 3, 4 }, 8, -EBADMSG },
	{ "name past the end", { 0, 2, 0, 0, 9, 'a', 'b', 'c' }, 8, -EBADMSG },
	{ "empty name", { 0, 2, 0, 0, 0, 0, 0, 0 }, 8, -EBADMSG },
	{ "name over 63", { 0, 2, 0, 0, 64 }, 5, -EBADMSG },
	{ "empty text", { 0, 4, 1, 0, 0, 0, 0, 0 }, 8, -EBADMSG },
	{ "text past the end", { 0, 4, 1, 0, 4, 'a', 'b', 'c' }, 8, -EBADMSG },
	{ "nonzero padding", { 0, 0, 1, 0, 0, 0, 0, 1 }, 8, -EBADMSG },
	{ "NAME without id", { 3, 2, 0, 0, 1, 'a', 0, 0 }, 8, -EBADMSG },
	{ "NAME without name", { 3, 0, 7, 0 }, 4, -EBADMSG },
	{ "NAME with value", { 3, 3, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0 }, 16, -EBADMSG },
	{ "THREAD without value", { 4, 0, 0, 0 }, 4, -EBADMSG },
	{ "THREAD with id", { 4, 1, 1, 0, 1, 0, 0, 0, 2, 0, 0, 0 }, 12, -EBADMSG },
	{ "THREAD with text", { 4, 5, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 'x', 0, 0 }, 16, -EBADMSG },
};

START_TEST(test_decode)
{
	const struct raw_case *c = &raw_cases[_i];
	struct perfring_mark m = { .sz = sizeof(m) };

	ck_assert_msg(perfring_mark_decode(c->raw, c->len, &m) == c->rc, "%s: got %d, want %d",
		      c->what, perfring_mark_decode(c->raw, c->len, &m), c->rc);
	if (c->rc)
		return;
	ck_assert_uint_eq(m.kind, c->raw[0]);
	ck_assert_uint_eq(m.flags, c->raw[1]);
	ck_assert_uint_eq(m.id, c->raw[2] | c->raw[3] << 8);
	if (m.flags & PERFRING_MARKF_NAME)
		ck_assert_ptr_nonnull(m.name);
}
END_TEST

START_TEST(test_decode_args)
{
	static const unsigned char ok[4] = { 0, 0, 1, 0 };
	struct perfring_mark m = { .sz = sizeof(m) };
	struct perfring_mark small = { .sz = sizeof(size_t) };

	ck_assert_int_eq(perfring_mark_decode(NULL, 4, &m), -EINVAL);
	ck_assert_int_eq(perfring_mark_decode(ok, 4, NULL), -EINVAL);
	ck_assert_int_eq(perfring_mark_decode(ok, 4, &small), -EINVAL);
	ck_assert_int_eq(perfring_mark_decode(ok, 4, &m), 0);
	ck_assert_uint_eq(m.sz, sizeof(m));
}
END_TEST

static Suite *marks_suite(void)
{
	Suite *s = suite_create("marks");
	TCase *tc = tcase_create("write");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_register);
	tcase_add_test(tc, test_register_threads);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_signal_nesting);
	tcase_add_test(tc, test_fork);
	tcase_add_test(tc, test_full);
	tcase_add_loop_test(tc, test_size, 0, (int)(sizeof(size_cases) / sizeof(size_cases[0])));
	tcase_add_test(tc, test_off);
	tcase_add_test(tc, test_env_once);
	tcase_add_test(tc, test_no_dir);
	tcase_add_test(tc, test_creating);
	tcase_add_test(tc, test_maps);
	tcase_add_test(tc, test_thread_exit);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_loop_test(tc, test_decode, 0, (int)(sizeof(raw_cases) / sizeof(raw_cases[0])));
	tcase_add_test(tc, test_decode_args);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(marks_suite());
	int failed;

	/* each test needs a process of its own: the environment is read once
	 * per process and the name table is process-wide */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
