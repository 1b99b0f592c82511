/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hw backend plugin: event list parser, count scaling, and the plugin
 * itself loaded through the registry (counting, group reads, sampling
 * rings read with the library's reader, /proc synthesis for -p, refusal
 * messages), plus a flight-recorder ring file that outlives a killed
 * perfring-record.
 *
 * Skips (77) only when perf_event_open is unavailable here.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <perfring/plugin.h>

#include "evparse.h"
#include "testutil.h"

#ifndef HW_PLUGIN_PATH
#error "HW_PLUGIN_PATH must name the hw plugin's build directory"
#endif
#ifndef WORKLOADS_DIR
#error "WORKLOADS_DIR must name the built workloads"
#endif
#ifndef RECORD_TOOL
#error "RECORD_TOOL must name the built perfring-record"
#endif

/* ---- parser --------------------------------------------------------------- */

static struct hw_evspec *parse_ok(const char *spec, size_t *n)
{
	struct hw_evspec *ev;
	char err[512] = "";
	int ret = hw_parse_events(spec, &ev, n, err, sizeof(err));

	ck_assert_msg(ret == 0, "'%s': %d %s", spec, ret, err);
	return ev;
}

static void parse_bad(const char *spec, const char *want)
{
	struct hw_evspec *ev = (void *)1;
	size_t n = 99;
	char err[512] = "";
	int ret = hw_parse_events(spec, &ev, &n, err, sizeof(err));

	ck_assert_msg(ret == -EINVAL, "'%s' accepted (%d)", spec, ret);
	ck_assert_ptr_null(ev);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(err, want), "'%s': message '%s' lacks '%s'", spec, err, want);
}

