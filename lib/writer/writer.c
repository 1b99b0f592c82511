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

	for (i = 0; i < w->evs.nr_ev; i++)
		for (j = 0; j < w->evs.ev[i].nr_ids; j++)
			if (w->evs.ev[i].ids[j] == id)
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
				 w->out.dname, diag);
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
		pr_diag_set(diag, -EBUSY, w->out.dname, PR_NO_OFFSET,
			    "events must be added before the first record");
		return -EBUSY;
	}
	if (attr->size && attr->size < PERFRING_ATTR_SIZE_VER0) {
		pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
			    "attr.size %" PRIu32 " is smaller than the first "
			    "version (64)", attr->size);
		return -EINVAL;
	}
	nev = realloc(w->evs.ev, (size_t)(w->evs.nr_ev + 1) * sizeof(*nev));
	if (!nev)
		return -ENOMEM;
	w->evs.ev = nev;
	e = &w->evs.ev[w->evs.nr_ev];
	memset(e, 0, sizeof(*e));

	sz = attr->size;
	if (sz == 0 || sz > sizeof(*attr))
		sz = sizeof(*attr);
	memcpy(&e->attr, attr, sz);
	if (e->attr.config3) {
		pr_log(PERFRING_LOG_WARN,
		       "%s: event %d: config3 0x%" PRIx64 " dropped: perf 6.1 reads "
		       "attrs of at most 128 bytes", w->out.dname, w->evs.nr_ev,
		       e->attr.config3);
		e->attr.config3 = 0;
	}
	perfring_sample_id_pos(e->attr.sample_type, &e->id_pos, &e->is_pos);

	if (w->evs.nr_ev >= 1) {
		const struct wr_event *f = &w->evs.ev[0];
		const char *why = NULL;
		int k;

		for (k = 0; k <= w->evs.nr_ev && !why; k++) {
			const struct wr_event *x = k < w->evs.nr_ev ? &w->evs.ev[k] : e;

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
			pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
				    "event %d: %s (perf 6.1 refuses such files)",
				    w->evs.nr_ev, why);
			return -EINVAL;
		}
	}

	if (!ids || !nr_ids) {
		while (id_used(w, w->evs.next_id) || w->evs.next_id == 0)
			w->evs.next_id++;
		e->ids = malloc(sizeof(uint64_t));
		if (!e->ids)
			return -ENOMEM;
		e->ids[0] = w->evs.next_id++;
		e->nr_ids = 1;
	} else {
		for (i = 0; i < nr_ids; i++) {
			int dup = id_used(w, ids[i]);

			for (j = 0; j < i && !dup; j++)
				dup = ids[j] == ids[i];
			if (dup || ids[i] == 0) {
				pr_diag_set(diag, ids[i] ? -EEXIST : -EINVAL,
					    w->out.dname, PR_NO_OFFSET,
					    "event %d: id %" PRIu64 " %s", w->evs.nr_ev,
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
			if (ids[i] >= w->evs.next_id)
				w->evs.next_id = ids[i] + 1;
	}
	e->name = name && *name ? strdup(name) : default_name(&e->attr);
	if (!e->name) {
		free(e->ids);
		return -ENOMEM;
	}
	return w->evs.nr_ev++;
}

PERFRING_API uint64_t perfring_writer_event_id(const struct perfring_writer *w,
					       uint32_t idx)
{
	if (!w || idx >= (uint32_t)w->evs.nr_ev)
		return 0;
	return w->evs.ev[idx].ids[0];
}

static int find_event(const struct perfring_writer *w, uint64_t id)
{
	size_t lo = 0, hi = w->evs.nr_idmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->evs.idmap[mid].id == id)
			return (int)w->evs.idmap[mid].ev;
		if (w->evs.idmap[mid].id < id)
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
	const struct wr_event *e0 = &w->evs.ev[0], *e;
	int ev = 0;
	uint64_t t = 0;

	*time = 0;
	if (type >= PERFRING_RECORD_HEADER_ATTR || is_unknown_type(type))
		return 0;
	if (type == PERFRING_RECORD_SAMPLE) {
		if (w->evs.nr_ev > 1) {
			uint64_t id = 0;

			if (perfring_record_id(&e0->attr, p, size, &id) < 0)
				goto short_rec;
			ev = id ? find_event(w, id) : 0;
			if (ev < 0)
				goto bad_id;
		}
		e = &w->evs.ev[ev];
		if (e->attr.sample_type & PERFRING_SAMPLE_TIME) {
			struct perfring_sample_id sid;

			/* the record codec reads the head (lib/ring/record.c) */
			if (perfring_sample_head_decode(&e->attr, p, size, &sid) < 0)
				goto short_rec;
			t = sid.time;
		}
	} else if (e0->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL) {
		uint64_t st;

		if (w->evs.nr_ev > 1) {
			uint64_t id = 0;

			if (perfring_record_id(&e0->attr, p, size, &id) < 0)
				goto short_rec;
			ev = id ? find_event(w, id) : 0;
			if (ev < 0)
				goto bad_id;
		}
		e = &w->evs.ev[ev];
		st = e->attr.sample_type;
		if (size < 8 + perfring_sample_id_size(st))
			goto short_rec;
		if (st & PERFRING_SAMPLE_TIME) {
			struct perfring_sample_id sid;

			if (perfring_sample_id_decode(st, p, size, &sid) < 0)
				goto short_rec;
			t = sid.time;
		}
	}
	if (t == UINT64_MAX)
		t = 0;
	*time = t;
	return 0;

short_rec:
	pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
		    "record of type %" PRIu32 " and %" PRIu32 " bytes is too "
		    "short for its sample_type", type, size);
	return -EINVAL;
bad_id:
	pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
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
	if (source >= (uint32_t)w->mg.nr_src || w->mg.src[source].ended) {
		pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
			    source >= (uint32_t)w->mg.nr_src ? "no source %" PRIu32 :
			    "source %" PRIu32 " was ended", source);
		return -EINVAL;
	}
	if (len < 8 || pr_get16(p + 6) < 8 || pr_get16(p + 6) > len) {
		pr_diag_set(diag, -EINVAL, w->out.dname, PR_NO_OFFSET,
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
	if (w->hd.build_ids && (type == PERFRING_RECORD_MMAP ||
			     type == PERFRING_RECORD_MMAP2))
		wr_dso_from_record(w, p, size);

	q = &w->mg.src[source];
	key = t > q->last_key ? t : q->last_key;
	q->last_key = key;
	if (!w->mg.queued_nr && w->mg.n_open - !q->ended == 0) {
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
	if (!w->mg.src0_claimed) {
		w->mg.src0_claimed = 1;
		return 0;
	}
	ns = realloc(w->mg.src, (size_t)(w->mg.nr_src + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	w->mg.src = ns;
	memset(&ns[w->mg.nr_src], 0, sizeof(*ns));
	nh = realloc(w->mg.heap, (size_t)(w->mg.nr_src + 1) * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	w->mg.heap = nh;
	w->mg.n_waiting++;
	w->mg.n_open++;
	return w->mg.nr_src++;
}

PERFRING_API int perfring_writer_end_source(struct perfring_writer *w,
					    uint32_t source,
					    struct perfring_diag *diag)
{
	struct wr_source *q;
	int r;

	if (!w || source >= (uint32_t)w->mg.nr_src) {
		pr_diag_set(diag, -EINVAL, w ? w->out.dname : NULL, PR_NO_OFFSET,
			    "no source %" PRIu32, source);
		return -EINVAL;
	}
	q = &w->mg.src[source];
	if (q->ended)
		return w->err;
	if (!q->nr)
		w->mg.n_waiting--;
	q->ended = 1;
	w->mg.n_open--;
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
	for (i = 0; i < w->mg.nr_src; i++) {
		struct wr_chunk *c = w->mg.src[i].head;

		while (c) {
			struct wr_chunk *n = c->next;

			free(c);
			c = n;
		}
	}
	while (w->mg.spare) {
		struct wr_chunk *n = w->mg.spare->next;

		free(w->mg.spare);
		w->mg.spare = n;
	}
	for (i = 0; i < w->evs.nr_ev; i++) {
		free(w->evs.ev[i].ids);
		free(w->evs.ev[i].name);
	}
	for (i = 0; i < w->hd.argc; i++)
		free(w->hd.argv[i]);
	free(w->hd.argv);
	free(w->evs.ev);
	free(w->evs.idmap);
	for (k = 0; k < w->hd.cap_dsos; k++)
		free(w->hd.dsos[k].name);
	free(w->hd.dsos);
	free(w->mg.src);
	free(w->mg.heap);
	free(w->drops);
	free(w->out.obuf);
	free(w->out.path);
	free(w->out.tmp);
	free(w->out.dname);
	free(w->hd.hostname);
	free(w->hd.osrelease);
	free(w->hd.arch);
	free(w->hd.version);
	free(w->hd.kallsyms);
	pr_wz_free(w->zs.z);
	free(w->zs.zin);
	free(w->zs.zrec);
	free(w->hd.tdata.p);
	free(w->hd.tracefs);
	if (w->hd.given)
		for (k = 0; k < PR_PD_NR_FEAT_IDS; k++)
			free(w->hd.given[k].p);
	free(w->hd.given);
	free(w);
}

PERFRING_API void perfring_writer_abort(struct perfring_writer *w)
{
	if (!w)
		return;
	wr_bg_stop(w);	/* before the fd is closed under it */
	if (w->out.own_fd && w->out.fd >= 0)
		close(w->out.fd);
	if (w->out.tmp)
		unlink(w->out.tmp);
	wr_free(w);
}

/* Option values the writer cannot take: -EINVAL or -ENOTSUP with diag. */
static int check_opts(const struct perfring_writer_opts *o, struct perfring_diag *diag)
{
	if (!o->path && o->fd <= 0) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "no output: set path or a valid fd");
		return -EINVAL;
	}
	if ((unsigned)o->kmap > PERFRING_WRITER_KMAP_NONE || o->argc < 0 ||
	    (unsigned)o->host > PERFRING_WRITER_HOST_NONE ||
	    (o->argc > 0 && !o->argv) || (o->tracing_data_size && !o->tracing_data)) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "bad option value");
		return -EINVAL;
	}
	if (o->compression_level) {
		int max = pr_wz_max_level();

		if (!max) {
			pr_diag_set(diag, -ENOTSUP, NULL, PR_NO_OFFSET,
				    "compression needs zstd, and libperfring was "
				    "built without it (configure --with-zstd)");
			return -ENOTSUP;
		}
		if (o->compression_level < 1 || o->compression_level > max) {
			pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
				    "compression level %d is not in 1..%d",
				    o->compression_level, max);
			return -EINVAL;
		}
	}
	return 0;
}

