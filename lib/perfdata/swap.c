/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Byte-swapping of perf.data written on a machine of the other endianness.
 *
 * The rules follow perf (tools/perf/util/session.c perf_event__*_swap and
 * perf_event__attr_swap, evsel.c for the u32 pairs): u64 fields are swapped
 * as u64, u32/u16 fields at their width, strings and byte arrays are left
 * alone.  SAMPLE records are swapped as an array of u64 first (their layout
 * depends on the attr, which is only known once the id has been read), then
 * pr_pd_fix_sample puts the u32 pairs (pid/tid, cpu/res) and the RAW area
 * back.  The sample_id_all trailer of other records likewise.  Where perf
 * forgets fields (MMAP2 prot/flags, KSYMBOL, BPF_EVENT, attr.clockid, ...)
 * we swap them too.  Every access is bounded by the record size: a
 * malformed record is left partly swapped, never read out of bounds.
 */
#include "config.h"

#include <string.h>

#include "perfdata/private.h"

static void sw64_range(unsigned char *p, size_t from, size_t to)
{
	for (; from + 8 <= to; from += 8)
		pd_sw64(p + from);
}

/* Field helpers: swap only if the field lies inside the record. */
#define SW(w, p, off, size) do {					\
	if ((size_t)(off) + (w) / 8 <= (size))				\
		pd_sw##w((unsigned char *)(p) + (off));			\
} while (0)

static unsigned char revbyte(unsigned char b)
{
	b = (unsigned char)((b >> 4) | (b << 4));
	b = (unsigned char)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
	b = (unsigned char)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
	return b;
}

void pr_pd_swap_attr(void *attr, size_t avail)
{
	/* offset and width of every non-bitfield member after size */
	static const struct { unsigned char off, w; } f[] = {
		{ 8, 64 }, { 16, 64 }, { 24, 64 }, { 32, 64 },
		{ 48, 32 }, { 52, 32 }, { 56, 64 }, { 64, 64 }, { 72, 64 },
		{ 80, 64 }, { 88, 32 }, { 92, 32 }, { 96, 64 }, { 104, 32 },
		{ 108, 16 }, { 110, 16 }, { 112, 32 }, { 116, 32 }, { 120, 64 },
		{ 128, 64 },
	};
	unsigned char *p = attr;
	size_t size, i;

	if (avail < 8)
		return;
	pd_sw32(p);
	pd_sw32(p + 4);
	size = pr_get32(p + 4);
	if (size == 0)
		size = PERFRING_ATTR_SIZE_VER0;
	if (size > avail)
		size = avail;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		size_t off = f[i].off;

		if (off + f[i].w / 8 > size)
			break;
		if (f[i].w == 64)
			pd_sw64(p + off);
		else if (f[i].w == 32)
			pd_sw32(p + off);
		else
			pd_sw16(p + off);
	}
	/* The flag bitfield: big-endian compilers allocate bit 0 as the
	 * most significant bit of the first byte. */
	if (size >= 48)
		for (i = 40; i < 48; i++)
			p[i] = revbyte(p[i]);
}

/* End of a NUL-terminated, 8-aligned string starting at off, or size. */
static size_t str8_end(const unsigned char *p, size_t off, size_t size)
{
	size_t n;

	if (off >= size)
		return size;
	n = strnlen((const char *)p + off, size - off);
	return off + PR_ALIGN8(n + 1);
}

static void swap_cpu_map_data(unsigned char *p, size_t off, size_t size)
{
	uint16_t type, nr, ls;
	size_t i;

	if (off + 2 > size)
		return;
	pd_sw16(p + off);
	type = pr_get16(p + off);
	switch (type) {
	case 0:		/* list of u16 cpus */
		SW(16, p, off + 2, size);
		if (off + 4 > size)
			return;
		nr = pr_get16(p + off + 2);
		for (i = 0; i < nr; i++)
			SW(16, p, off + 4 + 2 * i, size);
		break;
	case 1:		/* mask */
		SW(16, p, off + 2, size);
		SW(16, p, off + 4, size);
		if (off + 6 > size)
			return;
		nr = pr_get16(p + off + 2);
		ls = pr_get16(p + off + 4);
		if (ls == 4)
			for (i = 0; i < nr; i++)
				SW(32, p, off + 6 + 4 * i, size);
		else if (ls == 8)
			for (i = 0; i < nr; i++)
				SW(64, p, off + 10 + 8 * i, size);
		break;
	case 2:		/* range: u8 any, u8 pad, u16 start, u16 end */
		SW(16, p, off + 4, size);
		SW(16, p, off + 6, size);
		break;
	default:
		break;
	}
}

