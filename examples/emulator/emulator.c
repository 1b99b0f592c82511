/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emulator: libperfring from the side of a producer that is not Linux.
 *
 * It plays a small kernel that "runs" a real ELF program (GUEST, built from
 * guest.c) and profiles it: it writes the records a Linux kernel would
 * write for that into a ring file, so that stock `perf report` shows
 * function@binary for its samples:
 *
 *   COMM   (exec)  the guest process gets its name
 *   MMAP2          the guest's executable segment, with the true file offset
 *                  (pgoff) from the ELF program headers, at a load address
 *                  this "kernel" chose
 *   SAMPLE         IPs inside guest_hot, guest_cold (parent) and
 *                  guest_child_work (child); addresses from the ELF's .symtab
 *   FORK, COMM, EXIT   a pretend child process
 *
 * Side-band records are encoded by the comm, mmap2 and task plugins through
 * the plugin registry (PERFRING_PLUGIN_PATH, then the installed plugins);
 * SAMPLEs by the library's codec.
 *
 * Turning the ring into a perf.data is a separate step, as it would be for a
 * real producer that writes rings while it runs:
 *
 *   emulator GUEST RING                 then: perfring-replay -o perf.data RING
 *   emulator -o perf.data GUEST RING    the same through the writer API here
 *
 * Both give the same records; perfring-replay also merges several rings,
 * and writes pipe mode (-o -).
 *
 *   cc emulator.c $(pkg-config --cflags --libs perfring) -o emulator
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfring/perfring.h>

#define GUEST_PID 4242		/* the pids this "kernel" hands out */
#define CHILD_PID 4243
#define LOAD_BASE 0x555555554000ull	/* where it "loads" the (PIE) guest */
#define EVENT_ID 7

/* ---- the guest ELF: executable segment and function symbols --------------- */

struct guest {
	char *path;
	unsigned char *img;	/* the whole file */
	size_t size;
	uint64_t seg_vaddr, seg_off, seg_len;	/* PF_X PT_LOAD, page-aligned */
	int is_pie;
};

static void die(const char *what) __attribute__((noreturn));
static void die(const char *what)
{
	fprintf(stderr, "emulator: %s\n", what);
	exit(1);
}

static void guest_load(struct guest *g, const char *path)
{
	FILE *f = fopen(path, "rb");
	const Elf64_Ehdr *eh;

	if (!f || fseek(f, 0, SEEK_END) || (long)(g->size = (size_t)ftell(f)) <= 0)
		die("cannot read the guest ELF");
	g->img = malloc(g->size);
	rewind(f);
	if (!g->img || fread(g->img, 1, g->size, f) != g->size)
		die("cannot read the guest ELF");
	fclose(f);
	g->path = realpath(path, NULL);	/* perf opens the DSO by this name */
	eh = (const Elf64_Ehdr *)g->img;
	if (g->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phoff + eh->e_phnum *
	    sizeof(Elf64_Phdr) > g->size || eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) > g->size)
		die("the guest is not a 64-bit ELF file");
	g->is_pie = eh->e_type == ET_DYN;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(g->img + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			/* mmap works in pages: the mapping starts at the page. */
			uint64_t skew = ph->p_vaddr & 0xfff;

			g->seg_vaddr = ph->p_vaddr - skew;
			g->seg_off = ph->p_offset - skew;
			g->seg_len = (ph->p_memsz + skew + 0xfff) & ~0xfffull;
			return;
		}
	}
	die("the guest has no executable segment");
}

/* Run-time address of a function: its .symtab value, moved by the load base. */
static uint64_t guest_sym(const struct guest *g, const char *name, uint64_t *size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)g->img;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(g->img + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *str;
		const Elf64_Sym *sym;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > g->size || str->sh_offset + str->sh_size > g->size)
			die("bad symbol table");
		sym = (const Elf64_Sym *)(g->img + sh[i].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
			const char *n = (const char *)g->img + str->sh_offset + sym[k].st_name;

			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_name < str->sh_size &&
			    !strcmp(n, name)) {
				*size = sym[k].st_size;
				return sym[k].st_value + (g->is_pie ? LOAD_BASE : 0);
			}
		}
	}
	fprintf(stderr, "emulator: no symbol %s in %s\n", name, g->path);
	exit(1);
}

