/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rings in the kernel's perf_event_mmap_page layout.
 *
 * ---- Layout ------------------------------------------------------------
 *
 *   [descriptor: whole pages]  memfd and file rings only (struct pr_desc)
 *   [control page]             struct perfring_mmap_page (kernel layout)
 *   [data area: 2^n pages]     records, free-running positions masked
 *
 * An anonymous ring has one private page in front instead of the descriptor,
 * holding only the producer state (struct pr_wstate).  A wrapped ring keeps
 * the producer state in the ring object.
 *
 * ---- The writer ------------------------------------------------------
 *
 * Reserve, copy, commit, abort and write are the freestanding core's
 * (lib/core/ring.c, where the protocol, the barriers, nesting and
 * overwrite mode are described).  struct perfring_ring starts with the
 * core's struct perfring_core_ring, set up here whenever the ring's memory,
 * mode and events are known (ring_set_fast); perfring_ring_write and its
 * siblings hand it to the core.  This file keeps what needs a hosted
 * system: creating, mapping, attaching, the ring file descriptor's
 * validation, and the reader.
 *
 * ---- The reader ----------------------------------------------------------
 *
 *  The reader trusts nothing in the ring: the control page's data_head
 *  (head_check: never behind the reader, never more than the data area
 *  ahead), each record's framing (frame_check: size >= 8, a multiple of 8,
 *  inside what is published), and, with PERFRING_READER_RESYNC or through
 *  perfring_reader_check, each record's body (perfring_record_validate
 *  with the attr of its sample id).  Records are copied out before they
 *  are handed over, so a producer that rewrites them cannot change what
 *  was checked.
 *
 *  Resync policy (this file owns it; sources and tools only choose it):
 *  without PERFRING_READER_RESYNC the first damage is a sticky error with
 *  its diag (file, offset).  With it, the damage is reported through
 *  on_damage and reading goes on at the next plausible record: 8-byte
 *  steps from the damaged one, the first that is a type perf knows,
 *  framed within head, and valid (plausible()); if none, at head.  Each
 *  resync and every byte stepped over is counted in the reader's stats
 *  (resyncs, skipped_bytes) and reported once through on_damage.
 *
 * ---- Crashes --------------------------------------------------------------
 *
 *  The producer state of memfd/file rings lives in the descriptor page, so
 *  after a producer dies the reservation head says which bytes were in
 *  flight.  Readers only ever read up to data_head (normal mode), which
 *  covers committed records only.  A new writer that attaches discards the
 *  in-flight region (normal mode) or pads it (overwrite mode).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perfring/core/core.h>

#include "core/barrier.h"
#include "core/internal.h"
#include "ring/private.h"
#include "util/internal.h"

_Static_assert(sizeof(struct perfring_attr) == 136, "attr VER8");

/*
 * ---- On-disk descriptor (format 1) ----------------------------------------
 *
 * All integers in the producer's byte order (byte_order says which).  The
 * descriptor occupies desc_size bytes (whole pages) at the start of the file;
 * the control page follows at header_offset == desc_size, the data area at
 * data_offset == header_offset + page_size.
 *
 *   off  size
 *     0     8  magic "PRFRING\0"
 *     8     4  format (1)
 *    12     4  byte_order (0x01020304 written natively)
 *    16     4  page_size (power of two >= 4096)
 *    20     4  flags (PERFRING_RING_OVERWRITE)
 *    24     8  desc_size
 *    32     8  header_offset
 *    40     8  data_offset
 *    48     8  data_size (2^n pages)
 *    56     8  file_size (data_offset + data_size)
 *    64     4  clockid
 *    68     4  nr_events
 *    72     8  events_offset (>= 256, 8-aligned)
 *    80     8  events_size
 *    88    40  reserved (0)
 *   128    64  producer state (struct pr_wstate)
 *   192    64  reserved (0)
 *   256   ...  nr_events entries (struct pr_desc_event + attr + ids)
 *
 * Event entry: entry_size (u32, whole entry, 8-aligned), attr_size (u32,
 * 64..136, 8-aligned), nr_ids (u32), reserved (u32), name[64] (NUL
 * terminated), then attr_size bytes of attr, then nr_ids u64 ids.
 */
#define PR_DESC_MAGIC PERFRING_CORE_FILE_MAGIC
#define PR_DESC_FORMAT PERFRING_CORE_FILE_FORMAT
#define PR_BYTE_ORDER PERFRING_CORE_BYTE_ORDER

/* The descriptor's layout is the core's (lib/core/ring.c lays it out). */
#define pr_wstate perfring_core_wstate
#define pr_desc perfring_core_file_desc
#define pr_desc_event perfring_core_file_event


#define PR_DESC_MAX (64u << 20)		/* refuse larger descriptors */
#define PR_DATA_MAX (1ull << 40)
#define PR_BOUNCE_SIZE 65536u

struct pr_event {
	struct perfring_attr attr;	/* zero-extended to VER8 */
	uint64_t *ids;
	uint32_t nr_ids;
	char name[64];
	int has_name;
};

struct pr_id_event {
	uint64_t id;
	uint32_t idx;
};

struct perfring_ring {
	struct perfring_core_ring core;	/* first: the write path's state */
	void *map;
	size_t map_len;
	int owns_map;
	int fd;
	char name[256];
	uint32_t mode;			/* PERFRING_RING_READ | _WRITE */
	int hdr_writable;
	struct perfring_mmap_page *hdr;
	unsigned char *data;
	uint64_t data_size, mask;
	uint64_t data_file_off;
	uint32_t page_size;
	uint32_t flags;
	int32_t clockid;
	struct pr_wstate *ws;
	struct pr_wstate local_ws;
	struct pr_event *events;
	uint32_t nr_events;
	/* every event's ids with the event's index, sorted by id
	 * (ring_index_ids); pr_ring_event_for_id searches it */
	struct pr_id_event *by_id;
	size_t nr_by_id;
	/* LOST records written by this producer (the core writes them) */
	struct perfring_sample_id lost_sid;
	int has_lost_sid;
};

/* ---- small helpers ------------------------------------------------------ */

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint32_t sys_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p >= 4096 ? (uint32_t)p : 4096u;
}

static void ring_free_events(struct perfring_ring *r)
{
	uint32_t i;

	free(r->by_id);
	r->by_id = NULL;
	r->nr_by_id = 0;
	if (!r->events)
		return;
	for (i = 0; i < r->nr_events; i++)
		free(r->events[i].ids);
	free(r->events);
	r->events = NULL;
	r->nr_events = 0;
}

static int id_event_cmp(const void *a, const void *b)
{
	const struct pr_id_event *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Build r->by_id from the events' ids, once the events are set. */
static int ring_index_ids(struct perfring_ring *r)
{
	size_t total = 0, k = 0;
	uint32_t i, j;

	for (i = 0; i < r->nr_events; i++)
		total += r->events[i].nr_ids;
	if (!total)
		return 0;
	r->by_id = calloc(total, sizeof(*r->by_id));
	if (!r->by_id)
		return -ENOMEM;
	for (i = 0; i < r->nr_events; i++)
		for (j = 0; j < r->events[i].nr_ids; j++)
			r->by_id[k++] = (struct pr_id_event){ r->events[i].ids[j], i };
	/* equal ids: the lowest event index first, as a linear walk finds */
	qsort(r->by_id, k, sizeof(*r->by_id), id_event_cmp);
	r->nr_by_id = k;
	return 0;
}

PR_HIDDEN int pr_ring_event_for_id(const struct perfring_ring *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_by_id;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->by_id[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nr_by_id && r->by_id[lo].id == id ? (int)r->by_id[lo].idx : -ENOENT;
}

/* Copy caller's event descriptions into r.  Validates them (diag names file). */
static int ring_set_events(struct perfring_ring *r, const struct perfring_event_desc *events,
			   uint32_t n, const char *file, struct perfring_diag *diag)
{
	uint32_t i;
	int err;

	if (n && !events) {
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET, "%" PRIu32 " events but no array", n);
		return -EINVAL;
	}
	if (n > 65536) {
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET, "%" PRIu32 " events: at most 65536", n);
		return -EINVAL;
	}
	if (!n)
		return 0;
	r->events = calloc(n, sizeof(*r->events));
	if (!r->events) {
		pr_diag_set(diag, -ENOMEM, file, PR_NO_OFFSET, "out of memory");
		return -ENOMEM;
	}
	r->nr_events = n;
	for (i = 0; i < n; i++) {
		struct pr_event *e = &r->events[i];
		struct perfring_event_desc ev;
		uint32_t asz;

		err = pr_event_desc_load(events, i, &ev, file, diag);
		if (err)
			return err;
#define EV_BAD(...)								\
	do {									\
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET, "event %" PRIu32 ": " __VA_ARGS__); \
		return -EINVAL;							\
	} while (0)
		if (!ev.attr)
			EV_BAD("no attr", i);
		asz = ev.attr->size;
		if (asz < PERFRING_ATTR_SIZE_VER0 || asz > PERFRING_ATTR_SIZE_VER8 || asz % 8)
			EV_BAD("attr size %" PRIu32 " is not a multiple of 8 from %d to %d", i, asz,
			       PERFRING_ATTR_SIZE_VER0, PERFRING_ATTR_SIZE_VER8);
		if (ev.nr_ids && !ev.ids)
			EV_BAD("%" PRIu32 " ids but no array", i, ev.nr_ids);
		if (ev.nr_ids > (1u << 20))
			EV_BAD("%" PRIu32 " ids: at most %u", i, ev.nr_ids, 1u << 20);
		if (ev.name && strlen(ev.name) > 63)
			EV_BAD("name of %zu bytes: at most 63", i, strlen(ev.name));
#undef EV_BAD
		memcpy(&e->attr, ev.attr, asz);
		e->nr_ids = ev.nr_ids;
		if (e->nr_ids) {
			e->ids = malloc(e->nr_ids * sizeof(uint64_t));
			if (!e->ids) {
				pr_diag_set(diag, -ENOMEM, file, PR_NO_OFFSET, "out of memory");
				return -ENOMEM;
			}
			memcpy(e->ids, ev.ids, e->nr_ids * sizeof(uint64_t));
		}
		if (ev.name) {
			snprintf(e->name, sizeof(e->name), "%s", ev.name);
			e->has_name = 1;
		}
	}
	err = ring_index_ids(r);
	if (err)
		pr_diag_set(diag, err, file, PR_NO_OFFSET, "out of memory");
	return err;
}