/* The body of a kernel record (type below HEADER_ATTR): where its
 * sample_id_all trailer starts, or 0 when there is none left to swap (the
 * record is all u64, or too short to tell). */
static size_t swap_kernel_body(unsigned char *p, uint32_t type, uint16_t misc,
			       size_t size)
{
	uint64_t n;

	switch (type) {
	case PERFRING_RECORD_MMAP:
		SW(32, p, 8, size); SW(32, p, 12, size);
		SW(64, p, 16, size); SW(64, p, 24, size); SW(64, p, 32, size);
		return str8_end(p, 40, size);
	case PERFRING_RECORD_MMAP2:
		SW(32, p, 8, size); SW(32, p, 12, size);
		SW(64, p, 16, size); SW(64, p, 24, size); SW(64, p, 32, size);
		if (!(misc & PERFRING_MISC_MMAP_BUILD_ID)) {
			SW(32, p, 40, size); SW(32, p, 44, size);
			SW(64, p, 48, size); SW(64, p, 56, size);
		}
		SW(32, p, 64, size); SW(32, p, 68, size);
		return str8_end(p, 72, size);
	case PERFRING_RECORD_COMM:
		SW(32, p, 8, size); SW(32, p, 12, size);
		return str8_end(p, 16, size);
	case PERFRING_RECORD_EXIT:
	case PERFRING_RECORD_FORK:
		SW(32, p, 8, size); SW(32, p, 12, size);
		SW(32, p, 16, size); SW(32, p, 20, size);
		SW(64, p, 24, size);
		return 32;
	case PERFRING_RECORD_THROTTLE:
	case PERFRING_RECORD_UNTHROTTLE:
	case PERFRING_RECORD_AUX:
		SW(64, p, 8, size); SW(64, p, 16, size); SW(64, p, 24, size);
		return 32;
	case PERFRING_RECORD_READ:
		/* pid, tid, then read_format u64s; the trailer is u64 too */
		SW(32, p, 8, size); SW(32, p, 12, size);
		sw64_range(p, 16, size);
		return 0;
	case PERFRING_RECORD_LOST:
	case PERFRING_RECORD_SAMPLE:
	case PERFRING_RECORD_LOST_SAMPLES:
	case PERFRING_RECORD_AUX_OUTPUT_HW_ID:
	case 22:	/* CALLCHAIN_DEFERRED (newest kernels): all u64 */
		sw64_range(p, 8, size);
		return 0;
	case PERFRING_RECORD_ITRACE_START:
		SW(32, p, 8, size); SW(32, p, 12, size);
		return 16;
	case PERFRING_RECORD_SWITCH:
		return 8;
	case PERFRING_RECORD_SWITCH_CPU_WIDE:
		SW(32, p, 8, size); SW(32, p, 12, size);
		return 16;
	case PERFRING_RECORD_NAMESPACES:
		SW(32, p, 8, size); SW(32, p, 12, size); SW(64, p, 16, size);
		if (size < 24)
			return 0;
		n = pr_get64(p + 16);
		if (n > (size - 24) / 16)
			n = (size - 24) / 16;
		sw64_range(p, 24, 24 + 16 * n);
		return 24 + 16 * n;
	case PERFRING_RECORD_KSYMBOL:
		SW(64, p, 8, size); SW(32, p, 16, size);
		SW(16, p, 20, size); SW(16, p, 22, size);
		return str8_end(p, 24, size);
	case PERFRING_RECORD_BPF_EVENT:
		SW(16, p, 8, size); SW(16, p, 10, size); SW(32, p, 12, size);
		return 24;
	case PERFRING_RECORD_CGROUP:
		SW(64, p, 8, size);
		return str8_end(p, 16, size);
	case PERFRING_RECORD_TEXT_POKE:
		SW(64, p, 8, size); SW(16, p, 16, size); SW(16, p, 18, size);
		if (size < 20)
			return 0;
		return 16 + PR_ALIGN8((size_t)4 + pr_get16(p + 16) +
					  pr_get16(p + 18));

	default:	/* unknown: header only */
		return 0;
	}
}

