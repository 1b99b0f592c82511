/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-replay's sample filters, with perf report's semantics (perf 6.1):
 *
 *   --time  "START,STOP" in seconds[.fraction] (up to 9 digits), either side
 *           empty for open; several ranges separated by spaces, increasing
 *           and not overlapping; or percent slices of the recording's first
 *           to last sample time: "10%/2" (the 2nd of 10% slices), "0%-10%",
 *           "10%/1,10%/3", "50%" (the first 50%).  A sample is in a range if
 *           START <= time <= STOP; a percent slice ends 1 ns before the next
 *           one starts, but the last slice ends at the last sample.  A sample
 *           without a time is always kept.
 *   --pid, --tid  comma-separated lists, against the sample's pid and tid;
 *   --cpu   a list of CPUs and ranges ("0-2,4"), against the sample's cpu;
 *   --comm  comma-separated commands, against the thread's command when the
 *           sample was taken (COMM records, inherited over FORK; ":TID"
 *           before any, as perf names such threads);
 *   --event comma-separated event names.
 *
 * Options combine: a sample is kept when every filter given keeps it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "replay-filter.h"

struct rf_range {
	uint64_t start, end;		/* end 0: open */
};

struct replay_filter {
	char *time_str;			/* percent form, resolved later */
	struct rf_range *ranges;
	size_t nr_ranges;
	GHashTable *pids, *tids, *cpus;	/* GINT_TO_POINTER(v + 1) sets */
	GHashTable *comms;		/* string set */
	char **events;
	GHashTable *comm_of;		/* tid + 2 -> g_strdup'd command (in input order) */
	GArray *changes;		/* rf_scan: struct comm_change */
	GHashTable *history;		/* tid + 2 -> GArray of struct comm_at, by time */
	struct rf_stats st;
};

/* A COMM or FORK record seen by rf_scan. */
struct comm_change {
	uint64_t time;
	uint32_t seq;			/* input order, for equal times */
	int fork;
	int32_t tid, ptid;
	char *comm;			/* COMM */
};

/* A thread's command from a time on. */
struct comm_at {
	uint64_t time;
	const char *comm;		/* owned by changes */
};

struct replay_filter *rf_new(void)
{
	return g_new0(struct replay_filter, 1);
}

void rf_free(struct replay_filter *f)
{
	if (!f)
		return;
	g_free(f->time_str);
	g_free(f->ranges);
	g_clear_pointer(&f->pids, g_hash_table_destroy);
	g_clear_pointer(&f->tids, g_hash_table_destroy);
	g_clear_pointer(&f->cpus, g_hash_table_destroy);
	g_clear_pointer(&f->comms, g_hash_table_destroy);
	g_clear_pointer(&f->comm_of, g_hash_table_destroy);
	g_clear_pointer(&f->history, g_hash_table_destroy);
	if (f->changes) {
		for (guint i = 0; i < f->changes->len; i++)
			g_free(g_array_index(f->changes, struct comm_change, i).comm);
		g_array_free(f->changes, TRUE);
	}
	g_strfreev(f->events);
	g_free(f);
}

/* ---- --time ------------------------------------------------------------------ */

/* "SEC[.FRAC]" (FRAC up to 9 digits) into ns; perf's parse_nsec_time. */
static int parse_ns(const char *s, uint64_t *out)
{
	uint64_t sec = 0, ns = 0;
	const char *p = s;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		sec = sec * 10 + (uint64_t)(*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		int n = 0;

		p++;
		while (*p >= '0' && *p <= '9' && n < 10) {
			ns = ns * 10 + (uint64_t)(*p++ - '0');
			n++;
		}
		if (n > 9 || *p)
			return -1;
		for (; n < 9; n++)
			ns *= 10;
		digits++;
	}
	if (*p || !digits)
		return -1;
	*out = sec * 1000000000ull + ns;
	return 0;
}

/* One "START,STOP" (either side may be empty). */
static int parse_pair(const char *s, struct rf_range *r)
{
	char *dup = g_strdup(s), *comma = strchr(dup, ',');
	int ret = 0;

	r->start = r->end = 0;
	if (comma)
		*comma++ = 0;
	if ((*dup && parse_ns(dup, &r->start) < 0) ||
	    (comma && *comma && parse_ns(comma, &r->end) < 0))
		ret = -1;
	if (!ret && r->end && r->end < r->start)
		ret = -1;
	g_free(dup);
	return ret;
}

