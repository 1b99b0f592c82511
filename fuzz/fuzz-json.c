/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the JSON-lines reader of perfring-replay --json-in
 * (tools/json-decode.c: jc_decode_line, and the strict JSON parser of
 * tools/json.c), and the encoder of perfring-dump --json
 * (tools/json-encode.c) on what it decodes.
 *
 * Input: JSON lines, as perfring-dump --json prints them (no prefix).  The
 * input is split at '\n' (a trailing "\r" or blanks stay in the line, as
 * perfring-replay passes them) and every line goes through one decoder, in
 * order, as perfring-replay does: ATTR lines add events, record lines
 * decode into record bytes with the event they name.  Side-band records are
 * encoded by the build tree's plugins (FUZZ_PLUGINS_PATH, or
 * PERFRING_FUZZ_PLUGIN_PATH), as the tools load them.
 *
 * Checked, besides no crash, no leak and no sanitizer report:
 * - a line the decoder refuses has an error message; one it takes has none;
 * - a decoded record has a header whose size is its length, 8 <= size <=
 *   65535 (a "raw"/"body" record is its hex, up to the u16 size field);
 *   a record decoded from its fields (SAMPLE, LOST, COMM, MMAP, MMAP2,
 *   FORK, EXIT) is 8-aligned and at most PERFRING_RECORD_MAX_SIZE;
 * - stability: encoding a decoded record with jc_encode_record (with the
 *   event jc_record_event picks, through jc_field_attr, as
 *   perfring-replay --json-out and perfring-dump do) and decoding that
 *   line gives the same bytes;
 * - the same for each ATTR line: jc_encode_attr of the decoded event
 *   decodes (in a fresh decoder) to an event that encodes to the same line.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <perfring/perfring.h>

#include "fuzz.h"
#include "json-codec.h"

#ifndef FUZZ_PLUGINS_PATH
#define FUZZ_PLUGINS_PATH ""
#endif

#define REC_BUF 65536u

static struct perfring_registry *reg;
/*
 * Made once, used by every input: two 64 KiB record buffers and two
 * strings per input, and three arrays per record, were a tenth of an
 * execution.  (The buffers stay on the heap, so a write past them is
 * still caught.)
 */
static unsigned char *rec_buf, *rec_buf2;
static GString *out, *line2;
static const struct perfring_attr **attrs;
static const uint64_t **ids;
static size_t *nr_ids, cap_events;
static void *line_buf;
static size_t line_cap;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("PERFRING_FUZZ_PLUGIN_PATH");
	struct perfring_diag diag;
	char msg[1024];
	int err;

	(void)argc;
	(void)argv;
	if (!path)
		path = FUZZ_PLUGINS_PATH;
	memset(&diag, 0, sizeof(diag));
	err = perfring_registry_new(0, &reg);
	if (!err)
		err = perfring_registry_load_path(reg, path, &diag);
	if (err < 0) {
		fprintf(stderr, "fuzz-json: cannot load the plugins from '%s': %s\n",
			path, perfring_diag_format(&diag, msg, sizeof(msg)));
		exit(1);
	}
	rec_buf = malloc(REC_BUF);
	rec_buf2 = malloc(REC_BUF);
	FUZZ_ASSERT(rec_buf && rec_buf2);
	out = g_string_new(NULL);
	line2 = g_string_new(NULL);
	return 0;
}

/* The record line carries its bytes as hex ("raw" or "body")? */
static bool hex_form(const char *line, size_t len)
{
	char *err = NULL;
	struct jc_value *v = jc_parse(line, len, &err);
	bool hex = false;

	FUZZ_ASSERT(v != NULL);	/* the decoder took it */
	FUZZ_ASSERT(v->kind == JC_OBJECT);
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->keys[i], "raw") || !strcmp(v->keys[i], "body"))
			hex = true;
	jc_value_free(v);
	return hex;
}

/* The event a record belongs to, as perfring-replay --json-out picks it. */
static const struct perfring_attr *record_attr(const struct jc_decoder *d,
					       const void *rec, size_t size)
{
	size_t n = jc_decoder_nr_events(d), idx;

	if (!n)
		return NULL;
	if (n > cap_events) {
		cap_events = 2 * n;
		attrs = g_renew(const struct perfring_attr *, attrs, cap_events);
		ids = g_renew(const uint64_t *, ids, cap_events);
		nr_ids = g_renew(size_t, nr_ids, cap_events);
	}
	for (size_t i = 0; i < n; i++) {
		const struct jc_event *e = jc_decoder_event(d, i);

		attrs[i] = &e->attr;
		ids[i] = e->ids;
		nr_ids[i] = e->nr_ids;
	}
	idx = jc_record_event(attrs, ids, nr_ids, n, rec, size);
	FUZZ_ASSERT(idx < n);
	/* as the tools do: the fields only where they name that event back */
	return jc_field_attr(attrs, ids, nr_ids, n, attrs[idx], rec, size);
}

