/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Event list parser of the hw backend (see evparse.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evparse.h"
#include "tracepoint.h"

struct evname {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* First spelling of each (type, config) is the canonical one. */
static const struct evname names[] = {
	{ "cycles", PERFRING_TYPE_HARDWARE, 0 },
	{ "cpu-cycles", PERFRING_TYPE_HARDWARE, 0 },
	{ "instructions", PERFRING_TYPE_HARDWARE, 1 },
	{ "cache-references", PERFRING_TYPE_HARDWARE, 2 },
	{ "cache-misses", PERFRING_TYPE_HARDWARE, 3 },
	{ "branches", PERFRING_TYPE_HARDWARE, 4 },
	{ "branch-instructions", PERFRING_TYPE_HARDWARE, 4 },
	{ "branch-misses", PERFRING_TYPE_HARDWARE, 5 },
	{ "bus-cycles", PERFRING_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", PERFRING_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PERFRING_TYPE_HARDWARE, 8 },
	{ "ref-cycles", PERFRING_TYPE_HARDWARE, 9 },
	{ "cpu-clock", PERFRING_TYPE_SOFTWARE, 0 },
	{ "task-clock", PERFRING_TYPE_SOFTWARE, 1 },
	{ "page-faults", PERFRING_TYPE_SOFTWARE, 2 },
	{ "faults", PERFRING_TYPE_SOFTWARE, 2 },
	{ "context-switches", PERFRING_TYPE_SOFTWARE, 3 },
	{ "cs", PERFRING_TYPE_SOFTWARE, 3 },
	{ "cpu-migrations", PERFRING_TYPE_SOFTWARE, 4 },
	{ "migrations", PERFRING_TYPE_SOFTWARE, 4 },
	{ "minor-faults", PERFRING_TYPE_SOFTWARE, 5 },
	{ "major-faults", PERFRING_TYPE_SOFTWARE, 6 },
	{ "alignment-faults", PERFRING_TYPE_SOFTWARE, 7 },
	{ "emulation-faults", PERFRING_TYPE_SOFTWARE, 8 },
	{ "dummy", PERFRING_TYPE_SOFTWARE, 9 },
};

const char *hw_event_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type && names[i].config == config)
			return names[i].name;
	return NULL;
}

const char *hw_known_events(void)
{
	return "cycles, instructions, cache-references, cache-misses, branches, "
	       "branch-misses, bus-cycles, ref-cycles, cpu-clock, task-clock, "
	       "page-faults, context-switches, cpu-migrations, minor-faults, "
	       "major-faults, dummy, rNNNN (raw), SUBSYSTEM:EVENT (tracepoint)";
}

static void seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/*
 * Apply modifiers "ukhp..." (without the colon) to attr.  perf's rule: if
 * any of u, k, h is given, the privilege levels not given are excluded.
 */
static int apply_mods(struct perfring_attr *a, const char *m, size_t n,
		      char *err, size_t errlen)
{
	int u = 0, k = 0, h = 0, p = 0;

	for (size_t i = 0; i < n; i++) {
		switch (m[i]) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'p': p++; break;
		default:
			seterr(err, errlen, "unknown event modifier '%c' in ':%.*s' (known: u, k, h, p)",
			       m[i], (int)n, m);
			return -EINVAL;
		}
	}
	if (p > 3) {
		seterr(err, errlen, "too many 'p' modifiers in ':%.*s' (at most 3)", (int)n, m);
		return -EINVAL;
	}
	if (u || k || h) {
		if (!u)
			a->flags |= PERFRING_ATTR_EXCLUDE_USER;
		if (!k)
			a->flags |= PERFRING_ATTR_EXCLUDE_KERNEL;
		if (!h)
			a->flags |= PERFRING_ATTR_EXCLUDE_HV;
	}
	if (p) {
		uint64_t cur = (a->flags & PERFRING_ATTR_PRECISE_IP_MASK) >> PERFRING_ATTR_PRECISE_IP_SHIFT;

		if ((uint64_t)p > cur) {
			a->flags &= ~PERFRING_ATTR_PRECISE_IP_MASK;
			a->flags |= (uint64_t)p << PERFRING_ATTR_PRECISE_IP_SHIFT;
		}
	}
	return 0;
}

