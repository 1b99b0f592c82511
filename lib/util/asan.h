/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Under AddressSanitizer, mark memory a program keeps and reuses (a buffer's
 * unused tail, an arena's free part) so that ASan reports an access to it
 * as it would past an exact-size allocation.  Used by the library, the
 * tools' JSON arena and the fuzz targets; no-ops without ASan.
 */
#ifndef PERFRING_ASAN_H
#define PERFRING_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define PR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PR_ASAN 1
#endif
#endif

#ifdef PR_ASAN
#include <sanitizer/asan_interface.h>
#define PR_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define PR_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define PR_POISON(p, n) ((void)(p), (void)(n))
#define PR_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
