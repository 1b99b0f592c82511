/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Markers and spans (include/perfring/marks.h).
 *
 * The ring format, version 1.  Each marking thread has a ring file of its
 * own (perfring_ring_create, PERFRING_RING_FILE, normal mode) named
 * perfring-marks-PID-TID.ring in $PERFRING_MARKS_DIR (default /tmp), of
 * $PERFRING_MARKS_SIZE data bytes (a power of two, default 4 MiB, at least
 * 64 KiB).  Its first page stays mapped PROT_READ|PROT_EXEC (PROT_READ
 * where exec is refused), so the kernel reports an MMAP2 naming the file
 * to perf and perfring-record: that is how a consumer finds the ring.
 *
 * The ring's one event is "perfring:mark": a software dummy event
 * (type 1, config 9) with sample_type TIME|RAW, sample_id_all and
 * use_clockid on CLOCK_MONOTONIC, id 1.  Each record is a SAMPLE,
 * misc USER:
 *
 *   0  header          type 9, misc 2, size
 *   8  u64 time        CLOCK_MONOTONIC, ns
 *   16 u32 raw_size    4 + raw_size is a multiple of 8, as the kernel pads
 *   20 raw[raw_size]
 *
 * raw, in host byte order:
 *
 *   0  u8  kind        0 INSTANT, 1 BEGIN, 2 END, 3 NAME, 4 THREAD
 *   1  u8  flags       1 VALUE, 2 NAME (inline), 4 TEXT
 *   2  u16 id          registered name id, 0 when the name is inline
 *   4  then, each only with its flag, in this order, unaligned:
 *        u64 value
 *        u8 name_len (1..63), the name's bytes
 *        u8 text_len (1..127), the text's bytes
 *      then zero padding.
 *
 * So a marker by id is 24 bytes, 32 with a value.  The first record of a
 * ring is THREAD (value = pid << 32 | tid, optionally the thread's name);
 * a registered id's first use in a ring is preceded by NAME (the id and
 * its name), so each ring describes itself.  pid and tid are the ring's,
 * not repeated per marker.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <perfring/marks.h>
#include <perfring/core/core.h>

#include "util/internal.h"

/* ---- decoding (the reader's side) --------------------------------------------- */

