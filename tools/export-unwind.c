/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DWARF unwinding for perfring-export (see export-unwind.h).
 *
 * As perf's and perfparser's libdw unwinders do: the thread callbacks hand
 * libdw the sample's user registers (perf's register order mapped to
 * DWARF's) and read memory from the copy of the user stack; a frame's
 * module is reported (dwfl_report_elf at the mapping's start - pgoff) when
 * the unwinder gets to a pc in it, so that only the binaries a stack goes
 * through are opened.  Unlike perf, whose unwinder makes a new Dwfl for
 * every sample, a process keeps its Dwfl (attached once; the callbacks
 * read the current sample through the unwinder), so each binary's CFI is
 * read once.  Memory outside the stack copy is not read: a frame whose
 * CFI needs it ends the stack, as it ends it for perf when the copy was
 * too short.
 */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <string.h>

#include <glib.h>

#include "export-unwind.h"

struct ex_unwinder {
	Dwfl *dwfl;
	int attached;
	uint32_t pid;
	ex_module_fn module;
	void *user;
	/* the sample being unwound */
	uint32_t tid;
	const uint64_t *regs;
	uint32_t nregs;
	uint64_t mask;
	const uint8_t *stack;
	uint64_t stack_size, sp;
	uint64_t *out;
	int n, max;
};

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = NULL,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = NULL,
	.debuginfo_path = NULL,
};

/* perf's x86_64 register numbers (PERF_REG_X86_*) for DWARF's 0..16:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int x86_64_perf_reg[17] = { 0, 3, 2, 1, 4, 5, 6, 7,
					 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REG_SP 7
#define PERF_REG_IP 8

/* The value of perf register r in a sample, or 0 with *ok = 0. */
static uint64_t reg(const struct ex_unwinder *u, int r, int *ok)
{
	unsigned idx;

	if (r >= 64 || !(u->mask & (1ull << r))) {
		*ok = 0;
		return 0;
	}
	idx = (unsigned)__builtin_popcountll(u->mask & ((1ull << r) - 1));
	if (idx >= u->nregs) {
		*ok = 0;
		return 0;
	}
	return u->regs[idx];
}

static void report(struct ex_unwinder *u, uint64_t pc)
{
	const char *path;
	uint64_t bias;

	if (dwfl_addrmodule(u->dwfl, pc) || !u->module(u->user, pc, &path, &bias))
		return;
	dwfl_report_begin_add(u->dwfl);
	dwfl_report_elf(u->dwfl, path, path, -1, bias, false);
	dwfl_report_end(u->dwfl, NULL, NULL);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct ex_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct ex_unwinder *u = arg;

	(void)dwfl;
	(void)tid;
	*thread_argp = u;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ex_unwinder *u = arg;

	(void)dwfl;
	if (addr < u->sp || addr - u->sp > u->stack_size || u->stack_size - (addr - u->sp) < 8)
		return false;
	memcpy(result, u->stack + (addr - u->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct ex_unwinder *u = arg;
	Dwarf_Word w[17];
	int ok = 1;

	for (int i = 0; i < 17; i++)
		w[i] = reg(u, x86_64_perf_reg[i], &ok);
	return ok && dwfl_thread_state_registers(thread, 0, 17, w);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
	.detach = NULL,
	.thread_detach = NULL,
};

struct ex_unwinder *ex_unwind_new(ex_module_fn fn, void *user, uint32_t pid)
{
	struct ex_unwinder *u = g_new0(struct ex_unwinder, 1);

	u->dwfl = dwfl_begin(&dwfl_cbs);
	if (!u->dwfl) {
		g_free(u);
		return NULL;
	}
	u->module = fn;
	u->user = user;
	u->pid = pid;
	return u;
}

void ex_unwind_free(struct ex_unwinder *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	g_free(u);
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct ex_unwinder *u = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL) || pc == 0)
		return DWARF_CB_ABORT;
	report(u, pc);	/* before libdw looks for the CFI of this frame */
	u->out[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int ex_unwind(struct ex_unwinder *u, uint32_t tid, const uint64_t *regs, uint32_t nregs,
	      uint64_t mask, const void *stack, uint64_t size, uint64_t *out, int max)
{
#if defined(__x86_64__)
	int ok = 1;
	uint64_t ip;

	u->tid = tid ? tid : u->pid;
	u->regs = regs;
	u->nregs = nregs;
	u->mask = mask;
	u->stack = stack;
	u->stack_size = size;
	u->out = out;
	u->n = 0;
	u->max = max;
	u->sp = reg(u, PERF_REG_SP, &ok);
	ip = reg(u, PERF_REG_IP, &ok);
	if (!ok || max <= 0)
		return 0;
	report(u, ip);
	if (!u->attached) {
		/* the architecture comes from a module: one must be there */
		if (!dwfl_addrmodule(u->dwfl, ip) ||
		    !dwfl_attach_state(u->dwfl, NULL, (pid_t)u->pid, &thread_cbs, u))
			goto leaf;
		u->attached = 1;
	}
	dwfl_getthread_frames(u->dwfl, (pid_t)u->tid, frame_cb, u);
leaf:
	if (u->n == 0)	/* at least the interrupted ip */
		out[u->n++] = ip;
	return u->n;
#else
	(void)u; (void)tid; (void)regs; (void)nregs; (void)mask; (void)stack; (void)size;
	(void)out; (void)max;
	return 0;
#endif
}
