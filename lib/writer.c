/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer (file and pipe mode).  Formats: doc/perf-format.md
 * section 5; what perf 6.1 refuses or warns about: 4.4, 5.9 and 6.
 *
 * Output layout, file mode:
 *   0                  header (104 bytes; patched at close)
 *   104                ids of every event, event after event (u64 each)
 *   ...                attr entries { attr[attr_size], ids {offset, size} }
 *   data_offset        records (kernel MMAP first if synthesised)
 *   data_end           feature table { offset, size } per set bit, then payloads
 * Pipe mode: 16-byte header, HEADER_ATTR per event (attr.size 128, ids),
 * HEADER_FEATURE per feature, the HEADER_LAST_FEATURE end marker, records.
 *
 * Merge.  Every source has a FIFO of queued records (chunked, so memory is
 * allocated as needed and freed as drained).  A record's merge key is its
 * time, or the previous key of its source when it has none (so untimed
 * records keep their place).  The smallest head is written whenever every
 * source that has not ended has something queued: then nothing older can
 * still come (sources are fed in their own time order), and the output is
 * sorted.  When the queued bytes exceed the window while a source has
 * nothing queued (it runs behind, or was never ended), the writer flushes
 * the smallest heads down to half the window ("forced flush"); a record that
 * such a lagging source produces later may be older than what was written.
 *
 * Rounds.  perf, at FINISHED_ROUND k, delivers every queued record not newer
 * than the newest time it had seen at round k-1.  So after round k no record
 * may be older than T(k-1), the newest time written before round k-1.  The
 * writer tracks T(k-1) (t_limit) and counts violations ("late").  A round
 * is written every round_bytes of data when the merge is in order; during
 * a forced flush only every window_bytes, to leave a lagging source time.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "writer-private.h"

#define WR_MAGIC		0x32454c4946524550ull	/* "PERFILE2" */
#define WR_FILE_HEADER_SIZE	104u
#define WR_PIPE_HEADER_SIZE	16u
#define WR_PIPE_ATTR_SIZE	PERFRING_ATTR_SIZE_VER7	/* perf < 6.6 reads sizeof */
#define WR_MAX_ATTR_SIZE	PERFRING_ATTR_SIZE_VER7	/* perf 6.1 refuses more */
#define WR_OBUF_SIZE		(256u * 1024u)
#define WR_CHUNK_SIZE		(64u * 1024u)
#define WR_DEFAULT_WINDOW	(64u * 1024u * 1024u)
#define WR_MIN_WINDOW		(64u * 1024u)
#define WR_DEFAULT_ROUND	(4u * 1024u * 1024u)
#define WR_KERNEL_MMAP_NAME	"[kernel.kallsyms]_text"

/* Feature ids (doc/perf-format.md 5.4). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
	FEAT_CLOCKID = 23,
	FEAT_COMPRESSED = 27,
	FEAT_CLOCK_DATA = 29,
	FEAT_LAST = 32,		/* HEADER_LAST_FEATURE of perf 6.1 */
};

struct wr_event {
	struct perfring_attr attr;	/* as written (size set at start) */
	uint64_t *ids;
	uint32_t nr_ids;
	char *name;
	int id_pos, is_pos;		/* perf's positions, -1 if none */
};

struct wr_idmap {
	uint64_t id;
	uint32_t ev;
};

/* A queued record: entry header, then the record padded to 8. */
struct wr_entry {
	uint64_t key;
	uint64_t time;			/* 0: none */
	uint32_t size;
	uint32_t is_sample;
};

struct wr_chunk {
	struct wr_chunk *next;
	size_t cap, rd, wr;
	unsigned char data[];
};

struct wr_source {
	struct wr_chunk *head, *tail;
	size_t nr;			/* queued records */
	uint64_t last_key;
	int ended;
};

/* A mapped file for the BUILD_ID feature. */
struct wr_dso {
	char *name;
	uint16_t cpumode;
	uint8_t id_size;		/* 0: read it from the file at close */
	uint8_t id[20];
};

#define WR_MAX_DSOS 4096

struct wr_drop {
	uint32_t type;
	uint64_t count;
};

struct perfring_writer {
	char *path;			/* final name, NULL for fd / "-" */
	char *tmp;			/* temporary name, NULL if none */
	char *dname;			/* name in diagnostics */
	int fd, own_fd;
	int pipe;
	int file_on_fd;			/* file mode on a caller's fd */
	int keep_unknown;
	int build_ids;
	struct wr_dso *dsos;		/* open-addressing hash on name */
	size_t nr_dsos, cap_dsos;
	enum perfring_writer_kmap kmap;
	char *hostname, *osrelease, *arch, *version, *kallsyms;
	char **argv;
	int argc;
	size_t window, round_bytes;

	struct wr_event *ev;
	int nr_ev;
	uint64_t next_id;
	struct wr_idmap *idmap;
	size_t nr_idmap;
	uint32_t attr_size;		/* written attr.size */

	struct wr_source *src;
	int nr_src;
	int src0_claimed;
	struct wr_chunk *spare;		/* drained standard chunks, for reuse */
	size_t nr_spare, max_spare;
	size_t queued;			/* bytes queued in all sources */
	size_t queued_nr;		/* records queued */
	int n_waiting;			/* active sources with nothing queued */
	int n_open;			/* sources not ended */
	int *heap;			/* sources with records, min-heap by head key */
	int nh;
	int forcing;			/* in a forced flush */

	int started;
	int err;			/* first fatal error, negative */
	struct perfring_diag errdiag;

	unsigned char *obuf;
	size_t olen;
	uint64_t opos;			/* offset of obuf[0] in the output */
	struct wr_bg *bg;		/* background writes (file mode), or NULL */
	int bg_failed;			/* no helper thread: write synchronously */
	uint64_t data_offset;

	uint64_t max_time, t_last_round, t_limit, since_round;
	uint64_t first_sample, last_sample;
	int have_sample_time;

	uint64_t kstart, klen;		/* kernel MMAP, if klen */
	struct timespec clk_res, clk_tod, clk_ref;
	int have_clock;

	struct wr_drop *drops;
	size_t nr_drops;
	struct perfring_writer_stats st;

	/* compression: records staged in zin, then one COMPRESSED record */
	int zlevel;
	struct pr_wz *z;
	unsigned char *zin, *zrec;
	size_t zin_len;
	uint64_t z_out;			/* bytes of COMPRESSED records */

	/* HEADER_TRACING_DATA payload (given, or built at start) */
	struct pr_buf tdata;
	int tdata_given;
	char *tracefs;
};

/* ---- small helpers ------------------------------------------------------- */

