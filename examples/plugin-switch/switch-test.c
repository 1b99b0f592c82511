/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A host program for the example plugin: load the plugins the usual way
 * (PERFRING_PLUGIN_PATH, then the installed directory), find the plugin
 * for PERF_RECORD_SWITCH, and decode a SWITCH record built byte by byte as
 * the kernel writes it (header + TID/TIME/CPU trailer), then encode it back.
 * Prints what it decoded; exits 1 on any mismatch.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <perfring/plugin.h>

#include "switch.h"

#define FAIL(...) do { fprintf(stderr, "switch-test: " __VA_ARGS__); \
		       fputc('\n', stderr); return 1; } while (0)

int main(void)
{
	struct perfring_attr attr = {
		.size = PERFRING_ATTR_SIZE_VER7,
		.sample_type = PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
			       PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU,
		.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_CONTEXT_SWITCH,
	};
	/* SWITCH, misc OUT|PREEMPT, 32 bytes; pid 7, tid 8, time 1000, cpu 1. */
	static const unsigned char kernel[32] = {
		0x0e, 0, 0, 0, 0x00, 0x60, 0x20, 0x00,
		7, 0, 0, 0, 8, 0, 0, 0,
		0xe8, 0x03, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0, 0, 0, 0,
	};
	struct perfring_registry *reg;
	const struct perfring_plugin *p;
	struct perfring_diag diag = { 0 };
	struct perfring_sample_id sid;
	struct switch_example s;
	unsigned char again[64];
	char text[128], json[256], msg[1024];
	unsigned maj, min;
	int n;

	if (perfring_registry_new(0, &reg) < 0)
		FAIL("perfring_registry_new failed");
	if (perfring_registry_load_default(reg, &diag) < 0)
		FAIL("%s", perfring_diag_format(&diag, msg, sizeof(msg)));
	p = perfring_registry_find(reg, PERFRING_RECORD_SWITCH);
	if (!p)
		FAIL("no plugin claims SWITCH");
	perfring_plugin_abi(p, &maj, &min);
	printf("plugin %s (%s) ABI %u.%u from %s\n", perfring_plugin_name(p),
	       perfring_plugin_kind_name(perfring_plugin_kind(p)), maj, min,
	       perfring_plugin_file(p));
	if (perfring_plugin_decode(p, &attr, kernel, sizeof(kernel), &s, sizeof(s),
				   &sid, &diag) < 0)
		FAIL("decode: %s", perfring_diag_format(&diag, msg, sizeof(msg)));
	if (perfring_plugin_format_text(p, &attr, kernel, sizeof(kernel), text,
					sizeof(text)) < 0 ||
	    perfring_plugin_format_json(p, &attr, kernel, sizeof(kernel), json,
					sizeof(json)) < 0)
		FAIL("format failed");
	printf("SWITCH %s pid %" PRIu32 " tid %" PRIu32 " time %" PRIu64 " cpu %" PRIu32 "\n",
	       text, sid.pid, sid.tid, sid.time, sid.cpu);
	printf("{%s}\n", json);
	if (!s.out || !s.preempt || sid.pid != 7 || sid.tid != 8 || sid.time != 1000 ||
	    sid.cpu != 1)
		FAIL("decoded the wrong values");
	n = perfring_plugin_encode(p, &attr, PERFRING_RECORD_SWITCH, &s, &sid, again,
				   sizeof(again));
	if (n != (int)sizeof(kernel) || memcmp(again, kernel, sizeof(kernel)) != 0)
		FAIL("re-encoding gave different bytes (%d)", n);
	/* A record of the wrong size is refused with a diagnostic. */
	if (perfring_plugin_decode(p, &attr, kernel, 24, &s, sizeof(s), NULL, &diag) >= 0)
		FAIL("a short record was accepted");
	printf("short record: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
	perfring_registry_free(reg);
	return 0;
}
