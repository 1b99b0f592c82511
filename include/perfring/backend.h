/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backend plugin ABI: an event source such as plugins/hw, which opens
 * perf_event_open counters and kernel rings.
 *
 * A backend plugin sets .kind = PERFRING_PLUGIN_KIND_BACKEND and
 * .backend_ops in its descriptor (<perfring/plugin.h>).  A host (for
 * example perfring-record) loads it through the registry, takes the table
 * with perfring_plugin_borrow_descriptor(), and drives one session:
 *
 *	ops->open(&opts, &diag, &b);		events parsed and opened, rings
 *						mapped, a command forked (held)
 *	ops->event(b, i, &ev) ...		attrs, kernel ids, names
 *	ops->start(b, &diag);			enable / let the command exec
 *	ops->synthesize(b, fn, user);		COMM/MMAP2 of running tasks
 *	while (!(ops->wait(b, fd, ms) & PERFRING_BACKEND_WAKE_EXIT))
 *		drain ops->ring(b, i) with perfring_reader_*;
 *	ops->stop(b); drain again;
 *	ops->read_count(b, i, &c) ...		counting mode
 *	ops->close(b);
 *
 * Every function returns 0 (or a non-negative count) or a negative errno,
 * and fills the diag it is given with a message a user can act on.
 *
 * ABI: every structure starts with its size (struct_size / sz) and fields
 * are only ever appended; a caller sets sz to the size it was compiled
 * with.  A backend follows the versioned-structure rule of perfring.h
 * with perfring_opts_load() (its options) and perfring_struct_fill()
 * (what it fills); the registry checks the ops table when it loads the
 * plugin (struct_size, every required function), as it does record ops.
 */
#ifndef PERFRING_BACKEND_H
#define PERFRING_BACKEND_H

#include <perfring/perfring.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_backend;		/* one session, owned by the backend */

enum perfring_backend_mode {
	PERFRING_BACKEND_SAMPLE = 0,	/* sampling: kernel rings */
	PERFRING_BACKEND_COUNT = 1,	/* counting: read() values */
};

/* Options of a session.  Zero fields mean the default. */
struct perfring_backend_opts {
	size_t sz;			/* sizeof(struct perfring_backend_opts) */
	enum perfring_backend_mode mode;
	/*
	 * Event list in perf's syntax: "cpu-clock,page-faults:u,{a,b}:k",
	 * rNNNN raw events.  NULL or "": the backend's default (hw: cycles,
	 * or cpu-clock where the machine lacks cycles, with a warning).
	 */
	const char *events;
	uint64_t freq;			/* samples per second (-F) */
	uint64_t period;		/* events per sample (-c); wins over freq */
	int callchain;			/* frame-pointer callchains (-g) */
	int pid;			/* > 0: attach to this running process (-p) */
	int system_wide;		/* every CPU, every task (-a); with argv, while it runs */
	/* Command to start (NULL-terminated argv), held until start(). */
	const char *const *argv;
	uint32_t ring_pages;		/* data pages per ring, 2^n (0: 128) */
	/*
	 * Counting mode: report an event the machine lacks as unsupported
	 * (perfring_backend_count.supported = 0) instead of failing open.
	 */
	int skip_unsupported;
	/* Warnings and notes (fallbacks); NULL: dropped. */
	perfring_log_fn log;
	void *log_user;
	/* ---- appended after log_user (check sz before reading) ---- */
	/*
	 * Sampling: with callchain, > 0 asks for DWARF unwinding data
	 * instead of user frame-pointer chains: the user registers
	 * (REGS_USER) and this many bytes of the user stack (STACK_USER,
	 * a multiple of 8, at most 65528).  0: frame pointers.
	 */
	uint32_t stack_user;
	/*
	 * CPUs to measure, in sysfs list syntax ("0-3,5"), implying
	 * system_wide on those CPUs only (argv may be given too).  NULL:
	 * every online CPU.
	 */
	const char *cpu_list;
	int tid;			/* > 0: this thread of a running process only (-t) */
	int switch_events;		/* context switch records (SWITCH / SWITCH_CPU_WIDE) */
	/* Clock of the sample times (attr.clockid); used when clockid_set. */
	int clockid_set;
	int32_t clockid;		/* 0 = CLOCK_REALTIME; default CLOCK_MONOTONIC */
};

#define PERFRING_BACKEND_OPTS(name, ...)				\
	struct perfring_backend_opts name = {				\
		.sz = sizeof(struct perfring_backend_opts), __VA_ARGS__	\
	}

