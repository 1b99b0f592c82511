/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diagnostics, logging and version queries. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include "util/internal.h"

void pr_diag_vset(struct perfring_diag *d, int error, const char *file,
		  uint64_t off, const char *fmt, va_list ap)
{
	if (!d)
		return;
	d->error = error;
	d->has_offset = off != PR_NO_OFFSET;
	d->offset = d->has_offset ? off : 0;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
}

void pr_diag_set(struct perfring_diag *d, int error, const char *file,
		 uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(d, error, file, off, fmt, ap);
	va_end(ap);
}

PERFRING_API const char *perfring_diag_format(const struct perfring_diag *d,
					      char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	if (!d) {
		snprintf(buf, len, "no diagnostic");
		return buf;
	}
	if (d->file[0] && d->has_offset)
		snprintf(buf, len, "%s: offset 0x%" PRIx64 ": %s", d->file,
			 d->offset, d->msg);
	else if (d->file[0])
		snprintf(buf, len, "%s: %s", d->file, d->msg);
	else if (d->has_offset)
		snprintf(buf, len, "offset 0x%" PRIx64 ": %s", d->offset, d->msg);
	else
		snprintf(buf, len, "%s", d->msg);
	return buf;
}

PERFRING_API int perfring_version_major(void) { return PERFRING_VERSION_MAJOR; }
PERFRING_API int perfring_version_minor(void) { return PERFRING_VERSION_MINOR; }
PERFRING_API int perfring_version_micro(void) { return PERFRING_VERSION_MICRO; }
PERFRING_API const char *perfring_version_string(void) { return PERFRING_VERSION_STRING; }

static void default_log(enum perfring_log_level level, const char *msg, void *user)
{
	(void)user;
	if (level <= PERFRING_LOG_WARN)
		fprintf(stderr, "libperfring: %s: %s\n",
			level == PERFRING_LOG_ERROR ? "error" : "warning", msg);
}

/* fn and user change together: a log call never pairs one's fn with
 * another's user.  The callback runs outside the lock, so it may log or
 * install another. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static perfring_log_fn log_fn = default_log;
static void *log_user;

PERFRING_API void perfring_set_log(perfring_log_fn fn, void *user)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn ? fn : default_log;
	log_user = fn ? user : NULL;
	pthread_mutex_unlock(&log_lock);
}

void pr_log(enum perfring_log_level lvl, const char *fmt, ...)
{
	char buf[1024];
	perfring_log_fn fn;
	void *user;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&log_lock);
	fn = log_fn;
	user = log_user;
	pthread_mutex_unlock(&log_lock);
	fn(lvl, buf, user);
}

/* ---- versioned structures ------------------------------------------------ */

PERFRING_API int perfring_opts_load(void *dst, size_t dst_size, const void *opts,
				    size_t min_size, const char *type, const char *file,
				    struct perfring_diag *diag)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!dst || dst_size < sizeof(size_t))
		return -EINVAL;
	memset(dst, 0, dst_size);
	if (!type)
		type = "options";
	if (!opts) {
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET, "no %s given", type);
		return -EINVAL;
	}
	memcpy(&sz, p, sizeof(sz));
	if (sz > PERFRING_STRUCT_MAX) {
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET,
			    "%s.sz is %zu, more than any struct of this API can be "
			    "(%u): was it set?", type, sz, PERFRING_STRUCT_MAX);
		return -EINVAL;
	}
	if (sz < min_size || sz < sizeof(size_t)) {
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET,
			    "%s.sz is %zu, below the %zu bytes of its first version "
			    "(set it to sizeof(struct %s))", type, sz,
			    min_size < sizeof(size_t) ? sizeof(size_t) : min_size, type);
		return -EINVAL;
	}
	for (i = dst_size; i < sz; i++)
		if (p[i]) {
			pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET,
				    "%s.sz is %zu and byte %zu is set: a field this "
				    "libperfring (%zu bytes) does not know, from a newer "
				    "header", type, sz, i, dst_size);
			return -EINVAL;
		}
	memcpy(dst, opts, sz < dst_size ? sz : dst_size);
	return 0;
}

PERFRING_API int perfring_struct_fill(void *dst, size_t min_size, const void *src,
				      size_t src_size)
{
	unsigned char *d = dst;
	size_t sz;

	if (!dst || !src || src_size < sizeof(size_t))
		return -EINVAL;
	memcpy(&sz, d, sizeof(sz));
	if (sz < min_size || sz < sizeof(size_t) || sz > PERFRING_STRUCT_MAX)
		return -EINVAL;
	memcpy(d + sizeof(size_t), (const unsigned char *)src + sizeof(size_t),
	       (sz < src_size ? sz : src_size) - sizeof(size_t));
	if (sz > src_size)
		memset(d + src_size, 0, sz - src_size);
	return 0;
}

int pr_array_load(void *dst, size_t dst_size, const void *array, size_t i, size_t min_size,
		  const char *type, const char *file, struct perfring_diag *diag)
{
	const unsigned char *elem;
	size_t stride, sz;

	if (!array) {
		memset(dst, 0, dst_size);
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET, "no %s array given", type);
		return -EINVAL;
	}
	memcpy(&stride, array, sizeof(stride));
	if (stride < min_size)
		return perfring_opts_load(dst, dst_size, array, min_size, type, file, diag);
	elem = (const unsigned char *)array + i * stride;
	memcpy(&sz, elem, sizeof(sz));
	if (sz != stride) {
		memset(dst, 0, dst_size);
		pr_diag_set(diag, -EINVAL, file, PR_NO_OFFSET,
			    "%s[%zu].sz is %zu but [0].sz is %zu (an array has one sz)",
			    type, i, sz, stride);
		return -EINVAL;
	}
	return perfring_opts_load(dst, dst_size, elem, min_size, type, file, diag);
}

int pr_event_desc_load(const struct perfring_event_desc *events, uint32_t i,
		       struct perfring_event_desc *out, const char *file,
		       struct perfring_diag *diag)
{
	return pr_array_load(out, sizeof(*out), events, i, PR_EVENT_DESC_MIN,
			     "perfring_event_desc", file, diag);
}
