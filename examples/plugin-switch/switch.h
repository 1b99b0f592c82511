/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The typed struct of the example "switch" plugin, shared by the plugin
 * and programs that use it (a third-party plugin defines its own types).
 */
#ifndef SWITCH_EXAMPLE_H
#define SWITCH_EXAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/* PERF_RECORD_SWITCH: no body, only the sample_id_all trailer. */
struct switch_example {
	bool out;		/* misc SWITCH_OUT: switching out (else in) */
	bool preempt;		/* misc SWITCH_OUT_PREEMPT: preempted while runnable */
	uint16_t cpumode;	/* misc cpumode bits (the kernel writes 0) */
};

#endif