/* Size of the descriptor's event entries. */
static uint64_t events_bytes(const struct perfring_ring *r)
{
	uint64_t sz = 0;
	uint32_t i;

	for (i = 0; i < r->nr_events; i++)
		sz += sizeof(struct pr_desc_event) + r->events[i].attr.size +
		      8ull * r->events[i].nr_ids;
	return sz;
}

/* The descriptor, control page and data area: laid out by the core. */
static int write_descriptor(struct perfring_ring *r, unsigned char *base, uint64_t total)
{
	struct perfring_core_event *ev = NULL;
	uint32_t i;
	int64_t n;

	if (r->nr_events) {
		ev = calloc(r->nr_events, sizeof(*ev));
		if (!ev)
			return -ENOMEM;
	}
	for (i = 0; i < r->nr_events; i++) {
		ev[i].attr = &r->events[i].attr;
		ev[i].ids = r->events[i].ids;
		ev[i].nr_ids = r->events[i].nr_ids;
		ev[i].name = r->events[i].name;
	}
	n = perfring_core_file_init(base, total, r->page_size, r->data_size,
				    r->flags & PERFRING_RING_OVERWRITE, r->clockid, ev,
				    r->nr_events, NULL);
	free(ev);
	return n == (int64_t)total ? 0 : -EINVAL;
}

static struct perfring_ring *ring_alloc(void)
{
	struct perfring_ring *r = calloc(1, sizeof(*r));

	if (r)
		r->fd = -1;
	return r;
}

PERFRING_API void perfring_ring_close(struct perfring_ring *r)
{
	if (!r)
		return;
	if (r->map && r->owns_map)
		munmap(r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	ring_free_events(r);
	free(r);
}

/* Point hdr/data into the mapping and fill the cached sizes. */
static void ring_set_lost(struct perfring_ring *r);

/*
 * The core's view of the ring, after ws, mode, hdr_writable, flags, the
 * events and data_size are known.
 */
static void ring_set_fast(struct perfring_ring *r)
{
	perfring_core_ring_init(&r->core, r->hdr, r->data, r->data_size, r->ws,
				(r->flags & PERFRING_RING_OVERWRITE) ? PERFRING_CORE_OVERWRITE : 0);
	if (!(r->mode & PERFRING_RING_WRITE) || !r->hdr_writable) {
		r->core.flags &= ~PERFRING_CORE_WRITABLE;
		r->core.fast_lim = 0;
	}
	ring_set_lost(r);
}

static void ring_set_area(struct perfring_ring *r, unsigned char *hdr_at)
{
	r->hdr = (struct perfring_mmap_page *)(void *)hdr_at;
	r->data = hdr_at + r->page_size;
	r->mask = r->data_size - 1;
	ring_set_fast(r);
}

/* ---- create ------------------------------------------------------------- */

/*
 * Open the file of a FILE ring; -1 with errno set on failure.  Without
 * reuse the file must be new (O_EXCL).  With reuse an existing file is
 * checked before anything is changed: it must be a regular file of the
 * effective user, so a ring never truncates someone else's file (a
 * symbolic link planted in a shared directory is judged by its target).
 */
static int create_ring_file(const char *path, bool reuse, mode_t mode)
{
	struct stat st;
	int fd, e;

	if (!reuse)
		return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		goto fail;
	}
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0)
		goto fail;
	if (ftruncate(fd, 0) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Fail ring_create: diag names the ring (its path for FILE rings). */
#define CREATE_FAIL(errv, ...)							\
	do {									\
		err = (errv);							\
		pr_diag_set(diag, err, rname, PR_NO_OFFSET, __VA_ARGS__);	\
		goto fail;							\
	} while (0)
/* The same for the helpers of perfring_ring_create: they return the error. */
#define CREATE_RET(errv, ...)							\
	do {									\
		int err_ = (errv);						\
		pr_diag_set(diag, err_, rname, PR_NO_OFFSET, __VA_ARGS__);	\
		return err_;							\
	} while (0)

/* The name of the ring to be created, for the messages. */
static const char *create_name(const struct perfring_ring_opts *o)
{
	if (o->backing == PERFRING_RING_FILE && o->path && o->path[0])
		return o->path;
	if (o->backing == PERFRING_RING_MEMFD)
		return "memfd ring";
	if (o->backing == PERFRING_RING_ANON)
		return "anonymous ring";
	return "ring";
}

/* The flags, the file mode and the backing of O: 0 or -EINVAL. */
static int check_create_opts(struct perfring_ring_opts *o, const char *rname,
			     struct perfring_diag *diag)
{
	if (o->flags & ~(PERFRING_RING_OVERWRITE | PERFRING_RING_CLOCKID | PERFRING_RING_TRUNCATE |
			 PERFRING_RING_FILE_MODE))
		CREATE_RET(-EINVAL, "unknown flags 0x%x", o->flags);
	/* Only with its flag: file_mode sits where older callers had padding. */
	if (!(o->flags & PERFRING_RING_FILE_MODE))
		o->file_mode = 0600;
	else if (o->file_mode & ~0777u)
		CREATE_RET(-EINVAL, "file_mode 0%o is above 0777", o->file_mode);
	if (o->backing != PERFRING_RING_ANON && o->backing != PERFRING_RING_MEMFD &&
	    o->backing != PERFRING_RING_FILE)
		CREATE_RET(-EINVAL, "unknown backing %d", (int)o->backing);
	if (o->backing == PERFRING_RING_FILE && (!o->path || !o->path[0]))
		CREATE_RET(-EINVAL, "a FILE ring needs opts.path");
	return 0;
}

/* The sizes, clock, mode and events of the new ring R: 0 or -errno. */
static int create_setup(struct perfring_ring *r, const struct perfring_ring_opts *o,
			const char *rname, struct perfring_diag *diag)
{
	r->page_size = sys_page_size();
	r->data_size = o->data_size ? o->data_size : 64ull * r->page_size;
	if (!is_pow2(r->data_size) || r->data_size < r->page_size || r->data_size > PR_DATA_MAX)
		CREATE_RET(-EINVAL, "data_size %" PRIu64 " is not a power of two of pages "
			   "(page size %" PRIu32 ", at most %" PRIu64 " bytes)",
			   r->data_size, r->page_size, (uint64_t)PR_DATA_MAX);
	r->flags = o->flags & PERFRING_RING_OVERWRITE;
	r->clockid = (o->flags & PERFRING_RING_CLOCKID) ? o->clockid : CLOCK_MONOTONIC;
	if (o->flags & PERFRING_RING_CLOCKID) {
		struct timespec ts;

		if (clock_gettime(o->clockid, &ts) != 0)
			CREATE_RET(-EINVAL, "clock id %" PRId32 " cannot be read on this machine",
				   o->clockid);
	}
	r->mode = PERFRING_RING_READ | PERFRING_RING_WRITE;
	r->hdr_writable = 1;
	return ring_set_events(r, o->events, o->nr_events, rname, diag);
}

/*
 * The memfd or the file of a shared ring, sized to TOTAL bytes, into *FDP
 * (left there on a later error, for the caller to close and unlink), and
 * the ring's name: 0 or -errno.  An ANON ring has no file.
 */
static int create_backing(struct perfring_ring *r, const struct perfring_ring_opts *o,
			  uint64_t total, int *fdp, const char *rname,
			  struct perfring_diag *diag)
{
	int err, fd = -1;

	if (o->backing == PERFRING_RING_MEMFD) {
		fd = memfd_create("perfring", MFD_CLOEXEC);
		snprintf(r->name, sizeof(r->name), "memfd ring");
	} else if (o->backing == PERFRING_RING_FILE) {
		fd = create_ring_file(o->path, o->flags & PERFRING_RING_TRUNCATE, o->file_mode);
		snprintf(r->name, sizeof(r->name), "%s", o->path);
	} else {
		snprintf(r->name, sizeof(r->name), "anonymous ring");
		return 0;
	}
	*fdp = fd;
	if (fd < 0) {
		err = -errno;
		if (o->backing == PERFRING_RING_MEMFD)
			CREATE_RET(err, "memfd_create: %s", strerror(-err));
		if (err == -EEXIST)
			CREATE_RET(err, "the file exists (PERFRING_RING_TRUNCATE replaces it)");
		if (err == -EPERM)
			CREATE_RET(err, "the file belongs to another user: left untouched");
		if (err == -EINVAL)
			CREATE_RET(err, "not a regular file: left untouched");
		CREATE_RET(err, "cannot create the ring file: %s", strerror(-err));
	}
	if (ftruncate(fd, (off_t)total) != 0) {
		err = -errno;
		CREATE_RET(err, "cannot size the ring to %" PRIu64 " bytes: %s", total,
			   strerror(-err));
	}
	return 0;
}

/* Lay the new ring out in its map BASE, the descriptor (DESC_SIZE bytes,
 * none for an ANON ring) first: 0 or -errno. */
static int create_layout(struct perfring_ring *r, const struct perfring_ring_opts *o,
			 unsigned char *base, uint64_t total, uint64_t desc_size,
			 const char *rname, struct perfring_diag *diag)
{
	int err;

	if (o->backing != PERFRING_RING_ANON) {
		err = write_descriptor(r, base, total);
		if (err)
			CREATE_RET(err, "cannot lay the ring descriptor out");
		r->ws = &((struct pr_desc *)(void *)base)->ws;
		r->data_file_off = desc_size + r->page_size;
	} else {
		r->ws = (struct pr_wstate *)(void *)base;
	}
	r->ws->writer_pid = (uint64_t)getpid();
	ring_set_area(r, base + desc_size);
	r->hdr->data_offset = r->page_size;
	r->hdr->data_size = r->data_size;
	return 0;
}

PERFRING_API int perfring_ring_create(const struct perfring_ring_opts *uopts,
				      struct perfring_diag *diag,
				      struct perfring_ring **out)
{
	struct perfring_ring_opts o;
	struct perfring_ring *r = NULL;
	uint64_t desc_size, ev_bytes, total;
	unsigned char *base;
	const char *rname = "ring";
	int err, fd = -1;

	if (!out) {
		pr_diag_set(diag, -EINVAL, rname, PR_NO_OFFSET, "no place for the ring (out is NULL)");
		return -EINVAL;
	}
	*out = NULL;
	err = perfring_opts_load(&o, sizeof(o), uopts,
				 offsetof(struct perfring_ring_opts, nr_events) + sizeof(uint32_t),
				 "perfring_ring_opts", rname, diag);
	if (err)
		return err;
	rname = create_name(&o);
	err = check_create_opts(&o, rname, diag);
	if (err)
		goto fail;

	r = ring_alloc();
	if (!r)
		CREATE_FAIL(-ENOMEM, "out of memory");
	err = create_setup(r, &o, rname, diag);
	if (err)
		goto fail;

	ev_bytes = events_bytes(r);
	if (o.backing == PERFRING_RING_ANON) {
		desc_size = r->page_size;	/* producer state only */
	} else {
		desc_size = (sizeof(struct pr_desc) + ev_bytes + r->page_size - 1) &
			    ~(uint64_t)(r->page_size - 1);
		if (desc_size > PR_DESC_MAX)
			CREATE_FAIL(-EINVAL, "the events need a descriptor of %" PRIu64
				    " bytes, more than %" PRIu64, desc_size, (uint64_t)PR_DESC_MAX);
	}
	total = desc_size + r->page_size + r->data_size;

	err = create_backing(r, &o, total, &fd, rname, diag);
	if (err)
		goto fail;
	if (o.backing != PERFRING_RING_ANON)
		base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	else
		base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		CREATE_FAIL(err, "cannot map %" PRIu64 " bytes: %s", total, strerror(-err));
	}
	r->map = base;
	r->map_len = total;
	r->owns_map = 1;
	r->fd = fd;
	fd = -1;
	err = create_layout(r, &o, base, total, desc_size, rname, diag);
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (r && o.backing == PERFRING_RING_FILE && (fd >= 0 || r->fd >= 0))
		unlink(o.path);	/* we created (or truncated) it */
	perfring_ring_close(r);
	return err;
}
#undef CREATE_RET
#undef CREATE_FAIL

