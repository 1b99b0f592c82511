/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-record: sample or count a command, a running process or every
 * CPU through the hw backend plugin, into a perf.data file, a
 * flight-recorder ring file, or a perf-stat-like table.
 *
 * The backend is loaded through the plugin registry (never linked in).
 * Kernel rings are read with the library's reader and fed, one writer
 * source per ring, to the perf.data writer, which merges them by time.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/plugin.h>

#include "compress-opt.h"
#include "jit-bake.h"
#include "marks-merge.h"
#include "record-sideband.h"
#include "tool-common.h"

TOOL_DEFINE_BUILD_PLUGINS_PATH;

static gchar **opt_events;
static gint64 opt_freq;
static gint64 opt_count;
static gboolean opt_callgraph;
static gchar *opt_callgraph_mode;
static gchar *opt_cpus;
static gint opt_tid = -1;	/* -1: not given (0 is refused) */
static gboolean opt_switch_events;
static gchar *opt_clock;
static gboolean opt_verbose;
static gchar *opt_output;
static gint opt_pid;
static gboolean opt_all_cpus;
static gdouble opt_duration;
static gchar *opt_ring;
static gchar *opt_size;
static gboolean opt_stat;
static gchar *opt_pages;
static gboolean opt_version;
static gboolean opt_list_plugins;
static gchar **opt_cmd;
static gboolean opt_no_jit;
static gboolean opt_no_markers;
/* --switch-output: 0 off, else by signal only, by size or by time. */
enum { SWITCH_OFF, SWITCH_SIGNAL, SWITCH_SIZE, SWITCH_TIME };
static int opt_switch_mode;
static uint64_t opt_switch_bytes;
static double opt_switch_secs;
static gint opt_switch_max_files;
/* The command's PERFRING_MARKS_DIR: a private folder, removed at the end. */
static char *marks_dir;

/*
 * --switch-output[=signal|SIZE|TIME] as perf record reads it: SIZE a
 * number with B, K, M or G, TIME one with s, m, h or d; no value: signal.
 */
static gboolean parse_switch_output(const gchar *name, const gchar *value, gpointer data,
				    GError **error)
{
	char *end;
	double v;

	(void)name;
	(void)data;
	if (!value || strcmp(value, "signal") == 0) {
		opt_switch_mode = SWITCH_SIGNAL;
		return TRUE;
	}
	errno = 0;
	v = g_ascii_strtod(value, &end);
	if (!errno && end != value && v > 0 && end[0] && !end[1]) {
		static const char units[] = "BKMGsmhd";
		static const double mult[] = { 1, 1 << 10, 1 << 20, 1 << 30, 1, 60, 3600, 86400 };
		const char *u = strchr(units, end[0]);

		if (u) {
			size_t i = (size_t)(u - units);

			if (i < 4 && v * mult[i] >= 4096 && v * mult[i] <= (double)(1ull << 50)) {
				opt_switch_mode = SWITCH_SIZE;
				opt_switch_bytes = (uint64_t)(v * mult[i]);
				return TRUE;
			}
			if (i >= 4 && v * mult[i] >= 0.01) {
				opt_switch_mode = SWITCH_TIME;
				opt_switch_secs = v * mult[i];
				return TRUE;
			}
		}
	}
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "--switch-output: give signal, a size with B, K, M or G (at least 4K: 100M) "
		    "or a time with s, m, h or d (30s, 5m), not '%s'", value);
	return FALSE;
}

static const GOptionEntry entries[] = {
	{ "event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &opt_events,
	  "Events: cycles, instructions, cpu-clock, task-clock, page-faults, ..., rNNNN; "
	  ":u :k modifiers; comma lists; {a,b} groups; SUBSYSTEM:EVENT tracepoints, "
	  "globs allowed (default: cycles, else cpu-clock)",
	  "EVENTS" },
	{ "freq", 'F', 0, G_OPTION_ARG_INT64, &opt_freq,
	  "Sample at HZ samples per second (default 4000)", "HZ" },
	{ "count", 'c', 0, G_OPTION_ARG_INT64, &opt_count,
	  "Sample every N events", "N" },
	{ "callchain", 'g', 0, G_OPTION_ARG_NONE, &opt_callgraph,
	  "Record frame-pointer callchains (--call-graph fp)", NULL },
	{ "call-graph", 0, 0, G_OPTION_ARG_STRING, &opt_callgraph_mode,
	  "Callchains: fp (frame pointers), or dwarf[,SIZE]: user registers and SIZE bytes "
	  "of user stack (default 8192, at most 65528) that perf report unwinds, for code "
	  "built without frame pointers", "MODE" },
	{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
	  "perf.data file to write (default perf.data; - for a pipe stream)", "FILE" },
	{ "pid", 'p', 0, G_OPTION_ARG_INT, &opt_pid,
	  "Attach to a running process (until Ctrl-C or --duration)", "PID" },
	{ "all-cpus", 'a', 0, G_OPTION_ARG_NONE, &opt_all_cpus,
	  "Every task on every CPU (until Ctrl-C, --duration or the end of a CMD given too)",
	  NULL },
	{ "cpu", 'C', 0, G_OPTION_ARG_STRING, &opt_cpus,
	  "Every task on these CPUs only, as -a does on all (0, 0-3, 0,2-3; a CMD may be given)",
	  "LIST" },
	{ "tid", 't', 0, G_OPTION_ARG_INT, &opt_tid,
	  "Attach to one thread of a running process (until it exits, Ctrl-C or --duration)",
	  "TID" },
	{ "switch-events", 0, 0, G_OPTION_ARG_NONE, &opt_switch_events,
	  "Record context switches (SWITCH records, SWITCH_CPU_WIDE with -a/-C)", NULL },
	{ "clockid", 'k', 0, G_OPTION_ARG_STRING, &opt_clock,
	  "Clock of the sample times: monotonic (default), monotonic_raw, realtime, "
	  "boottime, tai, or a number", "CLOCK" },
	{ "duration", 0, 0, G_OPTION_ARG_DOUBLE, &opt_duration,
	  "Stop after SECONDS (a command still running is then killed)", "SECONDS" },
	{ "ring", 0, 0, G_OPTION_ARG_FILENAME, &opt_ring,
	  "Write a flight-recorder ring file keeping the newest --size bytes "
	  "(instead of perf.data, unless -o is given too)", "FILE" },
	{ "size", 0, 0, G_OPTION_ARG_STRING, &opt_size,
	  "Data size of the --ring file (bytes; K, M, G suffixes; rounded up to 2^n pages)", "N" },
	{ "stat", 0, 0, G_OPTION_ARG_NONE, &opt_stat,
	  "Count instead of sampling, and print the counts as perf stat does", NULL },
	{ "mmap-pages", 'm', 0, G_OPTION_ARG_STRING, &opt_pages,
	  "Data pages of each kernel ring (default as perf: kernel.perf_event_mlock_kb, "
	  "128 pages), or a size with B, K, M or G (4M); rounded up to a power of two",
	  "PAGES" },
	{ "no-jit", 0, 0, G_OPTION_ARG_NONE, &opt_no_jit,
	  "Do not bake JIT symbols (jitdumps, /tmp/perf-PID.map) into the perf.data "
	  "(default: one ELF per JIT process beside it)", NULL },
	{ "no-markers", 0, 0, G_OPTION_ARG_NONE, &opt_no_markers,
	  "Do not merge the command's marker rings (libperfring markers and spans, "
	  "in a private PERFRING_MARKS_DIR, and rings named by its maps) into the "
	  "perf.data (default: merged as perfring:mark tracepoint samples)", NULL },
	{ "switch-output", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
	  (gpointer)parse_switch_output,
	  "Cut the recording into files FILE.<timestamp> (perf's naming): on SIGUSR2 "
	  "(signal, the default), every SIZE bytes (100M) or every TIME (30s, 5m, 1h); "
	  "each file opens alone", "signal|SIZE|TIME" },
	{ "switch-max-files", 0, 0, G_OPTION_ARG_INT, &opt_switch_max_files,
	  "With --switch-output: keep at most N files, removing the oldest first", "N" },
	{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose,
	  "Say the size of the kernel rings and the attributes of each event; "
	  "with --list-plugins, also list the shadowed plugin files", NULL },
	{ "list-plugins", 0, 0, G_OPTION_ARG_NONE, &opt_list_plugins,
	  "List the plugins found and exit", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Show the library version and plugin ABI and exit", NULL },
	{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_cmd, NULL, "[--] CMD [ARG...]" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

/* Everything the drain loop needs. */
struct rec {
	const struct perfring_backend_ops *ops;
	struct perfring_backend *b;
	struct perfring_writer *w;
	struct perfring_ring *ringfile;
	struct perfring_reader **readers;
	int *sources;
	uint32_t nring;
	uint64_t samples;
	uint64_t records;
	uint64_t bytes;			/* of the records, for -z's ratio */
	uint64_t ring_dropped;
	uint64_t rejected;
	int problems;
	int write_failed;
	/* What each perf.data writer is opened with. */
	const struct perfring_event_desc *descs;
	uint32_t nev;
	int argc;
	char **argv;
	/* --switch-output: the chunk being written and those complete. */
	int32_t clockid;
	struct sideband *sb;
	bool emitting;			/* the side-band table's own records */
	const char *base;		/* FILE the chunks are named after */
	char *chunk;			/* the chunk being written, its final name */
	GQueue chunks;			/* complete chunks, oldest first */
	uint64_t nchunks;		/* chunks completed */
	uint64_t removed;		/* removed by --switch-max-files */
	uint64_t chunk_samples;
	uint64_t chunk_bytes;		/* record bytes, for --switch-output=SIZE */
	uint64_t chunk_time;		/* the chunk's start, on the events' clock */
	uint64_t unwritten;		/* samples of chunks that could not be completed */
	double next_switch;		/* --switch-output=TIME */
	int stop;			/* a chunk failed: stop recording */
	struct jit_bake_stats jit;
	struct finishing *fin;		/* the chunk completed on a thread, or NULL */
};

static void log_cb(enum perfring_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level <= PERFRING_LOG_WARN)
		tool_error("%s%s", level == PERFRING_LOG_ERROR ? "" : "warning: ", msg);
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (v > (1ull << 40))
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v == 0 || v > (1ull << 40))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * -m as perf record reads it: a page count, or a byte size with a B, K, M
 * or G suffix (rounded up to whole pages); either rounded up to a power of
 * two pages, with a note when that changed it.  0 on success.
 */
static int parse_mmap_pages(const char *s, uint32_t *out, int *rounded)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), v, p = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > (1ull << 40))
		return -EINVAL;
	if (*end) {
		uint64_t mult = 0;

		switch (*end) {
		case 'B': case 'b': mult = 1; break;
		case 'K': case 'k': mult = 1ull << 10; break;
		case 'M': case 'm': mult = 1ull << 20; break;
		case 'G': case 'g': mult = 1ull << 30; break;
		default: return -EINVAL;
		}
		if (end[1] || v > (1ull << 40) / mult)
			return -EINVAL;
		v = (v * mult + page - 1) / page;
	}
	while (p < v)
		p <<= 1;
	if (p > (1u << 20))
		return -EINVAL;
	*rounded = p != v;
	*out = (uint32_t)p;
	return 0;
}

