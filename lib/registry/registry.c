/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Plugin registry: find plugin modules, validate their descriptor before
 * calling any of their code, and dispatch record types to them.
 *
 * Loading rules (also in <perfring/registry.h>):
 *  - a plugin exports one data symbol, perfring_plugin_descriptor; it is
 *    read and checked (size, ABI major equal, minor not newer, required
 *    fields) before init or any table function is called;
 *  - modules are opened with G_MODULE_BIND_LOCAL so plugins never see each
 *    other's symbols;
 *  - directories are not recursed and are read in sorted order; *.so and
 *    *.la are accepted, one per base name (the .so when both exist: an
 *    installed .la names the final libdir, which is wrong under DESTDIR);
 *  - two plugins claiming one record type is an error naming both files;
 *  - PERFRING_NO_DLCLOSE keeps modules mapped for ASan and valgrind.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <gmodule.h>

#include <perfring/plugin.h>

#include "ring/check.h"
#include "util/internal.h"

#ifndef PERFRING_PLUGINSDIR
#error "PERFRING_PLUGINSDIR must be defined by the build"
#endif

/* The descriptor as ABI 1.0 defines it: the least a plugin may provide. */
#define DESC_MIN_SIZE								\
	(offsetof(struct perfring_plugin_descriptor, backend_ops) +		\
	 sizeof(((struct perfring_plugin_descriptor *)0)->backend_ops))
#define RECORD_OPS_MIN_SIZE							\
	(offsetof(struct perfring_record_ops, format_json) +			\
	 sizeof(((struct perfring_record_ops *)0)->format_json))

/* The backend table as plugin ABI 1.0 defines it: every function is required. */
#define BACKEND_OPS_MIN_SIZE							\
	(offsetof(struct perfring_backend_ops, target) +			\
	 sizeof(((struct perfring_backend_ops *)0)->target))

/* A plugin claiming more types than this is surely corrupt. */
#define MAX_TYPES 4096u

_Static_assert(offsetof(struct perfring_plugin_descriptor, struct_size) == 0,
	       "descriptor ABI: struct_size first");
_Static_assert(offsetof(struct perfring_plugin_descriptor, abi_major) == 4,
	       "descriptor ABI: abi_major at 4");
_Static_assert(offsetof(struct perfring_plugin_descriptor, abi_minor) == 6,
	       "descriptor ABI: abi_minor at 6");
_Static_assert(offsetof(struct perfring_record_ops, struct_size) == 0,
	       "record ops ABI: struct_size first");
_Static_assert(offsetof(struct perfring_backend_ops, struct_size) == 0,
	       "backend ops ABI: struct_size first");

struct perfring_plugin {
	GModule *module;
	const struct perfring_plugin_descriptor *desc;
	char *file;		/* as given to load_file */
	char *realpath;		/* to notice the same file loaded twice */
	char *stem;		/* its file name less .so/.la: "comm" */
};

/* A plugin file passed over because an earlier place had its file name. */
struct shadowed {
	char *file;
	const struct perfring_plugin *by;	/* the plugin that took the name */
};

struct perfring_registry {
	struct pr_body_check check;	/* first: see ring/check.h */
	unsigned flags;
	GPtrArray *plugins;	/* struct perfring_plugin *, load order */
	GHashTable *by_type;	/* GUINT_TO_POINTER(type) -> plugin */
	GHashTable *by_name;	/* plugin file name ("comm") -> plugin */
	GArray *shadowed;	/* struct shadowed, in search order */
};

static bool no_dlclose(void)
{
	const char *e = getenv("PERFRING_NO_DLCLOSE");

	return e && *e && strcmp(e, "0") != 0;
}

static void module_close(GModule *m)
{
	if (m && !no_dlclose())
		g_module_close(m);
}

static void plugin_free(struct perfring_plugin *p)
{
	if (!p)
		return;
	module_close(p->module);
	g_free(p->file);
	g_free(p->realpath);
	g_free(p->stem);
	g_free(p);
}

/*
 * The check the ring layer runs through reg->check: does the record's body
 * decode by the plugin of its type?  Types without a plugin pass.
 */
