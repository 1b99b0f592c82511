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

#include "util/internal.h"
#include "writer/private.h"

/* ---- small helpers ------------------------------------------------------- */

static uint64_t rd64(const unsigned char *p)
{
	return pr_get64(p);
}

/* ---- events ---------------------------------------------------------------- */

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

/* ---- records ------------------------------------------------------------- */

static int is_unknown_type(uint32_t t)
{
	return t == PERFRING_RECORD_PAD ||
	       (t >= PERFRING_RECORD_KERNEL_MAX && t < PERFRING_RECORD_HEADER_ATTR) ||
	       (t >= PERFRING_RECORD_HEADER_MAX && t != PERFRING_RECORD_COMPRESSED2);
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
	case PERFRING_RECORD_COMPRESSED2:	/* the records inside come decompressed */
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
		ts = perfring_sample_id_size(st);
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
		wr_dso_from_record(w, p, size);

	q = &w->src[source];
	key = t > q->last_key ? t : q->last_key;
	q->last_key = key;
	if (!w->queued_nr && w->n_open - !q->ended == 0) {
		/*
		 * Nothing queued, and no other source can still produce
		 * anything, so nothing older can come: write straight through.
		 */
		r = wr_emit(w, p, size, t, type == PERFRING_RECORD_SAMPLE);
		if (r < 0)
			wr_copy_err(w, diag);
		return r;
	}
	r = wr_src_push(w, source, p, size, key, t, type == PERFRING_RECORD_SAMPLE);
	if (!r)
		r = wr_drain(w, 0);
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
	r = wr_drain(w, 0);
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
	if (w->given)
		for (k = 0; k < PR_PD_NR_FEAT_IDS; k++)
			free(w->given[k].p);
	free(w->given);
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
	    (unsigned)o.host > PERFRING_WRITER_HOST_NONE ||
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
	w->host_none = o.host == PERFRING_WRITER_HOST_NONE;
	if (w->host_none)
		memset(&u, 0, sizeof(u));	/* only what is given */
	else if (uname(&u) < 0)
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
	} else if (wr_read_cmdline(w) < 0) {
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
		r = wr_drain(w, 1);
	if (!w->err)
		r = wr_zflush(w);
	if (!w->err)
		r = w->pipe ? wr_flush(w) : wr_write_features(w);
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
		struct stat sb;

		/*
		 * An old regular file of that name is unlinked first, not
		 * renamed over: ext4 (auto_da_alloc) writes back a file
		 * renamed over another before rename returns, which made
		 * replacing an output several times slower than writing a
		 * new one.  The final name is then briefly absent, never
		 * half written.
		 */
		if (lstat(w->path, &sb) == 0 && S_ISREG(sb.st_mode))
			(void)unlink(w->path);
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
