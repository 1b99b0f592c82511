/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-export: a profile out of a perf.data file (any the library
 * reads: every version, either byte order, zstd, pipe mode) or a perfring
 * ring, as pprof (gzipped profile.proto), folded stacks or an SVG flame
 * graph, symbolized from the ELF files themselves (no perf needed).
 *
 * Reading: records through the sources API in order; COMM, MMAP, MMAP2 and
 * FORK keep each process's address space and each thread's name as perf
 * does; each SAMPLE becomes a stack of locations (its call chain without
 * perf's PERF_CONTEXT_* markers, else its ip) and is added to an
 * aggregated sample of the same event, pid, tid, cpu, comm and stack.
 * A location is a (mapping, address) pair; return addresses (every frame
 * but the leaf) are looked up at ip - 1, as perf does, so that a call at
 * the end of a function is not credited to the next one.
 *
 * Symbolizing, once per location after the input is read (tools/
 * export-elf.c): a mapping's file is found by build id first
 * (~/.debug/.build-id/XX/REST/elf, /usr/lib/debug/.build-id/XX/REST.debug,
 * ~/.debug/PATH/BUILDID/elf), else by its path (which must then have the
 * same build id, if one is known); a file offset (ip - start + pgoff) is
 * turned into a symbol address through the PT_LOAD segment holding it.
 * Kernel frames are looked up in /proc/kallsyms only when the recording
 * was made on this host and kernel (HEADER_HOSTNAME and HEADER_OSRELEASE
 * equal gethostname and uname -r, and the kernel map's _text address, when
 * recorded, equals this boot's); otherwise they stay raw addresses.  C++
 * names are demangled with libstdc++'s __cxa_demangle, looked up with
 * dlsym at run time (no link dependency; without libstdc++ names stay
 * mangled), which prints them as perf report does (with parameters).
 *
 * --call-graph dwarf samples (user registers and stack copy) are unwound
 * with libdw (tools/export-unwind.c) after their kernel chain; the raw
 * unwound chain is then handled like a frame-pointer one.
 *
 * Damage: the records before it are exported, the diagnostic names the
 * file and byte offset, exit 1.  The output appears under its name only
 * when complete (a temporary file in the same directory, renamed).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "export-elf.h"
#include "export-unwind.h"
#include "export.h"
#include "tool-common.h"

TOOL_DEFINE_BUILD_PLUGINS_PATH;

static gboolean opt_version;
static gboolean opt_no_symbolize;
static gchar *opt_format;
static gchar *opt_output;
static gchar *opt_event;
static gchar *opt_title;

static const GOptionEntry entries[] = {
	{ "format", 'f', 0, G_OPTION_ARG_STRING, &opt_format,
	  "pprof (gzipped profile.proto, the default), folded or svg", "FORMAT" },
	{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
	  "Write to FILE (default: standard output; written whole, then renamed)", "FILE" },
	{ "no-symbolize", 0, 0, G_OPTION_ARG_NONE, &opt_no_symbolize,
	  "Leave addresses raw (no ELF or kallsyms look-ups)", NULL },
	{ "event", 'e', 0, G_OPTION_ARG_STRING, &opt_event,
	  "folded/svg: the samples of this event (default: the first with samples)", "NAME" },
	{ "title", 't', 0, G_OPTION_ARG_STRING, &opt_title,
	  "svg: the title (default: the input's name)", "TEXT" },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Show the library version and exit", NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

/* ---- state ------------------------------------------------------------------ */

struct pmap {
	uint64_t start, end, pgoff;	/* pgoff: the file offset at start */
	uint32_t mapping;		/* id */
};

struct proc {
	GArray *maps;		/* struct pmap, sorted by start, not overlapping */
	struct ex_unwinder *uw;	/* --call-graph dwarf samples; NULL until one */
	uint32_t uw_gen;	/* the map generation it was made in */
	uint32_t pid;
};

/* The one exporter of this run, for libdw's callbacks (unwind_module). */
static struct exporter *cur_exporter;

/* Bumped by every change of any address space (see location()). */
static uint32_t map_gen = 1;

/* An aggregated sample's key: event, pid, tid, cpu, comm, then frames. */
/*
 * An aggregated sample's key: event, pid/tid, cpu, comm, the map generation
 * and the cpumode, then the raw call chain (or ip).  Raw addresses, so that
 * a stack seen before (most samples of a busy program) costs one hash
 * lookup, not one location lookup per frame; the map generation keeps
 * stacks apart whose addresses meant other things.  The frames (location
 * ids) follow the words in the same allocation.
 */
struct skey {
	uint32_t n;		/* words */
	uint32_t idx;		/* the sample's index */
	uint64_t w[];
};
#define SKEY_HEAD 6

struct lkey {
	uint64_t addr;
	uint32_t mapping;
	uint32_t kernel;
};

#define EX_MAX_CHAIN 1024	/* frames of a chain with its DWARF-unwound part */
#define EX_MAX_UNWIND 256	/* frames unwound of one user stack */

struct exporter {
	const char *path;
	struct perfring_source *src;
	struct perfring_perfdata *pd;
	struct ex_profile prof;
	GHashTable *procs;	/* pid -> struct proc * */
	GHashTable *comm_of;	/* tid -> comm index + 1 */
	GHashTable *comm_idx;	/* comm -> index + 1 */
	GHashTable *mapping_idx;	/* description -> id */
	GHashTable *loc_idx;	/* struct lkey * -> id */
	GHashTable *sample_idx;	/* struct skey * -> itself */
	GHashTable *func_idx;	/* "file\nsymbol" -> id */
	GHashTable *buildids;	/* file name -> GBytes (HEADER_BUILD_ID) */
	GHashTable *symfiles;	/* resolved path -> struct esym_file * (or NULL) */
	GArray *evmap;		/* source event index -> ex event index + 1 */
	GArray *frames;		/* uint32_t: the sample being built */
	struct skey *key;	/* the key being looked up, keycap words */
	size_t keycap;
	uint64_t chain[EX_MAX_CHAIN];	/* a kernel chain and its unwound user part */
	uint64_t kernel_text;	/* pgoff of the [kernel.kallsyms]_text map */
	uint64_t first_time, last_time;
	uint64_t nsamples, bad_samples;
	int has_time;
	char *hostname, *osrelease;
	uint64_t clock_wall, clock_ref;	/* CLOCK_DATA */
	int has_clock;
	struct proc *last_proc;
	uint32_t last_pid;
};

static guint skey_hash(gconstpointer p)
{
	const struct skey *k = p;
	uint64_t h = k->n;

	for (uint32_t i = 0; i < k->n; i++)
		h = (h ^ k->w[i]) * 0x9e3779b97f4a7c15ull;
	return (guint)(h ^ h >> 32);
}

static gboolean skey_equal(gconstpointer a, gconstpointer b)
{
	const struct skey *x = a, *y = b;

	return x->n == y->n && memcmp(x->w, y->w, x->n * sizeof(uint64_t)) == 0;
}

static guint lkey_hash(gconstpointer p)
{
	const struct lkey *k = p;
	uint64_t h = k->addr * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k->mapping << 1 | k->kernel);

	return (guint)(h ^ h >> 29);
}

static gboolean lkey_equal(gconstpointer a, gconstpointer b)
{
	const struct lkey *x = a, *y = b;

	return x->addr == y->addr && x->mapping == y->mapping && x->kernel == y->kernel;
}

static void proc_free(gpointer p)
{
	struct proc *pr = p;

	g_array_free(pr->maps, TRUE);
	ex_unwind_free(pr->uw);
	g_free(pr);
}

static void symfile_free(gpointer p)
{
	esym_close(p);
}

static void exporter_init(struct exporter *x)
{
	memset(x, 0, sizeof(*x));
	x->prof.events = g_array_new(FALSE, TRUE, sizeof(struct ex_event));
	x->prof.mappings = g_array_new(FALSE, TRUE, sizeof(struct ex_mapping));
	x->prof.locations = g_array_new(FALSE, TRUE, sizeof(struct ex_location));
	x->prof.functions = g_array_new(FALSE, TRUE, sizeof(struct ex_function));
	x->prof.samples = g_array_new(FALSE, TRUE, sizeof(struct ex_sample));
	x->prof.comms = g_ptr_array_new_with_free_func(g_free);
	x->procs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, proc_free);
	x->comm_of = g_hash_table_new(g_direct_hash, g_direct_equal);
	x->comm_idx = g_hash_table_new(g_str_hash, g_str_equal);
	x->mapping_idx = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	x->loc_idx = g_hash_table_new_full(lkey_hash, lkey_equal, g_free, NULL);
	x->sample_idx = g_hash_table_new_full(skey_hash, skey_equal, g_free, NULL);
	x->func_idx = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	x->buildids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    (GDestroyNotify)g_bytes_unref);
	x->symfiles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, symfile_free);
	x->evmap = g_array_new(FALSE, TRUE, sizeof(uint32_t));
	x->frames = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

