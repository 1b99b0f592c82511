/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Function symbols of an ELF file for perfring-export (see export-elf.h).
 *
 * What is kept, as perf keeps it (elf_sym__is_function): STT_FUNC and
 * STT_GNU_IFUNC symbols with a value and a section, from .symtab when the
 * file has one, else from .dynsym.  A symbol without a size ends where the
 * next one starts.  A file without .symtab may carry MiniDebugInfo: a
 * section .gnu_debugdata holding an xz-compressed ELF whose .symtab lists
 * the functions that .dynsym leaves out (Fedora, CentOS and others strip
 * their binaries this way).  Its symbols are added to those of .dynsym, as
 * gdb and elfutils do; liblzma decompresses it, bounded by
 * ESYM_MINI_MAX bytes.  A debug package (/usr/lib/debug/.build-id) is
 * looked up by the caller.
 *
 * Bounds: libelf parses the file and refuses out-of-range section, symbol
 * and string indices itself (gelf_getsym, elf_strptr return NULL); on top of
 * that the symbol count is taken from the data buffer libelf gives back
 * (never from sh_size alone), names are copied with their length bounded,
 * and at most ESYM_MAX symbols, segments and a 20-byte build id are kept.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "export-elf.h"

#define ESYM_MAX	(1u << 24)	/* symbols kept of one file */
#define ESYM_NAME_MAX	4096u		/* bytes of one name kept */
#define ESEG_MAX	256u		/* PT_LOAD segments / sections kept */
#define ESYM_MINI_MAX	(256u << 20)	/* bytes of a decompressed .gnu_debugdata */

struct esym {
	uint64_t addr, end;
	size_t name;		/* offset in names */
	int bind;		/* STB_* */
};

struct eseg {
	uint64_t off, size, addr;
};

struct esym_file {
	GArray *syms;		/* struct esym, sorted by addr */
	GString *names;
	struct eseg segs[ESEG_MAX];
	unsigned nsegs;
	struct eseg secs[ESEG_MAX];	/* allocated sections: the fallback */
	unsigned nsecs;
	uint8_t build_id[20];
	size_t build_id_len;
	uint64_t text;		/* kallsyms: the address of _text */
};

static struct esym_file *esym_new(void)
{
	struct esym_file *f = g_new0(struct esym_file, 1);

	f->syms = g_array_new(FALSE, FALSE, sizeof(struct esym));
	f->names = g_string_new(NULL);
	return f;
}

void esym_close(struct esym_file *f)
{
	if (!f)
		return;
	g_array_free(f->syms, TRUE);
	g_string_free(f->names, TRUE);
	g_free(f);
}

static void add_sym(struct esym_file *f, uint64_t addr, uint64_t size, const char *name,
		    int bind)
{
	struct esym s = { .addr = addr, .end = size ? addr + size : 0, .bind = bind };
	size_t n = strnlen(name, ESYM_NAME_MAX);

	if (f->syms->len >= ESYM_MAX || !n)
		return;
	if (s.end && s.end < s.addr)	/* wraps */
		s.end = UINT64_MAX;
	s.name = f->names->len;
	g_string_append_len(f->names, name, (gssize)n);
	g_string_append_c(f->names, 0);
	g_array_append_val(f->syms, s);
}

