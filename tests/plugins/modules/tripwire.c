/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A plugin that must never be opened: tests install it under the name of
 * a real plugin (comm.so) after that plugin in the search order, where it
 * is shadowed.  Opening it at all runs its constructor, which creates the
 * file named by PERFRING_TEST_TRIPWIRE; and it is built for another plugin
 * ABI major, so a host that went on would refuse it loudly.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "bad-common.h"

__attribute__((constructor)) static void tripwire_opened(void)
{
	const char *f = getenv("PERFRING_TEST_TRIPWIRE");
	int fd;

	if (!f || !*f)
		return;
	fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

BAD_EXPORT = {
	.struct_size = sizeof(struct perfring_plugin_descriptor),
	.abi_major = PERFRING_PLUGIN_ABI_MAJOR + 1,
	.abi_minor = 0,
	.name = "comm",
	.kind = PERFRING_PLUGIN_KIND_RECORD,
	.types = bad_types,
	.n_types = 1,
	.record_ops = &bad_ops,
};
