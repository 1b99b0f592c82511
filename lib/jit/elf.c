/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One ELF for all the JIT code of a process, and the MMAP2 records that map
 * code ranges into it.  What perf and elfutils need from it: doc/jit.md.
 *
 * Written by hand rather than with libelf: the file is a fixed layout of six
 * sections and two program headers whose contents are produced here anyway
 * (symbols, names, a note), and the build-id has to be a hash of those bytes
 * before they are written.  With libelf the same code would fill the same
 * structures through Elf_Data buffers, copy them once more in elf_update(),
 * and add a run-time dependency for every user of the library; the layout
 * constants below are checked by the unit tests and by perf and
 * elfutils-based readers (hotspot-perfparser) in the end-to-end tests.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/core/core.h>

#include "jit/internal.h"

#define NOTE_OFF	0xb0u	/* after the ELF header and two program headers */
#define NOTE_SIZE	36u	/* Nhdr 12 + "GNU\0" + 20-byte id */
#define TEXT_OFF	0x1000u	/* .text: file offset = address */
#define FN_ALIGN	16u
#define NSECT		6

enum { S_NULL, S_TEXT, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTRTAB };
static const char shstrtab[] =
	"\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
/* Offsets of the names above. */
static const uint32_t shname[NSECT] = { 0, 1, 7, 26, 34, 42 };

struct jit_fn {
	uint64_t off;		/* from the start of .text */
	uint64_t size;
	uint32_t name;		/* in strtab */
};

struct perfring_jit_elf {
	uint32_t machine;
	int kind;		/* 0: none yet, 1: code, 2: symbols only */
	uint64_t text_size;
	uint8_t *text;		/* code bytes (kind 1) */
	size_t text_cap;
	GArray *fns;		/* struct jit_fn */
	GString *strtab;
};

PERFRING_API int perfring_jit_elf_new(uint32_t elf_mach, struct perfring_jit_elf **out)
{
	struct perfring_jit_elf *e;

	if (!out)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->machine = elf_mach ? elf_mach : pr_jit_host_machine();
	e->fns = g_array_new(FALSE, FALSE, sizeof(struct jit_fn));
	e->strtab = g_string_new_len("", 1);
	*out = e;
	return 0;
}

PERFRING_API void perfring_jit_elf_free(struct perfring_jit_elf *e)
{
	if (!e)
		return;
	free(e->text);
	g_array_free(e->fns, TRUE);
	g_string_free(e->strtab, TRUE);
	free(e);
}

PERFRING_API uint64_t perfring_jit_elf_count(const struct perfring_jit_elf *e)
{
	return e ? e->fns->len : 0;
}

PERFRING_API int perfring_jit_elf_add(struct perfring_jit_elf *e, const char *name,
				      const void *code, uint64_t size,
				      uint64_t *pgoff, struct perfring_diag *diag)
{
	struct jit_fn fn;
	int kind = code ? 1 : 2;
	uint64_t off;

	if (!e || !name || !size || (e->kind && e->kind != kind)) {
		pr_diag_set(diag, -EINVAL, NULL, PR_NO_OFFSET,
			    "jit ELF: bad function (no name, size 0, or code bytes %s)",
			    e && e->kind == 1 ? "missing" : "given to a symbols-only ELF");
		return -EINVAL;
	}
	off = (e->text_size + FN_ALIGN - 1) & ~(uint64_t)(FN_ALIGN - 1);
	/* Keep every offset a valid ELF value and the tables within 4 GiB. */
	if (off > (1ull << 46) || size > (1ull << 46) || e->strtab->len > UINT32_MAX / 2) {
		pr_diag_set(diag, -EFBIG, NULL, PR_NO_OFFSET, "jit ELF: too much code");
		return -EFBIG;
	}
	if (kind == 1) {
		size_t need = (size_t)(off + size);

		if (need > e->text_cap) {
			size_t cap = e->text_cap ? e->text_cap : 65536;
			uint8_t *nt;

			while (cap < need)
				cap *= 2;
			nt = realloc(e->text, cap);
			if (!nt)
				return -ENOMEM;
			e->text = nt;
			e->text_cap = cap;
		}
		memset(e->text + e->text_size, 0, (size_t)(off - e->text_size));
		memcpy(e->text + off, code, (size_t)size);
	}
	e->kind = kind;
	fn.off = off;
	fn.size = size;
	fn.name = (uint32_t)e->strtab->len;
	g_string_append_len(e->strtab, name, (gssize)strlen(name) + 1);
	g_array_append_val(e->fns, fn);
	e->text_size = off + size;
	if (pgoff)
		*pgoff = TEXT_OFF + off;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t got = write(fd, b, n);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += got;
		n -= (size_t)got;
	}
	return 0;
}