/*
 * --call-graph MODE: "fp", "dwarf" or "dwarf,SIZE" (SIZE in bytes, any
 * base strtoul reads, rounded up to 8 as perf does; at most 65528, the
 * kernel's limit).  *stack gets 0 for fp.  0, or -EINVAL.
 */
static int parse_call_graph(const char *s, uint32_t *stack)
{
	const char *size;
	char *end;
	unsigned long long v;

	if (strcmp(s, "fp") == 0) {
		*stack = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) != 0 || (s[5] && s[5] != ','))
		return -EINVAL;
	if (!s[5]) {
		*stack = 8192;
		return 0;
	}
	size = s + 6;
	if (*size < '0' || *size > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(size, &end, 0);
	if (errno || *end || v == 0 || v > 65528)
		return -EINVAL;
	*stack = (uint32_t)((v + 7) & ~7ull);
	return 0;
}

/*
 * -k CLOCK as perf record names the clocks (case does not matter, an
 * optional CLOCK_ prefix), or a clock number.  0, or -EINVAL.
 */
static int parse_clock(const char *s, int32_t *out)
{
	static const struct { const char *name; int32_t id; } tab[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
	};
	char *end;
	long v;

	if (g_ascii_strncasecmp(s, "CLOCK_", 6) == 0)
		s += 6;
	for (size_t i = 0; i < G_N_ELEMENTS(tab); i++) {
		if (g_ascii_strcasecmp(s, tab[i].name) == 0) {
			*out = tab[i].id;
			return 0;
		}
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > 1024)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

static uint64_t round_ring_size(uint64_t v)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), s = page;

	while (s < v)
		s <<= 1;
	return s;
}

/* -v: the rings (in perf record -v's words, "mmap size") and the attrs. */
static void say_setup(const struct perfring_backend_ops *ops, struct perfring_backend *b,
		      const struct perfring_event_desc *descs, uint32_t nev)
{
	uint32_t n = ops->nr_rings(b);
	struct perfring_ring *ring = n ? ops->ring(b, 0) : NULL;

	if (ring) {
		uint64_t data = perfring_ring_data_size(ring), page = perfring_ring_page_size(ring);

		tool_error("%u rings of %" PRIu64 " data pages; mmap size %" PRIu64 "B", n,
			   data / page, data + page);
	}
	for (uint32_t i = 0; i < nev; i++) {
		const struct perfring_attr *a = descs[i].attr;

		tool_error("%s: type %u, config %#" PRIx64 ", sample_type %#" PRIx64
			   ", sample_regs_user %#" PRIx64 ", sample_stack_user %u, clockid %d",
			   descs[i].name, a->type, a->config, a->sample_type, a->sample_regs_user,
			   a->sample_stack_user, (int)a->clockid);
	}
}

/* A record from a kernel ring or from synthesis. */
static void take(struct rec *r, int source, const void *rec, size_t size)
{
	struct perfring_event_header h;
	struct perfring_diag d;

	tool_diag_reset(&d);
	memcpy(&h, rec, sizeof(h));
	r->records++;
	r->bytes += size;
	r->chunk_bytes += size;
	if (h.type == PERFRING_RECORD_SAMPLE) {
		r->samples++;
		r->chunk_samples++;
	} else if (r->sb && !r->emitting) {
		sideband_see(r->sb, rec, size);
	}
	if (r->w && !r->write_failed) {
		int ret = perfring_writer_write(r->w, source, rec, size, &d);

		if (ret < 0) {
			/* A bad record: say it once, count the rest. */
			if (!r->problems || ret != -EINVAL)
				tool_error_diag(&d);
			r->problems = 1;
			r->rejected++;
			if (ret != -EINVAL)
				r->write_failed = 1;
		}
	}
	if (r->ringfile && perfring_ring_write(r->ringfile, rec) < 0)
		r->ring_dropped++;
}