void pr_buf_put(struct pr_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void buf_u32(struct pr_buf *b, uint32_t v) { pr_buf_put(b, &v, 4); }
static void buf_u64(struct pr_buf *b, uint64_t v) { pr_buf_put(b, &v, 8); }

/* perf's do_write_string: u32 len, then the string, NUL, zeros to 64. */
static void buf_str(struct pr_buf *b, const char *s)
{
	static const unsigned char zeros[64];
	size_t n = strlen(s) + 1;
	size_t len = (n + 63) & ~(size_t)63;

	buf_u32(b, (uint32_t)len);
	pr_buf_put(b, s, n - 1);
	pr_buf_put(b, zeros, len - (n - 1));
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

static uint64_t rd64(const unsigned char *p)
{
	return pr_get64(p);
}

/* ---- errors and output ---------------------------------------------------- */

static int wr_fail(struct perfring_writer *w, int err, const char *fmt, ...)
	PR_PRINTF(3, 4);
static int wr_fail(struct perfring_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->err)
		return w->err;
	w->err = err;
	va_start(ap, fmt);
	pr_diag_vset(&w->errdiag, err, w->dname, PR_NO_OFFSET, fmt, ap);
	va_end(ap);
	return err;
}

static void wr_copy_err(struct perfring_writer *w, struct perfring_diag *diag)
{
	if (diag && w->err)
		*diag = w->errdiag;
}

static int wr_write_all(struct perfring_writer *w, const void *p, size_t n,
			uint64_t off)
{
	const unsigned char *c = p;

	while (n) {
		ssize_t r;

		if (w->pipe)
			r = write(w->fd, c, n);
		else
			r = pwrite(w->fd, c, n, (off_t)off);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			if (e == EAGAIN || e == EWOULDBLOCK) {
				struct pollfd pfd = { .fd = w->fd, .events = POLLOUT };

				(void)poll(&pfd, 1, -1);
				continue;
			}
			return wr_fail(w, -e, "writing %s at offset %" PRIu64 ": %s",
				       w->tmp ? w->tmp : "the output", off,
				       strerror(e));
		}
		if (r == 0)
			return wr_fail(w, -EIO, "writing %s: no progress",
				       w->tmp ? w->tmp : "the output");
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/*
 * ---- Background writes ----------------------------------------------------
 *
 * In file mode a full output buffer is written by a helper thread while the
 * caller fills the other one: the kernel's copy into the page cache (as
 * much CPU as cp's whole copy) overlaps the caller's work on the next
 * records, on another CPU.  One write in flight at most; the output is the
 * same bytes at the same offsets.  Everything else that writes (a partial
 * flush, the header, ftruncate) first waits for it, and an error of the
 * helper's write is reported by the next wait, as a synchronous write
 * would have been.  No thread (or no memory for it): synchronous writes.
 */
struct wr_bg {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int busy, quit;
	int fd;
	unsigned char *buf;		/* the buffer written, or the spare */
	size_t len;
	uint64_t off;
	int err;			/* errno of a failed write, 0 */
	uint64_t err_off;
};

static void *wr_bg_main(void *arg)
{
	struct wr_bg *bg = arg;

	pthread_mutex_lock(&bg->mu);
	for (;;) {
		const unsigned char *c;
		size_t n;
		uint64_t off;
		int e = 0;

		while (!bg->busy && !bg->quit)
			pthread_cond_wait(&bg->cv, &bg->mu);
		if (!bg->busy)
			break;
		c = bg->buf;
		n = bg->len;
		off = bg->off;
		pthread_mutex_unlock(&bg->mu);
		while (n) {
			ssize_t r = pwrite(bg->fd, c, n, (off_t)off);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				e = r < 0 ? errno : EIO;
				break;
			}
			c += r;
			n -= (size_t)r;
			off += (uint64_t)r;
		}
		pthread_mutex_lock(&bg->mu);
		if (e && !bg->err) {
			bg->err = e;
			bg->err_off = off;
		}
		bg->busy = 0;
		pthread_cond_broadcast(&bg->cv);
	}
	pthread_mutex_unlock(&bg->mu);
	return NULL;
}

/* Wait until no background write is in flight; report its error. */
static int wr_bg_wait(struct perfring_writer *w)
{
	struct wr_bg *bg = w->bg;
	int e;
	uint64_t off;

	if (!bg)
		return 0;
	pthread_mutex_lock(&bg->mu);
	while (bg->busy)
		pthread_cond_wait(&bg->cv, &bg->mu);
	e = bg->err;
	off = bg->err_off;
	bg->err = 0;
	pthread_mutex_unlock(&bg->mu);
	if (!e)
		return 0;
	return wr_fail(w, -e, "writing %s at offset %" PRIu64 ": %s",
		       w->tmp ? w->tmp : "the output", off,
		       e == EIO ? "no progress" : strerror(e));
}

static void wr_bg_stop(struct perfring_writer *w)
{
	struct wr_bg *bg = w->bg;

	if (!bg)
		return;
	pthread_mutex_lock(&bg->mu);
	bg->quit = 1;
	pthread_cond_broadcast(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	pthread_join(bg->th, NULL);
	pthread_cond_destroy(&bg->cv);
	pthread_mutex_destroy(&bg->mu);
	free(bg->buf);
	free(bg);
	w->bg = NULL;
}

/* Start the helper: 0, or -1 when it cannot be had (then writes stay synchronous). */
static int wr_bg_start(struct perfring_writer *w)
{
	struct wr_bg *bg = calloc(1, sizeof(*bg));

	if (!bg)
		return -1;
	bg->buf = malloc(WR_OBUF_SIZE);
	bg->fd = w->fd;
	if (!bg->buf || pthread_mutex_init(&bg->mu, NULL)) {
		free(bg->buf);
		free(bg);
		return -1;
	}
	if (pthread_cond_init(&bg->cv, NULL)) {
		pthread_mutex_destroy(&bg->mu);
		free(bg->buf);
		free(bg);
		return -1;
	}
	if (pthread_create(&bg->th, NULL, wr_bg_main, bg)) {
		pthread_cond_destroy(&bg->cv);
		pthread_mutex_destroy(&bg->mu);
		free(bg->buf);
		free(bg);
		return -1;
	}
	w->bg = bg;
	return 0;
}

static int wr_flush(struct perfring_writer *w);

/* The buffer is full: hand it to the helper, go on with the spare. */
static int wr_flush_full(struct perfring_writer *w)
{
	struct wr_bg *bg;
	unsigned char *t;
	int r;

	if (w->pipe || w->err || (!w->bg && (w->bg_failed || wr_bg_start(w) < 0))) {
		w->bg_failed = 1;
		return wr_flush(w);
	}
	r = wr_bg_wait(w);
	if (r < 0)
		return r;
	bg = w->bg;
	pthread_mutex_lock(&bg->mu);
	t = bg->buf;
	bg->buf = w->obuf;
	bg->len = w->olen;
	bg->off = w->opos;
	bg->busy = 1;
	pthread_cond_broadcast(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	w->obuf = t;
	w->opos += w->olen;
	w->olen = 0;
	return 0;
}

static int wr_flush(struct perfring_writer *w)
{
	int r;

	r = wr_bg_wait(w);
	if (r < 0)
		return r;
	if (w->err)
		return w->err;
	if (!w->olen)
		return 0;
	r = wr_write_all(w, w->obuf, w->olen, w->opos);
	if (r < 0)
		return r;
	w->opos += w->olen;
	w->olen = 0;
	return 0;
}

static int wr_out(struct perfring_writer *w, const void *p, size_t n)
{
	const unsigned char *c = p;

	if (w->err)
		return w->err;
	while (n) {
		size_t k = WR_OBUF_SIZE - w->olen;

		if (k > n)
			k = n;
		memcpy(w->obuf + w->olen, c, k);
		w->olen += k;
		c += k;
		n -= k;
		if (w->olen == WR_OBUF_SIZE) {
			int r = wr_flush_full(w);

			if (r < 0)
				return r;
		}
	}
	return 0;
}

static uint64_t wr_pos(const struct perfring_writer *w)
{
	return w->opos + w->olen;
}

/* Compress the staged records into one COMPRESSED record. */
static int wr_zflush(struct perfring_writer *w)
{
	const char *why;
	long n;

	if (!w->z || !w->zin_len || w->err)
		return w->err;
	n = pr_wz_record(w->z, w->zin, w->zin_len, w->zrec, &why);
	if (n < 0)
		return wr_fail(w, (int)n, "compressing %zu bytes of records: %s",
			       w->zin_len, why);
	w->st.compressed++;
	w->st.compressed_input += w->zin_len;
	w->st.data_bytes += (uint64_t)n;
	w->z_out += (uint64_t)n;
	w->zin_len = 0;
	return wr_out(w, w->zrec, (size_t)n);
}

/*
 * A record of the data section: written, or staged for compression (a
 * record may straddle two COMPRESSED records: the decompressed stream is
 * one).  FINISHED_ROUND records bypass this.
 */
static int wr_data(struct perfring_writer *w, const void *p, size_t n)
{
	const unsigned char *c = p;

	if (!w->z) {
		w->st.data_bytes += n;
		/* the common case, a record that fits: no loop, no call */
		if (!w->err && n < WR_OBUF_SIZE - w->olen) {
			memcpy(w->obuf + w->olen, p, n);
			w->olen += n;
			return 0;
		}
		return wr_out(w, p, n);
	}
	while (n) {
		size_t k = PR_WZ_CHUNK - w->zin_len;

		if (k > n)
			k = n;
		memcpy(w->zin + w->zin_len, c, k);
		w->zin_len += k;
		c += k;
		n -= k;
		if (w->zin_len == PR_WZ_CHUNK) {
			int r = wr_zflush(w);

			if (r < 0)
				return r;
		}
	}
	return w->err;
}

/* ---- events ---------------------------------------------------------------- */

static size_t trailer_size(uint64_t st)
{
	return 8u * (size_t)popcount64(st & PERFRING_SAMPLE_ID_ALL_BITS);
}

static uint32_t attr_needed_size(const struct perfring_attr *a)
{
	static const uint32_t vers[] = {
		PERFRING_ATTR_SIZE_VER0, PERFRING_ATTR_SIZE_VER1,
		PERFRING_ATTR_SIZE_VER2, PERFRING_ATTR_SIZE_VER3,
		PERFRING_ATTR_SIZE_VER4, PERFRING_ATTR_SIZE_VER5,
		PERFRING_ATTR_SIZE_VER6, PERFRING_ATTR_SIZE_VER7,
	};
	const unsigned char *p = (const unsigned char *)a;
	size_t last = 0, i;

	for (i = 0; i < PERFRING_ATTR_SIZE_VER7; i++) {
		if (i >= 4 && i < 8)	/* the size field itself */
			continue;
		if (p[i])
			last = i + 1;
	}
	for (i = 0; i < sizeof(vers) / sizeof(vers[0]); i++)
		if (vers[i] >= last)
			return vers[i];
	return PERFRING_ATTR_SIZE_VER7;
}

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static char *default_name(const struct perfring_attr *a)
{
	char buf[64];

	if (a->type == PERFRING_TYPE_SOFTWARE &&
	    a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		return strdup(sw_names[a->config]);
	if (a->type == PERFRING_TYPE_HARDWARE &&
	    a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		return strdup(hw_names[a->config]);
	if (a->type == PERFRING_TYPE_RAW)
		snprintf(buf, sizeof(buf), "r%" PRIx64, a->config);
	else
		snprintf(buf, sizeof(buf), "type%" PRIu32 "/config=0x%" PRIx64 "/",
			 a->type, a->config);
	return strdup(buf);
}

static int id_used(const struct perfring_writer *w, uint64_t id)
{
	int i;
	uint32_t j;

	for (i = 0; i < w->nr_ev; i++)
		for (j = 0; j < w->ev[i].nr_ids; j++)
			if (w->ev[i].ids[j] == id)
				return 1;
	return 0;
}

static int add_event(struct perfring_writer *w, const struct perfring_attr *attr,
		     const uint64_t *ids, uint32_t nr_ids, const char *name,
		     struct perfring_diag *diag);

PERFRING_API int perfring_writer_add_event(struct perfring_writer *w,
					   const struct perfring_event_desc *ev,
					   struct perfring_diag *diag)
{
	struct perfring_event_desc d;
	int err;

	if (!w) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no writer");
		return -EINVAL;
	}
	err = perfring_opts_load(&d, sizeof(d), ev, PR_EVENT_DESC_MIN, "perfring_event_desc",
				 w->dname, diag);
	if (err)
		return err;
	return add_event(w, d.attr, d.ids, d.nr_ids, d.name, diag);
}

static int add_event(struct perfring_writer *w, const struct perfring_attr *attr,
		     const uint64_t *ids, uint32_t nr_ids, const char *name,
		     struct perfring_diag *diag)
{
	struct wr_event *e, *nev;
	size_t sz;
	uint32_t i, j;

	if (!w || !attr) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no writer or attr");
		return -EINVAL;
	}
	if (w->started) {
		pr_diag_set(diag, -EBUSY, w->dname, PR_NO_OFFSET,
			    "events must be added before the first record");
		return -EBUSY;
	}
	if (attr->size && attr->size < PERFRING_ATTR_SIZE_VER0) {
		pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
			    "attr.size %" PRIu32 " is smaller than the first "
			    "version (64)", attr->size);
		return -EINVAL;
	}
	nev = realloc(w->ev, (size_t)(w->nr_ev + 1) * sizeof(*nev));
	if (!nev)
		return -ENOMEM;
	w->ev = nev;
	e = &w->ev[w->nr_ev];
	memset(e, 0, sizeof(*e));

	sz = attr->size;
	if (sz == 0 || sz > sizeof(*attr))
		sz = sizeof(*attr);
	memcpy(&e->attr, attr, sz);
	if (e->attr.config3) {
		pr_log(PERFRING_LOG_WARN,
		       "%s: event %d: config3 0x%" PRIx64 " dropped: perf 6.1 reads "
		       "attrs of at most 128 bytes", w->dname, w->nr_ev,
		       e->attr.config3);
		e->attr.config3 = 0;
	}
	perfring_sample_id_pos(e->attr.sample_type, &e->id_pos, &e->is_pos);

	if (w->nr_ev >= 1) {
		const struct wr_event *f = &w->ev[0];
		const char *why = NULL;
		int k;

		for (k = 0; k <= w->nr_ev && !why; k++) {
			const struct wr_event *x = k < w->nr_ev ? &w->ev[k] : e;

			if (x->id_pos < 0)
				why = "every sample_type needs ID or IDENTIFIER "
				      "when there are several events";
		}
		if (!why && (e->id_pos != f->id_pos || e->is_pos != f->is_pos))
			why = "the sample id is not at the same position as in "
			      "event 0 (use IDENTIFIER)";
		if (!why && (e->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL) !=
			    (f->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL))
			why = "sample_id_all differs from event 0";
		if (!why && e->attr.read_format != f->attr.read_format)
			why = "read_format differs from event 0";
		if (why) {
			pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
				    "event %d: %s (perf 6.1 refuses such files)",
				    w->nr_ev, why);
			return -EINVAL;
		}
	}

	if (!ids || !nr_ids) {
		while (id_used(w, w->next_id) || w->next_id == 0)
			w->next_id++;
		e->ids = malloc(sizeof(uint64_t));
		if (!e->ids)
			return -ENOMEM;
		e->ids[0] = w->next_id++;
		e->nr_ids = 1;
	} else {
		for (i = 0; i < nr_ids; i++) {
			int dup = id_used(w, ids[i]);

			for (j = 0; j < i && !dup; j++)
				dup = ids[j] == ids[i];
			if (dup || ids[i] == 0) {
				pr_diag_set(diag, ids[i] ? -EEXIST : -EINVAL,
					    w->dname, PR_NO_OFFSET,
					    "event %d: id %" PRIu64 " %s", w->nr_ev,
					    ids[i], ids[i] ? "is already used" :
					    "is reserved (perf reads id 0 as "
					    "\"synthesised\")");
				return ids[i] ? -EEXIST : -EINVAL;
			}
		}
		e->ids = malloc((size_t)nr_ids * sizeof(uint64_t));
		if (!e->ids)
			return -ENOMEM;
		memcpy(e->ids, ids, (size_t)nr_ids * sizeof(uint64_t));
		e->nr_ids = nr_ids;
		for (i = 0; i < nr_ids; i++)
			if (ids[i] >= w->next_id)
				w->next_id = ids[i] + 1;
	}
	e->name = name && *name ? strdup(name) : default_name(&e->attr);
	if (!e->name) {
		free(e->ids);
		return -ENOMEM;
	}
	return w->nr_ev++;
}

PERFRING_API uint64_t perfring_writer_event_id(const struct perfring_writer *w,
					       uint32_t idx)
{
	if (!w || idx >= (uint32_t)w->nr_ev)
		return 0;
	return w->ev[idx].ids[0];
}

static int idmap_cmp(const void *a, const void *b)
{
	const struct wr_idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int find_event(const struct perfring_writer *w, uint64_t id)
{
	size_t lo = 0, hi = w->nr_idmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->idmap[mid].id == id)
			return (int)w->idmap[mid].ev;
		if (w->idmap[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- host facts for the features -------------------------------------------- */

/* Value of the first "key<spaces>: value" line of a /proc file, or NULL. */
static char *proc_field(const char *file, const char *key)
{
	FILE *f = fopen(file, "re");
	char *line = NULL, *res = NULL;
	size_t cap = 0, kl = strlen(key);

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *p, *e;

		if (strncmp(line, key, kl))
			continue;
		p = line + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = 0;
		res = strdup(p);
		break;
	}
	free(line);
	fclose(f);
	return res;
}

static uint32_t nr_cpus_avail(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/present", "re");
	char buf[256];
	uint32_t max = 0;
	int found = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			char *p = buf;

			/* "0-3,5,7-8": the largest number + 1 */
			while (*p) {
				if (isdigit((unsigned char)*p)) {
					unsigned long v = strtoul(p, &p, 10);

					if (v + 1 > max)
						max = (uint32_t)v + 1;
					found = 1;
				} else {
					p++;
				}
			}
		}
		fclose(f);
	}
	if (!found) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		max = n > 0 ? (uint32_t)n : 1;
	}
	return max;
}

