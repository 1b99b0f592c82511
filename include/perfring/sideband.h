/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Side-band records: COMM, MMAP / MMAP2, FORK / EXIT.
 *
 * Two views of each record:
 *  - the wire layout (struct perfring_*_event), a plain byte format like
 *    libperf's <perf/event.h>, header included;
 *  - the typed struct (struct perfring_comm, perfring_mmap2, perfring_task)
 *    that the comm, mmap2 and task plugins encode from and decode into.
 *    Encode and decode through the plugin registry (<perfring/registry.h>):
 *    perfring_registry_find() then perfring_plugin_encode()/_decode().
 *
 * The structs are in <perfring/core/wire.h> (the freestanding core's
 * header); their encoders are the core's (lib/core/records.c).
 *
 * Every record also carries the sample_id_all trailer when its attr has
 * PERFRING_ATTR_SAMPLE_ID_ALL; the header size includes it.
 */
#ifndef PERFRING_SIDEBAND_H
#define PERFRING_SIDEBAND_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/sideband.h>"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/core/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_SIDEBAND_H */
