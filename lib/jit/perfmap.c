/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf map files (/tmp/perf-PID.map): one `START SIZE name` line per
 * function, START and SIZE in hex with or without 0x (the JDK writes 0x),
 * the name the rest of the line (spaces included).  doc/jit.md.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"

#define MAX_LOGGED 10

struct perfring_perfmap {
	char name[256];
	FILE *f;		/* NULL: empty memory input */
	char *line;
	size_t cap;
	uint64_t lines, entries, bad;
};

static struct perfring_perfmap *new_map(const char *name, FILE *f)
{
	struct perfring_perfmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	snprintf(m->name, sizeof(m->name), "%s", name ? name : "perf map");
	m->f = f;
	return m;
}

PERFRING_API int perfring_perfmap_open(const char *path, struct perfring_diag *diag,
				       struct perfring_perfmap **out)
{
	FILE *f;
	int err;

	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot open: %s", strerror(-err));
		return err;
	}
	*out = new_map(path, f);
	if (!*out) {
		fclose(f);
		return -ENOMEM;
	}
	return 0;
}

PERFRING_API int perfring_perfmap_open_mem(const void *data, size_t len, const char *name,
					   struct perfring_diag *diag,
					   struct perfring_perfmap **out)
{
	FILE *f = NULL;
	int err;

	if (!out || (!data && len))
		return -EINVAL;
	*out = NULL;
	if (len) {
		/* Read-only use of the caller's bytes. */
		f = fmemopen((void *)(uintptr_t)data, len, "r");
		if (!f) {
			err = -errno;
			pr_diag_set(diag, err, name, PR_NO_OFFSET, "cannot read: %s",
				    strerror(-err));
			return err;
		}
	}
	*out = new_map(name, f);
	if (!*out) {
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	return 0;
}

/* Parse a hex number with an optional 0x; *s advances.  Returns 0 or -1. */
static int hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++, digits++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (x >> 60)
			return -1;
		x = x << 4 | d;
	}
	if (!digits)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

static int blanks(const char **s)
{
	const char *p = *s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p == *s)
		return -1;
	*s = p;
	return 0;
}

/* Returns NULL (and *e filled) or what is wrong with the line. */
static const char *parse(char *line, size_t len, struct perfring_perfmap_entry *e)
{
	const char *p = line;

	if (memchr(line, '\0', len))
		return "NUL byte in the line";
	while (*p == ' ' || *p == '\t')
		p++;
	if (hex(&p, &e->start))
		return "START is not a hex number of at most 64 bits";
	if (blanks(&p))
		return "no blank after START";
	if (hex(&p, &e->size))
		return "SIZE is not a hex number of at most 64 bits";
	if (blanks(&p))
		return "no name after SIZE";
	if (!*p)
		return "empty name";
	if (e->size && e->start + e->size < e->start)
		return "START + SIZE overflows";
	e->name = p;
	return NULL;
}

static int pm_next(struct perfring_perfmap *m, struct perfring_perfmap_entry *e,
		   struct perfring_diag *diag);

PERFRING_API int perfring_perfmap_next(struct perfring_perfmap *m,
				       struct perfring_perfmap_entry *e,
				       struct perfring_diag *diag)
{
	struct perfring_perfmap_entry x = { .sz = sizeof(x) };
	int ret;

	if (!m || !e || e->sz < sizeof(x))
		return -EINVAL;
	ret = pm_next(m, &x, diag);
	if (ret == 1)
		perfring_struct_fill(e, sizeof(x), &x, sizeof(x));
	return ret;
}

static int pm_next(struct perfring_perfmap *m, struct perfring_perfmap_entry *e,
		   struct perfring_diag *diag)
{
	if (!m || !e)
		return -EINVAL;
	if (!m->f)
		return 0;
	for (;;) {
		ssize_t len;
		const char *why;
		int blank = 1;

		errno = 0;
		len = getline(&m->line, &m->cap, m->f);
		if (len < 0) {
			if (ferror(m->f)) {
				int err = errno ? -errno : -EIO;

				pr_diag_set(diag, err, m->name, PR_NO_OFFSET, "cannot read: %s",
					    strerror(-err));
				return err;
			}
			return 0;
		}
		m->lines++;
		if (len && m->line[len - 1] == '\n')
			m->line[--len] = '\0';
		if (len && m->line[len - 1] == '\r')
			m->line[--len] = '\0';
		for (ssize_t i = 0; i < len; i++)
			if (m->line[i] != ' ' && m->line[i] != '\t')
				blank = 0;
		if (blank)
			continue;
		why = parse(m->line, (size_t)len, e);
		if (!why) {
			e->line = m->lines;
			m->entries++;
			return 1;
		}
		m->bad++;
		if (m->bad == 1)
			pr_diag_set(diag, -EBADMSG, m->name, PR_NO_OFFSET,
				    "line %" PRIu64 ": %s, line skipped", m->lines, why);
		if (m->bad <= MAX_LOGGED)
			pr_log(PERFRING_LOG_WARN, "%s: line %" PRIu64 ": %s, line skipped",
			       m->name, m->lines, why);
		else if (m->bad == MAX_LOGGED + 1)
			pr_log(PERFRING_LOG_WARN, "%s: more bad lines, not shown", m->name);
	}
}

PERFRING_API void perfring_perfmap_counts(const struct perfring_perfmap *m,
					  uint64_t *lines, uint64_t *entries, uint64_t *bad)
{
	if (lines)
		*lines = m ? m->lines : 0;
	if (entries)
		*entries = m ? m->entries : 0;
	if (bad)
		*bad = m ? m->bad : 0;
}

PERFRING_API void perfring_perfmap_close(struct perfring_perfmap *m)
{
	if (!m)
		return;
	if (m->f)
		fclose(m->f);
	free(m->line);
	free(m);
}
