/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libperfring: Linux perf-format event rings, records and perf.data files in
 * user space.  This is the only header an application needs.
 *
 * Conventions, for every function in this library:
 *  - Functions that can fail return 0 (or a non-negative count) on success and
 *    a negative errno value on failure.  errno itself is never the channel and
 *    the ring write path never modifies it.
 *  - Functions that parse input take an optional `struct perfring_diag *` that
 *    receives a human-readable message with the file and byte offset of the
 *    problem.  Pass NULL when you do not need it.
 *  - Objects are opaque; every *_close / *_free accepts NULL.
 */
#ifndef PERFRING_PERFRING_H
#define PERFRING_PERFRING_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/version.h>

#if defined(__GNUC__)
#define PERFRING_API __attribute__((visibility("default")))
#else
#define PERFRING_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Diagnostic for humans: what went wrong and where.  Filled by functions that
 * take one on failure (and by readers for each problem they report).
 */
struct perfring_diag {
	int error;		/* negative errno of the failure, 0 if none */
	int has_offset;		/* offset below is meaningful */
	uint64_t offset;	/* byte offset in the file / ring data area */
	char file[256];		/* file (or "ring", "-") concerned, may be "" */
	char msg[512];		/* what is wrong, without file and offset */
};

/* Format a diagnostic as "FILE: offset 0x…: MSG" into buf; returns buf. */
PERFRING_API const char *perfring_diag_format(const struct perfring_diag *d,
					      char *buf, size_t len);

/* Version of the library actually loaded (compare with version.h). */
PERFRING_API int perfring_version_major(void);
PERFRING_API int perfring_version_minor(void);
PERFRING_API int perfring_version_micro(void);
PERFRING_API const char *perfring_version_string(void);

/* Process-wide log callback (never called from the ring write path). */
enum perfring_log_level {
	PERFRING_LOG_ERROR = 0,
	PERFRING_LOG_WARN = 1,
	PERFRING_LOG_INFO = 2,
	PERFRING_LOG_DEBUG = 3,
};
typedef void (*perfring_log_fn)(enum perfring_log_level level,
				const char *msg, void *user);
/* Install fn (NULL restores the default: warnings and errors to stderr). */
PERFRING_API void perfring_set_log(perfring_log_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#define PERFRING_INSIDE_PERFRING_H
#include <perfring/records.h>
#include <perfring/ring.h>
#include <perfring/perfdata.h>
#include <perfring/source.h>
#include <perfring/writer.h>
#include <perfring/sideband.h>
#include <perfring/registry.h>
#include <perfring/jit.h>
#undef PERFRING_INSIDE_PERFRING_H

#endif /* PERFRING_PERFRING_H */
