// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tracing data (the TRACING_DATA feature of a perf.data file, the payload
 * of a pipe's HEADER_TRACING_DATA record): a validator of its framing and
 * of the syntax of the texts perf parses, so that a blob that would make
 * perf fail or crash is not written.
 *
 * The layout, as perf's trace-event-info.c writes it and trace-event-read.c
 * reads it (every integer in the byte order of the blob's endianness byte):
 *
 *	"\027\010\104tracing"			10 bytes
 *	version					"0.5" or "0.6", NUL-terminated
 *	big_endian, long_size			1 byte each
 *	page_size				u32
 *	"header_page\0", u64 size, text		ring-buffer page header fields
 *	"header_event\0", u64 size, text	(perf skips it)
 *	u32 count, count x { u64 size, text }	ftrace event formats
 *	u32 systems, systems x {
 *		name, NUL-terminated
 *		u32 count, count x { u64 size, text }	event formats
 *	}
 *	u32 size, kallsyms text			(perf 6.1 skips it; 0 bytes today)
 *	u32 size, printk formats text		ADDR : "FMT" lines
 *	0.6 only: u64 size, saved cmdlines	PID COMM lines
 *
 * What perf 6.1 does with damage, found by flipping single bytes of real
 * blobs (tests/lib/check_tracing_data.c, fuzz/README.md): a broken frame
 * (magic, section names, sizes, counts) mostly makes it refuse the file,
 * but a count or size that points into the middle of a text makes it
 * parse garbage as a format; and libtraceevent's parser of an event
 * format crashes (SIGSEGV, SIGABRT on "free(): invalid pointer", hangs)
 * on formats whose lines are cut or merged (a flipped '\n', ':' or ';'
 * in a field line), on a byte above 0x7e in a field, on a first field
 * not named common_type, and on a print fmt naming a field the format
 * does not have.  Of 2,452 flips of a file's blob 215 crashed perf, of
 * 1,820 of a pipe's 99: this validator refuses every one of the 215 and
 * 98 of the 99; the last is an ID changed into another number, which
 * only the caller can see (perfring_tracing_data_find_id).  So the
 * checks here are:
 *
 *  - framing: every size and count inside the blob, section names, the
 *    version (0.5 or 0.6; another is -ENOTSUP), endianness byte 0 or 1,
 *    long size 4 or 8, a page size that is a power of two, strings
 *    NUL-terminated and short (perf reads them into an 8 KiB stack buffer);
 *  - every format (ftrace and per system): the lines "name: NAME",
 *    "ID: NUMBER", "format:", field lines of the form
 *    "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;", blank lines,
 *    then "print fmt: " and a quoted format, its arguments one last
 *    line naming (REC->NAME) only fields it has; the first field
 *    common_type; only ASCII text and tabs; the system name a plain word;
 *  - the header page: field lines only;
 *  - the header event, kallsyms, printk and saved cmdlines texts: no NUL
 *    bytes; printk lines are ADDR : "FMT" (perf's reader runs past its
 *    buffer and underflows another on a line without one, see
 *    parse_ftrace_printk and tep_register_print_string).
 *
 * What it does not check: the meaning of a format (a field type that
 * libtraceevent does not know, an ID that another event already has,
 * offsets of fields that overlap, the expressions of a print fmt): those
 * need libtraceevent's parser, and no flip of the sample that only they
 * would have caught crashed perf.
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/internal.h"

/* The first version of struct perfring_tracing_data_info. */
#define TD_INFO_MIN sizeof(struct perfring_tracing_data_info)
/* Longest string perf reads (its read_string buffer is BUFSIZ); names of
 * versions and systems are far shorter. */
#define TD_STR_MAX 256
/* Field names kept per format for the print fmt check (the kernel's
 * largest formats here have 24 fields). */
#define TD_FIELDS_MAX 256

struct td {
	const unsigned char *p;
	size_t len;
	size_t pos;
	int swap;
	struct perfring_diag *diag;
	/* perfring_tracing_data_find_id: the ID looked for, the system of
	 * the formats being read, where the event's name goes */
	int want, found;
	uint64_t want_id;
	const char *sys;
	char *name;
	size_t name_len;
};

static int bad(struct td *t, size_t off, const char *fmt, ...) PR_PRINTF(3, 4);
static int bad(struct td *t, size_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_diag_vset(t->diag, -EBADMSG, NULL, off, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* n bytes at t->pos, else -EBADMSG naming what was cut. */
static int need(struct td *t, uint64_t n, const char *what)
{
	if (n > t->len - t->pos)
		return bad(t, t->pos, "tracing data ends inside %s: %zu of %" PRIu64 " bytes present",
			   what, t->len - t->pos, n);
	return 0;
}

static int u32_at(struct td *t, const char *what, uint32_t *v)
{
	int r = need(t, 4, what);

	if (r)
		return r;
	*v = pr_get32(t->p + t->pos);
	if (t->swap)
		*v = bswap_32(*v);
	t->pos += 4;
	return 0;
}

static int u64_at(struct td *t, const char *what, uint64_t *v)
{
	int r = need(t, 8, what);

	if (r)
		return r;
	*v = pr_get64(t->p + t->pos);
	if (t->swap)
		*v = bswap_64(*v);
	t->pos += 8;
	return 0;
}

/* A NUL-terminated string of at most TD_STR_MAX bytes: *s, *n its length. */
static int cstr_at(struct td *t, const char *what, const char **s, size_t *n)
{
	size_t max = t->len - t->pos;
	const unsigned char *e;

	if (max > TD_STR_MAX + 1)
		max = TD_STR_MAX + 1;
	e = memchr(t->p + t->pos, 0, max);
	if (!e) {
		if (max <= TD_STR_MAX)
			return bad(t, t->pos, "tracing data ends inside %s (no NUL)", what);
		return bad(t, t->pos, "%s is not NUL-terminated within %d bytes", what,
			   TD_STR_MAX);
	}
	*s = (const char *)t->p + t->pos;
	*n = (size_t)(e - (t->p + t->pos));
	t->pos += *n + 1;
	return 0;
}

/* A fixed tag (its NUL included). */
static int tag_at(struct td *t, const char *tag, size_t n)
{
	int r = need(t, n, tag);

	if (r)
		return r;
	if (memcmp(t->p + t->pos, tag, n))
		return bad(t, t->pos, "section name \"%s\" expected", tag);
	t->pos += n;
	return 0;
}

/* ---- texts -------------------------------------------------------------- */

/* A text section [a, b) of the blob. */
struct txt {
	const char *s;		/* the blob */
	size_t a, b;		/* bounds */
	size_t i;		/* cursor */
	const char *what;	/* "event format 3 of system \"sched\"" */
	char whatbuf[160];
	/* The names of the fields (offset in s, length), for the print
	 * fmt's REC->NAME; nf > TD_FIELDS_MAX: too many to keep. */
	unsigned nf;
	uint32_t fo[TD_FIELDS_MAX];
	uint16_t fl[TD_FIELDS_MAX];
};

static int idch(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

static int tbad(struct td *t, const struct txt *x, size_t at, const char *msg)
{
	return bad(t, at, "%s: %s", x->what, msg);
}

/* No NUL and no control byte but \t, \n (and \r, \f, \v seen nowhere but
 * harmless) anywhere in the text. */
static int plain_text(struct td *t, const struct txt *x, int nul_only)
{
	for (size_t i = x->a; i < x->b; i++) {
		unsigned char c = (unsigned char)x->s[i];

		if (c == 0)
			return tbad(t, x, i, "NUL byte in the text");
		if (!nul_only && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return tbad(t, x, i, "control byte in the text");
		if (!nul_only && c >= 0x7f)
			return tbad(t, x, i, c == 0x7f ? "control byte in the text" :
				    "byte above 0x7e in the text (the kernel's formats are ASCII)");
	}
	return 0;
}

static int at_eol(const struct txt *x) { return x->i >= x->b || x->s[x->i] == '\n'; }

static void blanks(struct txt *x)
{
	while (x->i < x->b && (x->s[x->i] == ' ' || x->s[x->i] == '\t'))
		x->i++;
}

/* Skip the literal lit at the cursor; 0 if it is not there. */
static int lit(struct txt *x, const char *lit)
{
	size_t n = strlen(lit);

	if (n > x->b - x->i || memcmp(x->s + x->i, lit, n))
		return 0;
	x->i += n;
	return 1;
}

/* Decimal digits (a leading '-' allowed if sign), at most 10 of them. */
static int number(struct txt *x, int sign)
{
	size_t d = 0;

	if (sign && x->i < x->b && x->s[x->i] == '-')
		x->i++;
	while (x->i < x->b && x->s[x->i] >= '0' && x->s[x->i] <= '9' && d <= 10)
		x->i++, d++;
	return d > 0 && d <= 10;
}

/* End of line: blanks, then '\n' (or the end of the text if last_ok). */
static int eol(struct txt *x)
{
	blanks(x);
	if (x->i < x->b && x->s[x->i] == '\n') {
		x->i++;
		return 1;
	}
	return 0;
}

/*
 * One field line, the cursor after its leading blanks and at "field":
 *	field:TYPE NAME;	offset:N;	size:N;	signed:N;
 * (header_page: "field: TYPE NAME;" and, on old kernels, no "signed").
 * TYPE NAME: printable, no ';' or ':' (but "::"-free C types have none),
 * at least one character, brackets balanced.
 */
static int field_line(struct td *t, struct txt *x)
{
	size_t start = x->i, tn;
	int depth = 0;

	if (!lit(x, "field:"))
		return tbad(t, x, x->i, "\"field:\" expected");
	blanks(x);
	tn = x->i;
	while (x->i < x->b && x->s[x->i] != ';' && x->s[x->i] != '\n') {
		char c = x->s[x->i];

		if (c == '[')
			depth++;
		else if (c == ']' && --depth < 0)
			return tbad(t, x, x->i, "unbalanced ']' in a field");
		else if (c == ':' || c == '\t')
			return tbad(t, x, x->i, "':' or tab inside a field's type and name");
		x->i++;
	}
	if (x->i == tn || at_eol(x))
		return tbad(t, x, start, "field line without \"TYPE NAME;\"");
	if (depth)
		return tbad(t, x, x->i, "unbalanced '[' in a field");
	/* The name: the last word before ';' (or before its '['). */
	{
		size_t e = x->i;

		while (e > tn && x->s[e - 1] == ' ')
			e--;
		if (e > tn && x->s[e - 1] == ']') {
			while (e > tn && x->s[e - 1] != '[')
				e--;
			if (e > tn)
				e--;
		}
		if (e == tn || !idch(x->s[e - 1]))
			return tbad(t, x, tn, "field without a name");
		if (x->nf < TD_FIELDS_MAX) {
			size_t n = e;

			while (n > tn && idch(x->s[n - 1]))
				n--;
			x->fo[x->nf] = (uint32_t)n;
			x->fl[x->nf] = (uint16_t)(e - n > 0xffff ? 0xffff : e - n);
		}
		x->nf++;
	}
	x->i++;	/* ';' */
	blanks(x);
	if (!lit(x, "offset:") || !number(x, 0) || !lit(x, ";"))
		return tbad(t, x, x->i, "\"offset:N;\" expected in a field line");
	blanks(x);
	if (!lit(x, "size:") || !number(x, 0) || !lit(x, ";"))
		return tbad(t, x, x->i, "\"size:N;\" expected in a field line");
	blanks(x);
	if (lit(x, "signed:") && (!number(x, 0) || !lit(x, ";")))
		return tbad(t, x, x->i, "\"signed:N;\" expected in a field line");
	if (!eol(x))
		return tbad(t, x, x->i, "end of the field line expected");
	return 0;
}

/* Field lines and blank lines up to the end of the text or to a line that
 * does not start with "field" (returned with the cursor at its start).
 * first: if non-NULL, the name the first field must have. */
static int field_lines(struct td *t, struct txt *x, unsigned *nr, const char *first)
{
	*nr = 0;
	while (x->i < x->b) {
		size_t line = x->i;
		int r;

		blanks(x);
		if (x->i < x->b && x->s[x->i] == '\n') {
			x->i++;
			continue;
		}
		if (x->i >= x->b)
			break;
		if (x->b - x->i < 5 || memcmp(x->s + x->i, "field", 5)) {
			x->i = line;
			break;
		}
		if (!*nr && first) {
			size_t e = x->i;
			const char *f = memchr(x->s + e, ';', x->b - e);
			size_t n = strlen(first);

			/* perf takes the type of every record from this
			 * field; a format without it crashes perf 6.1 */
			if (!f || (size_t)(f - (x->s + e)) < n + 1 ||
			    memcmp(f - n, first, n) || f[-(ptrdiff_t)n - 1] != ' ')
				return tbad(t, x, e, "the first field is not common_type");
		}
		r = field_line(t, x);
		if (r)
			return r;
		(*nr)++;
	}
	return 0;
}

/* A word of C identifier characters (event and system names). */
static int word(struct txt *x)
{
	size_t s = x->i;

	while (x->i < x->b) {
		char c = x->s[x->i];

		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z')))
			break;
		x->i++;
	}
	return x->i > s;
}

/*
 * One event format (ftrace or of a system), as the kernel's
 * events/SYSTEM/EVENT/format file has it:
 *
 *	name: sched_switch
 *	ID: 316
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...
 *
 *	print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 *
 * The print fmt is checked for its shape only (a quoted string, then one
 * line of arguments with strings closed and brackets balanced, every
 * REC->NAME a field): its grammar is C expressions, with casts and macros
 * such as __print_flags and __get_str, that only libtraceevent's parser
 * decides.  A flip there that keeps the shape (a '%d' turned into '%e')
 * gives other output, and crashed nothing in the sample.
 */
static int check_format(struct td *t, struct txt *x)
{
	size_t args, name, name_len, id;
	unsigned nf;
	int r;

	r = plain_text(t, x, 0);
	if (r)
		return r;
	if (!lit(x, "name:"))
		return tbad(t, x, x->i, "\"name: \" expected");
	blanks(x);
	name = x->i;
	if (!word(x))
		return tbad(t, x, x->i, "the event name must be one word on its line");
	name_len = x->i - name;
	if (!eol(x))
		return tbad(t, x, x->i, "the event name must be one word on its line");
	if (!lit(x, "ID:"))
		return tbad(t, x, x->i, "\"ID: \" expected");
	blanks(x);
	id = x->i;
	if (!number(x, 0) || !eol(x))
		return tbad(t, x, x->i, "the ID must be a number on its line");
	if (t->want && !t->found) {
		uint64_t v = 0;

		for (size_t i = id; i < x->b && x->s[i] >= '0' && x->s[i] <= '9'; i++)
			v = v * 10 + (uint64_t)(x->s[i] - '0');
		if (v == t->want_id) {
			t->found = 1;
			if (t->name_len)
				snprintf(t->name, t->name_len, "%s:%.*s", t->sys,
					 (int)name_len, x->s + name);
		}
	}
	if (!lit(x, "format:") || !eol(x))
		return tbad(t, x, x->i, "\"format:\" line expected");
	r = field_lines(t, x, &nf, "common_type");
	if (r)
		return r;
	if (!nf)
		return tbad(t, x, x->i, "format without fields");
	if (!lit(x, "print fmt:"))
		return tbad(t, x, x->i, "\"print fmt: \" expected after the fields");
	blanks(x);
	if (x->i >= x->b || x->s[x->i] != '"')
		return tbad(t, x, x->i, "the print fmt must start with '\"'");
	/* The quoted format, up to its closing quote (\" escapes skipped;
	 * a line break inside is real: ext4_fc_stats has one), then the
	 * arguments to the end of their line: strings closed, brackets
	 * balanced. */
	for (x->i++; x->i < x->b && x->s[x->i] != '"'; x->i++)
		if (x->s[x->i] == '\\' && x->i + 1 < x->b)
			x->i++;
	if (x->i >= x->b)
		return tbad(t, x, x->i, "the print fmt's string has no closing '\"'");
	args = x->i + 1;
	{
		int depth = 0;

		for (x->i++; x->i < x->b && x->s[x->i] != '\n'; x->i++) {
			char c = x->s[x->i];

			if (c == '"' || c == '\'') {	/* a string or char argument */
				size_t q = x->i;

				for (x->i++; x->i < x->b && x->s[x->i] != c &&
				     x->s[x->i] != '\n'; x->i++)
					if (x->s[x->i] == '\\' && x->i + 1 < x->b)
						x->i++;
				if (x->i >= x->b || x->s[x->i] != c)
					return tbad(t, x, q, "quote in the print fmt's arguments is not closed");
			} else if (c == '(' || c == '[' || c == '{') {
				depth++;
			} else if (c == ')' || c == ']' || c == '}') {
				if (--depth < 0)
					return tbad(t, x, x->i, "unbalanced bracket in the print fmt");
			}
		}
		if (depth)
			return tbad(t, x, x->i, "unbalanced bracket in the print fmt");
	}
	/* The arguments are one line, the last of the text (the kernel's
	 * every format): a byte after it is the start of what follows the
	 * format, taken in by a size one too large. */
	for (size_t i = x->i; i < x->b; i++)
		if (x->s[i] != '\n' && x->s[i] != ' ' && x->s[i] != '\t')
			return tbad(t, x, i, "text after the print fmt's line");
	/* Every REC->NAME of the arguments names a field: libtraceevent
	 * crashes printing one that does not (a flipped byte of a field's
	 * name).  Skipped for formats with more fields than are kept. */
	if (x->nf <= TD_FIELDS_MAX) {
		for (size_t i = args; i + 5 < x->b; i++) {
			size_t n, k;

			if (memcmp(x->s + i, "REC->", 5))
				continue;
			i += 5;
			for (n = 0; i + n < x->b && idch(x->s[i + n]); n++)
				;
			for (k = 0; k < x->nf; k++)
				if (x->fl[k] == n && !memcmp(x->s + x->fo[k], x->s + i, n))
					break;
			if (k == x->nf)
				return tbad(t, x, i, "the print fmt names a field (REC->...) the format does not have");
		}
	}
	return 0;
}

/* The header page: field lines only (tep_parse_header_page). */
static int check_header_page(struct td *t, struct txt *x)
{
	unsigned nf;
	int r = plain_text(t, x, 0);

	if (r)
		return r;
	r = field_lines(t, x, &nf, NULL);
	if (r)
		return r;
	if (x->i < x->b)
		return tbad(t, x, x->i, "field line expected");
	if (!nf)
		return tbad(t, x, x->a, "no fields");
	return 0;
}

/* printk formats: lines "ADDR : \"FMT\"" (the kernel's printk_formats). */
static int check_printk(struct td *t, struct txt *x)
{
	int r = plain_text(t, x, 1);

	if (r)
		return r;
	while (x->i < x->b) {
		size_t line = x->i, e, q;

		if (x->s[x->i] == '\n') {	/* strtok skips empty lines */
			x->i++;
			continue;
		}
		if (!lit(x, "0x"))
			return tbad(t, x, line, "printk line must start with \"0x\"");
		e = x->i;
		while (x->i < x->b && ((x->s[x->i] >= '0' && x->s[x->i] <= '9') ||
				       (x->s[x->i] >= 'a' && x->s[x->i] <= 'f') ||
				       (x->s[x->i] >= 'A' && x->s[x->i] <= 'F')))
			x->i++;
		if (x->i == e || x->i - e > 16)
			return tbad(t, x, e, "printk line: hexadecimal address expected");
		if (!lit(x, " : \""))
			return tbad(t, x, x->i, "printk line: \" : \\\"\" expected after the address");
		q = x->i;
		while (x->i < x->b && x->s[x->i] != '\n')
			x->i++;
		/* perf strips the quotes and looks two bytes before the
		 * closing one: at least one byte between them */
		if (x->i < q + 2 || x->s[x->i - 1] != '"')
			return tbad(t, x, x->i - 1, "printk line must be ADDR : \"FMT\" with a non-empty FMT");
		if (x->i < x->b)
			x->i++;
	}
	return 0;
}

/* Saved cmdlines: lines "PID COMM". */
static int check_cmdlines(struct td *t, struct txt *x)
{
	int r = plain_text(t, x, 1);

	if (r)
		return r;
	while (x->i < x->b) {
		size_t line = x->i;

		if (x->s[x->i] == '\n') {
			x->i++;
			continue;
		}
		if (!number(x, 1) || !lit(x, " ") || at_eol(x))
			return tbad(t, x, line, "saved cmdline line must be \"PID COMM\"");
		while (!at_eol(x))
			x->i++;
		if (x->i < x->b)
			x->i++;
	}
	return 0;
}

/* A text of `size` bytes at the cursor, checked by fn. */
static int text_at(struct td *t, uint64_t size, int (*fn)(struct td *, struct txt *),
		   const char *fmt, ...) PR_PRINTF(4, 5);
static int text_at(struct td *t, uint64_t size, int (*fn)(struct td *, struct txt *),
		   const char *fmt, ...)
{
	struct txt x;
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(x.whatbuf, sizeof(x.whatbuf), fmt, ap);
	va_end(ap);
	x.what = x.whatbuf;
	if (size > t->len - t->pos)
		return bad(t, t->pos, "%s: %" PRIu64 " bytes announced, %zu left in the tracing data",
			   x.what, size, t->len - t->pos);
	x.s = (const char *)t->p;
	x.nf = 0;
	x.a = x.i = t->pos;
	x.b = t->pos + (size_t)size;
	r = fn ? fn(t, &x) : plain_text(t, &x, 1);
	if (r)
		return r;
	t->pos = x.b;
	return 0;
}

/* Counts that cannot be real: every format is well over 16 bytes. */
static int count_ok(struct td *t, size_t at, uint32_t n, size_t each, const char *what)
{
	if ((uint64_t)n * each > t->len - t->pos)
		return bad(t, at, "%s %" PRIu32 " cannot fit in the %zu bytes left", what, n,
			   t->len - t->pos);
	return 0;
}

/* The magic and the version: 0 with *V6 set (0.6, else 0.5), or the error. */
static int check_version(struct td *t, struct perfring_tracing_data_info *in, int *v6)
{
	static const unsigned char magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *s;
	size_t n, at;
	int r;

	if (t->len < sizeof(magic) || memcmp(t->p, magic, sizeof(magic))) {
		for (size_t i = 0; i < sizeof(magic); i++)
			if (i >= t->len || t->p[i] != magic[i])
				return bad(t, i, i >= t->len ? "tracing data ends inside its magic" :
					   "not tracing data: bad magic (\"\\027\\010\\104tracing\" expected)");
	}
	t->pos = sizeof(magic);
	at = t->pos;
	if ((r = cstr_at(t, "the version string", &s, &n)))
		return r;
	for (size_t i = 0; i < n; i++)
		if ((s[i] < '0' || s[i] > '9') && s[i] != '.')
			return bad(t, at + i, "version string is not a number");
	if (n == 3 && !memcmp(s, "0.5", 3))
		*v6 = 0;
	else if (n == 3 && !memcmp(s, "0.6", 3))
		*v6 = 1;
	else {
		pr_diag_set(t->diag, -ENOTSUP, NULL, at,
			    "tracing data version \"%.*s\" is not one this library knows (0.5, 0.6)",
			    (int)n, s);
		return -ENOTSUP;
	}
	pr_strlcpy(in->version, s, sizeof(in->version));
	return 0;
}

/* The endianness, the long size and the page size: 0 or the error. */
static int check_machine(struct td *t, struct perfring_tracing_data_info *in)
{
	uint32_t v32;
	size_t at;
	int r;

	if ((r = need(t, 6, "the endianness, long size and page size")))
		return r;
	if (t->p[t->pos] > 1)
		return bad(t, t->pos, "endianness byte is %u, not 0 (little) or 1 (big)",
			   t->p[t->pos]);
	in->big_endian = t->p[t->pos];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	t->swap = !in->big_endian;
#else
	t->swap = in->big_endian;
#endif
	if (t->p[t->pos + 1] != 4 && t->p[t->pos + 1] != 8)
		return bad(t, t->pos + 1, "long size is %u, not 4 or 8", t->p[t->pos + 1]);
	in->long_size = t->p[t->pos + 1];
	t->pos += 2;
	at = t->pos;
	(void)u32_at(t, "the page size", &v32);
	if (v32 < 512 || (v32 & (v32 - 1)) || v32 > (1u << 24))
		return bad(t, at, "page size %" PRIu32 " is not a power of two from 512 to 16 MiB",
			   v32);
	in->page_size = v32;
	return 0;
}

/* The header page, the header event and the ftrace formats: 0 or the error. */
static int check_headers(struct td *t, struct perfring_tracing_data_info *in)
{
	uint32_t v32;
	uint64_t v64;
	size_t at;
	int r;

	if ((r = tag_at(t, "header_page", 12)) || (r = u64_at(t, "the header page size", &v64)) ||
	    (r = text_at(t, v64, check_header_page, "header page")))
		return r;
	if ((r = tag_at(t, "header_event", 13)) ||
	    (r = u64_at(t, "the header event size", &v64)) ||
	    (r = text_at(t, v64, NULL, "header event")))
		return r;

	at = t->pos;
	if ((r = u32_at(t, "the count of ftrace formats", &v32)) ||
	    (r = count_ok(t, at, v32, 8 + 16, "count of ftrace formats")))
		return r;
	in->nr_ftrace = v32;
	t->sys = "ftrace";
	for (uint32_t i = 0; i < in->nr_ftrace; i++) {
		if ((r = u64_at(t, "the size of an ftrace format", &v64)) ||
		    (r = text_at(t, v64, check_format, "ftrace format %" PRIu32, i)))
			return r;
	}
	return 0;
}

/* The systems and their event formats: 0 or the error. */
static int check_systems(struct td *t, struct perfring_tracing_data_info *in)
{
	const char *s;
	size_t n, at;
	uint32_t v32, nsys;
	uint64_t v64;
	int r;

	at = t->pos;
	if ((r = u32_at(t, "the count of systems", &nsys)) ||
	    (r = count_ok(t, at, nsys, 2 + 4, "count of systems")))
		return r;
	in->nr_systems = nsys;
	for (uint32_t i = 0; i < nsys; i++) {
		char sys[TD_STR_MAX + 1];

		at = t->pos;
		if ((r = cstr_at(t, "a system name", &s, &n)))
			return r;
		if (!n)
			return bad(t, at, "empty system name");
		for (size_t k = 0; k < n; k++)
			if (!(s[k] == '_' || s[k] == '-' || (s[k] >= '0' && s[k] <= '9') ||
			      (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z')))
				return bad(t, at + k, "system name has a byte 0x%02x that no tracefs name has",
					   (unsigned char)s[k]);
		memcpy(sys, s, n);
		sys[n] = 0;
		t->sys = sys;
		at = t->pos;
		if ((r = u32_at(t, "the count of a system's formats", &v32)) ||
		    (r = count_ok(t, at, v32, 8 + 16, "count of formats")))
			return r;
		for (uint32_t k = 0; k < v32; k++) {
			if ((r = u64_at(t, "the size of an event format", &v64)) ||
			    (r = text_at(t, v64, check_format, "event format %" PRIu32 " of system \"%s\"",
					 k, sys)))
				return r;
			in->nr_events++;
		}
	}
	return 0;
}

/* kallsyms, the printk formats and (0.6) the saved cmdlines: 0 or the error. */
static int check_texts(struct td *t, struct perfring_tracing_data_info *in, int v6)
{
	uint32_t v32;
	uint64_t v64;
	int r;

	if ((r = u32_at(t, "the kallsyms size", &v32)))
		return r;
	in->kallsyms_offset = t->pos;
	in->kallsyms_size = v32;
	if ((r = text_at(t, v32, NULL, "kallsyms")))
		return r;
	if ((r = u32_at(t, "the printk formats size", &v32)))
		return r;
	in->printk_offset = t->pos;
	in->printk_size = v32;
	if ((r = text_at(t, v32, check_printk, "printk formats")))
		return r;
	if (v6) {
		if ((r = u64_at(t, "the saved cmdlines size", &v64)))
			return r;
		in->cmdlines_offset = t->pos;
		in->cmdlines_size = v64;
		if ((r = text_at(t, v64, check_cmdlines, "saved cmdlines")))
			return r;
	}
	return 0;
}

/* The whole tracing data, part after part, in the order of the file. */
static int check(struct td *t, unsigned flags, struct perfring_tracing_data_info *in)
{
	int r, v6 = 0;

	if ((r = check_version(t, in, &v6)) || (r = check_machine(t, in)) ||
	    (r = check_headers(t, in)) || (r = check_systems(t, in)) ||
	    (r = check_texts(t, in, v6)))
		return r;
	in->size = t->pos;
	if (flags & PERFRING_TRACING_DATA_PIPE) {
		/* perf reads the blob, then its padding to 8, and requires the
		 * record's size to be that (perf_event__process_tracing_data). */
		if (PR_ALIGN8(t->pos) != t->len)
			return bad(t, t->pos,
				   "the tracing data take %zu bytes, %zu with their padding, but the record announces %zu",
				   t->pos, PR_ALIGN8(t->pos), t->len);
	}
	return 0;
}

static int run(const void *buf, size_t len, unsigned flags,
	       struct perfring_tracing_data_info *info, struct perfring_diag *diag,
	       struct td *t);

PERFRING_API int perfring_tracing_data_check(const void *buf, size_t len, unsigned flags,
					     struct perfring_tracing_data_info *info,
					     struct perfring_diag *diag)
{
	struct td t;

	memset(&t, 0, sizeof(t));
	return run(buf, len, flags, info, diag, &t);
}

PERFRING_API int perfring_tracing_data_find_id(const void *buf, size_t len, unsigned flags,
					       uint64_t id, char *name, size_t name_len,
					       struct perfring_diag *diag)
{
	struct td t;
	int r;

	if (name_len && !name) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "perfring_tracing_data_find_id: invalid argument");
		return -EINVAL;
	}
	if (name_len)
		name[0] = '\0';
	memset(&t, 0, sizeof(t));
	t.want = 1;
	t.want_id = id;
	t.name = name;
	t.name_len = name_len;
	r = run(buf, len, flags, NULL, diag, &t);
	if (r)
		return r;
	return t.found;
}

static int run(const void *buf, size_t len, unsigned flags,
	       struct perfring_tracing_data_info *info, struct perfring_diag *diag,
	       struct td *tp)
{
	struct perfring_tracing_data_info in;
	struct td t = *tp;
	int r;

	if ((!buf && len) || (flags & ~PERFRING_TRACING_DATA_PIPE) ||
	    (info && (info->sz < TD_INFO_MIN || info->sz > PERFRING_STRUCT_MAX))) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "perfring_tracing_data_check: invalid argument");
		return -EINVAL;
	}
	memset(&in, 0, sizeof(in));
	in.sz = sizeof(in);
	t.p = buf;
	t.len = len;
	t.diag = diag;
	r = check(&t, flags, &in);
	*tp = t;
	if (info)
		perfring_struct_fill(info, TD_INFO_MIN, &in, sizeof(in));
	if (!r && diag)
		memset(diag, 0, sizeof(*diag));
	return r;
}
