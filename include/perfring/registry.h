/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin registry: find, validate and load record-type plugins, then
 * encode, decode and format records through them.  Plus formatting helpers
 * for records no plugin claims.
 *
 * Search order of perfring_registry_load_default(), as PATH: the entries
 * of PERFRING_PLUGIN_PATH (colon-separated directories or plugin files) in
 * their order, then the installed plugins directory
 * (perfring_registry_plugins_dir(), also `pkg-config --variable=pluginsdir
 * perfring`), which PERFRING_PLUGIN_SYSTEM_PATH replaces when set.  The
 * tools put their build tree's plugins between the two when they run from
 * it.  Directories are not recursed; their entries are loaded in sorted
 * order; *.so and *.la files are plugins (one per base name: the .so when
 * both exist).  Nothing is loaded from the current directory unless a path
 * names it.
 *
 * Shadowing: a plugin file takes its file name less .so/.la ("comm" for
 * comm.so and comm.la).  Once a plugin of that name is loaded, any later
 * file of the same name, wherever it is, is shadowed: it is never opened,
 * so none of its code runs and its ABI does not matter.  Shadowed files
 * are listed by perfring_registry_shadowed_at() and logged at debug level.
 * Two plugins of different names that claim one record type are refused.
 *
 * Environment:
 *   PERFRING_PLUGIN_PATH   plugin directories or files, searched first
 *   PERFRING_PLUGIN_SYSTEM_PATH  if set, searched instead of the installed
 *                          plugins directory (empty: none)
 *   PERFRING_NO_DLCLOSE    if set (non-empty), never unload plugin modules,
 *                          so ASan and valgrind can still name their code
 *
 * A registry is not thread-safe while it loads; once loaded, finding,
 * encoding, decoding and formatting may run from any thread.
 */
#ifndef PERFRING_REGISTRY_H
#define PERFRING_REGISTRY_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/registry.h>"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_registry;
struct perfring_plugin;			/* a loaded plugin, owned by its registry */
struct perfring_plugin_descriptor;	/* <perfring/plugin.h> */

/*
 * Create an empty registry (flags: 0).  Returns 0, -EINVAL for unknown
 * flags, -ENOMEM.
 */
PERFRING_API int perfring_registry_new(unsigned flags,
				       struct perfring_registry **out);

/* Unload every plugin (calling fini) and free the registry.  NULL is a no-op. */
PERFRING_API void perfring_registry_free(struct perfring_registry *reg);

/*
 * Load one plugin file (.so or .la).  Returns 0, or:
 *  -ENOENT   the file does not exist
 *  -ELIBBAD  it cannot be opened as a module, or it has no
 *            perfring_plugin_descriptor symbol ("not a perfring plugin")
 *  -EPROTO   its ABI version is not ours (diag names both versions), its
 *            descriptor is too small or a required field is missing
 *  -EINVAL   path is not a regular file
 *  -EEXIST   it claims a record type another loaded plugin claims (diag
 *            names both files)
 *  -ECANCELED its init function failed
 *  -ENOMEM
 * Loading a file that is already loaded (same real path) does nothing and
 * returns 0; so does a file whose name (less .so/.la) a loaded plugin
 * already has: it is shadowed (recorded, never opened).  On failure
 * nothing is added and diag says why, naming the file.
 */
PERFRING_API int perfring_registry_load_file(struct perfring_registry *reg,
					     const char *path,
					     struct perfring_diag *diag);

/*
 * Load every plugin of a directory, sorted by name, not recursing.
 * Returns the number loaded (0 for a directory without plugins), -ENOENT /
 * -ENOTDIR / -EACCES if dir cannot be read (diag names it), or the first
 * error of perfring_registry_load_file (loading stops there).
 */
PERFRING_API int perfring_registry_load_dir(struct perfring_registry *reg,
					    const char *dir,
					    struct perfring_diag *diag);