/* ---- records ---------------------------------------------------------------- */

static struct perfring_attr attr = {
	.type = PERFRING_TYPE_SOFTWARE,
	.size = PERFRING_ATTR_SIZE_VER7,
	.config = 0,				/* cpu-clock */
	.sample_period = 100000,
	.sample_type = PERFRING_SAMPLE_IDENTIFIER | PERFRING_SAMPLE_IP | PERFRING_SAMPLE_TID |
		       PERFRING_SAMPLE_TIME | PERFRING_SAMPLE_CPU | PERFRING_SAMPLE_PERIOD,
	/* user space only: no kernel map needed, and none claimed */
	.flags = PERFRING_ATTR_SAMPLE_ID_ALL | PERFRING_ATTR_EXCLUDE_KERNEL |
		 PERFRING_ATTR_EXCLUDE_HV | PERFRING_ATTR_COMM | PERFRING_ATTR_COMM_EXEC |
		 PERFRING_ATTR_MMAP | PERFRING_ATTR_MMAP2 | PERFRING_ATTR_TASK |
		 PERFRING_ATTR_USE_CLOCKID,
	.clockid = CLOCK_MONOTONIC,
};

static struct perfring_ring *ring;
static struct perfring_registry *reg;
static uint64_t clock_ns;

static uint64_t tick(void)
{
	return clock_ns += 100000;	/* each record 100 us after the last */
}

static void put(const void *rec, int size)
{
	int err = size < 0 ? size : perfring_ring_write(ring, rec);

	if (err < 0) {
		fprintf(stderr, "emulator: writing a record: %s\n", strerror(-err));
		exit(1);
	}
}

/* The trailer: which task, when, on which CPU, and the event id. */
static struct perfring_sample_id sid_of(uint32_t pid, uint64_t time)
{
	struct perfring_sample_id s = { .pid = pid, .tid = pid, .time = time,
					.identifier = EVENT_ID };
	return s;
}

/* Encode a side-band record through the plugin that claims its type. */
static void put_sideband(uint32_t type, const void *typed, uint32_t pid, uint64_t time)
{
	const struct perfring_plugin *p = perfring_registry_find(reg, type);
	struct perfring_sample_id s = sid_of(pid, time);
	unsigned char buf[4096];

	if (!p)
		die("no plugin for a side-band record type (set PERFRING_PLUGIN_PATH)");
	put(buf, perfring_plugin_encode(p, &attr, type, typed, &s, buf, sizeof(buf)));
}

static void put_samples(uint32_t pid, uint64_t fn, uint64_t fn_size, int n)
{
	unsigned char buf[256];

	for (int i = 0; i < n; i++) {
		struct perfring_sample s = {
			.identifier = EVENT_ID, .pid = pid, .tid = pid, .time = tick(),
			.ip = fn + (uint64_t)i % (fn_size ? fn_size : 1), .period = 100000,
		};
		put(buf, perfring_sample_encode(&attr, &s, PERFRING_MISC_USER, buf, sizeof(buf)));
	}
}

static void comm(uint32_t pid, const char *name, bool exec)
{
	struct perfring_comm c = PERFRING_COMM_INIT;

	c.pid = c.tid = pid;
	c.exec = exec;
	snprintf(c.comm, sizeof(c.comm), "%s", name);
	put_sideband(PERFRING_RECORD_COMM, &c, pid, tick());
}

static void task(uint32_t type, uint32_t pid, uint32_t ppid)
{
	struct perfring_task t = { .pid = pid, .tid = pid, .ppid = ppid, .ptid = ppid };

	t.time = tick();
	/* The trailer is the emitting task's: the parent for FORK. */
	put_sideband(type, &t, type == PERFRING_RECORD_FORK ? ppid : pid, t.time);
}

/* ---- the "kernel" ------------------------------------------------------------ */

