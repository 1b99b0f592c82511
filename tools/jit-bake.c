/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JIT symbols baked into a perf.data: see jit-bake.h.  What perf needs
 * (why every load gets its own file offset, why the kernel's later
 * anonymous exec maps are dropped, why the MMAP2s go in time order) is in
 * doc/jit.md.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <glib.h>

#include "file-rewrite.h"
#include "jit-bake.h"
#include "tool-common.h"

struct anon {
	uint64_t start, end, time;
};

struct proc {
	uint32_t pid;
	char *dump;		/* from the marker map, or NULL */
	uint64_t marker_time;
	GArray *anon;		/* struct anon: exec anonymous maps seen */
	bool baked;		/* has JIT functions in an ELF */
	bool from_map;		/* baked from a perf map */
	char *elf_path;
	struct stat st;
};

struct pending {
	uint64_t time, seq;
	uint64_t addr, len, pgoff;
	uint32_t pid, tid;
	struct proc *proc;
};

struct jit_bake {
	char *base;
	char *map_dir;
	GHashTable *procs;	/* pid -> struct proc * */
	GArray *pending;	/* struct pending, sorted by build */
	size_t next;
	struct perfring_attr attr;
	uint64_t id;
	uint8_t buf[PERFRING_RECORD_MAX_SIZE + 8];
	struct jit_bake_stats st;
};

static void proc_free(gpointer p)
{
	struct proc *pr = p;

	g_free(pr->dump);
	g_free(pr->elf_path);
	g_array_free(pr->anon, TRUE);
	g_free(pr);
}

struct jit_bake *jit_bake_new(const char *base, const char *map_dir)
{
	struct jit_bake *b = g_new0(struct jit_bake, 1);

	if (g_path_is_absolute(base)) {
		b->base = g_strdup(base);
	} else {
		char *cwd = g_get_current_dir();

		b->base = g_build_filename(cwd, base, NULL);
		g_free(cwd);
	}
	b->map_dir = g_strdup(map_dir ? map_dir : "/tmp");
	b->procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_free);
	b->pending = g_array_new(FALSE, FALSE, sizeof(struct pending));
	return b;
}

void jit_bake_free(struct jit_bake *b)
{
	if (!b)
		return;
	g_hash_table_destroy(b->procs);
	g_array_free(b->pending, TRUE);
	g_free(b->base);
	g_free(b->map_dir);
	g_free(b);
}

void jit_bake_get_stats(const struct jit_bake *b, struct jit_bake_stats *st)
{
	*st = b->st;
}

static struct proc *proc_get(struct jit_bake *b, uint32_t pid)
{
	struct proc *p = g_hash_table_lookup(b->procs, GUINT_TO_POINTER(pid));

	if (!p) {
		p = g_new0(struct proc, 1);
		p->pid = pid;
		p->anon = g_array_new(FALSE, FALSE, sizeof(struct anon));
		g_hash_table_insert(b->procs, GUINT_TO_POINTER(pid), p);
	}
	return p;
}

struct map_rec {
	uint32_t pid, tid;
	uint64_t addr, len, time;
	bool exec;
	const char *filename;
};

/* An MMAP or MMAP2 record, decoded by the library.  Returns false for others. */
static bool parse_map(const struct perfring_attr *attr, const void *rec, size_t size,
		      struct map_rec *m)
{
	const struct perfring_event_header *h = rec;
	size_t tsz = attr ? perfring_record_trailer_size(attr, h->type) : 0;
	struct perfring_sample_id sid;
	struct perfring_mmap2 mm;

