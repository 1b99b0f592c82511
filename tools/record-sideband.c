/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-record --switch-output: the side-band table that makes each
 * chunk open alone (record-sideband.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "record-sideband.h"

struct sb_map {
	struct perfring_mmap2 m;	/* m.filename owned (NUL-terminated) */
	uint32_t type;			/* MMAP or MMAP2, as seen (emitted as MMAP2) */
	uint64_t time;			/* of its record (sample_id_all), 0 if none */
};

struct sb_proc {
	uint32_t pid;
	GArray *maps;			/* struct sb_map, by addr */
	uint64_t exec_time;		/* of its latest COMM exec */
	uint64_t exit_time;		/* of its EXIT */
	int64_t exited;			/* chunk of its EXIT, -1 while alive */
};

struct sb_thread {
	struct perfring_comm comm;	/* pid, tid, name, misc */
	uint64_t comm_time;		/* of the COMM (or FORK) that named it */
	uint64_t exit_time;
	int64_t exited;
};

struct sideband {
	const struct perfring_registry *reg;
	struct perfring_attr attr;
	GHashTable *procs;		/* pid -> struct sb_proc */
	GHashTable *threads;		/* tid -> struct sb_thread */
	int64_t chunk;
	uint64_t undecodable;
	void *buf;			/* PERFRING_RECORD_MAX_SIZE, for emit */
};

static void map_clear(gpointer p)
{
	struct sb_map *m = p;

	g_free((char *)m->m.filename);
}

static void proc_free(gpointer p)
{
	struct sb_proc *pr = p;

	g_array_free(pr->maps, TRUE);
	g_free(pr);
}

static struct sb_proc *proc_get(struct sideband *t, uint32_t pid)
{
	struct sb_proc *pr = g_hash_table_lookup(t->procs, GUINT_TO_POINTER(pid));

	if (!pr) {
		pr = g_new0(struct sb_proc, 1);
		pr->pid = pid;
		pr->maps = g_array_new(FALSE, FALSE, sizeof(struct sb_map));
		g_array_set_clear_func(pr->maps, map_clear);
		pr->exited = -1;
		g_hash_table_insert(t->procs, GUINT_TO_POINTER(pid), pr);
	}
	return pr;
}

static struct sb_thread *thread_get(struct sideband *t, uint32_t pid, uint32_t tid)
{
	struct sb_thread *th = g_hash_table_lookup(t->threads, GUINT_TO_POINTER(tid));

	if (!th) {
		th = g_new0(struct sb_thread, 1);
		th->comm.misc = PERFRING_MISC_USER;
		th->exited = -1;
		g_hash_table_insert(t->threads, GUINT_TO_POINTER(tid), th);
	}
	th->comm.pid = pid;
	th->comm.tid = tid;
	return th;
}

struct sideband *sideband_new(const struct perfring_registry *reg,
			      const struct perfring_attr *attr)
{
	struct sideband *t = g_new0(struct sideband, 1);

	t->reg = reg;
	t->attr = *attr;
	t->procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_free);
	t->threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	t->buf = g_malloc(PERFRING_RECORD_MAX_SIZE);
	return t;
}

void sideband_free(struct sideband *t)
{
	if (!t)
		return;
	g_hash_table_destroy(t->procs);
	g_hash_table_destroy(t->threads);
	g_free(t->buf);
	g_free(t);
}

/* The typed record, and its time (0 without a trailer time). */
static int decode(struct sideband *t, const void *rec, size_t size, void *out, size_t out_size,
		  uint64_t *time)
{
	struct perfring_event_header h;
	const struct perfring_plugin *p;
	struct perfring_sample_id sid = { 0 };

	memcpy(&h, rec, sizeof(h));
	p = perfring_registry_find(t->reg, h.type);
	if (!p || perfring_plugin_decode(p, &t->attr, rec, size, out, out_size, &sid, NULL) < 0) {
		t->undecodable++;
		return -1;
	}
	*time = (t->attr.flags & PERFRING_ATTR_SAMPLE_ID_ALL) &&
		(t->attr.sample_type & PERFRING_SAMPLE_TIME) ? sid.time : 0;
	return 0;
}

/* A copy of m cut to [lo, hi), its file offset moved along. */
static struct sb_map piece(const struct sb_map *m, uint64_t lo, uint64_t hi)
{
	struct sb_map c = *m;

	c.m.pgoff += lo - m->m.addr;
	c.m.addr = lo;
	c.m.len = hi - lo;
	c.m.filename = g_strdup(m->m.filename);
	return c;
}

/*
 * The kernel's mmap replaces what it overlaps: cut the older maps.  The
 * rings are read one after the other, so records come only roughly in
 * time order: a map older than the process's exec, or than a map it
 * overlaps, came late and is left out.
 */