static int read_cmdline(struct perfring_writer *w)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	char buf[4096];
	size_t n = 0, i, start;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	if (n == 0 || buf[n - 1] != 0)
		buf[n++] = 0;
	for (i = 0, start = 0; i < n; i++) {
		char **na;

		if (buf[i])
			continue;
		na = realloc(w->argv, (size_t)(w->argc + 1) * sizeof(char *));
		if (!na)
			return -ENOMEM;
		w->argv = na;
		w->argv[w->argc] = strdup(buf + start);
		if (!w->argv[w->argc])
			return -ENOMEM;
		w->argc++;
		start = i + 1;
	}
	return 0;
}

/*
 * Size of the kernel's text from /proc/iomem: the "Kernel code" resource
 * spans [__pa(_text), __pa(_etext)), so its size is _etext - _text.  Reading
 * it costs microseconds where finding _etext in /proc/kallsyms (near the end
 * of ~100k lines the kernel formats on the fly) costs ~100 ms.  Only root
 * sees real addresses there; 0 if unavailable.
 */
static uint64_t iomem_kernel_code_size(void)
{
	FILE *f = fopen("/proc/iomem", "re");
	char line[256];
	uint64_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (strstr(line, " : Kernel code") &&
		    sscanf(line, " %llx-%llx", &lo, &hi) == 2) {
			if (hi > lo)
				size = hi - lo + 1;
			break;
		}
	}
	fclose(f);
	return size;
}

/*
 * Address of _text and _etext from a kallsyms file; 0 if unreadable/hidden.
 * For the running kernel's /proc/kallsyms, _text is among the first lines
 * and the text size comes from /proc/iomem when it can, so the scan stops
 * early.
 */
static void read_kallsyms(const char *path, uint64_t *text, uint64_t *etext)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t code_size = 0;

	*text = *etext = 0;
	if (!f)
		return;
	if (!strcmp(path, "/proc/kallsyms"))
		code_size = iomem_kernel_code_size();
	while (getline(&line, &cap, f) > 0 && (!*text || !*etext)) {
		char type, name[64];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %63s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text")) {
			*text = addr;
			if (addr && code_size)
				*etext = addr + code_size;
		} else if (!strcmp(name, "_etext")) {
			*etext = addr;
		}
	}
	free(line);
	fclose(f);
}

/* ---- build ids ----------------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Remember a mapped file (and its build id if the record carries one). */
static void dso_note(struct perfring_writer *w, const char *name,
		     uint16_t cpumode, const uint8_t *id, uint8_t id_size)
{
	size_t i;

	if (name[0] != '/' || w->nr_dsos >= WR_MAX_DSOS)
		return;
	if (!w->cap_dsos) {
		w->dsos = calloc(2 * WR_MAX_DSOS, sizeof(*w->dsos));
		if (!w->dsos)
			return;
		w->cap_dsos = 2 * WR_MAX_DSOS;
	}
	for (i = name_hash(name) % w->cap_dsos; w->dsos[i].name;
	     i = (i + 1) % w->cap_dsos)
		if (!strcmp(w->dsos[i].name, name))
			break;
	if (!w->dsos[i].name) {
		w->dsos[i].name = strdup(name);
		if (!w->dsos[i].name)
			return;
		w->dsos[i].cpumode = cpumode;
		w->nr_dsos++;
	}
	if (id_size && !w->dsos[i].id_size) {
		memcpy(w->dsos[i].id, id, id_size);
		w->dsos[i].id_size = id_size;
	}
}

/* MMAP / MMAP2 of a user-space file: note its name (and build-id form). */
static void dso_from_record(struct perfring_writer *w, const unsigned char *p,
			    uint32_t size)
{
	uint32_t type = pr_get32(p);
	uint16_t misc = pr_get16(p + 4);
	size_t off = type == PERFRING_RECORD_MMAP ? 40 : 72, end;
	char name[4096];
	uint8_t id_size = 0;

	if ((misc & PERFRING_MISC_CPUMODE_MASK) == PERFRING_MISC_KERNEL ||
	    (misc & PERFRING_MISC_CPUMODE_MASK) == PERFRING_MISC_GUEST_KERNEL ||
	    size <= off)
		return;
	for (end = off; end < size && p[end]; end++)
		;
	if (end == size || end - off >= sizeof(name))
		return;
	memcpy(name, p + off, end - off + 1);
	if (type == PERFRING_RECORD_MMAP2 && (misc & PERFRING_MISC_MMAP_BUILD_ID)) {
		id_size = p[40];
		if (id_size > 20)
			id_size = 0;
	}
	dso_note(w, name, misc & PERFRING_MISC_CPUMODE_MASK, p + 44, id_size);
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);

	return r == (ssize_t)n ? 0 : -1;
}

/*
 * GNU build id of an ELF file (native byte order, 32 or 64 bit) from its
 * PT_NOTE segments.  Returns its size (1..20) or 0.
 */
