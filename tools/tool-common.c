/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/plugin.h>

#include "tool-common.h"

static const char *prog_name = "perfring";

void tool_init(const char *prog)
{
	prog_name = prog;
	g_set_prgname(prog);
}

/*
 * Standard error's progress line and messages: one thread at a time
 * (perfring-record completes a chunk on a thread of its own, and what it
 * says must not cut into a progress line).
 */
static GMutex out_lock;
static int progress_tty = -1;	/* isatty(2), asked once */
static bool progress_shown;
static gint64 progress_start, progress_last;

static void progress_end_locked(void)
{
	if (progress_shown)
		fprintf(stderr, "\r\033[K");
	progress_shown = false;
	progress_start = 0;
}

static void progress_locked(const char *fmt, va_list ap)
{
	gint64 now;

	if (progress_tty < 0)
		progress_tty = isatty(2);
	if (!progress_tty)
		return;
	now = g_get_monotonic_time();
	if (!progress_start) {
		progress_start = progress_last = now;
		return;
	}
	if (now - progress_start < G_USEC_PER_SEC || now - progress_last < G_USEC_PER_SEC)
		return;
	progress_last = now;
	fprintf(stderr, "\r%s: ", prog_name);
	vfprintf(stderr, fmt, ap);
	progress_shown = true;
}

void tool_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_mutex_lock(&out_lock);
	progress_locked(fmt, ap);
	g_mutex_unlock(&out_lock);
	va_end(ap);
}

void tool_progress_end(void)
{
	g_mutex_lock(&out_lock);
	progress_end_locked();
	g_mutex_unlock(&out_lock);
}

void tool_error(const char *fmt, ...)
{
	va_list ap;

	g_mutex_lock(&out_lock);
	progress_end_locked();
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	g_mutex_unlock(&out_lock);
}

int tool_parse_options(GOptionContext *ctx, int *argc, char ***argv)
{
	GError *err = NULL;
	int ok = g_option_context_parse(ctx, argc, argv, &err);

	if (!ok) {
		tool_error("%s", err->message);
		g_error_free(err);
	}
	g_option_context_free(ctx);
	return ok ? 0 : -1;
}

void tool_error_diag(const struct perfring_diag *d)
{
	char buf[1024];

	tool_error("%s", perfring_diag_format(d, buf, sizeof(buf)));
}

void tool_print_version(void)
{
	printf("%s (libperfring) %s\n", prog_name, perfring_version_string());
	printf("plugin ABI %d.%d\n", PERFRING_PLUGIN_ABI_MAJOR, PERFRING_PLUGIN_ABI_MINOR);
	if (strcmp(perfring_version_string(), PERFRING_VERSION_STRING) != 0)
		printf("built with libperfring %s headers\n", PERFRING_VERSION_STRING);
}

static bool tree_has(const char *top, const char *rel)
{
	char *p = g_build_filename(top, rel, NULL);
	bool ret = g_file_test(p, G_FILE_TEST_EXISTS);

	g_free(p);
	return ret;
}

char *tool_build_tree(void)
{
	char *exe = g_file_read_link("/proc/self/exe", NULL);
	char *dir, *top = NULL, *base;

	if (!exe)
		return NULL;
	dir = g_path_get_dirname(exe);
	base = g_path_get_basename(dir);
	if (!strcmp(base, ".libs")) {
		char *up = g_path_get_dirname(dir);

		g_free(dir);
		dir = up;
		g_free(base);
		base = g_path_get_basename(dir);
	}
	if (!strcmp(base, "tools")) {
		top = g_path_get_dirname(dir);
		if (!tree_has(top, "config.status") || !tree_has(top, "lib/libperfring.la")) {
			g_free(top);
			top = NULL;
		}
	}
	g_free(base);
	g_free(dir);
	g_free(exe);
	return top;
}

/* The build tree's plugin directories, made absolute under top. */
static char *tree_plugins_path(const char *top)
{
	char **rel = g_strsplit(tool_build_plugins_path, ":", -1);
	GString *s = g_string_new(NULL);

	for (char **r = rel; *r; r++) {
		char *p = g_build_filename(top, *r, NULL);

		g_string_append_printf(s, "%s%s", s->len ? ":" : "", p);
		g_free(p);
	}
	g_strfreev(rel);
	return g_string_free(s, FALSE);
}

int tool_load_plugins(struct perfring_registry **out)
{
	struct perfring_registry *reg;
	struct perfring_diag diag = { 0 };
	int ret;

	*out = NULL;
	ret = perfring_registry_new(0, &reg);
	if (ret < 0) {
		tool_error("cannot create the plugin registry: %s", strerror(-ret));
		return ret;
	}
	/*
	 * As PATH: PERFRING_PLUGIN_PATH, then (for a tool run from its build
	 * tree) the just-built plugins, then the installed ones.  A file
	 * whose name an earlier place already gave is shadowed (never
	 * opened), so an installed older or incompatible copy of an in-tree
	 * plugin does not matter.
	 */
	ret = perfring_registry_load_path(reg, g_getenv("PERFRING_PLUGIN_PATH"), &diag);
	if (ret >= 0 && tool_build_plugins_path) {
		char *top = tool_build_tree();

		if (top) {
			char *path = tree_plugins_path(top);

			ret = perfring_registry_load_path(reg, path, &diag);
			g_free(path);
			g_free(top);
		}
	}
	if (ret >= 0)
		ret = perfring_registry_load_installed(reg, &diag);
	if (ret < 0) {
		tool_error_diag(&diag);
		perfring_registry_free(reg);
		return ret;
	}
	*out = reg;
	return 0;
}

void tool_list_plugins(const struct perfring_registry *reg, bool verbose)
{
	size_t n = perfring_registry_count(reg);

	printf("%-10s %-8s %-24s %-5s %s\n", "NAME", "KIND", "TYPES", "ABI", "FILE");
	for (size_t i = 0; i < n; i++) {
		const struct perfring_plugin *p = perfring_registry_plugin_at(reg, i);
		GString *types = g_string_new(NULL);
		const uint32_t *t;
		size_t nt = perfring_plugin_types(p, &t);
		unsigned maj, min;
		char abi[32];

		for (size_t j = 0; j < nt; j++) {
			const char *name = perfring_record_type_name(t[j]);

			if (j)
				g_string_append_c(types, ',');
			if (name)
				g_string_append(types, name);
			else
				g_string_append_printf(types, "%u", t[j]);
		}
		if (!nt)
			g_string_append(types, "-");
		perfring_plugin_abi(p, &maj, &min);
		snprintf(abi, sizeof(abi), "%u.%u", maj, min);
		printf("%-10s %-8s %-24s %-5s %s\n", perfring_plugin_name(p),
		       perfring_plugin_kind_name(perfring_plugin_kind(p)), types->str,
		       abi, perfring_plugin_file(p));
		g_string_free(types, TRUE);
	}
	if (!verbose)
		return;
	n = perfring_registry_shadowed_count(reg);
	for (size_t i = 0; i < n; i++) {
		const struct perfring_plugin *by;
		const char *file = perfring_registry_shadowed_at(reg, i, &by);

		printf("shadowed: %s (by %s)\n", file, perfring_plugin_file(by));
	}
}
