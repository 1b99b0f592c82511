/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A strict JSON syntax checker (RFC 8259), for the fuzz targets. */
#include "config.h"

#include <stdint.h>

#include "json-check.h"

struct js {
	const unsigned char *p, *end;
	int depth;
};

static void ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool lit(struct js *j, const char *w)
{
	for (; *w; w++, j->p++)
		if (j->p >= j->end || *j->p != (unsigned char)*w)
			return false;
	return true;
}

static bool utf8(struct js *j)
{
	const unsigned char *s = j->p;
	size_t need, left = (size_t)(j->end - s);
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return false;
	}
	if (left < need)
		return false;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return false;
	j->p += need;
	return true;
}

static bool hex4(struct js *j)
{
	for (int i = 0; i < 4; i++, j->p++) {
		unsigned char c;

		if (j->p >= j->end)
			return false;
		c = *j->p;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

static bool string(struct js *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	j->p++;
	while (j->p < j->end) {
		unsigned char c = *j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end)
				return false;
			c = *j->p++;
			if (c == 'u') {
				if (!hex4(j))
					return false;
			} else if (!(c == '"' || c == '\\' || c == '/' || c == 'b' ||
				     c == 'f' || c == 'n' || c == 'r' || c == 't')) {
				return false;
			}
			continue;
		}
		if (c < 0x80) {
			j->p++;
			continue;
		}
		if (!utf8(j))
			return false;
	}
	return false;
}

static bool digits(struct js *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static bool number(struct js *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return false;
	}
	return true;
}

static bool value(struct js *j);

static bool members(struct js *j, bool object)
{
	char close = object ? '}' : ']';

	j->p++;
	if (++j->depth > 64)
		return false;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		ws(j);
		if (object) {
			if (!string(j))
				return false;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return false;
			j->p++;
		}
		if (!value(j))
			return false;
		ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return false;
		j->p++;
		j->depth--;
		return true;
	}
}

static bool value(struct js *j)
{
	ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return members(j, true);
	case '[':
		return members(j, false);
	case '"':
		return string(j);
	case 't':
		return lit(j, "true");
	case 'f':
		return lit(j, "false");
	case 'n':
		return lit(j, "null");
	default:
		return number(j);
	}
}

bool json_valid(const char *s, size_t n)
{
	struct js j = { (const unsigned char *)s, (const unsigned char *)s + n, 0 };

	if (!value(&j))
		return false;
	ws(&j);
	return j.p == j.end;
}