static uint8_t elf_build_id(const char *path, uint8_t id[20])
{
	unsigned char eh[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t got = 0;
	uint64_t phoff;
	unsigned phnum, phentsize, i;
	int is64;

	if (fd < 0)
		return 0;
	if (read_at(fd, eh, sizeof(eh), 0) || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2))
		goto out;
	is64 = eh[4] == 2;
	phoff = is64 ? pr_get64(eh + 32) : pr_get32(eh + 28);
	phentsize = pr_get16(eh + (is64 ? 54 : 42));
	phnum = pr_get16(eh + (is64 ? 56 : 44));
	if (phentsize < (is64 ? 56u : 32u) || phnum > 256)
		goto out;
	for (i = 0; i < phnum && !got; i++) {
		unsigned char ph[56], note[4096];
		uint64_t off, sz, pos = 0;

		if (read_at(fd, ph, is64 ? 56 : 32, phoff + (uint64_t)i * phentsize))
			goto out;
		if (pr_get32(ph) != 4)		/* PT_NOTE */
			continue;
		off = is64 ? pr_get64(ph + 8) : pr_get32(ph + 4);
		sz = is64 ? pr_get64(ph + 32) : pr_get32(ph + 16);
		if (sz > sizeof(note))
			sz = sizeof(note);
		if (read_at(fd, note, (size_t)sz, off))
			continue;
		while (pos + 12 <= sz) {
			uint32_t nsz = pr_get32(note + pos), dsz = pr_get32(note + pos + 4);
			uint32_t ntype = pr_get32(note + pos + 8);
			uint64_t name_off = pos + 12;
			uint64_t desc_off = name_off + ((nsz + 3u) & ~3u);

			if (desc_off + dsz > sz)
				break;
			if (ntype == 3 && nsz == 4 && !memcmp(note + name_off, "GNU", 4) &&
			    dsz >= 1 && dsz <= 20) {
				memcpy(id, note + desc_off, dsz);
				got = (uint8_t)dsz;
				break;
			}
			pos = desc_off + ((dsz + 3u) & ~3ull);
		}
	}
out:
	close(fd);
	return got;
}

/*
 * BUILD_ID feature: perf's build-id table, one entry per mapped file whose
 * id is known: header {type 0, misc cpumode | BUILD_ID_SIZE, size}, pid -1
 * (host: another pid makes perf create a guest machine), build_id[20],
 * size u8, 3 reserved bytes, then the name NUL-padded to a multiple of 64.
 */
static int build_id_feature(struct perfring_writer *w, struct pr_buf *b)
{
	static const unsigned char zeros[64];
	size_t i, n = 0;

	if (!w->build_ids || w->pipe)
		return 0;
	for (i = 0; i < w->cap_dsos; i++) {
		struct wr_dso *d = &w->dsos[i];
		unsigned char ent[36];
		size_t len, pad;

		if (!d->name)
			continue;
		if (!d->id_size)
			d->id_size = elf_build_id(d->name, d->id);
		if (!d->id_size)
			continue;
		len = strlen(d->name) + 1;
		pad = (len + 63) & ~(size_t)63;
		if (36 + pad > 0xffff)
			continue;
		memset(ent, 0, sizeof(ent));
		pr_put32(ent, 0);
		pr_put16(ent + 4, (uint16_t)(d->cpumode | PERFRING_MISC_EXT_RESERVED));
		pr_put16(ent + 6, (uint16_t)(36 + pad));
		pr_put32(ent + 8, UINT32_MAX);
		memcpy(ent + 12, d->id, d->id_size);
		ent[32] = d->id_size;
		pr_buf_put(b, ent, sizeof(ent));
		pr_buf_put(b, d->name, len - 1);
		pr_buf_put(b, zeros, pad - (len - 1));
		n++;
	}
	return n > 0;
}

/* ---- features ------------------------------------------------------------- */

static int feat_build(struct perfring_writer *w, int feat, struct pr_buf *b)
{
	uint32_t i, j;
	char *s;

	switch (feat) {
	case FEAT_TRACING_DATA:	/* pipe mode: a record (write_pipe_start) */
		if (w->pipe || !w->tdata.len)
			return 0;
		pr_buf_put(b, w->tdata.p, w->tdata.len);
		return 1;
	case FEAT_COMPRESSED: {
		/* ratio: input over output, rounded; not known yet in pipe mode */
		uint64_t out = w->st.compressed ? w->z_out : 0;

		if (!w->z)
			return 0;
		buf_u32(b, 0);			/* version */
		buf_u32(b, 1);			/* PERF_COMP_ZSTD */
		buf_u32(b, (uint32_t)w->zlevel);
		buf_u32(b, out ? (uint32_t)((w->st.compressed_input + out / 2) / out) : 0);
		buf_u32(b, PR_WZ_CHUNK);	/* most bytes one record holds */
		return 1;
	}
	case FEAT_BUILD_ID:
		return build_id_feature(w, b);
	case FEAT_HOSTNAME:
		buf_str(b, w->hostname);
		return 1;
	case FEAT_OSRELEASE:
		buf_str(b, w->osrelease);
		return 1;
	case FEAT_VERSION:
		buf_str(b, w->version);
		return 1;
	case FEAT_ARCH:
		buf_str(b, w->arch);
		return 1;
	case FEAT_NRCPUS: {
		long onl = sysconf(_SC_NPROCESSORS_ONLN);

		/* available (max present + 1) first, then online: perf's order */
		buf_u32(b, nr_cpus_avail());
		buf_u32(b, onl > 0 ? (uint32_t)onl : 1);
		return 1;
	}
	case FEAT_CPUDESC:
		s = proc_field("/proc/cpuinfo", "model name");
		if (!s)
			return 0;
		buf_str(b, s);
		free(s);
		return 1;
	case FEAT_CPUID: {
		char *ven = proc_field("/proc/cpuinfo", "vendor_id");
		char *fam = proc_field("/proc/cpuinfo", "cpu family");
		char *mod = proc_field("/proc/cpuinfo", "model");
		char *stp = proc_field("/proc/cpuinfo", "stepping");
		char cpuid[128];
		int ok = ven && fam && mod && stp;

		/* x86 format: vendor,family,model,stepping (perf's get_cpuid) */
		if (ok) {
			snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", ven, fam, mod, stp);
			buf_str(b, cpuid);
		}
		free(ven);
		free(fam);
		free(mod);
		free(stp);
		return ok;
	}
	case FEAT_TOTAL_MEM: {
		char *m = proc_field("/proc/meminfo", "MemTotal");
		uint64_t kb;

		if (!m)
			return 0;
		kb = strtoull(m, NULL, 10);	/* "16384 kB": perf writes kB */
		free(m);
		if (!kb)
			return 0;
		buf_u64(b, kb);
		return 1;
	}
	case FEAT_CMDLINE:
		buf_u32(b, (uint32_t)w->argc);
		for (i = 0; i < (uint32_t)w->argc; i++)
			buf_str(b, w->argv[i]);
		return 1;
	case FEAT_EVENT_DESC:
		buf_u32(b, (uint32_t)w->nr_ev);
		buf_u32(b, w->attr_size);
		for (i = 0; i < (uint32_t)w->nr_ev; i++) {
			const struct wr_event *e = &w->ev[i];

			pr_buf_put(b, &e->attr, w->attr_size);
			buf_u32(b, e->nr_ids);
			buf_str(b, e->name);
			for (j = 0; j < e->nr_ids; j++)
				buf_u64(b, e->ids[j]);
		}
		return 1;
	case FEAT_SAMPLE_TIME:
		if (w->pipe || !w->have_sample_time)
			return 0;
		buf_u64(b, w->first_sample);
		buf_u64(b, w->last_sample);
		return 1;
	case FEAT_CLOCKID:
		if (!w->have_clock)
			return 0;
		buf_u64(b, (uint64_t)w->clk_res.tv_sec * 1000000000ull +
			   (uint64_t)w->clk_res.tv_nsec);
		return 1;
	case FEAT_CLOCK_DATA:
		if (!w->have_clock)
			return 0;
		buf_u32(b, 1);	/* version */
		buf_u32(b, (uint32_t)w->ev[0].attr.clockid);
		buf_u64(b, (uint64_t)w->clk_tod.tv_sec * 1000000000ull +
			   (uint64_t)w->clk_tod.tv_nsec);
		buf_u64(b, (uint64_t)w->clk_ref.tv_sec * 1000000000ull +
			   (uint64_t)w->clk_ref.tv_nsec);
		return 1;
	}
	return 0;
}

static const int feat_list[] = {
	FEAT_TRACING_DATA, FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS,
	FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE, FEAT_EVENT_DESC,
	FEAT_SAMPLE_TIME, FEAT_CLOCKID, FEAT_COMPRESSED, FEAT_CLOCK_DATA,
};
#define NR_FEATS (int)(sizeof(feat_list) / sizeof(feat_list[0]))

/* ---- start: header, attrs, ids, kernel map --------------------------------- */

static int write_kernel_mmap(struct perfring_writer *w)
{
	unsigned char rec[128];
	size_t name_len = PR_ALIGN8(sizeof(WR_KERNEL_MMAP_NAME));
	size_t tsz = 0, size;
	struct perfring_event_header h;

	if (w->ev[0].attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL)
		tsz = trailer_size(w->ev[0].attr.sample_type);
	size = 40 + name_len + tsz;
	memset(rec, 0, sizeof(rec));
	h.type = PERFRING_RECORD_MMAP;
	h.misc = PERFRING_MISC_KERNEL;
	h.size = (uint16_t)size;
	memcpy(rec, &h, 8);
	pr_put32(rec + 8, UINT32_MAX);		/* pid -1: host kernel */
	pr_put32(rec + 12, 0);
	pr_put64(rec + 16, w->kstart);
	pr_put64(rec + 24, w->klen);
	pr_put64(rec + 32, w->kstart);		/* pgoff = reference symbol addr */
	memcpy(rec + 40, WR_KERNEL_MMAP_NAME, sizeof(WR_KERNEL_MMAP_NAME));
	/* zero trailer: id 0 means "synthesised", perf maps it to event 0 */
	w->st.kernel_mmap = 1;
	return wr_data(w, rec, size);
}

