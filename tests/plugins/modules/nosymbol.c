/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A shared module that is not a perfring plugin: no descriptor symbol. */
#include <perfring/plugin.h>

PERFRING_PLUGIN_EXPORT int not_a_plugin(void);
PERFRING_PLUGIN_EXPORT int not_a_plugin(void)
{
	return 42;
}
