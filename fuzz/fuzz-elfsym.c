/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: perfring-export's ELF symbol reader (tools/export-elf.c):
 * libelf's parse of the file and every index and offset taken from it.
 *
 * Input: an ELF file as is (the seeds: small executables, a shared
 * library, a JIT ELF as the library writes it).
 * Checked: no memory error; the build id is at most 20 bytes; every
 * looked-up name is a NUL-terminated, non-empty string whose symbol starts
 * at or below the address looked up; offsets inside the file map to an
 * address or to nothing, never past what the segments say.
 */
#include "config.h"

#include <string.h>

#include "export-elf.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct esym_file *f = esym_open_mem(data, size);
	uint8_t bid[20];

	if (!f)
		return 0;
	FUZZ_ASSERT(esym_build_id(f, bid) <= 20);
	/* look up at every 61st offset of the file and around its addresses */
	for (uint64_t off = 0; off < size + 128; off += 61) {
		uint64_t addr, start = 0;
		const char *name;

		if (!esym_offset_to_addr(f, off, &addr))
			addr = off;
		name = esym_lookup(f, addr, &start);
		if (name) {
			FUZZ_ASSERT(strlen(name) > 0 && strlen(name) <= 4096);
			FUZZ_ASSERT(start <= addr);
		}
	}
	FUZZ_ASSERT(esym_lookup(f, 0, NULL) == NULL || esym_count(f) > 0);
	esym_close(f);
	return 0;
}