/* ---- open --------------------------------------------------------------- */

#define BAD(errv, off, ...)							\
	do {									\
		pr_diag_set(diag, (errv), name, (off), __VA_ARGS__);		\
		return (errv);							\
	} while (0)

/*
 * Validate a descriptor of dsz bytes (a private copy) against a file of
 * fsize bytes, and load its events into r.
 */
static int parse_descriptor(struct perfring_ring *r, const unsigned char *buf, uint64_t dsz,
			    uint64_t fsize, const char *name, struct perfring_diag *diag)
{
	struct pr_desc d;
	uint64_t p, end, need;
	uint32_t i;

	memcpy(&d, buf, sizeof(d));
	if (memcmp(d.magic, PR_DESC_MAGIC, 8) != 0)
		BAD(-EBADMSG, 0, "not a perfring ring file (bad magic)");
	if (d.byte_order != PR_BYTE_ORDER)
		BAD(-EPROTO, 12, "ring written with another byte order (0x%08" PRIx32 ")",
		    d.byte_order);
	if (d.format != PR_DESC_FORMAT)
		BAD(-EPROTO, 8, "unknown ring format version %" PRIu32 " (this library reads %u)",
		    d.format, PR_DESC_FORMAT);
	if (d.page_size < 4096 || !is_pow2(d.page_size) || d.page_size > (1u << 30))
		BAD(-EBADMSG, 16, "page size %" PRIu32 " is not a power of two >= 4096",
		    d.page_size);
	if (d.flags & ~PERFRING_RING_OVERWRITE)
		BAD(-EPROTO, 20, "unknown ring flags 0x%" PRIx32, d.flags);
	if (d.desc_size < d.page_size || d.desc_size % d.page_size || d.desc_size > PR_DESC_MAX)
		BAD(-EBADMSG, 24, "descriptor size %" PRIu64 " is not a whole number of pages",
		    d.desc_size);
	if (d.desc_size > dsz)
		BAD(-EBADMSG, 24, "descriptor size %" PRIu64 " runs past the file", d.desc_size);
	if (d.header_offset != d.desc_size)
		BAD(-EBADMSG, 32, "control page offset %" PRIu64 " overlaps or leaves a gap after the descriptor (%" PRIu64 ")",
		    d.header_offset, d.desc_size);
	if (d.data_offset != d.header_offset + d.page_size)
		BAD(-EBADMSG, 40, "data offset %" PRIu64 " is not right after the control page (%" PRIu64 ")",
		    d.data_offset, d.header_offset + d.page_size);
	if (!is_pow2(d.data_size) || d.data_size < d.page_size || d.data_size > PR_DATA_MAX)
		BAD(-EBADMSG, 48, "data size %" PRIu64 " is not a power-of-two number of pages",
		    d.data_size);
	need = d.data_offset + d.data_size;
	if (d.file_size != need)
		BAD(-EBADMSG, 56, "file size field %" PRIu64 " disagrees with the layout (%" PRIu64 ")",
		    d.file_size, need);
	if (fsize < need)
		BAD(-EBADMSG, fsize, "file is shorter than needed: %" PRIu64 " bytes, layout needs %" PRIu64,
		    fsize, need);
	if (d.events_offset < sizeof(struct pr_desc) || d.events_offset % 8 ||
	    d.events_offset > d.desc_size || d.events_size > d.desc_size - d.events_offset)
		BAD(-EBADMSG, 72, "event table [%" PRIu64 ", +%" PRIu64 ") overlaps the header or runs past the descriptor (%" PRIu64 " bytes)",
		    d.events_offset, d.events_size, d.desc_size);
	if (d.nr_events > d.events_size / sizeof(struct pr_desc_event))
		BAD(-EBADMSG, 68, "%" PRIu32 " events cannot fit in an event table of %" PRIu64 " bytes",
		    d.nr_events, d.events_size);

	r->page_size = d.page_size;
	r->flags = d.flags;
	r->data_size = d.data_size;
	r->clockid = d.clockid;
	r->data_file_off = d.data_offset;

	if (d.nr_events) {
		r->events = calloc(d.nr_events, sizeof(*r->events));
		if (!r->events)
			return -ENOMEM;
		r->nr_events = d.nr_events;
	}
	p = d.events_offset;
	end = d.events_offset + d.events_size;
	for (i = 0; i < d.nr_events; i++) {
		struct pr_desc_event de;
		struct pr_event *e = &r->events[i];
		uint64_t esz;

		if (end - p < sizeof(de))
			BAD(-EBADMSG, p, "event %" PRIu32 " runs past the event table", i);
		memcpy(&de, buf + p, sizeof(de));
		if (de.attr_size < PERFRING_ATTR_SIZE_VER0 || de.attr_size > PERFRING_ATTR_SIZE_VER8 ||
		    de.attr_size % 8)
			BAD(-EBADMSG, p + 4, "event %" PRIu32 ": attr size %" PRIu32 " out of range (64..136, multiple of 8)",
			    i, de.attr_size);
		esz = sizeof(de) + (uint64_t)de.attr_size + 8ull * de.nr_ids;
		if (de.entry_size != esz)
			BAD(-EBADMSG, p, "event %" PRIu32 ": entry size %" PRIu32 " disagrees with attr size and %" PRIu32 " ids (%" PRIu64 ")",
			    i, de.entry_size, de.nr_ids, esz);
		if (esz > end - p)
			BAD(-EBADMSG, p + 8, "event %" PRIu32 ": %" PRIu32 " ids run past the event table",
			    i, de.nr_ids);
		if (!memchr(de.name, 0, sizeof(de.name)))
			BAD(-EBADMSG, p + 16, "event %" PRIu32 ": name is not NUL-terminated", i);
		memcpy(&e->attr, buf + p + sizeof(de), de.attr_size);
		if (e->attr.size != de.attr_size)
			BAD(-EBADMSG, p + sizeof(de) + 4, "event %" PRIu32 ": attr.size %" PRIu32 " disagrees with the entry (%" PRIu32 ")",
			    i, e->attr.size, de.attr_size);
		memcpy(e->name, de.name, sizeof(e->name));
		e->has_name = e->name[0] != 0;
		e->nr_ids = de.nr_ids;
		if (de.nr_ids) {
			e->ids = malloc(8ull * de.nr_ids);
			if (!e->ids)
				return -ENOMEM;
			memcpy(e->ids, buf + p + sizeof(de) + de.attr_size, 8ull * de.nr_ids);
		}
		p += esz;
	}
	return ring_index_ids(r);
}