static void put_attr(unsigned char *dst, const struct perfring_attr *a,
		     uint32_t size)
{
	struct perfring_attr c = *a;

	c.size = size;
	memcpy(dst, &c, size);
}

static int write_pipe_start(struct perfring_writer *w)
{
	unsigned char hdr[16];
	struct pr_buf b = { 0 };
	int i, r = 0;

	pr_put64(hdr, WR_MAGIC);
	pr_put64(hdr + 8, WR_PIPE_HEADER_SIZE);
	r = wr_out(w, hdr, sizeof(hdr));
	for (i = 0; i < w->nr_ev && !r; i++) {
		const struct wr_event *e = &w->ev[i];
		size_t size = 8 + WR_PIPE_ATTR_SIZE + 8u * e->nr_ids;
		unsigned char ah[8 + WR_PIPE_ATTR_SIZE];
		struct perfring_event_header h = {
			PERFRING_RECORD_HEADER_ATTR, 0, (uint16_t)size
		};

		if (size > 0xffff)
			return wr_fail(w, -E2BIG, "event %d has %" PRIu32 " ids: too "
				       "many for a pipe-mode HEADER_ATTR record",
				       i, e->nr_ids);
		memcpy(ah, &h, 8);
		put_attr(ah + 8, &e->attr, WR_PIPE_ATTR_SIZE);
		r = wr_out(w, ah, sizeof(ah));
		if (!r)
			r = wr_out(w, e->ids, 8u * e->nr_ids);
	}
	for (i = 0; i < NR_FEATS && !r; i++) {
		struct perfring_event_header h = { PERFRING_RECORD_HEADER_FEATURE, 0, 0 };
		uint64_t id = (uint64_t)feat_list[i];

		b.len = 0;
		if (!feat_build(w, feat_list[i], &b))
			continue;
		if (b.oom) {
			free(b.p);
			return wr_fail(w, -ENOMEM, "out of memory");
		}
		if (16 + b.len > 0xffff) {
			pr_log(PERFRING_LOG_WARN, "%s: feature %d left out: %zu bytes "
			       "is too large for a pipe-mode record", w->dname,
			       feat_list[i], b.len);
			continue;
		}
		h.size = (uint16_t)(16 + b.len);
		r = wr_out(w, &h, 8);
		if (!r)
			r = wr_out(w, &id, 8);
		if (!r)
			r = wr_out(w, b.p, b.len);
	}
	free(b.p);
	if (!r) {
		/* end marker, as perf record writes it */
		struct perfring_event_header h = { PERFRING_RECORD_HEADER_FEATURE, 0, 16 };
		uint64_t id = FEAT_LAST;

		r = wr_out(w, &h, 8);
		if (!r)
			r = wr_out(w, &id, 8);
	}
	if (!r && w->tdata.len) {
		/*
		 * As perf record: a 12-byte record giving the payload's size
		 * padded to 8, the payload, the padding.
		 */
		static const unsigned char zeros[8];
		unsigned char th[12];
		size_t al = PR_ALIGN8(w->tdata.len);
		struct perfring_event_header h = {
			PERFRING_RECORD_HEADER_TRACING_DATA, 0, sizeof(th)
		};

		memcpy(th, &h, 8);
		pr_put32(th + 8, (uint32_t)al);
		r = wr_out(w, th, sizeof(th));
		if (!r)
			r = wr_out(w, w->tdata.p, w->tdata.len);
		if (!r)
			r = wr_out(w, zeros, al - w->tdata.len);
		w->st.tracing_data = 1;
	}
	w->data_offset = 0;
	return r;
}

static int write_file_start(struct perfring_writer *w)
{
	unsigned char zero[WR_FILE_HEADER_SIZE] = { 0 };
	uint64_t ids_off = WR_FILE_HEADER_SIZE;
	int i, r;

	r = wr_out(w, zero, sizeof(zero));	/* patched at close */
	for (i = 0; i < w->nr_ev && !r; i++)
		r = wr_out(w, w->ev[i].ids, 8u * w->ev[i].nr_ids);
	for (i = 0; i < w->nr_ev && !r; i++) {
		unsigned char ent[WR_MAX_ATTR_SIZE + 16];

		put_attr(ent, &w->ev[i].attr, w->attr_size);
		pr_put64(ent + w->attr_size, ids_off);
		pr_put64(ent + w->attr_size + 8, 8u * w->ev[i].nr_ids);
		ids_off += 8u * w->ev[i].nr_ids;
		r = wr_out(w, ent, w->attr_size + 16);
	}
	w->data_offset = wr_pos(w);
	return r;
}

/*
 * The tracefs name ("sys", "event") of tracepoint event e into sys/ev: its
 * name when that is "sys:event[:...]" with the event's id, else the
 * tracepoint of tracefs that has its id (*all: every tracepoint, listed
 * once when first needed).  0 or -ENOENT.
 */
static int tracepoint_of(const char *root, const struct wr_event *e,
			 struct perfring_tracepoint **all, int *nall,
			 char *sys, char *ev, size_t len)
{
	struct perfring_tracepoint *one = NULL;
	const char *c = strchr(e->name, ':'), *found = NULL;
	char pat[2 * PERFRING_TRACEPOINT_NAME_MAX];
	int i, n;

	if (c && c != e->name && !strpbrk(e->name, "*?[")) {
		snprintf(pat, sizeof(pat), "%s", e->name);
		c = strchr(pat, ':');
		if (strchr(c + 1, ':'))
			*strchr(c + 1, ':') = 0;	/* modifiers */
		n = perfring_tracepoints_find(root, pat, &one, NULL);
		if (n == 1 && one[0].id == e->attr.config)
			found = one[0].name;
	}
	if (!found) {
		if (!*all && *nall == 0)
			*nall = perfring_tracepoints_find(root, "*:*", all, NULL);
		for (i = 0; i < *nall && !found; i++)
			if ((*all)[i].id == e->attr.config)
				found = (*all)[i].name;
	}
	if (found) {
		size_t sl = strcspn(found, ":");

		snprintf(sys, len, "%.*s", (int)sl, found);
		snprintf(ev, len, "%s", found + sl + 1);
	}
	free(one);
	return found ? 0 : -ENOENT;
}

/* HEADER_TRACING_DATA of the tracepoint events, from tracefs. */
static void build_tracing_data(struct perfring_writer *w)
{
	struct perfring_tracepoint *all = NULL;
	struct perfring_diag d;
	struct pr_tp_ref *tps;
	char root[4096], err[600], (*names)[2][PERFRING_TRACEPOINT_NAME_MAX];
	size_t n = 0;
	int i, nall = 0;

	if (w->tdata_given)
		return;
	for (i = 0; i < w->nr_ev; i++)
		n += w->ev[i].attr.type == PERFRING_TYPE_TRACEPOINT;
	if (!n)
		return;
	if (perfring_tracefs_dir(w->tracefs, root, sizeof(root), &d) < 0) {
		char m[1024];

		pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out (perf "
		       "script and perf report will not show the tracepoint "
		       "fields): %s", w->dname, perfring_diag_format(&d, m, sizeof(m)));
		return;
	}
	tps = calloc(n, sizeof(*tps));
	names = calloc(n, sizeof(*names));
	if (!tps || !names) {
		free(tps);
		free(names);
		pr_log(PERFRING_LOG_WARN, "%s: out of memory for the tracing data",
		       w->dname);
		return;
	}
	n = 0;
	for (i = 0; i < w->nr_ev; i++) {
		const struct wr_event *e = &w->ev[i];

		if (e->attr.type != PERFRING_TYPE_TRACEPOINT)
			continue;
		if (tracepoint_of(root, e, &all, &nall, names[n][0], names[n][1],
				  PERFRING_TRACEPOINT_NAME_MAX) < 0) {
			pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out: "
			       "event %d (%s): no tracepoint with id %" PRIu64 " in "
			       "%s/events", w->dname, i, e->name, e->attr.config, root);
			goto out;
		}
		tps[n].sys = names[n][0];
		tps[n].name = names[n][1];
		n++;
	}
	if (pr_tracing_data(root, tps, n, &w->tdata, err, sizeof(err)) < 0) {
		pr_log(PERFRING_LOG_WARN, "%s: HEADER_TRACING_DATA left out: %s",
		       w->dname, err);
		free(w->tdata.p);
		memset(&w->tdata, 0, sizeof(w->tdata));
	}
out:
	free(all);
	free(tps);
	free(names);
}

static int wr_start(struct perfring_writer *w)
{
	int i, need_kernel = 0, r;
	size_t k;

	if (w->started)
		return w->err;
	if (w->err)
		return w->err;
	if (!w->nr_ev)
		return wr_fail(w, -EINVAL, "no event was added before the first "
			       "record (perfring_writer_add_event)");

	for (i = 0; i < w->nr_ev; i++)
		if (!(w->ev[i].attr.flags & PERFRING_ATTR_EXCLUDE_KERNEL))
			need_kernel = 1;
	if (need_kernel && w->kmap == PERFRING_WRITER_KMAP_AUTO) {
		uint64_t text, etext;

		read_kallsyms(w->kallsyms, &text, &etext);
		if (text) {
			w->kstart = text;
			w->klen = etext > text ? etext - text : UINT64_MAX - text;
		}
	}
	if (need_kernel && !w->klen && w->kmap != PERFRING_WRITER_KMAP_NONE) {
		for (i = 0; i < w->nr_ev; i++)
			w->ev[i].attr.flags |= PERFRING_ATTR_EXCLUDE_KERNEL;
		w->st.exclude_kernel_set = 1;
		if (w->kmap == PERFRING_WRITER_KMAP_AUTO)
			pr_log(PERFRING_LOG_WARN, "%s: %s gives no address for _text: "
			       "exclude_kernel set in the written events so that perf "
			       "report does not warn about kernel maps", w->dname,
			       w->kallsyms);
	}

	w->attr_size = PERFRING_ATTR_SIZE_VER0;
	for (i = 0; i < w->nr_ev; i++) {
		uint32_t s = attr_needed_size(&w->ev[i].attr);

		if (s > w->attr_size)
			w->attr_size = s;
	}
	if (w->pipe)
		w->attr_size = WR_PIPE_ATTR_SIZE;
	for (i = 0; i < w->nr_ev; i++)
		w->ev[i].attr.size = w->attr_size;

	w->nr_idmap = 0;
	for (i = 0; i < w->nr_ev; i++)
		w->nr_idmap += w->ev[i].nr_ids;
	w->idmap = calloc(w->nr_idmap ? w->nr_idmap : 1, sizeof(*w->idmap));
	if (!w->idmap)
		return wr_fail(w, -ENOMEM, "out of memory");
	for (i = 0, k = 0; i < w->nr_ev; i++) {
		uint32_t j;

		for (j = 0; j < w->ev[i].nr_ids; j++, k++) {
			w->idmap[k].id = w->ev[i].ids[j];
			w->idmap[k].ev = (uint32_t)i;
		}
	}
	qsort(w->idmap, w->nr_idmap, sizeof(*w->idmap), idmap_cmp);

	if (w->ev[0].attr.flags & PERFRING_ATTR_USE_CLOCKID) {
		clockid_t c = w->ev[0].attr.clockid;

		w->have_clock = !clock_getres(c, &w->clk_res) &&
				!clock_gettime(CLOCK_REALTIME, &w->clk_tod) &&
				!clock_gettime(c, &w->clk_ref);
	}

	build_tracing_data(w);
	if (!w->pipe)
		w->st.tracing_data = w->tdata.len > 0;

	w->started = 1;
	r = w->pipe ? write_pipe_start(w) : write_file_start(w);
	if (!r && w->klen)
		r = write_kernel_mmap(w);
	return r;
}