static int plugin_check(const struct pr_body_check *self, const struct perfring_attr *attr,
			const char *name, const void *rec, size_t len, uint64_t offset,
			struct perfring_diag *diag)
{
	const struct perfring_registry *reg = (const void *)self;
	const struct perfring_plugin *p = perfring_registry_find(reg, pr_get32(rec));
	union {
		uint64_t align;
		unsigned char bytes[1024];
	} u;
	int ret;

	if (!p)
		return 0;
	if (diag)
		diag->msg[0] = 0;
	ret = perfring_plugin_decode(p, attr, rec, len, &u, sizeof(u), NULL, diag);
	if (ret >= 0)
		return 0;
	if (diag && diag->msg[0]) {
		diag->error = -EBADMSG;
		diag->has_offset = 1;
		diag->offset = offset;
		diag->file[0] = 0;
	} else {
		pr_diag_set(diag, -EBADMSG, NULL, offset, "%s record does not decode (%s)",
			    name, strerror(-ret));
	}
	return -EBADMSG;
}

PERFRING_API int perfring_registry_new(unsigned flags,
				       struct perfring_registry **out)
{
	struct perfring_registry *reg;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (flags)
		return -EINVAL;
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	reg->check.check = plugin_check;
	reg->flags = flags;
	reg->plugins = g_ptr_array_new();
	reg->by_type = g_hash_table_new(g_direct_hash, g_direct_equal);
	reg->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	reg->shadowed = g_array_new(FALSE, FALSE, sizeof(struct shadowed));
	*out = reg;
	return 0;
}

PERFRING_API void perfring_registry_free(struct perfring_registry *reg)
{
	if (!reg)
		return;
	/* Unload in reverse load order. */
	for (guint i = reg->plugins->len; i-- > 0;) {
		struct perfring_plugin *p = g_ptr_array_index(reg->plugins, i);

		if (p->desc->fini)
			p->desc->fini();
		plugin_free(p);
	}
	for (guint i = 0; i < reg->shadowed->len; i++)
		g_free(g_array_index(reg->shadowed, struct shadowed, i).file);
	g_array_free(reg->shadowed, TRUE);
	g_ptr_array_free(reg->plugins, TRUE);
	g_hash_table_destroy(reg->by_type);
	g_hash_table_destroy(reg->by_name);
	free(reg);
}

PERFRING_API const char *perfring_registry_plugins_dir(void)
{
	return PERFRING_PLUGINSDIR;
}

static const char *type_name(uint32_t type, char *buf, size_t len)
{
	const char *n = perfring_record_type_name(type);

	if (n)
		snprintf(buf, len, "%s (%u)", n, type);
	else
		snprintf(buf, len, "%u", type);
	return buf;
}

/* What is wrong with a backend table (NULL: nothing), as for record tables. */
static const char *backend_ops_problem(const struct perfring_backend_ops *ops)
{
#define BOP(f) { offsetof(struct perfring_backend_ops, f), "no " #f " function" }
	static const struct {
		size_t off;
		const char *what;
	} req[] = {
		BOP(open), BOP(start), BOP(wait), BOP(stop), BOP(close), BOP(nr_events),
		BOP(event), BOP(nr_rings), BOP(ring), BOP(synthesize), BOP(read_count),
		BOP(target),
	};
#undef BOP
	size_t i;

	if (!ops)
		return "no backend_ops table";
	if (ops->struct_size < BACKEND_OPS_MIN_SIZE)
		return "backend_ops table too small";
	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		void (*fn)(void);

		memcpy(&fn, (const char *)ops + req[i].off, sizeof(fn));
		if (!fn)
			return req[i].what;
	}
	return NULL;
}

/*
 * Check everything the host relies on, reading only the fields that
 * struct_size says exist.  Returns 0 or -EPROTO with diag set.
 */
static int validate(const char *file, const struct perfring_plugin_descriptor *d,
		    struct perfring_diag *diag)
{
	const struct perfring_record_ops *ops;
	const char *what = NULL;