	if (perfring_mmap2_decode(attr, rec, size, &mm, &sid, NULL) < 0)
		return false;
	m->pid = mm.pid;
	m->tid = mm.tid;
	m->addr = mm.addr;
	m->len = mm.len;
	if (h->type == PERFRING_RECORD_MMAP ||
	    perfring_mmap2_layout(rec, size, tsz) == PERFRING_MMAP2_LAYOUT_EARLY)
		m->exec = !(mm.misc & PERFRING_MISC_MMAP_DATA);	/* no prot to look at */
	else
		m->exec = mm.prot & PROT_EXEC;
	m->filename = mm.filename;
	m->time = tsz && (attr->sample_type & PERFRING_SAMPLE_TIME) ? sid.time : 0;
	return true;
}

void jit_bake_scan(struct jit_bake *b, const struct perfring_attr *attr,
		   const void *rec, size_t size)
{
	struct map_rec m;

	if (!parse_map(attr, rec, size, &m))
		return;
	if (perfring_jitdump_is_marker(m.filename, m.pid)) {
		struct proc *p = proc_get(b, m.pid);

		if (!p->dump) {
			p->dump = g_strdup(m.filename);
			p->marker_time = m.time;
		}
	} else if (m.exec && perfring_jit_is_anon_map(m.filename) && m.addr + m.len > m.addr) {
		struct anon a = { m.addr, m.addr + m.len, m.time };

		g_array_append_val(proc_get(b, m.pid)->anon, a);
	}
}

static void add_pending(struct jit_bake *b, struct proc *p, uint32_t pid, uint32_t tid,
			uint64_t addr, uint64_t len, uint64_t pgoff, uint64_t time)
{
	struct pending q = { time, b->pending->len, addr, len, pgoff, pid, tid, p };

	g_array_append_val(b->pending, q);
}

struct load {
	uint64_t pgoff, size;
};

static void bake_dump(struct jit_bake *b, struct proc *p, struct perfring_jit_elf **elf)
{
	struct perfring_jitdump *r;
	struct perfring_jit_record rec = { .sz = sizeof(rec) };
	struct perfring_jitdump_stats js = { .sz = sizeof(js) };
	struct perfring_diag diag;
	GHashTable *loads;
	int ret;

	tool_diag_reset(&diag);
	if (perfring_jitdump_open(p->dump, &diag, &r) < 0) {
		tool_error_diag(&diag);
		b->st.problems++;
		return;
	}
	if (perfring_jitdump_header(r)->flags & PERFRING_JITDUMP_FLAG_ARCH_TIMESTAMP) {
		tool_error("%s: the dump uses architecture timestamps (TSC), not "
			   "CLOCK_MONOTONIC: not baked", p->dump);
		b->st.problems++;
		perfring_jitdump_close(r);
		return;
	}
	b->st.dumps++;
	perfring_jit_elf_new(perfring_jitdump_header(r)->elf_mach, elf);
	loads = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	while ((ret = perfring_jitdump_next(r, &rec, &diag)) == 1) {
		if (rec.id == PERFRING_JIT_CODE_LOAD && rec.u.load.code_size) {
			struct load *l = g_new(struct load, 1);
			gint64 *key = g_new(gint64, 1);

			if (perfring_jit_elf_add(*elf, rec.u.load.name, rec.u.load.code,
						 rec.u.load.code_size, &l->pgoff, &diag) < 0) {
				tool_error("%s: offset %#" PRIx64 ": %s", p->dump, rec.offset,
					   diag.msg);
				b->st.problems++;
				g_free(l);
				g_free(key);
				continue;
			}
			l->size = rec.u.load.code_size;
			*key = (gint64)rec.u.load.code_index;
			g_hash_table_replace(loads, key, l);
			add_pending(b, p, rec.u.load.pid, rec.u.load.tid, rec.u.load.code_addr,
				    l->size, l->pgoff, rec.timestamp);
		} else if (rec.id == PERFRING_JIT_CODE_MOVE) {
			gint64 key = (gint64)rec.u.move.code_index;
			struct load *l = g_hash_table_lookup(loads, &key);

			if (!l) {
				tool_error("%s: offset %#" PRIx64 ": CODE_MOVE of code_index %"
					   PRIu64 " that no CODE_LOAD before it has", p->dump,
					   rec.offset, rec.u.move.code_index);
				b->st.problems++;
				continue;
			}
			add_pending(b, p, rec.u.move.pid, rec.u.move.tid, rec.u.move.new_code_addr,
				    l->size, l->pgoff, rec.timestamp);
			b->st.moves++;
		}
	}
	if (ret < 0) {
		/* Everything before the damage is kept. */
		tool_error_diag(&diag);
		b->st.problems++;
	}
	perfring_jitdump_get_stats(r, &js);
	if (js.truncated_bytes)
		tool_error("warning: %s: the last %" PRIu64 " bytes are an incomplete record "
			   "(the runtime was still writing): not read", p->dump,
			   js.truncated_bytes);
	if (js.unknown)
		tool_error("warning: %s: %" PRIu64 " records of unknown type skipped", p->dump,
			   js.unknown);
	g_hash_table_destroy(loads);
	perfring_jitdump_close(r);
}

