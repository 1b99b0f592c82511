/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the record-type plugins (plugins/comm, mmap2, task, and any
 * other record plugin found on the plugin path), called through the
 * registry as the tools call them, plus the registry's JSON/hex helpers.
 *
 * The plugins are loaded once from FUZZ_PLUGINS_PATH (the build tree's
 * plugin folders, set by fuzz/local.mk; PERFRING_FUZZ_PLUGIN_PATH
 * overrides it).
 *
 * Input: a 24-byte prefix, then one record.
 *   u64 mode         bits 0..7: index into the list of claimed types;
 *                    bit 8: set the record's header type to that type and
 *                    its size to the record's length (else the record's own
 *                    type picks the plugin, as in perfring-dump)
 *   u64 sample_type  of the attr
 *   u64 attr flags   (SAMPLE_ID_ALL matters)
 * Checked: no memory error; decode refuses a too small output buffer;
 * format_text and format_json keep snprintf semantics (the length returned
 * is the length written with a big enough buffer, truncation keeps a
 * NUL-terminated prefix); {format_json} is valid JSON; format_text is one
 * line with no control bytes (names are escaped); a decoded record
 * that re-encodes decodes again to a record that encodes to the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>
#include <perfring/plugin.h>

#include "fuzz.h"
#include "json-check.h"

#ifndef FUZZ_PLUGINS_PATH
#define FUZZ_PLUGINS_PATH ""
#endif

#define MAX_TYPES 256
#define OUT_SIZE 65536

static struct perfring_registry *reg;
static uint32_t types[MAX_TYPES];
static size_t nr_types;

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
		fprintf(stderr, "fuzz-sideband: cannot load the plugins from '%s': %s\n",
			path, perfring_diag_format(&diag, msg, sizeof(msg)));
		exit(1);
	}
	for (size_t i = 0; i < perfring_registry_count(reg); i++) {
		const struct perfring_plugin *p = perfring_registry_plugin_at(reg, i);
		const uint32_t *t;
		size_t n;

		if (perfring_plugin_kind(p) != PERFRING_PLUGIN_KIND_RECORD)
			continue;
		n = perfring_plugin_types(p, &t);
		for (size_t k = 0; k < n && nr_types < MAX_TYPES; k++)
			types[nr_types++] = t[k];
	}
	if (!nr_types) {
		fprintf(stderr, "fuzz-sideband: no record plugin found in '%s'\n", path);
		exit(1);
	}
	return 0;
}

/* snprintf semantics of a formatter, and JSON validity for format_json. */
static void check_format(const struct perfring_plugin *p, const struct perfring_attr *attr,
			 const void *rec, size_t n, int json)
{
	int (*fmt)(const struct perfring_plugin *, const struct perfring_attr *,
		   const void *, size_t, char *, size_t) =
		json ? perfring_plugin_format_json : perfring_plugin_format_text;
	char small[8];
	char *big;
	int need, got, got_small;

	need = fmt(p, attr, rec, n, NULL, 0);
	if (need < 0) {
		FUZZ_ASSERT(need == -EBADMSG || need == -EINVAL);
		return;
	}
	big = malloc((size_t)need + 1);
	FUZZ_ASSERT(big != NULL);
	got = fmt(p, attr, rec, n, big, (size_t)need + 1);
	FUZZ_ASSERT(got == need);
	FUZZ_ASSERT(strlen(big) == (size_t)need);
	memset(small, 'x', sizeof(small));
	got_small = fmt(p, attr, rec, n, small, sizeof(small));
	FUZZ_ASSERT(got_small == need);
	FUZZ_ASSERT(memchr(small, '\0', sizeof(small)) != NULL);
	FUZZ_ASSERT(strncmp(small, big, sizeof(small) - 1) == 0);
	if (json) {
		char *obj = malloc((size_t)need + 3);

		FUZZ_ASSERT(obj != NULL);
		obj[0] = '{';
		memcpy(obj + 1, big, (size_t)need);
		obj[need + 1] = '}';
		obj[need + 2] = '\0';
		if (!json_valid(obj, (size_t)need + 2)) {
			fprintf(stderr, "invalid JSON: %s\n", obj);
			FUZZ_ASSERT(!"format_json gives valid JSON");
		}
		free(obj);
	} else {
		/* One line (plugin.h), no control bytes: names are escaped. */
		for (int i = 0; i < need; i++)
			FUZZ_ASSERT((unsigned char)big[i] >= 0x20 && big[i] != 0x7f);
	}
	free(big);
}

