/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf.data headers-only counting (perfring_perfdata_count): the records of
 * [start, end) of a regular file counted by walking their 8-byte headers,
 * the file read by several threads at once (page-cache copies are the whole
 * cost of counting; two cores copy about twice as fast as one).
 *
 * The data section is cut into CHUNK-sized pieces at fixed offsets.  Each
 * thread claims the next chunk, pread()s it into its own buffer, then waits
 * for its turn: the walk of the chunk before hands over the offset of the
 * next header (and the first bytes of a header cut by the boundary).  The
 * thread walks its chunk while the bytes are still in its core's cache and
 * hands over to the next.  The copies (the whole cost) run side by side;
 * only the short header walks take turns.  Only the 8-byte headers are
 * looked at, so a chunk that holds no header is passed over.
 * Memory: one CHUNK per thread, whatever the file size.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/count.h"

#define CHUNK PR_COUNT_CHUNK
/* chunks start at page offsets of the file and land on page-aligned
 * buffers: a misaligned copy from the page cache costs half as much again */
#define PAGE ((size_t)4096)
#define MAX_THREADS 4
/* below this, starting threads costs more than it saves */
#define PARALLEL_MIN PR_COUNT_PARALLEL_MIN

/* what one walk counts (the part of perfring_perfdata_stats it fills) */
struct counts {
	uint64_t by_type[PERFRING_PERFDATA_STATS_TYPES];
	uint64_t other, total, bytes;
};

struct walk {
	int fd;
	uint64_t base;		/* offset of chunk 0 (start rounded down) */
	uint64_t start, end;
	uint64_t nchunks;
	atomic_uint_fast64_t next;	/* next chunk to claim */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* the hand-over from the walk of chunk k - 1 to that of chunk k */
	uint64_t turn;		/* k: chunk k may be walked */
	uint64_t pos;
	unsigned char part[8];
	unsigned npart;
	int failed;
};

struct worker {
	struct walk *w;
	struct counts c;
	pthread_t thread;
};

static void chunk_span(const struct walk *w, uint64_t k, uint64_t *from, uint64_t *to)
{
	uint64_t a = w->base + k * CHUNK, b = a + CHUNK;

	*from = a;
	*to = b > w->end ? w->end : b;
}

static unsigned char *page_alloc(void)
{
	void *p;

	if (posix_memalign(&p, PAGE, CHUNK))
		return NULL;
	return p;
}

