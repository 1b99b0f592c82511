/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The strict JSON parser of the tools (see json.h).
 *
 * A line's whole tree lives in one arena: chunks of memory handed out by
 * bumping a pointer, freed together by jc_value_free() on the root.  A
 * node, a key and an array per value from malloc was most of the cost of
 * a line (and under AddressSanitizer, whose allocator records a stack per
 * allocation, more than half of it).  Under AddressSanitizer the arena
 * keeps its checks: what has not been handed out is poisoned, and so is a
 * gap of at least 8 bytes after each allocation, so a read past the end of
 * a string or an array is still reported.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "json.h"
#include "num-fmt.h"

#include "util/asan.h"

#ifdef PR_ASAN
#define JC_REDZONE 8u
#else
#define JC_REDZONE 0u
#endif

#define JC_MAX_DEPTH 64
#define JC_CHUNK_MIN 1024u		/* bytes of the first chunk, at least */
#define JC_CHUNK_FIRST_MAX (64u << 10)	/* and at most; each next one doubles */
#define JC_STACK0 64			/* container members before the stack grows */

struct chunk {
	struct chunk *next;
	size_t cap, used;
	alignas(max_align_t) unsigned char mem[];
};

/* What jc_parse returns: the root, and the arena that holds the tree. */
struct jc_doc {
	struct jc_value root;		/* first: jc_value_free() gets its address */
	struct chunk *chunks;
};

struct parser {
	const char *p, *start, *end;
	char *err;
	struct chunk *chunks;		/* the arena, newest chunk first */
	/*
	 * The members of the open containers, innermost last: a container
	 * copies its own into the arena when it closes.
	 */
	struct jc_value **stack;
	char **kstack;
	size_t sp, scap;
	struct jc_value *stack0[JC_STACK0];
	char *kstack0[JC_STACK0];
	GString *esc;			/* a string with escapes, decoded */
};

char *jc_vmsg(const char *p1, const char *p2, const char *p3, const char *fmt, va_list ap)
{
	char m[256], *big, *r;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(m, sizeof(m), fmt, aq);
	va_end(aq);
	if (n >= 0 && (size_t)n < sizeof(m))
		return g_strconcat(p1, p2, p3, m, NULL);
	big = g_strdup_vprintf(fmt, ap);
	r = g_strconcat(p1, p2, p3, big, NULL);
	g_free(big);
	return r;
}

static void perr(struct parser *ps, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void perr(struct parser *ps, const char *fmt, ...)
{
	char col[NUM_DEC_MAX + 1];
	va_list ap;

	if (ps->err)
		return;
	col[NUM_DEC_MAX] = '\0';
	va_start(ap, fmt);
	ps->err = jc_vmsg("at column ", num_dec(col, (uint64_t)(ps->p - ps->start) + 1), ": ",
			  fmt, ap);
	va_end(ap);
}

/*
 * One chunk of the last tree freed is kept for the next (per thread): a
 * malloc per line was a fifth of the arena's cost.  It is poisoned while
 * it waits, so a read through a freed tree is still reported.  (The tools
 * parse on their main thread; a thread that parsed and exits leaves its
 * chunk behind, at most JC_CHUNK_FIRST_MAX bytes.)
 */
static _Thread_local struct chunk *spare;

static void chunks_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		if (c->cap <= JC_CHUNK_FIRST_MAX && (!spare || spare->cap < c->cap)) {
			g_free(spare);
			PR_POISON(c->mem, c->cap);
			spare = c;
		} else {
			PR_UNPOISON(c->mem, c->cap);
			g_free(c);
		}
		c = next;
	}
}

