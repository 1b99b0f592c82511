/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracepoint events of the hw backend: "SUBSYSTEM:EVENT" (globs allowed)
 * looked up in tracefs.  Internal to plugins/hw.
 */
#ifndef PERFRING_HW_TRACEPOINT_H
#define PERFRING_HW_TRACEPOINT_H

#include <stddef.h>

#include <perfring/perfring.h>

/*
 * Tracepoints named by s (n bytes, "sys:event", no modifiers): a malloc'ed
 * array in *out (free()) and its length, or a negative errno with a
 * message in err that names what was looked up (no tracefs, unknown
 * event, permission).
 */
int hw_tp_lookup(const char *s, size_t n, struct perfring_tracepoint **out,
		 char *err, size_t errlen);

#endif
