/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile of one span (perfring-replay --span NAME): which samples were
 * taken on a thread while a span of that name was open on it.
 *
 *   s = marks_span_new("render");
 *   every marker: marks_span_add(s, tid, time, kind, name, name_len);
 *                 (kind: PERFRING_MARK_BEGIN, _END; others are ignored)
 *   marks_span_build(s);
 *   every sample: keep it if marks_span_inside(s, tid, time);
 *
 * Spans nest per thread; a sample counts from the outermost BEGIN of the
 * name to the END that closes it (an END with no open BEGIN is ignored, a
 * span never ended runs to the end of the recording).  Markers may come in
 * any order.
 */
#ifndef PERFRING_TOOLS_MARKS_SPAN_H
#define PERFRING_TOOLS_MARKS_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct marks_span;

struct marks_span *marks_span_new(const char *name);
void marks_span_free(struct marks_span *s);
/* A marker: kind PERFRING_MARK_BEGIN or _END (<perfring/marks.h>); other
 * kinds and other names are ignored. */
void marks_span_add(struct marks_span *s, int32_t tid, uint64_t time, unsigned kind,
		    const char *name, size_t name_len);
void marks_span_build(struct marks_span *s);
/* Whether a sample of tid at time lies inside an outermost span. */
bool marks_span_inside(const struct marks_span *s, int32_t tid, uint64_t time);
/* Outermost spans found (after marks_span_build). */
uint64_t marks_span_count(const struct marks_span *s);

#endif