/* "a,b c,d ...": ranges separated by spaces, in order, not overlapping. */
static int parse_abs(struct replay_filter *f, const char *s)
{
	gchar **parts = g_strsplit_set(s, " \t", -1);
	GArray *a = g_array_new(FALSE, FALSE, sizeof(struct rf_range));
	int ret = 0;

	for (gchar **p = parts; *p && !ret; p++) {
		struct rf_range r;

		if (!**p)
			continue;
		/* each piece is one pair: exactly one comma */
		if (!strchr(*p, ',') || strchr(strchr(*p, ',') + 1, ','))
			ret = -1;
		else if (parse_pair(*p, &r) < 0)
			ret = -1;
		else
			g_array_append_val(a, r);
	}
	if (!ret && !a->len)
		ret = -1;
	for (guint i = 0; !ret && i + 1 < a->len; i++) {
		const struct rf_range *x = &g_array_index(a, struct rf_range, i);

		if (x->end >= g_array_index(a, struct rf_range, i + 1).start)
			ret = -1;
	}
	if (!ret) {
		f->nr_ranges = a->len;
		f->ranges = (struct rf_range *)(void *)g_array_free(a, FALSE);
	} else {
		g_array_free(a, TRUE);
	}
	g_strfreev(parts);
	return ret;
}

int rf_set_time(struct replay_filter *f, const char *s, char *err, size_t len)
{
	if (strchr(s, '%')) {
		f->time_str = g_strdup(s);
		return 0;
	}
	if (parse_abs(f, s) < 0) {
		snprintf(err, len, "--time \"%s\": expected START,STOP in seconds (either "
			 "may be empty; several ranges separated by spaces, in order) or "
			 "percent slices such as 10%%/2, 0%%-10%%, 10%%/1,10%%/3", s);
		return -1;
	}
	return 0;
}

bool rf_time_needs_bounds(const struct replay_filter *f)
{
	return f->time_str != NULL;
}

/* "12.5%": the fraction; the whole string must be the number and '%'. */
static int parse_pct(const char *s, double *out)
{
	size_t n = strlen(s);
	char *end;

	if (!n || s[n - 1] != '%')
		return -1;
	*out = g_ascii_strtod(s, &end) / 100.0;
	return end == s + n - 1 && end != s ? 0 : -1;
}

static int pct_range(struct rf_range *r, double a, double b, uint64_t first, uint64_t last)
{
	uint64_t total = last - first;

	if (a < 0.0 || a > 1.0 || b < 0.0 || b > 1.0)
		return -1;
	r->start = first + (uint64_t)(a * (double)total + 0.5);
	r->end = first + (uint64_t)(b * (double)total + 0.5);
	if (r->end > r->start && r->end != last)
		r->end--;
	return 0;
}

/* "P%/N": the Nth slice of P%. */
static int pct_slash(const char *s, struct rf_range *r, uint64_t first, uint64_t last)
{
	char *dup = g_strdup(s), *slash = strchr(dup, '/'), *end;
	double p;
	long n;
	int ret = -1;

	if (slash) {
		*slash++ = 0;
		n = strtol(slash, &end, 10);
		if (*slash && !*end && parse_pct(dup, &p) == 0 && p > 0.0)
			ret = pct_range(r, p * (double)(n - 1), p * (double)n, first, last);
	}
	g_free(dup);
	return ret;
}

/* "A%-B%". */
static int pct_dash(const char *s, struct rf_range *r, uint64_t first, uint64_t last)
{
	char *dup = g_strdup(s), *dash = strchr(dup, '-');
	double a, b;
	int ret = -1;

	if (dash) {
		*dash++ = 0;
		if (parse_pct(dup, &a) == 0 && parse_pct(dash, &b) == 0)
			ret = pct_range(r, a, b, first, last);
	}
	g_free(dup);
	return ret;
}