/* n bytes of the arena, 8-aligned (g_malloc aborts when memory runs out). */
static void *arena_alloc(struct parser *ps, size_t n)
{
	struct chunk *c = ps->chunks;
	size_t need = ((n + 7) & ~(size_t)7) + JC_REDZONE;
	void *r;

	if (!c || c->cap - c->used < need) {
		/* the first chunk is sized for the line, up to 64 KiB */
		size_t cap = c ? 2 * c->cap : (size_t)(ps->end - ps->start) * 8;

		if (cap < JC_CHUNK_MIN)
			cap = JC_CHUNK_MIN;
		if (!c && cap > JC_CHUNK_FIRST_MAX)
			cap = JC_CHUNK_FIRST_MAX;
		if (cap < need)
			cap = need;
		if (!c && spare && spare->cap >= need) {
			c = spare;		/* poisoned, as a new one */
			spare = NULL;
			cap = c->cap;
		} else {
			c = g_malloc(sizeof(*c) + cap);
			PR_POISON(c->mem, cap);
		}
		c->cap = cap;
		c->used = 0;
		c->next = ps->chunks;
		ps->chunks = c;
	}
	r = c->mem + c->used;
	c->used += need;
	PR_UNPOISON(r, n);
	return r;
}

static struct jc_value *new_value(struct parser *ps, enum jc_kind kind)
{
	struct jc_value *v = arena_alloc(ps, sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

static char *arena_strndup(struct parser *ps, const char *s, size_t n)
{
	char *r = arena_alloc(ps, n + 1);

	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

void jc_value_free(struct jc_value *v)
{
	struct jc_doc *doc = (struct jc_doc *)v;	/* v is its first member */

	if (!v)
		return;
	chunks_free(doc->chunks);
}

/*
 * Byte classes: what skip_ws skips, and what ends the plain run of a string
 * (its closing quote, an escape, a control byte).  One lookup per byte, not
 * three or four comparisons: most of a line's bytes are in strings.
 */
#define JC_WS 1u
#define JC_STR_END 2u
static const unsigned char byte_class[256] = {
	/* 0x00-0x1f: control bytes; \t, \n and \r are also blanks */
	2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 2, 2, 3, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	[' '] = JC_WS,
	['"'] = JC_STR_END,
	['\\'] = JC_STR_END,
};

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (byte_class[(unsigned char)*ps->p] & JC_WS))
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

/* A string, NUL-terminated in the arena; NULL on error. */
static char *parse_string(struct parser *ps, size_t *lenp)
{
	GString *s;
	const char *q;

	ps->p++;	/* opening quote */
	/*
	 * Most strings (keys, names, hex) have no escape: copy them as they
	 * are.  Anything else (an escape, a control byte, no closing quote)
	 * takes the loop below from the start of the string.
	 */
	for (q = ps->p; q < ps->end && !(byte_class[(unsigned char)*q] & JC_STR_END); q++)
		;
	if (q < ps->end && *q == '"') {
		char *r = arena_strndup(ps, ps->p, (size_t)(q - ps->p));

		*lenp = (size_t)(q - ps->p);
		ps->p = q + 1;
		return r;
	}
	if (!ps->esc)
		ps->esc = g_string_sized_new((size_t)(q - ps->p) + 16);
	s = ps->esc;
	g_string_truncate(s, 0);
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			return NULL;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			perr(ps, "control character in a string");
			return NULL;
		}
		if (c != '\\') {
			g_string_append_c(s, (char)c);
			ps->p++;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end) {
			perr(ps, "unterminated string");
			return NULL;
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
				return NULL;
			if (u >= 0x80 && u <= 0xff) {
				/* A byte that was not UTF-8 (see the header). */
				g_string_append_c(s, (char)u);
				break;
			}
			if (u >= 0xd800 && u <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
					perr(ps, "lone surrogate in \\u escape");
					return NULL;
				}
				ps->p += 2;
				if (hex4(ps, &lo) < 0)
					return NULL;
				if (lo < 0xdc00 || lo > 0xdfff) {
					perr(ps, "bad surrogate pair");
					return NULL;
				}
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				perr(ps, "lone surrogate in \\u escape");
				return NULL;
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
			return NULL;
		}
	}
	*lenp = s->len;
	return arena_strndup(ps, s->str, s->len);
}

static bool parse_value(struct parser *ps, int depth, struct jc_value *v);

/*
 * A key's hash, eight bytes at a time (a string is mostly its words: under
 * the fuzzer each loop step also costs a comparison callback).
 */