static void exporter_free(struct exporter *x)
{
	guint i;

	for (i = 0; i < x->prof.events->len; i++)
		g_free(g_array_index(x->prof.events, struct ex_event, i).name);
	for (i = 0; i < x->prof.mappings->len; i++)
		g_free(g_array_index(x->prof.mappings, struct ex_mapping, i).file);
	for (i = 0; i < x->prof.functions->len; i++) {
		struct ex_function *f = &g_array_index(x->prof.functions, struct ex_function, i);

		g_free(f->name);
		g_free(f->system_name);
		g_free(f->file);
	}
	g_array_free(x->prof.events, TRUE);
	g_array_free(x->prof.mappings, TRUE);
	g_array_free(x->prof.locations, TRUE);
	g_array_free(x->prof.functions, TRUE);
	g_array_free(x->prof.samples, TRUE);
	g_ptr_array_free(x->prof.comms, TRUE);
	g_hash_table_destroy(x->procs);
	g_hash_table_destroy(x->comm_of);
	g_hash_table_destroy(x->comm_idx);
	g_hash_table_destroy(x->mapping_idx);
	g_hash_table_destroy(x->loc_idx);
	g_hash_table_destroy(x->sample_idx);
	g_hash_table_destroy(x->func_idx);
	g_hash_table_destroy(x->buildids);
	g_hash_table_destroy(x->symfiles);
	g_array_free(x->evmap, TRUE);
	g_array_free(x->frames, TRUE);
	g_free(x->key);
	g_free(x->hostname);
	g_free(x->osrelease);
	perfring_source_close(x->src);
}

/* ---- threads and address spaces ------------------------------------------- */

static uint32_t comm_index(struct exporter *x, const char *name)
{
	gpointer v = g_hash_table_lookup(x->comm_idx, name);
	char *c;

	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	c = g_strdup(name);
	g_ptr_array_add(x->prof.comms, c);
	g_hash_table_insert(x->comm_idx, c, GUINT_TO_POINTER(x->prof.comms->len));
	return x->prof.comms->len - 1;
}

static uint32_t thread_comm(struct exporter *x, uint32_t pid, uint32_t tid)
{
	gpointer v = g_hash_table_lookup(x->comm_of, GUINT_TO_POINTER(tid));
	char buf[32];

	if (!v)
		v = g_hash_table_lookup(x->comm_of, GUINT_TO_POINTER(pid));
	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	/* perf's name of a thread it saw no COMM for */
	snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	return comm_index(x, buf);
}

static struct proc *get_proc(struct exporter *x, uint32_t pid, int create)
{
	struct proc *p;

	if (x->last_proc && x->last_pid == pid)
		return x->last_proc;
	p = g_hash_table_lookup(x->procs, GUINT_TO_POINTER(pid));
	if (!p && create) {
		p = g_new0(struct proc, 1);
		p->maps = g_array_new(FALSE, FALSE, sizeof(struct pmap));
		p->pid = pid;
		g_hash_table_insert(x->procs, GUINT_TO_POINTER(pid), p);
	}
	if (p) {
		x->last_proc = p;
		x->last_pid = pid;
	}
	return p;
}

static uint32_t mapping_id(struct exporter *x, uint64_t start, uint64_t len, uint64_t pgoff,
			   const char *file, const uint8_t *bid, size_t bid_len, int kernel)
{
	GString *k = g_string_new(NULL);
	struct ex_mapping m = { 0 };
	gpointer v;

	g_string_printf(k, "%" PRIx64 " %" PRIx64 " %" PRIx64 " %d ", start, len, pgoff, kernel);
	for (size_t i = 0; i < bid_len; i++)
		g_string_append_printf(k, "%02x", bid[i]);
	g_string_append_c(k, ' ');
	g_string_append(k, file);
	v = g_hash_table_lookup(x->mapping_idx, k->str);
	if (v) {
		g_string_free(k, TRUE);
		return GPOINTER_TO_UINT(v);
	}
	m.start = start;
	m.limit = start + len;
	m.pgoff = pgoff;
	m.file = g_strdup(file);
	m.kernel = kernel;
	if (!bid_len) {	/* the HEADER_BUILD_ID table's, if it lists the file */
		GBytes *b = g_hash_table_lookup(x->buildids, file);

		if (b) {
			bid = g_bytes_get_data(b, &bid_len);
			if (bid_len > 20)
				bid_len = 20;
		}
	}
	if (bid_len)
		memcpy(m.build_id, bid, bid_len);
	m.build_id_len = bid_len;
	g_array_append_val(x->prof.mappings, m);
	g_hash_table_insert(x->mapping_idx, g_string_free(k, FALSE),
			    GUINT_TO_POINTER(x->prof.mappings->len));
	return x->prof.mappings->len;
}

static int ends_at_or_below(const void *maps, size_t i, uint64_t addr)
{
	return ((const struct pmap *)maps)[i].end <= addr;
}

/* The first map ending above addr (maps sorted and disjoint). */
static guint map_lower(const GArray *maps, uint64_t addr)
{
	const struct pmap *m = (const struct pmap *)(const void *)maps->data;

	return (guint)esym_partition(maps->len, ends_at_or_below, m, addr);
}

