/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sigprof-sampler: a profiler built into a program, with no perf_event_open
 * at all.  setitimer(ITIMER_PROF) sends SIGPROF every millisecond of CPU
 * time; the handler takes the interrupted instruction pointer from its
 * ucontext, encodes a SAMPLE and writes it into a ring.  The main thread
 * writes records into the same ring too (its side-band, and one SAMPLE of a
 * second event per unit of work, held reserved while the unit runs), so
 * handlers regularly write while a main-thread write is open: the ring's
 * writes nest like the kernel's, and every record comes out whole.
 *
 * At the end the ring is turned into a perf.data through the writer API,
 * with a COMM for this process and an MMAP2 for every executable mapping
 * in /proc/self/maps, so that stock perf report shows this program's own
 * functions:
 *
 *   make                                  (pkg-config --cflags --libs perfring)
 *   PERFRING_PLUGIN_PATH=... ./sigprof-sampler perf.data 500
 *   perf report -i perf.data --stdio --sort sym
 *
 * Arguments: OUT (default perf.data) and the CPU milliseconds to run
 * (default 500).  The COMM and MMAP2 records are encoded by the comm and
 * mmap2 plugins, found through PERFRING_PLUGIN_PATH or the installed
 * plugins directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <perfring/perfring.h>

#define SAMPLE_TYPE (PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID | \
		     PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_PERIOD)
#define PERIOD_NS 1000000u	/* ITIMER_PROF interval: 1 ms of CPU time */

/* Event 0: the SIGPROF samples.  Event 1: the main thread's work units. */
static struct perfring_attr attrs[2] = {
	{ .type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER7,
	  .config = 0 /* cpu-clock */, .sample_period = PERIOD_NS,
	  .sample_type = SAMPLE_TYPE,
	  .flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL },
	{ .type = PERFRING_TYPE_SOFTWARE, .size = PERFRING_ATTR_SIZE_VER7,
	  .config = 9 /* dummy */, .sample_period = 1,
	  .sample_type = SAMPLE_TYPE,
	  .flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL },
};
static const uint64_t ids[2] = { 1, 2 };
/* The two events, as the ring and the writer both take them. */
static const struct perfring_event_desc evs[2] = {
	{ .sz = sizeof(struct perfring_event_desc), .attr = &attrs[0], .ids = &ids[0],
	  .nr_ids = 1, .name = "cpu-clock:u" },
	{ .sz = sizeof(struct perfring_event_desc), .attr = &attrs[1], .ids = &ids[1],
	  .nr_ids = 1, .name = "work-units" },
};

static struct perfring_ring *ring;
static uint32_t my_pid, my_tid;
/* Set by the main thread around its own writes (for the statistics). */
static volatile sig_atomic_t in_main_write;
static volatile sig_atomic_t n_handler, n_nested, n_dropped;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* async-signal-safe */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t interrupted_ip(void *uc)
{
	const ucontext_t *ctx = uc;

#if defined(__x86_64__)
	return (uint64_t)ctx->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uint64_t)ctx->uc_mcontext.pc;
#elif defined(__i386__)
	return (uint64_t)(uint32_t)ctx->uc_mcontext.gregs[REG_EIP];
#else
#error "add this architecture's program counter from ucontext"
#endif
}

/*
 * The SIGPROF handler: encode and write one SAMPLE.  Everything here is
 * async-signal-safe (the encoder and the ring write path take no lock,
 * allocate nothing and leave errno alone).
 */
static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
	uint64_t buf[16];
	struct perfring_sample s = {
		.identifier = ids[0], .ip = interrupted_ip(uc),
		.pid = my_pid, .tid = my_tid, .time = now_ns(), .period = PERIOD_NS,
	};
	int n, saved = errno;

	(void)sig;
	(void)si;
	n = perfring_sample_encode(&attrs[0], &s, PERFRING_MISC_USER, buf, sizeof(buf));
	if (n > 0) {
		if (perfring_ring_write(ring, buf) < 0)
			n_dropped++;
		else
			n_handler++;
		if (in_main_write)
			n_nested++;
	}
	errno = saved;
}

