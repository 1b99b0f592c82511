/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs: finding it, finding tracepoints in it (perfring_tracefs_dir,
 * perfring_tracepoints_find), and the HEADER_TRACING_DATA payload that the
 * writer builds from it for tracepoint events (layout:
 * doc/perf-data-extras.md).
 *
 * tracefs files report a size of 0, so every file is read to its end.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/internal.h"
#include "tracing/tracing.h"

#define TP_FILE_MAX (16u * 1024u * 1024u)	/* printk_formats is the largest */

static const char *const tracefs_places[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

#define TRACEFS_ACCESS_HINT \
	"tracefs is usually root's only: run as root, or mount it with " \
	"gid=GROUP,mode=0750 for a group of yours"

static int unreadable(struct perfring_diag *diag, const char *path, int e)
{
	pr_diag_set(diag, -e, path, PR_NO_OFFSET, "tracefs cannot be read: %s (%s)",
		    strerror(e), TRACEFS_ACCESS_HINT);
	return -e;
}

PERFRING_API int perfring_tracefs_dir(const char *dir, char *buf, size_t len,
				      struct perfring_diag *diag)
{
	char events[4096], looked[8300] = "";
	size_t i, n;

	if (!dir && getenv("PERFRING_TRACEFS") && *getenv("PERFRING_TRACEFS"))
		dir = getenv("PERFRING_TRACEFS");
	n = dir ? 1 : sizeof(tracefs_places) / sizeof(tracefs_places[0]);

	if (!buf || !len) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no buffer");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		const char *d = dir ? dir : tracefs_places[i];
		struct stat st;

		snprintf(events, sizeof(events), "%s/events", d);
		if (stat(events, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (access(events, R_OK | X_OK) < 0)
				return unreadable(diag, events, errno);
			if (strlen(d) >= len) {
				pr_diag_set(diag, -ENAMETOOLONG, d, PR_NO_OFFSET,
					    "tracefs path too long");
				return -ENAMETOOLONG;
			}
			memcpy(buf, d, strlen(d) + 1);
			return 0;
		}
		if (errno == EACCES && stat(d, &st) == 0)
			return unreadable(diag, d, EACCES);
		snprintf(looked + strlen(looked), sizeof(looked) - strlen(looked),
			 "%s%s", i ? " and " : "", events);
	}
	pr_diag_set(diag, -ENOENT, NULL, PR_NO_OFFSET,
		    "no tracefs: looked for %s%s", looked,
		    dir ? "" : " (mount it: mount -t tracefs nodev /sys/kernel/tracing)");
	return -ENOENT;
}

/* Whole file into b (appended); its size in *size.  0 or -errno. */
static int slurp(const char *path, struct pr_buf *b, uint64_t *size)
{
	unsigned char chunk[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t total = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		total += (uint64_t)r;
		if (total > TP_FILE_MAX) {
			close(fd);
			return -EFBIG;
		}
		pr_buf_put(b, chunk, (size_t)r);
	}
	close(fd);
	*size = total;
	return b->oom ? -ENOMEM : 0;
}

/* The id in events/SYS/NAME/id, or a negative errno. */
static int64_t read_id(const char *root, const char *sys, const char *name)
{
	char path[4096], txt[32];
	ssize_t r;
	int fd;
	char *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, txt, sizeof(txt) - 1);
	close(fd);
	if (r <= 0)
		return r < 0 ? -errno : -EINVAL;
	txt[r] = 0;
	errno = 0;
	v = strtoull(txt, &end, 10);
	if (errno || end == txt || (*end && *end != '\n') || v > INT64_MAX)
		return -EINVAL;
	return (int64_t)v;
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int tp_cmp(const void *a, const void *b)
{
	const struct perfring_tracepoint *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Directory entries of path matching pat (NULL: all), sorted.  Count or -errno. */
static int list_dir(const char *path, const char *pat, char ***out)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **v = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (pat && fnmatch(pat, de->d_name, 0) != 0)
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? 2 * cap : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto oom;
		n++;
	}
	closedir(d);
	*out = v;
	return n;
oom:
	closedir(d);
	while (n > 0)
		free(v[--n]);
	free(v);
	return -ENOMEM;
}

static void free_list(char **v, int n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* SUBSYSTEM:EVENT of PATTERN into SYS and EV (each of
 * PERFRING_TRACEPOINT_NAME_MAX bytes): 0 or -EINVAL. */
static int split_pattern(const char *pattern, char *sys, char *ev,
			 struct perfring_diag *diag)
{
	const char *colon = strchr(pattern, ':');

	if (!colon || colon == pattern || !colon[1] || strchr(colon + 1, ':') ||
	    (size_t)(colon - pattern) >= PERFRING_TRACEPOINT_NAME_MAX ||
	    strlen(colon + 1) >= PERFRING_TRACEPOINT_NAME_MAX ||
	    strchr(pattern, '/')) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "'%s' is not a tracepoint (SUBSYSTEM:EVENT)", pattern);
		return -EINVAL;
	}
	memcpy(sys, pattern, (size_t)(colon - pattern));
	sys[colon - pattern] = 0;
	snprintf(ev, PERFRING_TRACEPOINT_NAME_MAX, "%s", colon + 1);
	if (sys[0] == '.' || ev[0] == '.') {	/* no "..", no hidden files */
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "'%s' is not a tracepoint (SUBSYSTEM:EVENT)", pattern);
		return -EINVAL;
	}
	return 0;
}