/*
 * Load a colon-separated list of directories and plugin files.  Empty
 * entries are ignored (they never mean the current directory); a relative
 * entry is loaded but logged as a warning; a missing entry is an error
 * (-ENOENT, diag names it).  Returns the number loaded or the first error
 * (as above).
 */
PERFRING_API int perfring_registry_load_path(struct perfring_registry *reg,
					     const char *list,
					     struct perfring_diag *diag);

/*
 * The installed plugins: the entries of PERFRING_PLUGIN_SYSTEM_PATH when it
 * is set (as perfring_registry_load_path; empty loads nothing), else the
 * installed plugins directory, skipped silently when it does not exist.
 * Returns the number loaded or the first error.
 */
PERFRING_API int perfring_registry_load_installed(struct perfring_registry *reg,
						  struct perfring_diag *diag);

/*
 * PERFRING_PLUGIN_PATH, then perfring_registry_load_installed().  Returns
 * the number loaded or the first error.
 */
PERFRING_API int perfring_registry_load_default(struct perfring_registry *reg,
						struct perfring_diag *diag);

/* The installed plugins directory this library was built for. */
PERFRING_API const char *perfring_registry_plugins_dir(void);

/* The plugin that claims a record type, or NULL (borrowed). */
PERFRING_API const struct perfring_plugin *
perfring_registry_find(const struct perfring_registry *reg, uint32_t type);

/*
 * Shadowed plugin files, in search order: their number, and the i-th file
 * as the search found it (borrowed; NULL past the end), with the plugin
 * that took its name in *by (if by is not NULL).
 */
PERFRING_API uint32_t perfring_registry_shadowed_count(const struct perfring_registry *reg);
PERFRING_API const char *
perfring_registry_shadowed_at(const struct perfring_registry *reg, uint32_t i,
			      const struct perfring_plugin **by);

/* Iterate: number of plugins, and the i-th in load order (borrowed). */
PERFRING_API uint32_t perfring_registry_count(const struct perfring_registry *reg);
PERFRING_API const struct perfring_plugin *
perfring_registry_plugin_at(const struct perfring_registry *reg, uint32_t i);

/* What a loaded plugin says about itself (strings borrowed, never NULL). */
PERFRING_API const char *perfring_plugin_name(const struct perfring_plugin *p);
PERFRING_API const char *perfring_plugin_version(const struct perfring_plugin *p);
PERFRING_API const char *perfring_plugin_description(const struct perfring_plugin *p);
PERFRING_API const char *perfring_plugin_file(const struct perfring_plugin *p);
/* enum perfring_plugin_kind (<perfring/plugin.h>): 1 record, 2 backend. */
PERFRING_API int perfring_plugin_kind(const struct perfring_plugin *p);
/* "record", "backend" or "unknown". */
PERFRING_API const char *perfring_plugin_kind_name(int kind);
/* Number of claimed record types; *types (if not NULL) gets the array. */
PERFRING_API uint32_t perfring_plugin_types(const struct perfring_plugin *p,
					  const uint32_t **types);
/* The plugin ABI version the plugin was built against. */
PERFRING_API void perfring_plugin_abi(const struct perfring_plugin *p,
				      unsigned *major, unsigned *minor);
/* The validated descriptor, for hosts that include <perfring/plugin.h>. */
PERFRING_API const struct perfring_plugin_descriptor *
perfring_plugin_borrow_descriptor(const struct perfring_plugin *p);

/*
 * Calls through the plugin's record table, with the contracts documented
 * in <perfring/plugin.h> (struct perfring_record_ops).  In addition:
 * -EOPNOTSUPP if the plugin lacks the operation (e.g. encode) or is not a
 * record plugin; -EINVAL if type (or the record's type) is not one it
 * claims, or a pointer argument is NULL.
 */
PERFRING_API int perfring_plugin_encode(const struct perfring_plugin *p,
					const struct perfring_attr *attr,
					uint32_t type, const void *typed,
					const struct perfring_sample_id *sid,
					void *buf, size_t len);