static int synth_cb(const void *rec, size_t size, void *user)
{
	struct rec *r = user;

	take(r, r->sources ? r->sources[r->nring] : 0, rec, size);
	return 0;
}

static void drain(struct rec *r)
{
	for (uint32_t i = 0; i < r->nring; i++) {
		struct perfring_record pr = { .sz = sizeof(pr) };
		int ret;

		if (!r->readers[i])
			continue;
		for (unsigned n = 1; (ret = perfring_reader_next(r->readers[i], &pr)) == 1; n++) {
			take(r, r->sources[i], pr.hdr, pr.hdr->size);
			/* Give the kernel its space back as we go. */
			if (n % 1024 == 0)
				perfring_reader_consume(r->readers[i]);
		}
		if (ret < 0) {
			tool_error_diag(perfring_reader_diag(r->readers[i]));
			r->problems = 1;
			perfring_reader_free(r->readers[i]);
			r->readers[i] = NULL;
			continue;
		}
		perfring_reader_consume(r->readers[i]);
	}
}

/*
 * A perf.data writer for path with the events, and a source for each
 * ring plus one for synthesized records (r->sources).  0, or -1 (said).
 */
static int open_writer(struct rec *r, const char *path)
{
	struct perfring_diag d = { 0 };
	/*
	 * Build ids of the mapped files: recorded live, the files on disk
	 * are the ones that ran, as perf record assumes too.
	 */
	PERFRING_WRITER_OPTS(wo, .path = path, .argc = r->argc,
			     .argv = (const char *const *)r->argv, .build_ids = 1,
			     .compression_level = compress_opt_level());
	int ret = perfring_writer_open(&wo, &d, &r->w);

	for (uint32_t i = 0; ret >= 0 && i < r->nev; i++)
		ret = perfring_writer_add_event(r->w, &r->descs[i], &d);
	for (uint32_t i = 0; ret >= 0 && i <= r->nring; i++) {
		ret = perfring_writer_add_source(r->w);
		r->sources[i] = ret;
	}
	if (ret < 0) {
		if (d.msg[0])
			tool_error_diag(&d);
		else
			tool_error("%s: cannot start the perf.data writer: %s", path, strerror(-ret));
		perfring_writer_abort(r->w);
		r->w = NULL;
		return -1;
	}
	r->write_failed = 0;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t clock_ns(int32_t clockid)
{
	struct timespec ts;

	if (clock_gettime(clockid, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * perf's chunk name, FILE.<YYYYmmddHHMMSScc> (local time, cc the
 * hundredths), taken when the chunk starts: its JIT ELFs are named after
 * it in its MMAP2 records, so it is never renamed afterwards.  Two chunks
 * in the same hundredth get -2, -3, ...
 */
static char *chunk_name(const struct rec *r)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	char *name;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	name = g_strdup_printf("%s.%s%02u", r->base, stamp, (unsigned)(ts.tv_nsec / 10000000));
	for (unsigned n = 2; g_file_test(name, G_FILE_TEST_EXISTS) ||
			     (r->chunks.tail && strcmp(r->chunks.tail->data, name) == 0); n++) {
		g_free(name);
		name = g_strdup_printf("%s.%s%02u-%u", r->base, stamp,
				       (unsigned)(ts.tv_nsec / 10000000), n);
	}
	return name;
}

/* --switch-max-files: the oldest chunk goes, with its JIT ELFs. */
static void remove_oldest(struct rec *r)
{
	char *name = g_queue_pop_head(&r->chunks);
	char *dir = g_path_get_dirname(name), *prefix = g_path_get_basename(name);
	GDir *dh = g_dir_open(dir, 0, NULL);
	size_t plen = strlen(prefix);
	const char *n;

	if (unlink(name) < 0 && errno != ENOENT)
		tool_error("warning: %s: cannot remove it: %s", name, strerror(errno));
	else
		tool_error("removed the oldest chunk %s (--switch-max-files=%d)", name,
			   opt_switch_max_files);
	while (dh && (n = g_dir_read_name(dh))) {
		if (strncmp(n, prefix, plen) == 0 && g_str_has_prefix(n + plen, ".jit-") &&
		    g_str_has_suffix(n, ".so")) {
			char *p = g_build_filename(dir, n, NULL);

			unlink(p);
			g_free(p);
		}
	}
	if (dh)
		g_dir_close(dh);
	r->removed++;
	g_free(dir);
	g_free(prefix);
	g_free(name);
}

/*
 * A chunk being completed: its writer's close (the merge's last records,
 * the features, the build ids read from the ELF files) and its JIT bake.
 * At a switch that takes milliseconds, and the kernel rings, a few ms deep
 * at high rates, filled meanwhile when the thread that drains them did it
 * (drains between the steps only shortened the gaps): so a switch hands
 * the chunk to a thread of its own (finish_main), and chunk_join files it
 * on the main thread, before the next switch or at the end.  The work
 * touches only the chunk's writer and files; what it found is said by
 * chunk_filed.
 */
struct finishing {
	GThread *th;
	bool threaded;			/* finish_main runs on th */
	struct perfring_writer *w;
	char *name;			/* the chunk's final name (taken over) */
	uint64_t samples;
	int argc;
	char **argv;
	int ret;			/* the writer's close */
	struct perfring_diag d;
	bool bake_failed;
	struct jit_bake_stats js;
};

static struct finishing *finishing_new(struct rec *r, struct perfring_writer *w, char *name,
				       uint64_t samples)
{
	struct finishing *f = g_new0(struct finishing, 1);

	for (uint32_t i = 0; i < r->nring; i++)
		perfring_writer_end_source(w, r->sources[i], NULL);
	f->w = w;
	f->name = name;
	f->samples = samples;
	f->argc = r->argc;
	f->argv = r->argv;
	return f;
}

static void set_slice(uint64_t ns);

/*
 * The work itself, on whichever thread: close, then bake its JIT symbols.
 * A thread of its own takes the scheduler's default slice back (threads
 * inherit the drain's short one): the drain must win the CPU from it.
 */
static gpointer finish_main(gpointer data)
{
	struct finishing *f = data;

	if (f->threaded)
		set_slice(0);
	f->ret = perfring_writer_close(f->w, &f->d);
	f->w = NULL;
	if (f->ret == 0 && !opt_no_jit &&
	    jit_bake_file(f->name, f->argc, (const char *const *)f->argv,
			  compress_opt_level(), NULL, &f->js) < 0)
		f->bake_failed = true;
	return NULL;
}

/*
 * What finish_main did, said and counted; the chunk filed among the
 * complete ones.  -1 when it could not be written (said; the chunks before
 * it stay as they are, recording stops).  Frees f.
 */
static int chunk_filed(struct rec *r, struct finishing *f)
{
	struct stat st;
	int ret = 0;

	if (f->ret < 0) {
		tool_error_diag(&f->d);
		tool_error("%" PRIu64 " samples of %s were not written; the %" PRIu64
			   " chunk%s before it %s complete; recording stops", f->samples, f->name,
			   r->nchunks, r->nchunks == 1 ? "" : "s", r->nchunks == 1 ? "is" : "are");
		r->unwritten += f->samples;
		r->problems = 1;
		r->stop = 1;
		g_free(f->name);
		ret = -1;
	} else {
		if (f->bake_failed)
			r->problems = 1;
		r->jit.elfs += f->js.elfs;
		r->jit.functions = MAX(r->jit.functions, f->js.functions);
		tool_error("chunk %" PRIu64 " complete: %s, %" PRIu64 " samples, %.3f MB",
			   r->nchunks + 1, f->name, f->samples,
			   stat(f->name, &st) == 0 ? (double)st.st_size / (1024.0 * 1024.0) : 0.0);
		g_queue_push_tail(&r->chunks, f->name);
		r->nchunks++;
	}
	g_free(f);
	return ret;
}

/* The chunk on the finishing thread, if any, waited for and filed: 0 or -1. */
static int chunk_join(struct rec *r)
{
	struct finishing *f = r->fin;

	if (!f)
		return 0;
	r->fin = NULL;
	g_thread_join(f->th);
	return chunk_filed(r, f);
}

/* Complete chunk `name`, written by w with `samples` samples, here: 0 or -1. */
static int chunk_finish(struct rec *r, struct perfring_writer *w, char *name, uint64_t samples)
{
	struct finishing *f = finishing_new(r, w, name, samples);

	finish_main(f);
	return chunk_filed(r, f);
}

/* The same on the finishing thread (here if no thread can be had). */
static void chunk_finish_bg(struct rec *r, struct perfring_writer *w, char *name,
			    uint64_t samples)
{
	struct finishing *f = finishing_new(r, w, name, samples);

	f->threaded = true;	/* before the thread can read it */
	f->th = g_thread_try_new("perfring-chunk", finish_main, f, NULL);
	if (f->th) {
		r->fin = f;
		return;
	}
	f->threaded = false;
	finish_main(f);
	chunk_filed(r, f);
}

/*
 * The chunk being written, completed (at the end, or with one at a time),
 * after the one the finishing thread may hold.
 */
static int chunk_close(struct rec *r)
{
	struct perfring_writer *w = r->w;
	char *name = r->chunk;
	int ret = chunk_join(r);

	r->w = NULL;
	r->chunk = NULL;
	if (r->stop) {		/* the chunk before it failed: nothing more is written */
		r->unwritten += r->chunk_samples;
		r->chunk_samples = 0;
		perfring_writer_abort(w);
		g_free(name);
		return -1;
	}
	return chunk_finish(r, w, name, r->chunk_samples) < 0 ? -1 : ret;
}

/*
 * Open a chunk: room for it under --switch-max-files first (finishing: a
 * chunk still being completed, which counts too).  Every chunk after the
 * first starts with a COMM and MMAP2s of every task known (time: the
 * previous chunk's start, before any record of this one).  0 or -1.
 */
static int chunk_open(struct rec *r, bool first, bool finishing)
{
	uint64_t prev = r->chunk_time;
	guint room = (guint)opt_switch_max_files - (finishing ? 1 : 0);
	int ret = 0;

	while (opt_switch_max_files > 0 && g_queue_get_length(&r->chunks) >= room)
		remove_oldest(r);
	r->chunk = chunk_name(r);
	r->chunk_time = clock_ns(r->clockid);
	r->chunk_bytes = 0;
	r->chunk_samples = 0;
	r->next_switch = now_s() + opt_switch_secs;
	if (open_writer(r, r->chunk) < 0) {
		r->problems = 1;
		r->stop = 1;
		return -1;
	}
	if (first)
		return 0;
	sideband_next_chunk(r->sb);
	r->emitting = true;
	ret = sideband_emit(r->sb, r->descs[0].attr,
			    r->descs[0].nr_ids ? r->descs[0].ids[0] : perfring_writer_event_id(r->w, 0),
			    prev, synth_cb, r);
	r->emitting = false;
	if (ret < 0)
		tool_error("%s: the side-band of the running tasks: %s", r->chunk, strerror(-ret));
	perfring_writer_end_source(r->w, r->sources[r->nring], NULL);
	return 0;
}

/*
 * Everything drained so far goes to the chunk that ends; the next one is
 * opened before that one is completed, and takes what the rings bring
 * meanwhile.  (With --switch-max-files=1 the one chunk allowed is
 * completed first.)
 */
static void chunk_switch(struct rec *r)
{
	struct perfring_writer *w = r->w;
	char *name = r->chunk;
	uint64_t samples = r->chunk_samples;

	if (r->stop || chunk_join(r) < 0)
		return;
	if (opt_switch_max_files == 1) {
		if (chunk_close(r) == 0)
			chunk_open(r, false, false);
		return;
	}
	r->w = NULL;
	r->chunk = NULL;
	chunk_open(r, false, true);
	chunk_finish_bg(r, w, name, samples);
}

/*
 * Sampling: ask the scheduler for a short slice (ns 100000: 0.1 ms) for
 * this thread, which drains the rings (ns 0: the default slice back, for
 * a thread that inherited it and must not compete).  With every CPU busy,
 * a woken reader otherwise waits for the running task's slice to end
 * (EEVDF, Linux 6.6+: up to a few ms) while the kernel rings fill; a
 * shorter slice gives it an earlier deadline, so it runs sooner, with no
 * more CPU share (same nice, same policy).  Kernels before 6.12 ignore the slice.  Left alone: other
 * policies (a user's chrt), and failures (nothing depends on it).
 * bench/RESULTS.md has the losses with and without.
 */
static void set_slice(uint64_t ns)
{
#ifdef SYS_sched_setattr
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} sa = { .size = 48, .policy = SCHED_OTHER, .runtime = ns };
	int nice;

	if (sched_getscheduler(0) != SCHED_OTHER)
		return;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		return;
	sa.nice = nice;
	(void)syscall(SYS_sched_setattr, 0, &sa, 0);
#endif
}

static int setup_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (opt_switch_mode)
		sigaddset(&set, SIGUSR2);	/* switch, as perf record does */
	sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/*
 * Run until the target exits, a signal (for -p/-a), or the duration.
 * drain_fn is called after each wakeup (NULL in counting mode).
 */
static void run_loop(const struct perfring_backend_ops *ops, struct perfring_backend *b,
		     int sfd, struct rec *r)
{
	double end = opt_duration > 0 ? now_s() + opt_duration : 0;
	int stderr_tty = isatty(2);
	int pid = 0;

	ops->target(b, &pid, NULL);
	for (;;) {
		int timeout = -1, bits;

		if (end > 0) {
			double left = end - now_s();

			if (left <= 0)
				break;
			timeout = (int)(left * 1000) + 1;
		}
		/*
		 * A flight recorder copies records out every 100 ms, not only
		 * at the watermark, so that little is lost if it is killed.
		 */
		if (opt_ring && (timeout < 0 || timeout > 100))
			timeout = 100;
		/* On a terminal the progress line moves at least once a second. */
		if (r && stderr_tty && (timeout < 0 || timeout > 1000))
			timeout = 1000;
		/*
		 * --switch-output=SIZE: the rings are read at least every
		 * 100 ms, not only at their watermark, so that a chunk is not
		 * much bigger than asked for.
		 */
		if (r && opt_switch_mode == SWITCH_SIZE && (timeout < 0 || timeout > 100))
			timeout = 100;
		if (r && opt_switch_mode == SWITCH_TIME) {
			int left = (int)((r->next_switch - now_s()) * 1000) + 1;

			if (left < 1)
				left = 1;
			if (timeout < 0 || timeout > left)
				timeout = left;
		}
		bits = ops->wait(b, sfd, timeout);
		if (bits < 0) {
			tool_error("waiting for events: %s", strerror(-bits));
			if (r)
				r->problems = 1;
			break;
		}
		if (r) {
			drain(r);
			if ((opt_switch_mode == SWITCH_SIZE && r->chunk_bytes >= opt_switch_bytes) ||
			    (opt_switch_mode == SWITCH_TIME && now_s() >= r->next_switch))
				chunk_switch(r);
			if (r->stop)
				break;
			tool_progress("%" PRIu64 " samples, %" PRIu64 " records...",
				      r->samples, r->records);
		}
		if (bits & PERFRING_BACKEND_WAKE_EXIT)
			break;
		if (bits & PERFRING_BACKEND_WAKE_FD) {
			struct signalfd_siginfo si;
			int cmd_mode = opt_cmd && opt_cmd[0], stop = 0, sw = 0;

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGUSR2) {
					sw = 1;
					continue;
				}
				stop = 1;
				/* A command: pass it on and wait for it to end. */
				if (cmd_mode && pid > 0)
					kill(pid, (int)si.ssi_signo);
			}
			if (sw && r && !r->stop) {
				drain(r);
				chunk_switch(r);
				if (r->stop)
					break;
			}
			if (stop && !cmd_mode)
				break;
		}
	}
}