/* The names in DIR that PAT matches when it is a glob, else PAT alone
 * (not looked up): count or -errno, *OUT for the caller to free. */
static int names_matching(const char *dir, const char *pat, char ***out)
{
	char **v;

	if (has_glob(pat))
		return list_dir(dir, pat, out);
	v = malloc(sizeof(*v));
	*out = v;
	return v && (v[0] = strdup(pat)) ? 1 : -ENOMEM;
}

/* The tracepoints found so far. */
struct tp_found {
	struct perfring_tracepoint *v;
	int n, cap;
	int denied;		/* an id or a directory could not be read */
};

/* SYSTEM:EVENT with its id to the end of F: 0 or -ENOMEM. */
static int tp_add(struct tp_found *f, const char *system, const char *event, int64_t id)
{
	if (f->n == f->cap) {
		struct perfring_tracepoint *nr;
		int cap = f->cap ? 2 * f->cap : 8;

		nr = realloc(f->v, (size_t)cap * sizeof(*f->v));
		if (!nr)
			return -ENOMEM;
		f->v = nr;
		f->cap = cap;
	}
	memset(&f->v[f->n], 0, sizeof(f->v[f->n]));
	snprintf(f->v[f->n].name, sizeof(f->v[f->n].name), "%s:%s", system, event);
	f->v[f->n].id = (uint64_t)id;
	f->n++;
	return 0;
}

/* The events of SYSTEM that EV matches into F: 0 or -errno (a system
 * that is missing or cannot be read is no error). */
static int find_in_system(const char *root, const char *system, const char *ev,
			  struct tp_found *f)
{
	char sdir[4096], **evs = NULL;
	int nev, j, ret = 0;

	snprintf(sdir, sizeof(sdir), "%s/events/%s", root, system);
	nev = names_matching(sdir, ev, &evs);
	if (nev == -ENOENT || nev == -ENOTDIR) {
		free(evs);
		return 0;
	}
	if (nev < 0) {
		if (nev == -EACCES)
			f->denied = 1;
		free(evs);
		return nev == -EACCES ? 0 : nev;
	}
	for (j = 0; j < nev && !ret; j++) {
		int64_t id = read_id(root, system, evs[j]);

		if (id == -EACCES || id == -EPERM)
			f->denied = 1;
		if (id < 0)
			continue;	/* not an event directory ("enable", "filter") */
		ret = tp_add(f, system, evs[j], id);
	}
	free_list(evs, nev);
	return ret;
}

/* Nothing found under PATH (ROOT/events): -EACCES or -ENOENT, DIAG set. */
static int none_found(const char *pattern, const char *path, const char *sys,
		      const char *ev, int denied, struct perfring_diag *diag)
{
	if (denied) {
		pr_diag_set(diag, -EACCES, path, PR_NO_OFFSET,
			    "%s: permission denied reading the tracepoint ids "
			    "(%s)", pattern, TRACEFS_ACCESS_HINT);
		return -EACCES;
	}
	if (has_glob(sys) || has_glob(ev))
		pr_diag_set(diag, -ENOENT, NULL, PR_NO_OFFSET,
			    "no tracepoint matches '%s' (looked for "
			    "%s/%s/%s/id; perf list tracepoint lists them)",
			    pattern, path, sys, ev);
	else
		pr_diag_set(diag, -ENOENT, NULL, PR_NO_OFFSET,
			    "unknown tracepoint '%s' (no %s/%s/%s/id; "
			    "perf list tracepoint lists them)", pattern, path,
			    sys, ev);
	return -ENOENT;
}

PERFRING_API int perfring_tracepoints_find(const char *root, const char *pattern,
					   struct perfring_tracepoint **out,
					   struct perfring_diag *diag)
{
	char sys[PERFRING_TRACEPOINT_NAME_MAX], ev[PERFRING_TRACEPOINT_NAME_MAX];
	char path[4096];
	struct tp_found f = { NULL, 0, 0, 0 };
	char **systems = NULL;
	int nsys, i, ret = 0;

