/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-dump: decode rings and perf.data files.
 *
 * This first version lists the plugins it would decode with
 * (--list-plugins); decoding FILE arguments comes next.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "tool-common.h"

static gboolean opt_version;
static gboolean opt_list_plugins;

static const GOptionEntry entries[] = {
	{ "list-plugins", 0, 0, G_OPTION_ARG_NONE, &opt_list_plugins,
	  "List the plugins found (name, kind, record types, plugin ABI, file) and exit", NULL },
	{ "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	  "Show the library version and plugin ABI and exit", NULL },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	GOptionContext *ctx;
	GError *err = NULL;
	struct perfring_registry *reg;
	int ret;

	tool_init("perfring-dump");
	ctx = g_option_context_new("[FILE|-]");
	g_option_context_set_summary(ctx,
		"Decode perfring rings and perf.data files.");
	g_option_context_set_description(ctx,
		"Environment:\n"
		"  PERFRING_PLUGIN_PATH  colon-separated plugin directories or files, searched first\n"
		"  PERFRING_NO_DLCLOSE   keep plugins loaded at exit (for ASan and valgrind)\n"
		"\n"
		"Exit status: 0 ok, 1 problems found in the input, 2 usage error or unreadable input.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		tool_error("%s", err->message);
		g_error_free(err);
		g_option_context_free(ctx);
		return TOOL_EXIT_USAGE;
	}
	g_option_context_free(ctx);

	if (opt_version) {
		tool_print_version();
		return TOOL_EXIT_OK;
	}
	if (!opt_list_plugins) {
		if (argc > 1)
			tool_error("%s: decoding files is not implemented yet", argv[1]);
		else
			tool_error("nothing to do (try --help)");
		return TOOL_EXIT_USAGE;
	}
	if (argc > 1) {
		tool_error("--list-plugins takes no FILE");
		return TOOL_EXIT_USAGE;
	}
	ret = tool_load_plugins(&reg);
	if (ret < 0)
		return TOOL_EXIT_USAGE;
	tool_list_plugins(reg);
	perfring_registry_free(reg);
	return TOOL_EXIT_OK;
}