/* Insert a map, cutting the parts of older maps it covers (as a new mmap
 * over an old one replaces it). */
static void map_insert(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		       uint32_t mapping)
{
	struct pmap nm = { start, end, pgoff, mapping };
	guint i = map_lower(p->maps, start);

	while (i < p->maps->len) {
		struct pmap *o = &g_array_index(p->maps, struct pmap, i);

		if (o->start >= end)
			break;
		if (o->start < start) {
			struct pmap left = *o;

			left.end = start;
			if (o->end > end) {	/* the new one in the middle */
				struct pmap right = *o;

				right.pgoff += end - o->start;
				right.start = end;
				g_array_insert_val(p->maps, i + 1, right);
			}
			g_array_index(p->maps, struct pmap, i) = left;
			i++;
			continue;
		}
		if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
			break;
		}
		g_array_remove_index(p->maps, i);
	}
	g_array_insert_val(p->maps, i, nm);
}

static const struct pmap *map_find(const struct proc *p, uint64_t addr)
{
	guint i;

	if (!p)
		return NULL;
	i = map_lower(p->maps, addr);
	if (i < p->maps->len) {
		const struct pmap *m = &g_array_index(p->maps, struct pmap, i);

		if (m->start <= addr)
			return m;
	}
	return NULL;
}

static void add_map(struct exporter *x, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *file, const uint8_t *bid, size_t bid_len)
{
	int kernel = pid == UINT32_MAX;
	uint32_t id;

	if (!len || start + len < start)
		return;
	if (kernel && strcmp(file, "[kernel.kallsyms]_text") == 0)
		x->kernel_text = pgoff;
	if (kernel && strncmp(file, "[kernel.kallsyms]", 17) == 0)
		file = "[kernel.kallsyms]";
	id = mapping_id(x, start, len, pgoff, file, bid, bid_len, kernel);
	map_gen++;
	map_insert(get_proc(x, pid, 1), start, start + len, pgoff, id);
}

/* A NUL-terminated string of at most len bytes at p, or NULL. */
static const char *rec_str(const void *p, size_t len)
{
	return len && memchr(p, 0, len) ? p : NULL;
}

/* Side-band records are read with the library's decoders (perfring/sideband.h);
 * one that does not decode is left out, as perf leaves it out. */
static void on_mmap(struct exporter *x, const struct perfring_source_record *r)
{
	struct perfring_mmap2 m;

	if (perfring_mmap2_decode(r->attr, r->hdr, r->size, &m, NULL, NULL) < 0)
		return;
	add_map(x, m.pid, m.addr, m.len, m.pgoff, m.filename,
		m.build_id_size ? m.build_id : NULL, m.build_id_size);
}

static void on_comm(struct exporter *x, const struct perfring_source_record *r)
{
	struct perfring_comm c;
	const char *name;
	size_t n;

	if (perfring_comm_decode(r->attr, r->hdr, r->size, &c, &name, &n, NULL, NULL) < 0)
		return;
	g_hash_table_insert(x->comm_of, GUINT_TO_POINTER(c.tid),
			    GUINT_TO_POINTER(comm_index(x, name) + 1));
}

static void on_fork(struct exporter *x, const struct perfring_source_record *r)
{
	struct perfring_task t;
	gpointer c;

	if (perfring_task_decode(r->attr, r->hdr, r->size, &t, NULL, NULL) < 0)
		return;
	c = g_hash_table_lookup(x->comm_of, GUINT_TO_POINTER(t.ptid));
	if (c)
		g_hash_table_insert(x->comm_of, GUINT_TO_POINTER(t.tid), c);
	if (t.pid != t.ppid) {	/* a new process: a copy of its parent's maps */
		struct proc *parent = get_proc(x, t.ppid, 0), *child;

		if (!parent)
			return;
		child = get_proc(x, t.pid, 1);
		map_gen++;
		g_array_set_size(child->maps, 0);
		g_array_append_vals(child->maps, parent->maps->data, parent->maps->len);
	}
}

/* ---- samples ---------------------------------------------------------------- */

static const char *event_name_default(const struct perfring_attr *a, char *buf, size_t len)
{
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
		"context-switches", "cpu-migrations", "minor-faults", "major-faults" };
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
		"cache-misses", "branches", "branch-misses" };

	if (a->type == PERFRING_TYPE_SOFTWARE && a->config < G_N_ELEMENTS(sw))
		return sw[a->config];
	if (a->type == PERFRING_TYPE_HARDWARE && a->config < G_N_ELEMENTS(hw))
		return hw[a->config];
	snprintf(buf, len, "event-%" PRIu32 "-%" PRIu64, a->type, a->config);
	return buf;
}

static uint32_t event_of(struct exporter *x, int idx, const struct perfring_attr *attr)
{
	struct ex_event e = { 0 };
	char buf[64];

	if (idx < 0)
		idx = 0;
	if ((guint)idx < x->evmap->len && g_array_index(x->evmap, uint32_t, idx))
		return g_array_index(x->evmap, uint32_t, idx) - 1;
	if ((guint)idx >= x->evmap->len)
		g_array_set_size(x->evmap, (guint)idx + 1);
	e.name = g_strdup(event_name_default(attr, buf, sizeof(buf)));
	e.unit = attr->type == PERFRING_TYPE_SOFTWARE && attr->config <= 1 ? "nanoseconds" :
									    "count";
	if (!(attr->flags & PERFRING_ATTR_FREQ))
		e.period = attr->sample_period;
	else if (e.unit[0] == 'n' && attr->sample_period)
		e.period = 1000000000 / attr->sample_period;
	g_array_append_val(x->prof.events, e);
	g_array_index(x->evmap, uint32_t, idx) = x->prof.events->len;
	return x->prof.events->len - 1;
}

/* The names known at the end (pipe mode: EVENT_UPDATE records come late). */
static void name_events(struct exporter *x)
{
	for (guint i = 0; i < x->evmap->len; i++) {
		uint32_t e = g_array_index(x->evmap, uint32_t, i);
		PERFRING_EVENT_DESC(d);
		struct ex_event *ev;

		if (!e || perfring_source_event(x->src, i, &d) < 0 || !d.name || !*d.name)
			continue;
		ev = &g_array_index(x->prof.events, struct ex_event, e - 1);
		g_free(ev->name);
		/* "cpu-clock:u" and the like: the modifiers are not part of the name */
		ev->name = g_strndup(d.name, strcspn(d.name, ":"));
	}
}

/*
 * The location of (process, address, kernel) is looked for in a
 * direct-mapped cache first: deep call chains repeat the same addresses
 * sample after sample, and the map search and hash lookup it saves were
 * most of the time on big recordings.  An entry is good for one map
 * generation (every new map starts another).
 */
#define LCACHE_BITS 16
struct lcache {
	uint64_t addr;
	const struct proc *p;
	uint32_t gen;
	uint32_t id;		/* 0: empty */
	int kernel;
};
static struct lcache lcache[1u << LCACHE_BITS];