/* The host strings of the header features: given, else uname's. */
static int set_host(struct perfring_writer *w, const struct perfring_writer_opts *o)
{
	struct utsname u;

	w->hd.host_none = o->host == PERFRING_WRITER_HOST_NONE;
	if (w->hd.host_none)
		memset(&u, 0, sizeof(u));	/* only what is given */
	else if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	w->hd.hostname = strdup(o->hostname ? o->hostname : u.nodename);
	w->hd.osrelease = strdup(o->osrelease ? o->osrelease : u.release);
	w->hd.arch = strdup(o->arch ? o->arch : u.machine);
	w->hd.version = o->version ? strdup(o->version) :
		     strdup("libperfring " PERFRING_VERSION_STRING);
	w->hd.kallsyms = strdup(o->kallsyms_path ? o->kallsyms_path : "/proc/kallsyms");
	if (o->tracefs_path && !(w->hd.tracefs = strdup(o->tracefs_path)))
		return -ENOMEM;
	return w->hd.hostname && w->hd.osrelease && w->hd.arch && w->hd.version && w->hd.kallsyms ? 0 : -ENOMEM;
}

/* The command line of the CMDLINE feature: argv given, else our own. */
static int set_cmdline(struct perfring_writer *w, const struct perfring_writer_opts *o)
{
	if (o->argc <= 0)
		return wr_read_cmdline(w) < 0 ? -ENOMEM : 0;
	w->hd.argv = calloc((size_t)o->argc, sizeof(char *));
	if (!w->hd.argv)
		return -ENOMEM;
	for (int i = 0; i < o->argc; i++) {
		w->hd.argv[i] = strdup(o->argv[i] ? o->argv[i] : "");
		if (!w->hd.argv[i])
			return -ENOMEM;
		w->hd.argc = i + 1;
	}
	return 0;
}

