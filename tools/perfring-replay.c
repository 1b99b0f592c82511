/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-replay: ring files and perf.data files (file or pipe mode) into
 * one perf.data, merged by time; or JSON lines (as perfring-dump --json
 * prints them) into a perf.data or a ring file.
 *
 * The kind of each input is told by its magic ("PRFRING" ring descriptor,
 * "PERFILE2" perf.data in either byte order), never by its name.
 *
 * Damaged rings are read with the library's resynchronising reader
 * (PERFRING_SOURCE_RESYNC): it reports each damage and goes on at the next
 * plausible record, so every record that can be found is written.  Each
 * problem is reported as "perfring-replay: FILE: offset 0x...: what" and
 * the exit status is 1.
 *
 * The output's header features are the inputs' (carry_features below;
 * perfring-replay(1), HEADER FEATURES), never this machine's unless
 * --host-features.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compress-opt.h"
#include "jit-bake.h"
#include "json-codec.h"
#include "marks-merge.h"
#include "replay-filter.h"
#include "tool-common.h"

TOOL_DEFINE_BUILD_PLUGINS_PATH;

#define BATCH 256		/* records per input per turn of the merge */
#define REC_MAX 65536u

static gchar *opt_output;
static gchar *opt_json_in;
static gchar *opt_ring;
static gchar *opt_kmap;
static gboolean opt_keep_unknown;
static gboolean opt_json_out;
static gboolean opt_list_plugins;
static gboolean opt_verbose;
static gboolean opt_version;
static gboolean opt_jit;
static gchar *opt_perf_map_dir;
static gboolean opt_host_features;
static gboolean opt_no_markers;
static gchar **opt_markers;
static gchar *opt_span;
static gchar *opt_time, *opt_pid, *opt_tid, *opt_comm, *opt_cpu, *opt_event;