/* One event "name[:mods]" of n bytes at s. */
static int parse_one(const char *s, size_t n, struct hw_evspec *ev,
		     char *err, size_t errlen)
{
	const char *colon = memchr(s, ':', n);
	size_t nl = colon ? (size_t)(colon - s) : n;
	size_t i;

	memset(ev, 0, sizeof(*ev));
	ev->attr.size = PERFRING_ATTR_SIZE_VER7;
	if (nl == 0) {
		seterr(err, errlen, "empty event name in '%.*s'", (int)n, s);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == nl && strncmp(names[i].name, s, nl) == 0) {
			ev->attr.type = names[i].type;
			ev->attr.config = names[i].config;
			break;
		}
	}
	if (i == sizeof(names) / sizeof(names[0])) {
		char *end;
		char hex[24];
		bool ok = s[0] == 'r' && nl >= 2 && nl - 1 < sizeof(hex);

		for (size_t j = 1; ok && j < nl; j++)
			ok = isxdigit((unsigned char)s[j]);
		if (!ok) {
			seterr(err, errlen, "unknown event '%.*s' (known: %s)", (int)nl, s,
			       hw_known_events());
			return -EINVAL;
		}
		memcpy(hex, s + 1, nl - 1);
		hex[nl - 1] = '\0';
		ev->attr.type = PERFRING_TYPE_RAW;
		ev->attr.config = strtoull(hex, &end, 16);
	}
	if (n >= sizeof(ev->name)) {
		seterr(err, errlen, "event '%.*s' is too long", (int)n, s);
		return -EINVAL;
	}
	memcpy(ev->name, s, n);
	ev->name[n] = '\0';
	if (colon) {
		if (colon + 1 == s + n) {
			seterr(err, errlen, "empty modifier after '%.*s:'", (int)nl, s);
			return -EINVAL;
		}
		/* Canonical spelling for aliases (cpu-cycles -> cycles). */
		if (ev->attr.type != PERFRING_TYPE_RAW)
			snprintf(ev->name, sizeof(ev->name), "%s:%.*s",
				 hw_event_name(ev->attr.type, ev->attr.config),
				 (int)(s + n - colon - 1), colon + 1);
		return apply_mods(&ev->attr, colon + 1, s + n - colon - 1, err, errlen);
	}
	if (ev->attr.type != PERFRING_TYPE_RAW)
		snprintf(ev->name, sizeof(ev->name), "%s",
			 hw_event_name(ev->attr.type, ev->attr.config));
	return 0;
}

static bool known_name(const char *s, size_t nl)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == nl && strncmp(names[i].name, s, nl) == 0)
			return true;
	return false;
}

/*
 * "sys:event[:mods]": a colon after something that is neither an event
 * name nor a raw rNNNN, not followed by modifiers only.
 */
static bool is_tracepoint(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t nl = colon ? (size_t)(colon - s) : n, i;
	bool raw = s[0] == 'r' && nl >= 2;

	if (!colon || nl == 0 || known_name(s, nl))
		return false;
	for (i = 1; raw && i < nl; i++)
		raw = isxdigit((unsigned char)s[i]);
	if (raw)
		return false;
	for (i = nl + 1; i < n && s[i] != ':'; i++)
		if (!strchr("ukhp", s[i]))
			return true;
	return i < n;	/* "x:u:k" is sys:event:mods; "cyclez:u" is a typo */
}

static int push(struct hw_evspec **arr, size_t *n, size_t *cap);

/* Every tracepoint that s (n bytes) names, appended as events. */
static int push_tracepoints(const char *s, size_t n, struct hw_evspec **arr, size_t *nout,
			    size_t *cap, char *err, size_t errlen)
{
	const char *c1 = memchr(s, ':', n);
	const char *c2 = memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1));
	size_t tn = c2 ? (size_t)(c2 - s) : n;
	struct perfring_tracepoint *tp;
	int cnt = hw_tp_lookup(s, tn, &tp, err, errlen), ret = 0;

	if (cnt < 0)
		return cnt == -ENOMEM ? -ENOMEM : cnt;
	for (int i = 0; i < cnt && !ret; i++) {
		struct hw_evspec *ev;

		if ((ret = push(arr, nout, cap)) < 0) {
			seterr(err, errlen, ret == -ENOMEM ? "out of memory" :
			       "too many events in '%.*s'", (int)n, s);
			break;
		}
		ev = &(*arr)[*nout - 1];
		memset(ev, 0, sizeof(*ev));
		ev->attr.size = PERFRING_ATTR_SIZE_VER7;
		ev->attr.type = PERFRING_TYPE_TRACEPOINT;
		ev->attr.config = tp[i].id;
		size_t l1 = strlen(tp[i].name), l2 = c2 ? (size_t)(s + n - c2) : 0;

		if (l1 + l2 >= sizeof(ev->name)) {
			seterr(err, errlen, "tracepoint name '%s' is too long", tp[i].name);
			ret = -EINVAL;
			break;
		}
		memcpy(ev->name, tp[i].name, l1);	/* then ":mods" as given */
		memcpy(ev->name + l1, c2 ? c2 : "", l2);
		ev->name[l1 + l2] = '\0';
		ev->leader = (int)(*nout - 1);
		ev->nr_members = 1;
		if (c2)
			ret = apply_mods(&ev->attr, c2 + 1, (size_t)(s + n - c2 - 1), err, errlen);
	}
	free(tp);
	return ret;
}