/* A new writer takes over: forget or pad what a dead writer left in flight. */
static void writer_attach(struct perfring_ring *r)
{
	struct pr_wstate *ws = r->ws;
	uint64_t dh = pr_load_acquire(&r->hdr->data_head);	/* pairs with (B) of the old writer */
	uint64_t h = pr_read_once(&ws->head);

	if (!(r->flags & PERFRING_RING_OVERWRITE)) {
		/* [dh, h) was never published: just reuse it. */
		pr_write_once(&ws->head, dh);
	} else if (h != dh && dh - h <= r->data_size) {
		/* [h, dh) may hold half-written bytes: make them pad records. */
		uint64_t pos = h;

		while (pos != dh) {
			uint64_t left = dh - pos;
			uint32_t n = left > PERFRING_RECORD_MAX_SIZE ? PERFRING_RECORD_MAX_SIZE :
							    (uint32_t)left;
			struct perfring_event_header ph = { PERFRING_RECORD_PAD, 0, (uint16_t)n };

			memcpy(r->data + (pos & r->mask), &ph, sizeof(ph));
			pos += n;
		}
		/* Pairs with the reader's acquire load of data_head (C). */
		pr_store_release(&r->hdr->data_head, h);
	} else {
		pr_write_once(&ws->head, dh);
	}
	pr_write_once(&ws->nest, 0);
	pr_write_once(&ws->writer_pid, (uint64_t)getpid());
}

/* A ring whose descriptor starts at byte `at` (page-aligned) of fd. */
static int open_common(int fd, uint64_t at, unsigned mode, const char *name,
		       struct perfring_diag *diag, struct perfring_ring **out)
{
	struct perfring_ring *r = NULL;
	struct stat st;
	unsigned char *buf = NULL;
	uint64_t dsz;
	ssize_t got;
	int accmode, err, prot;
	void *base;

	*out = NULL;
	if (fstat(fd, &st) != 0) {
		err = -errno;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "cannot stat: %s", strerror(-err));
		goto fail;
	}
	if (at % sys_page_size() || at > (uint64_t)st.st_size) {
		err = -EINVAL;
		pr_diag_set(diag, err, name, at,
			    "ring offset %" PRIu64 " is not a page boundary inside the file", at);
		goto fail;
	}
	st.st_size -= (off_t)at;	/* from here on: the ring's part of the file */
	if ((uint64_t)st.st_size < sizeof(struct pr_desc)) {
		err = -EBADMSG;
		pr_diag_set(diag, err, name, (uint64_t)st.st_size,
			    "file is shorter than a ring descriptor (%zu bytes)", sizeof(struct pr_desc));
		goto fail;
	}
	/* Read the fixed part, then the whole descriptor, into private memory. */
	{
		struct pr_desc d;

		got = pread(fd, &d, sizeof(d), (off_t)at);
		if (got != (ssize_t)sizeof(d)) {
			err = got < 0 ? -errno : -EBADMSG;
			pr_diag_set(diag, err, name, 0, "cannot read the descriptor");
			goto fail;
		}
		dsz = d.desc_size;
		if (dsz < sizeof(d) || dsz > PR_DESC_MAX || dsz > (uint64_t)st.st_size)
			dsz = sizeof(d);	/* parse_descriptor reports it */
	}
	buf = malloc(dsz);
	if (!buf) {
		err = -ENOMEM;
		goto fail;
	}
	got = pread(fd, buf, dsz, (off_t)at);
	if (got != (ssize_t)dsz) {
		err = got < 0 ? -errno : -EBADMSG;
		pr_diag_set(diag, err, name, 0, "cannot read the descriptor");
		goto fail;
	}
	r = ring_alloc();
	if (!r) {
		err = -ENOMEM;
		goto fail;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	err = parse_descriptor(r, buf, dsz, (uint64_t)st.st_size, name, diag);
	if (err)
		goto fail;

	accmode = fcntl(fd, F_GETFL);
	if (accmode < 0) {
		err = -errno;
		goto fail;
	}
	accmode &= O_ACCMODE;
	if ((mode & PERFRING_RING_WRITE) && accmode != O_RDWR) {
		err = -EACCES;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "not open for writing");
		goto fail;
	}
	prot = accmode == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;
	r->map_len = (size_t)(r->data_file_off + r->data_size);
	base = mmap(NULL, r->map_len, prot, MAP_SHARED, fd, (off_t)at);
	if (base == MAP_FAILED) {
		err = -errno;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "cannot map: %s", strerror(-err));
		goto fail;
	}
	r->map = base;
	r->owns_map = 1;
	r->fd = fd;
	r->mode = mode;
	r->data_file_off += at;		/* offsets in diagnostics are the file's */
	r->hdr_writable = prot & PROT_WRITE;
	r->ws = &((struct pr_desc *)base)->ws;
	ring_set_area(r, (unsigned char *)base + (r->data_file_off - at - r->page_size));
	if (pr_read_once(&r->hdr->data_offset) != r->page_size ||
	    pr_read_once(&r->hdr->data_size) != r->data_size) {
		err = -EBADMSG;
		pr_diag_set(diag, err, name, r->data_file_off - r->page_size +
			    (pr_read_once(&r->hdr->data_offset) != r->page_size ? 1040 : 1048),
			    "control page data_offset/data_size (%" PRIu64 "/%" PRIu64 ") disagree with the descriptor (%" PRIu32 "/%" PRIu64 ")",
			    pr_read_once(&r->hdr->data_offset), pr_read_once(&r->hdr->data_size),
			    r->page_size, r->data_size);
		r->fd = -1;	/* the caller closes fd */
		goto fail;
	}
	if (mode & PERFRING_RING_WRITE) {
		/*
		 * One attached writer at a time; the lock goes away with the
		 * process, so a writer that was killed does not block the next.
		 */
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
			err = -EBUSY;
			pr_diag_set(diag, err, name, PR_NO_OFFSET,
				    "another writer is attached to this ring");
			r->fd = -1;	/* the caller closes fd */
			goto fail;
		}
		writer_attach(r);
	}
	free(buf);
	*out = r;
	return 0;
fail:
	free(buf);
	perfring_ring_close(r);
	return err;
}

PERFRING_API int perfring_ring_open(const char *path, unsigned mode,
				    struct perfring_diag *diag, struct perfring_ring **out)
{
	int fd, err;

	if (!out || !path || !mode || (mode & ~(PERFRING_RING_READ | PERFRING_RING_WRITE)))
		return -EINVAL;
	*out = NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EROFS) && !(mode & PERFRING_RING_WRITE))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot open: %s", strerror(errno));
		return err;
	}
	err = open_common(fd, 0, mode, path, diag, out);
	if (err)
		close(fd);
	return err;
}

PERFRING_API int perfring_ring_open_at(const char *path, uint64_t offset, unsigned mode,
				       struct perfring_diag *diag, struct perfring_ring **out)
{
	int fd, err;

	if (!out || !path || !mode || (mode & ~(PERFRING_RING_READ | PERFRING_RING_WRITE)))
		return -EINVAL;
	*out = NULL;
	fd = open(path, (mode & PERFRING_RING_WRITE) ? O_RDWR | O_CLOEXEC : O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot open: %s", strerror(errno));
		return err;
	}
	err = open_common(fd, offset, mode, path, diag, out);
	if (err)
		close(fd);
	return err;
}

PERFRING_API int perfring_ring_open_fd(int fd, unsigned mode, struct perfring_diag *diag,
				       struct perfring_ring **out)
{
	char name[256], link[64];
	ssize_t n;

	if (!out || fd < 0 || !mode || (mode & ~(PERFRING_RING_READ | PERFRING_RING_WRITE)))
		return -EINVAL;
	*out = NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, name, sizeof(name) - 1);
	if (n > 0)
		name[n] = 0;
	else
		snprintf(name, sizeof(name), "fd %d", fd);
	return pr_ring_open_fd_named(fd, mode, name, diag, out);
}

