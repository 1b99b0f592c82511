/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JIT code: jitdump files (read and write), perf map files (read), and one
 * synthesized ELF per JIT process that perf (and elfutils users such as
 * hotspot's perfparser) can symbolize without `perf inject --jit`.
 *
 * The jitdump layout is the one of perf's jitdump specification, version 1
 * (doc/jit.md in the source tree summarizes what this library relies on).
 *
 * Baking a profile (what perfring-replay --jit does):
 *
 *	perfring_jit_elf_new(dump_header.elf_mach, &elf);
 *	for each CODE_LOAD rec:
 *		perfring_jit_elf_add(elf, name, code, size, &pgoff, &diag);
 *		// an MMAP2 of [code_addr, code_addr + size) at pgoff into the
 *		// ELF, at the load's time (perfring_jit_mmap2_encode)
 *	perfring_jit_elf_write(elf, "OUT.jit-PID.so", &diag);
 */
#ifndef PERFRING_JIT_H
#define PERFRING_JIT_H

#ifndef PERFRING_INSIDE_PERFRING_H
#error "include <perfring/perfring.h>, not <perfring/jit.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- jitdump reader ------------------------------------------------------ */

#define PERFRING_JITDUMP_MAGIC		0x4A695444u	/* "JiTD" as a host u32 */
#define PERFRING_JITDUMP_VERSION	1u
#define PERFRING_JITDUMP_FLAG_ARCH_TIMESTAMP 1ull

enum perfring_jit_record_type {
	PERFRING_JIT_CODE_LOAD = 0,
	PERFRING_JIT_CODE_MOVE = 1,
	PERFRING_JIT_CODE_DEBUG_INFO = 2,
	PERFRING_JIT_CODE_CLOSE = 3,
	PERFRING_JIT_CODE_UNWINDING_INFO = 4,
};

struct perfring_jitdump_header {
	uint32_t magic;		/* as in the file (swapped when swapped = 1) */
	uint32_t version;
	uint32_t total_size;
	uint32_t elf_mach;	/* ELF e_machine of the JIT code */
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;
	int swapped;		/* the file is in the other byte order */
};

/* One DEBUG_INFO line entry. */
struct perfring_jit_debug_entry {
	size_t sz;		/* set by the caller: sizeof(struct perfring_jit_debug_entry) */
	uint64_t addr;
	int32_t lineno;
	int32_t discrim;
	const char *file;	/* NUL-terminated, in the record; "\xff" = previous */
};

/*
 * One record.  Pointers point into the reader's buffer and are valid until
 * the next call on the reader.  Numbers are in host byte order.
 */
struct perfring_jit_record {
	size_t sz;		/* set by the caller: sizeof(struct perfring_jit_record) */
	uint32_t id;		/* enum perfring_jit_record_type, or unknown */
	uint32_t total_size;
	uint64_t timestamp;
	uint64_t offset;	/* byte offset of the record in the file */
	union {
		struct {
			uint32_t pid, tid;
			uint64_t vma, code_addr, code_size, code_index;
			const char *name;	/* NUL-terminated */
			const uint8_t *code;	/* code_size bytes */
		} load;
		struct {
			uint32_t pid, tid;
			uint64_t vma, old_code_addr, new_code_addr;
			uint64_t code_size, code_index;
		} move;
		struct {
			uint64_t code_addr, nr_entry;
			/* the entries: read with perfring_jit_debug_entry_next */
			const uint8_t *entries;
			size_t entries_len;
			int swapped;
		} debug;
		struct {
			uint64_t unwinding_size, eh_frame_hdr_size, mapped_size;
			const uint8_t *data;	/* unwinding_size bytes */
		} unwind;
	} u;
};

/*
 * Step through a DEBUG_INFO record's entries: *pos starts at 0.  Returns 1
 * and *e, 0 after the last entry (the reader has checked that nr_entry
 * entries fit the record).
 */
PERFRING_API int perfring_jit_debug_entry_next(const struct perfring_jit_record *rec,
					       size_t *pos,
					       struct perfring_jit_debug_entry *e);

struct perfring_jitdump;

/*
 * Open a jitdump file and read its header (the file may still be growing:
 * it is read as a stream, whatever size it has when reading reaches it).
 * Returns 0 and *out; -errno of open/read; -EBADMSG for a bad header (bad
 * magic, version other than 1, header size below 40, unknown flags), with
 * diag naming the file and offset.
 */
PERFRING_API int perfring_jitdump_open(const char *path, struct perfring_diag *diag,
				       struct perfring_jitdump **out);

/* The same over len bytes in memory (not copied: keep them); name for diags. */
PERFRING_API int perfring_jitdump_open_mem(const void *data, size_t len,
					   const char *name,
					   struct perfring_diag *diag,
					   struct perfring_jitdump **out);

PERFRING_API const struct perfring_jitdump_header *
perfring_jitdump_header(const struct perfring_jitdump *r);

/*
 * Next record.  Records are stepped by their own total_size (writers pad).
 * Returns 1 and *rec; 0 at the end: end of file, a CLOSE record, or a
 * last record cut short (a file still being written: counted in
 * truncated_bytes, not an error); -EBADMSG for a damaged record (a size
 * below its type's fixed part, a name without NUL, sizes that do not fit
 * the record), diag naming the file and the record's offset; the records
 * before it were returned and the reader stays at the error.  Unknown
 * record types are skipped and counted.  -errno for a read error.
 * With an UNWINDING_INFO or DEBUG_INFO record, the data describes the next
 * CODE_LOAD (the specification's order).
 */
PERFRING_API int perfring_jitdump_next(struct perfring_jitdump *r,
				       struct perfring_jit_record *rec,
				       struct perfring_diag *diag);

struct perfring_jitdump_stats {
	size_t sz;			/* set by the caller: sizeof(this) */
	uint64_t records[5];		/* returned, by type */
	uint64_t unknown;		/* skipped records of unknown type */
	uint64_t truncated_bytes;	/* bytes of a last, incomplete record */
	uint64_t bytes;			/* bytes read, header included */
	int closed;			/* a CLOSE record ended the stream */
};

/* Fill st (st->sz set by the caller; all 0 for a NULL r).  0 or -EINVAL. */
PERFRING_API int perfring_jitdump_get_stats(const struct perfring_jitdump *r,
					    struct perfring_jitdump_stats *st);

PERFRING_API void perfring_jitdump_close(struct perfring_jitdump *r);

/*
 * Is path the name of a jitdump marker mapping of process pid: a basename
 * `jit-<pid>.dump` (pid 0: any digits)?  Returns 1 or 0.
 */
PERFRING_API int perfring_jitdump_is_marker(const char *path, uint32_t pid);

/* ---- perf map reader (/tmp/perf-PID.map) --------------------------------- */

struct perfring_perfmap_entry {
	size_t sz;		/* set by the caller: sizeof(struct perfring_perfmap_entry) */
	uint64_t start;
	uint64_t size;
	const char *name;	/* rest of the line, valid until the next call */
	uint64_t line;		/* 1-based line number */
};

struct perfring_perfmap;

/* Open a perf map (read as a stream).  Returns 0 or -errno (diag). */
PERFRING_API int perfring_perfmap_open(const char *path, struct perfring_diag *diag,
				       struct perfring_perfmap **out);
PERFRING_API int perfring_perfmap_open_mem(const void *data, size_t len,
					   const char *name,
					   struct perfring_diag *diag,
					   struct perfring_perfmap **out);

/*
 * Next `START SIZE name` line (START and SIZE hex, with or without 0x; the
 * name is the rest of the line, spaces included, CR before LF dropped).
 * A bad line (missing fields, not hex, empty name, overflow, NUL byte) is
 * skipped and counted; the first bad line is described in *diag
 * (file, "line N: ..."), each one is logged as a warning.  A last line
 * without a newline is used (a map still being written may end mid-line:
 * such a line is bad only if it does not parse).  Returns 1 and *e, 0 at
 * the end, -errno on a read error.
 */
PERFRING_API int perfring_perfmap_next(struct perfring_perfmap *m,
				       struct perfring_perfmap_entry *e,
				       struct perfring_diag *diag);

/* Lines read, entries returned, bad lines skipped. */
PERFRING_API void perfring_perfmap_counts(const struct perfring_perfmap *m,
					  uint64_t *lines, uint64_t *entries,
					  uint64_t *bad);

PERFRING_API void perfring_perfmap_close(struct perfring_perfmap *m);

/* ---- synthesized ELF ------------------------------------------------------ */

/*
 * Every function added gets its own range of file offsets (never reused),
 * so that two functions loaded at one address, one after the other, map to
 * distinct bytes and symbols.  The output is an ET_DYN ELF64 of the host
 * byte order: one PT_LOAD (R+X, p_offset = p_vaddr = 0) over the headers and
 * `.text`, `.symtab`
 * + `.strtab` with one FUNC symbol per function, `.note.gnu.build-id` (20
 * bytes, SHA-1 over text, symbols and names).  An MMAP2 of a function's
 * code range with pgoff = the offset perfring_jit_elf_add gave resolves to
 * its symbol in perf.
 *
 * Without code bytes (perf maps), `.text` is SHT_NOBITS: symbols only.
 * One ELF holds either kind, not both.
 */
struct perfring_jit_elf;

/* elf_mach: ELF e_machine (0: the host's).  Returns 0 or -ENOMEM. */
PERFRING_API int perfring_jit_elf_new(uint32_t elf_mach, struct perfring_jit_elf **out);

/*
 * Add a function of size bytes; code = its bytes or NULL (symbols only).
 * The code bytes are copied (kept in memory until perfring_jit_elf_free).
 * *pgoff receives the file offset of the function in the ELF.
 * Returns 0; -EINVAL (size 0, name NULL, code given to a symbols-only ELF
 * or the reverse); -ENOMEM; -errno of the spool file (diag).
 */
PERFRING_API int perfring_jit_elf_add(struct perfring_jit_elf *e, const char *name,
				      const void *code, uint64_t size,
				      uint64_t *pgoff, struct perfring_diag *diag);

/* Number of functions added. */
PERFRING_API uint64_t perfring_jit_elf_count(const struct perfring_jit_elf *e);

/*
 * Write the ELF to path (through a temporary file in its directory, renamed
 * into place).  build_id (may be NULL) receives the 20-byte build-id.
 * Returns 0 or -errno (diag names the file).  The object stays usable.
 */
PERFRING_API int perfring_jit_elf_write(struct perfring_jit_elf *e, const char *path,
					uint8_t build_id[20], struct perfring_diag *diag);

PERFRING_API void perfring_jit_elf_free(struct perfring_jit_elf *e);

/*
 * Encode the PERF_RECORD_MMAP2 of a JIT code range: misc USER, pid/tid,
 * [addr, addr + len) at pgoff in file, PROT_READ|PROT_EXEC, MAP_PRIVATE,
 * maj/min/ino/ino_generation as given (from stat of the ELF), and the
 * sample_id_all trailer of attr (when it has sample_id_all) with the pid,
 * tid and time given and the id given (0: none).  Returns the size or
 * -ENOSPC / -EMSGSIZE / -EINVAL.
 */
struct perfring_jit_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint64_t time;
	uint64_t id;
	uint32_t cpu;
	const char *filename;
};