static const GOptionEntry entries[] = {
	{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
	  "Write the perf.data to OUT ('-': pipe mode on standard output)", "OUT" },
	{ "json-in", 0, 0, G_OPTION_ARG_FILENAME, &opt_json_in,
	  "Read JSON lines (as perfring-dump --json prints them) from FILE ('-': standard input)",
	  "FILE" },
	{ "ring", 0, 0, G_OPTION_ARG_FILENAME, &opt_ring,
	  "With --json-in: write a ring file instead of a perf.data", "FILE" },
	{ "keep-unknown", 0, 0, G_OPTION_ARG_NONE, &opt_keep_unknown,
	  "Keep record types perf 6.1 refuses (default: drop them with a warning)", NULL },
	{ "kernel-map", 0, 0, G_OPTION_ARG_STRING, &opt_kmap,
	  "auto: write a [kernel.kallsyms] map (or set exclude_kernel) for events that do "
	  "not exclude the kernel; exclude: always set exclude_kernel; none: events as they "
	  "are (default: none for perf.data inputs, auto otherwise)", "auto|exclude|none" },
	{ "jit", 'j', 0, G_OPTION_ARG_NONE, &opt_jit,
	  "Bake JIT symbols in: read the jitdumps the input's marker maps name (or "
	  "/tmp/perf-PID.map) and write one ELF per JIT process beside OUT, with MMAP2 "
	  "records into it (record with perf record -k mono)", NULL },
	{ "markers", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_markers,
	  "Also merge the marker rings PATH (a ring file, or a folder of "
	  "perfring-marks-PID-TID.ring files) that no map of the input names "
	  "(repeatable)", "PATH" },
	{ "no-markers", 0, 0, G_OPTION_ARG_NONE, &opt_no_markers,
	  "Do not merge the marker rings that the input's maps name (merged by default "
	  "as perfring:mark tracepoint samples)", NULL },
	{ "span", 0, 0, G_OPTION_ARG_STRING, &opt_span,
	  "Keep only the samples taken on a thread while a span NAME (its outermost "
	  "one) was open on it, and every side-band record", "NAME" },
	{ "time", 0, 0, G_OPTION_ARG_STRING, &opt_time,
	  "Keep only the samples in these times, as perf report --time takes them: "
	  "START,STOP in seconds (either may be empty; several ranges separated by "
	  "spaces) or percent slices of the recording (10%/2, 0%-10%, 10%/1,10%/3)",
	  "RANGES" },
	{ "pid", 0, 0, G_OPTION_ARG_STRING, &opt_pid,
	  "Keep only the samples of these processes (comma-separated)", "PID,..." },
	{ "tid", 0, 0, G_OPTION_ARG_STRING, &opt_tid,
	  "Keep only the samples of these threads (comma-separated)", "TID,..." },
	{ "comm", 0, 0, G_OPTION_ARG_STRING, &opt_comm,
	  "Keep only the samples of threads running these commands (comma-separated)",
	  "COMM,..." },
	{ "cpu", 0, 0, G_OPTION_ARG_STRING, &opt_cpu,
	  "Keep only the samples taken on these CPUs (0-3,6)", "CPUS" },
	{ "event", 0, 0, G_OPTION_ARG_STRING, &opt_event,
	  "Keep only the samples of these events (comma-separated names)", "EVENT,..." },
	{ "host-features", 0, 0, G_OPTION_ARG_NONE, &opt_host_features,
	  "The inputs were recorded on this machine: give the output this machine's "
	  "host facts (hostname, os release, CPUs, memory, clock) where the inputs "
	  "bring none (rings, JSON lines, a pipe without features)", NULL },
	{ "perf-map-dir", 0, 0, G_OPTION_ARG_FILENAME, &opt_perf_map_dir,
	  "With --jit: read perf-PID.map files from DIR (default: /tmp)", "DIR" },
	{ "json-out", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &opt_json_out,
	  "Debug: print the inputs as JSON lines on standard output", NULL },
	{ "list-plugins", 0, 0, G_OPTION_ARG_NONE, &opt_list_plugins,
	  "List the plugins found (name, kind, record types, plugin ABI, file) and exit", NULL },
	{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
	  "With --list-plugins: also list the shadowed plugin files", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Show the library version and plugin ABI and exit", NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

static struct perfring_registry *reg;
static unsigned problems;
static unsigned dropped_bad;	/* perf.data records the source refused: not written */
/* A pass over inputs whose problems an earlier pass reported: not again. */
static bool quiet_inputs;

static void problem(const char *file, uint64_t offset, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void problem(const char *file, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (quiet_inputs)
		return;
	va_start(ap, fmt);
	m = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	tool_error("%s: offset %#" PRIx64 ": %s", file, offset, m);
	g_free(m);
	problems++;
}

static void log_cb(enum perfring_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level <= PERFRING_LOG_WARN)
		tool_error("%s%s", level == PERFRING_LOG_ERROR ? "" : "warning: ", msg);
}

/* Records written so far, for the progress line. */
static uint64_t done_records;

/* ---- events shared by every input ----------------------------------------- */

struct event {
	struct perfring_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

static GPtrArray *events;	/* struct event * */

static bool has_id(const struct event *e, uint64_t id)
{
	for (size_t k = 0; k < e->nr_ids; k++)
		if (e->ids[k] == id)
			return true;
	return false;
}

/*
 * Add an input's event.  An event of another input with the same attr
 * (apart from attr.size) is the same event: its ids are joined, as perf
 * joins the ids of one event over CPUs.  Ids used by a different event are
 * refused.  Returns 0 or -1 (message printed).
 */
static int add_event(const char *file, const struct perfring_attr *attr, const uint64_t *ids,
		     size_t nr_ids, const char *name)
{
	struct perfring_attr a = *attr;
	struct event *e, *same = NULL;

	a.size = 0;
	for (size_t i = 0; i < events->len; i++) {
		struct perfring_attr b;

		e = events->pdata[i];
		b = e->attr;
		b.size = 0;
		if (!memcmp(&a, &b, sizeof(a)) && !same) {
			same = e;
			continue;
		}
		for (size_t j = 0; j < nr_ids; j++)
			if (has_id(e, ids[j])) {
				tool_error("%s: event id %" PRIu64 " is used by a different "
					   "event of another input", file, ids[j]);
				return -1;
			}
	}
	if (same) {
		for (size_t j = 0; j < nr_ids; j++) {
			if (has_id(same, ids[j]))
				continue;
			same->ids = g_renew(uint64_t, same->ids, same->nr_ids + 2);
			same->ids[same->nr_ids++] = ids[j];
		}
		return 0;
	}
	e = g_new0(struct event, 1);
	e->attr = *attr;
	e->ids = g_new0(uint64_t, nr_ids + 1);
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof(*ids));
	e->nr_ids = nr_ids;
	e->name = name ? g_strdup(name) : NULL;
	g_ptr_array_add(events, e);
	return 0;
}

static void event_free(gpointer p)
{
	struct event *e = p;

	g_free(e->ids);
	g_free(e->name);
	g_free(e);
}

/* ---- inputs ---------------------------------------------------------------- */

/*
 * Every input is read through the library's sources (lib/source/source.c): the
 * kind is told by the magic (perfring_probe), rings are read with
 * PERFRING_SOURCE_RESYNC: every record is validated by the library (a
 * ring's reader, or the source for a perf.data), each damage reported
 * through on_damage and passed.
 */

struct input {
	char *path;
	struct perfring_source *src;
	bool is_ring;
	int source;			/* the writer's */
	bool done;
	int fd;				/* a named input, -1 for standard input */
	struct perfring_source_record rec;	/* the last one read */
	const struct perfring_attr **ev_attr;	/* --event: the source's events */
	bool *ev_keep;				/* and whether --event keeps each */
	uint32_t nr_ev;
};

/* Damage, as the library found it (a ring's: and where it went on; a
 * perf.data's: the record left out). */
static void on_damage(const struct perfring_diag *d, void *user)
{
	const struct input *in = user;

	if (quiet_inputs)
		return;
	tool_progress_end();
	tool_error_diag(d);
	problems++;
	if (!in->is_ring)
		dropped_bad++;
}

static int input_open(struct input *in)
{
	struct perfring_probe pr = { .sz = sizeof(pr) };
	struct perfring_diag diag = { 0 };
	PERFRING_SOURCE_OPTS(o, .flags = PERFRING_SOURCE_RESYNC, .registry = reg,
			     .on_damage = on_damage, .user = in, .name = in->path);
	bool is_stdin = !strcmp(in->path, "-");
	int ret;

	in->rec.sz = sizeof(in->rec);
	/*
	 * Opened once, probed and read on that fd: a FIFO is not opened and
	 * closed again under its writer, and what was probed is what is read.
	 */
	in->fd = is_stdin ? -1 : open(in->path, O_RDONLY | O_CLOEXEC);
	if (!is_stdin && in->fd < 0) {
		tool_error("%s: %s", in->path, g_strerror(errno));
		return -1;
	}
	ret = perfring_probe_fd(is_stdin ? 0 : in->fd, in->path, &pr, &diag);
	if (ret < 0)
		goto diag_fail;
	/* The library maps a ring on a regular standard input; replay wants it named. */
	if (is_stdin && pr.kind == PERFRING_SOURCE_RING) {
		tool_error("-: a ring file cannot be read from standard input; name it");
		return -1;
	}
	if (is_stdin)
		ret = perfring_source_open("-", &o, &diag, &in->src);
	else
		ret = perfring_source_open_fd(in->fd, &o, &diag, &in->src);
	if (ret < 0)
		goto diag_fail;
	in->is_ring = perfring_source_kind(in->src) == PERFRING_SOURCE_RING;
	if (in->is_ring) {
		if (!perfring_source_nr_events(in->src)) {
			tool_error("%s: the ring describes no event", in->path);
			return -1;
		}
	}
	/* Pipe mode: read ahead until the attrs (and their names) are known;
	 * a damage met there comes back, sticky, when reading on. */
	perfring_source_read_ahead(in->src, 0, NULL);
	for (uint32_t i = 0; i < perfring_source_nr_events(in->src); i++) {
		PERFRING_EVENT_DESC(d);

		perfring_source_event(in->src, i, &d);
		if (add_event(in->path, d.attr, d.ids, d.nr_ids, d.name) < 0)
			return -1;
	}
	if (!perfring_source_nr_events(in->src)) {
		tool_error("%s: the perf.data describes no event", in->path);
		return -1;
	}
	/* A file cut short in its feature table or sections is damaged too. */
	if (perfring_source_kind(in->src) == PERFRING_SOURCE_PERFDATA) {
		struct perfring_diag fd = { 0 };

		if (perfring_perfdata_check_features(perfring_source_perfdata(in->src), &fd) < 0)
			problem(in->path, fd.offset, "%s", fd.msg);
	}
	return 0;
diag_fail:
	if (!diag.msg[0])
		snprintf(diag.msg, sizeof(diag.msg), "%s", g_strerror(-ret));
	if (!diag.file[0])
		snprintf(diag.file, sizeof(diag.file), "%s", in->path);
	tool_error_diag(&diag);
	return -1;
}

static void input_close(struct input *in)
{
	perfring_source_close(in->src);
	in->src = NULL;
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	g_free(in->ev_attr);
	g_free(in->ev_keep);
	in->ev_attr = NULL;
	in->ev_keep = NULL;
}

/*
 * The next record of an input: 1 (rec, size, offset and attr set), 0 at its
 * end.  Damage is reported (and counted) here or by on_damage; what can be
 * read past it is.
 */
static int input_next(struct input *in, const void **rec, size_t *size, uint64_t *offset,
		      const struct perfring_attr **attr)
{
	struct perfring_source_record *r = &in->rec;
	struct perfring_diag d;
	int ret;

	if (in->done)
		return 0;
	tool_diag_reset(&d);
	ret = perfring_source_next(in->src, r, &d);
	if (ret < 0 && !quiet_inputs) {
		tool_progress_end();
		problems++;
		tool_error_diag(&d);
	}
	if (ret <= 0) {
		in->done = true;
		return 0;
	}
	*rec = r->hdr;
	*size = r->size;
	*offset = r->offset;
	*attr = r->attr;
	return 1;
}

/* ---- --time, --pid, --tid, --comm, --cpu, --event (tools/replay-filter.c) --- */

static struct replay_filter *filter;	/* NULL: every sample is kept */
static bool filter_ready;		/* its first passes are done */

/* Which of an input's events --event keeps; false if it keeps none of any input. */
static bool filter_events(struct input *in)
{
	bool any = false;

	in->nr_ev = perfring_source_nr_events(in->src);
	in->ev_attr = g_new0(const struct perfring_attr *, in->nr_ev + 1);
	in->ev_keep = g_new0(bool, in->nr_ev + 1);
	for (uint32_t i = 0; i < in->nr_ev; i++) {
		PERFRING_EVENT_DESC(d);

		if (perfring_source_event(in->src, i, &d) < 0)
			continue;
		in->ev_attr[i] = d.attr;
		in->ev_keep[i] = rf_event_wanted(filter, d.name);
		any |= in->ev_keep[i];
	}
	return any;
}

static bool event_kept(const struct input *in, const struct perfring_attr *attr)
{
	for (uint32_t i = 0; i < in->nr_ev; i++)
		if (in->ev_attr[i] == attr)
			return in->ev_keep[i];
	/* not one of the source's own pointers: by contents */
	for (uint32_t i = 0; i < in->nr_ev; i++)
		if (attr && in->ev_attr[i] &&
		    !memcmp(in->ev_attr[i], attr, sizeof(*attr)))
			return in->ev_keep[i];
	return !attr;
}

struct time_bounds {
	uint64_t first, last;
	bool any;
};

static void bounds_add(struct time_bounds *b, uint64_t first, uint64_t last)
{
	if (!first && !last)
		return;
	if (!b->any || first < b->first)
		b->first = first;
	if (!b->any || last > b->last)
		b->last = last;
	b->any = true;
}

static void bounds_scan(void *user, const struct perfring_attr *attr, const void *rec,
			size_t size)
{
	uint64_t t;

	if (((const struct perfring_event_header *)rec)->type != PERFRING_RECORD_SAMPLE)
		return;
	t = rf_sample_time(attr, rec, size);
	if (t)
		bounds_add(user, t, t);
}

static int scan_inputs(int nin, char **paths,
		       void (*fn)(void *user, const struct perfring_attr *attr, const void *rec,
				  size_t size),
		       void *user);

/*
 * Percent slices of --time are of the recording's first to last sample
 * time: from the inputs' SAMPLE_TIME features (what perf report takes
 * them from), or where an input has none (or one of zeros, as perf's pipe
 * mode writes it), from a pass over the samples.
 */
static int filter_time_bounds(struct input *in, int nin, char **paths)
{
	struct time_bounds b = { 0 };
	bool scan = false;
	char err[512];

	for (int i = 0; i < nin && !scan; i++) {
		struct perfring_perfdata *pd = in[i].is_ring ? NULL :
					       perfring_source_perfdata(in[i].src);
		bool found = false;

		for (uint32_t k = 0; pd && k < perfring_perfdata_nr_features(pd); k++) {
			struct perfring_perfdata_feature f = { .sz = sizeof(f) };
			uint64_t v[2];

			if (perfring_perfdata_feature(pd, k, &f, NULL) < 0 ||
			    f.id != PERFRING_FEAT_SAMPLE_TIME || f.size < 16)
				continue;
			memcpy(v, f.data, 16);
			if (perfring_perfdata_needs_swap(pd)) {
				v[0] = GUINT64_SWAP_LE_BE(v[0]);
				v[1] = GUINT64_SWAP_LE_BE(v[1]);
			}
			/* perf writes zeros where it did not know them (pipe mode) */
			if (v[0] || v[1]) {
				bounds_add(&b, v[0], v[1]);
				found = true;
			}
		}
		scan = !found;
	}
	if (scan) {
		b.any = false;
		for (int i = 0; i < nin; i++)
			if (!strcmp(paths[i], "-")) {
				tool_error("--time %s: percents need the recording's first and "
					   "last sample times, and standard input brings no "
					   "SAMPLE_TIME feature: name a file", opt_time);
				return -1;
			}
		if (scan_inputs(nin, paths, bounds_scan, &b) < 0)
			return -1;
	}
	if (rf_resolve_time(filter, b.first, b.last, err, sizeof(err)) < 0) {
		tool_error("%s", err);
		return -1;
	}
	return 0;
}

static void comm_scan(void *user, const struct perfring_attr *attr, const void *rec,
		      size_t size)
{
	rf_scan(user, attr, rec, size);
}

/* --comm: the threads' commands over time, from a first pass over named inputs. */
static int filter_scan(int nin, char **paths)
{
	for (int i = 0; i < nin; i++)
		if (!strcmp(paths[i], "-")) {
			tool_error("warning: --comm on standard input: the commands are "
				   "followed in the input's order, not by time");
			return 0;
		}
	if (scan_inputs(nin, paths, comm_scan, filter) < 0)
		return -1;
	rf_scan_done(filter);
	return 0;
}

/* The filter of the options, or NULL when none is given; -1: bad option. */
static int filter_from_options(void)
{
	char err[512];
	int ret = 0;

	if (!opt_time && !opt_pid && !opt_tid && !opt_comm && !opt_cpu && !opt_event)
		return 0;
	filter = rf_new();
	if ((opt_time && rf_set_time(filter, opt_time, err, sizeof(err)) < 0) ||
	    (opt_pid && rf_set_pids(filter, opt_pid, err, sizeof(err)) < 0) ||
	    (opt_tid && rf_set_tids(filter, opt_tid, err, sizeof(err)) < 0) ||
	    (opt_cpu && rf_set_cpus(filter, opt_cpu, err, sizeof(err)) < 0) ||
	    (opt_comm && rf_set_comms(filter, opt_comm, err, sizeof(err)) < 0) ||
	    (opt_event && rf_set_events(filter, opt_event, err, sizeof(err)) < 0)) {
		tool_error("%s", err);
		ret = -1;
	}
	return ret;
}

/* The summary line; 1 when no sample matched (the output is a valid empty profile). */
static int filter_summary(void)
{
	struct rf_stats st;

	rf_get_stats(filter, &st);
	fprintf(stderr, "perfring-replay: %" PRIu64 " records kept, %" PRIu64 " dropped "
		"(samples: %" PRIu64 " kept, %" PRIu64 " dropped by the filter; %" PRIu64
		" side-band and other records kept)\n", st.kept + st.others, st.dropped,
		st.kept, st.dropped, st.others);
	if (!st.kept) {
		tool_error("no sample matches the filter: %s is a valid profile without "
			   "samples", opt_output);
		return 1;
	}
	return 0;
}

/* ---- ring + perf.data inputs into a perf.data ------------------------------ */

static enum perfring_writer_kmap kmap_for(bool default_auto)
{
	if (!opt_kmap)
		return default_auto ? PERFRING_WRITER_KMAP_AUTO : PERFRING_WRITER_KMAP_NONE;
	if (!strcmp(opt_kmap, "exclude"))
		return PERFRING_WRITER_KMAP_EXCLUDE;
	if (!strcmp(opt_kmap, "none"))
		return PERFRING_WRITER_KMAP_NONE;
	return PERFRING_WRITER_KMAP_AUTO;
}

/* size_hint: the output's expected size (0: unknown), see perfring_writer_opts */
static int writer_open(int argc, char **argv, bool kmap_auto, uint64_t size_hint,
		       struct perfring_writer **w)
{
	struct perfring_diag diag = { 0 };
	PERFRING_WRITER_OPTS(o, .path = opt_output, .keep_unknown = opt_keep_unknown,
			     .size_hint = size_hint,
			     .kmap = kmap_for(kmap_auto), .argc = argc,
			     .argv = (const char *const *)argv,
			     .compression_level = compress_opt_level(),
			     .host = opt_host_features ? PERFRING_WRITER_HOST_LOCAL :
				     PERFRING_WRITER_HOST_NONE);
	int ret = perfring_writer_open(&o, &diag, w);

	if (ret < 0) {
		tool_error_diag(&diag);
		return -1;
	}
	return 0;
}

static int writer_add_events(struct perfring_writer *w)
{
	for (size_t i = 0; i < events->len; i++) {
		struct event *e = events->pdata[i];
		struct perfring_diag diag = { 0 };
		PERFRING_EVENT_DESC(ev, .attr = &e->attr, .ids = e->nr_ids ? e->ids : NULL,
				    .nr_ids = (uint32_t)e->nr_ids, .name = e->name);
		int ret = perfring_writer_add_event(w, &ev, &diag);

		if (ret < 0) {
			tool_error_diag(&diag);
			return -1;
		}
	}
	return 0;
}

static int writer_put(struct perfring_writer *w, int src, const char *file, uint64_t offset,
		      const void *rec, size_t size)
{
	struct perfring_diag diag;
	int ret;

	tool_diag_reset(&diag);
	ret = perfring_writer_write(w, src, rec, size, &diag);

	if (ret == -EINVAL) {
		problem(file, offset, "%s", diag.msg[0] ? diag.msg : "record refused");
		return 0;
	}
	if (ret < 0) {
		tool_error_diag(&diag);
		return -1;
	}
	return 0;
}

static int writer_finish(struct perfring_writer *w)
{
	struct perfring_diag diag = { 0 };
	int ret = perfring_writer_close(w, &diag);

	if (ret < 0) {
		tool_error_diag(&diag);
		return -1;
	}
	return 0;
}

/* ---- header features: the inputs', never this machine's ------------------- */

static struct perfring_perfdata *input_pd(const struct input *in)
{
	return in->is_ring ? NULL : perfring_source_perfdata(in->src);
}

/* The string of feature id of pd into buf ("" if it has none). */
static const char *feature_str(struct perfring_perfdata *pd, uint32_t id, char *buf,
			       size_t len)
{
	uint32_t n = perfring_perfdata_nr_features(pd);

	buf[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		uint32_t l;

		if (perfring_perfdata_feature(pd, i, &f, NULL) < 0 || f.id != id || f.size < 4)
			continue;
		memcpy(&l, f.data, 4);
		if (perfring_perfdata_needs_swap(pd))
			l = GUINT32_SWAP_LE_BE(l);
		if (l <= f.size - 4)
			snprintf(buf, len, "%.*s",
				 (int)strnlen((const char *)f.data + 4, l), (const char *)f.data + 4);
	}
	return buf;
}

/*
 * Is the TRACING_DATA of pd (if any) sound?  1 yes, 0 none, -1 damaged
 * (reported: the writer leaves it out, since perf may crash on it).
 */
static int tracing_data_state(const char *file, struct perfring_perfdata *pd)
{
	uint32_t n = perfring_perfdata_nr_features(pd);
	unsigned flags = perfring_perfdata_is_pipe(pd) ? PERFRING_TRACING_DATA_PIPE : 0;

	for (uint32_t i = 0; i < n; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		struct perfring_diag d;

		if (perfring_perfdata_feature(pd, i, &f, NULL) < 0 ||
		    f.id != PERFRING_FEAT_TRACING_DATA)
			continue;
		tool_diag_reset(&d);
		if (perfring_tracing_data_check(f.data, f.size, flags, NULL, &d) < 0) {
			problem(file, f.offset + d.offset, "TRACING_DATA damaged (left out: perf "
				"could crash on it): %s", d.msg);
			return -1;
		}
		/* a tracepoint without its format: perf refuses the file (and
		 * crashes on a stream) */
		for (size_t k = 0; k < events->len; k++) {
			const struct event *e = events->pdata[k];

			if (e->attr.type == PERFRING_TYPE_TRACEPOINT &&
			    perfring_tracing_data_find_id(f.data, f.size, flags, e->attr.config,
							  NULL, 0, &d) == 0) {
				problem(file, f.offset, "TRACING_DATA has no format for "
					"tracepoint event %s (id %" PRIu64 "): left out",
					e->name ? e->name : "", e->attr.config);
				return -1;
			}
		}
		return 1;
	}
	return 0;
}

/*
 * The output's header (perfring-replay(1), HEADER FEATURES): the features
 * of the first perf.data input that has any, as they are; BUILD_ID merged
 * from every input; TRACING_DATA from the first input with a sound one,
 * and never this machine's for perf.data inputs.  The writer builds only
 * what the rewrite changes.  Inputs that bring no features get no host
 * facts but with --host-features.  Returns 0 or -1 (message printed).
 */
static int carry_features(struct perfring_writer *w, struct input *in, int nin)
{
	struct perfring_diag diag = { 0 };
	struct perfring_perfdata *head = NULL;
	char hh[256], ho[256], h[256], o[256];
	const char *head_path = NULL;
	uint64_t conflicts = 0;
	bool any_pd = false;
	int tracing = 0;

	for (int i = 0; i < nin; i++) {
		struct perfring_perfdata *pd = input_pd(&in[i]);
		int t;

		if (!pd)
			continue;
		any_pd = true;
		t = tracing_data_state(in[i].path, pd);
		if (!head && perfring_perfdata_nr_features(pd)) {
			head = pd;
			head_path = in[i].path;
			tracing = t;
			if (perfring_writer_copy_features(w, pd, PERFRING_WRITER_COPY_ALL,
							  &conflicts, &diag) < 0)
				goto fail;
			feature_str(pd, PERFRING_FEAT_HOSTNAME, hh, sizeof(hh));
			feature_str(pd, PERFRING_FEAT_OSRELEASE, ho, sizeof(ho));
			continue;
		}
		if (perfring_writer_copy_features(w, pd, PERFRING_WRITER_COPY_BUILD_IDS |
						  (tracing <= 0 && t > 0 ?
						   PERFRING_WRITER_COPY_TRACING_DATA : 0),
						  &conflicts, &diag) < 0)
			goto fail;
		if (tracing <= 0 && t > 0)
			tracing = 1;
		if (!head || !perfring_perfdata_nr_features(pd))
			continue;
		feature_str(pd, PERFRING_FEAT_HOSTNAME, h, sizeof(h));
		feature_str(pd, PERFRING_FEAT_OSRELEASE, o, sizeof(o));
		if (strcmp(h, hh) || strcmp(o, ho))
			tool_error("warning: %s was recorded on another host (%s, %s) than %s "
				   "(%s, %s): the output's header is that of %s", in[i].path,
				   *h ? h : "no hostname", *o ? o : "no os release", head_path,
				   *hh ? hh : "no hostname", *ho ? ho : "no os release",
				   head_path);
	}
	if (any_pd && tracing <= 0 &&
	    perfring_writer_set_feature(w, PERFRING_FEAT_TRACING_DATA, NULL, 0, &diag) < 0)
		goto fail;
	if (conflicts)
		tool_error("warning: %" PRIu64 " BUILD_ID entr%s of later inputs left out: "
			   "an earlier input gives %s another build id", conflicts,
			   conflicts == 1 ? "y" : "ies", conflicts == 1 ? "its file" : "their files");
	return 0;
fail:
	tool_error_diag(&diag);
	return -1;
}

/* ---- --jit: JIT symbols baked in (tools/jit-bake.c) ------------------------ */

static void restore_stderr(int *fd)
{
	if (*fd < 0)
		return;
	fflush(stderr);
	dup2(*fd, 2);
	close(*fd);
	*fd = -1;
}

/*
 * A first pass over the inputs (opened again): fn sees every record.  The
 * inputs were opened (and their open errors shown) already; what this pass
 * finds wrong in them the second pass reports, once: its messages go to
 * /dev/null and its problems and drops are not counted.  0, or -1 when an input
 * cannot be opened again.
 */
static int scan_inputs(int nin, char **paths,
		       void (*fn)(void *user, const struct perfring_attr *attr, const void *rec,
				  size_t size),
		       void *user)
{
	unsigned saved = problems, saved_bad = dropped_bad;
	int err_fd = -1, null_fd, status = 0;

	fflush(stderr);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd >= 0) {
		err_fd = dup(2);
		if (err_fd >= 0)
			dup2(null_fd, 2);
		close(null_fd);
	}
	for (int i = 0; i < nin && !status; i++) {
		struct input scan = { .path = paths[i], .fd = -1 };
		const struct perfring_attr *attr;
		const void *rec;
		size_t size;
		uint64_t off;

		if (input_open(&scan) < 0)
			status = -1;
		else
			while (input_next(&scan, &rec, &size, &off, &attr) == 1)
				fn(user, attr, rec, size);
		input_close(&scan);
	}
	restore_stderr(&err_fd);
	problems = saved;
	dropped_bad = saved_bad;
	return status;
}

static void jit_scan(void *user, const struct perfring_attr *attr, const void *rec, size_t size)
{
	jit_bake_scan(user, attr, rec, size);
}

/*
 * A first pass over the inputs finds the marker maps and the anonymous exec
 * maps; then the dumps (or perf maps) are read and the ELFs written.
 * Returns the baker, or NULL (message printed); *evi: the index of the
 * event whose trailer the MMAP2s carry.
 */
static struct jit_bake *jit_prepare(int nin, char **paths, size_t *evi)
{
	const char *base = strcmp(opt_output, "-") ? opt_output : paths[0];
	struct jit_bake *b = jit_bake_new(base, opt_perf_map_dir);
	const struct event *ev = NULL;
	struct jit_bake_stats st;

	/*
	 * The inputs were opened (and their open errors shown) already; what
	 * this pass finds wrong in them the second pass reports, once.
	 */
	for (int i = 0; i < nin; i++)
		if (!strcmp(paths[i], "-")) {
			tool_error("--jit reads its inputs twice: name a file, not -");
			goto fail;
		}
	if (scan_inputs(nin, paths, jit_scan, b) < 0)
		goto fail;
	/* The MMAP2s carry the trailer of the event that tracks maps. */
	for (size_t i = 0; i < events->len && !ev; i++) {
		const struct event *e = events->pdata[i];

		if (e->attr.flags & PERFRING_ATTR_MMAP) {
			ev = e;
			*evi = i;
		}
	}
	if (!ev && events->len) {
		ev = events->pdata[0];
		*evi = 0;
	}
	if (!ev) {
		tool_error("--jit: the input has no event");
		goto fail;
	}
	if (jit_bake_build(b, &ev->attr, ev->nr_ids ? ev->ids[0] : 0) < 0)
		goto fail;
	jit_bake_get_stats(b, &st);
	problems += (unsigned)st.problems;
	if (st.elfs && !((ev->attr.flags & PERFRING_ATTR_USE_CLOCKID) && ev->attr.clockid == 1))
		tool_error("warning: --jit: the events were not recorded with CLOCK_MONOTONIC "
			   "(perf record -k mono): JIT maps may land at the wrong time");
	return b;
fail:
	jit_bake_free(b);
	return NULL;
}

/* A batch of the baked MMAP2s into their source. */
static int jit_feed(struct perfring_writer *w, struct jit_bake *b, int src, bool *done)
{
	const void *rec;
	size_t size;

	for (int n = 0; n < BATCH; n++) {
		if (jit_bake_next(b, &rec, &size) != 1) {
			struct perfring_diag diag = { 0 };

			*done = true;
			if (perfring_writer_end_source(w, src, &diag) < 0) {
				tool_error_diag(&diag);
				return -1;
			}
			return 0;
		}
		if (writer_put(w, src, "--jit", 0, rec, size) < 0)
			return -1;
	}
	return 0;
}

static void jit_summary(const struct jit_bake *b)
{
	struct jit_bake_stats st;

	jit_bake_get_stats(b, &st);
	fprintf(stderr, "perfring-replay: --jit: %" PRIu64 " JIT functions resolved from %"
		PRIu64 " jitdump(s) and %" PRIu64 " perf map(s) into %" PRIu64 " ELF file(s); %"
		PRIu64 " MMAP2 records added (%" PRIu64 " for moves), %" PRIu64
		" anonymous exec maps and %" PRIu64 " marker maps dropped",
		st.functions, st.dumps, st.maps, st.elfs, st.mmaps, st.moves, st.dropped_anon,
		st.dropped_markers);
	if (st.outside)
		fprintf(stderr, ", %" PRIu64 " perf-map entries outside JIT memory skipped",
			st.outside);
	fputc('\n', stderr);
}

/* ---- markers: a program's marker rings merged (tools/marks-merge.c) -------- */

struct marks_state {
	struct marks_merge *m;
	struct perfring_attr *orig;	/* the events' attrs as the inputs give them */
	size_t nr;
	GByteArray *td;			/* the output's TRACING_DATA */
	struct marks_span *spans;	/* --span */
	uint64_t kept, dropped;		/* --span: samples */
	/* --span on an input merged before: no merge (m is NULL), the spans
	 * from the input's own perfring:mark samples, of this tracepoint */
	uint64_t mark_config;
	uint8_t buf[REC_MAX + 16];
};

static void marks_state_free(struct marks_state *ms)
{
	if (!ms)
		return;
	marks_merge_free(ms->m);
	marks_span_free(ms->spans);
	g_free(ms->orig);
	if (ms->td)
		g_byte_array_free(ms->td, TRUE);
	g_free(ms);
}

/* The TRACING_DATA the output carries from the inputs (as carry_features
 * picks it: the first sound one), or NULL. */
static const void *marks_input_td(struct input *in, int nin, size_t *len, unsigned *flags)
{
	for (int i = 0; i < nin; i++) {
		struct perfring_perfdata *pd = input_pd(&in[i]);
		const void *td = pd ? marks_pd_tracing_data(pd, len, flags) : NULL;

		if (td)
			return td;
	}
	return NULL;
}

static void marks_scan(void *user, const struct perfring_attr *attr, const void *rec,
		       size_t size)
{
	marks_merge_scan(user, attr, rec, size);
}

/*
 * Find the marker rings (the input's maps, --markers), read them and plan
 * the output: *out is NULL when there is nothing to merge.  Returns 0, or
 * -1 (message printed).
 */
/* --span on a merged input: every begin and end among its perfring:mark samples. */
static void span_scan(void *user, const struct perfring_attr *attr, const void *rec, size_t size)
{
	struct marks_state *ms = user;
	struct perfring_sample smp;
	struct marks_sample mk;

	if (!attr || attr->type != PERFRING_TYPE_TRACEPOINT || attr->config != ms->mark_config ||
	    ((const struct perfring_event_header *)rec)->type != PERFRING_RECORD_SAMPLE ||
	    perfring_sample_decode(attr, rec, size, &smp, NULL) < 0 || !smp.raw ||
	    marks_sample_decode(smp.raw, smp.raw_size, &mk) < 0)
		return;
	marks_span_add(ms->spans, (int32_t)smp.tid, smp.time,
		       !strcmp(mk.kind, "begin") ? PERFRING_MARK_BEGIN :
		       !strcmp(mk.kind, "end") ? PERFRING_MARK_END : PERFRING_MARK_INSTANT,
		       mk.name, strlen(mk.name));
}

static int spans_from_input(int nin, char **paths, const struct event *mark,
			    struct marks_state *ms, struct marks_state **out)
{
	marks_merge_free(ms->m);
	ms->m = NULL;
	ms->mark_config = mark->attr.config;
	ms->spans = marks_span_new(opt_span);
	if (scan_inputs(nin, paths, span_scan, ms) < 0) {
		marks_state_free(ms);
		return -1;
	}
	marks_span_build(ms->spans);
	*out = ms;
	return 0;
}

static int marks_prepare(struct input *in, int nin, char **paths, struct marks_state **out)
{
	struct marks_state *ms = g_new0(struct marks_state, 1);
	struct marks_event *mev = NULL;
	struct marks_merge_stats st;
	const void *td;
	size_t td_len = 0;
	unsigned td_flags = 0;

	*out = NULL;
	ms->m = marks_merge_new();
	for (int i = 0; i < nin; i++) {
		struct stat sb;

		if (strcmp(paths[i], "-") && stat(paths[i], &sb) == 0 && S_ISREG(sb.st_mode))
			continue;
		/* a stream (-, a FIFO) cannot be read a second time */
		if (opt_markers || opt_span) {
			tool_error("--markers, --span: the input is read twice to find the rings: "
				   "name a regular file, not %s", paths[i]);
			goto fail;
		}
		goto none;
	}
	for (size_t i = 0; i < events->len; i++) {
		const struct event *e = events->pdata[i];

		if (e->attr.type == PERFRING_TYPE_TRACEPOINT && e->name &&
		    !strcmp(e->name, MARKS_EVENT_NAME)) {
			if (opt_markers) {
				tool_error("--markers: the input has merged markers already");
				goto fail;
			}
			if (opt_span)	/* the spans of the markers it has */
				return spans_from_input(nin, paths, e, ms, out);
			goto none;	/* merged before: its maps would double them */
		}
	}
	if (scan_inputs(nin, paths, marks_scan, ms->m) < 0)
		goto fail;
	for (gchar **p = opt_markers; p && *p; p++)
		if (marks_merge_add_path(ms->m, *p) < 0)
			goto fail;
	if (!marks_merge_nr_rings(ms->m))
		goto none;
	if (!strcmp(opt_output, "-")) {
		if (opt_markers) {
			tool_error("--markers: markers are merged into a file, not a pipe (-o -)");
			goto fail;
		}
		tool_error("note: the input names marker rings: they are merged into a file "
			   "output only, not into a pipe (-o -)");
		goto none;
	}
	if (!events->len) {
		tool_error("warning: markers: the input has no event: not merged");
		goto none;
	}
	for (size_t i = 0; i < events->len; i++) {
		const struct event *e = events->pdata[i];

		if (!((e->attr.flags & PERFRING_ATTR_USE_CLOCKID) && e->attr.clockid == 1) ||
		    !(e->attr.sample_type & PERFRING_SAMPLE_TIME)) {
			tool_error("warning: markers: the recording is not on CLOCK_MONOTONIC "
				   "with times (record with perf record -k mono): the marker "
				   "rings are not merged");
			goto none;
		}
	}
	marks_merge_load(ms->m);
	marks_merge_get_stats(ms->m, &st);
	problems += (unsigned)st.problems;
	if (!st.markers && !st.lost) {
		marks_merge_summary(ms->m);
		goto none;
	}
	ms->nr = events->len;
	ms->orig = g_new(struct perfring_attr, ms->nr);
	mev = g_new0(struct marks_event, ms->nr);
	for (size_t i = 0; i < events->len; i++) {
		struct event *e = events->pdata[i];

		ms->orig[i] = e->attr;
		mev[i].attr = &e->attr;
		mev[i].ids = &e->ids;
		mev[i].nr_ids = &e->nr_ids;
	}
	td = marks_input_td(in, nin, &td_len, &td_flags);
	ms->td = g_byte_array_new();
	if (marks_merge_plan(ms->m, mev, ms->nr, td, td_len, td_flags, ms->td) < 0)
		goto fail;
	if (opt_span)
		ms->spans = marks_merge_spans(ms->m, opt_span);
	g_free(mev);
	*out = ms;
	return 0;
none:
	g_free(mev);
	marks_state_free(ms);
	if (opt_span) {
		tool_error("--span %s: no markers to take the spans from (the recording "
			   "names no marker ring, or they cannot be merged: see above)", opt_span);
		return -1;
	}
	return 0;
fail:
	g_free(mev);
	marks_state_free(ms);
	return -1;
}

/* The marker event, the output's TRACING_DATA: after the inputs' features. */
static int marks_setup(struct perfring_writer *w, struct marks_state *ms)
{
	struct perfring_diag diag = { 0 };
	uint64_t id;
	const struct perfring_attr *a = marks_merge_event(ms->m, &id);
	PERFRING_EVENT_DESC(ev, .attr = a, .ids = &id, .nr_ids = 1, .name = MARKS_EVENT_NAME);

	if (perfring_writer_add_event(w, &ev, &diag) < 0 ||
	    perfring_writer_set_feature(w, PERFRING_FEAT_TRACING_DATA, ms->td->data, ms->td->len,
					&diag) < 0) {
		tool_error_diag(&diag);
		return -1;
	}
	return 0;
}

/* --span: false for a sample taken outside the spans (dropped). */
static bool marks_keep(struct marks_state *ms, const struct perfring_attr *attr, const void *rec,
		       size_t size)
{
	uint32_t tid;
	uint64_t time;

	if (!ms->spans || ((const struct perfring_event_header *)rec)->type != PERFRING_RECORD_SAMPLE)
		return true;
	if (!ms->m && attr && attr->type == PERFRING_TYPE_TRACEPOINT &&
	    attr->config == ms->mark_config)
		return true;	/* the input's own markers stay */
	if (marks_sample_tid_time(attr, rec, size, &tid, &time) &&
	    !marks_span_inside(ms->spans, (int32_t)tid, time)) {
		ms->dropped++;
		return false;
	}
	ms->kept++;
	return true;
}

/* An input record for the output (IDENTIFIER added where needed). */
static size_t marks_fix(struct marks_state *ms, const struct perfring_attr *attr,
			const void **rec, size_t size)
{
	struct perfring_attr a;

	if (!attr || !marks_needs_identifier(attr))
		return size;
	a = *attr;
	a.size = 0;
	for (size_t i = 0; i < ms->nr; i++) {
		struct perfring_attr b = ms->orig[i];

		b.size = 0;
		if (!memcmp(&a, &b, sizeof(a)))
			return marks_merge_fix(attr, ((struct event *)events->pdata[i])->ids[0],
					       *rec, size, ms->buf, rec);
	}
	return marks_merge_fix(attr, ((struct event *)events->pdata[0])->ids[0], *rec, size,
			       ms->buf, rec);
}

static int marks_feed(struct perfring_writer *w, struct marks_state *ms, int src, bool *done)
{
	const void *rec;
	size_t size;

	for (int n = 0; n < BATCH; n++) {
		if (marks_merge_next(ms->m, &rec, &size) != 1) {
			struct perfring_diag diag = { 0 };

			*done = true;
			if (perfring_writer_end_source(w, (uint32_t)src, &diag) < 0) {
				tool_error_diag(&diag);
				return -1;
			}
			return 0;
		}
		if (writer_put(w, src, "markers", 0, rec, size) < 0)
			return -1;
	}
	return 0;
}

/*
 * Can the markers be looked for during the pass that writes the output,
 * instead of in a pass of their own before it?  Only where none was asked
 * for and that pass can be done again if the input names marker rings:
 * regular files in, a file out.
 */
static bool can_look_for_markers_later(int nin, char **paths)
{
	if (opt_no_markers || opt_markers || opt_span || opt_jit || opt_json_out ||
	    !opt_output || !strcmp(opt_output, "-"))
		return false;
	for (int i = 0; i < nin; i++) {
		struct stat sb;

		if (!strcmp(paths[i], "-") || stat(paths[i], &sb) < 0 || !S_ISREG(sb.st_mode))
			return false;
	}
	return true;
}

static bool has_marks_event(void)
{
	for (size_t i = 0; i < events->len; i++) {
		const struct event *e = events->pdata[i];

		if (e->attr.type == PERFRING_TYPE_TRACEPOINT && e->name &&
		    !strcmp(e->name, MARKS_EVENT_NAME))
			return true;
	}
	return false;
}

static int replay_pass(int nin, char **paths, int argc, char **argv, bool later,
		       bool *again);

/*
 * The common case in one pass: the output is written while the input's
 * maps are looked at for marker rings; only when it names some is the
 * output written again, with the markers merged (their own pass first).
 */
static int replay_inputs(int nin, char **paths, int argc, char **argv)
{
	bool again = false;
	int status = replay_pass(nin, paths, argc, argv,
				 can_look_for_markers_later(nin, paths), &again);

	if (!again)
		return status;
	g_ptr_array_set_size(events, 0);
	if (filter)
		rf_reset_stats(filter);
	done_records = 0;
	quiet_inputs = true;	/* the first pass reported them */
	status = replay_pass(nin, paths, argc, argv, false, &again);
	quiet_inputs = false;
	return status;
}

/* One pass over the inputs into one output: what replay_pass's steps share. */
struct pass {
	struct input *in;
	int nin;
	struct perfring_writer *w;
	struct jit_bake *bake;
	struct marks_state *marks;
	struct marks_merge *look;	/* later: the marker rings named */
	int bake_src, marks_src;
	bool bake_done, marks_done;
};

/* Open every input; their events are declared as they open. */
static int open_inputs(struct pass *p, char **paths, bool *any_ring)
{
	for (int i = 0; i < p->nin; i++)
		p->in[i].fd = -1;
	for (int i = 0; i < p->nin; i++) {
		p->in[i].path = paths[i];
		if (input_open(&p->in[i]) < 0)
			return -1;
		*any_ring |= p->in[i].is_ring;
	}
	return 0;
}

/* The filter's events, and its first passes (time bounds, scans), once. */
static int prepare_filter(struct pass *p, char **paths)
{
	bool any = false;

	for (int i = 0; i < p->nin; i++)
		any |= filter_events(&p->in[i]);
	if (!any) {
		tool_error("--event %s: no event of the input%s has that name",
			   opt_event, p->nin > 1 ? "s" : "");
		return -1;
	}
	/* once: a pass done again (markers found) has them */
	if (!filter_ready && rf_time_needs_bounds(filter) &&
	    filter_time_bounds(p->in, p->nin, paths) < 0)
		return -1;
	if (!filter_ready && rf_needs_scan(filter) && filter_scan(p->nin, paths) < 0)
		return -1;
	filter_ready = true;
	return 0;
}

/* --json-out: the events as ATTR lines, then every record as a line. */
static int write_json_lines(struct pass *p)
{
	GString *line = g_string_new(NULL);
	const struct perfring_attr **attrs = g_new(const struct perfring_attr *, events->len + 1);
	const uint64_t **ids = g_new(const uint64_t *, events->len + 1);
	size_t *nr_ids = g_new(size_t, events->len + 1);

	for (size_t i = 0; i < events->len; i++) {
		struct event *e = events->pdata[i];

		g_string_truncate(line, 0);
		jc_encode_attr(line, &e->attr, e->ids, e->nr_ids, e->name);
		puts(line->str);
		attrs[i] = &e->attr;
		ids[i] = e->ids;
		nr_ids[i] = e->nr_ids;
	}
	for (int i = 0; i < p->nin; i++) {
		const void *rec;
		const struct perfring_attr *attr;
		size_t size;
		uint64_t off;

		while (input_next(&p->in[i], &rec, &size, &off, &attr) == 1) {
			if (((const struct perfring_event_header *)rec)->type ==
			    PERFRING_RECORD_HEADER_ATTR)
				continue;	/* the ATTR lines above */
			g_string_truncate(line, 0);
			jc_encode_record(line, reg,
					 jc_field_attr(attrs, ids, nr_ids, events->len, attr, rec,
						       size),
					 rec, size, false, 0);
			puts(line->str);
		}
	}
	g_free(attrs);
	g_free(ids);
	g_free(nr_ids);
	g_string_free(line, TRUE);
	return fflush(stdout) == 0 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
}

/*
 * What the output will about weigh: the inputs' sizes, which a rewrite keeps
 * (the header and features are a few KiB either way).  0 when compressing
 * (the output is some fraction of that) or when an input has no size (a
 * pipe).  A filter keeps less: the writer gives back what is not used.
 */
static uint64_t output_size_hint(const struct pass *p)
{
	uint64_t sum = 0;

	if (compress_opt_level())
		return 0;
	for (int i = 0; i < p->nin; i++) {
		struct stat st;

		if (p->in[i].fd < 0 || fstat(p->in[i].fd, &st) < 0 || !S_ISREG(st.st_mode))
			return 0;
		sum += (uint64_t)st.st_size;
	}
	return sum;
}

/*
 * The JIT baking and the markers, then the writer with its events,
 * features and one source per input (and per baker and marker merge).
 * --jit first: its pass opens the inputs again, which declares their
 * events again, as they are; the markers then change them (IDENTIFIER,
 * ids), and the MMAP2s baked get the event as changed.
 */
static int prepare_output(struct pass *p, char **paths, int argc, char **argv, bool later,
			  bool any_ring)
{
	size_t bake_ev = 0;

	if (opt_jit && !(p->bake = jit_prepare(p->nin, paths, &bake_ev)))
		return -1;
	if (later && !has_marks_event())
		p->look = marks_merge_new();
	else if (!later && !opt_no_markers && marks_prepare(p->in, p->nin, paths, &p->marks) < 0)
		return -1;
	if (p->bake && p->marks && p->marks->m) {
		const struct event *e = events->pdata[bake_ev];

		jit_bake_set_event(p->bake, &e->attr, e->ids[0]);
	}
	if (writer_open(argc, argv, any_ring, output_size_hint(p), &p->w) < 0 ||
	    writer_add_events(p->w) < 0 ||
	    carry_features(p->w, p->in, p->nin) < 0 ||
	    (p->marks && p->marks->m && marks_setup(p->w, p->marks) < 0))
		return -1;
	for (int i = 0; i < p->nin; i++)
		p->in[i].source = perfring_writer_add_source(p->w);
	if (p->bake)
		p->bake_src = perfring_writer_add_source(p->w);
	if (p->marks && p->marks->m)
		p->marks_src = perfring_writer_add_source(p->w);
	else
		p->marks_done = true;
	return 0;
}

/* One record of an input: through the baker, the markers and the filter
 * into the writer.  -1 on a writer error. */
static int put_record(struct pass *p, struct input *in, const struct perfring_attr *attr,
		      const void *rec, size_t size, uint64_t off)
{
	if (p->look) {
		uint32_t type = ((const struct perfring_event_header *)rec)->type;

		if (type == PERFRING_RECORD_MMAP || type == PERFRING_RECORD_MMAP2)
			marks_merge_scan(p->look, attr, rec, size);
	}
	if (p->bake && jit_bake_drop(p->bake, attr, rec, size))
		return 0;
	if (p->marks && !marks_keep(p->marks, attr, rec, size))
		return 0;
	if (filter && !rf_keep(filter, attr, event_kept(in, attr), rec, size))
		return 0;
	if (p->marks && p->marks->m && !(size = marks_fix(p->marks, attr, &rec, size))) {
		problem(in->path, off, "a record of 65528 bytes or more has no room for the "
			"sample id that the markers' event needs: dropped");
		return 0;
	}
	if (writer_put(p->w, in->source, in->path, off, rec, size) < 0)
		return -1;
	if (!(++done_records % 4096))
		tool_progress("%" PRIu64 " records...", done_records);
	return 0;
}

/* A batch of one input's records: 1 if it has more, 0 at its end (its
 * writer source ended), -1 on an error. */
static int feed_input(struct pass *p, struct input *in)
{
	const void *rec;
	const struct perfring_attr *attr;
	size_t size;
	uint64_t off;
	struct perfring_diag diag = { 0 };

	if (in->done)
		return 0;
	for (int n = 0; n < BATCH; n++) {
		if (input_next(in, &rec, &size, &off, &attr) != 1)
			break;
		if (put_record(p, in, attr, rec, size, off) < 0)
			return -1;
	}
	if (!in->done)
		return 1;
	if (perfring_writer_end_source(p->w, in->source, &diag) < 0) {
		tool_error_diag(&diag);
		return -1;
	}
	return 0;
}

/* The inputs, the baked JIT maps and the markers, merged into the writer. */
static int copy_records(struct pass *p)
{
	bool left;

	do {
		left = false;
		if (p->bake && !p->bake_done &&
		    jit_feed(p->w, p->bake, p->bake_src, &p->bake_done) < 0)
			return -1;
		left |= p->bake && !p->bake_done;
		if (p->marks && !p->marks_done &&
		    marks_feed(p->w, p->marks, p->marks_src, &p->marks_done) < 0)
			return -1;
		left |= p->marks && !p->marks_done;
		for (int i = 0; i < p->nin; i++) {
			int r = feed_input(p, &p->in[i]);

			if (r < 0)
				return -1;
			left |= r > 0;
		}
	} while (left);
	tool_progress_end();
	return 0;
}

/* The output completed, and the summaries: the exit status. */
static int finish_pass(struct pass *p)
{
	int status = TOOL_EXIT_OK;
	int r = writer_finish(p->w);

	p->w = NULL;	/* finished or aborted by writer_finish */
	if (r < 0)
		return TOOL_EXIT_USAGE;
	if (p->bake)
		jit_summary(p->bake);
	if (p->marks && p->marks->m)
		marks_merge_summary(p->marks->m);
	if (p->marks && p->marks->spans)
		tool_error("%" PRIu64 " samples kept, %" PRIu64 " dropped (%" PRIu64 " spans)",
			   p->marks->kept, p->marks->dropped, marks_span_count(p->marks->spans));
	if (filter && filter_summary())
		status = TOOL_EXIT_PROBLEMS;
	return status;
}

/*
 * later: look for marker rings while writing (can_look_for_markers_later);
 * *again set when they were found: nothing is written then.
 */
static int replay_pass(int nin, char **paths, int argc, char **argv, bool later,
		       bool *again)
{
	struct pass p = { .in = g_new0(struct input, nin), .nin = nin,
			  .bake_src = -1, .marks_src = -1 };
	bool any_ring = false;
	int status = TOOL_EXIT_USAGE;

	if (open_inputs(&p, paths, &any_ring) < 0 || (filter && prepare_filter(&p, paths) < 0))
		goto out;
	if (opt_json_out) {
		status = write_json_lines(&p);
		goto out;
	}
	if (prepare_output(&p, paths, argc, argv, later, any_ring) < 0 || copy_records(&p) < 0)
		goto out;
	if (p.look && marks_merge_nr_rings(p.look)) {
		*again = true;	/* with the markers merged */
		goto out;
	}
	status = finish_pass(&p);
out:
	perfring_writer_abort(p.w);
	for (int i = 0; i < nin; i++)
		input_close(&p.in[i]);
	g_free(p.in);
	jit_bake_free(p.bake);
	marks_state_free(p.marks);
	marks_merge_free(p.look);
	return status;
}

/* ---- JSON lines in ------------------------------------------------------------ */

static int write_ring(const struct jc_decoder *d, const GByteArray *recs, const GArray *offs)
{
	size_t nev = jc_decoder_nr_events(d);
	struct perfring_event_desc *desc = g_new0(struct perfring_event_desc, nev);
	struct perfring_attr *attrs = g_new0(struct perfring_attr, nev);
	uint64_t size = (uint64_t)sysconf(_SC_PAGESIZE);
	struct perfring_ring *r = NULL;
	struct perfring_diag diag = { 0 };
	int ret, status = TOOL_EXIT_USAGE;

	for (size_t i = 0; i < nev; i++) {
		const struct jc_event *e = jc_decoder_event(d, i);

		attrs[i] = e->attr;
		if (!attrs[i].size)
			attrs[i].size = PERFRING_ATTR_SIZE_VER0;
		if (attrs[i].size > PERFRING_ATTR_SIZE_VER8) {
			tool_error("%s: event %zu: a ring holds attrs of at most %u bytes",
				   opt_json_in, i, PERFRING_ATTR_SIZE_VER8);
			goto out;
		}
		desc[i].sz = sizeof(desc[i]);
		desc[i].attr = &attrs[i];
		desc[i].ids = e->ids;
		desc[i].nr_ids = (uint32_t)e->nr_ids;
		desc[i].name = e->name;
	}
	while (size - 8 < recs->len)
		size *= 2;
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = opt_ring,
				   .data_size = size, .flags = PERFRING_RING_TRUNCATE,
				   .events = desc, .nr_events = (uint32_t)nev);

		if (nev && (attrs[0].flags & PERFRING_ATTR_USE_CLOCKID)) {
			o.flags |= PERFRING_RING_CLOCKID;
			o.clockid = attrs[0].clockid;
		}
		ret = perfring_ring_create(&o, &diag, &r);
	}
	if (ret < 0) {
		tool_error_diag(&diag);
		goto out;
	}
	for (size_t off = 0, k = 0; off < recs->len; k++) {
		/* Records follow each other unaligned (a "raw" one may be 13 bytes). */
		struct perfring_event_header hd, *h = &hd;
		unsigned char rec[REC_MAX];

		memcpy(&hd, recs->data + off, sizeof(hd));
		memcpy(rec, recs->data + off, hd.size);
		ret = perfring_ring_write(r, rec);
		if (ret < 0) {
			tool_error("%s: line %u: the ring refuses the record: %s", opt_json_in,
				   g_array_index(offs, unsigned, k), g_strerror(-ret));
			problems++;
		}
		off += h->size;
	}
	status = TOOL_EXIT_OK;