START_TEST(parse_names)
{
	static const struct { const char *s; uint32_t type; uint64_t config; const char *name; } t[] = {
		{ "cycles", PERFRING_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
		{ "cpu-cycles", PERFRING_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
		{ "instructions", PERFRING_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
		{ "cache-misses", PERFRING_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses" },
		{ "branch-misses", PERFRING_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses" },
		{ "cpu-clock", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock" },
		{ "task-clock", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock" },
		{ "page-faults", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
		{ "faults", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
		{ "context-switches", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
		{ "cpu-migrations", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations" },
		{ "minor-faults", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
		{ "major-faults", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults" },
		{ "dummy", PERFRING_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy" },
		{ "r01c2", PERFRING_TYPE_RAW, 0x1c2, "r01c2" },
		{ "rFF", PERFRING_TYPE_RAW, 0xff, "rFF" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n;
		struct hw_evspec *ev = parse_ok(t[i].s, &n);

		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(ev[0].attr.type, t[i].type);
		ck_assert_uint_eq(ev[0].attr.config, t[i].config);
		ck_assert_str_eq(ev[0].name, t[i].name);
		ck_assert_uint_eq(ev[0].attr.flags, 0);
		ck_assert_int_eq(ev[0].leader, 0);
		ck_assert_int_eq(ev[0].nr_members, 1);
		free(ev);
	}
}
END_TEST

START_TEST(parse_modifiers)
{
	size_t n;
	struct hw_evspec *ev = parse_ok("cpu-clock:u,cycles:k,task-clock:uk,instructions:pp,r10:u", &n);
	const uint64_t ex = PERFRING_ATTR_EXCLUDE_USER | PERFRING_ATTR_EXCLUDE_KERNEL |
			    PERFRING_ATTR_EXCLUDE_HV;

	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(ev[0].attr.flags & ex, PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_HV);
	ck_assert_str_eq(ev[0].name, "cpu-clock:u");
	ck_assert_uint_eq(ev[1].attr.flags & ex, PERFRING_ATTR_EXCLUDE_USER | PERFRING_ATTR_EXCLUDE_HV);
	ck_assert_uint_eq(ev[2].attr.flags & ex, PERFRING_ATTR_EXCLUDE_HV);
	ck_assert_uint_eq((ev[3].attr.flags & PERFRING_ATTR_PRECISE_IP_MASK) >>
			  PERFRING_ATTR_PRECISE_IP_SHIFT, 2);
	ck_assert_uint_eq(ev[3].attr.flags & ex, 0);
	ck_assert_uint_eq(ev[4].attr.type, PERFRING_TYPE_RAW);
	ck_assert_uint_eq(ev[4].attr.flags & ex, PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_HV);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ev[i].leader, (int)i);
	free(ev);
}
END_TEST

START_TEST(parse_groups)
{
	size_t n;
	struct hw_evspec *ev = parse_ok("page-faults,{cpu-clock,task-clock:u}:k,{dummy},cs", &n);

	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(ev[0].leader, 0);
	ck_assert_int_eq(ev[1].leader, 1);
	ck_assert_int_eq(ev[1].nr_members, 2);
	ck_assert_int_eq(ev[2].leader, 1);
	ck_assert_int_eq(ev[2].nr_members, 0);
	/* The group's :k adds to each member's own modifiers. */
	ck_assert_str_eq(ev[1].name, "cpu-clock:k");
	ck_assert_uint_eq(ev[1].attr.flags & PERFRING_ATTR_EXCLUDE_USER, PERFRING_ATTR_EXCLUDE_USER);
	ck_assert_uint_eq(ev[2].attr.flags & PERFRING_ATTR_EXCLUDE_KERNEL, PERFRING_ATTR_EXCLUDE_KERNEL);
	ck_assert_uint_eq(ev[2].attr.flags & PERFRING_ATTR_EXCLUDE_USER, PERFRING_ATTR_EXCLUDE_USER);
	ck_assert_str_eq(ev[2].name, "task-clock:uk");
	ck_assert_int_eq(ev[3].leader, 3);
	ck_assert_int_eq(ev[3].nr_members, 1);
	ck_assert_int_eq(ev[4].leader, 4);
	ck_assert_uint_eq(ev[4].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	free(ev);
}
END_TEST

START_TEST(parse_errors)
{
	parse_bad("", "empty event list");
	parse_bad("bogus", "unknown event 'bogus'");
	parse_bad("cpu-clock,bogus:u", "unknown event 'bogus'");
	parse_bad("cpu-clock:x", "unknown event modifier 'x'");
	parse_bad("cpu-clock:", "empty modifier");
	parse_bad("cpu-clock,", "trailing ','");
	parse_bad("{cpu-clock,task-clock", "without '}'");
	parse_bad("{}", "empty group");
	parse_bad("{a,{b}}", "nested");
	parse_bad("r", "unknown event 'r'");
	parse_bad("rxyz", "unknown event 'rxyz'");
	parse_bad("cpu-clock:pppp", "too many 'p'");
	parse_bad("{cpu-clock}x", "unexpected 'x'");
}
END_TEST

START_TEST(scaling)
{
	/* Not multiplexed, never ran, multiplexed, and beyond 64-bit products. */
	ck_assert_uint_eq(hw_scale_count(1000, 500, 500), 1000);
	ck_assert_uint_eq(hw_scale_count(1000, 500, 0), 1000);
	ck_assert_uint_eq(hw_scale_count(1000, 600, 300), 2000);
	ck_assert_uint_eq(hw_scale_count(3, 10, 4), 7);
	/* value * enabled needs 104 bits here. */
	ck_assert_uint_eq(hw_scale_count(1ull << 62, 3ull << 40, 1ull << 40), 3ull << 62);
	ck_assert_uint_eq(hw_scale_count(1ull << 62, 1ull << 40, 1ull << 39), 1ull << 63);
	ck_assert_uint_eq(hw_scale_count(UINT64_MAX, 4, 1), UINT64_MAX);
	ck_assert_uint_eq(hw_scale_count(123456789012345ull, 3000000000000ull, 1000000000000ull),
			  370370367037035ull);
}
END_TEST

/* ---- the plugin -------------------------------------------------------------- */

static struct perfring_registry *reg;
static const struct perfring_backend_ops *ops;

static void load_hw(void)
{
	struct perfring_diag d = { 0 };
	const struct perfring_plugin *p;
	const struct perfring_plugin_descriptor *desc;
	int ret;

	ck_assert_int_eq(perfring_registry_new(0, &reg), 0);
	ret = perfring_registry_load_path(reg, HW_PLUGIN_PATH, &d);
	ck_assert_msg(ret == 1, "loading %s: %d %s", HW_PLUGIN_PATH, ret, d.msg);
	p = perfring_registry_plugin_at(reg, 0);
	ck_assert_str_eq(perfring_plugin_name(p), "hw");
	ck_assert_int_eq(perfring_plugin_kind(p), PERFRING_PLUGIN_KIND_BACKEND);
	ck_assert_uint_eq(perfring_plugin_types(p, NULL), 0);
	desc = perfring_plugin_borrow_descriptor(p);
	ck_assert_ptr_nonnull(desc);
	ops = desc->backend_ops;
	ck_assert_ptr_nonnull(ops);
	ck_assert_uint_eq(ops->struct_size, sizeof(struct perfring_backend_ops));
}

static void unload_hw(void)
{
	perfring_registry_free(reg);
	reg = NULL;
	ops = NULL;
}

struct logged {
	char msg[1024];
	int n;
};

static void log_cb(enum perfring_log_level lvl, const char *msg, void *user)
{
	struct logged *l = user;

	(void)lvl;
	snprintf(l->msg, sizeof(l->msg), "%s", msg);
	l->n++;
}

/* Run the session's command to its end (no rings to drain). */
static void run_to_exit(struct perfring_backend *b)
{
	struct perfring_diag d = { 0 };
	int bits = 0;

	ck_assert_msg(ops->start(b, &d) == 0, "start: %s", d.msg);
	while (!(bits & PERFRING_BACKEND_WAKE_EXIT)) {
		bits = ops->wait(b, -1, 10000);
		ck_assert_int_ge(bits, 0);
		ck_assert_msg(!(bits & PERFRING_BACKEND_WAKE_TIMEOUT), "command did not end");
	}
}

START_TEST(count_faults)
{
	const char *argv[] = { WORKLOADS_DIR "/wl-faults", "3000", NULL };
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;
	struct perfring_backend_count tc = { .sz = sizeof(tc) }, pf = { .sz = sizeof(pf) };
	PERFRING_EVENT_DESC(ev);
	int pid, status, ret;
	PERFRING_BACKEND_OPTS(o, .mode = PERFRING_BACKEND_COUNT,
			      .events = "task-clock,page-faults:u", .argv = argv);

	load_hw();
	ret = ops->open(&o, &d, &b);
	ck_assert_msg(ret == 0, "open: %d %s", ret, d.msg);
	ck_assert_uint_eq(ops->nr_events(b), 2);
	ck_assert_uint_eq(ops->nr_rings(b), 0);
	ck_assert_int_eq(ops->event(b, 1, &ev), 0);
	ck_assert_str_eq(ev.name, "page-faults:u");
	ck_assert_uint_eq(ev.nr_ids, 1);
	ck_assert_uint_ne(ev.ids[0], 0);
	ck_assert_uint_eq(ev.attr->read_format & (PERFRING_FORMAT_TOTAL_TIME_ENABLED |
						  PERFRING_FORMAT_TOTAL_TIME_RUNNING),
			  PERFRING_FORMAT_TOTAL_TIME_ENABLED | PERFRING_FORMAT_TOTAL_TIME_RUNNING);
	ck_assert_int_eq(ops->event(b, 2, &ev), -ENOENT);
	run_to_exit(b);
	ck_assert_int_eq(ops->target(b, &pid, &status), 1);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	ck_assert_int_eq(ops->read_count(b, 0, &tc), 0);
	ck_assert_int_eq(ops->read_count(b, 1, &pf), 0);
	ck_assert_int_eq(tc.supported, 1);
	ck_assert_int_eq(tc.counted, 1);
	/* task-clock counts ns of the task: close to its enabled time. */
	ck_assert_uint_gt(tc.value, 1000000);
	ck_assert_uint_le(tc.value, tc.enabled + 1000000);
	ck_assert_uint_eq(tc.scaled, tc.value);
	/* One fault per touched page, plus start-up. */
	ck_assert_msg(pf.value >= 3000 && pf.value < 3000 + 1000, "page-faults %" PRIu64, pf.value);
	ck_assert_uint_eq(pf.running, pf.enabled);
	ck_assert_int_eq(ops->read_count(b, 5, &pf), -ENOENT);
	ops->close(b);
	unload_hw();
}
END_TEST

START_TEST(count_group)
{
	const char *argv[] = { WORKLOADS_DIR "/wl-faults", "1000", NULL };
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;
	struct perfring_backend_count c[3];
	PERFRING_EVENT_DESC(ev);
	int ret;
	PERFRING_BACKEND_OPTS(o, .mode = PERFRING_BACKEND_COUNT,
			      .events = "{task-clock,page-faults,minor-faults}", .argv = argv);

	load_hw();
	ret = ops->open(&o, &d, &b);
	ck_assert_msg(ret == 0, "open: %d %s", ret, d.msg);
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_int_eq(ops->event(b, i, &ev), 0);
		ck_assert_int_eq(ev.leader, 0);
		ck_assert_uint_eq(ev.attr->read_format & PERFRING_FORMAT_GROUP, PERFRING_FORMAT_GROUP);
	}
	run_to_exit(b);
	for (uint32_t i = 0; i < 3; i++) {
		c[i].sz = sizeof(c[i]);
		ck_assert_int_eq(ops->read_count(b, i, &c[i]), 0);
		ck_assert_int_eq(c[i].counted, 1);
	}
	/* One read() of the group: the same times for every member. */
	ck_assert_uint_eq(c[0].enabled, c[1].enabled);
	ck_assert_uint_eq(c[1].running, c[2].running);
	ck_assert_uint_ge(c[1].value, 1000);
	ck_assert_uint_eq(c[1].value, c[2].value);	/* no major faults here */
	ops->close(b);
	unload_hw();
}
END_TEST

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Per-record-type counts from draining every ring of a session. */
struct drained {
	unsigned types[PERFRING_RECORD_KERNEL_MAX];
	unsigned bad_id, bad_time, exec_comm, wl_mmap, samples_in_wl;
	uint64_t t_min, t_max;
};

static void drain_all(struct perfring_backend *b, struct perfring_reader **rd, uint32_t nr,
		      const uint64_t *ids, uint32_t nids, const char *wl, struct drained *out)
{
	for (uint32_t i = 0; i < nr; i++) {
		struct perfring_record rec = { .sz = sizeof(rec) };
		int ret;

		while ((ret = perfring_reader_next(rd[i], &rec)) == 1) {
			const struct perfring_event_header *h = rec.hdr;
			const struct perfring_attr *attr = perfring_ring_attr_for_id(ops->ring(b, i), 0);
			uint64_t id, t;
			bool known = false;

			/* the record was written before it was read: its time is
			 * at most now (a bound taken before the drain raced with
			 * records written during it) */
			out->t_max = mono_ns();

			if (h->type < PERFRING_RECORD_KERNEL_MAX)
				out->types[h->type]++;
			if (h->type == PERFRING_RECORD_SAMPLE) {
				struct perfring_sample s;

				ck_assert_int_eq(perfring_sample_decode(attr, h, h->size, &s, NULL), 0);
				id = s.identifier;
				t = s.time;
			} else {
				struct perfring_sample_id sid;

				ck_assert_int_eq(perfring_sample_id_decode(attr->sample_type, h, h->size,
									   &sid), 0);
				id = sid.identifier;
				t = sid.time;
			}
			/* one event: no id in the records (as perf record does) */
			known = !(attr->sample_type & PERFRING_SAMPLE_IDENTIFIER);
			for (uint32_t k = 0; k < nids; k++)
				known |= ids[k] == id;
			out->bad_id += !known;
			if (t < out->t_min || t > out->t_max)
				out->bad_time++;
			if (h->type == PERFRING_RECORD_COMM && (h->misc & PERFRING_MISC_COMM_EXEC) &&
			    strcmp((const char *)h + 16, "wl-busy") == 0)
				out->exec_comm++;
			if (h->type == PERFRING_RECORD_MMAP2 && strstr((const char *)h + 72, wl))
				out->wl_mmap++;
		}
		ck_assert_int_eq(ret, 0);
		perfring_reader_consume(rd[i]);
	}
}

/*
 * One event: IP|TID|TIME|CPU|PERIOD, no IDENTIFIER (24-byte side-band
 * trailers); two carry IDENTIFIER too, and every record's id is one of the
 * events' ids.
 */
START_TEST(sample_command)
{
	static const char *const events[] = { "cpu-clock", "cpu-clock,task-clock" };
	uint64_t ids[128];
	uint32_t nids = 0;
	const char *argv[] = { WORKLOADS_DIR "/wl-busy", "0.3", NULL };
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;
	PERFRING_EVENT_DESC(ev);
	struct perfring_reader *rd[64];
	struct drained dr = { .t_min = mono_ns() };
	uint32_t nr;
	int ret, bits = 0;
	PERFRING_BACKEND_OPTS(o, .mode = PERFRING_BACKEND_SAMPLE, .events = events[_i],
			      .freq = 1000, .argv = argv, .ring_pages = 8);

	load_hw();
	ret = ops->open(&o, &d, &b);
	ck_assert_msg(ret == 0, "open: %d %s", ret, d.msg);
	for (uint32_t k = 0; k < (uint32_t)_i + 1; k++) {
		PERFRING_EVENT_DESC(e);

		ck_assert_int_eq(ops->event(b, k, &e), 0);
		ck_assert_uint_eq(e.attr->sample_type,
				  (_i ? PERFRING_SAMPLE_IDENTIFIER : 0) | PERFRING_SAMPLE_IP |
				  PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU |
				  PERFRING_SAMPLE_PERIOD);
		for (uint32_t j = 0; j < e.nr_ids && nids < 128; j++)
			ids[nids++] = e.ids[j];
	}
	ck_assert_int_eq(ops->event(b, 0, &ev), 0);
	ck_assert(ev.attr->flags & PERFRING_ATTR_USE_CLOCKID);
	ck_assert_int_eq(ev.attr->clockid, CLOCK_MONOTONIC);
	ck_assert(ev.attr->flags & PERFRING_ATTR_INHERIT);
	ck_assert(ev.attr->flags & PERFRING_ATTR_SAMPLE_ID_ALL);
	ck_assert(ev.attr->flags & PERFRING_ATTR_MMAP2);
	nr = ops->nr_rings(b);
	ck_assert_uint_ge(nr, 1);
	ck_assert_uint_le(nr, 64);
	/* One fd (id) per CPU and event, one ring per CPU. */
	ck_assert_uint_eq(ev.nr_ids, nr);
	ck_assert_uint_eq(nids, nr * (uint32_t)(_i + 1));
	for (uint32_t i = 0; i < nr; i++) {
		ck_assert_uint_eq(perfring_ring_data_size(ops->ring(b, i)), 8 * 4096);
		ck_assert_int_eq(perfring_reader_new(ops->ring(b, i), &rd[i]), 0);
	}
	ck_assert_int_eq(ops->synthesize(b, NULL, NULL), -EINVAL);
	ck_assert_int_eq(ops->start(b, &d), 0);
	while (!(bits & PERFRING_BACKEND_WAKE_EXIT)) {
		bits = ops->wait(b, -1, 10000);
		ck_assert_int_ge(bits, 0);
		ck_assert(!(bits & PERFRING_BACKEND_WAKE_TIMEOUT));
		dr.t_max = mono_ns();
		drain_all(b, rd, nr, ids, nids, "wl-busy", &dr);
	}
	ck_assert_int_eq(ops->stop(b), 0);
	dr.t_max = mono_ns();
	drain_all(b, rd, nr, ids, nids, "wl-busy", &dr);
	/* 0.3 s of CPU at 1000 Hz. */
	ck_assert_msg(dr.types[PERFRING_RECORD_SAMPLE] >= 150, "%u samples",
		      dr.types[PERFRING_RECORD_SAMPLE]);
	ck_assert_uint_ge(dr.exec_comm, 1);
	ck_assert_uint_ge(dr.wl_mmap, 1);
	ck_assert_uint_ge(dr.types[PERFRING_RECORD_EXIT], 1);
	ck_assert_uint_eq(dr.bad_id, 0);
	/* use_clockid: kernel times are CLOCK_MONOTONIC, within the run. */
	ck_assert_msg(dr.bad_time == 0, "%u records outside [%" PRIu64 ", %" PRIu64 "]",
		      dr.bad_time, dr.t_min, dr.t_max);
	/* Nothing more after the end. */
	ck_assert_int_eq(ops->wait(b, -1, 0), PERFRING_BACKEND_WAKE_EXIT);
	for (uint32_t i = 0; i < nr; i++)
		perfring_reader_free(rd[i]);
	ops->close(b);
	unload_hw();
}
END_TEST

struct synth_seen {
	pid_t pid;
	unsigned comm, mmap2, wl_mmap, bad;
	const struct perfring_attr *attr;
	uint64_t id;
	uint64_t wl_pgoff_ok;
};

static int synth_fn(const void *rec, size_t size, void *user)
{
	struct synth_seen *s = user;
	struct perfring_event_header h;
	struct perfring_sample_id sid;

	memcpy(&h, rec, sizeof(h));
	if (h.size != size || size % 8 ||
	    perfring_sample_id_decode(s->attr->sample_type, rec, size, &sid) < 0 ||
	    ((s->attr->sample_type & PERFRING_SAMPLE_IDENTIFIER) && sid.identifier != s->id) ||
	    sid.pid != (uint32_t)s->pid) {
		s->bad++;
		return 0;
	}
	if (h.type == PERFRING_RECORD_COMM) {
		s->comm++;
		if (strcmp((const char *)rec + 16, "wl-threads") != 0)
			s->bad++;
	} else if (h.type == PERFRING_RECORD_MMAP2) {
		struct perfring_mmap2_event m;
		const char *name = (const char *)rec + sizeof(m);

		memcpy(&m, rec, sizeof(m));
		s->mmap2++;
		if (strstr(name, "/wl-threads")) {
			struct stat st;

			s->wl_mmap++;
			if (stat(name, &st) == 0 && st.st_ino == m.ino && (m.prot & 4) &&
			    m.header.misc == PERFRING_MISC_USER)
				s->wl_pgoff_ok++;
		}
	} else {
		s->bad++;
	}
	return 0;
}

START_TEST(attach_pid_synthesize)
{
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;
	PERFRING_EVENT_DESC(ev);
	struct synth_seen seen = { 0 };
	int pfd[2], ret, pid = 0;
	char buf[8];
	pid_t child;

	ck_assert_int_eq(pipe(pfd), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(WORKLOADS_DIR "/wl-threads", "wl-threads", "3", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], buf, 6), 6);	/* "ready\n": both threads run */
	{
		PERFRING_BACKEND_OPTS(o, .mode = PERFRING_BACKEND_SAMPLE, .events = "cpu-clock",
				      .pid = child, .ring_pages = 8);

		load_hw();
		ret = ops->open(&o, &d, &b);
		ck_assert_msg(ret == 0, "open: %d %s", ret, d.msg);
	}
	ck_assert_int_eq(ops->event(b, 0, &ev), 0);
	/* Two threads on every CPU. */
	ck_assert_uint_eq(ev.nr_ids, 2 * ops->nr_rings(b));
	ck_assert_int_eq(ops->target(b, &pid, NULL), 0);
	ck_assert_int_eq(pid, child);
	ck_assert_int_eq(ops->start(b, &d), 0);
	seen.pid = child;
	seen.attr = ev.attr;
	seen.id = ev.ids[0];
	ret = ops->synthesize(b, synth_fn, &seen);
	ck_assert_int_eq(ret, (int)(seen.comm + seen.mmap2 + seen.bad));
	ck_assert_uint_eq(seen.bad, 0);
	ck_assert_uint_eq(seen.comm, 2);		/* one per thread */
	ck_assert_uint_ge(seen.mmap2, 3);		/* binary, libc, ld.so, vdso */
	ck_assert_uint_ge(seen.wl_mmap, 1);
	ck_assert_uint_eq(seen.wl_pgoff_ok, seen.wl_mmap);
	ops->close(b);
	/* close() never kills a process it did not start. */
	ck_assert_int_eq(kill(child, 0), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pfd[0]);
	unload_hw();
}
END_TEST

/* Open with PERFRING_HW_FAKE_ERRNO set; returns the error and message. */
static int open_faked(const char *err_name, const char *events, int system_wide,
		      struct perfring_diag *d, struct logged *l)
{
	const char *argv[] = { "true", NULL };
	struct perfring_backend *b = NULL;
	int ret;
	PERFRING_BACKEND_OPTS(o, .events = events, .argv = system_wide ? NULL : argv,
			      .system_wide = system_wide, .log = log_cb, .log_user = l);

	setenv("PERFRING_HW_FAKE_ERRNO", err_name, 1);
	ret = ops->open(&o, d, &b);
	unsetenv("PERFRING_HW_FAKE_ERRNO");
	ck_assert_ptr_null(b);
	return ret;
}

START_TEST(refusals)
{
	struct perfring_diag d = { 0 };
	struct logged l = { 0 };
	char want[64];
	int lvl = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &lvl), 1);
	fclose(f);
	load_hw();
	ck_assert_int_eq(open_faked("EACCES", "cpu-clock", 0, &d, &l), -EACCES);
	snprintf(want, sizeof(want), "kernel.perf_event_paranoid is %d", lvl);
	ck_assert_msg(strstr(d.msg, want) && strstr(d.msg, "cpu-clock") &&
		      strstr(d.msg, "CAP_PERFMON"), "%s", d.msg);
	ck_assert_int_eq(open_faked("EPERM", "task-clock", 1, &d, &l), -EPERM);
	ck_assert_msg(strstr(d.msg, want) && strstr(d.msg, "task-clock (CPU "), "%s", d.msg);
	ck_assert_int_eq(open_faked("EMFILE", "cpu-clock,page-faults", 1, &d, &l), -EMFILE);
	ck_assert_msg(strstr(d.msg, "too many open files") && strstr(d.msg, "ulimit -n"), "%s",
		      d.msg);
	ck_assert_int_eq(open_faked("ENOENT", "instructions", 0, &d, &l), -EOPNOTSUPP);
	ck_assert_str_eq(d.msg, "instructions: not supported here; try cpu-clock (perf_event_open: No such file or directory)");
	ck_assert_int_eq(l.n, 0);
	/* The default event falls back to cpu-clock, and says so... */
	ck_assert_int_eq(open_faked("ENOENT", NULL, 0, &d, &l), -EOPNOTSUPP);
	ck_assert_int_eq(l.n, 1);
	ck_assert_msg(strstr(l.msg, "falling back to cpu-clock"), "%s", l.msg);
	/* ...and then reports the cpu-clock failure itself. */
	ck_assert_msg(strstr(d.msg, "cpu-clock"), "%s", d.msg);
	ck_assert_int_eq(open_faked("EINVAL", "bogus", 0, &d, &l), -EINVAL);
	ck_assert_msg(strstr(d.msg, "unknown event 'bogus'"), "%s", d.msg);
	unload_hw();
}
END_TEST

START_TEST(bad_options)
{
	const char *argv[] = { "true", NULL };
	const char *noexec[] = { "/nonexistent/command", NULL };
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;

	load_hw();
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock");

		ck_assert_int_eq(ops->open(&o, &d, &b), -EINVAL);
		ck_assert_msg(strstr(d.msg, "nothing to measure"), "%s", d.msg);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .argv = argv, .pid = 1);

		ck_assert_int_eq(ops->open(&o, &d, &b), -EINVAL);
		ck_assert_msg(strstr(d.msg, "only one of"), "%s", d.msg);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .tid = 1, .cpu_list = "0");

		ck_assert_int_eq(ops->open(&o, &d, &b), -EINVAL);
		ck_assert_msg(strstr(d.msg, "only one of"), "%s", d.msg);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .argv = argv, .cpu_list = "0,x");

		ck_assert_int_eq(ops->open(&o, &d, &b), -EINVAL);
		ck_assert_msg(strstr(d.msg, "not a CPU list"), "%s", d.msg);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .argv = argv, .ring_pages = 3);

		ck_assert_int_eq(ops->open(&o, &d, &b), -EINVAL);
		ck_assert_msg(strstr(d.msg, "power of two"), "%s", d.msg);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .pid = 0x3ffffff0);

		ck_assert_int_eq(ops->open(&o, &d, &b), -ESRCH);
	}
	{
		PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .argv = noexec, .ring_pages = 1);

		ck_assert_int_eq(ops->open(&o, &d, &b), 0);
		ck_assert_int_eq(ops->start(b, &d), -ENOENT);
		ck_assert_msg(strstr(d.msg, "cannot run /nonexistent/command"), "%s", d.msg);
		ck_assert_int_eq(ops->wait(b, -1, 0), PERFRING_BACKEND_WAKE_EXIT);
		ops->close(b);
	}
	unload_hw();
}
END_TEST

/* A ring too small for what comes: the kernel's LOST records reach the reader. */
START_TEST(lost_counted)
{
	const char *argv[] = { WORKLOADS_DIR "/wl-busy", "0.6", NULL };
	struct perfring_diag d = { 0 };
	struct perfring_backend *b = NULL;
	struct perfring_reader *rd[64];
	struct perfring_record rec = { .sz = sizeof(rec) };
	uint64_t lost = 0, lost_records = 0, in_records = 0;
	uint32_t nr;
	int ret, bits = 0;
	PERFRING_BACKEND_OPTS(o, .events = "cpu-clock", .period = 100000, .argv = argv,
			      .ring_pages = 1);

	load_hw();
	ret = ops->open(&o, &d, &b);
	ck_assert_msg(ret == 0, "open: %d %s", ret, d.msg);
	nr = ops->nr_rings(b);
	ck_assert_uint_le(nr, 64);
	for (uint32_t i = 0; i < nr; i++)
		ck_assert_int_eq(perfring_reader_new(ops->ring(b, i), &rd[i]), 0);
	ck_assert_int_eq(ops->start(b, &d), 0);
	/* 0.3 s at 10 kHz is ~3000 samples: 4 KiB hold ~80.  Then make room. */
	usleep(300 * 1000);
	for (int pass = 0; pass < 2; pass++) {
		while (pass == 1 && !(bits & PERFRING_BACKEND_WAKE_EXIT)) {
			bits = ops->wait(b, -1, 10000);
			ck_assert_int_ge(bits, 0);
			ck_assert(!(bits & PERFRING_BACKEND_WAKE_TIMEOUT));
		}
		for (uint32_t i = 0; i < nr; i++) {
			while ((ret = perfring_reader_next(rd[i], &rec)) == 1) {
				if (rec.hdr->type == PERFRING_RECORD_LOST) {
					uint64_t n;

					memcpy(&n, (const char *)rec.hdr + 16, 8);
					in_records += n;
				}
			}
			ck_assert_int_eq(ret, 0);
			perfring_reader_consume(rd[i]);
		}
	}
	for (uint32_t i = 0; i < nr; i++) {
		struct perfring_reader_stats st = { .sz = sizeof(st) };

		perfring_reader_get_stats(rd[i], &st);
		lost += st.lost;
		lost_records += st.lost_records;
		perfring_reader_free(rd[i]);
	}
	ck_assert_msg(lost_records >= 1 && lost > 0, "%" PRIu64 " LOST records, %" PRIu64 " lost",
		      lost_records, lost);
	ck_assert_uint_eq(lost, in_records);
	/* The kernel's own count (PERF_FORMAT_LOST) has at least as many. */
	{
		PERFRING_EVENT_DESC(ev);
		struct perfring_backend_count c = { .sz = sizeof(c) };

		ck_assert_int_eq(ops->event(b, 0, &ev), 0);
		ck_assert_int_eq(ops->read_count(b, 0, &c), 0);
		ck_assert_uint_gt(c.value, 0);
		if (ev.attr->read_format & PERFRING_FORMAT_LOST)
			ck_assert_msg(c.lost >= lost, "read lost %" PRIu64 " < %" PRIu64, c.lost, lost);
	}
	ops->close(b);
	unload_hw();
}
END_TEST

/* A flight-recorder ring file stays readable after perfring-record is killed. */
START_TEST(ring_file_survives_kill)
{
	char dir[] = "/tmp/check_hw.XXXXXX";
	char path[64];
	struct perfring_diag d = { 0 };
	struct perfring_ring *r = NULL;
	struct perfring_reader *rd = NULL;
	struct perfring_record rec = { .sz = sizeof(rec) };
	PERFRING_EVENT_DESC(ev);
	unsigned samples = 0, in_wl = 0;
	pid_t rec_pid;
	int ret;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.ring", dir);
	rec_pid = fork();
	ck_assert_int_ge(rec_pid, 0);
	if (rec_pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		setpgid(0, 0);	/* so that the workload can be killed with it */
		dup2(null, 2);
		execl(RECORD_TOOL, "perfring-record", "-e", "cpu-clock", "-F", "2000", "--ring", path,
		      "--size", "16K", "--", WORKLOADS_DIR "/wl-busy", "5", (char *)NULL);
		_exit(127);
	}
	usleep(700 * 1000);
	ck_assert_int_eq(kill(-rec_pid, SIGKILL), 0);
	waitpid(rec_pid, NULL, 0);
	ret = perfring_ring_open(path, PERFRING_RING_READ, &d, &r);
	ck_assert_msg(ret == 0, "%s: %d %s", path, ret, d.msg);
	ck_assert(perfring_ring_flags(r) & PERFRING_RING_OVERWRITE);
	ck_assert_uint_eq(perfring_ring_data_size(r), 16384);
	ck_assert_uint_eq(perfring_ring_nr_events(r), 1);
	ck_assert_int_eq(perfring_ring_event(r, 0, &ev), 0);
	ck_assert_str_eq(ev.name, "cpu-clock");
	ck_assert_int_eq(perfring_reader_new(r, &rd), 0);
	while ((ret = perfring_reader_next(rd, &rec)) == 1) {
		struct perfring_sample s;

		if (rec.hdr->type != PERFRING_RECORD_SAMPLE)
			continue;
		ck_assert_int_eq(perfring_sample_decode(ev.attr, rec.hdr, rec.hdr->size, &s, NULL), 0);
		samples++;
		in_wl += s.pid != 0;
	}
	ck_assert_int_eq(ret, 0);
	/* 16 KiB hold about 16384 / 56 samples; the ring is full by now. */
	ck_assert_msg(samples > 100, "%u samples", samples);
	ck_assert_uint_eq(in_wl, samples);
	perfring_reader_free(rd);
	perfring_ring_close(r);
	unlink(path);
	rmdir(dir);
}
END_TEST

static int perf_event_usable(char *why, size_t len)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {
		snprintf(why, len, "perf_event_open(task-clock) on self: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

int main(void)
{
	Suite *s = suite_create("hw");
	TCase *tc = tcase_create("parse");
	char why[256];

	tcase_add_test(tc, parse_names);
	tcase_add_test(tc, parse_modifiers);
	tcase_add_test(tc, parse_groups);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, scaling);
	suite_add_tcase(s, tc);
	if (!perf_event_usable(why, sizeof(why))) {
		/* The parser still runs; the rest needs the syscall. */
		int ret = test_run_suite(s);

		printf("check_hw: SKIP plugin tests: %s\n", why);
		return ret ? ret : TEST_EXIT_SKIP;
	}
	tc = tcase_create("plugin");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, count_faults);
	tcase_add_test(tc, count_group);
	tcase_add_loop_test(tc, sample_command, 0, 2);
	tcase_add_test(tc, attach_pid_synthesize);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, bad_options);
	tcase_add_test(tc, ring_file_survives_kill);
	tcase_add_test(tc, lost_counted);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