/* A writer with its buffers and the options' state, no output yet. */
static int new_writer(const struct perfring_writer_opts *o, struct perfring_writer **out)
{
	struct perfring_writer *w = calloc(1, sizeof(*w));

	*out = w;
	if (!w)
		return -ENOMEM;
	w->out.fd = -1;
	w->keep_unknown = !!o->keep_unknown;
	w->hd.build_ids = !!o->build_ids;
	w->hd.kmap = o->kmap;
	w->mg.window = o->window_bytes ? o->window_bytes : WR_DEFAULT_WINDOW;
	if (w->mg.window < WR_MIN_WINDOW)
		w->mg.window = WR_MIN_WINDOW;
	w->mg.round_bytes = o->round_bytes ? o->round_bytes : WR_DEFAULT_ROUND;
	w->mg.max_spare = w->mg.window / WR_CHUNK_SIZE / 2 + 1;
	w->evs.next_id = 1;
	w->mg.nr_src = 1;
	w->mg.n_waiting = 1;	/* source 0, empty and not ended */
	w->mg.n_open = 1;
	w->mg.src = calloc(1, sizeof(*w->mg.src));
	w->mg.heap = calloc(1, sizeof(*w->mg.heap));
	w->out.obuf = malloc(WR_OBUF_SIZE);
	if (!w->mg.src || !w->mg.heap || !w->out.obuf || set_host(w, o) < 0)
		return -ENOMEM;
	if (o->tracing_data_size) {
		pr_buf_put(&w->hd.tdata, o->tracing_data, o->tracing_data_size);
		w->hd.tdata_given = 1;
		if (w->hd.tdata.oom)
			return -ENOMEM;
	}
	if (o->compression_level) {
		w->zs.zlevel = o->compression_level;
		w->zs.zin = malloc(PR_WZ_CHUNK);
		w->zs.zrec = malloc(PR_WZ_REC_MAX);
		if (!w->zs.zin || !w->zs.zrec || pr_wz_new(w->zs.zlevel, &w->zs.z) < 0)
			return -ENOMEM;
	}
	return set_cmdline(w, o);
}