/* The earliest anonymous exec map of p holding [start, end), or NULL. */
static const struct anon *anon_holding(const struct proc *p, uint64_t start, uint64_t end)
{
	const struct anon *best = NULL;

	for (guint i = 0; i < p->anon->len; i++) {
		const struct anon *a = &g_array_index(p->anon, struct anon, i);

		if (a->start <= start && end <= a->end && (!best || a->time < best->time))
			best = a;
	}
	return best;
}

/*
 * The name perf gives an address when it reads a perf map itself (perf
 * 6.1, util/symbol.c): dso__load_perf_map inserts every line, in file
 * order, into a red-black tree keyed by start, an equal start going right
 * (symbols__insert), and fixes neither duplicates nor ends (no
 * symbols__fixup_duplicate, no symbols__fixup_end for perf maps); a
 * symbol covers [start, start + size), one of size 0 its start only.
 * symbols__find walks down from the root and takes the first symbol on
 * its path that covers the address.  Where two entries share a start (or
 * overlap), which one it meets depends on the tree's shape, so this builds
 * the same tree: the same insertions and the classic rebalancing of
 * perf's lib/rbtree.c (recolour for a red uncle, else one or two
 * rotations), then asks it as perf does.
 */
struct pm_sym {
	uint64_t start, end;	/* end == start: size 0 */
	uint32_t left, right, parent;	/* indices + 1; 0: none */
	bool red;
	uint64_t line;
	char *name;
};

struct pm_tree {
	GArray *s;		/* struct pm_sym */
	uint32_t root;
};

#define PM(t, i) (&g_array_index((t)->s, struct pm_sym, (i) - 1))

static void pm_rotate(struct pm_tree *t, uint32_t x, bool left)
{
	struct pm_sym *X = PM(t, x);
	uint32_t y = left ? X->right : X->left, p = X->parent;
	struct pm_sym *Y = PM(t, y);
	uint32_t mid = left ? Y->left : Y->right;

	if (left) {
		X->right = mid;
		Y->left = x;
	} else {
		X->left = mid;
		Y->right = x;
	}
	if (mid)
		PM(t, mid)->parent = x;
	Y->parent = p;
	X->parent = y;
	if (!p)
		t->root = y;
	else if (PM(t, p)->left == x)
		PM(t, p)->left = y;
	else
		PM(t, p)->right = y;
}