/* ---- rounds, emission, merge ---------------------------------------------- */

static int write_round(struct perfring_writer *w)
{
	struct perfring_event_header h = { PERFRING_RECORD_FINISHED_ROUND, 0, 8 };

	int r = wr_zflush(w);	/* perf record writes rounds uncompressed */

	if (r < 0)
		return r;
	w->t_limit = w->t_last_round;
	w->t_last_round = w->max_time;
	w->since_round = 0;
	w->st.rounds++;
	w->st.data_bytes += 8;
	return wr_out(w, &h, 8);
}

static int emit(struct perfring_writer *w, const void *rec, uint32_t size,
		uint64_t t, int is_sample)
{
	int r;

	if (t) {
		if (t < w->t_limit)
			w->st.late++;
		if (t > w->max_time)
			w->max_time = t;
		if (is_sample) {
			if (!w->have_sample_time || t < w->first_sample)
				w->first_sample = t;
			if (!w->have_sample_time || t > w->last_sample)
				w->last_sample = t;
			w->have_sample_time = 1;
		}
	}
	r = wr_data(w, rec, size);
	if (r < 0)
		return r;
	w->st.records++;
	w->since_round += size;
	if (w->since_round >= w->round_bytes &&
	    (!w->forcing || w->since_round >= w->window))
		return write_round(w);
	return 0;
}

static size_t entry_space(uint32_t size)
{
	return sizeof(struct wr_entry) + PR_ALIGN8((size_t)size);
}

static const struct wr_entry *src_head(const struct wr_source *q)
{
	return (const struct wr_entry *)(q->head->data + q->head->rd);
}

/* Heap order: head key, then source index (deterministic ties). */
static int heap_less(const struct perfring_writer *w, int a, int b)
{
	uint64_t ka = src_head(&w->src[a])->key, kb = src_head(&w->src[b])->key;

	return ka < kb || (ka == kb && a < b);
}

static void heap_down(struct perfring_writer *w, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < w->nh && heap_less(w, w->heap[l], w->heap[m]))
			m = l;
		if (l + 1 < w->nh && heap_less(w, w->heap[l + 1], w->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = w->heap[i];
		w->heap[i] = w->heap[m];
		w->heap[m] = t;
		i = m;
	}
}

static void heap_push(struct perfring_writer *w, int s)
{
	int i = w->nh++;

	w->heap[i] = s;
	while (i > 0) {
		int p = (i - 1) / 2, t;

		if (!heap_less(w, w->heap[i], w->heap[p]))
			break;
		t = w->heap[i];
		w->heap[i] = w->heap[p];
		w->heap[p] = t;
		i = p;
	}
}

static int src_push(struct perfring_writer *w, int s, const void *rec,
		    uint32_t size, uint64_t key, uint64_t t, int is_sample)
{
	struct wr_source *q = &w->src[s];
	size_t need = entry_space(size);
	struct wr_chunk *c = q->tail;
	struct wr_entry e = { key, t, size, (uint32_t)is_sample };

	if (!c || c->cap - c->wr < need) {
		size_t cap = need > WR_CHUNK_SIZE ? need : WR_CHUNK_SIZE;

		if (cap == WR_CHUNK_SIZE && w->spare) {
			c = w->spare;
			w->spare = c->next;
			w->nr_spare--;
		} else {
			c = malloc(sizeof(*c) + cap);
			if (!c)
				return wr_fail(w, -ENOMEM,
					       "out of memory queueing a record");
		}
		c->next = NULL;
		c->cap = cap;
		c->rd = c->wr = 0;
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
	}
	memcpy(c->data + c->wr, &e, sizeof(e));
	memcpy(c->data + c->wr + sizeof(e), rec, size);
	c->wr += need;
	if (!q->nr && !q->ended)
		w->n_waiting--;
	q->nr++;
	w->queued += need;
	w->queued_nr++;
	if (q->nr == 1)
		heap_push(w, s);
	return 0;
}

/* Write the oldest queued record (the head of the heap's top source). */
static int heap_pop_emit(struct perfring_writer *w)
{
	int s = w->heap[0];
	struct wr_source *q = &w->src[s];
	struct wr_chunk *c = q->head;
	struct wr_entry e;
	size_t need;
	int r;

	memcpy(&e, c->data + c->rd, sizeof(e));
	need = entry_space(e.size);
	q->nr--;
	w->queued -= need;
	w->queued_nr--;
	if (!q->nr && !q->ended)
		w->n_waiting++;
	r = emit(w, c->data + c->rd + sizeof(e), e.size, e.time, (int)e.is_sample);
	c->rd += need;
	if (c->rd == c->wr) {
		q->head = c->next;
		if (!q->head)
			q->tail = NULL;
		/* keep drained chunks (at most a window's worth) for reuse */
		if (c->cap == WR_CHUNK_SIZE && w->nr_spare < w->max_spare) {
			c->next = w->spare;
			w->spare = c;
			w->nr_spare++;
		} else {
			free(c);
		}
	}
	if (!q->nr)
		w->heap[0] = w->heap[--w->nh];
	if (w->nh)
		heap_down(w, 0);
	return r;
}

/* Write queued records in merge order while that is safe (or all if final). */
static int drain(struct perfring_writer *w, int final)
{
	int forcing = 0;

	w->forcing = 0;
	while (w->queued_nr && !w->err) {
		if (!final && w->n_waiting) {
			if (!forcing) {
				if (w->queued <= w->window)
					break;
				forcing = 1;
				w->forcing = 1;
				w->st.forced_flushes++;
			} else if (w->queued <= w->window / 2) {
				break;
			}
		}
		if (heap_pop_emit(w) < 0)
			break;
	}
	w->forcing = 0;
	return w->err;
}

/* ---- records ------------------------------------------------------------- */

static int is_unknown_type(uint32_t t)
{
	return t == PERFRING_RECORD_PAD ||
	       (t >= PERFRING_RECORD_KERNEL_MAX && t < PERFRING_RECORD_HEADER_ATTR) ||
	       t >= PERFRING_RECORD_HEADER_MAX;
}

static int is_managed_type(uint32_t t)
{
	switch (t) {
	case PERFRING_RECORD_HEADER_ATTR:
	case PERFRING_RECORD_HEADER_EVENT_TYPE:
	case PERFRING_RECORD_HEADER_TRACING_DATA:
	case PERFRING_RECORD_FINISHED_ROUND:
	case PERFRING_RECORD_AUXTRACE:
	case PERFRING_RECORD_HEADER_FEATURE:
	case PERFRING_RECORD_COMPRESSED:
		return 1;
	}
	return 0;
}

static int count_drop(struct perfring_writer *w, uint32_t type)
{
	size_t i;
	struct wr_drop *nd;

	w->st.dropped_unknown++;
	for (i = 0; i < w->nr_drops; i++) {
		if (w->drops[i].type == type) {
			w->drops[i].count++;
			return 0;
		}
		if (w->drops[i].type > type)
			break;
	}
	nd = realloc(w->drops, (w->nr_drops + 1) * sizeof(*nd));
	if (!nd)
		return 0;	/* the total is still counted */
	w->drops = nd;
	memmove(&nd[i + 1], &nd[i], (w->nr_drops - i) * sizeof(*nd));
	nd[i].type = type;
	nd[i].count = 1;
	w->nr_drops++;
	w->st.unknown_types = (uint32_t)w->nr_drops;
	return 0;
}

/*
 * Find the event of a record and its time (0: none), as perf does:
 * SAMPLE id at id_pos, other kernel records' id at is_pos from the end.
 */
static int record_event_time(struct perfring_writer *w, const unsigned char *p,
			     uint32_t size, uint64_t *time,
			     struct perfring_diag *diag)
{
	uint32_t type = pr_get32(p);
	const struct wr_event *e0 = &w->ev[0], *e;
	int ev = 0;
	uint64_t t = 0;

