/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf wire formats: record header, perf_event_attr, the sample_id_all
 * trailer, SAMPLE and LOST bodies, and their codec.
 *
 * The structs and constants themselves are in <perfring/core/wire.h>, the
 * freestanding core's header (also what a kernel includes); this header
 * adds the hosted codec.  The encoders below are the core's
 * (lib/core/records.c) with the library's conventions.
 */
#ifndef PERFRING_RECORDS_H
#define PERFRING_RECORDS_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/records.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#include <perfring/core/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The name `perf report -D` prints for a record type ("MMAP", "SAMPLE",
 * "ATTR", "FINISHED_ROUND", "FEATURE", ...), or NULL if the type is not one
 * that perf 6.1 names (PERFRING_RECORD_PAD included: perf's index 0,
 * "TOTAL", is only a statistics row).  PERFRING_RECORD_COMPRESSED2 is
 * named as newer perf names it, "COMPRESSED2".
 */
PERFRING_API const char *perfring_record_type_name(uint32_t type);
/* Inverse of perfring_record_type_name; returns -ENOENT for unknown names. */
PERFRING_API int perfring_record_type_from_name(const char *name, uint32_t *type);

/* Name of one sample_type / read_format bit without prefix ("IP"), or NULL. */
PERFRING_API const char *perfring_sample_bit_name(unsigned bit);
PERFRING_API const char *perfring_read_format_bit_name(unsigned bit);
PERFRING_DEPRECATED("perfring_read_format_bit_name")
PERFRING_API const char *perfring_format_bit_name(unsigned bit);

/* Size in bytes of the trailer for this sample_type (0..48). */
PERFRING_API size_t perfring_sample_id_size(uint64_t sample_type);

/*
 * Write the trailer for sample_type into buf (len bytes available).
 * Returns the number of bytes written, or -ENOSPC.  Async-signal-safe.
 */
PERFRING_API int perfring_sample_id_encode(uint64_t sample_type,
					   const struct perfring_sample_id *sid,
					   void *buf, size_t len);

/*
 * Read the trailer at the end of a whole record (header included) of
 * rec_size bytes.  Fields not selected by sample_type are set to 0.
 * Returns 0, or -EBADMSG if the record is too short to hold header + trailer.
 */
PERFRING_API int perfring_sample_id_decode(uint64_t sample_type,
					   const void *rec, size_t rec_size,
					   struct perfring_sample_id *sid);

/*
 * Decode a whole SAMPLE record (header included) of rec_size bytes laid out
 * by attr (sample_type, read_format, sample_regs_user/intr,
 * branch_sample_type).  Every count is bounds-checked against rec_size.
 * Returns 0; -EBADMSG if a field runs past the record, bytes are left over,
 * or the header size is not rec_size (diag, if not NULL, says which field
 * and its offset within the record, in diag->offset); -EINVAL if rec is not
 * a SAMPLE or attr cannot describe a layout (sample_type bits at or above
 * PERFRING_SAMPLE_MAX, both WEIGHT bits, unknown read_format bits with READ).
 * RAW sizes whose 4 + raw_size is not a multiple of 8 are accepted (perf
 * accepts them); the encoder refuses them.  out may be NULL to only check
 * the record; it is written only on success.
 */
PERFRING_API int perfring_sample_decode(const struct perfring_attr *attr,
					const void *rec, size_t rec_size,
					struct perfring_sample *s,
					struct perfring_diag *diag);

/*
 * Encode a SAMPLE with header misc into buf (len bytes).  Every field that
 * perfring_sample_decode decodes is encoded.  Returns the record size (a
 * multiple of 8), -EMSGSIZE if it would exceed PERFRING_RECORD_MAX_SIZE,
 * -ENOSPC if len is too small, -EINVAL for a malformed field (RAW whose
 * 4 + raw_size is not a multiple of 8, both WEIGHT bits, ...).
 * Async-signal-safe.
 */
PERFRING_API int perfring_sample_encode(const struct perfring_attr *attr,
					const struct perfring_sample *s,
					uint16_t misc, void *buf, size_t len);

/*
 * Encode PERF_RECORD_LOST (+ trailer when attr has sample_id_all; sid NULL
 * writes zeros), misc 0.  Returns the size, -ENOSPC or -EINVAL (l NULL).
 */
PERFRING_API int perfring_lost_encode(const struct perfring_attr *attr,
				      const struct perfring_lost *l,
				      const struct perfring_sample_id *sid,
				      void *buf, size_t len);
/*
 * Decode PERF_RECORD_LOST; l and sid may be NULL.  Returns 0, -EBADMSG (too
 * short for body + trailer, or header size != rec_size) or -EINVAL (not LOST).
 */
