/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* -z / --compression-level[=N] (see compress-opt.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "compress-opt.h"

#define LEVEL_MAX 22	/* zstd's highest, and perf record's limit */

static int level;

static gboolean parse_level(const gchar *name, const gchar *value, gpointer data,
			    GError **error)
{
	char *end;
	long v;

	(void)data;
	if (!value) {
		level = 1;
		return TRUE;
	}
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || v < 0 || v > LEVEL_MAX) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "%s needs a level from 0 (none) to %d, not \"%s\"", name,
			    LEVEL_MAX, value);
		return FALSE;
	}
	level = (int)v;
	return TRUE;
}

static const GOptionEntry entries[] = {
	{ "compression-level", 'z', G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
	  (gpointer)parse_level,
	  "Compress the records with zstd into PERF_RECORD_COMPRESSED records, as perf "
	  "record -z does (level 1 fastest .. 22 smallest; -z alone: 1)", "N" },
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

void compress_opt_add(GOptionContext *ctx)
{
	g_option_context_add_main_entries(ctx, entries, NULL);
}

int compress_opt_level(void)
{
	return level;
}