/* perfring_ring_open_fd with the name diagnostics use (also source.c). */
PR_HIDDEN int pr_ring_open_fd_named(int fd, unsigned mode, const char *name,
				    struct perfring_diag *diag, struct perfring_ring **out)
{
	int dfd, err;

	*out = NULL;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0) {
		err = -errno;
		pr_diag_set(diag, err, name, PR_NO_OFFSET, "cannot duplicate fd");
		return err;
	}
	err = open_common(dfd, 0, mode, name, diag, out);
	if (err)
		close(dfd);
	return err;
}

PERFRING_API int perfring_ring_wrap(void *base, size_t len, uint32_t flags,
				    const struct perfring_event_desc *events, uint32_t nr_events,
				    struct perfring_diag *diag, struct perfring_ring **out)
{
	struct perfring_ring *r;
	struct perfring_mmap_page *h = base;
	const char *name = "wrapped ring";
	uint64_t doff, dsz;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!base || (flags & ~PERFRING_RING_OVERWRITE) || ((uintptr_t)base & 7))
		return -EINVAL;
	if (len < sizeof(*h))
		BAD(-EBADMSG, PR_NO_OFFSET, "mapping of %zu bytes is smaller than the control page", len);
	doff = pr_read_once(&h->data_offset);
	dsz = pr_read_once(&h->data_size);
	if (doff < sizeof(*h) || doff % 8 || doff > len)
		BAD(-EBADMSG, 1040, "data_offset %" PRIu64 " is not inside the mapping", doff);
	if (!is_pow2(dsz) || dsz < 8 || dsz > len - doff)
		BAD(-EBADMSG, 1048, "data_size %" PRIu64 " is not a power of two within the mapping",
		    dsz);
	r = ring_alloc();
	if (!r)
		return -ENOMEM;
	snprintf(r->name, sizeof(r->name), "%s", name);
	err = ring_set_events(r, events, nr_events, name, diag);
	if (err) {
		perfring_ring_close(r);
		return err;
	}
	r->map = base;
	r->map_len = len;
	r->page_size = (uint32_t)doff;
	r->data_size = dsz;
	r->flags = flags;
	r->clockid = CLOCK_MONOTONIC;
	r->mode = PERFRING_RING_READ | PERFRING_RING_WRITE;
	r->hdr_writable = 1;
	r->ws = &r->local_ws;
	ring_set_area(r, base);
	r->ws->head = pr_read_once(&h->data_head);
	*out = r;
	return 0;
}
#undef BAD

/* ---- accessors ---------------------------------------------------------- */

PERFRING_API int perfring_ring_fd(const struct perfring_ring *r)
{
	return r ? r->fd : -1;
}

PERFRING_API uint64_t perfring_ring_data_size(const struct perfring_ring *r)
{
	return r->data_size;
}

PERFRING_API uint32_t perfring_ring_page_size(const struct perfring_ring *r)
{
	return r->page_size;
}

PERFRING_API int32_t perfring_ring_clockid(const struct perfring_ring *r)
{
	return r->clockid;
}

PERFRING_API uint32_t perfring_ring_flags(const struct perfring_ring *r)
{
	return r->flags;
}

PERFRING_API uint32_t perfring_ring_nr_events(const struct perfring_ring *r)
{
	return r->nr_events;
}

PERFRING_API int perfring_ring_event(const struct perfring_ring *r, uint32_t idx,
				     struct perfring_event_desc *out)
{
	struct perfring_event_desc d = { .sz = sizeof(d) };

	if (!r || !out || idx >= r->nr_events)
		return -ENOENT;
	d.attr = &r->events[idx].attr;
	d.ids = r->events[idx].ids;
	d.nr_ids = r->events[idx].nr_ids;
	d.name = r->events[idx].has_name ? r->events[idx].name : NULL;
	d.leader = idx;
	d.supported = 1;
	return perfring_struct_fill(out, PR_EVENT_DESC_MIN, &d, sizeof(d));
}

PERFRING_API const struct perfring_attr *perfring_ring_attr_for_id(const struct perfring_ring *r,
								  uint64_t id)
{
	int idx;

	if (!r || !r->nr_events)
		return NULL;
	idx = id ? pr_ring_event_for_id(r, id) : -ENOENT;
	return &r->events[idx < 0 ? 0 : idx].attr;
}

PERFRING_API const struct perfring_mmap_page *perfring_ring_header(const struct perfring_ring *r)
{
	return r ? r->hdr : NULL;
}

PERFRING_API uint64_t perfring_ring_data_file_offset(const struct perfring_ring *r)
{
	return r ? r->data_file_off : 0;
}

/* ---- writing ------------------------------------------------------------ */
/*
 * The core's writer on the ring's struct perfring_core_ring, which is the
 * first member of struct perfring_ring: a NULL ring is a NULL core ring
 * (the core answers -EINVAL), and each call below is one jump.
 */
_Static_assert(offsetof(struct perfring_ring, core) == 0, "core first");
_Static_assert(-PERFRING_CORE_EINVAL == -EINVAL && -PERFRING_CORE_ENOSPC == -ENOSPC &&
	       -PERFRING_CORE_EMSGSIZE == -EMSGSIZE && -PERFRING_CORE_EPERM == -EPERM,
	       "the core's errno values are this system's");

PERFRING_API int perfring_ring_reserve(struct perfring_ring *r, size_t size,
				       struct perfring_wr *w)
{
	return perfring_core_reserve(&r->core, size, w);
}

PERFRING_API void perfring_ring_copy(struct perfring_ring *r, const struct perfring_wr *w,
				     size_t off, const void *src, size_t len)
{
	perfring_core_copy(&r->core, w, off, src, len);
}

PERFRING_API void *perfring_ring_contig(struct perfring_ring *r, const struct perfring_wr *w)
{
	return perfring_core_contig(&r->core, w);
}

PERFRING_API void perfring_ring_commit(struct perfring_ring *r, const struct perfring_wr *w)
{
	perfring_core_commit(&r->core, w);
}

PERFRING_API void perfring_ring_abort(struct perfring_ring *r, const struct perfring_wr *w)
{
	perfring_core_abort(&r->core, w);
}

PERFRING_API int perfring_ring_write(struct perfring_ring *r, const void *rec)
{
	return perfring_core_write(&r->core, rec);
}

/*
 * TIME of the LOST records' trailers: the ring's clock.  clock_gettime is
 * async-signal-safe, and errno is kept whatever it does.
 */
static uint64_t ring_clock(void *user)
{
	const struct perfring_ring *r = user;
	struct timespec ts;
	int saved = errno;
	uint64_t t = 0;

	if (clock_gettime(r->clockid, &ts) == 0)
		t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	errno = saved;
	return t;
}

static void ring_set_lost(struct perfring_ring *r)
{
	const struct pr_event *e = r->nr_events ? &r->events[0] : NULL;

	perfring_core_ring_set_lost(&r->core, e ? &e->attr : NULL,
				    e && e->nr_ids ? e->ids[0] : 0,
				    r->has_lost_sid ? &r->lost_sid : NULL, ring_clock, r);
}

PERFRING_API void perfring_ring_set_lost_sample_id(struct perfring_ring *r,
						   const struct perfring_sample_id *sid)
{
	if (!r)
		return;
	if (sid) {
		r->lost_sid = *sid;
		r->has_lost_sid = 1;
	} else {
		r->has_lost_sid = 0;
	}
	ring_set_lost(r);
}

PERFRING_API int perfring_ring_get_stats(const struct perfring_ring *r, struct perfring_ring_stats *st)
{
	struct perfring_ring_stats s = { .sz = sizeof(s) };

	if (!r || !st)
		return -EINVAL;
	s.head = pr_read_once(&r->ws->head);
	s.published = pr_load_acquire(&r->hdr->data_head);	/* pairs with (B) */
	s.tail = pr_read_once(&r->hdr->data_tail);
	s.dropped = pr_read_once(&r->ws->dropped);
	s.lost_pending = pr_read_once(&r->ws->lost);
	s.aborted = pr_read_once(&r->ws->aborted);
	return perfring_struct_fill(st, sizeof(s), &s, sizeof(s));
}

/* ---- reading ------------------------------------------------------------ */

#define READ_FRAME_AHEAD 64
/*
 * and at most this many bytes ahead.  Framing reads one header per record,
 * a chain of dependent loads; run far ahead of the copy that follows, each
 * of them waits for its line from memory on its own, while a short lead
 * keeps both in the lines the copy brings in.  With 176-byte records,
 * framing 256 bytes ahead instead of 64 records made perfring-dump --stats
 * of a 128 MiB ring 1.4 times faster, and bench/ring-bench's ring-read
 * lines (48- and 104-byte records) 1.2 and 1.4 times (AMD EPYC; 128, 512
 * and 1024 bytes did less well; a bare loop framing 64 records ahead ran
 * 2.4 times longer than one copying as it frames).
 */
#define READ_FRAME_BYTES 256u

/*
 * No software prefetch on the read path: the reader walks the ring in
 * order, which the hardware prefetcher follows, and a prefetch per record
 * made bench/ring-bench's ring-read-fork slower (17 against 24 GB/s for a
 * bare framing loop on the same ring).
 */

