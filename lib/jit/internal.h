/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to the JIT files of lib/ (jitdump.c, elf.c). */
#ifndef PERFRING_JIT_INTERNAL_H
#define PERFRING_JIT_INTERNAL_H

#include <stdint.h>

#include "util/internal.h"

/* ELF e_machine of the code this library was built for (EM_NONE if unknown). */
PR_HIDDEN uint32_t pr_jit_host_machine(void);

#endif