	*time = 0;
	if (type >= PERFRING_RECORD_HEADER_ATTR || is_unknown_type(type))
		return 0;
	if (type == PERFRING_RECORD_SAMPLE) {
		if (w->nr_ev > 1) {
			uint64_t id = 0;

			if (perfring_record_id(&e0->attr, p, size, &id) < 0)
				goto short_rec;
			ev = id ? find_event(w, id) : 0;
			if (ev < 0)
				goto bad_id;
		}
		e = &w->ev[ev];
		if (e->attr.sample_type & PERFRING_SAMPLE_TIME) {
			uint64_t st = e->attr.sample_type;
			size_t off = 8 + 8u * (!!(st & PERFRING_SAMPLE_IDENTIFIER) +
					       !!(st & PERFRING_SAMPLE_IP) +
					       !!(st & PERFRING_SAMPLE_TID));

			if (off + 8 > size)
				goto short_rec;
			t = rd64(p + off);
		}
	} else if (e0->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL) {
		uint64_t st;
		size_t ts;

		if (w->nr_ev > 1) {
			uint64_t id = 0;

			if (perfring_record_id(&e0->attr, p, size, &id) < 0)
				goto short_rec;
			ev = id ? find_event(w, id) : 0;
			if (ev < 0)
				goto bad_id;
		}
		e = &w->ev[ev];
		st = e->attr.sample_type;
		ts = trailer_size(st);
		if (size < 8 + ts)
			goto short_rec;
		if (st & PERFRING_SAMPLE_TIME)
			t = rd64(p + size - ts + 8u * !!(st & PERFRING_SAMPLE_TID));
	}
	if (t == UINT64_MAX)
		t = 0;
	*time = t;
	return 0;

short_rec:
	pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
		    "record of type %" PRIu32 " and %" PRIu32 " bytes is too "
		    "short for its sample_type", type, size);
	return -EINVAL;
bad_id:
	pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
		    "record of type %" PRIu32 ": its sample id matches no event "
		    "(perf would abort)", type);
	return -EINVAL;
}

PERFRING_API int perfring_writer_write(struct perfring_writer *w, uint32_t source,
				       const void *rec, size_t len,
				       struct perfring_diag *diag)
{
	const unsigned char *p = rec;
	struct wr_source *q;
	uint32_t type, size;
	uint64_t t = 0, key;
	int r;

	if (!w || !rec)
		return -EINVAL;
	if (w->err) {
		wr_copy_err(w, diag);
		return w->err;
	}
	if (source >= (uint32_t)w->nr_src || w->src[source].ended) {
		pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
			    source >= (uint32_t)w->nr_src ? "no source %" PRIu32 :
			    "source %" PRIu32 " was ended", source);
		return -EINVAL;
	}
	if (len < 8 || pr_get16(p + 6) < 8 || pr_get16(p + 6) > len) {
		pr_diag_set(diag, -EINVAL, w->dname, PR_NO_OFFSET,
			    "record size %u does not fit the %zu bytes given",
			    len >= 8 ? pr_get16(p + 6) : 0, len);
		return -EINVAL;
	}
	if (!w->started) {
		r = wr_start(w);
		if (r < 0) {
			wr_copy_err(w, diag);
			return r;
		}
	}
	type = pr_get32(p);
	size = pr_get16(p + 6);
	if (is_unknown_type(type) && !w->keep_unknown)
		return count_drop(w, type);
	if (is_managed_type(type)) {
		w->st.dropped_managed++;
		return 0;
	}
	r = record_event_time(w, p, size, &t, diag);
	if (r < 0)
		return r;
	if (w->build_ids && (type == PERFRING_RECORD_MMAP ||
			     type == PERFRING_RECORD_MMAP2))
		dso_from_record(w, p, size);

	q = &w->src[source];
	key = t > q->last_key ? t : q->last_key;
	q->last_key = key;
	if (!w->queued_nr && w->n_open - !q->ended == 0) {
		/*
		 * Nothing queued, and no other source can still produce
		 * anything, so nothing older can come: write straight through.
		 */
		r = emit(w, p, size, t, type == PERFRING_RECORD_SAMPLE);
		if (r < 0)
			wr_copy_err(w, diag);
		return r;
	}
	r = src_push(w, source, p, size, key, t, type == PERFRING_RECORD_SAMPLE);
	if (!r)
		r = drain(w, 0);
	if (r < 0)
		wr_copy_err(w, diag);
	return r;
}

PERFRING_API int perfring_writer_add_source(struct perfring_writer *w)
{
	struct wr_source *ns;
	int *nh;

	if (!w)
		return -EINVAL;
	if (!w->src0_claimed) {
		w->src0_claimed = 1;
		return 0;
	}
	ns = realloc(w->src, (size_t)(w->nr_src + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	w->src = ns;
	memset(&ns[w->nr_src], 0, sizeof(*ns));
	nh = realloc(w->heap, (size_t)(w->nr_src + 1) * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	w->heap = nh;
	w->n_waiting++;
	w->n_open++;
	return w->nr_src++;
}

PERFRING_API int perfring_writer_end_source(struct perfring_writer *w,
					    uint32_t source,
					    struct perfring_diag *diag)
{
	struct wr_source *q;
	int r;

	if (!w || source >= (uint32_t)w->nr_src) {
		pr_diag_set(diag, -EINVAL, w ? w->dname : NULL, PR_NO_OFFSET,
			    "no source %" PRIu32, source);
		return -EINVAL;
	}
	q = &w->src[source];
	if (q->ended)
		return w->err;
	if (!q->nr)
		w->n_waiting--;
	q->ended = 1;
	w->n_open--;
	if (w->err) {
		wr_copy_err(w, diag);
		return w->err;
	}
	r = drain(w, 0);
	if (r < 0)
		wr_copy_err(w, diag);
	return r;
}

/* ---- open / close ----------------------------------------------------------- */

static void wr_free(struct perfring_writer *w)
{
	size_t k;
	int i;

	if (!w)
		return;
	wr_bg_stop(w);
	for (i = 0; i < w->nr_src; i++) {
		struct wr_chunk *c = w->src[i].head;

		while (c) {
			struct wr_chunk *n = c->next;

			free(c);
			c = n;
		}
	}
	while (w->spare) {
		struct wr_chunk *n = w->spare->next;

		free(w->spare);
		w->spare = n;
	}
	for (i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].ids);
		free(w->ev[i].name);
	}
	for (i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->ev);
	free(w->idmap);
	for (k = 0; k < w->cap_dsos; k++)
		free(w->dsos[k].name);
	free(w->dsos);
	free(w->src);
	free(w->heap);
	free(w->drops);
	free(w->obuf);
	free(w->path);
	free(w->tmp);
	free(w->dname);
	free(w->hostname);
	free(w->osrelease);
	free(w->arch);
	free(w->version);
	free(w->kallsyms);
	pr_wz_free(w->z);
	free(w->zin);
	free(w->zrec);
	free(w->tdata.p);
	free(w->tracefs);
	free(w);
}

PERFRING_API void perfring_writer_abort(struct perfring_writer *w)
{
	if (!w)
		return;
	wr_bg_stop(w);	/* before the fd is closed under it */
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	wr_free(w);
}

PERFRING_API int perfring_writer_open(const struct perfring_writer_opts *opts,
				      struct perfring_diag *diag,
				      struct perfring_writer **out)
{
	struct perfring_writer_opts o;
	struct perfring_writer *w;
	struct utsname u;
	struct stat sb;
	char dn[64];
	int i, r;

	if (!out) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no place for the writer (out is NULL)");
		return -EINVAL;
	}
	*out = NULL;
	r = perfring_opts_load(&o, sizeof(o), opts, sizeof(size_t), "perfring_writer_opts",
			       opts && opts->sz >= offsetof(struct perfring_writer_opts, path) +
			       sizeof(opts->path) ? opts->path : NULL, diag);
	if (r)
		return r;
	if (!o.path && o.fd <= 0) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "no output: set path or a valid fd");
		return -EINVAL;
	}
	if ((unsigned)o.kmap > PERFRING_WRITER_KMAP_NONE || o.argc < 0 ||
	    (o.argc > 0 && !o.argv) || (o.tracing_data_size && !o.tracing_data)) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "bad option value");
		return -EINVAL;
	}
	if (o.compression_level) {
		int max = pr_wz_max_level();

		if (!max) {
			pr_diag_set(diag, -ENOTSUP, NULL, PR_NO_OFFSET,
				    "compression needs zstd, and libperfring was "
				    "built without it (configure --with-zstd)");
			return -ENOTSUP;
		}
		if (o.compression_level < 1 || o.compression_level > max) {
			pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
				    "compression level %d is not in 1..%d",
				    o.compression_level, max);
			return -EINVAL;
		}
	}

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->keep_unknown = !!o.keep_unknown;
	w->build_ids = !!o.build_ids;
	w->kmap = o.kmap;
	w->window = o.window_bytes ? o.window_bytes : WR_DEFAULT_WINDOW;
	if (w->window < WR_MIN_WINDOW)
		w->window = WR_MIN_WINDOW;
	w->round_bytes = o.round_bytes ? o.round_bytes : WR_DEFAULT_ROUND;
	w->max_spare = w->window / WR_CHUNK_SIZE / 2 + 1;
	w->next_id = 1;
	w->nr_src = 1;
	w->src = calloc(1, sizeof(*w->src));
	w->heap = calloc(1, sizeof(*w->heap));
	w->obuf = malloc(WR_OBUF_SIZE);
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	w->hostname = strdup(o.hostname ? o.hostname : u.nodename);
	w->osrelease = strdup(o.osrelease ? o.osrelease : u.release);
	w->arch = strdup(o.arch ? o.arch : u.machine);
	w->version = o.version ? strdup(o.version) :
		     strdup("libperfring " PERFRING_VERSION_STRING);
	w->kallsyms = strdup(o.kallsyms_path ? o.kallsyms_path : "/proc/kallsyms");
	if (o.tracefs_path && !(w->tracefs = strdup(o.tracefs_path))) {
		wr_free(w);
		return -ENOMEM;
	}
	if (o.tracing_data_size) {
		pr_buf_put(&w->tdata, o.tracing_data, o.tracing_data_size);
		w->tdata_given = 1;
		if (w->tdata.oom) {
			wr_free(w);
			return -ENOMEM;
		}
	}
	if (o.compression_level) {
		w->zlevel = o.compression_level;
		w->zin = malloc(PR_WZ_CHUNK);
		w->zrec = malloc(PR_WZ_REC_MAX);
		if (!w->zin || !w->zrec || pr_wz_new(w->zlevel, &w->z) < 0) {
			wr_free(w);
			return -ENOMEM;
		}
	}
	if (!w->src || !w->heap || !w->obuf || !w->hostname || !w->osrelease || !w->arch ||
	    !w->version || !w->kallsyms) {
		wr_free(w);
		return -ENOMEM;
	}
	w->n_waiting = 1;	/* source 0, empty and not ended */
	w->n_open = 1;
	if (o.argc > 0) {
		w->argv = calloc((size_t)o.argc, sizeof(char *));
		if (!w->argv) {
			wr_free(w);
			return -ENOMEM;
		}
		for (i = 0; i < o.argc; i++) {
			w->argv[i] = strdup(o.argv[i] ? o.argv[i] : "");
			if (!w->argv[i]) {
				wr_free(w);
				return -ENOMEM;
			}
			w->argc = i + 1;
		}
	} else if (read_cmdline(w) < 0) {
		wr_free(w);
		return -ENOMEM;
	}

	if (o.path && !strcmp(o.path, "-")) {
		w->fd = STDOUT_FILENO;
		w->pipe = 1;
		w->dname = strdup("-");
	} else if (o.path) {
		w->dname = strdup(o.path);
		if (!w->dname) {
			wr_free(w);
			return -ENOMEM;
		}
		if (stat(o.path, &sb) == 0 &&
		    (!S_ISREG(sb.st_mode) || !strncmp(o.path, "/dev/", 5) ||
		     !strncmp(o.path, "/proc/", 6))) {
			/*
			 * A FIFO, a terminal, /dev/stdout...: write into it
			 * directly (a temporary file there and a rename would
			 * replace the device node or the symlink).
			 */
			if (S_ISDIR(sb.st_mode)) {
				pr_diag_set(diag, -EISDIR, o.path, PR_NO_OFFSET,
					    "is a directory");
				wr_free(w);
				return -EISDIR;
			}
			w->fd = open(o.path, O_WRONLY | O_CLOEXEC |
				     (S_ISREG(sb.st_mode) ? O_TRUNC : 0));
			if (w->fd < 0) {
				r = -errno;
				pr_diag_set(diag, r, o.path, PR_NO_OFFSET,
					    "cannot open: %s", strerror(-r));
				wr_free(w);
				return r;
			}
			w->own_fd = 1;
			if (fstat(w->fd, &sb) < 0)
				memset(&sb, 0, sizeof(sb));
			w->pipe = o.pipe_mode || !S_ISREG(sb.st_mode) ||
				  lseek(w->fd, 0, SEEK_CUR) < 0;
			w->file_on_fd = !w->pipe;
		} else {
			size_t n = strlen(o.path) + sizeof(".tmp.XXXXXX");

			w->path = strdup(o.path);
			w->tmp = malloc(n);
			if (!w->path || !w->tmp) {
				wr_free(w);
				return -ENOMEM;
			}
			snprintf(w->tmp, n, "%s.tmp.XXXXXX", o.path);
			w->fd = mkostemp(w->tmp, O_CLOEXEC);
			if (w->fd < 0) {
				r = -errno;
				pr_diag_set(diag, r, o.path, PR_NO_OFFSET,
					    "cannot create the temporary file %s: %s",
					    w->tmp, strerror(-r));
				free(w->tmp);
				w->tmp = NULL;
				wr_free(w);
				return r;
			}
			w->own_fd = 1;
			w->pipe = !!o.pipe_mode;
		}
	} else {
		snprintf(dn, sizeof(dn), "<fd %d>", o.fd);
		w->dname = strdup(dn);
		/* Borrows fd: the writer works on its own duplicate (perfring.h). */
		w->fd = fcntl(o.fd, F_DUPFD_CLOEXEC, 0);
		w->own_fd = w->fd >= 0;
		if (w->fd < 0 || fstat(o.fd, &sb) < 0) {
			r = -errno;
			pr_diag_set(diag, r, dn, PR_NO_OFFSET, "bad fd: %s",
				    strerror(-r));
			wr_free(w);
			return r;
		}
		w->pipe = o.pipe_mode || !S_ISREG(sb.st_mode) ||
			  lseek(o.fd, 0, SEEK_CUR) < 0;
		w->file_on_fd = !w->pipe;
	}
	if (!w->dname) {
		perfring_writer_abort(w);
		return -ENOMEM;
	}
	w->st.pipe_mode = w->pipe;
	*out = w;
	return 0;
}