/*
 * A path that is not a regular file (a FIFO, a terminal, /dev/stdout...):
 * written into directly (a temporary file there and a rename would replace
 * the device node or the symlink).
 */
static int open_special(struct perfring_writer *w, const struct perfring_writer_opts *o,
			const struct stat *st, struct perfring_diag *diag)
{
	struct stat sb;
	int r;

	if (S_ISDIR(st->st_mode)) {
		pr_diag_set(diag, -EISDIR, o->path, PR_NO_OFFSET, "is a directory");
		return -EISDIR;
	}
	w->out.fd = open(o->path, O_WRONLY | O_CLOEXEC | (S_ISREG(st->st_mode) ? O_TRUNC : 0));
	if (w->out.fd < 0) {
		r = -errno;
		pr_diag_set(diag, r, o->path, PR_NO_OFFSET, "cannot open: %s", strerror(-r));
		return r;
	}
	w->out.own_fd = 1;
	if (fstat(w->out.fd, &sb) < 0)
		memset(&sb, 0, sizeof(sb));
	w->out.pipe = o->pipe_mode || !S_ISREG(sb.st_mode) || lseek(w->out.fd, 0, SEEK_CUR) < 0;
	w->out.file_on_fd = !w->out.pipe;
	return 0;
}

/* A regular file by path: written as PATH.tmp.XXXXXX, renamed at close. */
static int open_tmp(struct perfring_writer *w, const struct perfring_writer_opts *o,
		    struct perfring_diag *diag)
{
	size_t n = strlen(o->path) + sizeof(".tmp.XXXXXX");
	int r;

	w->out.path = strdup(o->path);
	w->out.tmp = malloc(n);
	if (!w->out.path || !w->out.tmp)
		return -ENOMEM;
	snprintf(w->out.tmp, n, "%s.tmp.XXXXXX", o->path);
	w->out.fd = mkostemp(w->out.tmp, O_CLOEXEC);
	if (w->out.fd < 0) {
		r = -errno;
		pr_diag_set(diag, r, o->path, PR_NO_OFFSET, "cannot create the temporary file %s: %s",
			    w->out.tmp, strerror(-r));
		free(w->out.tmp);
		w->out.tmp = NULL;
		return r;
	}
	w->out.own_fd = 1;
	w->out.pipe = !!o->pipe_mode;
	/*
	 * Reserve the expected size (ext4 then writes 128 MiB in about 60%
	 * of the kernel time it takes to allocate as it goes).  A failure
	 * (a filesystem without fallocate, or too little room) leaves the
	 * writes to find it; a partial reservation is trimmed like a whole
	 * one, by the ftruncate at close (features.c).
	 */
	if (o->size_hint && !w->out.pipe && o->size_hint <= (uint64_t)INT64_MAX) {
		(void)fallocate(w->out.fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)o->size_hint);
		w->out.reserved = 1;
	}
	return 0;
}

/* The caller's fd, borrowed: the writer works on its own duplicate (perfring.h). */
static int open_fd(struct perfring_writer *w, const struct perfring_writer_opts *o,
		   struct perfring_diag *diag)
{
	struct stat sb;
	char dn[64];
	int r;

	snprintf(dn, sizeof(dn), "<fd %d>", o->fd);
	w->out.dname = strdup(dn);
	w->out.fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	w->out.own_fd = w->out.fd >= 0;
	if (w->out.fd < 0 || fstat(o->fd, &sb) < 0) {
		r = -errno;
		pr_diag_set(diag, r, dn, PR_NO_OFFSET, "bad fd: %s", strerror(-r));
		return r;
	}
	w->out.pipe = o->pipe_mode || !S_ISREG(sb.st_mode) || lseek(o->fd, 0, SEEK_CUR) < 0;
	w->out.file_on_fd = !w->out.pipe;
	return 0;
}

