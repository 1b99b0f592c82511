/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/markers-preload: markers in a program that was not written for
 * them.  Preloaded (LD_PRELOAD=libperfring-marks-preload.so), it marks
 *   - each dlopen() as a span "dlopen" whose text is the file asked for
 *     (its value: 1 when the library was loaded, 0 when dlopen failed);
 *   - each pthread_setname_np() as an instant "thread-name" whose text is
 *     the new name.
 * Under perfring-record (or perf record -k mono, then perfring-replay),
 * perf script shows when the program loaded what and how long it took.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <perfring/marks.h>

static int id_dlopen, id_name;

static void *(*real_dlopen)(const char *, int);
static int (*real_setname)(pthread_t, const char *);

__attribute__((constructor)) static void marks_preload_init(void)
{
	real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	real_setname = (int (*)(pthread_t, const char *))dlsym(RTLD_NEXT, "pthread_setname_np");
	id_dlopen = perfring_mark_register("dlopen");
	id_name = perfring_mark_register("thread-name");
}

/* The file's last path component: texts are at most 127 bytes. */
static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	void *h;

	if (!real_dlopen)
		return NULL;
	if (id_dlopen > 0)
		perfring_mark_id(PERFRING_MARK_BEGIN, id_dlopen, 0, base_name(file));
	h = real_dlopen(file, mode);
	if (id_dlopen > 0)
		perfring_mark_id(PERFRING_MARK_END | PERFRING_MARK_VALUE, id_dlopen, h != NULL, NULL);
	return h;
}

__attribute__((visibility("default"))) int pthread_setname_np(pthread_t t, const char *name)
{
	int rc;

	if (!real_setname)
		return 38;	/* ENOSYS */
	rc = real_setname(t, name);
	if (rc == 0 && id_name > 0 && pthread_equal(t, pthread_self()))
		perfring_mark_id(PERFRING_MARK_INSTANT, id_name, 0, name);
	return rc;
}