static int write_at(int fd, uint64_t *pos, uint64_t to, const void *p, size_t n)
{
	static const uint8_t zero[64];
	int err;

	while (*pos < to) {
		size_t z = to - *pos < sizeof(zero) ? (size_t)(to - *pos) : sizeof(zero);

		err = write_all(fd, zero, z);
		if (err)
			return err;
		*pos += z;
	}
	err = write_all(fd, p, n);
	*pos += n;
	return err;
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* Where the parts after .text go in the file. */
struct elf_layout {
	int code;		/* the code is in the file (not a symbols-only ELF) */
	uint64_t nsym;		/* symbols, the null one included */
	uint64_t symtab_off, strtab_off, shstr_off, sh_off;
};

/* The symbol table: the null symbol, then one per function. */
static Elf64_Sym *jit_symbols(const struct perfring_jit_elf *e, uint64_t nsym)
{
	Elf64_Sym *syms = calloc((size_t)nsym, sizeof(*syms));

	if (!syms)
		return NULL;
	for (guint i = 0; i < e->fns->len; i++) {
		const struct jit_fn *f = &g_array_index(e->fns, struct jit_fn, i);
		Elf64_Sym *s = &syms[i + 1];

		s->st_name = f->name;
		s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		s->st_other = STV_DEFAULT;
		s->st_shndx = S_TEXT;
		s->st_value = TEXT_OFF + f->off;
		s->st_size = f->size;
	}
	return syms;
}

/* The build-id: SHA-1 of the machine, the code and the tables. */
static void jit_build_id(const struct perfring_jit_elf *e, const struct elf_layout *l,
			 const Elf64_Sym *syms, uint8_t id[20])
{
	gsize id_len = 20;
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA1);

	g_checksum_update(sum, (const guchar *)&e->machine, sizeof(e->machine));
	g_checksum_update(sum, (const guchar *)&e->text_size, sizeof(e->text_size));
	if (l->code && e->text_size)
		g_checksum_update(sum, e->text, (gssize)e->text_size);
	g_checksum_update(sum, (const guchar *)syms, (gssize)(l->nsym * sizeof(*syms)));
	g_checksum_update(sum, (const guchar *)e->strtab->str, (gssize)e->strtab->len);
	g_checksum_get_digest(sum, id, &id_len);
	g_checksum_free(sum);
}

static void jit_ehdr(Elf64_Ehdr *eh, const struct perfring_jit_elf *e,
		     const struct elf_layout *l)
{
	memset(eh, 0, sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	eh->e_ident[EI_DATA] = ELFDATA2MSB;
#else
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
#endif
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = ET_DYN;
	eh->e_machine = (Elf64_Half)e->machine;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = l->sh_off;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSECT;
	eh->e_shstrndx = S_SHSTRTAB;
}

/* The program headers, and the build-id note the second one points at. */
static void jit_phdrs(Elf64_Phdr ph[2], uint8_t note[NOTE_SIZE],
		      const struct perfring_jit_elf *e, const struct elf_layout *l,
		      const uint8_t id[20])
{
	memset(ph, 0, 2 * sizeof(*ph));
	/*
	 * One PT_LOAD from file offset 0 at address 0: addresses are file
	 * offsets.  perf needs only p_vaddr - p_offset to be the same for all
	 * symbols; elfutils (dwfl_report_elf, hotspot's perfparser) places the
	 * module at base = map start - pgoff and adds the address of the
	 * first segment, so that segment has to start at 0.
	 */
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = ph[0].p_vaddr = ph[0].p_paddr = 0;
	ph[0].p_filesz = l->code ? TEXT_OFF + e->text_size : NOTE_OFF + NOTE_SIZE;
	ph[0].p_memsz = TEXT_OFF + e->text_size;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_NOTE;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = ph[1].p_vaddr = ph[1].p_paddr = NOTE_OFF;
	ph[1].p_filesz = ph[1].p_memsz = NOTE_SIZE;
	ph[1].p_align = 4;

	pr_put32(note, 4);		/* n_namesz */
	pr_put32(note + 4, 20);		/* n_descsz */
	pr_put32(note + 8, NT_GNU_BUILD_ID);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, id, 20);
}