/* The body of a perf-tool record (HEADER_ATTR and above): these never
 * carry a trailer. */
static void swap_tool_record(unsigned char *p, uint32_t type, size_t size)
{
	uint64_t n, i;

	switch (type) {
	case PERFRING_RECORD_HEADER_ATTR: {
		size_t asz;

		if (size < 16)
			return;
		pr_pd_swap_attr(p + 8, size - 8);
		asz = pr_get32(p + 12);
		if (asz == 0)
			asz = PERFRING_ATTR_SIZE_VER0;
		if (asz <= size - 8 && (size - 8 - asz) % 8 == 0)
			sw64_range(p, 8 + asz, size);
		return;
	}
	case PERFRING_RECORD_HEADER_EVENT_TYPE:
		SW(64, p, 8, size);
		return;
	case PERFRING_RECORD_HEADER_TRACING_DATA:
		SW(32, p, 8, size);
		return;
	case PERFRING_RECORD_HEADER_BUILD_ID:
		SW(32, p, 8, size);
		return;
	case PERFRING_RECORD_ID_INDEX:
	case PERFRING_RECORD_STAT_CONFIG:
		sw64_range(p, 8, size);
		return;
	case PERFRING_RECORD_AUXTRACE_INFO:
		SW(32, p, 8, size); SW(32, p, 12, size);
		sw64_range(p, 16, size);
		return;
	case PERFRING_RECORD_AUXTRACE:
		SW(64, p, 8, size); SW(64, p, 16, size); SW(64, p, 24, size);
		SW(32, p, 32, size); SW(32, p, 36, size);
		SW(32, p, 40, size); SW(32, p, 44, size);
		return;
	case PERFRING_RECORD_AUXTRACE_ERROR:
		for (i = 8; i < 32; i += 4)
			SW(32, p, i, size);
		SW(64, p, 32, size);
		if (size < 32)
			return;
		if (pr_get32(p + 28) >= 1)
			SW(64, p, 40, size);
		if (pr_get32(p + 28) >= 2) {
			SW(32, p, 112, size); SW(32, p, 116, size);
		}
		return;
	case PERFRING_RECORD_THREAD_MAP:
		SW(64, p, 8, size);
		if (size < 16)
			return;
		n = pr_get64(p + 8);
		if (n > (size - 16) / 24)
			n = (size - 16) / 24;
		for (i = 0; i < n; i++)
			pd_sw64(p + 16 + 24 * i);
		return;
	case PERFRING_RECORD_CPU_MAP:
		swap_cpu_map_data(p, 8, size);
		return;
	case PERFRING_RECORD_STAT:
		SW(64, p, 8, size); SW(32, p, 16, size); SW(32, p, 20, size);
		sw64_range(p, 24, size < 48 ? size : 48);
		return;
	case PERFRING_RECORD_STAT_ROUND:
		SW(64, p, 8, size); SW(64, p, 16, size);
		return;
	case PERFRING_RECORD_EVENT_UPDATE:
		SW(64, p, 8, size); SW(64, p, 16, size);
		if (size < 24)
			return;
		if (pr_get64(p + 8) == 1)		/* SCALE: a double */
			SW(64, p, 24, size);
		else if (pr_get64(p + 8) == 3)		/* CPUS: a cpu map */
			swap_cpu_map_data(p, 24, size);
		return;
	case PERFRING_RECORD_TIME_CONV:
		sw64_range(p, 8, size < 48 ? size : 48);
		return;
	case PERFRING_RECORD_HEADER_FEATURE:
		SW(64, p, 8, size);	/* feat_id; the payload stays as is */
		return;
	case 83:	/* COMPRESSED2: u64 data_size, then zstd bytes */
		SW(64, p, 8, size);
		return;
	default:	/* COMPRESSED, FINISHED_*, unknown: header only */
		return;
	}
}