static char *command_string(void)
{
	if (opt_cmd && opt_cmd[0])
		return g_strjoinv(" ", opt_cmd);
	if (opt_pid > 0)
		return g_strdup_printf("process id '%d'", opt_pid);
	return g_strdup("'system wide'");
}

/* How the command ended, if it did not exit with 0. */
static void say_command_status(int status)
{
	if (status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		tool_error("note: %s %s %d", opt_cmd[0],
			   WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
			   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static int do_stat(const struct perfring_backend_ops *ops, struct perfring_backend *b, int sfd)
{
	struct perfring_diag d = { 0 };
	double t0, t1;
	uint32_t n = ops->nr_events(b);
	char *what;
	int ret, status = -1;

	t0 = now_s();
	ret = ops->start(b, &d);
	if (ret < 0) {
		tool_error_diag(&d);
		return TOOL_EXIT_PROBLEMS;
	}
	run_loop(ops, b, sfd, NULL);
	ops->stop(b);
	t1 = now_s();
	ops->target(b, NULL, &status);
	what = command_string();
	if (opt_cmd && opt_cmd[0])
		fprintf(stderr, "\n Performance counter stats for '%s':\n\n", what);
	else
		fprintf(stderr, "\n Performance counter stats for %s:\n\n", what);
	g_free(what);
	for (uint32_t i = 0; i < n; i++) {
		PERFRING_EVENT_DESC(ev);
		struct perfring_backend_count c = { .sz = sizeof(c) };
		int is_clock;

		ops->event(b, i, &ev);
		ret = ops->read_count(b, i, &c);
		is_clock = ev.attr->type == PERFRING_TYPE_SOFTWARE &&
			   (ev.attr->config == 0 || ev.attr->config == 1);
		if (ret < 0) {
			tool_error("%s: cannot read the count: %s", ev.name, strerror(-ret));
			return TOOL_EXIT_PROBLEMS;
		}
		if (!c.supported) {
			fprintf(stderr, "%18s      %-25s\n", "<not supported>", ev.name);
			continue;
		}
		if (!c.counted) {
			fprintf(stderr, "%18s      %-25s\n", "<not counted>", ev.name);
			continue;
		}
		if (is_clock)
			fprintf(stderr, "%18.2f msec %-25s", (double)c.scaled / 1e6, ev.name);
		else
			fprintf(stderr, "%18" PRIu64 "      %-25s", c.scaled, ev.name);
		fprintf(stderr, " (%.2f%%)\n",
			c.enabled ? 100.0 * (double)c.running / (double)c.enabled : 0.0);
	}
	fprintf(stderr, "\n %17.9f seconds time elapsed\n\n", t1 - t0);
	say_command_status(status);
	return TOOL_EXIT_OK;
}

/* ---- markers: the command's private PERFRING_MARKS_DIR ----------------------- */

static bool marks_dir_has_rings(void)
{
	GDir *d = marks_dir ? g_dir_open(marks_dir, 0, NULL) : NULL;
	const char *n;
	bool any = false;

	while (d && (n = g_dir_read_name(d)))
		any |= marks_is_ring_name(n, NULL, NULL);
	if (d)
		g_dir_close(d);
	return any;
}

/* Make the folder and give it to the command (before it is forked). */
static void marks_dir_make(void)
{
	GError *err = NULL;

	marks_dir = g_dir_make_tmp("perfring-marks-XXXXXX", &err);
	if (!marks_dir) {
		tool_error("warning: no folder for the command's marker rings: %s", err->message);
		g_error_free(err);
		return;
	}
	g_setenv("PERFRING_MARKS_DIR", marks_dir, TRUE);
}

/* Remove the rings and the folder (something else left in it stays). */
static void marks_dir_remove(void)
{
	GDir *d;
	const char *n;

	if (!marks_dir)
		return;
	d = g_dir_open(marks_dir, 0, NULL);
	while (d && (n = g_dir_read_name(d))) {
		if (marks_is_ring_name(n, NULL, NULL)) {
			char *p = g_build_filename(marks_dir, n, NULL);

			unlink(p);
			g_free(p);
		}
	}
	if (d)
		g_dir_close(d);
	if (rmdir(marks_dir) < 0)
		tool_error("warning: %s: %s (left in place)", marks_dir, g_strerror(errno));
	g_free(marks_dir);
	marks_dir = NULL;
}

/*
 * The backend's descriptions of its nev events, which go as they are to
 * the writer and the ring.  0, or TOOL_EXIT_PROBLEMS (said, nothing kept).
 */
static int describe_events(const struct perfring_backend_ops *ops, struct perfring_backend *b,
			   struct perfring_event_desc **descsp, uint32_t *nevp)
{
	uint32_t nev = ops->nr_events(b);
	struct perfring_event_desc *descs = g_new0(struct perfring_event_desc, nev);
	int ret;

	for (uint32_t i = 0; i < nev; i++) {
		descs[i].sz = sizeof(descs[i]);
		ret = ops->event(b, i, &descs[i]);
		if (ret < 0) {
			tool_error("event %" PRIu32 ": the backend cannot describe it: %s", i,
				   strerror(-ret));
			g_free(descs);
			return TOOL_EXIT_PROBLEMS;
		}
	}
	*descsp = descs;
	*nevp = nev;
	return 0;
}

/* --ring FILE: the flight-recorder ring file, --size bytes (1M).  0 or -1 (said). */
static int open_ring_file(struct rec *r)
{
	struct perfring_diag d = { 0 };
	uint64_t size = 1u << 20;
	int ret;

	if (opt_size)
		parse_size(opt_size, &size);
	PERFRING_RING_OPTS(ro, .backing = PERFRING_RING_FILE, .path = opt_ring,
			   .data_size = round_ring_size(size),
			   .flags = PERFRING_RING_OVERWRITE | PERFRING_RING_TRUNCATE |
				    PERFRING_RING_CLOCKID,
			   .clockid = r->descs[0].attr->clockid, .events = r->descs,
			   .nr_events = r->nev);
	ret = perfring_ring_create(&ro, &d, &r->ringfile);
	if (ret < 0) {
		tool_error_diag(&d);
		return -1;
	}
	return 0;
}

/*
 * Set r up for out (NULL: --ring only): the perf.data writer or the first
 * --switch-output chunk, the ring file, and a reader for each kernel ring.
 * 0 or -1 (said); what was set up is freed by record_free.
 */
static int record_open(struct rec *r, const struct perfring_registry *reg, const char *out)
{
	const struct perfring_backend_ops *ops = r->ops;
	int ret;

	r->base = out;
	r->clockid = r->nev ? r->descs[0].attr->clockid : CLOCK_MONOTONIC;
	r->nring = ops->nr_rings(r->b);
	r->sources = g_new0(int, r->nring + 1);
	if (out && opt_switch_mode) {
		r->sb = sideband_new(reg, r->descs[0].attr);
		if (chunk_open(r, true, false) < 0)
			return -1;
	} else if (out && open_writer(r, out) < 0) {
		return -1;
	}
	if (opt_ring && open_ring_file(r) < 0)
		return -1;
	if (opt_verbose)
		say_setup(ops, r->b, r->descs, r->nev);
	r->readers = g_new0(struct perfring_reader *, r->nring);
	for (uint32_t i = 0; i < r->nring; i++) {
		ret = perfring_reader_new(ops->ring(r->b, i), &r->readers[i]);
		if (ret < 0) {
			tool_error("cannot read the kernel rings: %s", strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/*
 * Start the events, write the running tasks found in /proc, read the
 * rings until the end (run_loop), stop and drain them, and say how the
 * command ended.  0, or -1 if the events could not start (said).
 */
static int record_run(struct rec *r, int sfd)
{
	const struct perfring_backend_ops *ops = r->ops;
	struct perfring_diag d = { 0 };
	int ret, status = -1;

	ret = ops->start(r->b, &d);
	if (ret < 0) {
		tool_error_diag(&d);
		return -1;
	}
	ret = ops->synthesize(r->b, synth_cb, r);
	if (ret < 0)
		tool_error("reading /proc for the running tasks: %s", strerror(-ret));
	if (r->w)
		perfring_writer_end_source(r->w, r->sources[r->nring], NULL);
	run_loop(ops, r->b, sfd, r);
	ops->stop(r->b);
	drain(r);
	tool_progress_end();
	ops->target(r->b, NULL, &status);
	say_command_status(status);
	return 0;
}

/* The records the kernel lost, all rings and events together. */
static uint64_t record_lost(const struct rec *r)
{
	uint64_t lost = 0, counted = 0;

	for (uint32_t i = 0; i < r->nring; i++) {
		struct perfring_reader_stats rs = { .sz = sizeof(rs) };

		if (!r->readers[i])
			continue;
		perfring_reader_get_stats(r->readers[i], &rs);
		lost += rs.lost;
	}
	/*
	 * LOST records only come with the next record that fits: the kernel's
	 * own per-event count (PERF_FORMAT_LOST) also has the drops no LOST
	 * record reported before the end.
	 */
	for (uint32_t i = 0; i < r->nev; i++) {
		struct perfring_backend_count c = { .sz = sizeof(c) };

		if (r->ops->read_count(r->b, i, &c) == 0)
			counted += c.lost;
	}
	return counted > lost ? counted : lost;
}

/* out is a file that can be read back (not "-", /dev/null or a FIFO); st is its stat. */
static bool is_regular_output(const char *out, struct stat *st)
{
	return strcmp(out, "-") != 0 && stat(out, st) == 0 && S_ISREG(st->st_mode);
}

/* End the sources and complete the perf.data file out.  0 or -1 (said). */
static int close_writer(struct rec *r, const char *out)
{
	struct perfring_diag d = { 0 };
	struct stat st;
	int ret;

	for (uint32_t i = 0; i < r->nring; i++)
		perfring_writer_end_source(r->w, r->sources[i], NULL);
	/*
	 * As perf record does: keep the previous file as FILE.old.  A
	 * hard link keeps it under FILE too until the writer's rename
	 * replaces it, so a failed close leaves the old FILE in place.
	 */
	if (is_regular_output(out, &st)) {
		char *old = g_strconcat(out, ".old", NULL);

		unlink(old);
		if (link(out, old) < 0 && rename(out, old) < 0)
			tool_error("warning: cannot keep %s as %s: %s", out, old, strerror(errno));
		g_free(old);
	}
	ret = perfring_writer_close(r->w, &d);
	r->w = NULL;
	if (ret < 0) {
		tool_error_diag(&d);
		return -1;
	}
	return 0;
}

/*
 * JIT symbols: tools/jit-bake.c rewrites the file if it has any.  It
 * reads the output back, so only a regular file: /dev/null, a FIFO or
 * standard output is written as perf record writes it, and skipped.
 */
static void bake_jit(struct rec *r, const char *out, struct jit_bake_stats *jit)
{
	struct stat st;

	if (opt_no_jit || !out || opt_switch_mode)
		return;
	if (is_regular_output(out, &st)) {
		if (jit_bake_file(out, r->argc, (const char *const *)r->argv,
				  compress_opt_level(), NULL, jit) < 0)
			r->problems = 1;
	} else {
		tool_error("note: JIT symbols not baked: %s is not a regular file, so it "
			   "cannot be read back (perfring-replay --jit can bake a saved copy)",
			   strcmp(out, "-") ? out : "standard output");
	}
}

/*
 * Markers: tools/marks-merge.c rewrites the file with the rings of
 * the command's private folder and those its maps name.  As for JIT
 * symbols, only a regular file can be read back.  Says how many were
 * merged when there were rings (found or missing).
 */
static void merge_markers(struct rec *r, const char *out)
{
	struct marks_merge_stats marks = { 0 };
	struct stat st;

	if (opt_switch_mode) {
		if (!opt_no_markers && marks_dir && marks_dir_has_rings())
			tool_error("note: markers not merged: with --switch-output they would "
				   "repeat in every chunk");
	} else if (!opt_no_markers && out && is_regular_output(out, &st)) {
		if (marks_merge_file(out, r->argc, (const char *const *)r->argv,
				     compress_opt_level(), marks_dir, &marks) < 0)
			r->problems = 1;
		if (marks.problems)
			r->problems = 1;
		if (marks.rings || marks.missing)
			tool_error("%" PRIu64 " markers merged from %" PRIu64 " ring%s, %" PRIu64
				   " lost", marks.markers, marks.rings,
				   marks.rings == 1 ? "" : "s", marks.lost);
	} else if (!opt_no_markers && marks_dir && marks_dir_has_rings()) {
		tool_error("note: markers not merged: %s is not a regular file, so it cannot be "
			   "read back", out && strcmp(out, "-") ? out : "standard output");
	}
}

/* The --switch-output part of the summary: the chunks and their size. */
static void append_chunks(GString *s, const struct rec *r)
{
	struct stat st;
	uint64_t total = 0;

	for (GList *l = r->chunks.head; l; l = l->next)
		if (stat(l->data, &st) == 0)
			total += (uint64_t)st.st_size;
	g_string_append_printf(s, ", %" PRIu64 " chunk%s", r->nchunks, r->nchunks == 1 ? "" : "s");
	if (r->removed)
		g_string_append_printf(s, " (%" PRIu64 " removed)", r->removed);
	if (r->chunks.head)
		g_string_append_printf(s, ", %.3f MB in %s .. %s", (double)total / (1024.0 * 1024.0),
				       (char *)r->chunks.head->data, (char *)r->chunks.tail->data);
}

/* The warnings, then the one-line summary: counts, output, compression, JIT, ring. */
static void say_summary(const struct rec *r, const char *out, uint64_t lost,
			const struct jit_bake_stats *jit)
{
	GString *s = g_string_new(NULL);
	struct stat st;

	if (r->rejected > 1)
		tool_error("%" PRIu64 " records were refused by the perf.data writer", r->rejected);
	if (r->ring_dropped)
		tool_error("warning: %" PRIu64 " records did not fit the ring file", r->ring_dropped);
	if (lost)
		tool_error("warning: the kernel lost %" PRIu64 " records (rings too small or "
			   "the reader too slow: try -m with more pages)", lost);
	g_string_append_printf(s, "%" PRIu64 " samples, %" PRIu64 " records, %" PRIu64 " lost",
			       r->samples, r->records, lost);
	if (opt_switch_mode)
		append_chunks(s, r);
	else if (out && is_regular_output(out, &st))
		g_string_append_printf(s, ", %.3f MB written to %s",
				       (double)st.st_size / (1024.0 * 1024.0), out);
	else if (out)
		g_string_append_printf(s, ", written to %s", out);
	if (out && compress_opt_level())	/* as perf record -z says it */
		g_string_append_printf(s, ", compressed (original %.3f MB)",
				       (double)r->bytes / (1024.0 * 1024.0));
	if (r->jit.elfs)
		g_string_append_printf(s, "; JIT symbols baked into the chunks (%" PRIu64 " ELFs)",
				       r->jit.elfs);
	if (jit->elfs)
		g_string_append_printf(s, "; %" PRIu64 " JIT functions resolved (%s)",
				       jit->functions, jit->elfs == 1 ? "1 ELF" : "ELFs");
	if (r->ringfile)
		g_string_append_printf(s, "; ring %s keeps the newest %" PRIu64 " bytes",
				       opt_ring, perfring_ring_data_size(r->ringfile));
	tool_error("%s", s->str);
	g_string_free(s, TRUE);
}

/* Everything record_open set up, and the descriptions. */
static void record_free(struct rec *r, struct perfring_event_desc *descs)
{
	chunk_join(r);		/* a chunk still being completed (error paths) */
	if (r->w)
		perfring_writer_abort(r->w);
	g_queue_clear_full(&r->chunks, g_free);
	g_free(r->chunk);
	sideband_free(r->sb);
	for (uint32_t i = 0; r->readers && i < r->nring; i++)
		perfring_reader_free(r->readers[i]);
	g_free(r->readers);
	g_free(r->sources);
	perfring_ring_close(r->ringfile);
	g_free(descs);
}

/*
 * Sample into the perf.data file (or its --switch-output chunks) and the
 * --ring file, bake JIT symbols, merge markers and say the summary.
 */
static int do_record(const struct perfring_backend_ops *ops, struct perfring_backend *b,
		     const struct perfring_registry *reg, int sfd, int argc, char **argv)
{
	struct rec r = { .ops = ops, .b = b, .argc = argc, .argv = argv };
	struct perfring_event_desc *descs = NULL;
	const char *out = opt_output ? opt_output : opt_ring ? NULL : "perf.data";
	struct jit_bake_stats jit = { 0 };
	uint64_t lost;
	int exit_code;

	exit_code = describe_events(ops, b, &descs, &r.nev);
	if (exit_code)
		return exit_code;
	r.descs = descs;
	if (record_open(&r, reg, out) < 0 || record_run(&r, sfd) < 0) {
		exit_code = TOOL_EXIT_PROBLEMS;
		goto out;
	}
	lost = record_lost(&r);
	if (r.w && opt_switch_mode) {
		if (chunk_close(&r) < 0)
			exit_code = TOOL_EXIT_PROBLEMS;
	} else if (r.w && close_writer(&r, out) < 0) {
		exit_code = TOOL_EXIT_PROBLEMS;
		goto out;
	}
	bake_jit(&r, out, &jit);
	merge_markers(&r, out);
	if (r.problems)
		exit_code = TOOL_EXIT_PROBLEMS;
	say_summary(&r, out, lost, &jit);
	if (r.stop)
		r.unwritten += r.chunk_samples;
	if (r.unwritten)
		tool_error("warning: %" PRIu64 " of the %" PRIu64 " samples were not written "
			   "(a chunk could not be completed)", r.unwritten, r.samples);
out:
	record_free(&r, descs);
	return exit_code;
}

static void free_options(void)
{
	g_strfreev(opt_events);
	g_free(opt_output);
	g_free(opt_ring);
	g_free(opt_size);
	g_free(opt_callgraph_mode);
	g_free(opt_cpus);
	g_free(opt_clock);
	g_free(opt_pages);
	g_strfreev(opt_cmd);
}

static const struct perfring_backend_ops *find_backend(struct perfring_registry *reg)
{
	size_t n = perfring_registry_count(reg);

	for (size_t i = 0; i < n; i++) {
		const struct perfring_plugin *p = perfring_registry_plugin_at(reg, i);
		const struct perfring_plugin_descriptor *d;

		if (perfring_plugin_kind(p) != PERFRING_PLUGIN_KIND_BACKEND ||
		    strcmp(perfring_plugin_name(p), "hw") != 0)
			continue;
		/* The registry validated the table when it loaded the plugin. */
		d = perfring_plugin_borrow_descriptor(p);
		return d->backend_ops;
	}
	tool_error("the hw backend plugin was not found (searched PERFRING_PLUGIN_PATH and %s)",
		   perfring_registry_plugins_dir());
	return NULL;
}

/* The command line, with --help's text.  0, or TOOL_EXIT_USAGE (said). */
static int parse_args(int *argc, char ***argv)
{
	GOptionContext *ctx = g_option_context_new("");
	GError *err = NULL;

	g_option_context_set_summary(ctx,
		"Sample (or with --stat count) a command, a running process (-p), one thread (-t),\n"
		"every CPU (-a) or some (-C)\n"
		"with perf_event_open, into a perf.data file that perf report reads.");
	g_option_context_set_description(ctx,
		"Examples:\n"
		"  perfring-record -e cpu-clock -F 999 -g -o x.data -- ./prog arg\n"
		"  perfring-record -p 1234 --duration 5\n"
		"  perfring-record --ring flight.ring --size 4M -- ./server\n"
		"  perfring-record --stat -e task-clock,page-faults -- ./prog\n"
		"  perfring-record -z -g -o small.data -- ./prog    (zstd, as perf record -z)\n"
		"  perfring-record -e sched:sched_process_exec -a --duration 2   (tracepoint)\n"
		"  perfring-record --call-graph dwarf -m 4M -- ./prog   (no frame pointers needed)\n"
		"  perfring-record -C 0,2-3 --switch-events --duration 2\n"
		"  perfring-record -t 4321 -k realtime --duration 5\n"
		"  perfring-record --switch-output=5m --switch-max-files=12 -p 1234   (hours, in chunks)\n"
		"\n"
		"Environment:\n"
		"  PERFRING_PLUGIN_PATH    colon-separated plugin directories or files, searched first;\n"
		"                          the first file of a name wins (--list-plugins -v shows the rest)\n"
		"  PERFRING_PLUGIN_SYSTEM_PATH  if set, searched instead of the installed plugins\n"
		"  PERFRING_NO_DLCLOSE     keep plugins loaded at exit (for ASan and valgrind)\n"
		"  PERFRING_HW_FAKE_ERRNO  make every perf_event_open fail with this errno (tests)\n"
		"\n"
		"Exit status: 0 ok, 1 problems (refused or unsupported events, write errors),\n"
		"2 usage error.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	compress_opt_add(ctx);
	g_option_context_set_strict_posix(ctx, TRUE);
	if (!g_option_context_parse(ctx, argc, argv, &err)) {
		tool_error("%s", err->message);
		g_error_free(err);
		g_option_context_free(ctx);
		return TOOL_EXIT_USAGE;
	}
	g_option_context_free(ctx);
	return 0;
}

/*
 * What is wrong with the options, or NULL.  Parses --call-graph's stack
 * size, -k's clock and -m's pages (*rounded: rounded up to a power of two).
 */
static const char *usage_problem(uint32_t *stack_user, int32_t *clockid, uint32_t *ring_pages,
				 int *rounded)
{
	/* -a/-C alone, or with a command: every task while it runs. */
	int targets = (opt_cmd && opt_cmd[0]) + (opt_pid != 0) + (opt_tid != -1);
	uint64_t sz;

	if (!targets || opt_pid != 0 || opt_tid != -1)
		targets += opt_all_cpus || opt_cpus;
	if (targets == 0)
		return "nothing to record: give -- CMD, -p PID, -t TID, -a or -C LIST (try --help)";
	if (targets > 1)
		return "give only one of -- CMD, -p PID, -t TID and -a/-C LIST (-a/-C may come with a CMD)";
	if (opt_pid < 0)
		return "-p needs a positive process id";
	if (opt_tid == 0 || opt_tid < -1)
		return "-t needs a positive thread id";
	if (opt_cpus && !*opt_cpus)
		return "-C needs a CPU list such as 0, 0-3 or 0,2-3";
	if (opt_callgraph_mode && parse_call_graph(opt_callgraph_mode, stack_user) < 0)
		return "--call-graph: give fp, dwarf or dwarf,SIZE (SIZE in bytes, 8 to 65528; "
		       "it is rounded up to a multiple of 8)";
	if (opt_clock && parse_clock(opt_clock, clockid) < 0)
		return "-k: give monotonic, monotonic_raw, realtime, boottime, tai or a clock number";
	if (opt_pages && parse_mmap_pages(opt_pages, ring_pages, rounded) < 0)
		return "-m: give a number of pages (8) or a size with B, K, M or G (4M), "
		       "at most 2^20 pages";
	if (opt_stat && (opt_callgraph_mode || opt_switch_events || opt_clock || opt_pages))
		return "--stat counts: --call-graph, --switch-events, -k and -m do not apply";
	if (opt_freq && opt_count)
		return "-F and -c exclude each other";
	if (opt_freq < 0 || opt_count < 0)
		return "-F and -c need positive numbers";
	if (opt_stat && (opt_freq || opt_count || opt_callgraph || opt_ring || opt_output))
		return "--stat counts: -F, -c, -g, -o and --ring do not apply";
	if (compress_opt_level() && (opt_stat || (opt_ring && !opt_output)))
		return "-z compresses the perf.data output (-o FILE), not --stat or --ring";
	if (opt_size && !opt_ring)
		return "--size needs --ring FILE";
	if (opt_size && parse_size(opt_size, &sz) < 0)
		return "--size needs a byte count such as 65536, 512K or 4M";
	if (opt_duration < 0)
		return "--duration needs a positive number of seconds";
	if (opt_switch_mode && (opt_stat || (opt_ring && !opt_output) ||
				(opt_output && strcmp(opt_output, "-") == 0)))
		return "--switch-output cuts a perf.data file (-o FILE), not --stat, --ring or a pipe";
	if (opt_switch_max_files < 0 || (opt_switch_max_files && !opt_switch_mode))
		return "--switch-max-files needs a positive N and --switch-output";
	return NULL;
}

/*
 * Usage checks, and what they parse for the backend.  0, or
 * TOOL_EXIT_USAGE (said).  Says how -m was rounded.
 */
static int check_usage(uint32_t *stack_user, int32_t *clockid, uint32_t *ring_pages)
{
	int rounded = 0;
	const char *bad = usage_problem(stack_user, clockid, ring_pages, &rounded);

	if (bad) {
		tool_error("%s", bad);
		return TOOL_EXIT_USAGE;
	}
	if (rounded)
		tool_error("rounding mmap pages size to %" PRIu64 "K (%u pages)",
			   (uint64_t)*ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 1024,
			   *ring_pages);
	return 0;
}

/* Open the events the options ask for (events: -e's lists joined) into *b. */
static int open_backend(const struct perfring_backend_ops *ops, const char *events,
			uint32_t stack_user, int32_t clockid, uint32_t ring_pages,
			struct perfring_diag *d, struct perfring_backend **b)
{
	PERFRING_BACKEND_OPTS(bo,
		.mode = opt_stat ? PERFRING_BACKEND_COUNT : PERFRING_BACKEND_SAMPLE,
		.events = events,
		.freq = (uint64_t)opt_freq,
		.period = (uint64_t)opt_count,
		.callchain = opt_callgraph || opt_callgraph_mode,
		.stack_user = stack_user,
		.pid = opt_pid,
		.tid = opt_tid > 0 ? opt_tid : 0,
		.system_wide = opt_all_cpus,
		.cpu_list = opt_cpus,
		.switch_events = opt_switch_events,
		.clockid_set = 1,
		.clockid = clockid,
		.argv = (const char *const *)opt_cmd,
		.ring_pages = ring_pages,
		.skip_unsupported = opt_stat,
		.log = log_cb);

	return ops->open(&bo, d, b);
}

int main(int argc, char **argv)
{
	struct perfring_registry *reg = NULL;
	const struct perfring_backend_ops *ops;
	struct perfring_backend *b = NULL;
	struct perfring_diag d = { 0 };
	char *events = NULL;
	uint32_t stack_user = 0, ring_pages = 0;
	int32_t clockid = CLOCK_MONOTONIC;
	char **orig_argv = g_strdupv(argv);
	int orig_argc = argc;
	sigset_t oldmask;
	int sfd = -1, ret, exit_code = TOOL_EXIT_OK;

	tool_init("perfring-record");
	/* A closed output pipe (-o - | head) is a write error, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	exit_code = parse_args(&argc, &argv);
	if (exit_code)
		goto done;
	if (opt_version) {
		tool_print_version();
		goto done;
	}
	if (opt_list_plugins) {
		if (tool_load_plugins(&reg) < 0) {
			exit_code = TOOL_EXIT_USAGE;
			goto done;
		}
		tool_list_plugins(reg, opt_verbose);
		goto done;
	}
	exit_code = check_usage(&stack_user, &clockid, &ring_pages);
	if (exit_code)
		goto done;
	if (opt_events)
		events = g_strjoinv(",", opt_events);
	if (tool_load_plugins(&reg) < 0) {
		exit_code = TOOL_EXIT_USAGE;
		goto done;
	}
	ops = find_backend(reg);
	if (!ops) {
		exit_code = TOOL_EXIT_PROBLEMS;
		goto done;
	}
	if (!opt_stat && !opt_no_markers && opt_cmd && opt_cmd[0])
		marks_dir_make();
	sfd = setup_signals(&oldmask);
	ret = open_backend(ops, events, stack_user, clockid, ring_pages, &d, &b);
	if (ret >= 0 && !opt_stat)
		set_slice(100000);	/* after open: the command it forked keeps its own */
	if (ret < 0) {
		tool_error_diag(&d);
		exit_code = ret == -EINVAL ? TOOL_EXIT_USAGE : TOOL_EXIT_PROBLEMS;
		goto out;
	}
	if (opt_stat)
		exit_code = do_stat(ops, b, sfd);
	else
		exit_code = do_record(ops, b, reg, sfd, orig_argc, orig_argv);
out:
	if (b)
		ops->close(b);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
done:
	marks_dir_remove();
	perfring_registry_free(reg);
	g_free(events);
	g_strfreev(orig_argv);
	free_options();
	return exit_code;
}