PERFRING_API int perfring_mark_decode(const void *raw, size_t raw_size, struct perfring_mark *m)
{
	const unsigned char *p = raw, *end;
	struct perfring_mark d = { .sz = sizeof(d) };

	if (!raw || !m || m->sz < sizeof(*m) || m->sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	if (raw_size < 4)
		return -EBADMSG;
	end = p + raw_size;
	d.kind = p[0];
	d.flags = p[1];
	d.id = pr_get16(p + 2);
	p += 4;
	if (d.kind > PERFRING_MARK_THREAD ||
	    (d.flags & ~(PERFRING_MARKF_VALUE | PERFRING_MARKF_NAME | PERFRING_MARKF_TEXT)) ||
	    d.id > PERFRING_MARK_IDS_MAX)
		return -EBADMSG;
	if (d.flags & PERFRING_MARKF_VALUE) {
		if (end - p < 8)
			return -EBADMSG;
		d.value = pr_get64(p);
		p += 8;
	}
	if (d.flags & PERFRING_MARKF_NAME) {
		if (end - p < 1 || !p[0] || p[0] > PERFRING_MARK_NAME_MAX || end - p - 1 < p[0])
			return -EBADMSG;
		d.name_len = p[0];
		d.name = (const char *)p + 1;
		p += 1 + d.name_len;
	}
	if (d.flags & PERFRING_MARKF_TEXT) {
		if (end - p < 1 || !p[0] || p[0] > PERFRING_MARK_TEXT_MAX || end - p - 1 < p[0])
			return -EBADMSG;
		d.text_len = p[0];
		d.text = (const char *)p + 1;
		p += 1 + d.text_len;
	}
	for (; p < end; p++)
		if (*p)
			return -EBADMSG;
	switch (d.kind) {
	case PERFRING_MARK_NAME:	/* defines id: both, nothing else */
		if (!d.id || !d.name || (d.flags & (PERFRING_MARKF_VALUE | PERFRING_MARKF_TEXT)))
			return -EBADMSG;
		break;
	case PERFRING_MARK_THREAD:	/* value = pid << 32 | tid, maybe a name */
		if (d.id || !(d.flags & PERFRING_MARKF_VALUE) || (d.flags & PERFRING_MARKF_TEXT))
			return -EBADMSG;
		break;
	default:			/* a marker: by id or by name, not both */
		if (!d.id == !d.name)
			return -EBADMSG;
		break;
	}
	return perfring_struct_fill(m, sizeof(*m), &d, sizeof(d));
}

/* ---- the table of names -------------------------------------------------------
 *
 * Ids are handed out in order (a CAS on nr_ids) and a name is written into
 * its slot before it is published in a hash index of 2048 buckets (a CAS
 * from 0 to the id, release), so whoever finds an id in the index finds its
 * name complete.  Two threads registering the same new name at once each
 * take a slot; the one that loses the bucket's CAS returns the winner's id,
 * and its slot stays unpublished (never valid for perfring_mark_id).  No
 * lock, no waiting on another thread, no allocation.
 */
#define MK_HASH_SIZE 2048u	/* > 2 * PERFRING_MARK_IDS_MAX: a free bucket always exists */

static char mk_names[PERFRING_MARK_IDS_MAX][PERFRING_MARK_NAME_MAX];
static unsigned char mk_name_len[PERFRING_MARK_IDS_MAX];
static atomic_uchar mk_ready[PERFRING_MARK_IDS_MAX];	/* published in the index */
static atomic_uint_least16_t mk_index[MK_HASH_SIZE];	/* 0 or an id */
static atomic_uint mk_nr_ids;				/* slots handed out */

static uint32_t mk_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The id of name[n] in the index, from bucket *b on; else 0 with *b the
 * first free bucket. */
static int mk_lookup(const char *name, size_t n, uint32_t *b)
{
	for (;; *b = (*b + 1) & (MK_HASH_SIZE - 1)) {
		unsigned id = atomic_load_explicit(&mk_index[*b], memory_order_acquire);

		if (!id)
			return 0;
		if (mk_name_len[id - 1] == n && !memcmp(mk_names[id - 1], name, n))
			return (int)id;
	}
}

PERFRING_API int perfring_mark_register(const char *name)
{
	uint32_t b;
	size_t n;
	unsigned slot;
	int id;

	if (!name || !*name)
		return -EINVAL;
	n = strnlen(name, PERFRING_MARK_NAME_MAX);
	b = mk_hash(name, n) & (MK_HASH_SIZE - 1);
	id = mk_lookup(name, n, &b);
	if (id)
		return id;
	slot = atomic_load_explicit(&mk_nr_ids, memory_order_relaxed);
	do {
		if (slot >= PERFRING_MARK_IDS_MAX)
			return -ENOSPC;
	} while (!atomic_compare_exchange_weak_explicit(&mk_nr_ids, &slot, slot + 1,
							memory_order_relaxed,
							memory_order_relaxed));
	memcpy(mk_names[slot], name, n);
	mk_name_len[slot] = (unsigned char)n;
	for (;;) {
		uint_least16_t expect = 0;

		if (atomic_compare_exchange_strong_explicit(&mk_index[b], &expect,
							    (uint_least16_t)(slot + 1),
							    memory_order_acq_rel,
							    memory_order_acquire)) {
			atomic_store_explicit(&mk_ready[slot], 1, memory_order_release);
			return (int)slot + 1;
		}
		/* someone filled the bucket first: that name, or probe on */
		id = mk_lookup(name, n, &b);
		if (id)
			return id;	/* the same name won the race; slot stays unused */
	}
}

/* ---- the process's settings and counters -------------------------------------- */

static pthread_once_t mk_once = PTHREAD_ONCE_INIT;
static atomic_int mk_off;		/* $PERFRING_MARKS=off, set once */
static uint64_t mk_data_size;		/* $PERFRING_MARKS_SIZE */
static char mk_dir[4096];		/* $PERFRING_MARKS_DIR */
static pthread_key_t mk_key;
static int mk_key_ok;

static atomic_uint_least64_t mk_st_marks, mk_st_dropped, mk_st_rings, mk_st_errors;

#define MK_DEFAULT_SIZE (4u << 20)
#define MK_MIN_SIZE	(64u << 10)
#define MK_MAX_SIZE	(1ull << 30)

/* ---- the calling thread's ring ------------------------------------------------ */

enum mk_state {
	MK_NONE = 0,		/* no ring yet: the next mark creates it */
	MK_CREATING,		/* being created: a handler's mark gets -EBUSY */
	MK_READY,		/* ring set */
	MK_FAILED,		/* creation failed (error): marks return it */
	MK_DEAD,		/* the thread is exiting: the ring is gone */
};

/*
 * Initial-exec TLS: one load off the thread pointer, no __tls_get_addr
 * call (which may allocate) on the marking path.  state is what a signal
 * handler checks before it touches ring; it changes by atomic operations
 * (lock-free, so async-signal-safe), after ring is set and before ring is
 * taken away, so that a handler on the same thread sees either a whole
 * ring or none.
 */
struct mk_thread {
	struct perfring_ring *ring;
	atomic_int state;		/* enum mk_state */
	int error;			/* MK_FAILED: the negative errno */
	uint64_t defined[(PERFRING_MARK_IDS_MAX + 1 + 63) / 64];	/* NAME written, by id */
};
static __thread struct mk_thread mk_self __attribute__((tls_model("initial-exec")));

static uint64_t mk_now(void)
{
	struct timespec ts;

	/* the vDSO: no system call.  It may not fail for CLOCK_MONOTONIC. */
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Lay one record out in buf (MK_REC_MAX bytes, 8-aligned): header, time,
 * raw_size, then the raw payload and its zero padding.  Returns its size.
 */
#define MK_REC_MAX (20 + 4 + 8 + 1 + PERFRING_MARK_NAME_MAX + 1 + PERFRING_MARK_TEXT_MAX + 7)

static size_t mk_build(unsigned char *buf, unsigned kind, unsigned flags, unsigned id,
		       uint64_t value, const char *name, size_t nlen, const char *text,
		       size_t tlen, uint64_t time)
{
	size_t raw = 4, size, o;

	if (flags & PERFRING_MARKF_VALUE)
		raw += 8;
	if (flags & PERFRING_MARKF_NAME)
		raw += 1 + nlen;
	if (flags & PERFRING_MARKF_TEXT)
		raw += 1 + tlen;
	raw = PR_ALIGN8(4 + raw) - 4;	/* 4 + raw_size: a multiple of 8 */
	size = 20 + raw;
	pr_put64(buf + size - 8, 0);	/* the padding (all of it is in the last word) */
	/* the SAMPLE around the payload is the core's layout */
	perfring_core_time_raw_head(buf, PERFRING_MISC_USER, time, (uint32_t)raw);
	buf[20] = (unsigned char)kind;
	buf[21] = (unsigned char)flags;
	pr_put16(buf + 22, (uint16_t)id);
	o = 24;
	if (flags & PERFRING_MARKF_VALUE) {
		pr_put64(buf + o, value);
		o += 8;
	}
	if (flags & PERFRING_MARKF_NAME) {
		buf[o] = (unsigned char)nlen;
		memcpy(buf + o + 1, name, nlen);
		o += 1 + nlen;
	}
	if (flags & PERFRING_MARKF_TEXT) {
		buf[o] = (unsigned char)tlen;
		memcpy(buf + o + 1, text, tlen);
	}
	return size;
}

/* pthread key destructor: the thread exits.  The file stays, and so does
 * its r-x page (consumers read the ring after the program ended). */
static void mk_thread_exit(void *unused)
{
	struct mk_thread *t = &mk_self;
	struct perfring_ring *r;

	(void)unused;
	atomic_store(&t->state, MK_DEAD);	/* a handler from here on touches nothing */
	r = t->ring;
	t->ring = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	perfring_ring_close(r);
}

/* fork: the child's thread gets a ring of its own (its pid) on its first
 * mark; the parent's ring is closed in the child only (the parent keeps it). */
static void mk_atfork_child(void)
{
	struct mk_thread *t = &mk_self;
	struct perfring_ring *r;

	if (atomic_load(&t->state) == MK_DEAD)
		return;
	atomic_store(&t->state, MK_CREATING);
	r = t->ring;
	t->ring = NULL;
	memset(t->defined, 0, sizeof(t->defined));
	perfring_ring_close(r);
	atomic_store(&t->state, MK_NONE);
}

static uint64_t mk_parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t p;

	if (!s || !*s || *s == '-')
		return MK_DEFAULT_SIZE;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		return MK_DEFAULT_SIZE;
	if (v > MK_MAX_SIZE)
		v = MK_MAX_SIZE;
	for (p = MK_MIN_SIZE; p < v; p <<= 1)
		;		/* raised to a power of two, at least 64 KiB */
	return p;
}

/* Once per process, at its first mark (or perfring_marks_thread_init). */
static void mk_init(void)
{
	const char *off = getenv("PERFRING_MARKS");
	const char *dir = getenv("PERFRING_MARKS_DIR");
	long page = sysconf(_SC_PAGESIZE);

	mk_data_size = mk_parse_size(getenv("PERFRING_MARKS_SIZE"));
	while (page > 0 && mk_data_size < (uint64_t)page)
		mk_data_size <<= 1;	/* a ring is 2^n pages */
	pr_strlcpy(mk_dir, dir && *dir ? dir : "/tmp", sizeof(mk_dir));
	if (off && !strcmp(off, "off")) {
		atomic_store(&mk_off, 1);
		return;
	}
	mk_key_ok = pthread_key_create(&mk_key, mk_thread_exit) == 0;
	pthread_atfork(NULL, NULL, mk_atfork_child);
}

/* Create the calling thread's ring (state MK_CREATING): 0 or -errno. */
static int mk_create(struct mk_thread *t)
{
	static const uint64_t ids[1] = { 1 };
	struct perfring_attr attr = {
		.type = PERFRING_TYPE_SOFTWARE,
		.size = PERFRING_ATTR_SIZE_VER8,
		.config = 9,	/* PERF_COUNT_SW_DUMMY */
		.sample_type = PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_RAW,
		.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_USE_CLOCKID,
		.clockid = CLOCK_MONOTONIC,
	};
	PERFRING_EVENT_DESC(ev, .attr = &attr, .ids = ids, .nr_ids = 1, .name = "perfring:mark");
	unsigned char rec[MK_REC_MAX] __attribute__((aligned(8)));
	char path[sizeof(mk_dir) + 64], comm[17] = "";
	struct perfring_diag diag;
	struct perfring_ring *r;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	long page = sysconf(_SC_PAGESIZE);
	size_t clen;
	void *m;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/perfring-marks-%d-%d.ring", mk_dir,
			     (int)pid, (int)tid) >= sizeof(path))
		return -ENAMETOOLONG;
	PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = path,
			   .data_size = mk_data_size,
			   .flags = PERFRING_RING_CLOCKID | PERFRING_RING_TRUNCATE,
			   .clockid = CLOCK_MONOTONIC, .events = &ev, .nr_events = 1);
	rc = perfring_ring_create(&o, &diag, &r);
	if (rc < 0) {
		char buf[1024];

		pr_log(PERFRING_LOG_WARN, "markers: %s",
		       perfring_diag_format(&diag, buf, sizeof(buf)));
		return rc;
	}
	/* The jitdump trick: an MMAP2 that names the ring, for perf to see. */
	m = mmap(NULL, page > 0 ? (size_t)page : 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 perfring_ring_fd(r), 0);
	if (m == MAP_FAILED)
		m = mmap(NULL, page > 0 ? (size_t)page : 4096, PROT_READ, MAP_PRIVATE,
			 perfring_ring_fd(r), 0);
	if (m == MAP_FAILED)
		pr_log(PERFRING_LOG_WARN, "markers: %s: cannot map its first page: %s", path,
		       strerror(errno));
	if (prctl(PR_GET_NAME, comm, 0, 0, 0))
		comm[0] = '\0';
	clen = strnlen(comm, 16);
	mk_build(rec, PERFRING_MARK_THREAD,
			PERFRING_MARKF_VALUE | (clen ? PERFRING_MARKF_NAME : 0), 0,
			(uint64_t)(uint32_t)pid << 32 | (uint32_t)tid, comm, clen, NULL, 0,
			mk_now());
	rc = perfring_ring_write(r, rec);
	if (rc < 0) {
		perfring_ring_close(r);
		return rc;
	}
	memset(t->defined, 0, sizeof(t->defined));
	if (mk_key_ok)
		pthread_setspecific(mk_key, t);	/* non-NULL: the destructor runs */
	t->ring = r;
	atomic_store(&t->state, MK_READY);
	atomic_fetch_add_explicit(&mk_st_rings, 1, memory_order_relaxed);
	return 0;
}

