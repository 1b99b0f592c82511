/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LTTng-UST tracepoint provider for bench/lttng-bench.c: a FORK payload,
 * and a marker's (kind and name id, as a perfring marker by id). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER perfring_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H

#include <lttng/tracepoint.h>

/* The 40 bytes after the 8-byte header of a 48-byte FORK record. */
LTTNG_UST_TRACEPOINT_EVENT(perfring_bench, fork,
	LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, ppid, uint32_t, tid, uint32_t, ptid,
			  uint64_t, time, uint64_t, sid_pidtid, uint64_t, sid_time),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, pid, pid)
		lttng_ust_field_integer(uint32_t, ppid, ppid)
		lttng_ust_field_integer(uint32_t, tid, tid)
		lttng_ust_field_integer(uint32_t, ptid, ptid)
		lttng_ust_field_integer(uint64_t, time, time)
		lttng_ust_field_integer(uint64_t, sid_pidtid, sid_pidtid)
		lttng_ust_field_integer(uint64_t, sid_time, sid_time)
	)
)

/* What a marker by id carries after its timestamp: kind, flags, id. */
LTTNG_UST_TRACEPOINT_EVENT(perfring_bench, mark,
	LTTNG_UST_TP_ARGS(uint8_t, kind, uint8_t, flags, uint16_t, id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint8_t, kind, kind)
		lttng_ust_field_integer(uint8_t, flags, flags)
		lttng_ust_field_integer(uint16_t, id, id)
	)
)

#endif

#include <lttng/tracepoint-event.h>
