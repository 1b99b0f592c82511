/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Side-band records: COMM, MMAP / MMAP2, FORK / EXIT.
 *
 * Two views of each record:
 *  - the wire layout (struct perfring_*_event), a plain byte format like
 *    libperf's <perf/event.h>, header included;
 *  - the typed struct (struct perfring_comm, perfring_mmap2, perfring_task)
 *    that perfring_*_decode below fill and the core's encoders read; the
 *    comm, mmap2 and task plugins give the same through the plugin
 *    registry (<perfring/registry.h>: perfring_registry_find() then
 *    perfring_plugin_encode()/_decode()), with their text and JSON.
 *
 * The structs are in <perfring/core/wire.h> (the freestanding core's
 * header); their encoders are the core's (lib/core/records.c).
 *
 * Every record also carries the sample_id_all trailer when its attr has
 * PERFRING_ATTR_SAMPLE_ID_ALL; the header size includes it.
 */
#ifndef PERFRING_SIDEBAND_H
#define PERFRING_SIDEBAND_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/sideband.h>"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/core/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The two layouts of an MMAP2 record.  CURRENT (Linux 3.16 and later):
 * maj..ino_generation, then prot and flags (u32), the filename at byte 72.
 * EARLY (Linux 3.12 to 3.15, and 3.10 enterprise kernels with MMAP2
 * backported, RHEL 7): no prot and flags, the filename at byte 64.
 */
enum perfring_mmap2_layout {
	PERFRING_MMAP2_LAYOUT_CURRENT = 0,
	PERFRING_MMAP2_LAYOUT_EARLY = 1,
};

/*
 * Which layout an MMAP2 record of `size` bytes, `trailer` of them its
 * sample_id_all trailer (perfring_record_trailer_size), has: EARLY when
 * the filename at byte 64, NUL-terminated and padded to 8, ends exactly
 * where the trailer starts, and either the filename at byte 72 does not,
 * or the u32 at byte 64 (the current layout's prot, at most 0xff: PROT_*)
 * is above 0xff (the first bytes of a filename).  CURRENT otherwise, also
 * for records that are not MMAP2 or have MMAP_BUILD_ID (5.12 and later).
 */
PERFRING_API enum perfring_mmap2_layout perfring_mmap2_layout(const void *rec, size_t size,
							      size_t trailer);

/*
 * Decoders, for everyone who reads these records (the plugins' decode
 * and formatters among them); the checks of each are those of the
 * validator: header size = size, the fixed body, a NUL-terminated string
 * before the sample_id_all trailer, an MMAP2 build id of at most 20
 * bytes, nothing between a FORK/EXIT body and its trailer.  out, sid and
 * diag may be NULL; diag's offset is inside the record.  Returns 0,
 * -EBADMSG (damaged) or -EINVAL (another type, or rec NULL).
 *
 * COMM: out->comm is cut to PERFRING_COMM_LEN - 1 bytes as the kernel's
 * are; *name and *name_len (may be NULL) give the whole name the record
 * holds.  MMAP2 in either layout (prot and flags 0 in the early one), and
 * MMAP (pid..pgoff and the filename): out->filename points into rec.
 */
PERFRING_API int perfring_comm_decode(const struct perfring_attr *attr, const void *rec,
				      size_t size, struct perfring_comm *out,
				      const char **name, size_t *name_len,
				      struct perfring_sample_id *sid, struct perfring_diag *diag);
PERFRING_API int perfring_mmap2_decode(const struct perfring_attr *attr, const void *rec,
				       size_t size, struct perfring_mmap2 *out,
				       struct perfring_sample_id *sid, struct perfring_diag *diag);
PERFRING_API int perfring_task_decode(const struct perfring_attr *attr, const void *rec,
				      size_t size, struct perfring_task *out,
				      struct perfring_sample_id *sid, struct perfring_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_SIDEBAND_H */