static int push(struct hw_evspec **arr, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct hw_evspec *na;

		if (nc > 4096)
			return -EINVAL;
		na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return -ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*n)++;
	return 0;
}

int hw_parse_events(const char *spec, struct hw_evspec **out, size_t *nout,
		    char *err, size_t errlen)
{
	struct hw_evspec *arr = NULL;
	size_t n = 0, cap = 0;
	const char *p = spec;
	int ret = -EINVAL;

	*out = NULL;
	*nout = 0;
	if (!spec || !*spec) {
		seterr(err, errlen, "empty event list");
		return -EINVAL;
	}
	while (*p) {
		if (*p == '{') {
			const char *close = strchr(p, '}');
			const char *q = p + 1, *mods = NULL;
			size_t first = n, mlen = 0;

			if (!close) {
				seterr(err, errlen, "'{' without '}' in '%s'", spec);
				goto fail;
			}
			if (memchr(q, '{', close - q)) {
				seterr(err, errlen, "nested '{' in '%s'", spec);
				goto fail;
			}
			if (close[1] == ':') {
				mods = close + 2;
				mlen = strcspn(mods, ",");
				if (!mlen) {
					seterr(err, errlen, "empty group modifier in '%s'", spec);
					goto fail;
				}
			}
			while (q < close) {
				size_t len = strcspn(q, ",}");

				if ((ret = push(&arr, &n, &cap)) < 0)
					goto fail_msg;
				if ((ret = parse_one(q, len, &arr[n - 1], err, errlen)) < 0)
					goto fail;
				if (mods && (ret = apply_mods(&arr[n - 1].attr, mods, mlen,
							      err, errlen)) < 0)
					goto fail;
				if (mods && strlen(arr[n - 1].name) + mlen + 2 < HW_EVNAME_MAX) {
					size_t l = strlen(arr[n - 1].name);

					snprintf(arr[n - 1].name + l, HW_EVNAME_MAX - l, "%s%.*s",
						 strchr(arr[n - 1].name, ':') ? "" : ":",
						 (int)mlen, mods);
				}
				arr[n - 1].leader = (int)first;
				q += len;
				if (*q == ',')
					q++;
			}
			if (n == first) {
				seterr(err, errlen, "empty group '{}' in '%s'", spec);
				ret = -EINVAL;
				goto fail;
			}
			arr[first].nr_members = (int)(n - first);
			p = mods ? mods + mlen : close + 1;
		} else if (is_tracepoint(p, strcspn(p, ","))) {
			size_t len = strcspn(p, ",");

			if ((ret = push_tracepoints(p, len, &arr, &n, &cap, err, errlen)) < 0)
				goto fail;
			p += len;
		} else {
			size_t len = strcspn(p, ",");

			if ((ret = push(&arr, &n, &cap)) < 0)
				goto fail_msg;
			if ((ret = parse_one(p, len, &arr[n - 1], err, errlen)) < 0)
				goto fail;
			arr[n - 1].leader = (int)(n - 1);
			arr[n - 1].nr_members = 1;
			p += len;
		}
		if (*p == ',') {
			p++;
			if (!*p) {
				seterr(err, errlen, "trailing ',' in '%s'", spec);
				ret = -EINVAL;
				goto fail;
			}
		} else if (*p) {
			seterr(err, errlen, "unexpected '%c' in '%s'", *p, spec);
			ret = -EINVAL;
			goto fail;
		}
	}
	*out = arr;
	*nout = n;
	return 0;
fail_msg:
	if (ret == -ENOMEM)
		seterr(err, errlen, "out of memory");
	else
		seterr(err, errlen, "too many events in '%s'", spec);
fail:
	free(arr);
	return ret < 0 ? ret : -EINVAL;
}
