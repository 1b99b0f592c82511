/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event lists in perf's syntax, for the hw backend: generic hardware and
 * software names, raw rNNNN, :u :k :h :p modifiers, comma lists and {a,b}
 * groups.  Internal to plugins/hw (hidden symbols; the unit test compiles
 * evparse.c in).
 */
#ifndef PERFRING_HW_EVPARSE_H
#define PERFRING_HW_EVPARSE_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

#define HW_EVNAME_MAX 64

struct hw_evspec {
	struct perfring_attr attr;	/* type, config, exclude_* and precise_ip */
	char name[HW_EVNAME_MAX];	/* canonical name plus modifiers as given */
	int leader;			/* index of the group leader (itself if none) */
	int nr_members;			/* leader: members including itself; else 0 */
};

/*
 * Parse spec into a malloc'ed array (*out, *n).  Returns 0, -EINVAL with a
 * message in err (errlen bytes) naming the bad part, or -ENOMEM.
 */
int hw_parse_events(const char *spec, struct hw_evspec **out, size_t *n,
		    char *err, size_t errlen);

/* The canonical name for (type, config) if it has one, else NULL. */
const char *hw_event_name(uint32_t type, uint64_t config);

/* Comma-separated list of every known event name, for messages. */
const char *hw_known_events(void);

/*
 * A multiplexed count scaled to the whole enabled time: value * enabled /
 * running, in 128-bit arithmetic (saturating at UINT64_MAX).  running == 0
 * (never ran) and running >= enabled give value unchanged.
 */
static inline uint64_t hw_scale_count(uint64_t value, uint64_t enabled, uint64_t running)
{
	unsigned __int128 x;

	if (!running || running >= enabled)
		return value;
	x = (unsigned __int128)value * enabled / running;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

#endif
