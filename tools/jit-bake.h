/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Baking JIT symbols into a perf.data (perfring-replay --jit): one ELF per
 * JIT process beside the output and MMAP2 records into it, merged by time.
 *
 *   b = jit_bake_new(base, map_dir);
 *   every record of the input: jit_bake_scan(b, attr, rec, size);
 *   jit_bake_build(b, &attr, id);		// reads dumps/maps, writes ELFs
 *   every record again: if (!jit_bake_drop(b, attr, rec, size)) write it;
 *   and, as one more time-ordered source: jit_bake_next(b, &rec, &size);
 *
 * Process markers: an MMAP/MMAP2 of a file named jit-PID.dump (any folder)
 * by process PID names its jitdump.  A process with executable anonymous
 * mappings and no dump gets its perf map (MAPDIR/perf-PID.map) baked.
 */
#ifndef PERFRING_TOOLS_JIT_BAKE_H
#define PERFRING_TOOLS_JIT_BAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

struct jit_bake;

struct jit_bake_stats {
	uint64_t dumps;		/* jitdumps read */
	uint64_t maps;		/* perf maps read */
	uint64_t elfs;		/* ELF files written */
	uint64_t functions;	/* functions in them */
	uint64_t mmaps;		/* MMAP2 records added */
	uint64_t moves;		/* of which for CODE_MOVE */
	uint64_t dropped_anon;	/* anonymous exec maps dropped */
	uint64_t dropped_markers; /* marker maps dropped */
	uint64_t outside;	/* perf-map entries outside the JIT memory */
	uint64_t problems;	/* damaged dumps, missing files, bad lines */
};

/* ELFs go to BASE.jit-PID.so; perf maps are looked up in map_dir (NULL: /tmp). */
struct jit_bake *jit_bake_new(const char *base, const char *map_dir);
void jit_bake_scan(struct jit_bake *b, const struct perfring_attr *attr,
		   const void *rec, size_t size);
/* attr/id: the event whose sample_id_all trailer the MMAP2s carry.
 * Returns 0, or -1 when an ELF cannot be written (message printed). */
int jit_bake_build(struct jit_bake *b, const struct perfring_attr *attr, uint64_t id);
/* The event changed after the build (markers add IDENTIFIER, ids). */
void jit_bake_set_event(struct jit_bake *b, const struct perfring_attr *attr, uint64_t id);
bool jit_bake_drop(struct jit_bake *b, const struct perfring_attr *attr,
		   const void *rec, size_t size);
/* The next MMAP2 in time order: 1 and *rec (valid until the next call), or 0. */
int jit_bake_next(struct jit_bake *b, const void **rec, size_t *size);
void jit_bake_get_stats(const struct jit_bake *b, struct jit_bake_stats *st);
void jit_bake_free(struct jit_bake *b);

/*
 * The same for a whole perf.data file in place (perfring-record at the
 * end): scan it, and if a process has JIT code, write its ELF beside it
 * and rewrite the file with the MMAP2s merged in (argc/argv: the CMDLINE
 * feature; compression_level: its data's zstd level, 0 for none).  A file without JIT code is left as it is.  Returns 0 (st
 * filled) or -1 (message printed; the file is then unchanged).
 */
int jit_bake_file(const char *path, int argc, const char *const *argv, int compression_level,
		  const char *map_dir, struct jit_bake_stats *st);

#endif
