/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hw backend plugin: perf_event_open counters and kernel rings.
 *
 * Sampling a command it starts: per-CPU events for the child's pid with
 * inherit and enable_on_exec (a per-task event with inherit cannot be
 * mmapped), one ring per CPU that every event on that CPU shares through
 * PERF_EVENT_IOC_SET_OUTPUT.  -p PID: the same for every thread of the
 * process, enabled at start(), plus COMM/MMAP2 synthesised from /proc.
 * -a: per-CPU events for every task.  Counting: per-task events with
 * inherit (or per-CPU with -a) read with TOTAL_TIME_ENABLED/RUNNING and
 * scaled, groups read in one read() with PERF_FORMAT_GROUP.
 *
 * The rings are wrapped with perfring_ring_wrap() so the host reads them
 * with the library's reader, exactly like user-space rings.
 *
 * Test hook: PERFRING_HW_FAKE_ERRNO=EACCES (or EPERM, EMFILE, ENOENT,
 * EOPNOTSUPP, ENODEV, EINVAL, or a number) makes every perf_event_open fail
 * with that errno, so the messages for refusals can be tested on machines
 * that would not refuse.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <perfring/plugin.h>
#include <perfring/core/core.h>

#include "evparse.h"

_Static_assert(sizeof(struct perf_event_attr) >= PERFRING_ATTR_SIZE_VER7,
	       "kernel headers older than VER7");

#define DEFAULT_RING_PAGES 128u	/* when kernel.perf_event_mlock_kb cannot be read */
#define DEFAULT_FREQ 4000u

/*
 * The user registers DWARF unwinding needs, as perf record takes them:
 * every register of the architecture's perf_regs ABI (<asm/perf_regs.h>),
 * on x86 all but the segment registers DS, ES, FS and GS (x86-64:
 * 0xff0fff).
 */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || \
	(defined(__riscv) && __riscv_xlen == 64)
#include <asm/perf_regs.h>
#endif
#if defined(__x86_64__)
#define HW_DWARF_REGS ((((uint64_t)1 << PERF_REG_X86_64_MAX) - 1) & \
		       ~(((uint64_t)1 << PERF_REG_X86_DS) | ((uint64_t)1 << PERF_REG_X86_ES) | \
			 ((uint64_t)1 << PERF_REG_X86_FS) | ((uint64_t)1 << PERF_REG_X86_GS)))
#elif defined(__i386__)
#define HW_DWARF_REGS ((((uint64_t)1 << PERF_REG_X86_32_MAX) - 1) & \
		       ~(((uint64_t)1 << PERF_REG_X86_DS) | ((uint64_t)1 << PERF_REG_X86_ES) | \
			 ((uint64_t)1 << PERF_REG_X86_FS) | ((uint64_t)1 << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
#define HW_DWARF_REGS (((uint64_t)1 << PERF_REG_ARM64_MAX) - 1)
#elif defined(__arm__)
#define HW_DWARF_REGS (((uint64_t)1 << PERF_REG_ARM_MAX) - 1)
#elif defined(__riscv) && __riscv_xlen == 64
#define HW_DWARF_REGS (((uint64_t)1 << PERF_REG_RISCV_MAX) - 1)
#else
#define HW_DWARF_REGS 0	/* not known here: dwarf is refused at open */
#endif

struct hw_event {
	struct hw_evspec spec;
	struct perfring_attr attr;	/* as opened */
	uint64_t *ids;			/* one per fd */
	uint32_t nr_ids;
	int *fds;			/* ncpu * nthr */
	int supported;
};

struct hw_ring {
	int cpu;
	int fd;				/* owner event fd (not owned here) */
	void *base;
	size_t len;
	struct perfring_ring *ring;
	int hup;
};

struct perfring_backend {
	struct perfring_backend_opts opts;
	char *events_spec;
	struct hw_event *ev;
	size_t nev;
	int *cpus;			/* -1 for "any CPU" */
	size_t ncpu;
	int *thr;			/* tids, or -1 for "any task" */
	size_t nthr;
	struct hw_ring *rings;
	size_t nring;
	struct perfring_event_desc *descs;
	pid_t target;			/* command, -p pid or -t tid; 0 for -a */
	pid_t tgid;			/* the process of -t tid */
	int child;			/* 1 if we forked target */
	int go_fd;			/* write end: release the command */
	int err_fd;			/* read end: exec errno */
	int pidfd;
	int started;
	int exited;
	int status;
	int fake_errno;
	uint64_t t0;			/* the sample clock before enabling */
	clockid_t clockid;		/* of the sample times */
	size_t page_size;
};

/* ---- messages ------------------------------------------------------------ */

static void set_diag(struct perfring_diag *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_diag(struct perfring_diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	d->error = err;
	d->has_offset = 0;
	d->offset = 0;
	d->file[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

static void note(struct perfring_backend *b, enum perfring_log_level lvl,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct perfring_backend *b, enum perfring_log_level lvl,
		 const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!b->opts.log)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	b->opts.log(lvl, buf, b->opts.log_user);
}

static int read_int_file(const char *path, int *out)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static const char *paranoid_meaning(int level)
{
	if (level <= -1)
		return "no restrictions";
	if (level == 0)
		return "unprivileged users may profile CPUs (-a) and the kernel, but not raw tracepoints";
	if (level == 1)
		return "unprivileged users may profile their own processes, user and kernel, but not whole CPUs (-a)";
	if (level == 2)
		return "unprivileged users may profile only the user space of their own processes (no -a, no kernel: add :u)";
	return "unprivileged users may not use perf_event_open at all";
}

static int is_unsupported_errno(int e, const struct perfring_attr *a)
{
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO)
		return 1;
	/* Invalid hardware/raw config: the PMU does not have it. */
	return e == EINVAL && (a->type == PERFRING_TYPE_HARDWARE || a->type == PERFRING_TYPE_RAW ||
			       a->type == PERFRING_TYPE_HW_CACHE);
}

static void open_error(struct perfring_backend *b, const struct hw_event *e, int cpu,
		       int tid, int err, struct perfring_diag *diag)
{
	char where[96] = "";
	int max_rate = 0;

	if (cpu >= 0 && tid > 0)
		snprintf(where, sizeof(where), " (CPU %d, task %d)", cpu, tid);
	else if (cpu >= 0)
		snprintf(where, sizeof(where), " (CPU %d)", cpu);
	else if (tid > 0)
		snprintf(where, sizeof(where), " (task %d)", tid);

	if (err == EINVAL && (e->attr.flags & PERFRING_ATTR_FREQ) &&
	    read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", &max_rate) == 0 &&
	    max_rate > 0 && e->attr.sample_period > (uint64_t)max_rate) {
		set_diag(diag, -err,
			 "%s: -F %" PRIu64 " is above kernel.perf_event_max_sample_rate (%d); "
			 "use a lower -F (or -c PERIOD)",
			 e->spec.name, e->attr.sample_period, max_rate);
	} else if (is_unsupported_errno(err, &e->attr)) {
		if (e->attr.type == PERFRING_TYPE_SOFTWARE)
			set_diag(diag, -EOPNOTSUPP, "%s: not supported by this kernel (perf_event_open: %s)",
				 e->spec.name, strerror(err));
		else
			set_diag(diag, -EOPNOTSUPP, "%s: not supported here; try cpu-clock (perf_event_open: %s)",
				 e->spec.name, strerror(err));
	} else if ((err == EACCES || err == EPERM) && e->attr.type == PERFRING_TYPE_TRACEPOINT &&
		   read_int_file("/proc/sys/kernel/perf_event_paranoid", &max_rate) == 0) {
		/* The fields (PERF_SAMPLE_RAW) of a tracepoint need level -1. */
		set_diag(diag, -err,
			 "%s%s: permission denied: kernel.perf_event_paranoid is %d: tracepoints "
			 "with their fields (raw data) need -1; run as root or with CAP_PERFMON, "
			 "or lower it (sysctl kernel.perf_event_paranoid=-1)",
			 e->spec.name, where, max_rate);
	} else if (err == EACCES || err == EPERM) {
		int lvl = 2;

		if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &lvl) < 0)
			set_diag(diag, -err, "%s%s: permission denied (%s)", e->spec.name, where,
				 strerror(err));
		else
			set_diag(diag, -err,
				 "%s%s: permission denied: kernel.perf_event_paranoid is %d: %s%s; "
				 "run as root or with CAP_PERFMON, or lower it (sysctl kernel.perf_event_paranoid=%d)",
				 e->spec.name, where, lvl, paranoid_meaning(lvl),
				 b->opts.system_wide ? "; -a (every CPU) needs level 0 or lower" : "",
				 b->opts.system_wide ? 0 : lvl > 1 ? 1 : lvl);
	} else if (err == EMFILE || err == ENFILE) {
		size_t need = b->nev * b->ncpu * b->nthr;

		set_diag(diag, -err,
			 "%s%s: too many open files (%s): this session needs %zu event fds; "
			 "raise the limit (ulimit -n) or use fewer events",
			 e->spec.name, where, err == EMFILE ? "EMFILE" : "ENFILE", need);
	} else if (err == ESRCH) {
		set_diag(diag, -err, "%s: task %d does not exist (any more)", e->spec.name, tid);
	} else {
		/* EINVAL from the kernel is not a usage error of ours. */
		set_diag(diag, err == EINVAL ? -EOPNOTSUPP : -err,
			 "%s%s: perf_event_open failed: %s", e->spec.name, where, strerror(err));
	}
}

/* ---- system ------------------------------------------------------------- */

static int parse_fake_errno(void)
{
	const char *s = getenv("PERFRING_HW_FAKE_ERRNO");
	static const struct { const char *n; int e; } tab[] = {
		{ "EACCES", EACCES }, { "EPERM", EPERM }, { "EMFILE", EMFILE },
		{ "ENOENT", ENOENT }, { "EOPNOTSUPP", EOPNOTSUPP }, { "ENODEV", ENODEV },
		{ "EINVAL", EINVAL }, { "ESRCH", ESRCH },
	};

	if (!s || !*s)
		return 0;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(s, tab[i].n) == 0)
			return tab[i].e;
	return atoi(s) > 0 ? atoi(s) : 0;
}

