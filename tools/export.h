/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfring-export's profile: what the reading side (perfring-export.c)
 * builds from the records and the writers (export-pprof.c, export-flame.c)
 * write out.  Ids are 1-based indices into the arrays (0: none), as
 * profile.proto numbers mappings, locations and functions.
 */
#ifndef PERFRING_EXPORT_H
#define PERFRING_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

struct ex_event {
	char *name;		/* perf's event name */
	const char *unit;	/* "nanoseconds" or "count" */
	uint64_t samples;	/* samples of this event */
	uint64_t period;	/* the sampling period (frequency mode: 1e9 / Hz
				 * for the clocks, else 0) */
};

struct ex_mapping {
	uint64_t start, limit, pgoff;
	char *file;
	uint8_t build_id[20];
	size_t build_id_len;
	int kernel;		/* kernel or module map (pid -1) */
	int has_functions;	/* at least one of its locations got a name */
	int used;		/* a sample hit it */
	int sym_state;		/* 0: not looked for, 1: loaded, -1: not found */
	struct esym_file *syms;	/* its symbols (a debug file's, if found) */
	struct esym_file *segs;	/* its PT_LOADs (the binary's: a .debug file's are empty) */
};

struct ex_location {
	uint32_t mapping;	/* id, 0: no mapping */
	uint32_t function;	/* id, 0: not symbolized */
	uint64_t addr;		/* the address looked up (ip - 1 for a return address) */
	int kernel;
};

struct ex_function {
	char *name;		/* demangled, as perf report prints it */
	char *system_name;	/* as in the symbol table */
	char *file;		/* the binary it is from */
};

#define EX_NO_CPU UINT32_MAX

/* One aggregated sample: the same event, task, CPU, comm and stack. */
struct ex_sample {
	uint32_t event;
	uint32_t pid, tid, cpu;	/* cpu: EX_NO_CPU if not sampled */
	uint32_t comm;		/* index in comms */
	uint32_t nframes;
	const uint32_t *frames;	/* location ids, leaf first */
	uint64_t count, period;
};

struct ex_profile {
	GArray *events;		/* struct ex_event */
	GArray *mappings;	/* struct ex_mapping */
	GArray *locations;	/* struct ex_location */
	GArray *functions;	/* struct ex_function */
	GArray *samples;	/* struct ex_sample */
	GPtrArray *comms;	/* char * */
	int64_t time_nanos, duration_nanos;
	uint32_t main_mapping;	/* id of the mapping written first (pprof's "File:") */
};

/* export-pprof.c: profile.proto, gzipped, to fp.  0 or -errno. */
int ex_write_pprof(const struct ex_profile *p, FILE *fp);

/* export-flame.c: the samples of event ev as folded stacks / SVG flame graph. */
int ex_write_folded(const struct ex_profile *p, uint32_t ev, FILE *fp);
int ex_write_svg(const struct ex_profile *p, uint32_t ev, const char *title, FILE *fp);

/* The frame's name in folded stacks and flame graphs (export-flame.c). */
char *ex_frame_name(const struct ex_profile *p, uint32_t loc);

#endif