/*
 * The calling thread's ring: 0 (t->ring set), 1 (marking is off), or a
 * negative errno.  retry: a failed creation is tried again.
 */
static int mk_ring_slow(struct mk_thread *t, int retry)
{
	int st = atomic_load(&t->state);
	int rc;

	if (atomic_load_explicit(&mk_off, memory_order_relaxed))
		return 1;	/* also from a handler that interrupted a mark */
	for (;;) {
		switch (st) {
		case MK_READY:
			return 0;
		case MK_CREATING:
		case MK_DEAD:
			return -EBUSY;
		case MK_FAILED:
			if (!retry)
				return t->error;
			break;
		default:
			break;
		}
		/* Claim the creation.  A handler that interrupted us since the
		 * load may have made the ring meanwhile: then look again. */
		if (atomic_compare_exchange_strong(&t->state, &st, MK_CREATING))
			break;
	}
	pthread_once(&mk_once, mk_init);
	if (atomic_load_explicit(&mk_off, memory_order_relaxed)) {
		atomic_store(&t->state, MK_NONE);
		return 1;
	}
	rc = mk_create(t);
	if (rc < 0) {
		t->error = rc;
		atomic_store(&t->state, MK_FAILED);
	}
	return rc;
}

/* Write one marker into the thread's ring, its id's NAME first if needed. */
static int mk_write(struct mk_thread *t, unsigned kind, unsigned flags, unsigned id,
		    uint64_t value, const char *name, size_t nlen, const char *text)
{
	unsigned char rec[MK_REC_MAX] __attribute__((aligned(8)));
	struct perfring_ring *r = t->ring;
	uint64_t now = mk_now();
	size_t tlen = 0;
	int rc;

	if (id && !(t->defined[id / 64] & (1ull << (id % 64)))) {
		/* A handler may run between the NAME and the bit: it then writes
		 * a NAME of its own, a harmless duplicate. */
		mk_build(rec, PERFRING_MARK_NAME, PERFRING_MARKF_NAME, id, 0, mk_names[id - 1],
			 mk_name_len[id - 1], NULL, 0, now);
		rc = perfring_ring_write(r, rec);
		if (rc < 0)
			goto fail;
		t->defined[id / 64] |= 1ull << (id % 64);
	}
	if (text && *text) {
		tlen = strnlen(text, PERFRING_MARK_TEXT_MAX);
		flags |= PERFRING_MARKF_TEXT;
	}
	mk_build(rec, kind, flags, id, value, name, nlen, text, tlen, now);
	rc = perfring_ring_write(r, rec);
	if (rc < 0)
		goto fail;
	atomic_fetch_add_explicit(&mk_st_marks, 1, memory_order_relaxed);
	return 0;
fail:
	atomic_fetch_add_explicit(rc == -ENOSPC ? &mk_st_dropped : &mk_st_errors, 1,
				  memory_order_relaxed);
	return rc;
}