PERFRING_API int perfring_plugin_decode(const struct perfring_plugin *p,
					const struct perfring_attr *attr,
					const void *rec, size_t size,
					void *typed_out, size_t out_size,
					struct perfring_sample_id *sid_out,
					struct perfring_diag *diag);
PERFRING_API int perfring_plugin_format_text(const struct perfring_plugin *p,
					     const struct perfring_attr *attr,
					     const void *rec, size_t size,
					     char *buf, size_t len);
PERFRING_API int perfring_plugin_format_json(const struct perfring_plugin *p,
					     const struct perfring_attr *attr,
					     const void *rec, size_t size,
					     char *buf, size_t len);

/*
 * The members of one JSON object, as a host that parsed it hands them to a
 * plugin's parse_json (perfring-replay --json-in does).  Each getter looks
 * a member up by name and returns 1 with its value in *out, 0 when the
 * object has no such member (*out untouched), or -EINVAL when the member
 * has the wrong JSON type or is out of range; the host has then recorded
 * an error naming the member.  A member a getter looked up counts as
 * used: the host refuses an object with members nothing used.
 */
struct perfring_json_in {
	uint32_t struct_size;		/* sizeof(struct perfring_json_in) */
	void *host;			/* the host's context: pass it back */
	/* A JSON integer from 0 to max. */
	int (*get_uint)(void *host, const char *name, uint64_t max, uint64_t *out);
	/* A 32-bit value as pids are printed: an integer from -2^31 to 2^32-1. */
	int (*get_s32)(void *host, const char *name, uint32_t *out);
	/* An address: a "0x..." string of 1 to 16 hex digits. */
	int (*get_addr)(void *host, const char *name, uint64_t *out);
	int (*get_bool)(void *host, const char *name, bool *out);
	/* A string, unescaped; borrowed until parse_json returns; may hold NULs. */
	int (*get_string)(void *host, const char *name, const char **s, size_t *len);
	/* Bytes written as hex digit pairs without 0x; borrowed likewise. */
	int (*get_hex)(void *host, const char *name, const void **bytes, size_t *len);
	/* Report a member whose value the plugin cannot take; returns -EINVAL. */
	int (*fail)(void *host, const char *name, const char *msg);
};

/*
 * Build a record of `type` from the JSON members its plugin's format_json
 * prints, through the plugin's parse_json (plugin ABI 1.1): misc is the
 * header's, sid the trailer (NULL: zeros).  Returns the record size;
 * -EINVAL after an error reported through `in`, or for a bad argument or
 * a type the plugin does not claim; -ENOSPC / -EMSGSIZE as encode;
 * -EOPNOTSUPP when the plugin has no parse_json (built for plugin ABI 1.0,
 * or it chose none): its records then travel as hex.
 */
PERFRING_API int perfring_plugin_parse_json(const struct perfring_plugin *p,
					    const struct perfring_attr *attr,
					    uint32_t type, uint16_t misc,
					    const struct perfring_json_in *in,
					    const struct perfring_sample_id *sid,
					    void *buf, size_t len);

/* ---- formatting helpers ---------------------------------------------------- */

/*
 * Bytes as lowercase hex pairs separated by spaces ("04 00 00 00 ..."), for
 * records that no plugin claims.  snprintf semantics: returns the length
 * needed (3 * size - 1 for size > 0), buf gets a NUL-terminated, possibly
 * truncated copy.
 */
PERFRING_API int perfring_format_raw_hex(const void *data, size_t size,
					 char *buf, size_t len);

/*
 * A JSON string literal, quotes included, for the first n bytes of s (or up
 * to a NUL).  ", \ and control characters are escaped; bytes that are not
 * valid UTF-8 become \u00XX.  snprintf semantics.
 */
PERFRING_API int perfring_format_json_string(const char *s, size_t n,
					     char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_REGISTRY_H */
