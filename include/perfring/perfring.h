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
 *  - Versioned structures start with `size_t sz`, which the caller sets to
 *    sizeof the struct it was compiled with (the *_OPTS macros do it):
 *     - options the caller passes: sz below the first version's size is
 *       -EINVAL; a larger sz is accepted when every byte past the struct
 *       this library knows is zero, else -EINVAL (a field of a newer
 *       header is set).  perfring_opts_load() applies this rule.
 *     - structs the library fills (stats, records, event descriptions):
 *       only the first sz bytes are written (sz itself is kept, bytes
 *       past what the library knows are zeroed); sz below the first
 *       version's size is -EINVAL.  perfring_struct_fill() applies it.
 *    Arrays of versioned structs are strided by the first element's sz.
 *    A sz above PERFRING_STRUCT_MAX is -EINVAL in both directions: it was
 *    surely never set.
 *  - File descriptors, said the same way at every call that takes or
 *    returns one:
 *     - "Borrows fd (the caller keeps and closes it)": the library works
 *       on its own duplicate, so the caller may close fd right after the
 *       call; the library's copy is closed by *_close.
 *     - "Takes fd (closed by *_close)": the object owns fd from the call
 *       on, also when the call fails.
 *     - "Returns a borrowed fd (owned by the object)": valid until the
 *       object's *_close; dup(2) it to keep it longer.
 *    Every fd the library opens is close-on-exec.
 *  - Indexes and counts of the things the library lists (events, attrs,
 *    ids, features, writer sources, plugins and the record types a plugin
 *    claims) are uint32_t, as arguments, results and struct fields; a call
 *    that returns such an index or count or an error returns int (>= 0 the
 *    value, < 0 a negative errno).  Byte sizes and capacities of caller
 *    buffers are size_t; sizes, offsets and totals in files are uint64_t.
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

/* A name kept for one release after it was replaced (0.2: until 0.3). */
#if defined(__GNUC__)
#define PERFRING_DEPRECATED(use) __attribute__((deprecated("use " use)))
#else
#define PERFRING_DEPRECATED(use)
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

/*
 * The versioned-structure rules above, for the library and for plugins
 * (a backend checks its options and fills its results with them).
 * perfring_opts_load: zero dst (dst_size bytes: the struct as the callee
 * knows it), check opts->sz (read from the first size_t of opts) against
 * min_size and the bytes past dst_size, then copy what both know.  type
 * ("perfring_ring_opts") and file (may be NULL) name the struct and the
 * file concerned in diag.  Returns 0 or -EINVAL (diag filled).
 * perfring_struct_fill: copy the callee's src (src_size bytes) into the
 * caller's dst as far as dst->sz says, keeping dst->sz.  Returns 0 or
 * -EINVAL (dst->sz below min_size).
 */
#define PERFRING_STRUCT_MAX 65536u
PERFRING_API int perfring_opts_load(void *dst, size_t dst_size, const void *opts,
				    size_t min_size, const char *type, const char *file,
				    struct perfring_diag *diag);
PERFRING_API int perfring_struct_fill(void *dst, size_t min_size, const void *src,
				      size_t src_size);

/* Process-wide log callback (never called from the ring write path). */
enum perfring_log_level {
	PERFRING_LOG_ERROR = 0,
	PERFRING_LOG_WARN = 1,
	PERFRING_LOG_INFO = 2,
	PERFRING_LOG_DEBUG = 3,
};
typedef void (*perfring_log_fn)(enum perfring_log_level level,
				const char *msg, void *user);
/*
 * Install fn with its user pointer (NULL restores the default: warnings
 * and errors to stderr).  Any thread may call it at any time: a message
 * goes to one installed pair, never to one's fn with another's user; a
 * message being logged on another thread may still reach the pair before.
 */
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
#include <perfring/marks.h>

#endif /* PERFRING_PERFRING_H */