static int write_features(struct perfring_writer *w)
{
	struct pr_buf tab = { 0 }, pay = { 0 }, b = { 0 };
	uint64_t bitmap[4] = { 0 };
	uint64_t data_size, table_off, off;
	unsigned char hdr[WR_FILE_HEADER_SIZE];
	int i, nr = 0, r;
	struct { int feat; size_t off, len; } got[NR_FEATS];

	r = wr_flush(w);
	if (r < 0)
		return r;
	data_size = w->opos - w->data_offset;
	table_off = w->opos;
	for (i = 0; i < NR_FEATS; i++) {
		size_t before = pay.len;

		b.len = 0;
		if (!feat_build(w, feat_list[i], &b))
			continue;
		pr_buf_put(&pay, b.p, b.len);
		got[nr].feat = feat_list[i];
		got[nr].off = before;
		got[nr].len = b.len;
		nr++;
		bitmap[feat_list[i] / 64] |= 1ull << (feat_list[i] % 64);
	}
	off = table_off + 16u * (uint64_t)nr;
	for (i = 0; i < nr; i++) {
		buf_u64(&tab, off + got[i].off);
		buf_u64(&tab, got[i].len);
	}
	if (tab.oom || pay.oom || b.oom) {
		r = wr_fail(w, -ENOMEM, "out of memory");
		goto out;
	}
	r = wr_out(w, tab.p, tab.len);
	if (!r)
		r = wr_out(w, pay.p, pay.len);
	if (!r)
		r = wr_flush(w);
	if (r < 0)
		goto out;

	memset(hdr, 0, sizeof(hdr));
	pr_put64(hdr, WR_MAGIC);
	pr_put64(hdr + 8, WR_FILE_HEADER_SIZE);
	pr_put64(hdr + 16, w->attr_size + 16u);
	pr_put64(hdr + 24, w->data_offset - (uint64_t)w->nr_ev * (w->attr_size + 16u));
	pr_put64(hdr + 32, (uint64_t)w->nr_ev * (w->attr_size + 16u));
	pr_put64(hdr + 40, w->data_offset);
	pr_put64(hdr + 48, data_size);
	/* event_types: zeros */
	for (i = 0; i < 4; i++)
		pr_put64(hdr + 72 + 8 * i, bitmap[i]);
	r = wr_write_all(w, hdr, sizeof(hdr), 0);
	if (!r && w->file_on_fd && ftruncate(w->fd, (off_t)w->opos) < 0)
		r = wr_fail(w, -errno, "truncating: %s", strerror(errno));
out:
	free(tab.p);
	free(pay.p);
	free(b.p);
	return r;
}

static void warn_drops(const struct perfring_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_drops; i++)
		pr_log(PERFRING_LOG_WARN, "%s: dropped %" PRIu64 " record%s of type "
		       "%" PRIu32 ", which perf 6.1 refuses (keep_unknown keeps them)",
		       w->dname, w->drops[i].count, w->drops[i].count == 1 ? "" : "s",
		       w->drops[i].type);
	if (w->st.dropped_managed)
		pr_log(PERFRING_LOG_INFO, "%s: left out %" PRIu64 " records of types "
		       "the writer writes itself (HEADER_ATTR, HEADER_FEATURE, "
		       "FINISHED_ROUND, ...)", w->dname, w->st.dropped_managed);
	if (w->st.late)
		pr_log(PERFRING_LOG_WARN, "%s: %" PRIu64 " records were written older "
		       "than perf's round limit (a source was fed out of time order "
		       "or ran more than the merge window ahead); perf will report "
		       "them as out of order",
		       w->dname, w->st.late);
}

PERFRING_API int perfring_writer_close(struct perfring_writer *w,
				       struct perfring_diag *diag)
{
	int r = 0, i;

	if (!w)
		return -EINVAL;
	if (!w->err && !w->started)
		r = wr_start(w);
	for (i = 0; i < w->nr_src; i++)
		w->src[i].ended = 1;
	w->n_waiting = 0;
	w->n_open = 0;
	if (!w->err)
		r = drain(w, 1);
	if (!w->err)
		r = wr_zflush(w);
	if (!w->err)
		r = w->pipe ? wr_flush(w) : write_features(w);
	if (!w->err && w->own_fd) {
		int fd = w->fd;

		w->fd = -1;
		if (close(fd) < 0 && errno != EINTR) {
			int e = errno;

			r = wr_fail(w, -e, "closing %s: %s",
				    w->tmp ? w->tmp : "the output", strerror(e));
		}
	}
	if (!w->err && w->tmp) {
		if (rename(w->tmp, w->path) < 0) {
			int e = errno;

			r = wr_fail(w, -e, "renaming %s into place: %s",
				    w->tmp, strerror(e));
		} else {
			free(w->tmp);
			w->tmp = NULL;
		}
	}
	if (w->err) {
		r = w->err;
		wr_copy_err(w, diag);
		perfring_writer_abort(w);
		return r;
	}
	warn_drops(w);
	wr_free(w);
	return r < 0 ? r : 0;
}

PERFRING_API int perfring_writer_get_stats(const struct perfring_writer *w,
					   struct perfring_writer_stats *st)
{
	if (!w || !st)
		return -EINVAL;
	return perfring_struct_fill(st, sizeof(size_t), &w->st, sizeof(w->st));
}

PERFRING_API int perfring_writer_dropped_types(const struct perfring_writer *w,
					       uint32_t *types, uint64_t *counts,
					       size_t max)
{
	size_t i;

	if (!w)
		return -EINVAL;
	for (i = 0; i < w->nr_drops && i < max; i++) {
		if (types)
			types[i] = w->drops[i].type;
		if (counts)
			counts[i] = w->drops[i].count;
	}
	return (int)w->nr_drops;
}