PERFRING_API int perfring_lost_decode(const struct perfring_attr *attr,
				      const void *rec, size_t rec_size,
				      struct perfring_lost *l,
				      struct perfring_sample_id *sid);

/* ---- generic helpers ------------------------------------------------------ */
/* Trailer size a record of this type carries under attr (0 for SAMPLE). */
PERFRING_API size_t perfring_record_trailer_size(const struct perfring_attr *attr,
						 uint32_t type);

/*
 * Minimum size of a well-formed record of this type (header and fixed body,
 * without trailer; strings and arrays count as empty, so e.g. MMAP2 is 72),
 * or 8 for types without a known fixed body.
 */
PERFRING_API size_t perfring_record_min_size(uint32_t type);

/*
 * Helper for a wire struct: is a record of `size` bytes long enough to hold
 * `field` of struct type `T`?  (libperf's event_contains.)
 */
#define perfring_record_contains(size, T, field)				\
	((size_t)(size) >= offsetof(T, field) + sizeof(((T *)0)->field))

/* ---- sample id and validation (lib/ring/validate.c) ------------------------------ */
struct perfring_registry;

/*
 * perf's id positions for a sample_type (evsel id_pos / is_pos): *id_pos is
 * the u64 word of the id in a SAMPLE body (IDENTIFIER: 0), *is_pos the
 * word counted back from the end of a sample_id_all trailer (IDENTIFIER:
 * 1); both -1 when the sample_type has neither ID nor IDENTIFIER.
 * Either pointer may be NULL.
 */
PERFRING_API void perfring_sample_id_pos(uint64_t sample_type, int *id_pos, int *is_pos);

/*
 * The sample id of a record, by perf's rule: a SAMPLE's from the start of
 * its body (ID/IDENTIFIER position), another kernel record's from the end of
 * its sample_id_all trailer.  attr: any event of the file (perf requires the
 * positions to agree).  Returns 1 and *id; 0 when the record carries none
 * (no attr, a perf-tool record, no ID/IDENTIFIER, no sample_id_all);
 * -EBADMSG when it is too short to hold it.
 */
PERFRING_API int perfring_record_id(const struct perfring_attr *attr, const void *rec,
				    size_t size, uint64_t *id);

/*
 * The fields a SAMPLE shares with the sample_id_all trailer, read from
 * the SAMPLE's head (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU,
 * in that order) without decoding the rest: for a filter that looks at
 * each sample's task, time and CPU.  Fields attr does not sample are 0.
 * Returns 0, -EINVAL (not a SAMPLE, no attr) or -EBADMSG (too short).
 */
PERFRING_API int perfring_sample_head_decode(const struct perfring_attr *attr, const void *rec,
					     size_t size, struct perfring_sample_id *out);

/*
 * A record as it is when its event also samples PERF_SAMPLE_IDENTIFIER
 * (which a merge needs when it adds an event whose sample_type differs):
 * a SAMPLE gets the id as its first u64, any other kernel record with a
 * sample_id_all trailer gets it as the trailer's last.  The id is the
 * record's own where it has one (perfring_record_id), else `id`.  Writes
 * the new record (size + 8 bytes) into buf (at least size + 8 bytes) and
 * returns its size; 0 when the record has no place for the id (no
 * trailer, or it would pass 65535 bytes); -EINVAL for bad arguments.
 * attr is the record's event as it was, without IDENTIFIER.
 */
PERFRING_API int perfring_record_add_identifier(const struct perfring_attr *attr, uint64_t id,
						const void *rec, size_t size, void *buf);

/*
 * One validator for a whole record: header (size >= 8, size == len, type's
 * minimum body), the body size of each known type (exact where fixed),
 * terminated strings (COMM, MMAP, MMAP2, KSYMBOL, CGROUP), the
 * sample_id_all trailer against attr, SAMPLE fields incl. callchain nr and
 * branch-stack nr within the record, LOST; with reg, a plugin-claimed type
 * is decoded by its plugin.  attr may be NULL (then only what needs no
 * attr).  Returns 0, or -EBADMSG with diag: diag->offset = `offset` (the
 * caller's offset of the record), diag->msg says what and where inside
 * ("SAMPLE: callchain nr 9000 ...").  Records with type >= 64 (perf's user
 * records) are checked for framing and the known fixed sizes only; their
 * size need not be a multiple of 8 for HEADER_FEATURE, HEADER_BUILD_ID,
 * COMPRESSED and HEADER_TRACING_DATA (perf writes those with any size).
 * Types in the kernel range this library does not know are refused.
 * diag->file is left empty: the caller names the file.
 */
PERFRING_API int perfring_record_validate(const struct perfring_registry *reg,
					  const struct perfring_attr *attr,
					  const void *rec, size_t len, uint64_t offset,
					  struct perfring_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RECORDS_H */
