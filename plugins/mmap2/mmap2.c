/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmap2 plugin: PERF_RECORD_MMAP2 and the older PERF_RECORD_MMAP.
 *
 * MMAP2 body: pid, tid (u32), addr, len, pgoff (u64), then maj, min (u32),
 * ino, ino_generation (u64) -- or, when misc has MMAP_BUILD_ID, build-id
 * size (u8), 3 reserved bytes and a 20-byte build id -- then prot, flags
 * (u32) and the filename, NUL-terminated and zero-padded to 8.
 * MMAP body: pid, tid, addr, len, pgoff, filename.
 * The early MMAP2 layout (Linux 3.12-3.15, RHEL 7's 3.10) has no prot and
 * flags: the filename is at byte 64 (perfring_mmap2_layout tells them
 * apart).  perf reads its filename at 72 all the same; it is decoded here
 * as the kernel wrote it (prot and flags 0), and printed as "early".
 */
#include <perfring/plugin.h>
#include <perfring/core/core.h>

#include "plugin-util.h"

#define MMAP2_FIXED 72u		/* header .. flags */
#define MMAP2_EARLY_FIXED 64u	/* header .. ino_generation */

static int is_early(const struct perfring_attr *attr, const void *rec, size_t size)
{
	return pl_get32(rec) == PERFRING_RECORD_MMAP2 &&
	       perfring_mmap2_layout(rec, size, pl_trailer_size(attr)) ==
		       PERFRING_MMAP2_LAYOUT_EARLY;
}

/* The layout is the core's (lib/core/records.c). */
static int mmap2_encode(const struct perfring_attr *attr, uint32_t type,
			const void *typed, const struct perfring_sample_id *sid,
			void *buf, size_t len)
{
	return perfring_core_mmap2_encode(attr, type, typed, sid, buf, len);
}

/* The library's decoder (lib/ring/sideband.c) reads and checks the record. */
static int mmap2_decode(const struct perfring_attr *attr, const void *rec,
			size_t size, void *typed_out, size_t out_size,
			struct perfring_sample_id *sid_out,
			struct perfring_diag *diag)
{
	if (out_size < sizeof(struct perfring_mmap2))
		return -EINVAL;
	return perfring_mmap2_decode(attr, rec, size, typed_out, sid_out, diag);
}

static void build_id_hex(const struct perfring_mmap2 *m, char out[2 * PERFRING_BUILD_ID_SIZE + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned i = 0; i < m->build_id_size; i++) {
		out[2 * i] = hex[m->build_id[i] >> 4];
		out[2 * i + 1] = hex[m->build_id[i] & 15];
	}
	out[2 * m->build_id_size] = '\0';
}

/* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4; MAP_SHARED 1 (Linux values). */
static void prot_str(uint32_t prot, uint32_t flags, char out[5])
{
	out[0] = prot & 1 ? 'r' : '-';
	out[1] = prot & 2 ? 'w' : '-';
	out[2] = prot & 4 ? 'x' : '-';
	out[3] = flags & 1 ? 's' : 'p';
	out[4] = '\0';
}

static int mmap2_format_text(const struct perfring_attr *attr, const void *rec,
			     size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_mmap2 m;
	char bid[2 * PERFRING_BUILD_ID_SIZE + 1], pr[5];
	int ret = perfring_mmap2_decode(attr, rec, size, &m, NULL, NULL);

	if (ret < 0)
		return ret;
	/* As perf report -D prints them. */
	pl_printf(&o, "%d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int32_t)m.pid,
		  (int32_t)m.tid, m.addr, m.len, m.pgoff);
	if (pl_get32(rec) == PERFRING_RECORD_MMAP) {
		pl_printf(&o, "]: %c ", m.misc & PERFRING_MISC_MMAP_DATA ? 'r' : 'x');
	} else if (is_early(attr, rec, size)) {
		/* no prot and flags to print: the layout instead */
		pl_printf(&o, " %02x:%02x %" PRIu64 " %" PRIu64 "]: early layout (no prot, flags) ",
			  m.maj, m.min, m.ino, m.ino_generation);
	} else {
		prot_str(m.prot, m.flags, pr);
		if (m.misc & PERFRING_MISC_MMAP_BUILD_ID) {
			build_id_hex(&m, bid);
			pl_printf(&o, " <%s>", bid);
		} else {
			pl_printf(&o, " %02x:%02x %" PRIu64 " %" PRIu64, m.maj, m.min, m.ino,
				  m.ino_generation);
		}
		pl_printf(&o, "]: %s ", pr);
	}
	pl_text_str(&o, m.filename, m.filename_len);
	return pl_done(&o);
}

static int mmap2_format_json(const struct perfring_attr *attr, const void *rec,
			     size_t size, char *buf, size_t len)
{
	struct pl_out o = { buf, len, 0 };
	struct perfring_mmap2 m;
	char bid[2 * PERFRING_BUILD_ID_SIZE + 1];
	int ret = perfring_mmap2_decode(attr, rec, size, &m, NULL, NULL);
	int early = is_early(attr, rec, size);

	if (ret < 0)
		return ret;
	if (early)
		pl_printf(&o, "\"layout\":\"early\",");
	pl_printf(&o, "\"pid\":%d,\"tid\":%d,\"addr\":\"0x%" PRIx64 "\",\"len\":\"0x%" PRIx64
		  "\",\"pgoff\":\"0x%" PRIx64 "\"",
		  (int32_t)m.pid, (int32_t)m.tid, m.addr, m.len, m.pgoff);
	if (pl_get32(rec) == PERFRING_RECORD_MMAP2) {
		if (m.misc & PERFRING_MISC_MMAP_BUILD_ID) {
			build_id_hex(&m, bid);
			pl_printf(&o, ",\"build_id\":\"%s\"", bid);
		} else {
			pl_printf(&o, ",\"maj\":%u,\"min\":%u,\"ino\":%" PRIu64
				  ",\"ino_generation\":%" PRIu64,
				  m.maj, m.min, m.ino, m.ino_generation);
		}
		if (!early)
			pl_printf(&o, ",\"prot\":%u,\"flags\":%u", m.prot, m.flags);
	}
	pl_printf(&o, ",\"filename\":");
	pl_json_str(&o, m.filename, m.filename_len);
	return pl_done(&o);
}

/*
 * The members mmap2_format_json prints: pid, tid, addr, len, pgoff, then
 * for MMAP2 build_id (with misc's MMAP_BUILD_ID) or maj, min, ino,
 * ino_generation, then prot, flags; filename last.  "layout":"early" (an
 * MMAP2 of the early layout) comes first and has no prot and flags.
 */
static int mmap2_parse_json(const struct perfring_attr *attr, uint32_t type, uint16_t misc,
			    const struct perfring_json_in *in,
			    const struct perfring_sample_id *sid, void *buf, size_t len)
{
	struct perfring_mmap2 m = { .misc = misc };
	const void *bid = NULL;
	const char *layout = NULL;
	size_t nbid = 0, nlayout = 0;
	uint64_t v = 0;
	int early, ret;

	if (in->get_s32(in->host, "pid", &m.pid) < 0 || in->get_s32(in->host, "tid", &m.tid) < 0 ||
	    in->get_addr(in->host, "addr", &m.addr) < 0 ||
	    in->get_addr(in->host, "len", &m.len) < 0 ||
	    in->get_addr(in->host, "pgoff", &m.pgoff) < 0)
		return -EINVAL;
	if (in->get_string(in->host, "layout", &layout, &nlayout) < 0)
		return -EINVAL;
	early = layout && nlayout == 5 && !memcmp(layout, "early", 5);
	if (layout && (!early || type != PERFRING_RECORD_MMAP2 ||
		       (misc & PERFRING_MISC_MMAP_BUILD_ID)))
		return in->fail(in->host, "layout", "only an MMAP2 without a build id can be \"early\"");
	if (type == PERFRING_RECORD_MMAP2 && (misc & PERFRING_MISC_MMAP_BUILD_ID)) {
		if (in->get_hex(in->host, "build_id", &bid, &nbid) < 0)
			return -EINVAL;
		if (nbid > PERFRING_BUILD_ID_SIZE)
			return in->fail(in->host, "build_id", "longer than 20 bytes");
		if (nbid)
			memcpy(m.build_id, bid, nbid);
		m.build_id_size = (uint8_t)nbid;
	} else if (type == PERFRING_RECORD_MMAP2) {
		if (in->get_uint(in->host, "maj", UINT32_MAX, &v) < 0)
			return -EINVAL;
		m.maj = (uint32_t)v;
		v = 0;
		if (in->get_uint(in->host, "min", UINT32_MAX, &v) < 0)
			return -EINVAL;
		m.min = (uint32_t)v;
		if (in->get_uint(in->host, "ino", UINT64_MAX, &m.ino) < 0 ||
		    in->get_uint(in->host, "ino_generation", UINT64_MAX, &m.ino_generation) < 0)
			return -EINVAL;
	}
	if (type == PERFRING_RECORD_MMAP2 && !early) {
		v = 0;
		if (in->get_uint(in->host, "prot", UINT32_MAX, &v) < 0)
			return -EINVAL;
		m.prot = (uint32_t)v;
		v = 0;
		if (in->get_uint(in->host, "flags", UINT32_MAX, &v) < 0)
			return -EINVAL;
		m.flags = (uint32_t)v;
	}
	if (in->get_string(in->host, "filename", &m.filename, &m.filename_len) < 0)
		return -EINVAL;
	if (m.filename_len && memchr(m.filename, 0, m.filename_len))
		return in->fail(in->host, "filename", "holds a NUL byte");
	ret = mmap2_encode(attr, type, &m, sid, buf, len);
	if (ret < 0 || !early)
		return ret;
	/* the early layout: the filename and trailer 8 bytes down, over prot and flags */
	memmove((char *)buf + MMAP2_EARLY_FIXED, (char *)buf + MMAP2_FIXED, (size_t)ret - MMAP2_FIXED);
	pl_put_header(buf, type, misc, (size_t)ret - 8);
	return ret - 8;
}

static const uint32_t mmap2_types[] = { PERFRING_RECORD_MMAP, PERFRING_RECORD_MMAP2 };

static const struct perfring_record_ops mmap2_ops = {
	.struct_size = sizeof(mmap2_ops),
	.encode = mmap2_encode,
	.decode = mmap2_decode,
	.format_text = mmap2_format_text,
	.format_json = mmap2_format_json,
	.parse_json = mmap2_parse_json,
};

PERFRING_PLUGIN_DEFINE(
	.name = "mmap2",
	.version = PERFRING_VERSION_STRING,
	.description = "PERF_RECORD_MMAP2 and PERF_RECORD_MMAP (executable mappings)",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = mmap2_types,
	.n_types = PERFRING_PLUGIN_N(mmap2_types),
	.record_ops = &mmap2_ops);
