/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The strict JSON parser of the tools (see json.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "json.h"

#define JC_MAX_DEPTH 64

struct parser {
	const char *p, *start, *end;
	char *err;
};

static void perr(struct parser *ps, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	char *m;

	if (ps->err)
		return;
	va_start(ap, fmt);
	m = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	ps->err = g_strdup_printf("at column %zu: %s", (size_t)(ps->p - ps->start) + 1, m);
	g_free(m);
}

void jc_value_free(struct jc_value *v)
{
	if (!v)
		return;
	if (v->kind == JC_ARRAY || v->kind == JC_OBJECT) {
		for (size_t i = 0; i < v->len; i++) {
			jc_value_free(v->items[i]);
			if (v->keys)
				g_free(v->keys[i]);
		}
	}
	g_free(v->items);
	g_free(v->keys);
	g_free(v->used);
	g_free(v->s);
	g_free(v);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
				   *ps->p == '\r'))
		ps->p++;
}

static int hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;

	if (ps->end - ps->p < 4) {
		perr(ps, "truncated \\u escape");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else {
			ps->p--;
			perr(ps, "bad \\u escape");
			return -1;
		}
	}
	*out = v;
	return 0;
}

static char *parse_string(struct parser *ps, size_t *lenp)
{
	GString *s;
	const char *q;

	ps->p++;	/* opening quote */
	/*
	 * Most strings (keys, names, hex) have no escape: copy them in one
	 * allocation.  Anything else (an escape, a control byte, no closing
	 * quote) takes the loop below from the start of the string.
	 */
	for (q = ps->p; q < ps->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
		;
	if (q < ps->end && *q == '"') {
		char *r = g_strndup(ps->p, (size_t)(q - ps->p));

		*lenp = (size_t)(q - ps->p);
		ps->p = q + 1;
		return r;
	}
	s = g_string_sized_new((size_t)(q - ps->p) + 16);
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			goto fail;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			perr(ps, "control character in a string");
			goto fail;
		}
		if (c != '\\') {
			g_string_append_c(s, (char)c);
			ps->p++;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			goto fail;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': g_string_append_c(s, '"'); break;
		case '\\': g_string_append_c(s, '\\'); break;
		case '/': g_string_append_c(s, '/'); break;
		case 'b': g_string_append_c(s, '\b'); break;
		case 'f': g_string_append_c(s, '\f'); break;
		case 'n': g_string_append_c(s, '\n'); break;
		case 'r': g_string_append_c(s, '\r'); break;
		case 't': g_string_append_c(s, '\t'); break;
		case 'u': {
			unsigned u, lo;

			if (hex4(ps, &u) < 0)
				goto fail;
			if (u >= 0x80 && u <= 0xff) {
				/* A byte that was not UTF-8 (see the header). */
				g_string_append_c(s, (char)u);
				break;
			}
			if (u >= 0xd800 && u <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
					perr(ps, "lone surrogate in \\u escape");
					goto fail;
				}
				ps->p += 2;
				if (hex4(ps, &lo) < 0)
					goto fail;
				if (lo < 0xdc00 || lo > 0xdfff) {
					perr(ps, "bad surrogate pair");
					goto fail;
				}
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				perr(ps, "lone surrogate in \\u escape");
				goto fail;
			}
			if (u < 0x80)
				g_string_append_c(s, (char)u);
			else
				g_string_append_unichar(s, (gunichar)u);
			break;
		}
		default:
			ps->p--;
			perr(ps, "bad escape \\%c", c);
			goto fail;
		}
	}
	*lenp = s->len;
	return g_string_free(s, FALSE);
fail:
	g_string_free(s, TRUE);
	return NULL;
}

static struct jc_value *parse_value(struct parser *ps, int depth);

static struct jc_value *parse_container(struct parser *ps, int depth, bool obj)
{
	struct jc_value *v = g_new0(struct jc_value, 1);
	GPtrArray *items = g_ptr_array_new();
	GPtrArray *keys = obj ? g_ptr_array_new() : NULL;
	char close = obj ? '}' : ']';

