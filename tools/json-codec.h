/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON lines for the perfring tools: one object per line, shared by
 * `perfring-dump --json` (encoder) and `perfring-replay --json-in` (decoder),
 * so that dump -> replay -> dump gives the same records byte for byte.
 *
 * Lines:
 *   {"type":"ATTR","attr":{...},"ids":[...],"name":"..."}   one per event,
 *       before the records.  attr keys are the kernel's perf_event_attr
 *       field names; zero-valued optional keys are left out; flags are
 *       booleans; sample_type / read_format are arrays of bit names
 *       without prefix (integers accepted for bits without a name).
 *   {"type":"COMM","misc":8192,"pid":..,"tid":..,"comm":"..","exec":true,
 *    "sample_id":{...}}   one per record.  "type" is perf report -D's name
 *       (or the number when perf has none); body fields use the kernel's
 *       names; the sample_id_all trailer is under "sample_id".
 *       SAMPLE and LOST are decoded field by field here; every type a
 *       plugin claims (COMM, MMAP, MMAP2, FORK, EXIT and third-party ones)
 *       has its members written by the plugin's format_json and read back
 *       by its parse_json (plugin ABI 1.1): the plugin owns its JSON in
 *       both directions.  A record whose bytes the fields would not
 *       reproduce exactly (malformed, non-zero padding, a COMM name over 15
 *       bytes..., or a plugin built for ABI 1.0, which has no parse_json),
 *       and a record no plugin claims, is printed with its body (everything
 *       after the 8-byte header, trailer included) as hex: "body" for the
 *       seven types above, "raw" for the others; a plugin's members then
 *       stand beside it for reading only (the bytes count on input).
 *   "offset" may appear on a record for information; it is ignored on input.
 *   On input, missing fields are 0; a field the event's sample_type (or
 *   read_format, trailer) does not select, or any unknown member, is an
 *   error; COMM's "exec" sets or clears misc's COMM_EXEC bit.  The event of
 *   a record is picked by its id ("identifier", else "id"; for other
 *   records those of "sample_id"), the first ATTR line's when it matches
 *   none.
 *
 * Numbers: addresses (ip, addr, len, pgoff, callchain entries, branch
 * from/to, register values, phys_addr) are "0x..." strings; every other
 * integer is a JSON integer, read as an exact 64-bit value.  pid/tid are
 * printed signed (-1), and accepted from -2^31 to 2^32-1.  Byte blobs (raw,
 * stack, aux, build_id) are lowercase hex strings without 0x.  Strings are
 * escaped with perfring_format_json_string(); on input \u0080..\u00ff
 * stand for the single bytes 0x80..0xff (how that function prints bytes
 * that are not UTF-8) and other escapes for their UTF-8 encoding.
 */
#ifndef PERFRING_JSON_CODEC_H
#define PERFRING_JSON_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <perfring/perfring.h>

#include "json.h"

/* ---- encoder ------------------------------------------------------------- */

/* Append the ATTR line of one event (no newline).  name may be NULL. */
void jc_encode_attr(GString *out, const struct perfring_attr *attr,
		    const uint64_t *ids, size_t nr_ids, const char *name);

/*
 * Append the line of one record (no newline).  attr: the event the record
 * belongs to (its sample_type, read_format... give the layout).  NULL
 * means no event is known yet: every record is then printed as hex
 * ("body"), because the decoder reads a record's fields only after an
 * ATTR line and the line must decode back to the same bytes.  reg: plugins
 * for side-band records (may be NULL: those are then printed as hex).
 * has_offset/offset: an informative "offset" member.
 */
void jc_encode_record(GString *out, const struct perfring_registry *reg,
		      const struct perfring_attr *attr, const void *rec, size_t size,
		      bool has_offset, uint64_t offset);

/*
 * The event of several (attrs[0..n-1], ids) that a record belongs to, by
 * perf's rules (IDENTIFIER first in a SAMPLE, ID at its position, the
 * trailer's ID/IDENTIFIER counted from the end); 0 when the id matches
 * none or there is only one.
 */
size_t jc_record_event(const struct perfring_attr *const *attrs,
		       const uint64_t *const *ids, const size_t *nr_ids, size_t n,
		       const void *rec, size_t size);

/*
 * The attr to give jc_encode_record for a record of event attr, in a
 * stream whose ATTR lines are attrs[0..n-1] in order (NULL entries print
 * no line and are skipped).  A record written as its fields names its
 * event only through the id those fields carry: the decoder takes the
 * first event listing that id, and the first event when the fields carry
 * none or the stream has one event.  So the fields are safe only when that
 * choice is attr (or an event of the same attr), and this returns attr;
 * otherwise it returns NULL and the record is kept as hex, so that a line
 * decodes back to the record's bytes.
 */
const struct perfring_attr *jc_field_attr(const struct perfring_attr *const *attrs,
					  const uint64_t *const *ids, const size_t *nr_ids,
					  size_t n, const struct perfring_attr *attr,
					  const void *rec, size_t size);

/* ---- decoder ------------------------------------------------------------- */

struct jc_event {
	struct perfring_attr attr;	/* attr.size as given (0 = VER0) */
	uint64_t *ids;
	size_t nr_ids;
	char *name;			/* NULL if none */
};

struct jc_decoder;

/* reg: plugins used to encode side-band records (borrowed). */
struct jc_decoder *jc_decoder_new(const struct perfring_registry *reg);
void jc_decoder_free(struct jc_decoder *d);

enum jc_line {
	JC_LINE_BLANK = 0,	/* empty or white space only */
	JC_LINE_ATTR = 1,	/* an event was added (jc_decoder_event) */
	JC_LINE_RECORD = 2,	/* a record is in buf */
};

/*
 * Decode one line (without its newline).  A record is encoded into buf
 * (65536 bytes), its size in *rec_size.  Returns the line kind, or -1 with
 * *err set to a message naming the field at fault
 * (field "pgoff": expected a "0x..." string); free it with g_free.
 */
int jc_decode_line(struct jc_decoder *d, const char *line, size_t len,
		   unsigned char *buf, size_t *rec_size, char **err);

size_t jc_decoder_nr_events(const struct jc_decoder *d);
const struct jc_event *jc_decoder_event(const struct jc_decoder *d, size_t idx);
/* Number of records decoded so far. */
uint64_t jc_decoder_nr_records(const struct jc_decoder *d);

#endif