void pr_pd_swap_body(void *rec, size_t size, int sample_id_all)
{
	unsigned char *p = rec;
	uint32_t type = pr_get32(p);
	size_t body_end;	/* where the trailer starts; 0: no trailer */

	if (type >= PERFRING_RECORD_HEADER_ATTR) {
		swap_tool_record(p, type, size);
		return;
	}
	body_end = swap_kernel_body(p, type, pr_get16(p + 4), size);
	if (sample_id_all &&
	    body_end >= 8 && body_end <= size && (size - body_end) % 8 == 0)
		sw64_range(p, body_end, size);
}

/* A u32 pair that was swapped as one u64: swap the halves back. */
static void fix_pair(unsigned char *p)
{
	uint32_t a = pr_get32(p), b = pr_get32(p + 4);

	pr_put32(p, b);
	pr_put32(p + 4, a);
}

void pr_pd_fix_trailer(void *rec, size_t size, uint64_t st)
{
	unsigned char *p = rec;
	size_t tsz = 0, off;

	tsz += (st & PERFRING_SAMPLE_TID) ? 8 : 0;
	tsz += (st & PERFRING_SAMPLE_TIME) ? 8 : 0;
	tsz += (st & PERFRING_SAMPLE_ID) ? 8 : 0;
	tsz += (st & PERFRING_SAMPLE_STREAM_ID) ? 8 : 0;
	tsz += (st & PERFRING_SAMPLE_CPU) ? 8 : 0;
	tsz += (st & PERFRING_SAMPLE_IDENTIFIER) ? 8 : 0;
	if (tsz == 0 || size < 8 + tsz)
		return;
	off = size - tsz;
	if (st & PERFRING_SAMPLE_TID) {
		fix_pair(p + off);
		off += 8;
	}
	off += (st & PERFRING_SAMPLE_TIME) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_ID) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_STREAM_ID) ? 8 : 0;
	if (st & PERFRING_SAMPLE_CPU)
		fix_pair(p + off);
}

void pr_pd_fix_sample(void *rec, size_t size, const struct perfring_attr *attr)
{
	unsigned char *p = rec;
	uint64_t st = attr->sample_type, rf = attr->read_format;
	size_t off = 8;
	uint64_t n;

#define NEED(k) do { if (off + (k) > size) return; } while (0)
	if (st & PERFRING_SAMPLE_IDENTIFIER)
		off += 8;
	if (st & PERFRING_SAMPLE_IP)
		off += 8;
	if (st & PERFRING_SAMPLE_TID) {
		NEED(8);
		fix_pair(p + off);
		off += 8;
	}
	off += (st & PERFRING_SAMPLE_TIME) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_ADDR) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_ID) ? 8 : 0;
	off += (st & PERFRING_SAMPLE_STREAM_ID) ? 8 : 0;
	if (st & PERFRING_SAMPLE_CPU) {
		NEED(8);
		fix_pair(p + off);
		off += 8;
	}
	off += (st & PERFRING_SAMPLE_PERIOD) ? 8 : 0;
	if (st & PERFRING_SAMPLE_READ) {
		uint64_t per = 1 + !!(rf & PERFRING_FORMAT_ID) +
			       !!(rf & PERFRING_FORMAT_LOST);
		uint64_t hdr = !!(rf & PERFRING_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERFRING_FORMAT_TOTAL_TIME_RUNNING);

		if (rf & PERFRING_FORMAT_GROUP) {
			NEED(8);
			n = pr_get64(p + off);
			if (n > size / 8)
				return;
			off += 8 * (1 + hdr + n * per);
		} else {
			off += 8 * (hdr + per);
		}
	}
	if (st & PERFRING_SAMPLE_CALLCHAIN) {
		NEED(8);
		n = pr_get64(p + off);
		if (n > size / 8)
			return;
		off += 8 + 8 * n;
	}
	if (st & PERFRING_SAMPLE_RAW) {
		uint32_t raw;
		size_t end;

		NEED(8);
		/* Undo the u64 swap of the first word; the u32 size is then
		 * in file order: swap it alone.  The raw bytes stay as the
		 * producer wrote them (perf does the same). */
		pd_sw64(p + off);
		pd_sw32(p + off);
		raw = pr_get32(p + off);
		end = off + 4 + (size_t)raw;
		if (end > size)
			return;
		sw64_range(p, off + 8, PR_ALIGN8(end) <= size ? PR_ALIGN8(end) : size);
	}
#undef NEED
}
