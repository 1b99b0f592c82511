/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the perfring-* tools: exit codes, messages, plugin loading. */
#ifndef PERFRING_TOOL_COMMON_H
#define PERFRING_TOOL_COMMON_H

#include <stdbool.h>

#include <glib.h>
#include <perfring/perfring.h>

/* Exit codes of every tool. */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_PROBLEMS 1	/* the input has problems (--check, ...) */
#define TOOL_EXIT_USAGE 2	/* bad usage or unreadable input */

/* Set once in main: the program name used in messages. */
void tool_init(const char *prog);

/* "PROG: MSG" on stderr (a progress line is cleared first). */
void tool_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/*
 * The progress line of long work: "PROG: TEXT" rewritten in place on
 * stderr, only when stderr is a terminal, not in the first second after the
 * first call and then at most once a second (cheap to call often: nothing
 * is formatted in between).  tool_progress_end() clears it and restarts
 * the first-second delay.
 */
void tool_progress(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void tool_progress_end(void);

/*
 * Parse the command line with ctx and free ctx: 0, or -1 after printing
 * the error ("PROG: MSG").
 */
int tool_parse_options(GOptionContext *ctx, int *argc, char ***argv);

/* "PROG: FILE: offset 0x...: MSG" from a diagnostic. */
void tool_error_diag(const struct perfring_diag *d);

/* The --version text: tool, library version, plugin ABI. */
void tool_print_version(void);

/*
 * The top of the build tree this program runs from (newly allocated, for
 * g_free), or NULL when it runs installed.  A build tree is told by the
 * executable's place, TOP/tools/ or TOP/tools/.libs/ (libtool's), beside
 * TOP/config.status and TOP/lib/libperfring.la.
 */
char *tool_build_tree(void);

/*
 * Load plugins, first name wins (as PATH): PERFRING_PLUGIN_PATH, then the
 * build tree's plugin directories when running uninstalled, then the
 * installed plugins (perfring_registry_load_installed).  On failure prints
 * the error and returns a negative errno.
 */
int tool_load_plugins(struct perfring_registry **out);

/*
 * The just-built plugins' path list of this program, relative to the build
 * tree's top, searched when it runs from its build tree (NULL: none).  It differs between programs, so each
 * defines it from its own PERFRING_BUILD_PLUGINS_PATH, at file scope:
 * TOOL_DEFINE_BUILD_PLUGINS_PATH;
 */
extern const char *const tool_build_plugins_path;
#ifdef PERFRING_BUILD_PLUGINS_PATH
#define TOOL_DEFINE_BUILD_PLUGINS_PATH \
	const char *const tool_build_plugins_path = PERFRING_BUILD_PLUGINS_PATH
#else
#define TOOL_DEFINE_BUILD_PLUGINS_PATH const char *const tool_build_plugins_path = NULL
#endif

/*
 * Print one line per plugin: name, kind, types (perf names), plugin ABI,
 * file, with a header line; verbose: then one "shadowed: FILE (by FILE)"
 * line per plugin file the search passed over.
 */
void tool_list_plugins(const struct perfring_registry *reg, bool verbose);

/*
 * Clear a diag before a call that may fill it: the fields a reader of the
 * diag looks at, not the whole 800-byte struct, since this runs once per
 * record.
 */
static inline void tool_diag_reset(struct perfring_diag *diag)
{
	diag->error = 0;
	diag->has_offset = 0;
	diag->file[0] = 0;
	diag->msg[0] = 0;
}

#endif