static void jit_shdrs(Elf64_Shdr sh[NSECT], const struct perfring_jit_elf *e,
		      const struct elf_layout *l)
{
	memset(sh, 0, NSECT * sizeof(*sh));
	for (int i = 1; i < NSECT; i++)
		sh[i].sh_name = shname[i];
	sh[S_TEXT].sh_type = l->code ? SHT_PROGBITS : SHT_NOBITS;
	sh[S_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[S_TEXT].sh_addr = sh[S_TEXT].sh_offset = TEXT_OFF;
	sh[S_TEXT].sh_size = e->text_size;
	sh[S_TEXT].sh_addralign = FN_ALIGN;
	sh[S_NOTE].sh_type = SHT_NOTE;
	sh[S_NOTE].sh_flags = SHF_ALLOC;
	sh[S_NOTE].sh_addr = NOTE_OFF;
	sh[S_NOTE].sh_offset = NOTE_OFF;
	sh[S_NOTE].sh_size = NOTE_SIZE;
	sh[S_NOTE].sh_addralign = 4;
	sh[S_SYMTAB].sh_type = SHT_SYMTAB;
	sh[S_SYMTAB].sh_offset = l->symtab_off;
	sh[S_SYMTAB].sh_size = l->nsym * sizeof(Elf64_Sym);
	sh[S_SYMTAB].sh_link = S_STRTAB;
	sh[S_SYMTAB].sh_info = 1;	/* first non-local symbol */
	sh[S_SYMTAB].sh_addralign = 8;
	sh[S_SYMTAB].sh_entsize = sizeof(Elf64_Sym);
	sh[S_STRTAB].sh_type = SHT_STRTAB;
	sh[S_STRTAB].sh_offset = l->strtab_off;
	sh[S_STRTAB].sh_size = e->strtab->len;
	sh[S_STRTAB].sh_addralign = 1;
	sh[S_SHSTRTAB].sh_type = SHT_STRTAB;
	sh[S_SHSTRTAB].sh_offset = l->shstr_off;
	sh[S_SHSTRTAB].sh_size = sizeof(shstrtab);
	sh[S_SHSTRTAB].sh_addralign = 1;
}

/* All the parts at their offsets, the gaps zero-filled; 0 or -errno. */
static int jit_write_parts(int fd, const struct perfring_jit_elf *e,
			   const struct elf_layout *l, const Elf64_Ehdr *eh,
			   const Elf64_Phdr ph[2], const uint8_t note[NOTE_SIZE],
			   const Elf64_Sym *syms, const Elf64_Shdr sh[NSECT])
{
	uint64_t pos = 0;
	int err;

	err = write_at(fd, &pos, 0, eh, sizeof(*eh));
	if (!err)
		err = write_at(fd, &pos, sizeof(*eh), ph, 2 * sizeof(*ph));
	if (!err)
		err = write_at(fd, &pos, NOTE_OFF, note, NOTE_SIZE);
	if (!err && l->code && e->text_size)
		err = write_at(fd, &pos, TEXT_OFF, e->text, (size_t)e->text_size);
	if (!err)
		err = write_at(fd, &pos, l->symtab_off, syms, (size_t)(l->nsym * sizeof(*syms)));
	if (!err)
		err = write_at(fd, &pos, l->strtab_off, e->strtab->str, e->strtab->len);
	if (!err)
		err = write_at(fd, &pos, l->shstr_off, shstrtab, sizeof(shstrtab));
	if (!err)
		err = write_at(fd, &pos, l->sh_off, sh, NSECT * sizeof(*sh));
	return err;
}

PERFRING_API int perfring_jit_elf_write(struct perfring_jit_elf *e, const char *path,
					uint8_t build_id[20], struct perfring_diag *diag)
{
	struct elf_layout l;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	Elf64_Shdr sh[NSECT];
	Elf64_Sym *syms;
	uint8_t note[NOTE_SIZE];
	uint8_t id[20];
	char *tmp;
	int fd, err = 0;

	if (!e || !path) {
		pr_diag_set(diag, -EINVAL, path, PR_NO_OFFSET, "jit ELF: nothing to write");
		return -EINVAL;
	}
	l.code = e->kind != 2;
	l.nsym = e->fns->len + 1;
	syms = jit_symbols(e, l.nsym);
	if (!syms)
		return -ENOMEM;
	jit_build_id(e, &l, syms, id);
	if (build_id)
		memcpy(build_id, id, sizeof(id));

	l.symtab_off = l.code ? align8(TEXT_OFF + e->text_size) : TEXT_OFF;
	l.strtab_off = l.symtab_off + l.nsym * sizeof(Elf64_Sym);
	l.shstr_off = l.strtab_off + e->strtab->len;
	l.sh_off = align8(l.shstr_off + sizeof(shstrtab));
	jit_ehdr(&eh, e, &l);
	jit_phdrs(ph, note, e, &l, id);
	jit_shdrs(sh, e, &l);

	tmp = g_strdup_printf("%s.tmp.XXXXXX", path);
	fd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		pr_diag_set(diag, err, tmp, PR_NO_OFFSET, "cannot create: %s", strerror(-err));
		goto out;
	}
	err = jit_write_parts(fd, e, &l, &eh, ph, note, syms, sh);
	if (!err && fchmod(fd, 0644) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		pr_diag_set(diag, err, path, PR_NO_OFFSET, "cannot write the JIT ELF: %s",
			    strerror(-err));
		unlink(tmp);
	}
out:
	g_free(tmp);
	free(syms);
	return err;
}