/* The thread's ring for a mark: 0, 1 (off) or -errno (counted). */
static inline int mk_ring(struct mk_thread *t)
{
	int rc;

	if (__builtin_expect(atomic_load_explicit(&t->state, memory_order_relaxed) == MK_READY,
			     1)) {
		atomic_signal_fence(memory_order_acquire);	/* state, then ring */
		return 0;
	}
	rc = mk_ring_slow(t, 0);
	if (rc < 0)
		atomic_fetch_add_explicit(&mk_st_errors, 1, memory_order_relaxed);
	return rc;
}

static int mk_bad_how(unsigned how)
{
	return (how & ~(0xffu | PERFRING_MARK_VALUE)) || (how & 0xffu) > PERFRING_MARK_END;
}

PERFRING_API int perfring_mark_id(unsigned how, int id, uint64_t value, const char *text)
{
	struct mk_thread *t = &mk_self;
	int rc = mk_ring(t);

	if (rc)
		return rc > 0 ? 0 : rc;
	if (mk_bad_how(how) || id < 1 || id > PERFRING_MARK_IDS_MAX ||
	    !atomic_load_explicit(&mk_ready[id - 1], memory_order_acquire)) {
		atomic_fetch_add_explicit(&mk_st_errors, 1, memory_order_relaxed);
		return -EINVAL;
	}
	return mk_write(t, how & 0xffu, how & PERFRING_MARK_VALUE ? PERFRING_MARKF_VALUE : 0,
			(unsigned)id, how & PERFRING_MARK_VALUE ? value : 0, NULL, 0, text);
}