struct perfring_reader {
	struct perfring_ring *r;
	uint64_t pos;			/* next record (normal mode) */
	uint64_t head_seen;		/* data_head when last loaded: loaded
					 * again only when pos reaches it, so a
					 * busy reader does not pull the control
					 * page's line away from the writer for
					 * every record */
	uint64_t released;		/* pages below this position were dropped */
	/*
	 * Sizes of the records after pos, already framed against head_seen
	 * (8-aligned, at least 8, within head): fsize[fnext..fcount).  The
	 * next record's size is in the record before it, so framing one
	 * record per call makes every call wait for the last one's loads;
	 * framing a run of them in one tight loop takes that chain out of
	 * the calls.  Dropped whenever pos jumps (resync).
	 */
	uint16_t fsize[READ_FRAME_AHEAD];
	unsigned fnext, fcount;
	int err;			/* sticky */
	struct perfring_diag diag;
	unsigned char *bounce;
	struct perfring_reader_stats st;
	/* overwrite mode */
	unsigned char *snap;		/* linear copy starting at snap_head */
	uint64_t snap_head;
	uint32_t *offs;			/* record offsets in snap, newest first */
	uint64_t nr_offs, next_idx;	/* next_idx counts down */
	uint64_t last_pos;		/* newest record returned */
	int have_last;
	int in_snap;			/* records of a snapshot being returned */
	int pending_err;		/* reported after the snapshot's records */
	struct perfring_diag pending_diag;
	uint64_t pending_pos, pending_skip; /* where the damage is, bytes lost */
	uint64_t reported_pos;		/* RESYNC: damage already reported */
	int have_reported;
	/* options */
	uint32_t flags;			/* PERFRING_READER_* */
	const struct perfring_registry *registry;
	perfring_problem_fn on_damage;
	void *user;
	const struct perfring_attr *a0;	/* event 0's attr, NULL without events */
	struct pr_id_rule rule;		/* perf's id rule, by event 0 */
};

PERFRING_API int perfring_reader_new(struct perfring_ring *r, struct perfring_reader **out)
{
	return perfring_reader_new_opts(r, NULL, out);
}

PERFRING_API int perfring_reader_new_opts(struct perfring_ring *r,
					  const struct perfring_reader_opts *o,
					  struct perfring_reader **out)
{
	struct perfring_reader_opts opts = { .sz = sizeof(opts) };
	struct perfring_reader *rd;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!r)
		return -EINVAL;
	if (o && perfring_opts_load(&opts, sizeof(opts), o, sizeof(opts),
				    "perfring_reader_opts", NULL, NULL) < 0)
		return -EINVAL;
	o = &opts;
	if (o->flags & ~PERFRING_READER_RESYNC)
		return -EINVAL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->r = r;
	rd->a0 = perfring_ring_attr_for_id(r, 0);
	if (rd->a0)
		pr_id_rule_init(&rd->rule, rd->a0);
	rd->flags = o->flags;
	rd->registry = o->registry;
	rd->on_damage = o->on_damage;
	rd->user = o->user;
	rd->bounce = malloc(PR_BOUNCE_SIZE);
	if (!rd->bounce)
		goto nomem;
	if (r->flags & PERFRING_RING_OVERWRITE) {
		if (r->data_size > UINT32_MAX)
			goto nomem;
		rd->snap = malloc(r->data_size);
		rd->offs = malloc((r->data_size / 8) * sizeof(uint32_t));
		if (!rd->snap || !rd->offs)
			goto nomem;
	} else {
		rd->pos = pr_read_once(&r->hdr->data_tail);
		rd->head_seen = rd->pos;
		rd->released = rd->pos;
	}
	*out = rd;
	return 0;
nomem:
	perfring_reader_free(rd);
	return -ENOMEM;
}

PERFRING_API void perfring_reader_free(struct perfring_reader *rd)
{
	if (!rd)
		return;
	free(rd->bounce);
	free(rd->snap);
	free(rd->offs);
	free(rd);
}

static uint64_t data_off(const struct perfring_ring *r, uint64_t pos)
{
	return r->data_file_off + (pos & r->mask);
}

/* Copy size bytes at ring position pos into dst. */
static inline __attribute__((always_inline)) void ring_get(const struct perfring_ring *r,
							   uint64_t pos, void *dst, size_t size)
{
	uint64_t o = pos & r->mask;
	size_t first = size;

	/* small records that do not wrap: as ring_put */
	if (size <= 256 && !(size & 7) && o + size <= r->data_size) {
		prc_copy_small(dst, r->data + o, size);
		return;
	}
	if (o + size > r->data_size)
		first = (size_t)(r->data_size - o);
	memcpy(dst, r->data + o, first);
	if (first < size)
		memcpy((unsigned char *)dst + first, r->data, size - first);
}

static void count_record(struct perfring_reader *rd, const unsigned char *rec, uint32_t size)
{
	struct perfring_lost l;

	rd->st.records++;
	rd->st.bytes += size;
	/* the codec's reader; without the attr, the trailer is not looked at */
	if (pr_get32(rec) == PERFRING_RECORD_LOST &&
	    perfring_lost_decode(NULL, rec, size, &l, NULL) == 0) {
		rd->st.lost_records++;
		rd->st.lost += l.lost;
	}
}

/*
 * Frame the record at pos, given the published head: returns its size, or
 * a negative error after filling diag.  Never reads outside the data area.
 */
static __attribute__((cold, noinline)) int frame_error(struct perfring_reader *rd, struct perfring_diag *d,
							 uint64_t pos, uint64_t head, uint32_t *sizep)
{
	const struct perfring_ring *r = rd->r;
	uint64_t avail = head - pos;
	struct perfring_event_header h;

	if (pos & 7) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
			    "ring position 0x%" PRIx64 " is not 8-byte aligned", pos);
		return -EBADMSG;
	}
	if (avail < 8) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
			    "published head 0x%" PRIx64 " ends %" PRIu64 " bytes into a record header at ring position 0x%" PRIx64,
			    head, avail, pos);
		return -EBADMSG;
	}
	memcpy(&h, r->data + (pos & r->mask), sizeof(h));
	if (h.size < 8) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
			    "record size %u below 8 at ring position 0x%" PRIx64 " (type %" PRIu32 ")",
			    h.size, pos, h.type);
		return -EBADMSG;
	}
	if (h.size & 7) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
			    "record size %u is not a multiple of 8 at ring position 0x%" PRIx64 " (type %" PRIu32 ")",
			    h.size, pos, h.type);
		return -EBADMSG;
	}
	if (h.size > avail) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
			    "record size %u at ring position 0x%" PRIx64 " runs past the published head 0x%" PRIx64,
			    h.size, pos, head);
		return -EBADMSG;
	}
	*sizep = h.size;
	return 0;
}

/*
 * The record at pos (below head): its size when it is 8-aligned, at least
 * 8 and within head; otherwise frame_error says what is wrong.
 */
static inline __attribute__((always_inline)) int frame_check(struct perfring_reader *rd,
							     struct perfring_diag *d, uint64_t pos,
							     uint64_t head, uint32_t *sizep)
{
	const struct perfring_ring *r = rd->r;
	uint64_t avail = head - pos;
	uint16_t size;

	if (!(pos & 7) && avail >= 8) {
		size = pr_get16(r->data + (pos & r->mask) + 6);
		if (size >= 8 && !(size & 7) && size <= avail) {
			*sizep = size;
			return 0;
		}
	}
	return frame_error(rd, d, pos, head, sizep);
}

static __attribute__((cold, noinline)) int head_error(struct perfring_reader *rd, struct perfring_diag *d,
							uint64_t tail, uint64_t head)
{
	const struct perfring_ring *r = rd->r;

	if ((int64_t)(head - tail) < 0) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, tail),
			    "data_head 0x%" PRIx64 " is behind data_tail 0x%" PRIx64, head, tail);
		return -EBADMSG;
	}
	if (head - tail > r->data_size) {
		pr_diag_set(d, -EBADMSG, r->name, data_off(r, tail),
			    "data_head 0x%" PRIx64 " is more than data_size (%" PRIu64 ") ahead of data_tail 0x%" PRIx64,
			    head, r->data_size, tail);
		return -EBADMSG;
	}
	return 0;
}

/* head may be read: not behind tail, at most data_size ahead of it */
static inline __attribute__((always_inline)) int head_check(struct perfring_reader *rd,
							    struct perfring_diag *d, uint64_t tail,
							    uint64_t head)
{
	if (head - tail <= rd->r->data_size)
		return 0;
	return head_error(rd, d, tail, head);
}

/*
 * How far above head the bytes of an overwrite ring are intact: the
 * reservation head is at or below head, and everything the producer claimed
 * below head (in flight, or written since head was read) aliases the top of
 * the window.  A producer that got a whole data_size ahead (or a reservation
 * head above head, which no live producer makes) leaves nothing intact.
 * Wrapped rings have no reservation head: trust data_head alone.
 */
static uint64_t ow_limit(const struct perfring_ring *r, uint64_t head)
{
	uint64_t ahead;

	if (r->ws == &r->local_ws)
		return r->data_size;
	ahead = head - pr_read_once(&r->ws->head);
	return ahead >= r->data_size ? 0 : r->data_size - ahead;
}

