/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the fuzz targets in this folder.  Each target defines the
 * libFuzzer entry point LLVMFuzzerTestOneInput (and may define
 * LLVMFuzzerInitialize); it is linked either with libFuzzer
 * (--enable-fuzzing) or with replay.c, a plain main() that runs every file
 * of the committed corpus and regression folders through it once.
 */
#ifndef PERFRING_FUZZ_H
#define PERFRING_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/asan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A failed invariant of the code under test: abort so libFuzzer (or the
 * replay driver) reports it with the input. */
#define FUZZ_ASSERT(cond)							\
	do {									\
		if (!(cond))							\
			fuzz_fail(__FILE__, __LINE__, #cond);			\
	} while (0)

void fuzz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

/* A log callback that drops the library's messages (perfring_set_log). */
enum perfring_log_level;
void fuzz_quiet_log(enum perfring_log_level level, const char *msg, void *user);

/* Little-endian reads of the input prefix; missing bytes read as zero. */
static inline uint64_t fuzz_take(const uint8_t **p, size_t *n, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes; i++) {
		if (*n) {
			v |= (uint64_t)**p << (8 * i);
			(*p)++;
			(*n)--;
		}
	}
	return v;
}

/*
 * An exact-size, 8-aligned heap copy of the input, so that ASan sees any
 * read past its end and the code under test gets the alignment a record
 * buffer has.  Never returns NULL for n > 0 (aborts on ENOMEM).
 */
static inline void *fuzz_dup(const void *p, size_t n)
{
	void *c = malloc(n ? n : 1);

	if (!c)
		abort();
	if (n)
		memcpy(c, p, n);
	return c;
}

/*
 * n bytes of a heap buffer kept from one call to the next (*buf, *cap):
 * a malloc per use costs much under ASan, which records a stack for each.
 * What lies past n is poisoned, so ASan still sees a read or a write past
 * the n bytes; poison all of it (PR_POISON(*buf, *cap))
 * when done, and ASan sees a use after that too.  Aborts on ENOMEM.
 */
static inline void *fuzz_kept(void **buf, size_t *cap, size_t n)
{
	if (n > *cap || !*buf) {
		PR_UNPOISON(*buf, *cap);
		free(*buf);
		*cap = n > 4096 ? n : 4096;
		*buf = malloc(*cap);
		if (!*buf)
			abort();
	}
	PR_UNPOISON(*buf, n);
	PR_POISON((char *)*buf + n, *cap - n);
	return *buf;
}

#endif