PERFRING_API int perfring_mark_str(unsigned how, const char *name, uint64_t value,
				   const char *text)
{
	struct mk_thread *t = &mk_self;
	int rc = mk_ring(t);

	if (rc)
		return rc > 0 ? 0 : rc;
	if (mk_bad_how(how) || !name || !*name) {
		atomic_fetch_add_explicit(&mk_st_errors, 1, memory_order_relaxed);
		return -EINVAL;
	}
	return mk_write(t, how & 0xffu,
			PERFRING_MARKF_NAME | (how & PERFRING_MARK_VALUE ? PERFRING_MARKF_VALUE : 0),
			0, how & PERFRING_MARK_VALUE ? value : 0, name,
			strnlen(name, PERFRING_MARK_NAME_MAX), text);
}

PERFRING_API int perfring_marks_thread_init(void)
{
	int rc = mk_ring_slow(&mk_self, 1);

	return rc > 0 ? 0 : rc;
}

PERFRING_API int perfring_marks_get_stats(struct perfring_marks_stats *st)
{
	struct perfring_marks_stats s = {
		.sz = sizeof(s),
		.marks = atomic_load_explicit(&mk_st_marks, memory_order_relaxed),
		.dropped = atomic_load_explicit(&mk_st_dropped, memory_order_relaxed),
		.rings = atomic_load_explicit(&mk_st_rings, memory_order_relaxed),
		.errors = atomic_load_explicit(&mk_st_errors, memory_order_relaxed),
	};

	if (!st)
		return -EINVAL;
	return perfring_struct_fill(st, sizeof(*st), &s, sizeof(s));
}