out:
	perfring_ring_close(r);
	g_free(desc);
	g_free(attrs);
	return status;
}

/*
 * JSON lines bring no header features: the writer builds the tracepoint
 * formats from tracefs, which has no perfring:mark.  A lone marker event
 * gets its format here (made as marks-merge makes it).  0 or -1.
 */
static int json_marks_format(struct perfring_writer *w)
{
	const struct event *mark = NULL;
	bool others = false;

	for (size_t i = 0; i < events->len; i++) {
		const struct event *e = events->pdata[i];

		if (e->attr.type != PERFRING_TYPE_TRACEPOINT)
			continue;
		if (e->name && !strcmp(e->name, MARKS_EVENT_NAME))
			mark = e;
		else
			others = true;
	}
	if (!mark)
		return 0;
	if (others) {
		tool_error("warning: %s: the format of perfring:mark is not written beside "
			   "other tracepoints' (perf script shows its raw data only)", opt_json_in);
		return 0;
	}
	{
		GByteArray *td = g_byte_array_new();
		struct perfring_diag diag = { 0 };
		char err[256];
		int ret = marks_tracing_data(NULL, 0, 0, mark->attr.config, td, err, sizeof(err));

		if (ret < 0)
			tool_error("%s", err);
		else if (perfring_writer_set_feature(w, PERFRING_FEAT_TRACING_DATA, td->data,
						     td->len, &diag) < 0) {
			tool_error_diag(&diag);
			ret = -1;
		}
		g_byte_array_free(td, TRUE);
		return ret;
	}
}