	if (out)
		*out = NULL;
	if (!root || !pattern || !out) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "no tracefs or pattern");
		return -EINVAL;
	}
	ret = split_pattern(pattern, sys, ev, diag);
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "%s/events", root);
	nsys = names_matching(path, sys, &systems);
	if (nsys < 0) {
		ret = nsys;
		pr_diag_set(diag, ret, path, PR_NO_OFFSET, "cannot list the tracepoint "
			    "systems: %s", strerror(-ret));
		free(systems);
		return ret;
	}
	for (i = 0; i < nsys && !ret; i++)
		ret = find_in_system(root, systems[i], ev, &f);
	free_list(systems, nsys);
	if (ret == 0 && f.n == 0)
		ret = none_found(pattern, path, sys, ev, f.denied, diag);
	if (ret < 0) {
		if (ret == -ENOMEM)
			pr_diag_set(diag, ret, NULL, PR_NO_OFFSET, "out of memory");
		free(f.v);
		return ret;
	}
	qsort(f.v, (size_t)f.n, sizeof(*f.v), tp_cmp);
	*out = f.v;
	return f.n;
}

/* ---- HEADER_TRACING_DATA ------------------------------------------------- */

/*
 * A size (size_bytes: 4 or 8) and the whole file.  On failure nothing is
 * appended and err names the file.
 */
static int put_file(struct pr_buf *b, const char *path, int size_bytes, char *err,
		    size_t errlen)
{
	size_t at = b->len;
	uint64_t size = 0;
	int r;

	pr_buf_put(b, &size, (size_t)size_bytes);	/* patched below */
	r = slurp(path, b, &size);
	if (r < 0 || b->oom) {
		if (!b->oom)
			b->len = at;
		snprintf(err, errlen, "%s: %s", path, strerror(r < 0 ? -r : ENOMEM));
		return r < 0 ? r : -ENOMEM;
	}
	if (size_bytes == 4) {
		uint32_t s32 = (uint32_t)size;

		memcpy(b->p + at, &s32, 4);
	} else {
		memcpy(b->p + at, &size, 8);
	}
	return 0;
}

/* An optional file: its size and content, or an empty one (size 0). */
static void put_file_opt(struct pr_buf *b, const char *path, int size_bytes)
{
	char ignored[64];
	uint64_t zero = 0;

	if (put_file(b, path, size_bytes, ignored, sizeof(ignored)) < 0)
		pr_buf_put(b, &zero, (size_t)size_bytes);
}

/* 1 if tps[k]'s system (same_event: and event) appeared before k. */
static int seen_before(const struct pr_tp_ref *tps, size_t k, int same_event)
{
	for (size_t m = 0; m < k; m++)
		if (!strcmp(tps[m].sys, tps[k].sys) &&
		    (!same_event || !strcmp(tps[m].name, tps[k].name)))
			return 1;
	return 0;
}

static void put_name(struct pr_buf *b, const char *s)
{
	pr_buf_put(b, s, strlen(s) + 1);
}

int pr_tracing_data(const char *root, const struct pr_tp_ref *tps, size_t n,
		    struct pr_buf *b, char *err, size_t errlen)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
					       'i', 'n', 'g', '0', '.', '6', 0 };
	unsigned char le = 0, lsize = (unsigned char)sizeof(long);
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), zero32 = 0, nsys = 0;
	char path[4096];
	size_t i, j;
	int r;
	union { uint16_t v; unsigned char c[2]; } endian = { 1 };

	le = endian.c[0] == 1 ? 0 : 1;	/* 0: little endian, as perf writes it */
	pr_buf_put(b, magic, sizeof(magic));
	pr_buf_put(b, &le, 1);
	pr_buf_put(b, &lsize, 1);
	pr_buf_put(b, &page, 4);

	put_name(b, "header_page");
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if ((r = put_file(b, path, 8, err, errlen)) < 0)
		return r;
	put_name(b, "header_event");
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	if ((r = put_file(b, path, 8, err, errlen)) < 0)
		return r;
	/* ftrace's own formats: only those recorded, which are none */
	pr_buf_put(b, &zero32, 4);

	/* systems, in their first appearance's order, each with its events */
	for (i = 0; i < n; i++)
		nsys += !seen_before(tps, i, 0);
	pr_buf_put(b, &nsys, 4);
	for (i = 0; i < n; i++) {
		uint32_t count = 0;

		if (seen_before(tps, i, 0))
			continue;
		for (j = i; j < n; j++)
			count += !strcmp(tps[j].sys, tps[i].sys) && !seen_before(tps, j, 1);
		put_name(b, tps[i].sys);
		pr_buf_put(b, &count, 4);
		for (j = i; j < n; j++) {
			if (strcmp(tps[j].sys, tps[i].sys) || seen_before(tps, j, 1))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", root,
				 tps[j].sys, tps[j].name);
			if ((r = put_file(b, path, 8, err, errlen)) < 0)
				return r;
		}
	}
	/* kallsyms: empty, as perf 6.1 writes it (perf reads /proc/kallsyms) */
	pr_buf_put(b, &zero32, 4);
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	put_file_opt(b, path, 4);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	put_file_opt(b, path, 8);
	return b->oom ? -ENOMEM : 0;
}