static unsigned underscores(const char *s)
{
	unsigned n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Address order; at one address the symbol perf picks first
 * (choose_best_symbol): sized, not weak, global, fewer leading
 * underscores, the longer name. */
static const GString *sort_names;

static int by_addr(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	const char *nx, *ny;
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->end != !y->end)
		return x->end ? -1 : 1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? 1 : -1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? -1 : 1;
	nx = sort_names->str + x->name;
	ny = sort_names->str + y->name;
	if (underscores(nx) != underscores(ny))
		return underscores(nx) < underscores(ny) ? -1 : 1;
	lx = strlen(nx);
	ly = strlen(ny);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Sort, drop aliases (same address: the first after sorting stays), give
 * sizeless symbols the next symbol's start as their end. */
static void finish_syms(struct esym_file *f)
{
	struct esym *s;
	guint i, j = 0;

	sort_names = f->names;
	g_array_sort(f->syms, by_addr);
	sort_names = NULL;
	s = (struct esym *)(void *)f->syms->data;
	for (i = 0; i < f->syms->len; i++) {
		if (j && s[j - 1].addr == s[i].addr)
			continue;
		s[j++] = s[i];
	}
	g_array_set_size(f->syms, j);
	for (i = 0; i < j; i++) {
		if (s[i].end)
			continue;
		if (i + 1 < j)
			s[i].end = s[i + 1].addr;
		else
			s[i].end = s[i].addr + 4096 > s[i].addr ? s[i].addr + 4096 : UINT64_MAX;
	}
}

static void read_symtab(struct esym_file *f, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, i;

	if (!data || !data->d_buf || sh->sh_entsize == 0)
		return;
	/* count from the buffer libelf read, which it sized itself */
	n = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	for (i = 0; i < n && i < ESYM_MAX; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_value == 0 || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		add_sym(f, sym.st_value, sym.st_size, name, GELF_ST_BIND(sym.st_info));
	}
}

static void read_note(struct esym_file *f, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    name_off + 4 <= data->d_size &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && desc_off <= data->d_size &&
		    nh.n_descsz <= data->d_size - desc_off) {
			f->build_id_len = nh.n_descsz < 20 ? nh.n_descsz : 20;
			memcpy(f->build_id, (const char *)data->d_buf + desc_off, f->build_id_len);
			return;
		}
		off = next;
	}
}

/* The decompressed bytes of an xz stream, at most ESYM_MINI_MAX of them;
 * NULL when the stream is damaged or larger. */
static uint8_t *unxz(const uint8_t *in, size_t len, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = len * 4 + 4096;
	uint8_t *out = NULL;
	lzma_ret r;

	if (lzma_stream_decoder(&z, ESYM_MINI_MAX, 0) != LZMA_OK)
		return NULL;
	z.next_in = in;
	z.avail_in = len;
	do {
		if (cap > ESYM_MINI_MAX)
			cap = ESYM_MINI_MAX;
		out = g_realloc(out, cap);
		z.next_out = out + z.total_out;
		z.avail_out = cap - z.total_out;
		r = lzma_code(&z, LZMA_FINISH);
		if (r == LZMA_OK || r == LZMA_BUF_ERROR) {
			if (z.avail_out || cap == ESYM_MINI_MAX)
				break;	/* truncated input, or too large */
			cap *= 2;
		}
	} while (r == LZMA_OK || r == LZMA_BUF_ERROR);
	*out_len = z.total_out;
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		g_free(out);
		return NULL;
	}
	return out;
}

/* MiniDebugInfo: the .symtab of the ELF inside .gnu_debugdata, added to
 * f's symbols (the inner file has the outer one's addresses). */
static void read_minidebuginfo(struct esym_file *f, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *in = NULL;
	GElf_Shdr sh;
	size_t len = 0;
	uint8_t *img;
	Elf *elf;

	if (!data || !data->d_buf || !data->d_size)
		return;
	img = unxz(data->d_buf, data->d_size, &len);
	if (!img)
		return;
	elf = elf_memory((char *)img, len);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		while ((in = elf_nextscn(elf, in)) != NULL) {
			if (gelf_getshdr(in, &sh) && sh.sh_type == SHT_SYMTAB) {
				read_symtab(f, elf, in, &sh);
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	g_free(img);
}

static struct esym_file *from_elf(Elf *elf)
{
	struct esym_file *f;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *mini = NULL;
	GElf_Shdr symtab_sh, dynsym_sh, sh;
	size_t nph = 0, i, shstrndx = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return NULL;
	f = esym_new();
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph && f->nsegs < ESEG_MAX; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			f->segs[f->nsegs++] = (struct eseg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *sname;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_PROGBITS && !mini && shstrndx &&
		    (sname = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(sname, ".gnu_debugdata") == 0)
			mini = scn;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		} else if (sh.sh_type == SHT_NOTE && !f->build_id_len) {
			read_note(f, scn);
		}
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
		    f->nsecs < ESEG_MAX)
			f->secs[f->nsecs++] = (struct eseg){ sh.sh_offset, sh.sh_size, sh.sh_addr };
	}
	if (symtab)
		read_symtab(f, elf, symtab, &symtab_sh);
	if (!f->syms->len && dynsym)
		read_symtab(f, elf, dynsym, &dynsym_sh);
	if (!symtab && mini)
		read_minidebuginfo(f, mini);
	finish_syms(f);
	return f;
}