static uint32_t key_hash(const char *k)
{
	size_t n = strlen(k), i = 0;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, k + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, k + i, n - i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * The index of an object with many members.  The decoder looks up each
 * field it knows (forty for an ATTR line, most of them absent), and a scan
 * of the keys per lookup was a tenth of a decode.  It is built while the
 * object is parsed, from its JC_INDEX_MIN-th member on, and it is also how
 * a duplicate member is found: a scan of the keys before for each key made
 * an object of n members cost n * n / 2 comparisons.
 */
struct key_index {
	struct jc_slot *slot;		/* NULL: fewer than JC_INDEX_MIN members */
	uint32_t mask;
};

/* Put member (its number + 1) of hash h into the index; no duplicate check. */
static void index_put(struct key_index *ix, uint32_t h, uint32_t member)
{
	uint32_t s = h & ix->mask;

	while (ix->slot[s].member)
		s = (s + 1) & ix->mask;
	ix->slot[s].hash = h;
	ix->slot[s].member = member;
}

/* An index of size slots for the n keys of keys (all different). */
static void index_build(struct parser *ps, struct key_index *ix, uint32_t size,
			char **keys, size_t n)
{
	struct key_index old = *ix;

	ix->slot = arena_alloc(ps, size * sizeof(*ix->slot));
	memset(ix->slot, 0, size * sizeof(*ix->slot));
	ix->mask = size - 1;
	if (old.slot) {
		for (uint32_t s = 0; s <= old.mask; s++)
			if (old.slot[s].member)
				index_put(ix, old.slot[s].hash, old.slot[s].member);
		return;
	}
	for (size_t i = 0; i < n; i++)
		index_put(ix, key_hash(keys[i]), (uint32_t)i + 1);
}

/*
 * Add key, the member after the n of keys, to the object's index (made
 * once it has JC_INDEX_MIN members, doubled when half full); false if it
 * is there already.
 */
static bool index_add(struct parser *ps, struct key_index *ix, char **keys, size_t n,
		      const char *key)
{
	uint32_t h, s;

	if (!ix->slot) {
		for (size_t i = 0; i < n; i++)
			if (keys[i][0] == key[0] && !strcmp(keys[i], key))
				return false;
		if (n + 1 < JC_INDEX_MIN)
			return true;
		index_build(ps, ix, 16, keys, n);
	} else if (2 * (n + 1) > (size_t)ix->mask + 1) {
		if (n >= UINT32_MAX / 4)
			return true;	/* (never: a line is far shorter) */
		index_build(ps, ix, 2 * (ix->mask + 1), keys, n);
	}
	h = key_hash(key);
	for (s = h & ix->mask; ix->slot[s].member; s = (s + 1) & ix->mask)
		if (ix->slot[s].hash == h && !strcmp(keys[ix->slot[s].member - 1], key))
			return false;
	ix->slot[s].hash = h;
	ix->slot[s].member = (uint32_t)n + 1;
	return true;
}

struct jc_value *jc_member(const struct jc_value *obj, const char *key, size_t *idx)
{
	size_t i;

	if (obj->index) {
		uint32_t h = key_hash(key);

		for (uint32_t s = h & obj->index_mask; obj->index[s].member;
		     s = (s + 1) & obj->index_mask) {
			i = obj->index[s].member - 1;
			if (obj->index[s].hash == h && !strcmp(obj->keys[i], key))
				goto found;
		}
		return NULL;
	}
	for (i = 0; i < obj->len; i++)
		if (obj->keys[i][0] == key[0] && !strcmp(obj->keys[i], key))
			goto found;
	return NULL;
found:
	if (idx)
		*idx = i;
	return obj->items[i];
}

/* Room for one more member on the stack. */
static void stack_push(struct parser *ps, struct jc_value *item, char *key)
{
	if (ps->sp == ps->scap) {
		size_t ncap = 2 * ps->scap;

		if (ps->stack == ps->stack0) {
			ps->stack = g_memdup2(ps->stack0, sizeof(ps->stack0));
			ps->kstack = g_memdup2(ps->kstack0, sizeof(ps->kstack0));
		}
		ps->stack = g_renew(struct jc_value *, ps->stack, ncap);
		ps->kstack = g_renew(char *, ps->kstack, ncap);
		ps->scap = ncap;
	}
	ps->stack[ps->sp] = item;
	ps->kstack[ps->sp] = key;
	ps->sp++;
}

static bool parse_container(struct parser *ps, int depth, bool obj, struct jc_value *v)
{
	size_t base = ps->sp, n;
	char close = obj ? '}' : ']';
	struct key_index ix = { NULL, 0 };

	v->kind = obj ? JC_OBJECT : JC_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		goto done;
	}
	for (;;) {
		struct jc_value *item;
		char *key = NULL;

		skip_ws(ps);
		if (obj) {
			size_t klen;

			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected a member name");
				goto fail;
			}
			key = parse_string(ps, &klen);
			if (!key)
				goto fail;
			if (!index_add(ps, &ix, ps->kstack + base, ps->sp - base, key)) {
				perr(ps, "duplicate member \"%s\"", key);
				goto fail;
			}
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				goto fail;
			}
			ps->p++;
		}
		item = new_value(ps, JC_NULL);
		if (!parse_value(ps, depth + 1, item))
			goto fail;
		stack_push(ps, item, key);
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
	n = ps->sp - base;
	v->len = n;
	/* never a NULL array: callers index them for every member */
	v->items = arena_alloc(ps, (n ? n : 1) * sizeof(*v->items));
	memcpy(v->items, ps->stack + base, n * sizeof(*v->items));
	if (obj) {
		v->keys = arena_alloc(ps, (n ? n : 1) * sizeof(*v->keys));
		memcpy(v->keys, ps->kstack + base, n * sizeof(*v->keys));
		v->used = arena_alloc(ps, n ? n : 1);
		memset(v->used, 0, n ? n : 1);
		v->index = ix.slot;
		v->index_mask = ix.mask;
	}
	ps->sp = base;
	return true;
