/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Integers to text without printf, for the tools' per-record output
 * (perfring-dump's text lines, the JSON codec): one vsnprintf per field
 * was most of their time.  Digits are written right-aligned into a caller's
 * buffer; the return value points at the first one.
 */
#ifndef PERFRING_NUM_FMT_H
#define PERFRING_NUM_FMT_H

#include <stdint.h>

#define NUM_DEC_MAX 20	/* digits of UINT64_MAX */
#define NUM_HEX_MAX 16

static const char num_hex_digits[] = "0123456789abcdef";

/* v in decimal: the digits end at buf + NUM_DEC_MAX */
static inline char *num_dec(char buf[NUM_DEC_MAX], uint64_t v)
{
	char *p = buf + NUM_DEC_MAX;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

/* v in lower-case hex, at least width (<= 16) digits: they end at buf + NUM_HEX_MAX */
static inline char *num_hex(char buf[NUM_HEX_MAX], uint64_t v, int width)
{
	char *p = buf + NUM_HEX_MAX;

	do {
		*--p = num_hex_digits[v & 15];
		v >>= 4;
	} while (v || (buf + NUM_HEX_MAX - p < width && p > buf));
	return p;
}

#endif