static void add_map(struct sb_proc *pr, const struct perfring_mmap2 *m, uint32_t type,
		    uint64_t time)
{
	uint64_t lo = m->addr, hi = m->addr + m->len;
	GArray *keep;
	struct sb_map n = { .m = *m, .type = type, .time = time };
	guint i;

	if (time < pr->exec_time)
		return;
	for (i = 0; i < pr->maps->len; i++) {
		const struct sb_map *o = &g_array_index(pr->maps, struct sb_map, i);

		if (o->m.addr < hi && o->m.addr + o->m.len > lo && o->time > time)
			return;
	}
	keep = g_array_sized_new(FALSE, FALSE, sizeof(struct sb_map), pr->maps->len + 2);
	for (i = 0; i < pr->maps->len; i++) {
		struct sb_map *o = &g_array_index(pr->maps, struct sb_map, i);
		uint64_t olo = o->m.addr, ohi = o->m.addr + o->m.len;
		struct sb_map c;

		if (ohi <= lo || olo >= hi) {
			c = piece(o, olo, ohi);
			g_array_append_val(keep, c);
			continue;
		}
		if (olo < lo) {
			c = piece(o, olo, lo);
			g_array_append_val(keep, c);
		}
		if (ohi > hi) {
			c = piece(o, hi, ohi);
			g_array_append_val(keep, c);
		}
	}
	n.m.filename = g_strndup(m->filename ? m->filename : "", m->filename_len);
	/* In address order, so that a chunk's maps read as /proc/PID/maps. */
	for (i = 0; i < keep->len && g_array_index(keep, struct sb_map, i).m.addr < lo; i++)
		;
	g_array_insert_val(keep, i, n);
	g_array_set_clear_func(keep, map_clear);
	g_array_free(pr->maps, TRUE);
	pr->maps = keep;
}

void sideband_see(struct sideband *t, const void *rec, size_t size)
{
	struct perfring_event_header h;
	uint64_t time;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERFRING_RECORD_COMM: {
		struct perfring_comm c = PERFRING_COMM_INIT;
		struct sb_thread *th;

		if (decode(t, rec, size, &c, sizeof(c), &time) < 0)
			break;
		if (c.exec) {
			/* The old image goes; maps of the new one may be here already. */
			struct sb_proc *pr = proc_get(t, c.pid);
			guint i = 0;

			if (time > pr->exec_time)
				pr->exec_time = time;
			while (i < pr->maps->len) {
				if (g_array_index(pr->maps, struct sb_map, i).time < time || !time)
					g_array_remove_index(pr->maps, i);
				else
					i++;
			}
		}
		th = thread_get(t, c.pid, c.tid);
		if (time && time < th->comm_time)
			break;		/* an older name, read late */
		memcpy(th->comm.comm, c.comm, sizeof(c.comm));
		th->comm.misc = c.misc;
		th->comm_time = time;
		break;
	}
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2: {
		struct perfring_mmap2 m = PERFRING_MMAP2_INIT;

		if (decode(t, rec, size, &m, sizeof(m), &time) < 0 || m.len == 0)
			break;
		add_map(proc_get(t, m.pid), &m, h.type, time);
		break;
	}
	case PERFRING_RECORD_FORK: {
		struct perfring_task k = { 0 };
		struct sb_thread *parent, *child;

		if (decode(t, rec, size, &k, sizeof(k), &time) < 0)
			break;
		parent = g_hash_table_lookup(t->threads, GUINT_TO_POINTER(k.ptid));
		child = thread_get(t, k.pid, k.tid);
		/* The child's own COMM (its exec) may have been read first. */
		if (parent && (!time || child->comm_time <= time)) {
			memcpy(child->comm.comm, parent->comm.comm, sizeof(child->comm.comm));
			child->comm_time = time;
		}
		/* A reused tid is a new task; an EXIT after this fork, read first, stays. */
		if (!time || child->exit_time <= time)
			child->exited = -1;
		if (k.pid != k.ppid) {
			/*
			 * A new process: a copy of its parent's address space,
			 * under the maps of its own already seen (the rings are
			 * read one after the other, so those may come first).
			 */
			struct sb_proc *pp = g_hash_table_lookup(t->procs, GUINT_TO_POINTER(k.ppid));
			struct sb_proc *pr = proc_get(t, k.pid);
			GArray *own = pr->maps;

			if (pr->exited >= 0 && (!time || pr->exit_time <= time)) {
				/* a reused pid: the old maps go */
				g_array_set_size(own, 0);
				pr->exited = -1;
				pr->exec_time = 0;
			}
			pr->maps = g_array_new(FALSE, FALSE, sizeof(struct sb_map));
			g_array_set_clear_func(pr->maps, map_clear);
			/* Its exec, read first, replaced the parent's image. */
			if (pr->exec_time && (!time || pr->exec_time > time))
				pp = NULL;
			for (guint i = 0; pp && i < pp->maps->len; i++) {
				const struct sb_map *o = &g_array_index(pp->maps, struct sb_map, i);
				struct sb_map c;

				if (time && o->time > time)	/* mapped after the fork */
					continue;
				c = piece(o, o->m.addr, o->m.addr + o->m.len);
				c.m.pid = c.m.tid = k.pid;
				g_array_append_val(pr->maps, c);
			}
			for (guint i = 0; i < own->len; i++) {
				const struct sb_map *o = &g_array_index(own, struct sb_map, i);

				add_map(pr, &o->m, o->type, o->time);
			}
			g_array_free(own, TRUE);
		}
		break;
	}
	case PERFRING_RECORD_EXIT: {
		struct perfring_task k = { 0 };
		struct sb_thread *th;
		struct sb_proc *pr;

		if (decode(t, rec, size, &k, sizeof(k), &time) < 0)
			break;
		/* Known from here on even if its FORK comes later. */
		th = thread_get(t, k.pid, k.tid);
		th->exited = t->chunk;
		th->exit_time = time;
		if (k.pid == k.tid) {
			pr = proc_get(t, k.pid);
			pr->exited = t->chunk;
			pr->exit_time = time;
		}
		break;
	}
	default:
		break;
	}
}