/* The main thread's write of one whole record, flagged for the statistics. */
static int main_write(const void *rec)
{
	int err;

	in_main_write = 1;
	err = perfring_ring_write(ring, rec);
	in_main_write = 0;
	return err;
}

static void die(const char *what, const struct perfring_diag *d)
{
	char msg[1024];

	if (d && d->msg[0])
		fprintf(stderr, "sigprof-sampler: %s: %s\n", what,
			perfring_diag_format(d, msg, sizeof(msg)));
	else
		fprintf(stderr, "sigprof-sampler: %s\n", what);
	exit(1);
}

/* Encode a side-band record through the plugin that claims its type. */
static void write_sideband(struct perfring_registry *reg, uint32_t type, const void *typed)
{
	const struct perfring_plugin *p = perfring_registry_find(reg, type);
	struct perfring_sample_id sid = { .pid = my_pid, .tid = my_tid, .time = now_ns(),
					  .identifier = ids[0] };
	uint64_t buf[PERFRING_RECORD_MAX_SIZE / 8];

	if (!p)
		die("no plugin for COMM/MMAP2 (set PERFRING_PLUGIN_PATH)", NULL);
	if (perfring_plugin_encode(p, &attrs[0], type, typed, &sid, buf, sizeof(buf)) < 0 ||
	    main_write(buf) < 0)
		die("cannot write a side-band record", NULL);
}

/* COMM for this process, MMAP2 for every executable file mapping. */
static void write_self_sideband(void)
{
	struct perfring_registry *reg;
	struct perfring_diag diag = { 0 };
	struct perfring_comm comm = PERFRING_COMM_INIT;
	char line[4096], exe[1024];
	ssize_t n;
	FILE *f;

	if (perfring_registry_new(0, &reg) < 0 || perfring_registry_load_default(reg, &diag) < 0)
		die("cannot load the plugins", &diag);
	comm.pid = my_pid;
	comm.tid = my_tid;
	comm.exec = true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(comm.comm, sizeof(comm.comm), "%s",
		 strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "sigprof-sampler");
	write_sideband(reg, PERFRING_RECORD_COMM, &comm);

	f = fopen("/proc/self/maps", "r");
	if (!f)
		die("cannot read /proc/self/maps", NULL);
	while (fgets(line, sizeof(line), f)) {
		struct perfring_mmap2 m = PERFRING_MMAP2_INIT;
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8], *path;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
			   &pgoff, &maj, &min, &ino, &pos) < 7 || !pos)
			continue;
		path = line + pos;
		path[strcspn(path, "\n")] = '\0';
		if (perms[2] != 'x' || path[0] != '/')
			continue;	/* only executable file mappings */
		m.pid = my_pid;
		m.tid = my_tid;
		m.addr = start;
		m.len = end - start;
		m.pgoff = pgoff;
		m.maj = maj;
		m.min = min;
		m.ino = ino;
		m.prot = PROT_READ | PROT_EXEC;
		m.flags = perms[3] == 'p' ? MAP_PRIVATE : MAP_SHARED;
		m.filename = path;
		m.filename_len = strlen(path);
		write_sideband(reg, PERFRING_RECORD_MMAP2, &m);
	}
	fclose(f);
	perfring_registry_free(reg);
}

/* The profiled code: two functions, one doing about twice the other's work. */
static volatile uint64_t sink;

static void __attribute__((noinline)) sampler_work_heavy(void)
{
	uint64_t x = sink;

	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u + (uint64_t)i;
	sink = x;
}