int rf_resolve_time(struct replay_filter *f, uint64_t first, uint64_t last, char *err,
		    size_t len)
{
	const char *s = f->time_str;
	gchar **parts = NULL;
	int ret = 0;

	if (!s)
		return 0;
	if (!first && !last) {
		snprintf(err, len, "--time \"%s\": the input has no sample times to take "
			 "percents of", s);
		return -1;
	}
	if (last < first)
		last = first;
	g_free(f->ranges);
	f->ranges = NULL;
	f->nr_ranges = 0;
	if (strchr(s, '/') || strchr(s, '-')) {
		bool slash = strchr(s, '/') != NULL;
		guint n;

		parts = g_strsplit(s, ",", -1);
		n = g_strv_length(parts);
		f->ranges = g_new0(struct rf_range, n ? n : 1);
		for (guint i = 0; i < n && !ret; i++) {
			if (!*parts[i] && i + 1 == n && i)
				break;	/* a trailing comma, as perf allows */
			ret = slash ? pct_slash(parts[i], &f->ranges[i], first, last) :
				      pct_dash(parts[i], &f->ranges[i], first, last);
			f->nr_ranges++;
		}
	} else {
		double p;

		f->ranges = g_new0(struct rf_range, 1);
		f->nr_ranges = 1;
		ret = parse_pct(s, &p) < 0 || p <= 0.0 ? -1 :
		      pct_range(&f->ranges[0], 0.0, p, first, last);
	}
	g_strfreev(parts);
	if (ret < 0 || !f->nr_ranges) {
		snprintf(err, len, "--time \"%s\": expected percent slices such as 10%%/2, "
			 "0%%-10%%, 10%%/1,10%%/3 or 50%% (each of 0%% to 100%%)", s);
		return -1;
	}
	return 0;
}

static bool time_in(const struct replay_filter *f, uint64_t t)
{
	if (!t)
		return true;
	for (size_t i = 0; i < f->nr_ranges; i++)
		if (t >= f->ranges[i].start && (!f->ranges[i].end || t <= f->ranges[i].end))
			return true;
	return false;
}

/* ---- --pid, --tid, --cpu, --comm, --event ------------------------------------ */

/* "1,2,5-7" into a set; ranges only where allowed (--cpu). */
static int parse_ints(GHashTable **set, const char *opt, const char *s, bool ranges,
		      char *err, size_t len)
{
	gchar **parts = g_strsplit(s, ",", -1);
	int ret = 0;

	if (!*set)
		*set = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (gchar **p = parts; *p && !ret; p++) {
		char *end;
		long a, b;

		g_strstrip(*p);
		if (!**p)
			continue;
		a = strtol(*p, &end, 10);
		b = a;
		if (ranges && *end == '-' && end != *p)
			b = strtol(end + 1, &end, 10);
		if (end == *p || *end || a < -1 || b < a || b - a > 1 << 20 || b >= INT32_MAX) {
			snprintf(err, len, "%s \"%s\": expected a comma-separated list of "
				 "numbers%s", opt, s, ranges ? " and ranges (0-3)" : "");
			ret = -1;
			break;
		}
		for (long v = a; v <= b; v++)
			g_hash_table_add(*set, GINT_TO_POINTER((int)v + 2));
	}
	g_strfreev(parts);
	return ret;
}

int rf_set_pids(struct replay_filter *f, const char *s, char *err, size_t len)
{
	return parse_ints(&f->pids, "--pid", s, false, err, len);
}

int rf_set_tids(struct replay_filter *f, const char *s, char *err, size_t len)
{
	return parse_ints(&f->tids, "--tid", s, false, err, len);
}

int rf_set_cpus(struct replay_filter *f, const char *s, char *err, size_t len)
{
	return parse_ints(&f->cpus, "--cpu", s, true, err, len);
}

int rf_set_comms(struct replay_filter *f, const char *s, char *err, size_t len)
{
	gchar **parts = g_strsplit(s, ",", -1);

	if (!f->comms)
		f->comms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	if (!f->comm_of)
		f->comm_of = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	for (gchar **p = parts; *p; p++)
		if (**p)
			g_hash_table_add(f->comms, g_strdup(*p));
	g_strfreev(parts);
	if (!g_hash_table_size(f->comms)) {
		snprintf(err, len, "--comm \"%s\": no command named", s);
		return -1;
	}
	return 0;
}

int rf_set_events(struct replay_filter *f, const char *s, char *err, size_t len)
{
	gchar **parts = g_strsplit(s, ",", -1);
	GPtrArray *a = g_ptr_array_new();

	for (gchar **p = f->events; p && *p; p++)
		g_ptr_array_add(a, g_strdup(*p));
	for (gchar **p = parts; *p; p++)
		if (**p)
			g_ptr_array_add(a, g_strdup(*p));
	g_strfreev(parts);
	if (!a->len) {
		g_ptr_array_free(a, TRUE);
		snprintf(err, len, "--event \"%s\": no event named", s);
		return -1;
	}
	g_ptr_array_add(a, NULL);
	g_strfreev(f->events);
	f->events = (char **)g_ptr_array_free(a, FALSE);
	return 0;
}

