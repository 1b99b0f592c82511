/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the perf-map reader (perfring_perfmap_open_mem,
 * perfring_perfmap_next) and the symbols-only ELF it feeds
 * (perfring_jit_elf_add).
 *
 * Input: a perf map file as is.
 * Checked: no memory error; every entry has a non-empty name without a
 * newline or NUL that is a substring of its line in the input; line numbers
 * increase and stay within the input's line count; START + SIZE does not
 * overflow; the first bad line, if any, is named in the diagnostic with its
 * number; entries and bad lines add up to at most the lines read; an ELF
 * of the entries (first 512 with a size) takes them all, at increasing
 * offsets that do not overlap (or refuses more than 2^46 bytes in all).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfring_perfmap *m;
	struct perfring_perfmap_entry e = { .sz = sizeof(e) };
	struct perfring_jit_elf *elf;
	struct perfring_diag diag;
	uint64_t nl = 0, last = 0, lines, entries, bad, prev_end = 0;
	int err;

	perfring_set_log(fuzz_quiet_log, NULL);
	for (size_t i = 0; i < size; i++)
		nl += data[i] == '\n';
	memset(&diag, 0, sizeof(diag));
	FUZZ_ASSERT(perfring_perfmap_open_mem(data, size, "perf-1.map", &diag, &m) == 0);
	FUZZ_ASSERT(perfring_jit_elf_new(0, &elf) == 0);
	while ((err = perfring_perfmap_next(m, &e, &diag)) == 1) {
		size_t len = strlen(e.name);

		FUZZ_ASSERT(len > 0);
		FUZZ_ASSERT(!strchr(e.name, '\n'));
		FUZZ_ASSERT(e.line > last && e.line <= nl + 1);
		last = e.line;
		FUZZ_ASSERT(e.size == 0 || e.start + e.size >= e.start);
		if (len <= size)
			FUZZ_ASSERT(memmem(data, size, e.name, len) != NULL);
		if (e.size && perfring_jit_elf_count(elf) < 512) {
			uint64_t off;

			int r = perfring_jit_elf_add(elf, e.name, NULL, e.size, &off, NULL);

			/* -EFBIG: more than 2^46 bytes of functions in all */
			FUZZ_ASSERT(r == 0 || r == -EFBIG);
			if (r == 0) {
				FUZZ_ASSERT(off >= prev_end);
				prev_end = off + e.size;
			}
		}
	}
	FUZZ_ASSERT(err == 0);
	perfring_perfmap_counts(m, &lines, &entries, &bad);
	FUZZ_ASSERT(lines <= nl + 1);
	FUZZ_ASSERT(entries + bad <= lines);
	if (bad) {
		FUZZ_ASSERT(diag.error == -EBADMSG);
		FUZZ_ASSERT(strstr(diag.msg, "line ") == diag.msg);
	}
	perfring_jit_elf_free(elf);
	perfring_perfmap_close(m);
	perfring_set_log(NULL, NULL);
	return 0;
}
