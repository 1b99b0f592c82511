/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-replay --span NAME: the outermost spans of one name, per thread
 * (tools/marks-span.h).  The span edges of that name are kept, sorted by
 * thread and time, and walked once with a depth count: depth 0 -> 1 opens
 * an interval, 1 -> 0 closes it.  A thread's intervals are then sorted and
 * disjoint, so a sample is looked up by binary search.
 */
#include "config.h"

#include <string.h>

#include <glib.h>
#include <perfring/marks.h>

#include "marks-span.h"

struct edge {
	int32_t tid;
	int open;		/* 1 BEGIN, 0 END */
	uint64_t time;
	uint64_t seq;		/* order of arrival: equal times keep it */
};

struct interval {
	uint64_t from, to;	/* [from, to] */
};

struct marks_span {
	char *name;
	size_t name_len;
	GArray *edges;		/* struct edge */
	GHashTable *by_tid;	/* tid -> GArray of struct interval */
	uint64_t spans;
};

static void free_array(gpointer p)
{
	g_array_free(p, TRUE);
}

struct marks_span *marks_span_new(const char *name)
{
	struct marks_span *s = g_new0(struct marks_span, 1);

	s->name = g_strdup(name);
	s->name_len = strlen(name);
	s->edges = g_array_new(FALSE, FALSE, sizeof(struct edge));
	s->by_tid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, free_array);
	return s;
}

void marks_span_free(struct marks_span *s)
{
	if (!s)
		return;
	g_free(s->name);
	g_array_free(s->edges, TRUE);
	g_hash_table_destroy(s->by_tid);
	g_free(s);
}

void marks_span_add(struct marks_span *s, int32_t tid, uint64_t time, unsigned kind,
		    const char *name, size_t name_len)
{
	struct edge e = { .tid = tid, .time = time, .open = kind == PERFRING_MARK_BEGIN,
			  .seq = s->edges->len };

	if ((kind != PERFRING_MARK_BEGIN && kind != PERFRING_MARK_END) || !name ||
	    name_len != s->name_len || memcmp(name, s->name, name_len))
		return;
	g_array_append_val(s->edges, e);
}

static gint edge_cmp(gconstpointer pa, gconstpointer pb)
{
	const struct edge *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void marks_span_build(struct marks_span *s)
{
	GArray *cur = NULL;
	int32_t tid = 0;
	uint64_t depth = 0, from = 0;

	g_array_sort(s->edges, edge_cmp);
	for (guint i = 0; i <= s->edges->len; i++) {
		const struct edge *e = i < s->edges->len ? &g_array_index(s->edges, struct edge, i) : NULL;

		if (cur && (!e || e->tid != tid)) {
			if (depth) {	/* never ended: to the end of the recording */
				struct interval iv = { from, UINT64_MAX };

				g_array_append_val(cur, iv);
				s->spans++;
			}
			cur = NULL;
		}
		if (!e)
			break;
		if (!cur) {
			tid = e->tid;
			depth = 0;
			cur = g_array_new(FALSE, FALSE, sizeof(struct interval));
			g_hash_table_replace(s->by_tid, GINT_TO_POINTER(tid), cur);
		}
		if (e->open) {
			if (depth++ == 0)
				from = e->time;
		} else if (depth && --depth == 0) {
			struct interval iv = { from, e->time };

			g_array_append_val(cur, iv);
			s->spans++;
		}
	}
}

bool marks_span_inside(const struct marks_span *s, int32_t tid, uint64_t time)
{
	const GArray *iv = g_hash_table_lookup(s->by_tid, GINT_TO_POINTER(tid));
	guint lo = 0, hi;

	if (!iv)
		return false;
	hi = iv->len;
	while (lo < hi) {	/* the first interval that ends at or after time */
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(iv, struct interval, mid).to < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < iv->len && g_array_index(iv, struct interval, lo).from <= time;
}

uint64_t marks_span_count(const struct marks_span *s)
{
	return s->spans;
}