static uint32_t location_slow(struct exporter *x, const struct proc *p, uint64_t addr,
			      int kernel);

static uint32_t location(struct exporter *x, const struct proc *p, uint64_t addr, int kernel)
{
	uint64_t h = (addr ^ (uintptr_t)p ^ (uint64_t)kernel) * 0x9e3779b97f4a7c15ull;
	struct lcache *c = &lcache[h >> (64 - LCACHE_BITS)];

	if (c->id && c->gen == map_gen && c->addr == addr && c->p == p && c->kernel == kernel)
		return c->id;
	*c = (struct lcache){ addr, p, map_gen, location_slow(x, p, addr, kernel), kernel };
	return c->id;
}

static uint32_t location_slow(struct exporter *x, const struct proc *p, uint64_t addr,
			      int kernel)
{
	const struct pmap *m = map_find(kernel ? get_proc(x, UINT32_MAX, 0) : p, addr);
	struct lkey k = { .addr = addr, .mapping = m ? m->mapping : 0, .kernel = !!kernel };
	struct ex_location l = { .mapping = k.mapping, .addr = addr, .kernel = !!kernel };
	gpointer v = g_hash_table_lookup(x->loc_idx, &k);

	if (v)
		return GPOINTER_TO_UINT(v);
	g_array_append_val(x->prof.locations, l);
	g_hash_table_insert(x->loc_idx, g_memdup2(&k, sizeof(k)),
			    GUINT_TO_POINTER(x->prof.locations->len));
	if (k.mapping)
		g_array_index(x->prof.mappings, struct ex_mapping, k.mapping - 1).used = 1;
	return x->prof.locations->len;
}

static int is_kernel_mode(unsigned misc)
{
	misc &= 7;
	return misc == PERFRING_MISC_KERNEL || misc == PERFRING_MISC_GUEST_KERNEL;
}

/* ex_module_fn: the file mapped at pc in the unwinder's process. */
static int unwind_module(void *user, uint64_t pc, const char **path, uint64_t *bias)
{
	const struct proc *p = user;
	const struct pmap *pm = map_find(p, pc);
	const struct ex_mapping *m;

	if (!pm)
		return 0;
	m = &g_array_index(cur_exporter->prof.mappings, struct ex_mapping, pm->mapping - 1);
	if (m->file[0] != '/' || access(m->file, R_OK) != 0)
		return 0;
	*path = m->file;
	*bias = pm->start - pm->pgoff;
	return 1;
}

/*
 * A --call-graph dwarf sample: its kernel chain (perf asks for no user
 * chain then) followed by PERF_CONTEXT_USER and the user stack unwound
 * from its registers and stack copy, into x->chain.  Returns the number
 * of entries, or 0 when the sample is not one of those (or has a user
 * chain already).
 */
static uint64_t dwarf_chain(struct exporter *x, const struct perfring_attr *a,
			    const struct perfring_sample *s, struct proc *p)
{
	uint64_t n = 0, size;
	int user = 0, got;

	if ((a->sample_type & (PERFRING_SAMPLE_REGS_USER | PERFRING_SAMPLE_STACK_USER)) !=
		    (PERFRING_SAMPLE_REGS_USER | PERFRING_SAMPLE_STACK_USER) ||
	    !p || !s->regs_user_abi || !s->regs_user_nr || !s->stack_user_size)
		return 0;
	if (a->sample_type & PERFRING_SAMPLE_CALLCHAIN) {
		for (uint64_t i = 0; i < s->callchain_nr; i++) {
			if (s->callchain[i] == PERFRING_CONTEXT_USER)
				user = 1;
			else if (user && s->callchain[i] < PERFRING_CONTEXT_MAX)
				return 0;	/* a user chain is there */
		}
		n = s->callchain_nr < EX_MAX_CHAIN / 2 ? s->callchain_nr : EX_MAX_CHAIN / 2;
		memcpy(x->chain, s->callchain, n * sizeof(uint64_t));
		/* a trailing PERF_CONTEXT_USER marker without frames: ours follows */
		while (n && x->chain[n - 1] == PERFRING_CONTEXT_USER)
			n--;
	}
	if (p->uw && p->uw_gen != map_gen) {	/* its modules may have moved */
		ex_unwind_free(p->uw);
		p->uw = NULL;
	}
	if (!p->uw) {
		p->uw = ex_unwind_new(unwind_module, p, p->pid);
		p->uw_gen = map_gen;
		if (!p->uw)
			return 0;
	}
	size = s->stack_user_dyn_size && s->stack_user_dyn_size < s->stack_user_size ?
		       s->stack_user_dyn_size : s->stack_user_size;
	x->chain[n++] = PERFRING_CONTEXT_USER;
	got = ex_unwind(p->uw, s->tid, s->regs_user, s->regs_user_nr, a->sample_regs_user,
			s->stack_user, size, x->chain + n, EX_MAX_UNWIND);
	return got > 0 ? n + (uint64_t)got : 0;
}

static void on_sample(struct exporter *x, const struct perfring_source_record *r)
{
	struct perfring_sample s;
	const struct perfring_attr *a = r->attr;
	struct skey *k, *old;
	struct proc *p;
	struct ex_sample *es;
	uint64_t period, chain, i;
	uint32_t ev, comm, nf, *frames;
	size_t nw;

	if (!a || perfring_sample_decode(a, r->hdr, r->size, &s, NULL) < 0) {
		x->bad_samples++;
		return;
	}
	x->nsamples++;
	ev = event_of(x, r->event, a);
	g_array_index(x->prof.events, struct ex_event, ev).samples++;
	if (a->sample_type & PERFRING_SAMPLE_TIME) {
		if (!x->has_time || s.time < x->first_time)
			x->first_time = s.time;
		if (!x->has_time || s.time > x->last_time)
			x->last_time = s.time;
		x->has_time = 1;
	}
	comm = thread_comm(x, s.pid, s.tid);
	period = (a->sample_type & PERFRING_SAMPLE_PERIOD) ? s.period :
		 (a->flags & PERFRING_ATTR_FREQ) ? 1 : a->sample_period;
	p = get_proc(x, s.pid, 0);
	chain = dwarf_chain(x, a, &s, p);
	if (chain) {
		s.callchain = x->chain;
		s.callchain_nr = chain;
	} else {
		chain = (a->sample_type & PERFRING_SAMPLE_CALLCHAIN) ? s.callchain_nr : 0;
	}
	nw = SKEY_HEAD + (chain ? chain : 1);
	if (nw > x->keycap) {
		x->keycap = nw * 2;
		x->key = g_realloc(x->key, sizeof(*x->key) + x->keycap * sizeof(uint64_t));
	}
	k = x->key;
	k->n = (uint32_t)nw;
	k->w[0] = ev;
	k->w[1] = (uint64_t)s.pid << 32 | s.tid;
	k->w[2] = (a->sample_type & PERFRING_SAMPLE_CPU) ? s.cpu : EX_NO_CPU;
	k->w[3] = comm;
	k->w[4] = map_gen;
	k->w[5] = is_kernel_mode(r->hdr->misc);
	if (chain)
		memcpy(k->w + SKEY_HEAD, s.callchain, chain * sizeof(uint64_t));
	else
		k->w[SKEY_HEAD] = s.ip;
	old = g_hash_table_lookup(x->sample_idx, k);
	if (old) {
		es = &g_array_index(x->prof.samples, struct ex_sample, old->idx);
		es->count++;
		es->period += period;
		return;
	}
	/* a new stack: its locations */
	g_array_set_size(x->frames, 0);
	if (chain) {
		int kernel = is_kernel_mode(r->hdr->misc), first = 1;

		for (i = 0; i < chain; i++) {
			uint64_t ip = s.callchain[i];
			uint32_t id;

			if (ip >= PERFRING_CONTEXT_MAX) {
				kernel = ip == PERFRING_CONTEXT_KERNEL ||
					 ip == PERFRING_CONTEXT_GUEST_KERNEL;
				continue;
			}
			id = location(x, p, first ? ip : ip - 1, kernel);
			first = 0;
			g_array_append_val(x->frames, id);
		}
	}
	if (!x->frames->len) {
		uint32_t id = location(x, p, s.ip, is_kernel_mode(r->hdr->misc));

		g_array_append_val(x->frames, id);
	}
	nf = x->frames->len;
	k = g_malloc(sizeof(*k) + nw * sizeof(uint64_t) + nf * sizeof(uint32_t));
	memcpy(k, x->key, sizeof(*k) + nw * sizeof(uint64_t));
	frames = (uint32_t *)(void *)(k->w + nw);
	memcpy(frames, x->frames->data, nf * sizeof(uint32_t));
	k->idx = x->prof.samples->len;
	g_hash_table_add(x->sample_idx, k);
	g_array_set_size(x->prof.samples, k->idx + 1);
	es = &g_array_index(x->prof.samples, struct ex_sample, k->idx);
	es->event = ev;
	es->pid = s.pid;
	es->tid = s.tid;
	es->cpu = (uint32_t)k->w[2];
	es->comm = comm;
	es->nframes = nf;
	es->frames = frames;
	es->count = 1;
	es->period = period;
}