static void pm_insert(struct pm_tree *t, uint64_t start, uint64_t size, uint64_t line,
		      const char *name)
{
	struct pm_sym n = { .start = start, .end = start + size, .red = true, .line = line,
			    .name = g_strdup(name) };
	uint32_t x, parent = 0, cur = t->root;

	while (cur) {
		parent = cur;
		cur = start < PM(t, cur)->start ? PM(t, cur)->left : PM(t, cur)->right;
	}
	n.parent = parent;
	g_array_append_val(t->s, n);
	x = t->s->len;
	if (!parent)
		t->root = x;
	else if (start < PM(t, parent)->start)
		PM(t, parent)->left = x;
	else
		PM(t, parent)->right = x;
	while (PM(t, x)->parent && PM(t, PM(t, x)->parent)->red) {
		uint32_t p = PM(t, x)->parent, g = PM(t, p)->parent;
		bool p_left = PM(t, g)->left == p;
		uint32_t u = p_left ? PM(t, g)->right : PM(t, g)->left;

		if (u && PM(t, u)->red) {
			PM(t, p)->red = PM(t, u)->red = false;
			PM(t, g)->red = true;
			x = g;
			continue;
		}
		if (x == (p_left ? PM(t, p)->right : PM(t, p)->left)) {
			pm_rotate(t, p, p_left);
			x = p;
			p = PM(t, x)->parent;
		}
		PM(t, p)->red = false;
		PM(t, g)->red = true;
		pm_rotate(t, g, !p_left);
	}
	PM(t, t->root)->red = false;
}

/* symbols__find: the index + 1 of the symbol perf names ip with, or 0. */
static uint32_t pm_find(const struct pm_tree *t, uint64_t ip)
{
	uint32_t n = t->root;

	while (n) {
		const struct pm_sym *s = PM(t, n);

		if (ip < s->start)
			n = s->left;
		else if (ip > s->end || (ip == s->end && ip != s->start))
			n = s->right;
		else
			return n;
	}
	return 0;
}

