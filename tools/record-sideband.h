/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-record --switch-output: the tool's own knowledge of the
 * side-band seen so far, so that every chunk opens alone.
 *
 *   t = sideband_new(reg, attr);
 *   every record written: sideband_see(t, rec, size);	// non-SAMPLE only
 *   at a chunk start: sideband_next_chunk(t);
 *                     sideband_emit(t, attr, id, time, fn, user);
 *
 * Per tid: its pid and latest COMM; per pid: its MMAP2 set, with later
 * maps cutting the older ones they overlap; FORK copies the parent's
 * maps, a COMM with COMM_EXEC empties them.  A task that exits is still
 * emitted at the start of the chunk after its EXIT (its late samples may
 * land there) and forgotten after that.  Records are decoded and encoded
 * through the record plugins of the registry.
 */
#ifndef PERFRING_TOOLS_RECORD_SIDEBAND_H
#define PERFRING_TOOLS_RECORD_SIDEBAND_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct sideband;

struct sideband_stats {
	uint64_t tasks;		/* threads known (alive or kept) */
	uint64_t processes;	/* processes known */
	uint64_t maps;		/* maps held */
	uint64_t undecodable;	/* side-band records the plugins refused */
};

/* attr: the events' shared sample_id_all layout (the first event's). */
struct sideband *sideband_new(const struct perfring_registry *reg,
			      const struct perfring_attr *attr);
void sideband_see(struct sideband *t, const void *rec, size_t size);
/* A new chunk begins: forget the tasks that exited before the last one. */
void sideband_next_chunk(struct sideband *t);
/*
 * A COMM for every known thread, then the MMAP2s of its process, under
 * attr with trailer id and time.  Returns the number of records given to
 * fn, or a negative errno (fn's, or an encoding failure).
 */
int sideband_emit(struct sideband *t, const struct perfring_attr *attr, uint64_t id,
		  uint64_t time, int (*fn)(const void *rec, size_t size, void *user), void *user);
void sideband_get_stats(const struct sideband *t, struct sideband_stats *st);
void sideband_free(struct sideband *t);

#endif