/* A counting-mode result, summed over CPUs and threads. */
struct perfring_backend_count {
	size_t sz;			/* set by the caller */
	uint64_t value;			/* raw count */
	uint64_t enabled;		/* TOTAL_TIME_ENABLED, ns */
	uint64_t running;		/* TOTAL_TIME_RUNNING, ns */
	uint64_t scaled;		/* value * enabled / running (128-bit safe) */
	int counted;			/* 0: never ran (running == 0) */
	int supported;			/* 0: the machine lacks this event */
	/*
	 * Sampling: records the kernel dropped for this event (ring full),
	 * also those no PERF_RECORD_LOST reported yet; 0 on kernels without
	 * PERF_FORMAT_LOST (before 6.0).
	 */
	uint64_t lost;
};

/* Bits returned by wait(). */
#define PERFRING_BACKEND_WAKE_DATA	0x1u	/* a ring reached its watermark */
#define PERFRING_BACKEND_WAKE_EXIT	0x2u	/* the target exited / is gone */
#define PERFRING_BACKEND_WAKE_FD	0x4u	/* the caller's extra fd is readable */
#define PERFRING_BACKEND_WAKE_TIMEOUT	0x8u	/* timeout_ms passed */

/* Receives one whole record (header included) from synthesize(). */
typedef int (*perfring_backend_record_fn)(const void *rec, size_t size,
					  void *user);

/*
 * The function table of a backend plugin.  ABI: fields are only ever
 * appended; struct_size (= sizeof when the plugin was built) says which
 * exist.  All functions are required unless marked optional.
 */
struct perfring_backend_ops {
	uint32_t struct_size;

	/*
	 * Parse the events, open them, map the rings (sampling), fork the
	 * command (held before exec until start()).  Returns 0 and *out, or
	 * a negative errno with diag saying what to do:
	 *  -EINVAL   bad event list or options
	 *  -EOPNOTSUPP / -ENOENT  an event this machine lacks
	 *  -EACCES / -EPERM       perf_event_paranoid refusal
	 *  -EMFILE   too many open files
	 */
	int (*open)(const struct perfring_backend_opts *opts,
		    struct perfring_diag *diag, struct perfring_backend **out);

	/* Enable the events and release the command.  Once. */
	int (*start)(struct perfring_backend *b, struct perfring_diag *diag);

	/*
	 * Block until a ring has data past its watermark, the target exits,
	 * extra_fd (if >= 0) is readable, or timeout_ms (< 0: none) passes.
	 * Borrows extra_fd (the caller keeps and closes it): it is only
	 * polled during the call.
	 * Returns PERFRING_BACKEND_WAKE_* bits or a negative errno.  Once the
	 * target has exited, returns WAKE_EXIT immediately.
	 */
	int (*wait)(struct perfring_backend *b, int extra_fd, int timeout_ms);

	/* Disable every event (records already in the rings stay). */
	int (*stop)(struct perfring_backend *b);

	/* Kill the command if still running, unmap, close.  NULL is fine. */
	void (*close)(struct perfring_backend *b);

	uint32_t (*nr_events)(const struct perfring_backend *b);
	/*
	 * Event idx into out (out->sz set by the caller; fill it with
	 * perfring_struct_fill): attr as opened (attr->size valid), the
	 * kernel ids (PERF_EVENT_IOC_ID, one per fd), name ("cpu-clock",
	 * "page-faults:u", "r01c2"), leader and supported; pointers
	 * borrowed until close.  0, -ENOENT, or -EINVAL (out->sz).  The
	 * description goes as it is to perfring_ring_opts.events and
	 * perfring_writer_add_event.
	 */
	int (*event)(const struct perfring_backend *b, uint32_t idx,
		     struct perfring_event_desc *out);

	/* Sampling: the kernel rings, wrapped for perfring_reader_* (owned by b). */
	uint32_t (*nr_rings)(const struct perfring_backend *b);
	struct perfring_ring *(*ring)(const struct perfring_backend *b,
				      uint32_t idx);

	/*
	 * Sampling with -p / -a: call fn with COMM and MMAP2 records of the
	 * tasks already running, from /proc, encoded for event 0 (with its
	 * sample_id_all trailer, time taken before the events were
	 * enabled).  Returns the number of records or the first negative
	 * return of fn.  Returns 0 when there is nothing to synthesise.
	 */
	int (*synthesize)(struct perfring_backend *b,
			  perfring_backend_record_fn fn, void *user);

	/*
	 * Event idx summed over its fds and scaled (counting mode), or its
	 * count and lost records (sampling mode, where enabled/running are
	 * 0).  0, -ENOENT, or -errno.
	 */
	int (*read_count)(struct perfring_backend *b, uint32_t idx,
			  struct perfring_backend_count *out);

	/*
	 * The target: pid of the command or -p process (0 for -a); *status
	 * (if not NULL) gets its wait status once it exited (-1 when not
	 * known, e.g. -p).  Returns 1 if it exited, 0 if not.
	 */
	int (*target)(const struct perfring_backend *b, int *pid, int *status);
};

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_BACKEND_H */