	if (d->struct_size < offsetof(struct perfring_plugin_descriptor, name)) {
		pr_diag_set(diag, -EPROTO, file, PR_NO_OFFSET,
			    "plugin descriptor too small (%u bytes)", d->struct_size);
		return -EPROTO;
	}
	if (d->abi_major != PERFRING_PLUGIN_ABI_MAJOR) {
		pr_diag_set(diag, -EPROTO, file, PR_NO_OFFSET,
			    "plugin ABI %u.%u is not compatible with this libperfring's plugin ABI %u.%u (major versions differ)",
			    d->abi_major, d->abi_minor, PERFRING_PLUGIN_ABI_MAJOR,
			    PERFRING_PLUGIN_ABI_MINOR);
		return -EPROTO;
	}
	if (d->abi_minor > PERFRING_PLUGIN_ABI_MINOR) {
		pr_diag_set(diag, -EPROTO, file, PR_NO_OFFSET,
			    "plugin ABI %u.%u is newer than this libperfring's plugin ABI %u.%u",
			    d->abi_major, d->abi_minor, PERFRING_PLUGIN_ABI_MAJOR,
			    PERFRING_PLUGIN_ABI_MINOR);
		return -EPROTO;
	}
	if (d->struct_size < DESC_MIN_SIZE) {
		pr_diag_set(diag, -EPROTO, file, PR_NO_OFFSET,
			    "plugin descriptor too small for plugin ABI %u.%u (%u bytes, at least %zu needed)",
			    d->abi_major, d->abi_minor, d->struct_size,
			    (size_t)DESC_MIN_SIZE);
		return -EPROTO;
	}
	if (!d->name || !d->name[0])
		what = "no name";
	else if (d->kind == PERFRING_PLUGIN_KIND_RECORD) {
		ops = d->record_ops;
		if (!d->types || d->n_types == 0)
			what = "a record plugin that claims no record type";
		else if (d->n_types > MAX_TYPES)
			what = "too many record types";
		else if (!ops)
			what = "no record_ops table";
		else if (ops->struct_size < RECORD_OPS_MIN_SIZE)
			what = "record_ops table too small";
		else if (!ops->decode)
			what = "no decode function";
		else if (!ops->format_text)
			what = "no format_text function";
		else if (!ops->format_json)
			what = "no format_json function";
	} else if (d->kind == PERFRING_PLUGIN_KIND_BACKEND) {
		what = backend_ops_problem(d->backend_ops);
	} else {
		what = "unknown plugin kind";
	}
	if (what) {
		pr_diag_set(diag, -EPROTO, file, PR_NO_OFFSET,
			    "invalid plugin descriptor: %s", what);
		return -EPROTO;
	}
	return 0;
}

static const struct perfring_plugin *
find_by_realpath(const struct perfring_registry *reg, const char *rp)
{
	for (guint i = 0; i < reg->plugins->len; i++) {
		const struct perfring_plugin *p = g_ptr_array_index(reg->plugins, i);

		if (p->realpath && rp && strcmp(p->realpath, rp) == 0)
			return p;
	}
	return NULL;
}

/*
 * Anyone who can write a plugin file, or the directory it is found in, can
 * run code in every program that loads it: refuse a file or a directory
 * that is world-writable (a directory only when it is also not sticky, for
 * a file named explicitly; a scanned directory never) or owned by a user
 * other than root and us.  Returns 0 or -EPERM with diag naming the path
 * and the reason.
 */