/* This one form of MMAP2, through the core's encoder (lib/core/records.c). */
PERFRING_API int perfring_jit_mmap2_encode(const struct perfring_attr *attr,
					   const struct perfring_jit_mmap2 *m,
					   void *buf, size_t len)
{
	struct perfring_mmap2 mm = { .misc = PERFRING_MISC_USER };
	struct perfring_sample_id sid;

	if (!m || !m->filename || !buf)
		return -EINVAL;
	mm.pid = m->pid;
	mm.tid = m->tid;
	mm.addr = m->addr;
	mm.len = m->len;
	mm.pgoff = m->pgoff;
	mm.maj = m->maj;
	mm.min = m->min;
	mm.ino = m->ino;
	mm.ino_generation = m->ino_generation;
	mm.prot = PROT_READ | PROT_EXEC;
	mm.flags = MAP_PRIVATE;
	mm.filename = m->filename;
	mm.filename_len = strlen(m->filename);
	memset(&sid, 0, sizeof(sid));
	sid.pid = m->pid;
	sid.tid = m->tid;
	sid.time = m->time;
	sid.id = sid.stream_id = sid.identifier = m->id;
	sid.cpu = m->cpu;
	return perfring_core_mmap2_encode(attr, PERFRING_RECORD_MMAP2, &mm, &sid, buf, len);
}

PERFRING_API int perfring_jit_is_anon_map(const char *filename)
{
	if (!filename)
		return 0;
	return strncmp(filename, "//anon", 6) == 0 || strncmp(filename, "[anon:", 6) == 0 ||
	       strncmp(filename, "/memfd:", 7) == 0;
}