static int sys_perf_event_open(struct perfring_backend *b, struct perfring_attr *attr,
			       pid_t pid, int cpu, int group_fd)
{
	if (b->fake_errno) {
		errno = b->fake_errno;
		return -1;
	}
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A CPU list in sysfs syntax ("0-3,5", optionally ending in a newline).
 * Returns 0, -EINVAL on anything else (empty, junk, a range backwards or
 * over 65536 CPUs), or -ENOMEM.
 */
static int parse_cpu_list(const char *p, int **out, size_t *n)
{
	int *cpus = NULL;
	size_t cnt = 0;

	while (*p && *p != '\n') {
		char *end;
		long a, z;
		int *nc;

		if (*p < '0' || *p > '9')
			goto bad;
		a = z = strtol(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			z = strtol(end + 1, &end, 10);
		}
		if (z < a || z > 65535)
			goto bad;
		nc = realloc(cpus, (cnt + (size_t)(z - a + 1)) * sizeof(int));
		if (!nc) {
			free(cpus);
			return -ENOMEM;
		}
		cpus = nc;
		for (long c = a; c <= z; c++)
			cpus[cnt++] = (int)c;
		p = end;
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!cnt)
		goto bad;
	*out = cpus;
	*n = cnt;
	return 0;
bad:
	free(cpus);
	return -EINVAL;
}

/* Online CPUs from /sys ("0-3,5"). */
static int online_cpus(int **out, size_t *n)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int ret;

	if (!f) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		int *cpus;

		if (nc < 1)
			nc = 1;
		cpus = calloc((size_t)nc, sizeof(int));
		if (!cpus)
			return -ENOMEM;
		for (long i = 0; i < nc; i++)
			cpus[i] = (int)i;
		*out = cpus;
		*n = (size_t)nc;
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	ret = parse_cpu_list(buf, out, n);
	return ret == -EINVAL ? -EIO : ret;
}

/*
 * -C LIST: the CPUs asked for, each of which must be online.  Duplicates
 * are dropped.  On a bad list, diag says why.
 */
static int chosen_cpus(const char *list, int **out, size_t *n, struct perfring_diag *diag)
{
	int *want = NULL, *on = NULL;
	size_t nwant = 0, non = 0, k = 0;
	int ret = parse_cpu_list(list, &want, &nwant);

	if (ret == -EINVAL) {
		set_diag(diag, -EINVAL, "-C %s: not a CPU list (such as 0, 0-3 or 0,2-3)", list);
		return ret;
	}
	if (ret < 0)
		return ret;
	ret = online_cpus(&on, &non);
	if (ret < 0) {
		free(want);
		set_diag(diag, ret, "cannot list the online CPUs: %s", strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < nwant; i++) {
		bool online = false, dup = false;

		for (size_t j = 0; j < non && !online; j++)
			online = on[j] == want[i];
		for (size_t j = 0; j < k && !dup; j++)
			dup = want[j] == want[i];
		if (!online) {
			set_diag(diag, -EINVAL, "-C %s: CPU %d is not online (online: CPUs %d-%d%s)",
				 list, want[i], on[0], on[non - 1],
				 (size_t)(on[non - 1] - on[0] + 1) == non ? "" : ", with gaps");
			free(want);
			free(on);
			return -EINVAL;
		}
		if (!dup)
			want[k++] = want[i];
	}
	free(on);
	*out = want;
	*n = k;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Thread ids of a process, main thread first. */
static int process_threads(pid_t pid, int **out, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int *t = NULL;
	size_t cnt = 0, cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (cnt == cap) {
			int *nt;

			cap = cap ? cap * 2 : 16;
			nt = realloc(t, cap * sizeof(int));
			if (!nt) {
				free(t);
				closedir(d);
				return -ENOMEM;
			}
			t = nt;
		}
		t[cnt++] = (int)tid;
	}
	closedir(d);
	if (!cnt) {
		free(t);
		return -ESRCH;
	}
	qsort(t, cnt, sizeof(int), cmp_int);
	for (size_t i = 0; i < cnt; i++) {
		if (t[i] == pid) {
			t[i] = t[0];
			t[0] = pid;
			break;
		}
	}
	*out = t;
	*n = cnt;
	return 0;
}

/* The process (Tgid) of a thread id, or -errno. */
static int thread_group(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : -ENOENT;
}

/*
 * The default ring, as perf record sizes it: kernel.perf_event_mlock_kb
 * less one page (the header page), in pages, rounded down to a power of
 * two (128 data pages with the kernel's default 516 KiB and 4 KiB pages).
 * perf 6.1 uses the same default with --call-graph dwarf.
 */
static uint32_t hw_default_ring_pages(size_t page)
{
	int kb = 0;
	uint64_t pages;
	uint32_t p = 1;

	if (read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &kb) < 0 || kb <= 0)
		return DEFAULT_RING_PAGES;
	kb -= (int)(page / 1024);
	pages = kb > 0 ? (uint64_t)kb * 1024 / page : 0;
	if (!pages)
		return 1;
	while ((uint64_t)p * 2 <= pages && p < (1u << 20))
		p *= 2;
	return p;
}