static void elf_init_once(void)
{
	static int done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

struct esym_file *esym_open(const char *path)
{
	struct esym_file *f;
	Elf *elf;
	int fd;

	elf_init_once();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	f = from_elf(elf);
	elf_end(elf);
	close(fd);
	return f;
}

struct esym_file *esym_open_mem(const void *buf, size_t len)
{
	struct esym_file *f;
	char *copy;
	Elf *elf;

	elf_init_once();
	if (!len)
		return NULL;
	/* elf_memory takes a writable image: give it a copy */
	copy = g_memdup2(buf, len);
	elf = elf_memory(copy, len);
	f = from_elf(elf);
	elf_end(elf);
	g_free(copy);
	return f;
}

struct esym_file *esym_kallsyms(const char *path)
{
	struct esym_file *f;
	char line[1024];
	FILE *fp = fopen(path, "re");

	if (!fp)
		return NULL;
	f = esym_new();
	while (fgets(line, sizeof(line), fp)) {
		char *end, *name, *sp;
		unsigned long long a;
		char type;

		a = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
		name[strcspn(name, "\n")] = 0;
		sp = strpbrk(name, " \t");	/* "name\t[module]" */
		if (sp)
			*sp = 0;
		if (a && strcmp(name, "_text") == 0)
			f->text = a;
		if (a)
			add_sym(f, a, 0, name, type == 'w' || type == 'W' ? STB_WEAK :
					       type == 'T' ? STB_GLOBAL : STB_LOCAL);
	}
	fclose(fp);
	finish_syms(f);
	if (!f->syms->len) {	/* kptr_restrict: every address 0 */
		esym_close(f);
		return NULL;
	}
	return f;
}

size_t esym_build_id(const struct esym_file *f, uint8_t out[20])
{
	memcpy(out, f->build_id, f->build_id_len);
	return f->build_id_len;
}

size_t esym_count(const struct esym_file *f)
{
	return f->syms->len;
}

static int seg_find(const struct eseg *s, unsigned n, uint64_t off, uint64_t *addr)
{
	for (unsigned i = 0; i < n; i++) {
		if (off >= s[i].off && off - s[i].off < s[i].size) {
			*addr = off - s[i].off + s[i].addr;
			return 1;
		}
	}
	return 0;
}

int esym_offset_to_addr(const struct esym_file *f, uint64_t off, uint64_t *addr)
{
	return seg_find(f->segs, f->nsegs, off, addr) || seg_find(f->secs, f->nsecs, off, addr);
}

static int starts_at_or_below(const void *syms, size_t i, uint64_t addr)
{
	return ((const struct esym *)syms)[i].addr <= addr;
}

const char *esym_lookup(const struct esym_file *f, uint64_t addr, uint64_t *start)
{
	const struct esym *s = (const struct esym *)(const void *)f->syms->data;
	/* after the last symbol starting at or below addr */
	size_t lo = esym_partition(f->syms->len, starts_at_or_below, s, addr);

	if (!lo || addr >= s[lo - 1].end)
		return NULL;
	if (start)
		*start = s[lo - 1].addr;
	return f->names->str + s[lo - 1].name;
}

uint64_t esym_kallsyms_text(const struct esym_file *f)
{
	return f->text;
}