/* ---- features ----------------------------------------------------------------- */

static uint32_t fe32(const struct exporter *x, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return perfring_perfdata_needs_swap(x->pd) ? GUINT32_SWAP_LE_BE(v) : v;
}

static uint64_t fe64(const struct exporter *x, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return perfring_perfdata_needs_swap(x->pd) ? GUINT64_SWAP_LE_BE(v) : v;
}

/* HOSTNAME, OSRELEASE: u32 length, then the string. */
static char *feat_string(const struct exporter *x, const uint8_t *d, uint64_t n)
{
	uint32_t len;

	if (n < 4)
		return NULL;
	len = fe32(x, d);
	if (len > n - 4)
		return NULL;
	return g_strndup((const char *)d + 4, len);
}

/* HEADER_BUILD_ID: records of header (8), pid (4), build id (24: 20 bytes
 * and, with misc bit 15, its size in byte 20), file name. */
static void feat_build_ids(struct exporter *x, const uint8_t *d, uint64_t n, int swapped)
{
	uint64_t off = 0;

	while (n - off >= 36) {
		uint16_t misc, size;
		size_t bl = 20;
		const char *name;

		memcpy(&misc, d + off + 4, 2);
		memcpy(&size, d + off + 6, 2);
		if (swapped) {
			misc = GUINT16_SWAP_LE_BE(misc);
			size = GUINT16_SWAP_LE_BE(size);
		}
		if (size < 36 || size > n - off)
			break;
		if (misc & (1u << 15))
			bl = d[off + 12 + 20] <= 20 ? d[off + 12 + 20] : 20;
		name = rec_str(d + off + 36, size - 36u);
		if (name && *name && bl)
			g_hash_table_replace(x->buildids, g_strdup(name),
					     g_bytes_new(d + off + 12, bl));
		off += size;
	}
}

static void read_features(struct exporter *x)
{
	uint32_t n;

	if (!x->pd)
		return;
	n = perfring_perfdata_nr_features(x->pd);
	for (uint32_t i = 0; i < n; i++) {
		struct perfring_perfdata_feature f = { .sz = sizeof(f) };
		struct perfring_diag d;

		tool_diag_reset(&d);
		if (perfring_perfdata_feature(x->pd, i, &f, &d) < 0)
			continue;
		switch (f.id) {
		case PERFRING_FEAT_HOSTNAME:
			g_free(x->hostname);
			x->hostname = feat_string(x, f.data, f.size);
			break;
		case PERFRING_FEAT_OSRELEASE:
			g_free(x->osrelease);
			x->osrelease = feat_string(x, f.data, f.size);
			break;
		case PERFRING_FEAT_BUILD_ID:
			feat_build_ids(x, f.data, f.size, perfring_perfdata_needs_swap(x->pd));
			break;
		case PERFRING_FEAT_CLOCK_DATA:
			if (f.size >= 24) {
				x->clock_wall = fe64(x, (const uint8_t *)f.data + 8);
				x->clock_ref = fe64(x, (const uint8_t *)f.data + 16);
				x->has_clock = 1;
			}
			break;
		default:
			break;
		}
	}
}

/* Build ids learnt after the mappings were made (pipe mode). */
static void late_build_ids(struct exporter *x)
{
	for (guint i = 0; i < x->prof.mappings->len; i++) {
		struct ex_mapping *m = &g_array_index(x->prof.mappings, struct ex_mapping, i);
		GBytes *b = m->build_id_len ? NULL : g_hash_table_lookup(x->buildids, m->file);
		size_t n;
		const void *p;

		if (!b)
			continue;
		p = g_bytes_get_data(b, &n);
		m->build_id_len = n > 20 ? 20 : n;
		memcpy(m->build_id, p, m->build_id_len);
	}
}

/* ---- symbols -------------------------------------------------------------------- */

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static char *demangle(const char *name)
{
	static demangle_fn fn;
	static int tried;
	char *d, *r;
	int st = 0;

	if (strncmp(name, "_Z", 2) != 0)
		return g_strdup(name);
	if (!tried) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		tried = 1;
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	if (!fn)
		return g_strdup(name);
	d = fn(name, NULL, NULL, &st);
	if (!d || st != 0) {
		free(d);
		return g_strdup(name);
	}
	r = g_strdup(d);
	free(d);
	return r;
}

static struct esym_file *symfile(struct exporter *x, const char *path)
{
	struct esym_file *f;

	if (g_hash_table_lookup_extended(x->symfiles, path, NULL, (gpointer *)&f))
		return f;
	f = esym_open(path);
	g_hash_table_insert(x->symfiles, g_strdup(path), f);
	return f;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* This process's vdso image, if it has the build id of the recording's. */
static struct esym_file *own_vdso(const struct ex_mapping *m)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	unsigned long lo, hi;
	struct esym_file *f = NULL;
	char line[512];
	FILE *fp;