bool rf_event_wanted(const struct replay_filter *f, const char *name)
{
	if (!f->events)
		return true;
	return name && g_strv_contains((const gchar *const *)f->events, name);
}

/* ---- records ------------------------------------------------------------------- */

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The fixed fields at a SAMPLE's start (perf's order), 0 when absent. */
struct rf_fields {
	int has_tid, has_cpu;
	uint32_t pid, tid, cpu;
	uint64_t time;
};

/* A SAMPLE's task, time and CPU, read by the library from its head. */
static bool sample_fields(const struct perfring_attr *attr, const unsigned char *p, size_t size,
			  struct rf_fields *o)
{
	struct perfring_sample_id sid;

	memset(o, 0, sizeof(*o));
	if (!attr)
		return true;
	if (perfring_sample_head_decode(attr, p, size, &sid) < 0)
		return false;
	o->has_tid = !!(attr->sample_type & PERFRING_SAMPLE_TID);
	o->has_cpu = !!(attr->sample_type & PERFRING_SAMPLE_CPU);
	o->pid = sid.pid;
	o->tid = sid.tid;
	o->cpu = sid.cpu;
	o->time = sid.time;
	return true;
}

uint64_t rf_sample_time(const struct perfring_attr *attr, const void *rec, size_t size)
{
	struct rf_fields fl;

	if (!sample_fields(attr, rec, size, &fl))
		return 0;
	return fl.time;
}

static bool in_set(GHashTable *set, int64_t v)
{
	return g_hash_table_contains(set, GINT_TO_POINTER((int)v + 2));
}

/* COMM and FORK: the command of each thread, for --comm (decoded by the
 * library; one that does not decode changes nothing). */
static void follow_comm(struct replay_filter *f, const struct perfring_attr *attr,
			const unsigned char *p, size_t size)
{
	uint32_t type = get32(p);
	struct perfring_comm c;
	struct perfring_task t;
	const char *name;
	size_t n;

	if (type == PERFRING_RECORD_COMM &&
	    perfring_comm_decode(attr, p, size, &c, &name, &n, NULL, NULL) == 0) {
		g_hash_table_insert(f->comm_of, GINT_TO_POINTER((int)c.tid + 2), g_strndup(name, n));
	} else if (type == PERFRING_RECORD_FORK &&
		   perfring_task_decode(attr, p, size, &t, NULL, NULL) == 0) {
		const char *parent = g_hash_table_lookup(f->comm_of,
							 GINT_TO_POINTER((int)t.ptid + 2));
		int child = (int)t.tid + 2;

		if (parent)
			g_hash_table_insert(f->comm_of, GINT_TO_POINTER(child), g_strdup(parent));
		else
			g_hash_table_remove(f->comm_of, GINT_TO_POINTER(child));
	}
}

/* ---- --comm by time: the COMM and FORK records of a first pass ----------------- */

bool rf_needs_scan(const struct replay_filter *f)
{
	return f->comms != NULL;
}

void rf_scan(struct replay_filter *f, const struct perfring_attr *attr, const void *rec,
	     size_t size)
{
	const unsigned char *p = rec;
	uint32_t type = get32(p);
	struct comm_change c = { 0 };
	struct perfring_sample_id sid;
	struct perfring_comm cm;
	struct perfring_task t;
	const char *name;
	size_t n;

	if (type == PERFRING_RECORD_COMM &&
	    perfring_comm_decode(attr, p, size, &cm, &name, &n, &sid, NULL) == 0) {
		c.tid = (int32_t)cm.tid;
		c.comm = g_strndup(name, n);
		c.time = sid.time;	/* 0 without sample_id_all's TIME */
	} else if (type == PERFRING_RECORD_FORK &&
		   perfring_task_decode(attr, p, size, &t, NULL, NULL) == 0) {
		c.fork = 1;
		c.tid = (int32_t)t.tid;
		c.ptid = (int32_t)t.ptid;
		c.time = t.time;
	} else {
		return;
	}
	if (!f->changes)
		f->changes = g_array_new(FALSE, FALSE, sizeof(struct comm_change));
	c.seq = f->changes->len;
	g_array_append_val(f->changes, c);
}

