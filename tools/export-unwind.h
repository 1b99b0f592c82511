/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DWARF unwinding of --call-graph dwarf samples (PERF_SAMPLE_REGS_USER +
 * PERF_SAMPLE_STACK_USER) for perfring-export, with libdw's dwfl: one
 * Dwfl per process, its modules reported as the unwinder reaches them,
 * its thread state the sample's registers and stack copy.  x86_64 only
 * (elsewhere ex_unwind returns 0 frames).
 */
#ifndef PERFRING_EXPORT_UNWIND_H
#define PERFRING_EXPORT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

/* The ELF file mapped at pc and its load bias (map start - pgoff): 1, or 0
 * if there is none. */
typedef int (*ex_module_fn)(void *user, uint64_t pc, const char **path, uint64_t *bias);

struct ex_unwinder;

struct ex_unwinder *ex_unwind_new(ex_module_fn fn, void *user, uint32_t pid);
void ex_unwind_free(struct ex_unwinder *u);

/*
 * Unwind one sample: regs (nregs values, in the order of the set bits of
 * mask: attr.sample_regs_user), the stack copy (size bytes from the user
 * SP).  Writes up to max pcs into out, the first the interrupted ip, then
 * return addresses as they are (not minus one).  Returns their number.
 */
int ex_unwind(struct ex_unwinder *u, uint32_t tid, const uint64_t *regs, uint32_t nregs,
	      uint64_t mask, const void *stack, uint64_t size, uint64_t *out, int max);

#endif