	if (!base || !m->build_id_len || !(fp = fopen("/proc/self/maps", "re")))
		return NULL;
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == base && hi > lo) {
			uint8_t b[20];

			f = esym_open_mem((const void *)base, hi - lo);
			if (f && (esym_build_id(f, b) != m->build_id_len ||
				  memcmp(b, m->build_id, m->build_id_len))) {
				esym_close(f);
				f = NULL;
			}
			break;
		}
	}
	fclose(fp);
	return f;
}

/* [vdso]: perf's copy in the build-id cache, else ours if it is the same. */
static struct esym_file *vdso_syms(struct exporter *x, struct ex_mapping *m)
{
	struct esym_file *f = NULL;
	char h[41];

	if (m->build_id_len) {
		char *p;

		hex(h, m->build_id, m->build_id_len);
		p = g_strdup_printf("%s/.debug/.build-id/%.2s/%s/vdso", g_get_home_dir(), h, h + 2);
		f = symfile(x, p);
		g_free(p);
		if (!f) {
			f = own_vdso(m);
			if (f)	/* owned by the cache from now on */
				g_hash_table_insert(x->symfiles, g_strdup("[own vdso]"), f);
		}
	}
	if (f) {
		m->syms = m->segs = f;
		m->sym_state = 1;
	}
	return f;
}

/*
 * The symbols of a mapping's file, found as the head comment says (by the
 * recorded build id, else by the one of the file at its path, as perf
 * does when the build-id table lacks a file): a file found by build id gives the symbols when it has more of them than the
 * binary at the mapping's path (a .debug file's .symtab against the
 * binary's .dynsym; perf's ~/.debug cache holds a copy of the binary);
 * the offsets are mapped with the binary's segments
 * when it is there, as a .debug file keeps its program headers but not
 * their file offsets.
 */
static struct esym_file *mapping_syms(struct exporter *x, struct ex_mapping *m)
{
	const char *home = g_get_home_dir();
	struct esym_file *bin, *dbg = NULL;
	uint8_t b[20];
	size_t bl = 0;
	char h[41];

	if (m->sym_state)
		return m->syms;
	m->sym_state = -1;
	if (strcmp(m->file, "[vdso]") == 0)
		return vdso_syms(x, m);
	if (m->file[0] == '[' || strncmp(m->file, "//", 2) == 0 ||
	    strncmp(m->file, "/memfd:", 7) == 0)
		return NULL;
	bin = symfile(x, m->file);
	if (bin)
		bl = esym_build_id(bin, b);
	if (bin && m->build_id_len && bl &&
	    (bl != m->build_id_len || memcmp(b, m->build_id, bl)))
		bin = NULL;	/* another build of the file now: its symbols would lie */
	if (m->build_id_len) {
		bl = m->build_id_len;
		memcpy(b, m->build_id, bl);
	}
	if (bl) {	/* the recorded build id, else (as perf) the file's */
		char *cand[3];

		hex(h, b, bl);
		cand[0] = g_strdup_printf("%s/.debug/.build-id/%.2s/%s/elf", home, h, h + 2);
		cand[1] = g_strdup_printf("%s/.debug%s/%s/elf", home, m->file, h);
		cand[2] = g_strdup_printf("/usr/lib/debug/.build-id/%.2s/%s.debug", h, h + 2);
		for (int i = 0; i < 3; i++) {	/* the one with the most symbols */
			struct esym_file *c = symfile(x, cand[i]);

			if (c && (!dbg || esym_count(c) > esym_count(dbg)))
				dbg = c;
			g_free(cand[i]);
		}
	}
	if (!bin && !dbg)
		return NULL;
	m->syms = dbg && (!bin || esym_count(dbg) > esym_count(bin)) ? dbg : bin;
	m->segs = bin ? bin : dbg;
	m->sym_state = 1;
	return m->syms;
}

static uint32_t function_id(struct exporter *x, const char *file, const char *sym)
{
	char *k = g_strdup_printf("%s\n%s", file, sym);
	struct ex_function fn;
	gpointer v = g_hash_table_lookup(x->func_idx, k);

	if (v) {
		g_free(k);
		return GPOINTER_TO_UINT(v);
	}
	fn.name = demangle(sym);
	fn.system_name = g_strdup(sym);
	fn.file = g_strdup(file);
	g_array_append_val(x->prof.functions, fn);
	g_hash_table_insert(x->func_idx, k, GUINT_TO_POINTER(x->prof.functions->len));
	return x->prof.functions->len;
}

/* The recording's kernel symbols: perf's cached copy of its kallsyms (by
 * the kernel's build id), else this machine's /proc/kallsyms when it
 * describes the recording's kernel. */
static struct esym_file *kernel_syms(struct exporter *x)
{
	struct utsname u;
	char host[256];
	struct esym_file *k;
	GBytes *b = g_hash_table_lookup(x->buildids, "[kernel.kallsyms]");
	size_t kbid_len = 0;
	const uint8_t *kbid = b ? g_bytes_get_data(b, &kbid_len) : NULL;

	if (kbid_len > 20)
		kbid_len = 20;
	/* perf record's copy of the kallsyms of the recording's kernel */
	if (kbid && kbid_len) {
		char h[41], *p;

		hex(h, kbid, kbid_len);
		p = g_strdup_printf("%s/.debug/.build-id/%.2s/%s/kallsyms", g_get_home_dir(), h,
				    h + 2);
		k = esym_kallsyms(p);
		g_free(p);
		if (k && (!x->kernel_text || esym_kallsyms_text(k) == x->kernel_text))
			return k;
		esym_close(k);
	}
	if (!x->hostname || !x->osrelease || uname(&u) < 0 ||
	    gethostname(host, sizeof(host)) < 0)
		return NULL;
	host[sizeof(host) - 1] = 0;
	if (strcmp(x->osrelease, u.release) != 0 || strcmp(x->hostname, host) != 0)
		return NULL;
	k = esym_kallsyms("/proc/kallsyms");
	if (k && x->kernel_text && esym_kallsyms_text(k) &&
	    esym_kallsyms_text(k) != x->kernel_text) {	/* another boot (KASLR) */
		esym_close(k);
		return NULL;
	}
	return k;
}