PERFRING_API int perfring_jit_mmap2_encode(const struct perfring_attr *attr,
					   const struct perfring_jit_mmap2 *m,
					   void *buf, size_t len);

/*
 * Is an MMAP/MMAP2 file name one of the anonymous mappings that, once a
 * process has JIT maps, hide them ("//anon...", "[anon:...", "/memfd:...",
 * the ones perf inject --jit drops)?  Returns 1 or 0.
 */
PERFRING_API int perfring_jit_is_anon_map(const char *filename);

/* ---- jitdump writer (for runtimes written in C) ----------------------------- */

/*
 * Create DIR/jit-PID.dump (dir NULL: the current directory), write the
 * header (version 1, host byte order, e_machine of this build, no flags),
 * and map its first page PROT_READ|PROT_EXEC, MAP_PRIVATE as the marker
 * that perf record and perfring-record see.  Timestamps are
 * CLOCK_MONOTONIC (record with `perf record -k mono`).  Each record is one
 * write(2) of the whole record, so a reader never sees half of one unless
 * the disk is full.  One thread at a time (the caller locks).
 * Returns 0 or -errno (diag).
 */
struct perfring_jitdump_writer;

PERFRING_API int perfring_jitdump_writer_open(const char *dir,
					      struct perfring_diag *diag,
					      struct perfring_jitdump_writer **out);