fail:
	ps->sp = base;
	return false;
}

static bool parse_number(struct parser *ps, struct jc_value *v)
{
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
			return false;
		}
		mag = mag * 10 + dig;
		ps->p++;
	}
	if (ps->p == d) {
		perr(ps, "expected a digit");
		return false;
	}
	if (ps->p - d > 1 && *d == '0') {
		ps->p = d;
		perr(ps, "leading zero in an integer");
		return false;
	}
	if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E')) {
		perr(ps, "only integers are accepted (no fraction or exponent)");
		return false;
	}
	if (neg && mag > (1ull << 63)) {
		perr(ps, "integer out of the 64-bit range");
		return false;
	}
	v->kind = JC_INT;
	v->neg = neg && mag;
	v->mag = mag;
	return true;
}

/* Parse one value into v (zeroed, in the arena). */
static bool parse_value(struct parser *ps, int depth, struct jc_value *v)
{
	skip_ws(ps);
	if (depth > JC_MAX_DEPTH) {
		perr(ps, "nested too deeply");
		return false;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end of line");
		return false;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, depth, true, v);
	case '[':
		return parse_container(ps, depth, false, v);
	case '"':
		v->kind = JC_STRING;
		v->s = parse_string(ps, &v->len);
		return v->s != NULL;
	case '-':
	case '0' ... '9':
		return parse_number(ps, v);
	default:
		break;
	}
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
		perr(ps, "unexpected character '%c'", *ps->p);
		return false;
	}
	return true;
}

struct jc_value *jc_parse(const char *text, size_t len, char **err)
{
	struct parser ps = { .p = text, .start = text, .end = text + len, .scap = JC_STACK0 };
	struct jc_doc *doc;
	bool ok;

	ps.stack = ps.stack0;
	ps.kstack = ps.kstack0;
	doc = arena_alloc(&ps, sizeof(*doc));
	memset(doc, 0, sizeof(*doc));
	ok = parse_value(&ps, 0, &doc->root);
	if (ok) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			perr(&ps, "unexpected text after the value");
			ok = false;
		}
	}
	if (ps.stack != ps.stack0) {
		g_free(ps.stack);
		g_free(ps.kstack);
	}
	if (ps.esc)
		g_string_free(ps.esc, TRUE);
	if (!ok) {
		chunks_free(ps.chunks);
		*err = ps.err ? ps.err : g_strdup("bad JSON");
		return NULL;
	}
	doc->chunks = ps.chunks;
	return &doc->root;
}