static void symbolize(struct exporter *x)
{
	struct esym_file *ksyms = NULL;
	int kernel_tried = 0;
	GString *missing = g_string_new(NULL);
	unsigned nmissing = 0;
	GHashTable *listed = g_hash_table_new(g_str_hash, g_str_equal);
	guint i;

	for (i = 0; i < x->prof.locations->len; i++) {
		struct ex_location *l = &g_array_index(x->prof.locations, struct ex_location, i);
		struct ex_mapping *m = l->mapping ?
			&g_array_index(x->prof.mappings, struct ex_mapping, l->mapping - 1) : NULL;
		const char *name = NULL;
		struct esym_file *f = NULL;
		uint64_t addr = 0;

		if (l->kernel) {
			if (!kernel_tried) {
				ksyms = kernel_syms(x);
				kernel_tried = 1;
			}
			if (ksyms)
				name = esym_lookup(ksyms, l->addr, NULL);
			if (name)
				l->function = function_id(x, "[kernel.kallsyms]", name);
			if (!ksyms && !g_hash_table_contains(listed, "[kernel.kallsyms]")) {
				g_hash_table_add(listed, (gpointer) "[kernel.kallsyms]");
				g_string_append(missing, nmissing++ ? ", " : "");
				g_string_append(missing, "[kernel.kallsyms]");
			}
			continue;
		}
		if (!m)
			continue;
		f = mapping_syms(x, m);
		if (!f) {
			if (m->file[0] != '[' && !g_hash_table_contains(listed, m->file)) {
				g_hash_table_add(listed, m->file);
				g_string_append(missing, nmissing++ ? ", " : "");
				g_string_append(missing, m->file);
			}
			continue;
		}
		if (l->addr < m->start ||
		    !esym_offset_to_addr(m->segs, l->addr - m->start + m->pgoff, &addr))
			continue;
		name = esym_lookup(f, addr, NULL);
		if (name) {
			l->function = function_id(x, m->file, name);
			m->has_functions = 1;
		}
	}
	if (nmissing)
		tool_error("%u mapping%s without symbols: %s", nmissing, nmissing == 1 ? "" : "s",
			   missing->str);
	esym_close(ksyms);
	g_hash_table_destroy(listed);
	g_string_free(missing, TRUE);
}

/* The main binary: of the user mappings that are not shared libraries, the
 * one most samples end in (else any user mapping's). */
static void main_mapping(struct exporter *x)
{
	guint n = x->prof.mappings->len;
	uint64_t *hits = g_new0(uint64_t, n + 1), best = 0;

	for (guint i = 0; i < x->prof.samples->len; i++) {
		const struct ex_sample *s = &g_array_index(x->prof.samples, struct ex_sample, i);
		const struct ex_location *l = &g_array_index(x->prof.locations, struct ex_location,
							     s->frames[0] - 1);

		if (l->mapping && !l->kernel)
			hits[l->mapping] += s->count;
	}
	for (int pass = 0; pass < 2 && !x->prof.main_mapping; pass++) {
		for (guint id = 1; id <= n; id++) {
			const struct ex_mapping *m =
				&g_array_index(x->prof.mappings, struct ex_mapping, id - 1);
			const char *b = strrchr(m->file, '/');

			if (m->kernel || !hits[id] || hits[id] <= best ||
			    (pass == 0 && (m->file[0] == '[' || strstr(b ? b : m->file, ".so"))))
				continue;
			best = hits[id];
			x->prof.main_mapping = id;
		}
	}
	g_free(hits);
}

/* ---- reading -------------------------------------------------------------------- */

static void deliver(struct exporter *x, const struct perfring_source_record *r)
{
	switch (r->type) {
	case PERFRING_RECORD_SAMPLE:
		on_sample(x, r);
		break;
	case PERFRING_RECORD_MMAP:
	case PERFRING_RECORD_MMAP2:
		on_mmap(x, r);
		break;
	case PERFRING_RECORD_COMM:
		on_comm(x, r);
		break;
	case PERFRING_RECORD_FORK:
		on_fork(x, r);
		break;
	default:
		break;
	}
}

/*
 * perf's ordering (doc/perf-format.md 5.7): kernel records with a time are
 * queued and delivered in time order, at each FINISHED_ROUND those not
 * newer than the newest time seen at the previous one, the rest at the
 * end; records without a time at once.  Without it an MMAP2 that one CPU's
 * buffer wrote after another CPU's later samples would not explain them.
 */
struct qrec {
	uint64_t time, seq;
	struct perfring_source_record r;	/* hdr: our copy */
};

struct queue {
	GArray *q;		/* struct qrec */
	uint64_t seq, max_time, round_limit;
};