static void check_decode(const struct perfring_plugin *p, const struct perfring_attr *attr,
			 uint32_t type, const void *rec, size_t n)
{
	_Alignas(16) static unsigned char typed[OUT_SIZE], typed2[OUT_SIZE];
	static unsigned char enc[PERFRING_RECORD_MAX_SIZE + 8], enc2[PERFRING_RECORD_MAX_SIZE + 8];
	struct perfring_sample_id sid, sid2;
	struct perfring_diag diag;
	int err, len, len2;

	memset(&diag, 0, sizeof(diag));
	err = perfring_plugin_decode(p, attr, rec, n, typed, OUT_SIZE, &sid, &diag);
	FUZZ_ASSERT(err == 0 || err == -EBADMSG || err == -EINVAL);
	FUZZ_ASSERT(memchr(diag.msg, '\0', sizeof(diag.msg)) != NULL);
	if (err)
		return;
	/* too small an output buffer is refused */
	FUZZ_ASSERT(perfring_plugin_decode(p, attr, rec, n, typed2, 1, NULL, NULL) == -EINVAL);

	len = perfring_plugin_encode(p, attr, type, typed, &sid, enc, sizeof(enc));
	if (len < 0)
		return;	/* -EOPNOTSUPP, or the decoder accepted what the encoder won't write */
	FUZZ_ASSERT(len >= 8 && len % 8 == 0);
	err = perfring_plugin_decode(p, attr, enc, (size_t)len, typed2, OUT_SIZE, &sid2, NULL);
	FUZZ_ASSERT(err == 0);
	len2 = perfring_plugin_encode(p, attr, type, typed2, &sid2, enc2, sizeof(enc2));
	FUZZ_ASSERT(len2 == len);
	FUZZ_ASSERT(memcmp(enc, enc2, (size_t)len) == 0);
	/* the encoder's own output formats */
	check_format(p, attr, enc, (size_t)len, 0);
	check_format(p, attr, enc, (size_t)len, 1);
}

static void check_helpers(const uint8_t *d, size_t n)
{
	char *buf;
	int need;

	if (n > 4096)
		n = 4096;
	need = perfring_format_json_string((const char *)d, n, NULL, 0);
	FUZZ_ASSERT(need >= 2);
	buf = malloc((size_t)need + 1);
	FUZZ_ASSERT(buf != NULL);
	FUZZ_ASSERT(perfring_format_json_string((const char *)d, n, buf, (size_t)need + 1) == need);
	FUZZ_ASSERT(json_valid(buf, (size_t)need));
	free(buf);
	need = perfring_format_raw_hex(d, n, NULL, 0);
	FUZZ_ASSERT(need == (n ? (int)(3 * n - 1) : 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t n = size;
	uint64_t mode = fuzz_take(&p, &n, 8);
	const struct perfring_plugin *pl;
	struct perfring_attr attr;
	uint8_t *rec;
	uint32_t type;

	memset(&attr, 0, sizeof(attr));
	attr.size = PERFRING_ATTR_SIZE_VER8;
	attr.sample_type = fuzz_take(&p, &n, 8);
	attr.flags = fuzz_take(&p, &n, 8);

	rec = fuzz_dup(p, n);
	if ((mode & 0x100) && n >= 8 && n <= 0xffff) {
		struct perfring_event_header h;

		memcpy(&h, rec, sizeof(h));
		h.type = types[(mode & 0xff) % nr_types];
		h.size = (uint16_t)n;
		memcpy(rec, &h, sizeof(h));
	}
	type = n >= 4 ? ((const struct perfring_event_header *)rec)->type : 0;
	pl = perfring_registry_find(reg, type);
	if (pl) {
		check_decode(pl, &attr, type, rec, n);
		check_format(pl, &attr, rec, n, 0);
		check_format(pl, &attr, rec, n, 1);
	}
	check_helpers(p, n);
	free(rec);
	return 0;
}