static gint u64_cmp(gconstpointer a, gconstpointer b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void bake_map(struct jit_bake *b, struct proc *p, struct perfring_jit_elf **elf)
{
	struct perfring_perfmap *m;
	struct perfring_perfmap_entry e = { .sz = sizeof(e) };
	struct perfring_diag diag;
	char *path = g_strdup_printf("%s/perf-%" PRIu32 ".map", b->map_dir, p->pid);
	struct pm_tree t = { 0 };
	GArray *bounds;
	uint64_t bad;
	int ret;

	if (access(path, F_OK) < 0) {
		g_free(path);
		return;		/* not a JIT: nothing to bake */
	}
	tool_diag_reset(&diag);
	if (perfring_perfmap_open(path, &diag, &m) < 0) {
		tool_error_diag(&diag);
		b->st.problems++;
		g_free(path);
		return;
	}
	b->st.maps++;
	perfring_jit_elf_new(0, elf);
	t.s = g_array_new(FALSE, TRUE, sizeof(struct pm_sym));
	bounds = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	while ((ret = perfring_perfmap_next(m, &e, &diag)) == 1) {
		uint64_t end = e.start + (e.size ? e.size : 1);

		/* perf skips a line whose name has fewer than 3 bytes
		 * ("if (len + 2 >= line_len) continue"): not in its tree */
		if (strlen(e.name) < 3)
			continue;
		pm_insert(&t, e.start, e.size, e.line, e.name);
		g_array_append_val(bounds, e.start);
		g_array_append_val(bounds, end);
	}
	if (ret < 0) {
		tool_error_diag(&diag);
		b->st.problems++;
	}
	/*
	 * Between two consecutive starts or ends perf's answer is the same
	 * (a size-0 symbol is a range of one byte here): one function for
	 * each run of ranges that perf gives one symbol.  Without overlaps
	 * these are the entries themselves.
	 */
	g_array_sort(bounds, u64_cmp);
	for (guint i = 0; i + 1 < bounds->len;) {
		uint64_t lo = g_array_index(bounds, uint64_t, i), hi;
		uint32_t sym = pm_find(&t, lo);
		const struct anon *a;
		uint64_t pgoff;
		guint j = i + 1;

		/* the run: further ranges with the same answer */
		while (j + 1 < bounds->len &&
		       (g_array_index(bounds, uint64_t, j) == lo ||
			pm_find(&t, g_array_index(bounds, uint64_t, j)) == sym))
			j++;
		hi = g_array_index(bounds, uint64_t, j);
		i = j;
		if (!sym || hi <= lo)
			continue;	/* perf names nothing there */
		/* perf uses a map only for anonymous exec memory (the runtime's
		 * own binary has its symbols): so do we. */
		a = anon_holding(p, lo, hi);
		if (!a) {
			b->st.outside++;
			continue;
		}
		if (perfring_jit_elf_add(*elf, PM(&t, sym)->name, NULL, hi - lo, &pgoff, &diag) < 0) {
			tool_error("%s: line %" PRIu64 ": %s", path, PM(&t, sym)->line, diag.msg);
			b->st.problems++;
			continue;
		}
		add_pending(b, p, p->pid, p->pid, lo, hi - lo, pgoff, a->time);
	}
	for (guint i = 0; i < t.s->len; i++)
		g_free(g_array_index(t.s, struct pm_sym, i).name);
	g_array_free(t.s, TRUE);
	g_array_free(bounds, TRUE);
	perfring_perfmap_counts(m, NULL, NULL, &bad);
	b->st.problems += bad;	/* each one was reported by the reader */
	p->from_map = true;
	perfring_perfmap_close(m);
	g_free(path);
}

static gint pending_cmp(gconstpointer pa, gconstpointer pb)
{
	const struct pending *a = pa, *c = pb;

	if (a->time != c->time)
		return a->time < c->time ? -1 : 1;
	return a->seq < c->seq ? -1 : a->seq > c->seq;
}

static gint pid_cmp(gconstpointer a, gconstpointer b)
{
	uint32_t x = GPOINTER_TO_UINT(a), y = GPOINTER_TO_UINT(b);

	return x < y ? -1 : x > y;
}

int jit_bake_build(struct jit_bake *b, const struct perfring_attr *attr, uint64_t id)
{
	GList *pids = g_list_sort(g_hash_table_get_keys(b->procs), pid_cmp);
	int status = 0;

	b->attr = *attr;
	b->id = id;
	for (GList *l = pids; l; l = l->next) {
		struct proc *p = g_hash_table_lookup(b->procs, l->data);
		struct perfring_jit_elf *elf = NULL;
		struct perfring_diag diag;
		guint before = b->pending->len;

		if (p->dump)
			bake_dump(b, p, &elf);
		else if (p->anon->len)
			bake_map(b, p, &elf);
		if (!elf)
			continue;
		if (!perfring_jit_elf_count(elf)) {
			perfring_jit_elf_free(elf);
			continue;
		}
		p->elf_path = g_strdup_printf("%s.jit-%" PRIu32 ".so", b->base, p->pid);
		tool_diag_reset(&diag);
		if (perfring_jit_elf_write(elf, p->elf_path, NULL, &diag) < 0 ||
		    stat(p->elf_path, &p->st) < 0) {
			tool_error_diag(&diag);
			g_array_set_size(b->pending, before);
			perfring_jit_elf_free(elf);
			status = -1;
			break;
		}
		p->baked = true;
		b->st.elfs++;
		b->st.functions += perfring_jit_elf_count(elf);
		perfring_jit_elf_free(elf);
	}
	g_list_free(pids);
	g_array_sort(b->pending, pending_cmp);
	return status;
}

void jit_bake_set_event(struct jit_bake *b, const struct perfring_attr *attr, uint64_t id)
{
	b->attr = *attr;
	b->id = id;
}

bool jit_bake_drop(struct jit_bake *b, const struct perfring_attr *attr,
		   const void *rec, size_t size)
{
	struct map_rec m;
	struct proc *p;

	if (!parse_map(attr, rec, size, &m))
		return false;
	p = g_hash_table_lookup(b->procs, GUINT_TO_POINTER(m.pid));
	if (!p || !p->baked)
		return false;
	if (p->dump && perfring_jitdump_is_marker(m.filename, m.pid)) {
		b->st.dropped_markers++;
		return true;
	}
	/* Later anonymous exec maps of the process cover its JIT maps. */
	if (m.exec && perfring_jit_is_anon_map(m.filename) &&
	    (p->from_map || m.time >= p->marker_time)) {
		b->st.dropped_anon++;
		return true;
	}
	return false;
}

int jit_bake_next(struct jit_bake *b, const void **rec, size_t *size)
{
	const struct pending *q;
	struct perfring_jit_mmap2 m;
	int n;

	while (b->next < b->pending->len) {
		q = &g_array_index(b->pending, struct pending, b->next++);
		memset(&m, 0, sizeof(m));
		m.pid = q->pid;
		m.tid = q->tid;
		m.addr = q->addr;
		m.len = q->len;
		m.pgoff = q->pgoff;
		m.maj = major(q->proc->st.st_dev);
		m.min = minor(q->proc->st.st_dev);
		m.ino = q->proc->st.st_ino;
		m.time = q->time;
		m.id = b->id;
		m.filename = q->proc->elf_path;
		n = perfring_jit_mmap2_encode(&b->attr, &m, b->buf, sizeof(b->buf));
		if (n < 0)
			continue;	/* a path longer than a record: cannot happen */
		b->st.mmaps++;
		*rec = b->buf;
		*size = (size_t)n;
		return 1;
	}
	return 0;
}

/* ---- a whole perf.data rewritten (perfring-record) --------------------------- */

static int file_setup(void *user, struct perfring_writer *w, struct perfring_perfdata *pd,
		      struct perfring_diag *diag)
{
	(void)user;
	return file_rewrite_copy_events(w, pd, diag);
}

static size_t file_record(void *user, const struct perfring_attr *attr, const void *rec,
			  size_t size, const void **out)
{
	*out = rec;
	return jit_bake_drop(user, attr, rec, size) ? 0 : size;
}

static int file_next(void *user, const void **rec, size_t *size)
{
	return jit_bake_next(user, rec, size);
}

int jit_bake_file(const char *path, int argc, const char *const *argv, int compression_level,
		  const char *map_dir, struct jit_bake_stats *st)
{
	struct perfring_perfdata *pd = NULL;
	struct perfring_perfdata_record r = { .sz = sizeof(r) };
	struct perfring_diag diag;
	const struct perfring_attr *ev = NULL;
	struct jit_bake *b = jit_bake_new(path, map_dir);
	struct file_rewrite_ops ops = { .user = b, .setup = file_setup, .record = file_record,
					.next = file_next };
	uint64_t ev_id = 0;
	int ret, status = -1;

	memset(st, 0, sizeof(*st));
	tool_diag_reset(&diag);
	if (perfring_perfdata_open(path, NULL, &diag, &pd) < 0) {
		tool_error_diag(&diag);
		goto out;
	}
	while ((ret = perfring_perfdata_next(pd, &r, &diag)) == 1)
		jit_bake_scan(b, r.attr, r.hdr, r.size);
	for (uint32_t i = 0; i < perfring_perfdata_nr_attrs(pd) && !ev; i++) {
		const struct perfring_attr *a;
		const uint64_t *ids;
		uint32_t nr;

		if (perfring_perfdata_attr(pd, i, &a, &ids, &nr, NULL) == 0 &&
		    (a->flags & PERFRING_ATTR_MMAP || i + 1 == perfring_perfdata_nr_attrs(pd))) {
			ev = a;
			ev_id = nr ? ids[0] : 0;
		}
	}
	if (!ev || jit_bake_build(b, ev, ev_id) < 0)
		goto out;
	if (!b->st.elfs) {
		status = 0;	/* no JIT here: the file stays as it is */
		goto out;
	}
	perfring_perfdata_close(pd);
	pd = NULL;
	status = file_rewrite(path, argc, argv, compression_level, &ops, &b->st.problems);
out:
	*st = b->st;
	perfring_perfdata_close(pd);
	jit_bake_free(b);
	return status;
}