static gint qrec_cmp(gconstpointer a, gconstpointer b)
{
	const struct qrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void queue_flush(struct exporter *x, struct queue *q, int all)
{
	guint i, n;

	g_array_sort(q->q, qrec_cmp);
	for (i = 0; i < q->q->len; i++) {
		struct qrec *e = &g_array_index(q->q, struct qrec, i);

		if (!all && e->time > q->round_limit)
			break;
		deliver(x, &e->r);
		g_free((void *)e->r.hdr);
	}
	n = i;
	g_array_remove_range(q->q, 0, n);
}

/* The record's time, 0 if it has none. */
static uint64_t rec_time(const struct perfring_source_record *r)
{
	const struct perfring_attr *a = r->attr;
	struct perfring_sample_id sid;

	if (!a || r->type >= PERFRING_RECORD_HEADER_ATTR || !(a->sample_type & PERFRING_SAMPLE_TIME))
		return 0;
	if (r->type == PERFRING_RECORD_SAMPLE)	/* its head only: decoded whole when delivered */
		return perfring_sample_head_decode(a, r->hdr, r->size, &sid) == 0 ? sid.time : 0;
	if (!(a->flags & PERFRING_ATTR_SAMPLE_ID_ALL) ||
	    perfring_sample_id_decode(a->sample_type, r->hdr, r->size, &sid) < 0)
		return 0;
	return sid.time;
}

/* 0 at the end, 1 on damage (reported). */
static int read_all(struct exporter *x)
{
	struct perfring_source_record r = { .sz = sizeof(r) };
	struct queue q = { .q = g_array_new(FALSE, FALSE, sizeof(struct qrec)) };
	struct perfring_diag d;
	int ret;

	for (;;) {
		uint64_t t;

		tool_diag_reset(&d);
		ret = perfring_source_next(x->src, &r, &d);
		if (ret <= 0)
			break;
		if (r.type == PERFRING_RECORD_FINISHED_ROUND) {
			queue_flush(x, &q, 0);
			q.round_limit = q.max_time;
			continue;
		}
		if (r.type == PERFRING_RECORD_HEADER_BUILD_ID) {	/* pipe mode; header native */
			feat_build_ids(x, (const uint8_t *)r.hdr, r.size, 0);
			continue;
		}
		if (r.type != PERFRING_RECORD_SAMPLE && r.type != PERFRING_RECORD_MMAP &&
		    r.type != PERFRING_RECORD_MMAP2 && r.type != PERFRING_RECORD_COMM &&
		    r.type != PERFRING_RECORD_FORK)
			continue;
		t = rec_time(&r);
		if (t == 0 || t == UINT64_MAX) {
			deliver(x, &r);
		} else {
			struct qrec e = { .time = t, .seq = q.seq++, .r = r };

			e.r.hdr = g_memdup2(r.hdr, r.size);
			g_array_append_val(q.q, e);
			if (t > q.max_time)
				q.max_time = t;
		}
	}
	queue_flush(x, &q, 1);
	g_array_free(q.q, TRUE);
	if (ret == 0)
		return 0;
	if (!d.msg[0])
		snprintf(d.msg, sizeof(d.msg), "%s", g_strerror(-ret));
	if (!d.file[0])
		snprintf(d.file, sizeof(d.file), "%s", x->path);
	tool_error_diag(&d);
	return 1;
}

static void times(struct exporter *x)
{
	struct stat st;

	if (x->has_time)
		x->prof.duration_nanos = (int64_t)(x->last_time - x->first_time);
	if (x->has_clock && x->has_time) {
		x->prof.time_nanos = (int64_t)(x->clock_wall + (x->first_time - x->clock_ref));
		return;
	}
	/* perf report's "captured on": the file's modification time, the end */
	if (strcmp(x->path, "-") != 0 && stat(x->path, &st) == 0)
		x->prof.time_nanos = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec -
				     x->prof.duration_nanos;
	else
		x->prof.time_nanos = (int64_t)time(NULL) * 1000000000 - x->prof.duration_nanos;
}

/* ---- output ------------------------------------------------------------------------ */

enum fmt { FMT_PPROF, FMT_FOLDED, FMT_SVG };

static int folded_event(const struct exporter *x, uint32_t *ev)
{
	const GArray *evs = x->prof.events;

	for (guint i = 0; i < evs->len; i++) {
		const struct ex_event *e = &g_array_index(evs, struct ex_event, i);

		if (opt_event ? strcmp(e->name, opt_event) == 0 : e->samples > 0) {
			*ev = i;
			return 0;
		}
	}
	if (opt_event) {
		tool_error("--event: no event %s in %s", opt_event, x->path);
		return -1;
	}
	*ev = 0;
	return 0;
}

static int write_to(const struct exporter *x, enum fmt f, uint32_t ev, FILE *fp)
{
	char *title;
	int r;

	switch (f) {
	case FMT_PPROF:
		return ex_write_pprof(&x->prof, fp);
	case FMT_FOLDED:
		return ex_write_folded(&x->prof, ev, fp);
	case FMT_SVG:
	default:
		title = opt_title ? g_strdup(opt_title) :
			g_strdup_printf("%s: %s", x->path, x->prof.events->len ?
				g_array_index(x->prof.events, struct ex_event, ev).name : "no samples");
		r = ex_write_svg(&x->prof, ev, title, fp);
		g_free(title);
		return r;
	}
}

static int write_output(const struct exporter *x, enum fmt f, uint32_t ev)
{
	struct stat st;
	char *tmp;
	FILE *fp;
	int fd, r;

	if (!opt_output || strcmp(opt_output, "-") == 0) {
		if (f == FMT_PPROF && isatty(STDOUT_FILENO)) {
			tool_error("not writing a gzipped profile to a terminal: use -o FILE");
			return -1;
		}
		r = write_to(x, f, ev, stdout);
		if (fflush(stdout) != 0 || r < 0) {
			tool_error("standard output: %s", g_strerror(r < 0 ? -r : errno));
			return -1;
		}
		return 0;
	}
	if (stat(opt_output, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/null, a FIFO, a terminal: written in place, never
		 * replaced by a rename */
		fp = fopen(opt_output, "we");
		if (!fp) {
			tool_error("%s: %s", opt_output, g_strerror(errno));
			return -1;
		}
		r = write_to(x, f, ev, fp);
		if (fclose(fp) != 0 && r == 0)
			r = -errno;
		if (r < 0)
			tool_error("%s: %s", opt_output, g_strerror(-r));
		return r < 0 ? -1 : 0;
	}
	tmp = g_strdup_printf("%s.XXXXXX", opt_output);
	fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		tool_error("%s: %s", tmp, g_strerror(errno));
		g_free(tmp);
		return -1;
	}
	fp = fdopen(fd, "w");
	if (!fp) {
		close(fd);
		r = -errno;
	} else {
		r = write_to(x, f, ev, fp);
		if (fflush(fp) != 0 && r == 0)
			r = -errno;
		if (r == 0 && fsync(fd) < 0 && errno != EINVAL)
			r = -errno;
		if (fclose(fp) != 0 && r == 0)
			r = -errno;
	}
	if (r == 0 && rename(tmp, opt_output) < 0)
		r = -errno;
	if (r < 0) {
		tool_error("%s: %s", opt_output, g_strerror(-r));
		unlink(tmp);
	}
	g_free(tmp);
	return r < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	GOptionContext *ctx;
	struct exporter x;
	struct perfring_diag d = { 0 };
	PERFRING_SOURCE_OPTS(o, .window = 1 << 20);
	enum fmt f = FMT_PPROF;
	uint32_t ev = 0;
	int status = TOOL_EXIT_OK, r;

	tool_init("perfring-export");
	ctx = g_option_context_new("[FILE|-]");
	g_option_context_set_summary(ctx,
		"Write the samples of a perf.data file or perfring ring (default: perf.data)\n"
		"as a pprof profile, folded stacks or an SVG flame graph, symbolized\n"
		"from the ELF files and /proc/kallsyms without perf.");
	g_option_context_set_description(ctx,
		"Exit status: 0 ok, 1 the input is damaged (what came before the damage is\n"
		"written), 2 usage error or unreadable input.\n");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (tool_parse_options(ctx, &argc, &argv) < 0)
		return TOOL_EXIT_USAGE;
	if (opt_version) {
		tool_print_version();
		return TOOL_EXIT_OK;
	}
	if (argc > 2) {
		tool_error("one input at a time (got %d)", argc - 1);
		return TOOL_EXIT_USAGE;
	}
	if (!opt_format || strcmp(opt_format, "pprof") == 0) {
		f = FMT_PPROF;
	} else if (strcmp(opt_format, "folded") == 0) {
		f = FMT_FOLDED;
	} else if (strcmp(opt_format, "svg") == 0) {
		f = FMT_SVG;
	} else {
		tool_error("--format: pprof, folded or svg, not %s", opt_format);
		return TOOL_EXIT_USAGE;
	}
	exporter_init(&x);
	cur_exporter = &x;
	x.path = argc > 1 ? argv[1] : "perf.data";
	r = perfring_source_open(x.path, &o, &d, &x.src);
	if (r < 0) {
		if (!d.msg[0])
			snprintf(d.msg, sizeof(d.msg), "%s", g_strerror(-r));
		if (!d.file[0])
			snprintf(d.file, sizeof(d.file), "%s", x.path);
		tool_error_diag(&d);
		exporter_free(&x);
		return TOOL_EXIT_USAGE;
	}
	x.pd = perfring_source_perfdata(x.src);
	if (x.pd && !perfring_perfdata_is_pipe(x.pd))
		read_features(&x);	/* build ids before the MMAPs */
	if (read_all(&x))
		status = TOOL_EXIT_PROBLEMS;
	if (x.pd && perfring_perfdata_is_pipe(x.pd))
		read_features(&x);	/* they came as records */
	late_build_ids(&x);
	name_events(&x);
	times(&x);
	main_mapping(&x);
	if (!opt_no_symbolize)
		symbolize(&x);
	if (x.bad_samples)
		tool_error("%s: %" PRIu64 " SAMPLE records could not be decoded (left out)",
			   x.path, x.bad_samples);
	if ((f != FMT_PPROF && folded_event(&x, &ev) < 0) || write_output(&x, f, ev) < 0)
		status = TOOL_EXIT_USAGE;
	exporter_free(&x);
	return status;
}