static void check_record(struct jc_decoder *d, const char *line, size_t len,
			 const unsigned char *rec, size_t size, unsigned char *buf2)
{
	const struct perfring_event_header *h = (const void *)rec;
	const struct perfring_attr *a;
	size_t size2 = 0;
	char *err = NULL;
	int kind;

	FUZZ_ASSERT(size >= 8 && size <= UINT16_MAX);
	FUZZ_ASSERT(h->size == size);
	/* only a hex record may be unaligned or oversized (parsed again only then) */
	if (size % 8 || size > PERFRING_RECORD_MAX_SIZE)
		FUZZ_ASSERT(hex_form(line, len));

	a = record_attr(d, rec, size);
	g_string_truncate(out, 0);
	jc_encode_record(out, reg, a, rec, size, false, 0);
	kind = jc_decode_line(d, out->str, out->len, buf2, &size2, &err);
	if (kind != JC_LINE_RECORD || size2 != size || memcmp(rec, buf2, size)) {
		fprintf(stderr, "line:       %.*s\nre-encoded: %s\nkind %d, %s; size %zu -> %zu\n",
			(int)len, line, out->str, kind, err ? err : "no error", size, size2);
		FUZZ_ASSERT(!"a decoded record encodes and decodes to the same bytes");
	}
}

static void check_attr(const struct jc_event *e)
{
	struct jc_decoder *d2 = jc_decoder_new(reg);
	GString *l1 = out, *l2 = line2;
	unsigned char dummy[8];
	size_t size = 0;
	char *err = NULL;
	int kind;

	g_string_truncate(l1, 0);
	g_string_truncate(l2, 0);
	jc_encode_attr(l1, &e->attr, e->ids, e->nr_ids, e->name);
	kind = jc_decode_line(d2, l1->str, l1->len, dummy, &size, &err);
	if (kind == JC_LINE_ATTR) {
		const struct jc_event *e2 = jc_decoder_event(d2, 0);

		FUZZ_ASSERT(jc_decoder_nr_events(d2) == 1);
		jc_encode_attr(l2, &e2->attr, e2->ids, e2->nr_ids, e2->name);
	}
	if (kind != JC_LINE_ATTR || strcmp(l1->str, l2->str)) {
		fprintf(stderr, "re-encoded: %s\nagain:      %s\nkind %d, %s\n", l1->str,
			l2->str, kind, err ? err : "no error");
		FUZZ_ASSERT(!"a decoded ATTR line encodes and decodes to the same event");
	}
	jc_decoder_free(d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jc_decoder *d = jc_decoder_new(reg);
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/*
		 * A copy of the line, exact for ASan (a read past its end, or of
		 * it once the next line is read, is reported), in a kept buffer:
		 * a malloc per line was a twentieth of an execution.
		 */
		char *line = memcpy(fuzz_kept(&line_buf, &line_cap, len), p, len);
		size_t rec_size = 0, before = jc_decoder_nr_events(d);
		char *err = NULL;
		int kind;

		kind = jc_decode_line(d, line, len, rec_buf, &rec_size, &err);
		switch (kind) {
		case -1:
			FUZZ_ASSERT(err != NULL);
			FUZZ_ASSERT(jc_decoder_nr_events(d) == before);
			g_free(err);
			break;
		case JC_LINE_BLANK:
			FUZZ_ASSERT(err == NULL);
			break;
		case JC_LINE_ATTR:
			FUZZ_ASSERT(err == NULL);
			FUZZ_ASSERT(jc_decoder_nr_events(d) == before + 1);
			check_attr(jc_decoder_event(d, before));
			break;
		case JC_LINE_RECORD:
			FUZZ_ASSERT(err == NULL);
			check_record(d, line, len, rec_buf, rec_size, rec_buf2);
			break;
		default:
			FUZZ_ASSERT(!"jc_decode_line returns a line kind or -1");
		}
		PR_POISON(line_buf, line_cap);
		p += len + (nl ? 1 : 0);
	}
	jc_decoder_free(d);
	return 0;
}
