/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The small strict JSON parser of the perfring tools (RFC 8259 less
 * fractions and exponents: every number the tools read is an exact
 * integer).  It knows nothing of records; json-codec.h builds on it.
 */
#ifndef PERFRING_TOOLS_JSON_H
#define PERFRING_TOOLS_JSON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* ---- the small strict JSON parser ----------------- */

enum jc_kind { JC_NULL, JC_BOOL, JC_INT, JC_STRING, JC_ARRAY, JC_OBJECT };

struct jc_value {
	enum jc_kind kind;
	bool b;			/* BOOL */
	bool neg;		/* INT: negative; the value is -mag */
	uint64_t mag;		/* INT: magnitude */
	char *s;		/* STRING (NUL-terminated, may hold NULs) */
	size_t len;		/* STRING length; ARRAY/OBJECT element count */
	struct jc_value **items;	/* ARRAY elements, OBJECT values */
	char **keys;		/* OBJECT keys */
	bool *used;		/* OBJECT: member consumed by the decoder */
	struct jc_slot *index;	/* OBJECT of JC_INDEX_MIN members or more:
				 * open addressing by key hash */
	uint32_t index_mask;	/* its size - 1 */
};

/* A slot of an object's index: a key's hash, and its member number + 1 (0: empty). */
struct jc_slot {
	uint32_t hash, member;
};

#define JC_INDEX_MIN 8

/*
 * Parse one JSON value (objects, arrays, strings with escapes, integers,
 * true/false/null; no fractions or exponents; duplicate keys refused;
 * nesting at most 64).  Returns the value, or NULL with *err set
 * ("at column N: ...").
 */
struct jc_value *jc_parse(const char *text, size_t len, char **err);
/* Free a tree: v is what jc_parse returned (the whole tree is one arena). */
void jc_value_free(struct jc_value *v);

/* The member of an OBJECT named key (as a C string), or NULL; *idx (if not
 * NULL) gets its position. */
struct jc_value *jc_member(const struct jc_value *obj, const char *key, size_t *idx);

/*
 * A message: p1, p2 and p3 (not NULL), then fmt formatted; g_free() it.
 * One allocation when the formatted part fits 255 bytes: most fuzz
 * inputs end with a message, and three allocations each were a tenth of
 * an execution.
 */
char *jc_vmsg(const char *p1, const char *p2, const char *p3, const char *fmt, va_list ap)
	G_GNUC_PRINTF(4, 0);

#endif