static void __attribute__((noinline)) sampler_work_light(void)
{
	uint64_t x = sink;

	for (int i = 0; i < 100000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15u + (uint64_t)i;
	sink = x;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Drain the ring into a perf.data file through the writer API. */
static uint64_t write_perf_data(const char *out)
{
	struct perfring_diag diag = { 0 };
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };
	struct perfring_writer *w;
	uint64_t n = 0;
	int ret;
	PERFRING_WRITER_OPTS(o, .path = out);

	if (perfring_writer_open(&o, &diag, &w) < 0 ||
	    perfring_writer_add_event(w, &evs[0], &diag) < 0 ||
	    perfring_writer_add_event(w, &evs[1], &diag) < 0)
		die(out, &diag);
	if (perfring_reader_new(ring, &rd) < 0)
		die("cannot create a reader", NULL);
	while ((ret = perfring_reader_next(rd, &rec)) > 0) {
		if (perfring_writer_write(w, 0, rec.hdr, rec.hdr->size, &diag) < 0)
			die(out, &diag);
		n++;
	}
	if (ret < 0)
		die("ring", perfring_reader_diag(rd));
	perfring_reader_consume(rd);
	perfring_reader_free(rd);
	if (perfring_writer_close(w, &diag) < 0)
		die(out, &diag);
	return n;
}

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "perf.data";
	uint64_t run_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 500) * 1000000u;
	/* 4 MiB: room for everything, so the ring is only read at the end. */
	PERFRING_RING_OPTS(opts, .backing = PERFRING_RING_ANON, .data_size = 4u << 20,
			   .events = evs, .nr_events = 2);
	struct itimerval it = { .it_interval = { 0, PERIOD_NS / 1000 },
				.it_value = { 0, PERIOD_NS / 1000 } };
	struct sigaction sa = { .sa_sigaction = on_sigprof, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct perfring_sample_id lost_sid;
	struct perfring_ring_stats st = { .sz = sizeof(st) };
	uint64_t units = 0, start, records;
	int err;

	my_pid = (uint32_t)getpid();
	my_tid = (uint32_t)syscall(SYS_gettid);
	err = perfring_ring_create(&opts, NULL, &ring);
	if (err < 0) {
		fprintf(stderr, "sigprof-sampler: cannot create the ring: %s\n", strerror(-err));
		return 1;
	}
	/* LOST records (if the ring ever fills) carry this trailer. */
	lost_sid = (struct perfring_sample_id){ .pid = my_pid, .tid = my_tid,
						.identifier = ids[0] };
	perfring_ring_set_lost_sample_id(ring, &lost_sid);
	write_self_sideband();

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) < 0 || setitimer(ITIMER_PROF, &it, NULL) < 0) {
		perror("sigprof-sampler: SIGPROF timer");
		return 1;
	}
	start = cpu_ns();
	while (cpu_ns() - start < run_ns) {
		struct perfring_sample s = { .identifier = ids[1], .ip = (uintptr_t)&sampler_work_light,
					     .pid = my_pid, .tid = my_tid, .time = now_ns(),
					     .period = 1 };
		struct perfring_wr wr;
		uint64_t buf[16];
		int n;

		sampler_work_heavy();
		/*
		 * One SAMPLE of event 1 per light unit of work, reserved before
		 * the unit runs and committed after it (as a tracer reserves a
		 * span and fills it in at the end): the SIGPROF samples taken
		 * meanwhile nest inside this open write, land after it in the
		 * ring, and are published by its commit.
		 */
		n = perfring_sample_encode(&attrs[1], &s, PERFRING_MISC_USER, buf, sizeof(buf));
		in_main_write = 1;
		if (n > 0 && perfring_ring_reserve(ring, (size_t)n, &wr) == 0) {
			sampler_work_light();
			perfring_ring_copy(ring, &wr, 0, buf, (size_t)n);
			perfring_ring_commit(ring, &wr);
			units++;
		} else {
			sampler_work_light();
		}
		in_main_write = 0;
	}
	it = (struct itimerval){ 0 };
	setitimer(ITIMER_PROF, &it, NULL);
	signal(SIGPROF, SIG_IGN);

	perfring_ring_get_stats(ring, &st);
	records = write_perf_data(out);
	printf("sigprof-sampler: %d SIGPROF samples (%d written while the main thread "
	       "was writing), %" PRIu64 " work units, %d dropped\n",
	       (int)n_handler, (int)n_nested, units, (int)n_dropped);
	printf("sigprof-sampler: %" PRIu64 " records (%" PRIu64 " ring bytes) -> %s\n",
	       records, st.published, out);
	perfring_ring_close(ring);
	return 0;
}