static int replay_json(int argc, char **argv)
{
	struct jc_decoder *d = jc_decoder_new(reg);
	struct perfring_writer *w = NULL;
	unsigned char *buf = g_malloc(REC_MAX);
	GByteArray *recs = g_byte_array_new();	/* --ring: records */
	GArray *lines = g_array_new(FALSE, FALSE, sizeof(unsigned));
	bool is_stdin = !strcmp(opt_json_in, "-");
	FILE *f = is_stdin ? stdin : fopen(opt_json_in, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t got;
	int status = TOOL_EXIT_USAGE;
	bool started = false;
	unsigned lineno = 0;

	if (!f) {
		tool_error("%s: %s", opt_json_in, g_strerror(errno));
		goto out;
	}
	if (!opt_ring && writer_open(argc, argv, true, 0, &w) < 0)
		goto out;
	/* Line by line: memory stays flat however long the input. */
	while ((got = getline(&text, &cap, f)) >= 0) {
		size_t n = (size_t)got, size = 0;
		char *err = NULL;
		int kind;

		if (n && text[n - 1] == '\n')
			n--;
		lineno++;
		kind = jc_decode_line(d, text, n, buf, &size, &err);
		if (kind < 0) {
			tool_error("%s: line %u: %s", opt_json_in, lineno, err);
			g_free(err);
			problems++;
			continue;
		}
		if (kind == JC_LINE_ATTR && started) {
			tool_error("%s: line %u: ATTR line after the first record (ignored)",
				   opt_json_in, lineno);
			problems++;
			continue;
		}
		if (kind != JC_LINE_RECORD)
			continue;
		if (!started) {
			const struct jc_event *e;

			started = true;
			for (size_t i = 0; i < jc_decoder_nr_events(d); i++) {
				e = jc_decoder_event(d, i);
				if (add_event(opt_json_in, &e->attr, e->ids, e->nr_ids, e->name) < 0)
					goto out;
			}
			if (w && (writer_add_events(w) < 0 || json_marks_format(w) < 0))
				goto out;
		}
		if (w) {
			char where[64];

			snprintf(where, sizeof(where), "line %u", lineno);
			/* The writer's message names the record; we name the line. */
			{
				struct perfring_diag diag = { 0 };
				int ret = perfring_writer_write(w, 0, buf, size, &diag);

				if (ret == -EINVAL) {
					tool_error("%s: %s: %s", opt_json_in, where, diag.msg);
					problems++;
				} else if (ret < 0) {
					tool_error_diag(&diag);
					goto out;
				}
			}
		} else {
			g_byte_array_append(recs, buf, (guint)size);
			g_array_append_val(lines, lineno);
		}
	}
	if (ferror(f)) {
		tool_error("%s: %s", opt_json_in, g_strerror(errno));
		goto out;
	}
	if (!jc_decoder_nr_events(d)) {
		tool_error("%s: no ATTR line: nothing describes the events", opt_json_in);
		goto out;
	}
	if (!started && w) {
		for (size_t i = 0; i < jc_decoder_nr_events(d); i++) {
			const struct jc_event *e = jc_decoder_event(d, i);

			if (add_event(opt_json_in, &e->attr, e->ids, e->nr_ids, e->name) < 0)
				goto out;
		}
		if (writer_add_events(w) < 0 || json_marks_format(w) < 0)
			goto out;
	}
	if (w) {
		int ret = writer_finish(w);

		w = NULL;
		if (ret < 0)
			goto out;
		status = TOOL_EXIT_OK;
	} else {
		status = write_ring(d, recs, lines);
	}
out:
	perfring_writer_abort(w);
	jc_decoder_free(d);
	g_byte_array_free(recs, TRUE);
	g_array_free(lines, TRUE);
	g_free(buf);
	free(text);
	if (f && !is_stdin)
		fclose(f);
	return status;
}

/* ---- main ------------------------------------------------------------------- */

/* The option context, with the help text. */
static GOptionContext *option_context(void)
{
	GOptionContext *ctx = g_option_context_new("[--] RING|PERF.DATA...");

	g_option_context_set_summary(ctx,
		"Turn perfring ring files, perf.data files (file or pipe mode) or JSON lines\n"
		"into a perf.data that perf report and perf script read.  Several inputs are\n"
		"merged by time.  The kind of an input is told by its contents, not its name.");
	g_option_context_set_description(ctx,
		"Examples:\n"
		"  perfring-replay -o perf.data ring0 ring1\n"
		"  perfring-replay -o - ring0 | perf report -i -\n"
		"  perfring-replay -o file.data pipe.data      (pipe mode to file mode)\n"
		"  perfring-replay -z -o small.data big.data   (zstd-compressed, as perf record -z)\n"
		"  perfring-replay --jit -o out.data perf.data (JIT symbols, like perf inject --jit)\n"
		"  perfring-replay --json-in records.json -o perf.data\n"
		"  perfring-replay --json-in records.json --ring out.ring\n"
		"\n"
		"Environment:\n"
		"  PERFRING_PLUGIN_PATH  colon-separated plugin directories or files, searched first;\n"
		"                        the first file of a name wins (--list-plugins -v shows the rest)\n"
		"  PERFRING_PLUGIN_SYSTEM_PATH  if set, searched instead of the installed plugins\n"
		"  PERFRING_NO_DLCLOSE   keep plugins loaded at exit (for ASan and valgrind)\n"
		"\n"
		"Exit status: 0 ok, 1 problems found in the input (reported with their offset\n"
		"or line; everything else is still written), 2 usage error or unreadable input.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	compress_opt_add(ctx);
	return ctx;
}

/* --json-in's options: no other input, one output. */
static int check_json_in_options(int argc)
{
	if (argc > 1 || opt_json_out || opt_jit || opt_markers || opt_span || opt_time ||
	    opt_pid || opt_tid || opt_comm || opt_cpu || opt_event) {
		tool_error("--json-in takes no other input (nor --jit, --markers, "
			   "--span, --time, --pid, --tid, --comm, --cpu, --event)");
		return -1;
	}
	if (!!opt_output == !!opt_ring) {
		tool_error("--json-in needs either -o OUT or --ring FILE");
		return -1;
	}
	if (opt_ring && compress_opt_level()) {
		tool_error("-z compresses a perf.data (-o OUT), not a --ring file");
		return -1;
	}
	return 0;
}

/* The options of a replay of inputs, the filter built from them. */
static int check_input_options(int argc)
{
	if (opt_ring) {
		tool_error("--ring goes with --json-in");
		return -1;
	}
	if (argc < 2) {
		tool_error("no input (try --help)");
		return -1;
	}
	if (!opt_output && !opt_json_out) {
		tool_error("no output: -o OUT is needed (try --help)");
		return -1;
	}
	if (opt_span && opt_no_markers) {
		tool_error("--span takes its spans from the markers: not with --no-markers");
		return -1;
	}
	if (filter_from_options() < 0)
		return -1;
	if (opt_jit && !opt_output) {
		tool_error("--jit needs -o OUT (the ELFs go beside it)");
		return -1;
	}
	return 0;
}

static void free_options(void)
{
	g_free(opt_output);
	g_free(opt_json_in);
	g_free(opt_ring);
	g_free(opt_kmap);
	g_free(opt_perf_map_dir);
	g_strfreev(opt_markers);
	g_free(opt_span);
	g_free(opt_time);
	g_free(opt_pid);
	g_free(opt_tid);
	g_free(opt_comm);
	g_free(opt_cpu);
	g_free(opt_event);
	rf_free(filter);
}

/* After the options: the plugins, then the replay itself; the exit status. */
static int run(int argc, char **argv, int orig_argc, char **orig_argv)
{
	int status;

	perfring_set_log(log_cb, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (tool_load_plugins(&reg) < 0)
		return TOOL_EXIT_USAGE;
	if (opt_list_plugins) {
		tool_list_plugins(reg, opt_verbose);
		return TOOL_EXIT_OK;
	}
	events = g_ptr_array_new_with_free_func(event_free);
	if (opt_json_in)
		status = replay_json(orig_argc, orig_argv);
	else
		status = replay_inputs(argc - 1, argv + 1, orig_argc, orig_argv);
	if (dropped_bad)
		tool_error("%u damaged records dropped (each reported above with its offset)",
			   dropped_bad);
	if (status == TOOL_EXIT_OK && problems)
		status = TOOL_EXIT_PROBLEMS;
	return status;
}

int main(int argc, char **argv)
{
	GOptionContext *ctx;
	GError *err = NULL;
	char **orig_argv = g_strdupv(argv);
	int orig_argc = argc;
	int status = TOOL_EXIT_USAGE;

	tool_init("perfring-replay");
	ctx = option_context();
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		tool_error("%s", err->message);
		g_error_free(err);
		g_option_context_free(ctx);
		g_strfreev(orig_argv);
		return TOOL_EXIT_USAGE;
	}
	g_option_context_free(ctx);
	if (opt_version) {
		tool_print_version();
		status = TOOL_EXIT_OK;
		goto out;
	}
	if (opt_kmap && strcmp(opt_kmap, "auto") && strcmp(opt_kmap, "exclude") &&
	    strcmp(opt_kmap, "none")) {
		tool_error("--kernel-map: expected auto, exclude or none, not \"%s\"", opt_kmap);
		goto out;
	}
	if (argc > 1 && !strcmp(argv[1], "--")) {
		argv++;
		argc--;
	}
	if (!opt_list_plugins &&
	    (opt_json_in ? check_json_in_options(argc) : check_input_options(argc)) < 0)
		goto out;
	status = run(argc, argv, orig_argc, orig_argv);
out:
	if (events)
		g_ptr_array_free(events, TRUE);
	perfring_registry_free(reg);
	g_strfreev(orig_argv);
	free_options();
	return status;
}