static gboolean thread_gone(gpointer key, gpointer value, gpointer user)
{
	const struct sb_thread *th = value;
	const int64_t *chunk = user;

	(void)key;
	return th->exited >= 0 && th->exited < *chunk - 1;
}

static gboolean proc_gone(gpointer key, gpointer value, gpointer user)
{
	const struct sb_proc *pr = value;
	const int64_t *chunk = user;

	(void)key;
	return pr->exited >= 0 && pr->exited < *chunk - 1;
}

void sideband_next_chunk(struct sideband *t)
{
	t->chunk++;
	g_hash_table_foreach_remove(t->threads, thread_gone, &t->chunk);
	g_hash_table_foreach_remove(t->procs, proc_gone, &t->chunk);
}

/* Keys in ascending order, for a stable order of the records. */
static gint by_key(gconstpointer a, gconstpointer b)
{
	guint x = GPOINTER_TO_UINT(a), y = GPOINTER_TO_UINT(b);

	return x < y ? -1 : x > y;
}

static int put(struct sideband *t, const struct perfring_attr *attr, uint32_t type,
	       const void *typed, const struct perfring_sample_id *sid,
	       int (*fn)(const void *, size_t, void *), void *user)
{
	const struct perfring_plugin *p = perfring_registry_find(t->reg, type);
	int n;

	if (!p)
		return -EOPNOTSUPP;
	n = perfring_plugin_encode(p, attr, type, typed, sid, t->buf, PERFRING_RECORD_MAX_SIZE);
	if (n < 0)
		return n;
	return fn(t->buf, (size_t)n, user);
}

int sideband_emit(struct sideband *t, const struct perfring_attr *attr, uint64_t id,
		  uint64_t time, int (*fn)(const void *rec, size_t size, void *user), void *user)
{
	GList *tids = g_list_sort(g_hash_table_get_keys(t->threads), by_key);
	GList *pids = g_list_sort(g_hash_table_get_keys(t->procs), by_key);
	int ret = 0, count = 0;

	for (GList *l = tids; ret >= 0 && l; l = l->next) {
		const struct sb_thread *th = g_hash_table_lookup(t->threads, l->data);
		struct perfring_comm c = th->comm;
		struct perfring_sample_id sid = {
			.pid = c.pid, .tid = c.tid, .time = time, .id = id, .identifier = id,
		};

		c.exec = false;
		ret = put(t, attr, PERFRING_RECORD_COMM, &c, &sid, fn, user);
		count++;
	}
	for (GList *l = pids; ret >= 0 && l; l = l->next) {
		const struct sb_proc *pr = g_hash_table_lookup(t->procs, l->data);

		for (guint j = 0; ret >= 0 && j < pr->maps->len; j++) {
			struct perfring_mmap2 m = g_array_index(pr->maps, struct sb_map, j).m;
			struct perfring_sample_id sid = {
				.pid = m.pid, .tid = m.tid, .time = time, .id = id, .identifier = id,
			};

			m.filename_len = strlen(m.filename);
			ret = put(t, attr, PERFRING_RECORD_MMAP2, &m, &sid, fn, user);
			count++;
		}
	}
	g_list_free(tids);
	g_list_free(pids);
	return ret < 0 ? ret : count;
}

void sideband_get_stats(const struct sideband *t, struct sideband_stats *st)
{
	GHashTableIter it;
	gpointer v;

	memset(st, 0, sizeof(*st));
	st->tasks = g_hash_table_size(t->threads);
	st->processes = g_hash_table_size(t->procs);
	st->undecodable = t->undecodable;
	g_hash_table_iter_init(&it, t->procs);
	while (g_hash_table_iter_next(&it, NULL, &v))
		st->maps += ((const struct sb_proc *)v)->maps->len;
}
