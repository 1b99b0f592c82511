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
/* The command's PERFRING_MARKS_DIR: a private folder, removed at the end. */
static char *marks_dir;

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
	if (h.type == PERFRING_RECORD_SAMPLE)
		r->samples++;
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
 * Sampling: ask the scheduler for a short slice (0.1 ms) for this thread,
 * which drains the rings.  With every CPU busy, a woken reader otherwise
 * waits for the running task's slice to end (EEVDF, Linux 6.6+: up to a
 * few ms) while the kernel rings fill; a shorter slice gives it an earlier
 * deadline, so it runs sooner, with no more CPU share (same nice, same
 * policy).  Kernels before 6.12 ignore the slice.  Left alone: other
 * policies (a user's chrt), and failures (nothing depends on it).
 * bench/RESULTS.md has the losses with and without.
 */
static void short_slice(void)
{
#ifdef SYS_sched_setattr
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
	} sa = { .size = 48, .policy = SCHED_OTHER, .runtime = 100000 };
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
	sigprocmask(SIG_BLOCK, &set, old);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
		bits = ops->wait(b, sfd, timeout);
		if (bits < 0) {
			tool_error("waiting for events: %s", strerror(-bits));
			if (r)
				r->problems = 1;
			break;
		}
		if (r) {
			drain(r);
			tool_progress("%" PRIu64 " samples, %" PRIu64 " records...",
				      r->samples, r->records);
		}
		if (bits & PERFRING_BACKEND_WAKE_EXIT)
			break;
		if (bits & PERFRING_BACKEND_WAKE_FD) {
			struct signalfd_siginfo si;
			int cmd_mode = opt_cmd && opt_cmd[0];

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				/* A command: pass it on and wait for it to end. */
				if (cmd_mode && pid > 0)
					kill(pid, (int)si.ssi_signo);
			}
			if (!cmd_mode)
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
	if (status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		tool_error("note: %s %s %d", opt_cmd[0],
			   WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
			   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
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

static int do_record(const struct perfring_backend_ops *ops, struct perfring_backend *b,
		     int sfd, int argc, char **argv)
{
	struct perfring_diag d = { 0 };
	struct rec r = { .ops = ops, .b = b };
	uint32_t nev = ops->nr_events(b);
	struct perfring_event_desc *descs = g_new0(struct perfring_event_desc, nev);
	const char *out = opt_output ? opt_output : opt_ring ? NULL : "perf.data";
	uint64_t lost = 0;
	int ret, exit_code = TOOL_EXIT_OK;
	struct stat st;
	struct jit_bake_stats jit = { 0 };
	struct marks_merge_stats marks = { 0 };
	bool marks_done = false;

	/* The backend's descriptions go as they are to the writer and the ring. */
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
	if (out) {
		/*
		 * Build ids of the mapped files: recorded live, the files on
		 * disk are the ones that ran, as perf record assumes too.
		 */
		PERFRING_WRITER_OPTS(wo, .path = out, .argc = argc, .argv = (const char *const *)argv,
				     .build_ids = 1, .compression_level = compress_opt_level());

		ret = perfring_writer_open(&wo, &d, &r.w);
		if (ret < 0) {
			tool_error_diag(&d);
			exit_code = TOOL_EXIT_PROBLEMS;
			goto out;
		}
		for (uint32_t i = 0; i < nev; i++) {
			ret = perfring_writer_add_event(r.w, &descs[i], &d);
			if (ret < 0) {
				tool_error_diag(&d);
				exit_code = TOOL_EXIT_PROBLEMS;
				goto out;
			}
		}
	}
	if (opt_ring) {
		uint64_t size = 1u << 20;

		if (opt_size)
			parse_size(opt_size, &size);
		PERFRING_RING_OPTS(ro, .backing = PERFRING_RING_FILE, .path = opt_ring,
				   .data_size = round_ring_size(size),
				   .flags = PERFRING_RING_OVERWRITE | PERFRING_RING_TRUNCATE |
					    PERFRING_RING_CLOCKID,
				   .clockid = descs[0].attr->clockid, .events = descs, .nr_events = nev);
		ret = perfring_ring_create(&ro, &d, &r.ringfile);
		if (ret < 0) {
			tool_error_diag(&d);
			exit_code = TOOL_EXIT_PROBLEMS;
			goto out;
		}
	}
	r.nring = ops->nr_rings(b);
	if (opt_verbose)
		say_setup(ops, b, descs, nev);
	r.readers = g_new0(struct perfring_reader *, r.nring);
	r.sources = g_new0(int, r.nring + 1);
	for (uint32_t i = 0; i <= r.nring; i++)
		r.sources[i] = r.w ? perfring_writer_add_source(r.w) : 0;
	for (uint32_t i = 0; i < r.nring; i++) {
		ret = perfring_reader_new(ops->ring(b, i), &r.readers[i]);
		if (ret < 0 || r.sources[i] < 0) {
			tool_error("cannot read the kernel rings: %s",
				   strerror(ret < 0 ? -ret : -r.sources[i]));
			exit_code = TOOL_EXIT_PROBLEMS;
			goto out;
		}
	}
	ret = ops->start(b, &d);
	if (ret < 0) {
		tool_error_diag(&d);
		exit_code = TOOL_EXIT_PROBLEMS;
		goto out;
	}
	ret = ops->synthesize(b, synth_cb, &r);
	if (ret < 0)
		tool_error("reading /proc for the running tasks: %s", strerror(-ret));
	if (r.w)
		perfring_writer_end_source(r.w, r.sources[r.nring], NULL);
	run_loop(ops, b, sfd, &r);
	ops->stop(b);
	drain(&r);
	tool_progress_end();
	{
		int status = -1;

		ops->target(b, NULL, &status);
		if (status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			tool_error("note: %s %s %d", opt_cmd[0],
				   WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
				   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	for (uint32_t i = 0; i < r.nring; i++) {
		struct perfring_reader_stats rs = { .sz = sizeof(rs) };

		if (!r.readers[i])
			continue;
		perfring_reader_get_stats(r.readers[i], &rs);
		lost += rs.lost;
	}
	/*
	 * LOST records only come with the next record that fits: the kernel's
	 * own per-event count (PERF_FORMAT_LOST) also has the drops no LOST
	 * record reported before the end.
	 */
	{
		uint64_t counted = 0;

		for (uint32_t i = 0; i < nev; i++) {
			struct perfring_backend_count c = { .sz = sizeof(c) };

			if (ops->read_count(b, i, &c) == 0)
				counted += c.lost;
		}
		if (counted > lost)
			lost = counted;
	}
	if (r.w) {
		for (uint32_t i = 0; i < r.nring; i++)
			perfring_writer_end_source(r.w, r.sources[i], NULL);
		/*
		 * As perf record does: keep the previous file as FILE.old.  A
		 * hard link keeps it under FILE too until the writer's rename
		 * replaces it, so a failed close leaves the old FILE in place.
		 */
		if (strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			char *old = g_strconcat(out, ".old", NULL);

			unlink(old);
			if (link(out, old) < 0 && rename(out, old) < 0)
				tool_error("warning: cannot keep %s as %s: %s", out, old,
					   strerror(errno));
			g_free(old);
		}
		ret = perfring_writer_close(r.w, &d);
		r.w = NULL;
		if (ret < 0) {
			tool_error_diag(&d);
			exit_code = TOOL_EXIT_PROBLEMS;
			goto out;
		}
	}
	/*
	 * JIT symbols: tools/jit-bake.c rewrites the file if it has any.  It
	 * reads the output back, so only a regular file: /dev/null, a FIFO or
	 * standard output is written as perf record writes it, and skipped.
	 */
	if (!opt_no_jit && out) {
		if (strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (jit_bake_file(out, argc, (const char *const *)argv,
					  compress_opt_level(), NULL, &jit) < 0)
				r.problems = 1;
		} else {
			tool_error("note: JIT symbols not baked: %s is not a regular file, so it "
				   "cannot be read back (perfring-replay --jit can bake a saved copy)",
				   strcmp(out, "-") ? out : "standard output");
		}
	}
	/*
	 * Markers: tools/marks-merge.c rewrites the file with the rings of
	 * the command's private folder and those its maps name.  As for JIT
	 * symbols, only a regular file can be read back.
	 */
	if (!opt_no_markers && out && strcmp(out, "-") != 0 && stat(out, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		if (marks_merge_file(out, argc, (const char *const *)argv, compress_opt_level(),
				     marks_dir, &marks) < 0)
			r.problems = 1;
		if (marks.problems)
			r.problems = 1;
		marks_done = marks.rings || marks.missing;
	} else if (!opt_no_markers && marks_dir && marks_dir_has_rings()) {
		tool_error("note: markers not merged: %s is not a regular file, so it cannot be "
			   "read back", out && strcmp(out, "-") ? out : "standard output");
	}
	if (marks_done)
		tool_error("%" PRIu64 " markers merged from %" PRIu64 " ring%s, %" PRIu64 " lost",
			   marks.markers, marks.rings, marks.rings == 1 ? "" : "s", marks.lost);
	if (r.problems)
		exit_code = TOOL_EXIT_PROBLEMS;
	if (r.rejected > 1)
		tool_error("%" PRIu64 " records were refused by the perf.data writer", r.rejected);
	if (r.ring_dropped)
		tool_error("warning: %" PRIu64 " records did not fit the ring file", r.ring_dropped);
	if (lost)
		tool_error("warning: the kernel lost %" PRIu64 " records (rings too small or "
			   "the reader too slow: try -m with more pages)", lost);
	{
		GString *s = g_string_new(NULL);

		g_string_append_printf(s, "%" PRIu64 " samples, %" PRIu64 " records, %" PRIu64
				       " lost", r.samples, r.records, lost);
		if (out && strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
			g_string_append_printf(s, ", %.3f MB written to %s",
					       (double)st.st_size / (1024.0 * 1024.0), out);
		else if (out)
			g_string_append_printf(s, ", written to %s", out);
		if (out && compress_opt_level())	/* as perf record -z says it */
			g_string_append_printf(s, ", compressed (original %.3f MB)",
					       (double)r.bytes / (1024.0 * 1024.0));
		if (jit.elfs)
			g_string_append_printf(s, "; %" PRIu64 " JIT functions resolved (%s)",
					       jit.functions, jit.elfs == 1 ? "1 ELF" : "ELFs");
		if (r.ringfile)
			g_string_append_printf(s, "; ring %s keeps the newest %" PRIu64 " bytes",
					       opt_ring, perfring_ring_data_size(r.ringfile));
		tool_error("%s", s->str);
		g_string_free(s, TRUE);
	}
out:
	if (r.w)
		perfring_writer_abort(r.w);
	for (uint32_t i = 0; r.readers && i < r.nring; i++)
		perfring_reader_free(r.readers[i]);
	g_free(r.readers);
	g_free(r.sources);
	perfring_ring_close(r.ringfile);
	g_free(descs);
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

int main(int argc, char **argv)
{
	GOptionContext *ctx;
	GError *err = NULL;
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
	ctx = g_option_context_new("");
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
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		tool_error("%s", err->message);
		g_error_free(err);
		g_option_context_free(ctx);
		exit_code = TOOL_EXIT_USAGE;
		goto done;
	}
	g_option_context_free(ctx);
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
	/* Usage checks. */
	{
		/* -a/-C alone, or with a command: every task while it runs. */
		int targets = (opt_cmd && opt_cmd[0]) + (opt_pid != 0) + (opt_tid != -1);
		uint64_t sz;
		const char *bad = NULL;
		int rounded = 0;

		if (!targets || opt_pid != 0 || opt_tid != -1)
			targets += opt_all_cpus || opt_cpus;
		if (targets == 0)
			bad = "nothing to record: give -- CMD, -p PID, -t TID, -a or -C LIST (try --help)";
		else if (targets > 1)
			bad = "give only one of -- CMD, -p PID, -t TID and -a/-C LIST (-a/-C may come with a CMD)";
		else if (opt_pid < 0)
			bad = "-p needs a positive process id";
		else if (opt_tid == 0 || opt_tid < -1)
			bad = "-t needs a positive thread id";
		else if (opt_cpus && !*opt_cpus)
			bad = "-C needs a CPU list such as 0, 0-3 or 0,2-3";
		else if (opt_callgraph_mode && parse_call_graph(opt_callgraph_mode, &stack_user) < 0)
			bad = "--call-graph: give fp, dwarf or dwarf,SIZE (SIZE in bytes, 8 to 65528; "
			      "it is rounded up to a multiple of 8)";
		else if (opt_clock && parse_clock(opt_clock, &clockid) < 0)
			bad = "-k: give monotonic, monotonic_raw, realtime, boottime, tai or a clock number";
		else if (opt_pages && parse_mmap_pages(opt_pages, &ring_pages, &rounded) < 0)
			bad = "-m: give a number of pages (8) or a size with B, K, M or G (4M), "
			      "at most 2^20 pages";
		else if (opt_stat && (opt_callgraph_mode || opt_switch_events || opt_clock || opt_pages))
			bad = "--stat counts: --call-graph, --switch-events, -k and -m do not apply";
		else if (opt_freq && opt_count)
			bad = "-F and -c exclude each other";
		else if (opt_freq < 0 || opt_count < 0)
			bad = "-F and -c need positive numbers";
		else if (opt_stat && (opt_freq || opt_count || opt_callgraph || opt_ring || opt_output))
			bad = "--stat counts: -F, -c, -g, -o and --ring do not apply";
		else if (compress_opt_level() && (opt_stat || (opt_ring && !opt_output)))
			bad = "-z compresses the perf.data output (-o FILE), not --stat or --ring";
		else if (opt_size && !opt_ring)
			bad = "--size needs --ring FILE";
		else if (opt_size && parse_size(opt_size, &sz) < 0)
			bad = "--size needs a byte count such as 65536, 512K or 4M";
		else if (opt_duration < 0)
			bad = "--duration needs a positive number of seconds";
		if (bad) {
			tool_error("%s", bad);
			exit_code = TOOL_EXIT_USAGE;
			goto done;
		}
		if (rounded)
			tool_error("rounding mmap pages size to %" PRIu64 "K (%u pages)",
				   (uint64_t)ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 1024,
				   ring_pages);
	}
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

		ret = ops->open(&bo, &d, &b);
	}
	if (ret >= 0 && !opt_stat)
		short_slice();	/* after open: the command it forked keeps its own */
	if (ret < 0) {
		tool_error_diag(&d);
		exit_code = ret == -EINVAL ? TOOL_EXIT_USAGE : TOOL_EXIT_PROBLEMS;
		goto out;
	}
	if (opt_stat)
		exit_code = do_stat(ops, b, sfd);
	else
		exit_code = do_record(ops, b, sfd, orig_argc, orig_argv);
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