/* Where the output goes: standard output, a path, or the caller's fd. */
static int open_output(struct perfring_writer *w, const struct perfring_writer_opts *o,
		       struct perfring_diag *diag)
{
	struct stat sb;

	if (!o->path)
		return open_fd(w, o, diag);
	if (!strcmp(o->path, "-")) {
		w->out.fd = STDOUT_FILENO;
		w->out.pipe = 1;
		w->out.dname = strdup("-");
		return 0;
	}
	w->out.dname = strdup(o->path);
	if (!w->out.dname)
		return -ENOMEM;
	if (stat(o->path, &sb) == 0 &&
	    (!S_ISREG(sb.st_mode) || !strncmp(o->path, "/dev/", 5) ||
	     !strncmp(o->path, "/proc/", 6)))
		return open_special(w, o, &sb, diag);
	return open_tmp(w, o, diag);
}

PERFRING_API int perfring_writer_open(const struct perfring_writer_opts *opts,
				      struct perfring_diag *diag,
				      struct perfring_writer **out)
{
	struct perfring_writer_opts o;
	struct perfring_writer *w;
	int r;

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
	r = check_opts(&o, diag);
	if (r)
		return r;
	r = new_writer(&o, &w);
	if (r) {
		if (w)
			wr_free(w);
		return r;
	}
	r = open_output(w, &o, diag);
	if (r) {
		wr_free(w);
		return r;
	}
	if (!w->out.dname) {
		perfring_writer_abort(w);
		return -ENOMEM;
	}
	w->st.pipe_mode = w->out.pipe;
	*out = w;
	return 0;
}

static void warn_drops(const struct perfring_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_drops; i++)
		pr_log(PERFRING_LOG_WARN, "%s: dropped %" PRIu64 " record%s of type "
		       "%" PRIu32 ", which perf 6.1 refuses (keep_unknown keeps them)",
		       w->out.dname, w->drops[i].count, w->drops[i].count == 1 ? "" : "s",
		       w->drops[i].type);
	if (w->st.dropped_managed)
		pr_log(PERFRING_LOG_INFO, "%s: left out %" PRIu64 " records of types "
		       "the writer writes itself (HEADER_ATTR, HEADER_FEATURE, "
		       "FINISHED_ROUND, ...)", w->out.dname, w->st.dropped_managed);
	if (w->st.late)
		pr_log(PERFRING_LOG_WARN, "%s: %" PRIu64 " records were written older "
		       "than perf's round limit (a source was fed out of time order "
		       "or ran more than the merge window ahead); perf will report "
		       "them as out of order",
		       w->out.dname, w->st.late);
}

PERFRING_API int perfring_writer_close(struct perfring_writer *w,
				       struct perfring_diag *diag)
{
	int r = 0, i;

	if (!w)
		return -EINVAL;
	if (!w->err && !w->started)
		r = wr_start(w);
	for (i = 0; i < w->mg.nr_src; i++)
		w->mg.src[i].ended = 1;
	w->mg.n_waiting = 0;
	w->mg.n_open = 0;
	if (!w->err)
		r = wr_drain(w, 1);
	if (!w->err)
		r = wr_zflush(w);
	if (!w->err)
		r = w->out.pipe ? wr_flush(w) : wr_write_features(w);
	if (!w->err && w->out.own_fd) {
		int fd = w->out.fd;

		w->out.fd = -1;
		if (close(fd) < 0 && errno != EINTR) {
			int e = errno;

			r = wr_fail(w, -e, "closing %s: %s",
				    w->out.tmp ? w->out.tmp : "the output", strerror(e));
		}
	}
	if (!w->err && w->out.tmp) {
		struct stat sb;

		/*
		 * An old regular file of that name is unlinked first, not
		 * renamed over: ext4 (auto_da_alloc) writes back a file
		 * renamed over another before rename returns, which made
		 * replacing an output several times slower than writing a
		 * new one.  The final name is then briefly absent, never
		 * half written.
		 */
		if (lstat(w->out.path, &sb) == 0 && S_ISREG(sb.st_mode))
			(void)unlink(w->out.path);
		if (rename(w->out.tmp, w->out.path) < 0) {
			int e = errno;

			r = wr_fail(w, -e, "renaming %s into place: %s",
				    w->out.tmp, strerror(e));
		} else {
			free(w->out.tmp);
			w->out.tmp = NULL;
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
