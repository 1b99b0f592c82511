/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Markers and spans (include/perfring/marks.h).
 *
 * The ring format, version 1.  Each marking thread has a ring file of its
 * own (perfring_ring_create, PERFRING_RING_FILE, normal mode) named
 * perfring-marks-PID-TID.ring in $PERFRING_MARKS_DIR (default /tmp), of
 * $PERFRING_MARKS_SIZE data bytes (a power of two, default 4 MiB, at least
 * 64 KiB).  Its first page stays mapped PROT_READ|PROT_EXEC (PROT_READ
 * where exec is refused), so the kernel reports an MMAP2 naming the file
 * to perf and perfring-record: that is how a consumer finds the ring.
 *
 * The ring's one event is "perfring:mark": a software dummy event
 * (type 1, config 9) with sample_type TIME|RAW, sample_id_all and
 * use_clockid on CLOCK_MONOTONIC, id 1.  Each record is a SAMPLE,
 * misc USER:
 *
 *   0  header          type 9, misc 2, size
 *   8  u64 time        CLOCK_MONOTONIC, ns
 *   16 u32 raw_size    4 + raw_size is a multiple of 8, as the kernel pads
 *   20 raw[raw_size]
 *
 * raw, in host byte order:
 *
 *   0  u8  kind        0 INSTANT, 1 BEGIN, 2 END, 3 NAME, 4 THREAD
 *   1  u8  flags       1 VALUE, 2 NAME (inline), 4 TEXT
 *   2  u16 id          registered name id, 0 when the name is inline
 *   4  then, each only with its flag, in this order, unaligned:
 *        u64 value
 *        u8 name_len (1..63), the name's bytes
 *        u8 text_len (1..127), the text's bytes
 *      then zero padding.
 *
 * So a marker by id is 24 bytes, 32 with a value.  The first record of a
 * ring is THREAD (value = pid << 32 | tid, optionally the thread's name);
 * a registered id's first use in a ring is preceded by NAME (the id and
 * its name), so each ring describes itself.  pid and tid are the ring's,
 * not repeated per marker.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <perfring/marks.h>

#include "internal.h"

/* ---- decoding (the reader's side) --------------------------------------------- */

PERFRING_API int perfring_mark_decode(const void *raw, size_t raw_size, struct perfring_mark *m)
{
	const unsigned char *p = raw, *end;
	struct perfring_mark d = { .sz = sizeof(d) };

	if (!raw || !m || m->sz < sizeof(*m) || m->sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	if (raw_size < 4)
		return -EBADMSG;
	end = p + raw_size;
	d.kind = p[0];
	d.flags = p[1];
	d.id = pr_get16(p + 2);
	p += 4;
	if (d.kind > PERFRING_MARK_THREAD ||
	    (d.flags & ~(PERFRING_MARKF_VALUE | PERFRING_MARKF_NAME | PERFRING_MARKF_TEXT)) ||
	    d.id > PERFRING_MARK_IDS_MAX)
		return -EBADMSG;
	if (d.flags & PERFRING_MARKF_VALUE) {
		if (end - p < 8)
			return -EBADMSG;
		d.value = pr_get64(p);
		p += 8;
	}
	if (d.flags & PERFRING_MARKF_NAME) {
		if (end - p < 1 || !p[0] || p[0] > PERFRING_MARK_NAME_MAX || end - p - 1 < p[0])
			return -EBADMSG;
		d.name_len = p[0];
		d.name = (const char *)p + 1;
		p += 1 + d.name_len;
	}
	if (d.flags & PERFRING_MARKF_TEXT) {
		if (end - p < 1 || !p[0] || p[0] > PERFRING_MARK_TEXT_MAX || end - p - 1 < p[0])
			return -EBADMSG;
		d.text_len = p[0];
		d.text = (const char *)p + 1;
		p += 1 + d.text_len;
	}
	for (; p < end; p++)
		if (*p)
			return -EBADMSG;
	switch (d.kind) {
	case PERFRING_MARK_NAME:	/* defines id: both, nothing else */
		if (!d.id || !d.name || (d.flags & (PERFRING_MARKF_VALUE | PERFRING_MARKF_TEXT)))
			return -EBADMSG;
		break;
	case PERFRING_MARK_THREAD:	/* value = pid << 32 | tid, maybe a name */
		if (d.id || !(d.flags & PERFRING_MARKF_VALUE) || (d.flags & PERFRING_MARKF_TEXT))
			return -EBADMSG;
		break;
	default:			/* a marker: by id or by name, not both */
		if (!d.id == !d.name)
			return -EBADMSG;
		break;
	}
	return perfring_struct_fill(m, sizeof(*m), &d, sizeof(d));
}
