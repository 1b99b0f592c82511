/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PERFRING_FUZZ_JSON_CHECK_H
#define PERFRING_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Is s[0..n) one complete JSON value (RFC 8259), UTF-8 without surrogates
 * or overlong forms, with nothing but white space around it?  A small
 * strict checker for the fuzz targets' output oracles (depth-limited).
 */
bool json_valid(const char *s, size_t n);

#endif
