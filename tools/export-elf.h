/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Symbols of one ELF file (or of /proc/kallsyms) for perfring-export: the
 * function symbols of .symtab (else .dynsym), sorted, with the file's
 * PT_LOAD segments to turn a file offset into a symbol address.
 * libelf parses the file; every index and offset taken from it is bounded
 * here (fuzz/fuzz-elfsym.c).
 */
#ifndef PERFRING_EXPORT_ELF_H
#define PERFRING_EXPORT_ELF_H

#include <stddef.h>
#include <stdint.h>

struct esym_file;

/* Open path; NULL if it is missing or not a readable ELF. */
struct esym_file *esym_open(const char *path);
/* The same on bytes in memory (borrowed only during the call). */
struct esym_file *esym_open_mem(const void *buf, size_t len);
/* /proc/kallsyms-format text (addresses absolute; text symbols only). */
struct esym_file *esym_kallsyms(const char *path);
/* kallsyms: the address of _text (0 if not listed). */
uint64_t esym_kallsyms_text(const struct esym_file *f);
void esym_close(struct esym_file *f);

/* The file's GNU build id (NT_GNU_BUILD_ID note): its length, 0 if none. */
size_t esym_build_id(const struct esym_file *f, uint8_t out[20]);
/* Number of symbols. */
size_t esym_count(const struct esym_file *f);

/*
 * The address a file offset is loaded at (the PT_LOAD segment, else the
 * allocated section, holding that offset): 1 and *addr, or 0.
 */
int esym_offset_to_addr(const struct esym_file *f, uint64_t off, uint64_t *addr);

/* The function symbol holding addr (its raw, mangled name), or NULL. */
const char *esym_lookup(const struct esym_file *f, uint64_t addr, uint64_t *start);

/*
 * Binary search: the number of leading elements 0..n-1 of an array for
 * which below(arr, i, key) holds (it must hold for a prefix only).
 */
static inline size_t esym_partition(size_t n, int (*below)(const void *, size_t, uint64_t),
				    const void *arr, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(arr, mid, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