static gint change_cmp(gconstpointer a, gconstpointer b)
{
	const struct comm_change *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *history_last(struct replay_filter *f, int32_t tid)
{
	GArray *h = g_hash_table_lookup(f->history, GINT_TO_POINTER(tid + 2));

	return h && h->len ? g_array_index(h, struct comm_at, h->len - 1).comm : NULL;
}

static void history_add(struct replay_filter *f, int32_t tid, uint64_t time, const char *comm)
{
	GArray *h = g_hash_table_lookup(f->history, GINT_TO_POINTER(tid + 2));
	struct comm_at a = { time, comm };

	if (!h) {
		h = g_array_new(FALSE, FALSE, sizeof(struct comm_at));
		g_hash_table_insert(f->history, GINT_TO_POINTER(tid + 2), h);
	}
	g_array_append_val(h, a);
}

static void history_free(gpointer p)
{
	g_array_free(p, TRUE);
}

/*
 * Every thread's commands over time, as perf sees them when it goes
 * through the records in time order: a COMM sets one, a FORK gives the
 * child its parent's.
 */
void rf_scan_done(struct replay_filter *f)
{
	if (!f->comms)
		return;
	f->history = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, history_free);
	if (!f->changes)
		return;
	g_array_sort(f->changes, change_cmp);
	for (guint i = 0; i < f->changes->len; i++) {
		const struct comm_change *c = &g_array_index(f->changes, struct comm_change, i);
		const char *comm = c->fork ? history_last(f, c->ptid) : c->comm;

		if (comm)
			history_add(f, c->tid, c->time, comm);
	}
}

/* The command of thread tid at time t (NULL: none known). */
static const char *comm_at(struct replay_filter *f, uint32_t tid, uint64_t t)
{
	GArray *h = g_hash_table_lookup(f->history, GINT_TO_POINTER((int)tid + 2));
	guint lo = 0, hi;

	if (!h || !h->len)
		return NULL;
	if (!t)
		return g_array_index(h, struct comm_at, h->len - 1).comm;
	hi = h->len;
	while (lo < hi) {	/* the first change after t */
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(h, struct comm_at, mid).time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? g_array_index(h, struct comm_at, lo - 1).comm : NULL;
}

static bool comm_in(struct replay_filter *f, uint32_t tid, uint64_t t)
{
	const char *c = f->history ? comm_at(f, tid, t) :
			g_hash_table_lookup(f->comm_of, GINT_TO_POINTER((int)tid + 2));
	char buf[16];

	if (!c) {
		snprintf(buf, sizeof(buf), ":%d", (int)tid);
		c = buf;
	}
	return g_hash_table_contains(f->comms, c);
}

bool rf_keep(struct replay_filter *f, const struct perfring_attr *attr, bool event_kept,
	     const void *rec, size_t size)
{
	const unsigned char *p = rec;
	struct rf_fields fl;
	bool keep;

	if (get32(p) != PERFRING_RECORD_SAMPLE) {
		if (f->comm_of && !f->history)
			follow_comm(f, attr, p, size);
		f->st.others++;
		return true;
	}
	keep = event_kept;
	if (keep && !sample_fields(attr, p, size, &fl))
		keep = true;	/* too short to read: the validator has spoken */
	else if (keep)
		keep = (!f->nr_ranges || time_in(f, fl.time)) &&
		       (!f->pids || (fl.has_tid && in_set(f->pids, (int32_t)fl.pid))) &&
		       (!f->tids || (fl.has_tid && in_set(f->tids, (int32_t)fl.tid))) &&
		       (!f->cpus || (fl.has_cpu && in_set(f->cpus, fl.cpu))) &&
		       (!f->comms || (fl.has_tid && comm_in(f, fl.tid, fl.time)));
	if (keep)
		f->st.kept++;
	else
		f->st.dropped++;
	return keep;
}

void rf_reset_stats(struct replay_filter *f)
{
	memset(&f->st, 0, sizeof(f->st));
	if (f->comm_of)
		g_hash_table_remove_all(f->comm_of);
}

void rf_get_stats(const struct replay_filter *f, struct rf_stats *st)
{
	*st = f->st;
}