static void emulate(const struct guest *g)
{
	struct perfring_mmap2 m = PERFRING_MMAP2_INIT;
	uint64_t hot, cold, child, hot_sz, cold_sz, child_sz;
	struct timespec ts;

	hot = guest_sym(g, "guest_hot", &hot_sz);
	cold = guest_sym(g, "guest_cold", &cold_sz);
	child = guest_sym(g, "guest_child_work", &child_sz);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	clock_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;

	comm(GUEST_PID, "guest", true);		/* exec of the guest */
	m.pid = m.tid = GUEST_PID;
	m.addr = (g->is_pie ? LOAD_BASE : 0) + g->seg_vaddr;
	m.len = g->seg_len;
	m.pgoff = g->seg_off;			/* byte offset in the file */
	m.prot = 5;				/* PROT_READ | PROT_EXEC */
	m.flags = 2;				/* MAP_PRIVATE */
	m.filename = g->path;
	m.filename_len = strlen(g->path);
	put_sideband(PERFRING_RECORD_MMAP2, &m, GUEST_PID, tick());

	put_samples(GUEST_PID, hot, hot_sz, 60);
	task(PERFRING_RECORD_FORK, CHILD_PID, GUEST_PID);	/* inherits the maps */
	comm(CHILD_PID, "guest-child", false);
	put_samples(CHILD_PID, child, child_sz, 10);
	task(PERFRING_RECORD_EXIT, CHILD_PID, GUEST_PID);
	put_samples(GUEST_PID, cold, cold_sz, 30);
}

/* The second route: the ring into a perf.data through the writer API. */
static void write_perf_data(const char *ring_path, const char *out)
{
	PERFRING_WRITER_OPTS(o, .path = out);
	struct perfring_diag diag = { 0 };
	struct perfring_writer *w;
	struct perfring_ring *r;
	struct perfring_reader *rd;
	struct perfring_record rec = { .sz = sizeof(rec) };
	struct perfring_event_desc ev;
	char msg[1024];
	int n;

	if (perfring_ring_open(ring_path, PERFRING_RING_READ, &diag, &r) < 0 ||
	    perfring_reader_new(r, &rd) < 0 || perfring_ring_event(r, 0, &ev) < 0 ||
	    perfring_writer_open(&o, &diag, &w) < 0 ||
	    perfring_writer_add_event(w, ev.attr, ev.ids, ev.nr_ids, ev.name, &diag) < 0)
		goto fail;
	while ((n = perfring_reader_next(rd, &rec)) > 0)
		if (perfring_writer_write(w, 0, rec.hdr, rec.hdr->size, &diag) < 0)
			goto fail;
	if (n < 0) {
		diag = *perfring_reader_diag(rd);
		goto fail;
	}
	if (perfring_writer_close(w, &diag) < 0)
		goto fail;
	perfring_reader_free(rd);
	perfring_ring_close(r);
	return;
fail:
	fprintf(stderr, "emulator: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
	exit(1);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct guest g = { 0 };
	struct perfring_diag diag = { 0 };
	uint64_t id = EVENT_ID;
	struct perfring_event_desc ev = { .attr = &attr, .ids = &id, .nr_ids = 1,
					  .name = "cpu-clock" };
	char msg[1024];
	int err;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: emulator [-o PERF.DATA] GUEST-ELF RING-FILE\n");
		return 2;
	}
	guest_load(&g, argv[1]);
	if (perfring_registry_new(0, &reg) < 0 || perfring_registry_load_default(reg, &diag) < 0) {
		fprintf(stderr, "emulator: %s\n", perfring_diag_format(&diag, msg, sizeof(msg)));
		return 1;
	}
	{
		PERFRING_RING_OPTS(o, .backing = PERFRING_RING_FILE, .path = argv[2],
				   .data_size = 64 * 4096, .flags = PERFRING_RING_TRUNCATE |
				   PERFRING_RING_CLOCKID, .clockid = CLOCK_MONOTONIC,
				   .events = &ev, .nr_events = 1);

		err = perfring_ring_create(&o, &ring);
	}
	if (err < 0) {
		fprintf(stderr, "emulator: %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	emulate(&g);
	perfring_ring_close(ring);
	if (out)
		write_perf_data(argv[2], out);
	perfring_registry_free(reg);
	free(g.img);
	free(g.path);
	return 0;
}