static int check_owner_mode(const char *path, const struct stat *st, bool scanned,
			    struct perfring_diag *diag)
{
	const char *what = S_ISDIR(st->st_mode) ? "plugin directory" : "plugin";

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		pr_diag_set(diag, -EPERM, path, PR_NO_OFFSET,
			    "refusing %s: owned by another user (uid %u)", what,
			    (unsigned)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & S_IWOTH) &&
	    (!S_ISDIR(st->st_mode) || scanned || !(st->st_mode & S_ISVTX))) {
		pr_diag_set(diag, -EPERM, path, PR_NO_OFFSET,
			    "refusing %s: writable by every user (mode %04o)", what,
			    (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* The directory holding path (which names a file). */
static int check_parent(const char *path, struct perfring_diag *diag)
{
	char *dir = g_path_get_dirname(path);
	struct stat st;
	int ret = 0;

	if (stat(dir, &st) == 0)
		ret = check_owner_mode(dir, &st, false, diag);
	g_free(dir);
	return ret;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && strcmp(s + n - m, suf) == 0;
}

/* The name a plugin file takes in the search: its base name less .so/.la. */
static char *plugin_stem(const char *path)
{
	char *base = g_path_get_basename(path);
	size_t n = strlen(base);

	if (has_suffix(base, ".so") || has_suffix(base, ".la"))
		base[n - 3] = '\0';
	return base;
}

/*
 * Shadowing is decided on the name alone, before the file is even looked
 * at: a shadowed file may be broken, foreign or built for another ABI, and
 * none of that matters, as with a program that comes later in PATH.
 * Returns 1 if an earlier place in the search already gave a plugin of
 * this file name (then PATH is recorded as shadowed unless it is that very
 * file), else 0.
 */
static int shadowed_by_name(struct perfring_registry *reg, const char *path)
{
	const struct perfring_plugin *winner;
	char *stem = plugin_stem(path);

	winner = g_hash_table_lookup(reg->by_name, stem);
	g_free(stem);
	if (!winner)
		return 0;
	{
		char *wr = realpath(path, NULL);

		if (!wr || !winner->realpath || strcmp(wr, winner->realpath) != 0) {
			struct shadowed sh = { .file = g_strdup(path), .by = winner };

			g_array_append_val(reg->shadowed, sh);
			pr_log(PERFRING_LOG_DEBUG, "plugin file %s shadowed by %s", path,
			       winner->file);
		}
		free(wr);
	}
	return 1;
}

/* A plugin file must be a regular file that is safe to load: 0 or -errno. */
static int check_plugin_file(const char *path, struct perfring_diag *diag)
{
	struct stat st;
	int ret;

	if (stat(path, &st) < 0) {
		ret = -errno;
		pr_diag_set(diag, ret, path, PR_NO_OFFSET, "cannot load plugin: %s",
			    strerror(-ret));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_diag_set(diag, -EINVAL, path, PR_NO_OFFSET,
			    "cannot load plugin: not a regular file");
		return -EINVAL;
	}
	ret = check_owner_mode(path, &st, false, diag);
	if (ret == 0)
		ret = check_parent(path, diag);
	return ret < 0 ? ret : 0;
}

/* The module of PATH and its descriptor; NULL with DIAG set (-ELIBBAD). */
static GModule *open_plugin(const char *path,
			    const struct perfring_plugin_descriptor **dp,
			    struct perfring_diag *diag)
{
	gpointer sym = NULL;
	char *open_path;
	GModule *m;

	/* Never let the dynamic linker search for a bare name. */
	if (g_path_is_absolute(path)) {
		open_path = g_strdup(path);
	} else {
		char *cwd = g_get_current_dir();

		open_path = g_build_filename(cwd, path, NULL);
		g_free(cwd);
	}
	m = g_module_open(open_path, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
	g_free(open_path);
	if (!m) {
		pr_diag_set(diag, -ELIBBAD, path, PR_NO_OFFSET,
			    "cannot load plugin: %s", g_module_error());
		return NULL;
	}
	if (!g_module_symbol(m, PERFRING_PLUGIN_SYMBOL, &sym) || !sym) {
		pr_diag_set(diag, -ELIBBAD, path, PR_NO_OFFSET,
			    "not a perfring plugin (no %s symbol)",
			    PERFRING_PLUGIN_SYMBOL);
		module_close(m);
		return NULL;
	}
	*dp = sym;
	return m;
}

/* Every record type D claims must be its own and free: 0 or -errno. */
static int check_claims(struct perfring_registry *reg, const char *path,
			const struct perfring_plugin_descriptor *d,
			struct perfring_diag *diag)
{
	char tbuf[64];

	for (uint32_t i = 0; d->kind == PERFRING_PLUGIN_KIND_RECORD && i < d->n_types; i++) {
		const struct perfring_plugin *o =
			g_hash_table_lookup(reg->by_type, GUINT_TO_POINTER(d->types[i]));

		for (uint32_t j = 0; !o && j < i; j++) {
			if (d->types[j] == d->types[i]) {
				pr_diag_set(diag, -EPROTO, path, PR_NO_OFFSET,
					    "invalid plugin descriptor: record type %s claimed twice",
					    type_name(d->types[i], tbuf, sizeof(tbuf)));
				return -EPROTO;
			}
		}
		if (o) {
			pr_diag_set(diag, -EEXIST, path, PR_NO_OFFSET,
				    "plugin '%s' claims record type %s, already claimed by plugin '%s' (%s)",
				    d->name, type_name(d->types[i], tbuf, sizeof(tbuf)),
				    o->desc->name, o->file);
			return -EEXIST;
		}
	}
	return 0;
}

/* The loaded plugin into the registry, by name and by record type. */
static void add_plugin(struct perfring_registry *reg, GModule *m,
		       const struct perfring_plugin_descriptor *d,
		       const char *path, const char *rp)
{
	struct perfring_plugin *p = g_new0(struct perfring_plugin, 1);

	p->module = m;
	p->desc = d;
	p->file = g_strdup(path);
	p->realpath = g_strdup(rp);
	p->stem = plugin_stem(path);
	g_ptr_array_add(reg->plugins, p);
	g_hash_table_insert(reg->by_name, p->stem, p);
	for (uint32_t i = 0; d->kind == PERFRING_PLUGIN_KIND_RECORD && i < d->n_types; i++)
		g_hash_table_insert(reg->by_type, GUINT_TO_POINTER(d->types[i]), p);
	pr_log(PERFRING_LOG_DEBUG, "loaded plugin '%s' from %s", d->name, path);
}

/*
 * Returns 1 if loaded, 0 if the same file was already loaded or an earlier
 * place in the search already gave a plugin of this file name (the file is
 * then shadowed: recorded, never opened), or -errno.
 */
static int load_file(struct perfring_registry *reg, const char *path,
		     struct perfring_diag *diag)
{
	const struct perfring_plugin_descriptor *d = NULL;
	char *rp;
	GModule *m;
	int ret;

	if (shadowed_by_name(reg, path))
		return 0;
	ret = check_plugin_file(path, diag);
	if (ret < 0)
		return ret;
	rp = realpath(path, NULL);
	if (rp && find_by_realpath(reg, rp)) {
		free(rp);
		return 0;
	}
	m = open_plugin(path, &d, diag);
	if (!m) {
		free(rp);
		return -ELIBBAD;
	}
	ret = validate(path, d, diag);
	if (ret >= 0)
		ret = check_claims(reg, path, d, diag);
	if (ret >= 0 && d->init) {
		ret = d->init();
		if (ret < 0) {
			pr_diag_set(diag, -ECANCELED, path, PR_NO_OFFSET,
				    "plugin '%s' init failed: %s", d->name,
				    strerror(-ret));
			ret = -ECANCELED;
		}
	}
	if (ret < 0) {
		module_close(m);
		free(rp);
		return ret;
	}
	add_plugin(reg, m, d, path, rp);
	free(rp);
	return 1;
}

PERFRING_API int perfring_registry_load_file(struct perfring_registry *reg,
					     const char *path,
					     struct perfring_diag *diag)
{
	int ret;

	if (!reg || !path) {
		pr_diag_set(diag, -EINVAL, path, PR_NO_OFFSET, "invalid argument");
		return -EINVAL;
	}
	ret = load_file(reg, path, diag);
	return ret < 0 ? ret : 0;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(struct perfring_registry *reg, const char *dir,
		    struct perfring_diag *diag)
{
	GPtrArray *names;
	struct dirent *de;
	DIR *dp;
	struct stat st;
	int ret = 0, n = 0;

	if (stat(dir, &st) == 0) {
		ret = check_owner_mode(dir, &st, true, diag);
		if (ret < 0)
			return ret;
	}
	dp = opendir(dir);
	if (!dp) {
		ret = -errno;
		pr_diag_set(diag, ret, dir, PR_NO_OFFSET,
			    "cannot read plugin directory: %s", strerror(-ret));
		return ret;
	}
	names = g_ptr_array_new_with_free_func(g_free);
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		if (has_suffix(de->d_name, ".so"))
			g_ptr_array_add(names, g_strdup(de->d_name));
		else if (has_suffix(de->d_name, ".la"))
			g_ptr_array_add(names, g_strdup(de->d_name));
	}
	closedir(dp);
	g_ptr_array_sort(names, cmp_str);
	for (guint i = 0; i < names->len; i++) {
		const char *name = g_ptr_array_index(names, i);
		char *path;

		if (has_suffix(name, ".la")) {
			/* Skip NAME.la when NAME.so is there too. */
			char *so = g_strndup(name, strlen(name) - 3);
			bool skip = false;

			for (guint j = 0; j < names->len && !skip; j++) {
				const char *o = g_ptr_array_index(names, j);

				skip = has_suffix(o, ".so") && strlen(o) == strlen(name) &&
				       strncmp(o, so, strlen(so)) == 0;
			}
			g_free(so);
			if (skip)
				continue;
		}
		path = g_build_filename(dir, name, NULL);
		ret = load_file(reg, path, diag);
		g_free(path);
		if (ret < 0)
			break;
		n += ret;
	}
	g_ptr_array_free(names, TRUE);
	return ret < 0 ? ret : n;
}

PERFRING_API int perfring_registry_load_dir(struct perfring_registry *reg,
					    const char *dir,
					    struct perfring_diag *diag)
{
	if (!reg || !dir) {
		pr_diag_set(diag, -EINVAL, dir, PR_NO_OFFSET, "invalid argument");
		return -EINVAL;
	}
	return load_dir(reg, dir, diag);
}

PERFRING_API int perfring_registry_load_path(struct perfring_registry *reg,
					     const char *list,
					     struct perfring_diag *diag)
{
	char **parts;
	int ret = 0, n = 0;

	if (!reg) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "invalid argument");
		return -EINVAL;
	}
	if (!list)
		return 0;
	parts = g_strsplit(list, ":", -1);
	for (char **e = parts; *e; e++) {
		struct stat st;

		if (!**e)	/* an empty entry never means "." */
			continue;
		if (!g_path_is_absolute(*e))
			pr_log(PERFRING_LOG_WARN,
			       "plugin path entry '%s' is relative to the current directory",
			       *e);
		if (stat(*e, &st) < 0) {
			ret = -errno;
			pr_diag_set(diag, ret, *e, PR_NO_OFFSET,
				    "cannot read plugin path entry: %s", strerror(-ret));
		} else if (S_ISDIR(st.st_mode)) {
			ret = load_dir(reg, *e, diag);
		} else {
			ret = load_file(reg, *e, diag);
		}
		if (ret < 0)
			break;
		n += ret;
	}
	g_strfreev(parts);
	return ret < 0 ? ret : n;
}

PERFRING_API int perfring_registry_load_installed(struct perfring_registry *reg,
						  struct perfring_diag *diag)
{
	const char *sys = getenv("PERFRING_PLUGIN_SYSTEM_PATH");
	struct stat st;

	if (!reg) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET, "invalid argument");
		return -EINVAL;
	}
	if (sys)	/* set, even empty: it replaces the installed directory */
		return perfring_registry_load_path(reg, sys, diag);
	if (stat(PERFRING_PLUGINSDIR, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	return load_dir(reg, PERFRING_PLUGINSDIR, diag);
}

PERFRING_API int perfring_registry_load_default(struct perfring_registry *reg,
						struct perfring_diag *diag)
{
	int ret, n;

	ret = perfring_registry_load_path(reg, getenv("PERFRING_PLUGIN_PATH"), diag);
	if (ret < 0)
		return ret;
	n = ret;
	ret = perfring_registry_load_installed(reg, diag);
	return ret < 0 ? ret : n + ret;
}

PERFRING_API uint32_t perfring_registry_shadowed_count(const struct perfring_registry *reg)
{
	return reg ? (uint32_t)reg->shadowed->len : 0;
}

PERFRING_API const char *
perfring_registry_shadowed_at(const struct perfring_registry *reg, uint32_t i,
			      const struct perfring_plugin **by)
{
	const struct shadowed *sh;

	if (by)
		*by = NULL;
	if (!reg || i >= reg->shadowed->len)
		return NULL;
	sh = &g_array_index(reg->shadowed, struct shadowed, i);
	if (by)
		*by = sh->by;
	return sh->file;
}

PERFRING_API const struct perfring_plugin *
perfring_registry_find(const struct perfring_registry *reg, uint32_t type)
{
	if (!reg)
		return NULL;
	return g_hash_table_lookup(reg->by_type, GUINT_TO_POINTER(type));
}

PERFRING_API uint32_t perfring_registry_count(const struct perfring_registry *reg)
{
	return reg ? (uint32_t)reg->plugins->len : 0;
}

PERFRING_API const struct perfring_plugin *
perfring_registry_plugin_at(const struct perfring_registry *reg, uint32_t i)
{
	if (!reg || i >= reg->plugins->len)
		return NULL;
	return g_ptr_array_index(reg->plugins, i);
}

PERFRING_API const char *perfring_plugin_name(const struct perfring_plugin *p)
{
	return p ? p->desc->name : "";
}

PERFRING_API const char *perfring_plugin_version(const struct perfring_plugin *p)
{
	return p && p->desc->version ? p->desc->version : "";
}

PERFRING_API const char *perfring_plugin_description(const struct perfring_plugin *p)
{
	return p && p->desc->description ? p->desc->description : "";
}

PERFRING_API const char *perfring_plugin_file(const struct perfring_plugin *p)
{
	return p ? p->file : "";
}

PERFRING_API int perfring_plugin_kind(const struct perfring_plugin *p)
{
	return p ? (int)p->desc->kind : 0;
}

PERFRING_API const char *perfring_plugin_kind_name(int kind)
{
	switch (kind) {
	case PERFRING_PLUGIN_KIND_RECORD:
		return "record";
	case PERFRING_PLUGIN_KIND_BACKEND:
		return "backend";
	default:
		return "unknown";
	}
}

PERFRING_API uint32_t perfring_plugin_types(const struct perfring_plugin *p,
					  const uint32_t **types)
{
	bool rec = p && p->desc->kind == PERFRING_PLUGIN_KIND_RECORD;

	if (types)
		*types = rec ? p->desc->types : NULL;
	return rec ? p->desc->n_types : 0;
}

PERFRING_API void perfring_plugin_abi(const struct perfring_plugin *p,
				      unsigned *major, unsigned *minor)
{
	if (major)
		*major = p ? p->desc->abi_major : 0;
	if (minor)
		*minor = p ? p->desc->abi_minor : 0;
}

PERFRING_API const struct perfring_plugin_descriptor *
perfring_plugin_borrow_descriptor(const struct perfring_plugin *p)
{
	return p ? p->desc : NULL;
}

static bool claims(const struct perfring_plugin *p, uint32_t type)
{
	for (uint32_t i = 0; i < p->desc->n_types; i++)
		if (p->desc->types[i] == type)
			return true;
	return false;
}

/* The record table if p is a record plugin, else NULL. */
static const struct perfring_record_ops *rops(const struct perfring_plugin *p)
{
	if (!p || p->desc->kind != PERFRING_PLUGIN_KIND_RECORD)
		return NULL;
	return p->desc->record_ops;
}

/* Checks shared by decode and format: the record's type is p's. */
static int check_rec(const struct perfring_plugin *p, const void *rec, size_t size)
{
	if (!rec)
		return -EINVAL;
	if (size < sizeof(struct perfring_event_header))
		return -EBADMSG;
	if (!claims(p, pr_get32(rec)))
		return -EINVAL;
	return 0;
}

PERFRING_API int perfring_plugin_encode(const struct perfring_plugin *p,
					const struct perfring_attr *attr,
					uint32_t type, const void *typed,
					const struct perfring_sample_id *sid,
					void *buf, size_t len)
{
	const struct perfring_record_ops *ops = rops(p);

	if (!ops || !ops->encode)
		return -EOPNOTSUPP;
	if (!typed || (!buf && len) || !claims(p, type))
		return -EINVAL;
	return ops->encode(attr, type, typed, sid, buf, len);
}

PERFRING_API int perfring_plugin_parse_json(const struct perfring_plugin *p,
					    const struct perfring_attr *attr,
					    uint32_t type, uint16_t misc,
					    const struct perfring_json_in *in,
					    const struct perfring_sample_id *sid,
					    void *buf, size_t len)
{
	const struct perfring_record_ops *ops = rops(p);

	if (!ops)
		return -EOPNOTSUPP;
	/* Only the fields its struct_size covers exist (an ABI 1.0 table). */
	if (ops->struct_size < offsetof(struct perfring_record_ops, parse_json) +
				   sizeof(ops->parse_json) || !ops->parse_json)
		return -EOPNOTSUPP;
	if (!in || in->struct_size < sizeof(*in) || (!buf && len) || !claims(p, type))
		return -EINVAL;
	return ops->parse_json(attr, type, misc, in, sid, buf, len);
}

PERFRING_API int perfring_plugin_decode(const struct perfring_plugin *p,
					const struct perfring_attr *attr,
					const void *rec, size_t size,
					void *typed_out, size_t out_size,
					struct perfring_sample_id *sid_out,
					struct perfring_diag *diag)
{
	const struct perfring_record_ops *ops = rops(p);
	int ret;

	if (!ops)
		return -EOPNOTSUPP;
	if (!typed_out)
		return -EINVAL;
	ret = check_rec(p, rec, size);
	if (ret == -EBADMSG)
		pr_diag_set(diag, ret, NULL, 0, "record of %zu bytes is shorter than its header", size);
	if (ret < 0)
		return ret;
	return ops->decode(attr, rec, size, typed_out, out_size, sid_out, diag);
}

PERFRING_API int perfring_plugin_format_text(const struct perfring_plugin *p,
					     const struct perfring_attr *attr,
					     const void *rec, size_t size,
					     char *buf, size_t len)
{
	const struct perfring_record_ops *ops = rops(p);
	int ret;

	if (!ops)
		return -EOPNOTSUPP;
	if (!buf && len)
		return -EINVAL;
	ret = check_rec(p, rec, size);
	return ret < 0 ? ret : ops->format_text(attr, rec, size, buf, len);
}

PERFRING_API int perfring_plugin_format_json(const struct perfring_plugin *p,
					     const struct perfring_attr *attr,
					     const void *rec, size_t size,
					     char *buf, size_t len)
{
	const struct perfring_record_ops *ops = rops(p);
	int ret;

	if (!ops)
		return -EOPNOTSUPP;
	if (!buf && len)
		return -EINVAL;
	ret = check_rec(p, rec, size);
	return ret < 0 ? ret : ops->format_json(attr, rec, size, buf, len);
}

/* ---- formatting helpers ---------------------------------------------------- */

/* Append one character to a snprintf-style output. */
static inline void put_ch(char *buf, size_t len, size_t *pos, char c)
{
	if (*pos + 1 < len)
		buf[*pos] = c;
	(*pos)++;
}

static int finish(char *buf, size_t len, size_t pos)
{
	if (len)
		buf[pos < len ? pos : len - 1] = '\0';
	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}

PERFRING_API int perfring_format_raw_hex(const void *data, size_t size,
					 char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = data;
	size_t pos = 0;

	if ((!data && size) || (!buf && len))
		return -EINVAL;
	for (size_t i = 0; i < size; i++) {
		if (i)
			put_ch(buf, len, &pos, ' ');
		put_ch(buf, len, &pos, hex[b[i] >> 4]);
		put_ch(buf, len, &pos, hex[b[i] & 15]);
	}
	return finish(buf, len, pos);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return need;
}

PERFRING_API int perfring_format_json_string(const char *s, size_t n,
					     char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t pos = 0;

	if ((!s && n) || (!buf && len))
		return -EINVAL;
	put_ch(buf, len, &pos, '"');
	for (size_t i = 0; i < n && u[i];) {
		unsigned char c = u[i];
		size_t k;

		if (c == '"' || c == '\\') {
			put_ch(buf, len, &pos, '\\');
			put_ch(buf, len, &pos, (char)c);
			i++;
			continue;
		}
		if (c == '\n' || c == '\t' || c == '\r') {
			put_ch(buf, len, &pos, '\\');
			put_ch(buf, len, &pos, c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			i++;
			continue;
		}
		k = c < 0x20 || c == 0x7f ? 0 : utf8_len(u + i, n - i);
		/* A NUL inside a multi-byte sequence makes it invalid, fine. */
		if (k == 0) {
			put_ch(buf, len, &pos, '\\');
			put_ch(buf, len, &pos, 'u');
			put_ch(buf, len, &pos, '0');
			put_ch(buf, len, &pos, '0');
			put_ch(buf, len, &pos, hex[c >> 4]);
			put_ch(buf, len, &pos, hex[c & 15]);
			i++;
			continue;
		}
		for (size_t j = 0; j < k; j++)
			put_ch(buf, len, &pos, (char)u[i + j]);
		i += k;
	}
	put_ch(buf, len, &pos, '"');
	return finish(buf, len, pos);
}
