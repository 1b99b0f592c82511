/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one check of a record that needs a layer above the ring: whether its
 * body decodes by the plugin of its type.  The ring reader and the
 * validator (ring/validate.c) hold it as a pointer to this struct and call
 * through it; they never call the registry.  The plugin registry
 * (registry/registry.c) puts one first in struct perfring_registry, so a
 * registry pointer given to the reader or to perfring_record_validate is
 * one of these.  Never installed.
 */
#ifndef PERFRING_RING_CHECK_H
#define PERFRING_RING_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct pr_body_check {
	/*
	 * 0 when rec (len bytes at offset, framing already checked, of the
	 * type named name) decodes, else -EBADMSG with diag filled.
	 */
	int (*check)(const struct pr_body_check *self, const struct perfring_attr *attr,
		     const char *name, const void *rec, size_t len, uint64_t offset,
		     struct perfring_diag *diag);
};

/* The check a registry pointer carries (NULL for NULL). */
static inline const struct pr_body_check *pr_body_check_of(const struct perfring_registry *reg)
{
	return (const struct pr_body_check *)(const void *)reg;
}

#endif
