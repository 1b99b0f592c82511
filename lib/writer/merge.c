/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data writer: the merge by time of its sources, the emission of
 * records and FINISHED_ROUND (the rules are in writer.c's header), and
 * the output: errors, the output buffer and the thread that writes it.
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

#include "util/internal.h"
#include "writer/private.h"

/* ---- errors and output ---------------------------------------------------- */

int wr_fail(struct perfring_writer *w, int err, const char *fmt, ...)
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

void wr_copy_err(struct perfring_writer *w, struct perfring_diag *diag)
{
	if (diag && w->err)
		*diag = w->errdiag;
}

int wr_write_all(struct perfring_writer *w, const void *p, size_t n,
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

void wr_bg_stop(struct perfring_writer *w)
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

int wr_flush(struct perfring_writer *w)
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

int wr_out(struct perfring_writer *w, const void *p, size_t n)
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

uint64_t wr_pos(const struct perfring_writer *w)
{
	return w->opos + w->olen;
}

/* Compress the staged records into one COMPRESSED record. */
int wr_zflush(struct perfring_writer *w)
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
int wr_data(struct perfring_writer *w, const void *p, size_t n)
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

int wr_emit(struct perfring_writer *w, const void *rec, uint32_t size,
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

int wr_src_push(struct perfring_writer *w, int s, const void *rec,
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
	r = wr_emit(w, c->data + c->rd + sizeof(e), e.size, e.time, (int)e.is_sample);
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
int wr_drain(struct perfring_writer *w, int final)
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