/* ---- the command ---------------------------------------------------------- */

static int fork_command(struct perfring_backend *b, struct perfring_diag *diag)
{
	int go[2], er[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return set_diag(diag, -errno, "pipe: %s", strerror(errno)), -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		set_diag(diag, -e, "pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]); close(go[1]); close(er[0]); close(er[1]);
		set_diag(diag, -e, "fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		sigset_t none;
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the recorder gave up */
		execvp(b->opts.argv[0], (char *const *)b->opts.argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	b->go_fd = go[1];
	b->err_fd = er[0];
	b->target = pid;
	b->child = 1;
	return 0;
}

/* ---- opening -------------------------------------------------------------- */

static void build_attr(struct perfring_backend *b, struct hw_event *e, size_t idx)
{
	const struct perfring_backend_opts *o = &b->opts;
	struct perfring_attr *a = &e->attr;
	bool leader = e->spec.leader == (int)idx;
	bool group = b->ev[e->spec.leader].spec.nr_members > 1;

	*a = e->spec.attr;
	a->size = PERFRING_ATTR_SIZE_VER7;
	if (o->mode == PERFRING_BACKEND_COUNT) {
		a->read_format = PERFRING_FORMAT_TOTAL_TIME_ENABLED |
				 PERFRING_FORMAT_TOTAL_TIME_RUNNING | PERFRING_FORMAT_ID;
		if (group)
			a->read_format |= PERFRING_FORMAT_GROUP;
		if (!o->system_wide)
			a->flags |= PERFRING_ATTR_INHERIT;
		if (leader)
			a->flags |= PERFRING_ATTR_DISABLED;
		if (leader && b->child && !o->system_wide)
			a->flags |= PERFRING_ATTR_ENABLE_ON_EXEC;
		return;
	}
	/*
	 * CPU: the rings are per CPU and a flight-recorder ring (--ring)
	 * takes them in turn, so a thread that moved is in time order only
	 * per CPU; the CPU tells readers (perfring-dump --check) which order
	 * holds.  IDENTIFIER only when there are several events to tell apart
	 * (perf record's choice too): 24-byte side-band trailers, not 32.
	 */
	a->sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | PERFRING_SAMPLE_TIME |
			 PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD;
	if (b->nev > 1)
		a->sample_type |= PERFRING_SAMPLE_IDENTIFIER;
	if (o->callchain)
		a->sample_type |= PERFRING_SAMPLE_CALLCHAIN;
	if (a->type == PERFRING_TYPE_TRACEPOINT)
		a->sample_type |= PERFRING_SAMPLE_RAW;	/* the event's fields */
	if (o->callchain && o->stack_user) {
		/*
		 * DWARF unwinding (perf report unwinds offline): the kernel
		 * part of the chain stays, the user part comes from the
		 * registers and a copy of the top of the user stack.
		 */
		a->sample_type |= PERFRING_SAMPLE_REGS_USER | PERFRING_SAMPLE_STACK_USER;
		a->sample_regs_user = HW_DWARF_REGS;
		a->sample_stack_user = o->stack_user;
		a->flags |= PERFRING_ATTR_EXCLUDE_CALLCHAIN_USER;
	}
	/* LOST: records the kernel dropped, even those no LOST record reports. */
	a->read_format = PERFRING_FORMAT_ID | PERFRING_FORMAT_LOST;
	if (o->period) {
		a->sample_period = o->period;
	} else if (a->type == PERFRING_TYPE_TRACEPOINT && !o->freq) {
		a->sample_period = 1;	/* perf record: every hit, unless -F/-c */
	} else {
		a->sample_period = o->freq ? o->freq : DEFAULT_FREQ;
		a->flags |= PERFRING_ATTR_FREQ;
	}
	a->flags |= PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_USE_CLOCKID |
		    PERFRING_ATTR_WATERMARK;
	a->clockid = b->clockid;
	/*
	 * Wake the reader when a quarter of the ring is full, not half (the
	 * kernel's default, and perf record's): three quarters are then left
	 * for the time the reader takes to get a CPU.  At -F 20000 -g -m 8
	 * a busy CPU fills a 32 KiB ring in 3.5 ms, while the reader waits
	 * up to a scheduler slice (about 3 ms here) when every CPU is busy.
	 * bench/RESULTS.md has the runs (an eighth was worse: twice the
	 * wakeups).
	 */
	a->wakeup_events = (uint32_t)(b->opts.ring_pages * b->page_size / 4);
	if (!o->system_wide)
		a->flags |= PERFRING_ATTR_INHERIT;
	if (leader)
		a->flags |= PERFRING_ATTR_DISABLED;
	if (leader && b->child && !o->system_wide)
		a->flags |= PERFRING_ATTR_ENABLE_ON_EXEC;
	if (idx == 0)	/* the tracking event: side-band once per ring */
		a->flags |= PERFRING_ATTR_MMAP | PERFRING_ATTR_MMAP2 | PERFRING_ATTR_COMM |
			    PERFRING_ATTR_COMM_EXEC | PERFRING_ATTR_TASK;
	if (idx == 0 && o->switch_events)
		a->flags |= PERFRING_ATTR_CONTEXT_SWITCH;
	/*
	 * DWARF: the unwinder reads the unwind tables (.eh_frame_hdr) where
	 * they are mapped, in the read-only segment: data mappings are
	 * recorded too (perf record sets mmap_data with dwarf as well).
	 */
	if (idx == 0 && o->callchain && o->stack_user)
		a->flags |= PERFRING_ATTR_MMAP_DATA;
}

static void close_fds(struct perfring_backend *b)
{
	for (size_t i = 0; i < b->nev; i++) {
		size_t nfd = b->ncpu * b->nthr;

		for (size_t j = 0; b->ev[i].fds && j < nfd; j++) {
			if (b->ev[i].fds[j] >= 0)
				close(b->ev[i].fds[j]);
			b->ev[i].fds[j] = -1;
		}
	}
}

static int paranoid_level(void)
{
	int lvl = 2;

	read_int_file("/proc/sys/kernel/perf_event_paranoid", &lvl);
	return lvl;
}

/*
 * Open every fd.  Returns 0, or -errno with *bad_ev/cpu/tid/err set to the
 * failing open.
 */
static int open_all(struct perfring_backend *b, size_t *bad_ev, int *bad_cpu,
		    int *bad_tid, int *bad_err)
{
	for (size_t i = 0; i < b->nev; i++) {
		struct hw_event *e = &b->ev[i];

		if (!e->supported)
			continue;
		for (size_t c = 0; c < b->ncpu; c++) {
			for (size_t t = 0; t < b->nthr; t++) {
				size_t k = c * b->nthr + t;
				int gfd = -1;
				int fd;

				if (e->spec.leader != (int)i)
					gfd = b->ev[e->spec.leader].fds[k];
				fd = sys_perf_event_open(b, &e->attr, b->thr[t], b->cpus[c], gfd);
				if (fd < 0) {
					*bad_ev = i;
					*bad_cpu = b->cpus[c];
					*bad_tid = b->thr[t];
					*bad_err = errno;
					return -errno;
				}
				e->fds[k] = fd;
			}
		}
	}
	return 0;
}

/* perf's fallback at paranoid 2: user space only, named "EVENT:u" as perf does. */
static void exclude_kernel_all(struct perfring_backend *b)
{
	for (size_t i = 0; i < b->nev; i++) {
		struct hw_event *e = &b->ev[i];
		size_t l = strlen(e->spec.name);

		e->attr.flags |= PERFRING_ATTR_EXCLUDE_KERNEL | PERFRING_ATTR_EXCLUDE_HV;
		if (!strchr(e->spec.name, ':') && l + 2 < sizeof(e->spec.name))
			memcpy(e->spec.name + l, ":u", 3);
	}
}

static int open_events(struct perfring_backend *b, bool is_default, struct perfring_diag *diag)
{
	size_t be = 0;
	int bc = -1, bt = -1, berr = 0;
	int tries = 0;

	for (;;) {
		int ret = open_all(b, &be, &bc, &bt, &berr);
		struct hw_event *e = &b->ev[be];

		if (ret == 0)
			return 0;
		close_fds(b);
		if (++tries > 4)
			break;
		if (is_default && b->nev == 1 && e->attr.type == PERFRING_TYPE_HARDWARE &&
		    is_unsupported_errno(berr, &e->attr)) {
			/* perf record's fallback: no cycles in this machine (a VM). */
			note(b, PERFRING_LOG_WARN,
			     "cycles: not supported here (perf_event_open: %s); falling back to cpu-clock",
			     strerror(berr));
			uint64_t keep = e->attr.flags & (PERFRING_ATTR_EXCLUDE_KERNEL |
							 PERFRING_ATTR_EXCLUDE_HV);

			e->spec.attr.type = PERFRING_TYPE_SOFTWARE;
			e->spec.attr.config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(e->spec.name, sizeof(e->spec.name), keep ? "cpu-clock:u" : "cpu-clock");
			build_attr(b, e, 0);
			e->attr.flags |= keep;
			continue;
		}
		if (berr == EINVAL && (e->attr.read_format & PERFRING_FORMAT_LOST)) {
			/* Kernels before 6.0 lack PERF_FORMAT_LOST. */
			for (size_t i = 0; i < b->nev; i++)
				b->ev[i].attr.read_format &= ~PERFRING_FORMAT_LOST;
			continue;
		}
		if (b->opts.skip_unsupported && b->opts.mode == PERFRING_BACKEND_COUNT &&
		    is_unsupported_errno(berr, &e->attr)) {
			/* Counting: shown as <not supported>; its group goes with it. */
			int l = e->spec.leader;

			for (size_t i = 0; i < b->nev; i++)
				if (b->ev[i].spec.leader == l)
					b->ev[i].supported = 0;
			note(b, PERFRING_LOG_WARN, "%s: not supported here (perf_event_open: %s)", e->spec.name,
			     strerror(berr));
			tries--;
			continue;
		}
		if ((berr == EACCES || berr == EPERM) && !b->opts.system_wide &&
		    !(e->attr.flags & PERFRING_ATTR_EXCLUDE_KERNEL) && paranoid_level() >= 2 &&
		    e->attr.type != PERFRING_TYPE_TRACEPOINT && !b->fake_errno) {
			/* As perf does: retry measuring user space only (not for
			 * a tracepoint: its fields need level -1 either way). */
			note(b, PERFRING_LOG_WARN,
			     "kernel.perf_event_paranoid is %d: measuring user space only (:u)",
			     paranoid_level());
			exclude_kernel_all(b);
			continue;
		}
		break;
	}
	{
		struct perfring_diag local = { 0 };
		struct perfring_diag *d = diag ? diag : &local;

		d->error = 0;
		open_error(b, &b->ev[be], bc, bt, berr, d);
		return d->error ? d->error : -berr;
	}
}

static int map_rings(struct perfring_backend *b, struct perfring_diag *diag)
{
	size_t len = (1 + (size_t)b->opts.ring_pages) * b->page_size;

	b->rings = calloc(b->ncpu, sizeof(*b->rings));
	if (!b->rings)
		return -ENOMEM;
	b->nring = 0;
	for (size_t c = 0; c < b->ncpu; c++) {
		struct hw_ring *r = &b->rings[b->nring];
		int owner = -1;

		/* The first fd of the CPU owns its ring (mapped first: SET_OUTPUT
		 * needs a mapped target), every other fd of the CPU writes there. */
		for (size_t i = 0; i < b->nev && owner < 0; i++)
			for (size_t t = 0; t < b->nthr && owner < 0; t++)
				owner = b->ev[i].fds[c * b->nthr + t];
		if (owner < 0)
			continue;
		r->cpu = b->cpus[c];
		r->fd = owner;
		r->len = len;
		r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, owner, 0);
		if (r->base == MAP_FAILED) {
			int e = errno;

			r->base = NULL;
			if (e == EPERM || e == ENOMEM)
				set_diag(diag, -e,
					 "cannot map a %zu KiB ring for CPU %d: %s; over the locked-memory "
					 "limit (ulimit -l, kernel.perf_event_mlock_kb)? use fewer ring pages",
					 len / 1024, r->cpu, strerror(e));
			else
				set_diag(diag, -e, "cannot map the ring of CPU %d: %s", r->cpu,
					 strerror(e));
			return -e;
		}
		b->nring++;
		for (size_t i = 0; i < b->nev; i++) {
			for (size_t t = 0; t < b->nthr; t++) {
				int fd = b->ev[i].fds[c * b->nthr + t];

				if (fd < 0 || fd == owner)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0) {
					int e = errno;

					set_diag(diag, -e, "%s: cannot share the ring of CPU %d (SET_OUTPUT): %s",
						 b->ev[i].spec.name, b->cpus[c], strerror(e));
					return -e;
				}
			}
		}
	}
	for (size_t i = 0; i < b->nring; i++) {
		struct perfring_diag d = { 0 };
		int ret = perfring_ring_wrap(b->rings[i].base, b->rings[i].len, 0, b->descs,
					     (uint32_t)b->nev, &d, &b->rings[i].ring);

		if (ret < 0) {
			set_diag(diag, ret, "cannot wrap the ring of CPU %d: %s", b->rings[i].cpu,
				 d.msg[0] ? d.msg : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int collect_ids(struct perfring_backend *b, struct perfring_diag *diag)
{
	size_t nfd = b->ncpu * b->nthr;

	for (size_t i = 0; i < b->nev; i++) {
		struct hw_event *e = &b->ev[i];

		e->nr_ids = 0;
		for (size_t k = 0; e->supported && k < nfd; k++) {
			uint64_t id;

			if (e->fds[k] < 0)
				continue;
			if (ioctl(e->fds[k], PERF_EVENT_IOC_ID, &id) < 0) {
				int err = errno;

				set_diag(diag, -err, "%s: PERF_EVENT_IOC_ID: %s", e->spec.name,
					 strerror(err));
				return -err;
			}
			e->ids[e->nr_ids++] = id;
		}
		b->descs[i].sz = sizeof(b->descs[i]);
		b->descs[i].attr = &e->attr;
		b->descs[i].ids = e->ids;
		b->descs[i].nr_ids = e->nr_ids;
		b->descs[i].name = e->spec.name;
	}
	return 0;
}

static void hw_close(struct perfring_backend *b);

/* Exactly one of a command, -p, -t and -a/-C, and a known mode: 0 or -EINVAL. */
static int check_target(const struct perfring_backend_opts *opts, struct perfring_diag *diag)
{
	bool has_cpus = opts->cpu_list;
	bool has_tid = opts->tid > 0;
	int ntargets;

	/* -a/-C with a command: every task on the CPUs while it runs. */
	ntargets = (opts->pid > 0) + has_tid + (opts->argv && opts->argv[0]);
	if (!ntargets || ((opts->system_wide || has_cpus) && (opts->pid > 0 || has_tid)))
		ntargets += opts->system_wide || has_cpus;
	if (ntargets != 1) {
		set_diag(diag, -EINVAL, "%s", ntargets ? "give only one of a command, -p PID, -t TID and -a/-C"
					   : "nothing to measure: give a command, -p PID, -t TID, -a or -C");
		return -EINVAL;
	}
	if (opts->mode != PERFRING_BACKEND_SAMPLE && opts->mode != PERFRING_BACKEND_COUNT)
		return set_diag(diag, -EINVAL, "unknown mode %d", opts->mode), -EINVAL;
	return 0;
}

/* The clock, the user stack, the ring size and the frequency of B's
 * options (the ring size defaulted): 0 or -EINVAL. */
static int check_sampling(struct perfring_backend *b, struct perfring_diag *diag)
{
	if (b->opts.mode == PERFRING_BACKEND_SAMPLE) {
		struct timespec ts;

		if (clock_gettime(b->clockid, &ts) < 0) {
			set_diag(diag, -EINVAL, "clock %d cannot be read here: %s",
				 (int)b->clockid, strerror(errno));
			return -EINVAL;
		}
	}
	if (b->opts.callchain && b->opts.stack_user &&
	    (!HW_DWARF_REGS || b->opts.stack_user % 8 || b->opts.stack_user > 65528)) {
		set_diag(diag, -EINVAL, HW_DWARF_REGS ?
			 "user stack size %u: must be a multiple of 8 up to 65528" :
			 "DWARF callchains (user stack %u): the registers of this architecture "
			 "are not known to this build; use frame pointers", b->opts.stack_user);
		return -EINVAL;
	}
	if (!b->opts.ring_pages)
		b->opts.ring_pages = hw_default_ring_pages(b->page_size);
	if (b->opts.ring_pages & (b->opts.ring_pages - 1) || b->opts.ring_pages > (1u << 20)) {
		set_diag(diag, -EINVAL, "ring pages must be a power of two (got %u)",
			 b->opts.ring_pages);
		return -EINVAL;
	}
	if (b->opts.mode == PERFRING_BACKEND_SAMPLE && b->opts.period == 0 &&
	    b->opts.freq > 1000000) {
		set_diag(diag, -EINVAL, "frequency %" PRIu64 " Hz is too high",
			 b->opts.freq);
		return -EINVAL;
	}
	return 0;
}

/* The events of B's options (cycles when none) into b->ev: 0 or -errno. */
static int setup_events(struct perfring_backend *b, bool is_default,
			struct perfring_diag *diag)
{
	struct hw_evspec *specs = NULL;
	size_t nspec = 0;
	char err[512];
	int ret;

	ret = hw_parse_events(is_default ? "cycles" : b->opts.events, &specs, &nspec, err,
			      sizeof(err));
	if (ret < 0) {
		set_diag(diag, ret, "%s", err);
		free(specs);
		return ret;
	}
	b->nev = nspec;
	b->ev = calloc(nspec, sizeof(*b->ev));
	b->descs = calloc(nspec, sizeof(*b->descs));
	if (!b->ev || !b->descs) {
		free(specs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nspec; i++) {
		b->ev[i].spec = specs[i];
		b->ev[i].supported = 1;
	}
	free(specs);
	return 0;
}

/* Where, 1: the CPUs (-1 alone: any CPU, following the task): 0 or -errno. */
static int choose_cpus(struct perfring_backend *b, struct perfring_diag *diag)
{
	int ret;

	if (b->opts.cpu_list)
		return chosen_cpus(b->opts.cpu_list, &b->cpus, &b->ncpu, diag);
	if (b->opts.mode == PERFRING_BACKEND_SAMPLE || b->opts.system_wide) {
		ret = online_cpus(&b->cpus, &b->ncpu);
		if (ret < 0)
			set_diag(diag, ret, "cannot list the online CPUs: %s", strerror(-ret));
		return ret < 0 ? ret : 0;
	}
	b->cpus = malloc(sizeof(int));
	if (!b->cpus)
		return -ENOMEM;
	b->cpus[0] = -1;
	b->ncpu = 1;
	return 0;
}

/* One task to follow: TID, or -1 for any task.  0 or -ENOMEM. */
static int single_thread(struct perfring_backend *b, int tid)
{
	b->thr = malloc(sizeof(int));
	if (!b->thr)
		return -ENOMEM;
	b->thr[0] = tid;
	b->nthr = 1;
	return 0;
}

/* Where, 2: the tasks, the command started if there is one: 0 or -errno. */
static int choose_threads(struct perfring_backend *b, struct perfring_diag *diag)
{
	int ret;

	if (b->opts.system_wide) {
		if (b->opts.argv && b->opts.argv[0]) {
			ret = fork_command(b, diag);
			if (ret < 0)
				return ret;
		}
		return single_thread(b, -1);
	}
	if (b->opts.pid > 0) {
		ret = process_threads(b->opts.pid, &b->thr, &b->nthr);
		if (ret < 0) {
			set_diag(diag, -ESRCH, "process %d: %s", b->opts.pid,
				 ret == -ENOENT ? "no such process" : strerror(-ret));
			return -ESRCH;
		}
		b->target = b->opts.pid;
		return 0;
	}
	if (b->opts.tid > 0) {
		/* One thread: its own events; the process's maps are synthesised. */
		ret = thread_group(b->opts.tid);
		if (ret < 0) {
			set_diag(diag, -ESRCH, "thread %d: %s", b->opts.tid,
				 ret == -ENOENT ? "no such thread" : strerror(-ret));
			return -ESRCH;
		}
		b->tgid = ret;
		ret = single_thread(b, b->opts.tid);
		if (ret < 0)
			return ret;
		b->target = b->opts.tid;
		return 0;
	}
	ret = fork_command(b, diag);
	if (ret < 0)
		return ret;
	return single_thread(b, b->target);
}

/* The fd and id slots of every event (one per CPU and task), and its attr:
 * 0 or -ENOMEM. */
static int setup_slots(struct perfring_backend *b)
{
	for (size_t i = 0; i < b->nev; i++) {
		size_t nfd = b->ncpu * b->nthr;

		b->ev[i].fds = malloc(nfd * sizeof(int));
		b->ev[i].ids = calloc(nfd, sizeof(uint64_t));
		if (!b->ev[i].fds || !b->ev[i].ids)
			return -ENOMEM;
		for (size_t k = 0; k < nfd; k++)
			b->ev[i].fds[k] = -1;
		build_attr(b, &b->ev[i], i);
	}
	return 0;
}

/* A pidfd on the target, to see it exit: 0, or -ESRCH if it is gone. */
static int watch_target(struct perfring_backend *b, struct perfring_diag *diag)
{
	if (b->target <= 0)
		return 0;
	/* A thread (-t) has a pidfd of its own since Linux 6.9 (PIDFD_THREAD = O_EXCL). */
	b->pidfd = (int)syscall(SYS_pidfd_open, b->target,
				b->opts.tid > 0 && b->tgid != b->opts.tid ? O_EXCL : 0);
	if (b->pidfd < 0 && errno == ESRCH) {
		set_diag(diag, -ESRCH, "process %d exited", (int)b->target);
		return -ESRCH;
	}
	return 0;
}

static int hw_open(const struct perfring_backend_opts *opts, struct perfring_diag *diag,
		   struct perfring_backend **out)
{
	struct perfring_backend *b;
	bool is_default;
	int ret;

	struct perfring_backend_opts o;

	if (!out)
		return set_diag(diag, -EINVAL, "bad backend call (out is NULL)"), -EINVAL;
	*out = NULL;
	/*
	 * The library's check, not a copy of it: this module is built with
	 * the library and the rule lives in one place (perfring.h).
	 */
	ret = perfring_opts_load(&o, sizeof(o), opts,
				 offsetof(struct perfring_backend_opts, log_user) + sizeof(void *),
				 "perfring_backend_opts", NULL, diag);
	if (ret < 0)
		return ret;
	ret = check_target(&o, diag);
	if (ret < 0)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->opts = o;
	b->go_fd = b->err_fd = b->pidfd = -1;
	b->status = -1;
	b->page_size = (size_t)sysconf(_SC_PAGESIZE);
	b->fake_errno = parse_fake_errno();
	b->clockid = b->opts.clockid_set ? (clockid_t)b->opts.clockid : CLOCK_MONOTONIC;
	if (b->opts.cpu_list)
		b->opts.system_wide = 1;
	is_default = !o.events || !o.events[0];
	if ((ret = check_sampling(b, diag)) < 0 ||
	    (ret = setup_events(b, is_default, diag)) < 0 ||
	    (ret = choose_cpus(b, diag)) < 0 ||
	    (ret = choose_threads(b, diag)) < 0 ||
	    (ret = setup_slots(b)) < 0 ||
	    (ret = open_events(b, is_default, diag)) < 0 ||
	    (ret = collect_ids(b, diag)) < 0)
		goto fail;
	if (b->opts.mode == PERFRING_BACKEND_SAMPLE) {
		ret = map_rings(b, diag);
		if (ret < 0)
			goto fail;
	}
	ret = watch_target(b, diag);
	if (ret < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	hw_close(b);
	return ret;
}

/* ---- running -------------------------------------------------------------- */

static void for_leaders(struct perfring_backend *b, unsigned long req)
{
	size_t nfd = b->ncpu * b->nthr;

	for (size_t i = 0; i < b->nev; i++) {
		if (b->ev[i].spec.leader != (int)i)
			continue;
		for (size_t k = 0; k < nfd; k++)
			if (b->ev[i].fds[k] >= 0)
				ioctl(b->ev[i].fds[k], req, 0);
	}
}

static int hw_start(struct perfring_backend *b, struct perfring_diag *diag)
{
	if (!b || b->started)
		return -EINVAL;
	b->started = 1;
	b->t0 = now_ns(b->clockid);
	/* CPU-wide events with a command (-a/-C): enabled before it starts. */
	if (!b->child || b->opts.system_wide)
		for_leaders(b, PERF_EVENT_IOC_ENABLE);
	if (!b->child)
		return 0;
	/* Release the command; its exec enables per-task events (enable_on_exec). */
	if (write(b->go_fd, "g", 1) != 1) {
		int e = errno;

		set_diag(diag, -e, "cannot start %s: %s", b->opts.argv[0], strerror(e));
		return -e;
	}
	close(b->go_fd);
	b->go_fd = -1;
	for (;;) {
		int e;
		ssize_t n = read(b->err_fd, &e, sizeof(e));

		if (n < 0 && errno == EINTR)
			continue;
		close(b->err_fd);
		b->err_fd = -1;
		if (n == (ssize_t)sizeof(e)) {
			waitpid(b->target, &b->status, 0);
			b->exited = 1;
			set_diag(diag, -e, "cannot run %s: %s", b->opts.argv[0], strerror(e));
			return -e;
		}
		return 0;
	}
}

static void reap(struct perfring_backend *b)
{
	if (b->exited)
		return;
	if (b->child) {
		if (waitpid(b->target, &b->status, 0) == b->target)
			b->exited = 1;
		else if (errno == ECHILD)
			b->exited = 1;
	} else {
		b->exited = 1;
	}
}

/* Without pidfd: is the target gone? */
static int target_gone(struct perfring_backend *b)
{
	if (b->child) {
		int st;
		pid_t r = waitpid(b->target, &st, WNOHANG);

		if (r == b->target) {
			b->status = st;
			b->exited = 1;
			return 1;
		}
		return r < 0 && errno == ECHILD;
	}
	return kill(b->target, 0) < 0 && errno == ESRCH;
}

static int hw_wait(struct perfring_backend *b, int extra_fd, int timeout_ms)
{
	struct pollfd *pfd;
	size_t n = 0, pid_i = SIZE_MAX, extra_i = SIZE_MAX;
	int ret, bits = 0;

	if (!b)
		return -EINVAL;
	if (b->exited)
		return PERFRING_BACKEND_WAKE_EXIT;
	pfd = calloc(b->nring + 2, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	for (size_t i = 0; i < b->nring; i++) {
		pfd[n].fd = b->rings[i].hup ? -1 : b->rings[i].fd;
		pfd[n].events = POLLIN;
		n++;
	}
	if (b->pidfd >= 0) {
		pid_i = n;
		pfd[n].fd = b->pidfd;
		pfd[n++].events = POLLIN;
	}
	if (extra_fd >= 0) {
		extra_i = n;
		pfd[n].fd = extra_fd;
		pfd[n++].events = POLLIN;
	}
	if (b->target > 0 && b->pidfd < 0 && (timeout_ms < 0 || timeout_ms > 100))
		timeout_ms = 100;	/* no pidfd: check the target now and then */
	ret = poll(pfd, n, timeout_ms);
	if (ret < 0) {
		int e = errno;

		free(pfd);
		return e == EINTR ? 0 : -e;
	}
	if (ret == 0)
		bits |= PERFRING_BACKEND_WAKE_TIMEOUT;
	for (size_t i = 0; i < b->nring; i++) {
		if (pfd[i].revents & POLLIN)
			bits |= PERFRING_BACKEND_WAKE_DATA;
		if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			b->rings[i].hup = 1;
			bits |= PERFRING_BACKEND_WAKE_DATA;
		}
	}
	if (pid_i != SIZE_MAX && pfd[pid_i].revents) {
		reap(b);
		bits |= PERFRING_BACKEND_WAKE_EXIT;
	} else if (b->target > 0 && b->pidfd < 0 && target_gone(b)) {
		b->exited = 1;
		bits |= PERFRING_BACKEND_WAKE_EXIT;
	}
	if (extra_i != SIZE_MAX && pfd[extra_i].revents)
		bits |= PERFRING_BACKEND_WAKE_FD;
	/*
	 * Without a pidfd: every ring hung up (the -p threads that own them
	 * are gone), so nothing more comes.
	 */
	if (b->nring && b->target > 0 && b->pidfd < 0) {
		size_t h = 0;

		for (size_t i = 0; i < b->nring; i++)
			h += b->rings[i].hup;
		if (h == b->nring && !b->child) {
			b->exited = 1;
			bits |= PERFRING_BACKEND_WAKE_EXIT;
		}
	}
	free(pfd);
	return bits;
}

static int hw_stop(struct perfring_backend *b)
{
	if (!b)
		return -EINVAL;
	for_leaders(b, PERF_EVENT_IOC_DISABLE);
	return 0;
}

static void hw_close(struct perfring_backend *b)
{
	if (!b)
		return;
	if (b->child && !b->exited && b->target > 0) {
		kill(b->target, SIGKILL);
		waitpid(b->target, NULL, 0);
	}
	for (size_t i = 0; i < b->nring; i++) {
		perfring_ring_close(b->rings[i].ring);
		if (b->rings[i].base)
			munmap(b->rings[i].base, b->rings[i].len);
	}
	free(b->rings);
	close_fds(b);
	for (size_t i = 0; b->ev && i < b->nev; i++) {
		free(b->ev[i].fds);
		free(b->ev[i].ids);
	}
	free(b->ev);
	free(b->descs);
	free(b->cpus);
	free(b->thr);
	if (b->go_fd >= 0)
		close(b->go_fd);
	if (b->err_fd >= 0)
		close(b->err_fd);
	if (b->pidfd >= 0)
		close(b->pidfd);
	free(b);
}

static uint32_t hw_nr_events(const struct perfring_backend *b)
{
	return b ? (uint32_t)b->nev : 0;
}

static int hw_event(const struct perfring_backend *b, uint32_t idx,
		    struct perfring_event_desc *out)
{
	PERFRING_EVENT_DESC(ev);

	if (!b || !out || idx >= b->nev)
		return -ENOENT;
	ev.attr = &b->ev[idx].attr;
	ev.ids = b->ev[idx].ids;
	ev.nr_ids = b->ev[idx].nr_ids;
	ev.name = b->ev[idx].spec.name;
	ev.leader = (uint32_t)b->ev[idx].spec.leader;
	ev.supported = b->ev[idx].supported;
	return perfring_struct_fill(out, sizeof(ev), &ev, sizeof(ev));
}

static uint32_t hw_nr_rings(const struct perfring_backend *b)
{
	return b ? (uint32_t)b->nring : 0;
}

static struct perfring_ring *hw_ring(const struct perfring_backend *b, uint32_t idx)
{
	return b && idx < b->nring ? b->rings[idx].ring : NULL;
}

static int hw_target(const struct perfring_backend *b, int *pid, int *status)
{
	if (!b)
		return -EINVAL;
	if (pid)
		*pid = b->target;
	if (status)
		*status = b->child && b->exited ? b->status : -1;
	return b->exited;
}

/* ---- counting ------------------------------------------------------------- */

/*
 * Parse one read() of an event (doc/perf-format.md 2): non-group
 * {value, [enabled], [running], [id], [lost]}, or group {nr, [enabled],
 * [running], nr x {value, [id], [lost]}}, taking member pos.  Returns 0 or
 * -EIO if the bytes do not hold it or the id is not the expected one.
 */
static int parse_read(uint64_t rf, const uint64_t *buf, size_t n, size_t pos, uint64_t id,
		      struct perfring_backend_count *c)
{
	size_t i = 0, per = 1 + !!(rf & PERFRING_FORMAT_ID) + !!(rf & PERFRING_FORMAT_LOST);
	size_t need = 1 + !!(rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED) +
		      !!(rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t en = 0, run = 0, val = 0, lost = 0;

	if (rf & PERFRING_FORMAT_GROUP) {
		if (n < need || pos >= buf[0])
			return -EIO;
		i = 1;	/* nr */
	} else {
		if (n < need + per - 1)
			return -EIO;
		val = buf[i++];
	}
	if (rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED)
		en = buf[i++];
	if (rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING)
		run = buf[i++];
	if (rf & PERFRING_FORMAT_GROUP) {
		i += pos * per;
		if (i + per > n)
			return -EIO;
		val = buf[i++];
	}
	if (rf & PERFRING_FORMAT_ID) {
		if (buf[i++] != id)
			return -EIO;	/* not the member we think */
	}
	if (rf & PERFRING_FORMAT_LOST)
		lost = buf[i++];
	c->value += val;
	c->enabled += en;
	c->running += run;
	c->lost += lost;
	return 0;
}

static int hw_read_count(struct perfring_backend *b, uint32_t idx,
			 struct perfring_backend_count *out)
{
	struct perfring_backend_count c = { 0 };
	const struct hw_event *e;
	const struct hw_event *l;
	size_t nfd, pos, words;
	uint64_t *buf;
	int ret = 0;

	if (!b || !out || idx >= b->nev)
		return -ENOENT;
	e = &b->ev[idx];
	l = &b->ev[e->spec.leader];
	nfd = b->ncpu * b->nthr;
	pos = idx - (size_t)e->spec.leader;
	c.supported = e->supported;
	/* At most: nr, enabled, running, then {value, id, lost} per member. */
	words = 3 + 3 * (size_t)(l->spec.nr_members > 1 ? l->spec.nr_members : 1);
	buf = calloc(words, sizeof(uint64_t));
	if (!buf)
		return -ENOMEM;
	for (size_t k = 0; e->supported && k < nfd && ret == 0; k++) {
		bool group = l->attr.read_format & PERFRING_FORMAT_GROUP;
		int fd = group ? l->fds[k] : e->fds[k];
		ssize_t n;

		if (e->fds[k] < 0)
			continue;
		n = read(fd, buf, words * sizeof(uint64_t));
		if (n < 0)
			ret = -errno;
		else
			ret = parse_read(e->attr.read_format, buf, (size_t)n / sizeof(uint64_t),
					 group ? pos : 0, e->ids[k], &c);
	}
	free(buf);
	if (ret < 0)
		return ret;
	if (!(e->attr.read_format & PERFRING_FORMAT_TOTAL_TIME_RUNNING))
		c.enabled = c.running = 0;
	c.counted = c.running > 0 ||
		    !(e->attr.read_format & PERFRING_FORMAT_TOTAL_TIME_RUNNING);
	c.scaled = hw_scale_count(c.value, c.enabled, c.running);
	return perfring_struct_fill(out, offsetof(struct perfring_backend_count, lost), &c,
				    sizeof(c));
}

/* ---- synthesis from /proc -------------------------------------------------- */

struct synth {
	struct perfring_backend *b;
	perfring_backend_record_fn fn;
	void *user;
	const struct perfring_attr *attr;
	uint64_t id;
	int count;
};

/* The records' layouts are the core's (lib/core/records.c). */
static struct perfring_sample_id synth_sid(const struct synth *s, uint32_t pid, uint32_t tid)
{
	struct perfring_sample_id sid = {
		.pid = pid, .tid = tid, .time = s->b->t0, .id = s->id, .identifier = s->id,
	};

	return sid;
}

/* Hand an encoded record (n: its size or a negative errno) on. */
static int emit(struct synth *s, const char *rec, int n)
{
	int ret;

	if (n < 0)
		return -EINVAL;
	ret = s->fn(rec, (size_t)n, s->user);
	if (ret < 0)
		return ret;
	s->count++;
	return 0;
}

static int synth_comm(struct synth *s, int pid, int tid)
{
	char path[64], name[32] = "";
	char rec[8 + 8 + 16 + 64];
	struct perfring_comm c = { .pid = (uint32_t)pid, .tid = (uint32_t)tid, .misc = 0 };
	struct perfring_sample_id sid = synth_sid(s, (uint32_t)pid, (uint32_t)tid);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* gone meanwhile */
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	memcpy(c.comm, name, strnlen(name, PERFRING_COMM_LEN - 1));
	return emit(s, rec, perfring_core_comm_encode(s->attr, &c, &sid, rec, sizeof(rec)));
}

static int synth_maps(struct synth *s, int pid)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int ret = 0;
	char *rec = malloc(PERFRING_RECORD_MAX_SIZE);

	if (!rec)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		free(rec);
		return 0;
	}
	while (ret >= 0 && getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		const char *name;
		size_t nlen;
		uint32_t prot = 0, flags;
		struct perfring_mmap2 m;
		struct perfring_sample_id sid = synth_sid(s, (uint32_t)pid, (uint32_t)pid);

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &name_at) < 7)
			continue;
		if (strlen(perms) < 4)
			continue;
		/* Data mappings too with mmap_data, readable ones, as perf does. */
		if (perms[2] != 'x' &&
		    (!(s->attr->flags & PERFRING_ATTR_MMAP_DATA) || perms[0] != 'r'))
			continue;
		name = name_at ? line + name_at : "";
		nlen = strcspn(name, "\n");
		if (nlen == 0) {
			name = "//anon";
			nlen = 6;
		}
		if (nlen > 4096)
			nlen = 4096;
		if (perms[0] == 'r')
			prot |= PROT_READ;
		if (perms[1] == 'w')
			prot |= PROT_WRITE;
		if (perms[2] == 'x')
			prot |= PROT_EXEC;
		flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		memset(&m, 0, sizeof(m));
		m.misc = PERFRING_MISC_USER | (perms[2] == 'x' ? 0 : PERFRING_MISC_MMAP_DATA);
		m.pid = (uint32_t)pid;
		m.tid = (uint32_t)pid;
		m.addr = start;
		m.len = end - start;
		m.pgoff = off;
		m.maj = maj;
		m.min = min;
		m.ino = ino;
		m.prot = prot;
		m.flags = flags;
		m.filename = name;
		m.filename_len = nlen;
		ret = emit(s, rec, perfring_core_mmap2_encode(s->attr, PERFRING_RECORD_MMAP2, &m, &sid,
							     rec, PERFRING_RECORD_MAX_SIZE));
	}
	free(line);
	fclose(f);
	free(rec);
	return ret;
}

static int synth_process(struct synth *s, int pid)
{
	int *tids = NULL;
	size_t n = 0;
	int ret;

	if (process_threads(pid, &tids, &n) < 0)
		return 0;
	ret = 0;
	for (size_t i = 0; ret >= 0 && i < n; i++)
		ret = synth_comm(s, pid, tids[i]);
	free(tids);
	if (ret >= 0)
		ret = synth_maps(s, pid);
	return ret;
}

static int hw_synthesize(struct perfring_backend *b, perfring_backend_record_fn fn,
			 void *user)
{
	struct synth s = { .b = b, .fn = fn, .user = user };
	int ret = 0;

	if (!b || !fn)
		return -EINVAL;
	if (b->opts.mode != PERFRING_BACKEND_SAMPLE || (b->child && !b->opts.system_wide) || !b->nev)
		return 0;
	s.attr = &b->ev[0].attr;
	s.id = b->ev[0].nr_ids ? b->ev[0].ids[0] : 0;
	if (b->opts.pid > 0) {
		ret = synth_process(&s, b->opts.pid);
	} else if (b->opts.tid > 0) {
		ret = synth_comm(&s, b->tgid, b->opts.tid);
		if (ret >= 0)
			ret = synth_maps(&s, b->tgid);
	} else if (b->opts.system_wide) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d)
			return -errno;
		while (ret >= 0 && (de = readdir(d))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);

			if (*end || pid <= 0)
				continue;
			ret = synth_process(&s, (int)pid);
		}
		closedir(d);
	}
	return ret < 0 ? ret : s.count;
}

static const struct perfring_backend_ops hw_ops = {
	.struct_size = sizeof(struct perfring_backend_ops),
	.open = hw_open,
	.start = hw_start,
	.wait = hw_wait,
	.stop = hw_stop,
	.close = hw_close,
	.nr_events = hw_nr_events,
	.event = hw_event,
	.nr_rings = hw_nr_rings,
	.ring = hw_ring,
	.synthesize = hw_synthesize,
	.read_count = hw_read_count,
	.target = hw_target,
};

PERFRING_PLUGIN_DEFINE(
	.name = "hw",
	.version = "1.0",
	.description = "perf_event_open counters and kernel rings",
	.kind = PERFRING_PLUGIN_KIND_BACKEND,
	.backend_ops = &hw_ops);