/*
 * Snapshot an overwrite ring: copy the window above data_head out, then
 * keep only the records the writer did not overwrite meanwhile.  Fills
 * offs[] newest first.  Framing errors end the walk; they are returned in
 * *errp / d once the records before them are used.
 */
static uint64_t ow_snapshot(struct perfring_reader *rd, unsigned char *snap, uint32_t *offs,
			    uint64_t *headp, int have_stop, uint64_t stop,
			    struct perfring_diag *d, int *errp)
{
	const struct perfring_ring *r = rd->r;
	uint64_t head, lim, lim2, off = 0, n = 0;

	*errp = 0;
	/* (C) Pairs with the writer's release store of data_head (B). */
	head = pr_load_acquire(&r->hdr->data_head);
	lim = ow_limit(r, head);
	ring_get(r, head, snap, (size_t)r->data_size);
	/* Pairs with the release fence after the writer's claim (reserve). */
	pr_fence_acquire();
	lim2 = ow_limit(r, head);
	if (lim2 < lim)
		lim = lim2;
	*headp = head;
	while (off + 8 <= lim) {
		struct perfring_event_header h;
		uint64_t pos = head + off;

		if (have_stop && pos == stop)
			break;
		memcpy(&h, snap + off, sizeof(h));
		if (h.size == 0)
			break;	/* never written */
		if (h.size < 8 || (h.size & 7)) {
			*errp = -EBADMSG;
			pr_diag_set(d, -EBADMSG, r->name, data_off(r, pos),
				    "record size %u %s at ring position 0x%" PRIx64,
				    h.size, h.size < 8 ? "below 8" : "is not a multiple of 8", pos);
			rd->pending_pos = pos;
			rd->pending_skip = lim - off;
			break;
		}
		if (h.size > lim - off)
			break;	/* partly overwritten or in flight */
		offs[n++] = (uint32_t)off;
		off += h.size;
	}
	return n;
}

static int reader_next_ow(struct perfring_reader *rd, struct perfring_record *rec)
{
	struct perfring_ring *r = rd->r;

	for (;;) {
		if (rd->next_idx == 0) {
			int err;

			if (rd->pending_err && (rd->flags & PERFRING_READER_RESYNC)) {
				/* the rest of the window cannot be framed:
				 * report it once, count it, go on */
				rd->pending_err = 0;
				rd->in_snap = 0;
				if (!rd->have_reported || rd->reported_pos != rd->pending_pos) {
					rd->have_reported = 1;
					rd->reported_pos = rd->pending_pos;
					rd->st.resyncs++;
					rd->st.skipped_bytes += rd->pending_skip;
					if (rd->on_damage)
						rd->on_damage(&rd->pending_diag, rd->user);
				}
				return 0;
			}
			if (rd->pending_err) {
				rd->diag = rd->pending_diag;
				rd->err = rd->pending_err;
				return rd->err;
			}
			/*
			 * The end of one snapshot is reported (0) before the
			 * next is taken, so that a caller draining a ring that
			 * a live writer keeps filling gets batches.
			 */
			if (rd->in_snap) {
				rd->in_snap = 0;
				return 0;
			}
			rd->nr_offs = ow_snapshot(rd, rd->snap, rd->offs, &rd->snap_head,
						  rd->have_last, rd->last_pos,
						  &rd->pending_diag, &err);
			rd->pending_err = err;
			rd->next_idx = rd->nr_offs;
			if (rd->nr_offs == 0) {
				if (err)
					continue;
				return 0;
			}
			rd->in_snap = 1;
		}
		{
			uint64_t off = rd->offs[--rd->next_idx];
			unsigned char *p = rd->snap + off;
			uint32_t size = pr_get16(p + 6);
			uint64_t pos = rd->snap_head + off;

			if (rd->next_idx == 0) {
				rd->last_pos = rd->snap_head;
				rd->have_last = 1;
			}
			if (pr_get32(p) == PERFRING_RECORD_PAD) {
				rd->st.pads++;
				continue;
			}
			count_record(rd, p, size);
			rec->hdr = (const struct perfring_event_header *)(void *)p;
			rec->pos = pos;
			rec->offset = data_off(r, pos);
			return 1;
		}
	}
}

/*
 * Every record is copied out before it is returned, so the pages a reader
 * has passed are not needed any more.  For a ring this library mapped
 * (MAP_SHARED: a file, a memfd or shared anonymous memory), drop them from
 * this process every PR_RELEASE_BYTES so that reading a large ring file
 * keeps the resident set flat; the data stays in the file or shared memory
 * and is faulted back in if anyone here touches it again.  Not for wrapped
 * mappings (a kernel perf ring belongs to its caller), and not for a ring
 * this process may write through: its writer would fault every page back
 * in on the next lap (a 48-byte write went from 7 to 25 ns with a reader
 * dropping pages behind it).
 */
#define PR_RELEASE_BYTES (8u << 20)

static void release_passed(struct perfring_reader *rd)
{
	const struct perfring_ring *r = rd->r;
	uint64_t from, to;

	if (!r->owns_map || (r->mode & PERFRING_RING_WRITE) ||
	    rd->pos - rd->released < PR_RELEASE_BYTES)
		return;
	/* Whole pages strictly behind pos, at most one lap. */
	from = (rd->released + r->page_size - 1) & ~(uint64_t)(r->page_size - 1);
	to = rd->pos & ~(uint64_t)(r->page_size - 1);
	if (to - from > r->data_size)
		from = to - r->data_size;
	while (from < to) {
		uint64_t o = from & r->mask;
		uint64_t n = to - from;

		if (n > r->data_size - o)
			n = r->data_size - o;	/* up to the end of the area */
		madvise(r->data + o, (size_t)n, MADV_DONTNEED);
		from += n;
	}
	rd->released = rd->pos;
}

/* The attr of a record: the event whose ids hold its sample id, else event 0's. */
static const struct perfring_attr *rec_attr(const struct perfring_reader *rd,
					    const unsigned char *p, size_t size)
{
	uint64_t id;

	if (rd->a0 && rd->r->nr_events > 1 && pr_record_id_at(&rd->rule, p, size, &id) == 1)
		return perfring_ring_attr_for_id(rd->r, id);
	return rd->a0;
}

static void damage(struct perfring_reader *rd, const struct perfring_diag *d)
{
	if (rd->on_damage)
		rd->on_damage(d, rd->user);
}

/*
 * RESYNC: is there a plausible record at pos (below head)?  A kernel type
 * perf knows, framed within head, that validates (copied to the bounce
 * buffer to be checked).
 */
static int plausible(struct perfring_reader *rd, uint64_t pos, uint64_t head)
{
	const struct perfring_ring *r = rd->r;
	uint64_t avail = head - pos;
	struct perfring_event_header h;

	if (avail < 8)
		return 0;
	memcpy(&h, r->data + (pos & r->mask), sizeof(h));
	if (h.type == PERFRING_RECORD_PAD || h.type >= PERFRING_RECORD_KERNEL_MAX ||
	    !perfring_record_type_name(h.type))
		return 0;
	if (h.size < 8 || (h.size & 7) || h.size > avail || h.size < perfring_record_min_size(h.type))
		return 0;
	ring_get(r, pos, rd->bounce, h.size);
	pr_put16(rd->bounce + 6, h.size);
	return perfring_record_validate(rd->registry, rec_attr(rd, rd->bounce, h.size), rd->bounce,
					h.size, 0, NULL) == 0;
}

/*
 * RESYNC: the record at bad is damaged.  Go on at the next plausible record
 * (8-byte steps from bad + 8), or at head if none; say where through
 * on_damage, and count the bytes stepped over.
 */
static void resync(struct perfring_reader *rd, uint64_t bad, uint64_t head)
{
	const struct perfring_ring *r = rd->r;
	struct perfring_diag d;
	uint64_t p;

	rd->fnext = rd->fcount = 0;	/* pos jumps: what was framed ahead is void */
	rd->st.resyncs++;
	for (p = (bad & ~(uint64_t)7) + 8; p - bad < head - bad && head - p >= 8; p += 8) {
		if (plausible(rd, p, head)) {
			rd->st.skipped_bytes += p - bad;
			pr_diag_set(&d, -EBADMSG, r->name, data_off(r, p),
				    "resynchronised after %" PRIu64 " damaged bytes", p - bad);
			damage(rd, &d);
			rd->pos = p;
			return;
		}
	}
	rd->st.skipped_bytes += head - bad;
	pr_diag_set(&d, -EBADMSG, r->name, data_off(r, bad),
		    "no valid record in the %" PRIu64 " bytes after the damage", head - bad);
	damage(rd, &d);
	rd->pos = head;
}

/*
 * Frame up to READ_FRAME_AHEAD records from pos (below head) into fsize[],
 * stopping before the first that frame_check would refuse: that one is
 * framed again, and its error reported, when the reader reaches it.
 */