static int read_full(int fd, unsigned char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static uint16_t hdr_size(const unsigned char *h)
{
	uint16_t v;

	memcpy(&v, h + 6, 2);
	return v;
}

static uint32_t hdr_type(const unsigned char *h)
{
	uint32_t v;

	memcpy(&v, h, 4);
	return v;
}

/* count one record whose header h starts at rec; 0, or -1 to give up */
static int count_one(struct counts *c, const unsigned char *h, uint64_t rec, uint64_t end)
{
	uint32_t type = hdr_type(h);
	uint16_t size = hdr_size(h);

	if (size < 8 || size > end - rec || type == PERFRING_RECORD_HEADER_TRACING_DATA ||
	    type == PERFRING_RECORD_AUXTRACE || type == PERFRING_RECORD_COMPRESSED ||
	    type == 83 /* COMPRESSED2 */)
		return -1;
	if (type < PERFRING_PERFDATA_STATS_TYPES)
		c->by_type[type]++;
	else
		c->other++;
	c->total++;
	c->bytes += size;
	return 0;
}

/*
 * Walk the headers in [from, to) of one chunk held in buf.  *pos is the
 * next header's offset (it may lie beyond to); part/npart carry a header
 * cut by the chunk's end into the next chunk.
 */
static int walk_chunk(struct counts *c, const unsigned char *buf, uint64_t from, uint64_t to,
		      uint64_t end, uint64_t *pos, unsigned char part[8], unsigned *npart)
{
	uint64_t p = *pos;

	if (*npart) {
		/* the header began in an earlier chunk: p is its offset */
		size_t want = 8 - *npart, have = (size_t)(to - from);

		if (want > have)
			want = have;
		memcpy(part + *npart, buf, want);
		*npart += (unsigned)want;
		if (*npart < 8)
			return 0;
		*npart = 0;
		if (count_one(c, part, p, end) < 0)
			return -1;
		p += hdr_size(part);
	}
	while (p < to) {
		const unsigned char *h = buf + (p - from);

		if (to - p < 8) {
			*npart = (unsigned)(to - p);
			memcpy(part, h, *npart);
			break;
		}
		if (count_one(c, h, p, end) < 0)
			return -1;
		p += hdr_size(h);
	}
	*pos = p;
	return 0;
}

static int count_serial(int fd, uint64_t start, uint64_t end, struct counts *c)
{
	unsigned char *buf = page_alloc(), part[8];
	uint64_t pos = start, from = start & ~(uint64_t)(PAGE - 1);
	unsigned npart = 0;
	int ret = -1;

	if (!buf)
		return -1;
	while (from < end) {
		size_t len = end - from < CHUNK ? (size_t)(end - from) : CHUNK;

		if (read_full(fd, buf, len, from) < 0 ||
		    walk_chunk(c, buf, from, from + len, end, &pos, part, &npart) < 0)
			goto out;
		from += len;
	}
	ret = pos == end && !npart ? 0 : -1;
out:
	free(buf);
	return ret;
}

/*
 * One thread: claim the next chunk, read it, wait for the walk of the
 * chunk before to hand over where the next header is, walk this chunk
 * while it is still in this core's cache, hand over to the next.
 */
static void *worker_main(void *data)
{
	struct worker *me = data;
	struct walk *w = me->w;
	unsigned char *buf = page_alloc();

	for (;;) {
		uint64_t k = atomic_fetch_add(&w->next, 1), from, to, pos;
		unsigned char part[8];
		unsigned npart;
		int rc;

		if (k >= w->nchunks)
			break;
		chunk_span(w, k, &from, &to);
		rc = buf ? read_full(w->fd, buf, (size_t)(to - from), from) : -1;
		pthread_mutex_lock(&w->lock);
		while (!w->failed && w->turn != k)
			pthread_cond_wait(&w->cond, &w->lock);
		pos = w->pos;
		npart = w->npart;
		memcpy(part, w->part, sizeof(part));
		rc = w->failed ? -1 : rc;
		pthread_mutex_unlock(&w->lock);
		if (rc == 0)
			rc = walk_chunk(&me->c, buf, from, to, w->end, &pos, part, &npart);
		pthread_mutex_lock(&w->lock);
		if (rc < 0) {
			w->failed = 1;
		} else {
			w->turn = k + 1;
			w->pos = pos;
			w->npart = npart;
			memcpy(w->part, part, sizeof(part));
		}
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		if (rc < 0)
			break;
	}
	free(buf);
	return NULL;
}

static unsigned nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

PR_HIDDEN int pr_count_headers(int fd, uint64_t start, uint64_t end, unsigned nthreads,
			       struct perfring_perfdata_stats *st)
{
	struct walk w = { .fd = fd, .start = start, .end = end, .pos = start };
	struct worker workers[MAX_THREADS];
	struct counts total;
	int ret;

	if (end < start)
		return -1;
	if (!nthreads)
		nthreads = end - start < PARALLEL_MIN ? 1 : nr_cpus();
	memset(&total, 0, sizeof(total));
	if (nthreads < 2 || (end - start) / CHUNK > (uint64_t)INT_MAX) {
		ret = count_serial(fd, start, end, &total);
		goto done;
	}
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	w.base = start & ~(uint64_t)(PAGE - 1);
	w.nchunks = (end - w.base + CHUNK - 1) / CHUNK;
	atomic_init(&w.next, 0);
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	/*
	 * The threads claim chunks as they go, so any number of them that
	 * started finishes the walk; none (RLIMIT_NPROC, say): count here.
	 */
	for (unsigned i = 0; i < nthreads; i++) {
		workers[i].w = &w;
		memset(&workers[i].c, 0, sizeof(workers[i].c));
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			nthreads = i;
			break;
		}
	}
	if (!nthreads) {
		pthread_mutex_destroy(&w.lock);
		pthread_cond_destroy(&w.cond);
		ret = count_serial(fd, start, end, &total);
		goto done;
	}
	for (unsigned i = 0; i < nthreads; i++) {
		const struct counts *wc = &workers[i].c;

		pthread_join(workers[i].thread, NULL);
		for (uint32_t t = 0; t < PERFRING_PERFDATA_STATS_TYPES; t++)
			total.by_type[t] += wc->by_type[t];
		total.other += wc->other;
		total.total += wc->total;
		total.bytes += wc->bytes;
	}
	ret = !w.failed && w.turn == w.nchunks && w.pos == end && !w.npart ? 0 : -1;
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
done:
	if (ret == 0) {
		memset(st, 0, sizeof(*st));
		memcpy(st->by_type, total.by_type, sizeof(st->by_type));
		st->other = total.other;
		st->total = total.total;
		st->bytes = total.bytes;
	}
	return ret;
}