	v->kind = obj ? JC_OBJECT : JC_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		goto done;
	}
	for (;;) {
		struct jc_value *item;

		skip_ws(ps);
		if (obj) {
			size_t klen;
			char *key;

			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a member name");
				goto fail;
			}
			key = parse_string(ps, &klen);
			if (!key)
				goto fail;
			for (size_t i = 0; i < keys->len; i++)
				if (((char *)keys->pdata[i])[0] == key[0] &&
				    !strcmp(keys->pdata[i], key)) {
					perr(ps, "duplicate member \"%s\"", key);
					g_free(key);
					goto fail;
				}
			g_ptr_array_add(keys, key);
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				goto fail;
			}
			ps->p++;
		}
		item = parse_value(ps, depth + 1);
		if (!item)
			goto fail;
		g_ptr_array_add(items, item);
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		perr(ps, "expected ',' or '%c'", close);
		goto fail;
	}
done:
	v->len = items->len;
	v->items = (struct jc_value **)g_ptr_array_free(items, FALSE);
	if (obj) {
		v->keys = (char **)g_ptr_array_free(keys, FALSE);
		v->used = g_new0(bool, v->len ? v->len : 1);
	}
	return v;
fail:
	g_ptr_array_set_free_func(items, (GDestroyNotify)jc_value_free);
	g_ptr_array_free(items, TRUE);
	if (keys) {
		g_ptr_array_set_free_func(keys, g_free);
		g_ptr_array_free(keys, TRUE);
	}
	g_free(v);
	return NULL;
}

static struct jc_value *parse_number(struct parser *ps)
{
	struct jc_value *v;
	bool neg = false;
	uint64_t mag = 0;
	const char *d;

	if (*ps->p == '-') {
		neg = true;
		ps->p++;
	}
	d = ps->p;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		unsigned dig = (unsigned)(*ps->p - '0');

		if (mag > (UINT64_MAX - dig) / 10) {
			perr(ps, "integer out of the 64-bit range");
			return NULL;
		}
		mag = mag * 10 + dig;
		ps->p++;
	}
	if (ps->p == d) {
		perr(ps, "expected a digit");
		return NULL;
	}
	if (ps->p - d > 1 && *d == '0') {
		ps->p = d;
		perr(ps, "leading zero in an integer");
		return NULL;
	}
	if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')) {
		perr(ps, "only integers are accepted (no fraction or exponent)");
		return NULL;
	}
	if (neg && mag > (1ull << 63)) {
		perr(ps, "integer out of the 64-bit range");
		return NULL;
	}
	v = g_new0(struct jc_value, 1);
	v->kind = JC_INT;
	v->neg = neg && mag;
	v->mag = mag;
	return v;
}

static struct jc_value *parse_value(struct parser *ps, int depth)
{
	struct jc_value *v;

	skip_ws(ps);
	if (depth > JC_MAX_DEPTH) {
		perr(ps, "nested too deeply");
		return NULL;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end of line");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, depth, true);
	case '[':
		return parse_container(ps, depth, false);
	case '"':
		v = g_new0(struct jc_value, 1);
		v->kind = JC_STRING;
		v->s = parse_string(ps, &v->len);
		if (!v->s) {
			g_free(v);
			return NULL;
		}
		return v;
	case '-':
	case '0' ... '9':
		return parse_number(ps);
	default:
		break;
	}
	v = g_new0(struct jc_value, 1);
	if ((size_t)(ps->end - ps->p) >= 4 && !memcmp(ps->p, "true", 4)) {
		v->kind = JC_BOOL;
		v->b = true;
		ps->p += 4;
	} else if ((size_t)(ps->end - ps->p) >= 5 && !memcmp(ps->p, "false", 5)) {
		v->kind = JC_BOOL;
		ps->p += 5;
	} else if ((size_t)(ps->end - ps->p) >= 4 && !memcmp(ps->p, "null", 4)) {
		v->kind = JC_NULL;
		ps->p += 4;
	} else {
		g_free(v);
		perr(ps, "unexpected character '%c'", *ps->p);
		return NULL;
	}
	return v;
}

struct jc_value *jc_parse(const char *text, size_t len, char **err)
{
	struct parser ps = { text, text, text + len, NULL };
	struct jc_value *v = parse_value(&ps, 0);

	if (v) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			perr(&ps, "unexpected text after the value");
			jc_value_free(v);
			v = NULL;
		}
	}
	if (!v) {
		*err = ps.err ? ps.err : g_strdup("bad JSON");
		return NULL;
	}
	return v;
}