static void frame_ahead(struct perfring_reader *rd, uint64_t pos, uint64_t head)
{
	const struct perfring_ring *r = rd->r;
	const unsigned char *data = r->data;
	uint64_t mask = r->mask;
	uint64_t stop = pos + READ_FRAME_BYTES;
	unsigned n = 0;

	while (n < READ_FRAME_AHEAD && head - pos >= 8 && pos < stop) {
		uint16_t size = pr_get16(data + (pos & mask) + 6);

		if (size < 8 || (size & 7) || size > head - pos)
			break;
		rd->fsize[n++] = size;
		pos += size;
	}
	rd->fnext = 0;
	rd->fcount = n;
}

static int reader_next_slow(struct perfring_reader *rd, struct perfring_record *rec);

/*
 * The common case in few instructions: a record framed ahead, at most 64
 * bytes, with 64 published bytes from it inside the data area (so it does
 * not wrap, and one fixed-size copy of 64 bytes takes it whatever its
 * size), not a pad nor a LOST, no validation asked for.  Anything else
 * goes the whole way (reader_next_slow), which handles every case.  The
 * type is read from the copy: what the caller gets is what was checked.
 */
PERFRING_API int perfring_reader_next(struct perfring_reader *rd, struct perfring_record *rec)
{
	const struct perfring_ring *r;
	unsigned char *dst;
	uint64_t pos, o;
	uint32_t size;

	if (__builtin_expect(!rd || !rec || rd->fnext >= rd->fcount ||
			     (rd->flags & PERFRING_READER_RESYNC) ||
			     rec->sz < sizeof(*rec) || rec->sz > PERFRING_STRUCT_MAX, 0))
		return reader_next_slow(rd, rec);
	r = rd->r;
	size = rd->fsize[rd->fnext];
	pos = rd->pos;
	o = pos & r->mask;
	if (__builtin_expect(size > 64 || o + 64 > r->data_size || rd->head_seen - pos < 64, 0))
		return reader_next_slow(rd, rec);
	dst = rd->bounce;
	__builtin_memcpy(dst, r->data + o, 64);
	/* PAD is 0 and LOST 2: both take the full path (it counts them) */
	if (__builtin_expect((pr_get32(dst) & ~(uint32_t)PERFRING_RECORD_LOST) == 0, 0))
		return reader_next_slow(rd, rec);
	pr_put16(dst + 6, (uint16_t)size);
	rd->fnext++;
	rd->st.records++;
	rd->st.bytes += size;
	rec->hdr = (const struct perfring_event_header *)(void *)dst;
	rec->pos = pos;
	rec->offset = r->data_file_off + o;
	rd->pos = pos + size;
	return 1;
}

static int reader_next_slow(struct perfring_reader *rd, struct perfring_record *rec)
{
	struct perfring_ring *r;
	uint64_t head;
	uint32_t size;
	int err;

	/* sz: this struct's first version, so only a larger one can come;
	 * the fields are written directly (this is the hot path) */
	if (!rd || !rec || rec->sz < sizeof(*rec) || rec->sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	if (rd->err)
		return rd->err;
	r = rd->r;
	if (r->flags & PERFRING_RING_OVERWRITE)
		return reader_next_ow(rd, rec);
	head = rd->head_seen;
	for (;;) {
		unsigned char *p;
		uint64_t o;

		if (rd->fnext < rd->fcount) {
			size = rd->fsize[rd->fnext++];
		} else {
			if (head == rd->pos) {
				/* (C) Pairs with the writer's release store of data_head (B). */
				head = pr_load_acquire(&r->hdr->data_head);
				rd->head_seen = head;
			}
			err = head_check(rd, &rd->diag, rd->pos, head);
			if (err)
				return rd->err = err;
			if (head == rd->pos)
				return 0;
			release_passed(rd);
			err = frame_check(rd, &rd->diag, rd->pos, head, &size);
			if (err) {
				if (!(rd->flags & PERFRING_READER_RESYNC))
					return rd->err = err;
				damage(rd, &rd->diag);
				resync(rd, rd->pos, head);
				continue;
			}
			frame_ahead(rd, rd->pos + size, head);
		}
		o = rd->pos & r->mask;
		if (pr_get32(r->data + o) == PERFRING_RECORD_PAD) {
			rd->st.pads++;
			rd->pos += size;
			continue;
		}
		/*
		 * Copy the record out (it wraps, or another process could
		 * change it under the caller), and keep the size we checked.
		 */
		ring_get(r, rd->pos, rd->bounce, size);
		pr_put16(rd->bounce + 6, (uint16_t)size);
		p = rd->bounce;
		/* types perf does not name are the caller's to count or drop */
		if ((rd->flags & PERFRING_READER_RESYNC) &&
		    perfring_record_type_name(pr_get32(p)) &&
		    perfring_record_validate(rd->registry, rec_attr(rd, p, size), p, size,
					     data_off(r, rd->pos), &rd->diag) < 0) {
			/* its size may swallow the records after it */
			snprintf(rd->diag.file, sizeof(rd->diag.file), "%s", r->name);
			damage(rd, &rd->diag);
			resync(rd, rd->pos, head);
			continue;
		}
		count_record(rd, p, size);
		rec->hdr = (const struct perfring_event_header *)(void *)p;
		rec->pos = rd->pos;
		rec->offset = data_off(r, rd->pos);
		rd->pos += size;
		return 1;
	}
}

PERFRING_API void perfring_reader_consume(struct perfring_reader *rd)
{
	if (!rd || (rd->r->flags & PERFRING_RING_OVERWRITE) || !rd->r->hdr_writable)
		return;
	/* (D) Pairs with the writer's acquire load of data_tail (A). */
	pr_store_release(&rd->r->hdr->data_tail, rd->pos);
}

PERFRING_API const struct perfring_diag *perfring_reader_diag(const struct perfring_reader *rd)
{
	return rd ? &rd->diag : NULL;
}

PERFRING_API int perfring_reader_get_stats(const struct perfring_reader *rd,
					  struct perfring_reader_stats *st)
{
	struct perfring_reader_stats all;

	if (!rd || !st)
		return -EINVAL;
	all = rd->st;
	all.sz = sizeof(all);
	/* (C) Pairs with the writer's release store of data_head (B). */
	all.data_head = pr_load_acquire(&rd->r->hdr->data_head);
	all.data_tail = pr_read_once(&rd->r->hdr->data_tail);
	all.lost_pending = pr_read_once(&rd->r->ws->lost);
	return perfring_struct_fill(st, sizeof(all), &all, sizeof(all));
}

/*
 * Per-record problems (they do not stop the walk): what
 * perfring_record_validate finds, with the attr of the record's sample id.
 * Returns 1 if one was found.
 */
static int record_problem(struct perfring_reader *rd, struct perfring_diag *d, uint64_t pos,
			  const unsigned char *rec, uint32_t size)
{
	const struct perfring_ring *r = rd->r;

	if (perfring_record_validate(rd->registry, rec_attr(rd, rec, size), rec, size,
				     data_off(r, pos), d) == 0)
		return 0;
	snprintf(d->file, sizeof(d->file), "%s", r->name);
	return 1;
}

PERFRING_API int perfring_reader_check(struct perfring_reader *rd, perfring_problem_fn fn,
				       void *user)
{
	struct perfring_ring *r;
	struct perfring_diag d;
	int problems = 0;

	if (!rd)
		return -EINVAL;
	r = rd->r;
	if (rd->err) {
		if (fn)
			fn(&rd->diag, user);
		return 1;
	}
	memset(&d, 0, sizeof(d));
	if (r->flags & PERFRING_RING_OVERWRITE) {
		unsigned char *snap = malloc(r->data_size);
		uint32_t *offs = malloc((r->data_size / 8) * sizeof(uint32_t));
		uint64_t n, i, head;
		int err;

		if (!snap || !offs) {
			free(snap);
			free(offs);
			return -ENOMEM;
		}
		n = ow_snapshot(rd, snap, offs, &head, 0, 0, &d, &err);
		if (err) {
			problems++;
			if (fn)
				fn(&d, user);
		}
		for (i = 0; i < n; i++) {
			const unsigned char *p = snap + offs[i];

			if (record_problem(rd, &d, head + offs[i], p, pr_get16(p + 6))) {
				problems++;
				if (fn)
					fn(&d, user);
			}
		}
		free(snap);
		free(offs);
		return problems;
	}
	{
		/* (C) Pairs with the writer's release store of data_head (B). */
		uint64_t head = pr_load_acquire(&r->hdr->data_head);
		uint64_t pos = rd->pos;
		uint32_t size;

		if (head_check(rd, &d, pos, head)) {
			if (fn)
				fn(&d, user);
			return 1;
		}
		while (pos != head) {
			if (frame_check(rd, &d, pos, head, &size)) {
				problems++;
				if (fn)
					fn(&d, user);
				break;
			}
			ring_get(r, pos, rd->bounce, size);
			if (record_problem(rd, &d, pos, rd->bounce, size)) {
				problems++;
				if (fn)
					fn(&d, user);
			}
			pos += size;
		}
	}
	return problems;
}

/* ---- names kept for one release (0.2) ----------------------------------- */

PERFRING_API int perfring_ring_stats(const struct perfring_ring *r, struct perfring_ring_stats *st)
{
	return perfring_ring_get_stats(r, st);
}

PERFRING_API int perfring_reader_stats(const struct perfring_reader *rd,
				       struct perfring_reader_stats *st)
{
	return perfring_reader_get_stats(rd, st);
}