/* Path of the dump (valid while w is). */
PERFRING_API const char *perfring_jitdump_writer_path(const struct perfring_jitdump_writer *w);

/* CLOCK_MONOTONIC now, in ns: the clock of the records. */
PERFRING_API uint64_t perfring_jit_timestamp(void);

/*
 * CODE_LOAD of size bytes of code now at addr (the code is copied into the
 * dump).  code_index is given by the writer (0, 1, ...) and returned in
 * *code_index (may be NULL).  Returns 0 or -errno.
 */
PERFRING_API int perfring_jitdump_write_load(struct perfring_jitdump_writer *w,
					     const char *name, uint64_t addr,
					     const void *code, uint64_t size,
					     uint64_t *code_index);

/* CODE_MOVE of the load code_index from old_addr to new_addr. */
PERFRING_API int perfring_jitdump_write_move(struct perfring_jitdump_writer *w,
					     uint64_t code_index, uint64_t old_addr,
					     uint64_t new_addr, uint64_t size);

/* DEBUG_INFO for the next load at code_addr (write it before that load). */
PERFRING_API int perfring_jitdump_write_debug_info(struct perfring_jitdump_writer *w,
						   uint64_t code_addr,
						   const struct perfring_jit_debug_entry *e,
						   size_t nr);

/*
 * Write CLOSE, unmap the marker, close the file and free w (NULL is fine).
 * Returns 0 or the first -errno of any write.
 */
PERFRING_API int perfring_jitdump_writer_close(struct perfring_jitdump_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_JIT_H */
