/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diagnostics, logging and version queries. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "internal.h"

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

static perfring_log_fn log_fn = default_log;
static void *log_user;

PERFRING_API void perfring_set_log(perfring_log_fn fn, void *user)
{
	log_fn = fn ? fn : default_log;
	log_user = fn ? user : NULL;
}

void pr_log(enum perfring_log_level lvl, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_fn(lvl, buf, log_user);
}
