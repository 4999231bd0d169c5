// SPDX-License-Identifier: GPL-2.0
/*
 * resolve_ids: fill in a module's .BTF_ids section from its .BTF, as the
 * kernel's tools/bpf/resolve_btfids does, for header trees that ship no
 * resolve_btfids (Debian 12's 6.1).  A kfunc set registered with
 * register_btf_kfunc_id_set() names its functions by BTF id; the compiler
 * leaves zeros there, one 4-byte slot a symbol:
 *
 *   __BTF_ID__func__NAME__N     the id of the BTF_KIND_FUNC called NAME
 *                               (struct, union and typedef alike)
 *   __BTF_ID__set8__NAME        8 bytes: the count, then flags; after them
 *                               the set's (id, flags) pairs, sorted by id
 *   __BTF_ID__set__NAME         4 bytes: the count; then the ids, sorted
 *
 * The module's BTF is split BTF over the kernel's (pahole -J --btf_base):
 * its ids start after the base's last, and a name may be in the base's
 * strings.  So the base is read too.
 *
 *   resolve_ids BASE MODULE.ko
 *
 * BASE is raw BTF (/sys/kernel/btf/vmlinux) or an ELF file with a .BTF
 * section (vmlinux).  MODULE.ko is patched in place.  Little-endian ELF64
 * only (the module is built for x86-64).  Needs nothing but libc: it is
 * built where DKMS builds the module, where libelf and libbpf may be
 * missing.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BTF_MAGIC	0xeb9f
#define ID_PREFIX	"__BTF_ID__"

struct blob {
	unsigned char *p;
	size_t len;
};

struct btf {
	const unsigned char *types;	/* first type record */
	size_t types_len;
	const char *strs;
	size_t strs_len;
	uint32_t nr;			/* types in this part */
};

static const char *prog = "resolve_ids";

static int fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return -1;
}

static int slurp(const char *path, struct blob *b)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return fail("cannot open %s", path);
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return fail("cannot size %s", path);
	}
	b->len = n;
	b->p = malloc(b->len);
	if (!b->p || fread(b->p, 1, b->len, f) != b->len) {
		fclose(f);
		return fail("cannot read %s", path);
	}
	fclose(f);
	return 0;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void wr32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The header of section @name of ELF64 image @b, or NULL. */
static Elf64_Shdr *elf_section(const struct blob *b, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)b->p;
	Elf64_Shdr *sh, *strsh;
	unsigned int i;

	if (b->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > b->len ||
	    (b->len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (Elf64_Shdr *)(b->p + eh->e_shoff);
	strsh = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset > b->len ||
		    sh[i].sh_size > b->len - sh[i].sh_offset ||
		    sh[i].sh_name >= strsh->sh_size)
			continue;
		if (!strncmp((const char *)b->p + strsh->sh_offset + sh[i].sh_name,
			     name, strsh->sh_size - sh[i].sh_name))
			return &sh[i];
	}
	return NULL;
}

static int is_elf(const struct blob *b)
{
	return b->len >= SELFMAG && !memcmp(b->p, ELFMAG, SELFMAG);
}

/* Bytes a type record of @info takes after its 12-byte head, or -1. */
static long type_extra(uint32_t info)
{
	uint32_t vlen = info & 0xffff;

	switch ((info >> 24) & 0x1f) {
	case 1:  return 4;		/* INT */
	case 2:  return 0;		/* PTR */
	case 3:  return 12;		/* ARRAY */
	case 4:				/* STRUCT */
	case 5:  return 12L * vlen;	/* UNION */
	case 6:  return 8L * vlen;	/* ENUM */
	case 7:				/* FWD */
	case 8:				/* TYPEDEF */
	case 9:				/* VOLATILE */
	case 10:			/* CONST */
	case 11:			/* RESTRICT */
	case 12: return 0;		/* FUNC */
	case 13: return 8L * vlen;	/* FUNC_PROTO */
	case 14: return 4;		/* VAR */
	case 15: return 12L * vlen;	/* DATASEC */
	case 16: return 0;		/* FLOAT */
	case 17: return 4;		/* DECL_TAG */
	case 18: return 0;		/* TYPE_TAG */
	case 19: return 12L * vlen;	/* ENUM64 */
	}
	return -1;
}

/* Parse the BTF in @p (@len bytes): its strings, and count its types. */
static int btf_parse(const unsigned char *p, size_t len, struct btf *btf,
		     const char *what)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	size_t off;

	if (len < 24 || (rd32(p) & 0xffff) != BTF_MAGIC)
		return fail("%s: not BTF (or not little-endian)", what);
	hdr_len = rd32(p + 4);
	type_off = rd32(p + 8);
	type_len = rd32(p + 12);
	str_off = rd32(p + 16);
	str_len = rd32(p + 20);
	if (hdr_len < 24 || hdr_len > len ||
	    type_off > len - hdr_len || type_len > len - hdr_len - type_off ||
	    str_off > len - hdr_len || str_len > len - hdr_len - str_off)
		return fail("%s: a BTF header out of bounds", what);
	btf->types = p + hdr_len + type_off;
	btf->types_len = type_len;
	btf->strs = (const char *)p + hdr_len + str_off;
	btf->strs_len = str_len;
	if (str_len && btf->strs[str_len - 1])
		return fail("%s: BTF strings not terminated", what);
	btf->nr = 0;
	for (off = 0; off < type_len; btf->nr++) {
		long extra;

		if (type_len - off < 12)
			return fail("%s: a BTF type record cut short", what);
		extra = type_extra(rd32(btf->types + off + 4));
		if (extra < 0)
			return fail("%s: a BTF kind this tool does not know", what);
		if ((size_t)extra > type_len - off - 12)
			return fail("%s: a BTF type record cut short", what);
		off += 12 + extra;
	}
	return 0;
}

/* The BTF of @b: a raw BTF file or an ELF file's .BTF section. */
static int btf_of(const struct blob *b, struct btf *btf, const char *what)
{
	const Elf64_Shdr *sh;

	if (!is_elf(b))
		return btf_parse(b->p, b->len, btf, what);
	sh = elf_section(b, ".BTF");
	if (!sh)
		return fail("%s: no .BTF section", what);
	return btf_parse(b->p + sh->sh_offset, sh->sh_size, btf, what);
}

/* The name at @off of the split strings: the base's first, then @mod's. */
static const char *btf_name(const struct btf *base, const struct btf *mod,
			    uint32_t off)
{
	if (off < base->strs_len)
		return base->strs + off;
	off -= base->strs_len;
	return off < mod->strs_len ? mod->strs + off : NULL;
}

/*
 * The id of the module's type of kind @kind named @name (@len bytes),
 * 0 if none.  Only the module's own types are searched: what it registers
 * is its own.
 */
static uint32_t btf_find(const struct btf *base, const struct btf *mod,
			 unsigned int kind, const char *name, size_t len)
{
	size_t off = 0;
	uint32_t i;

	for (i = 0; i < mod->nr; i++) {
		const unsigned char *rec = mod->types + off;
		uint32_t info = rd32(rec + 4);
		const char *n;

		if (((info >> 24) & 0x1f) == kind) {
			n = btf_name(base, mod, rd32(rec));
			if (n && strlen(n) == len && !memcmp(n, name, len))
				return base->nr + 1 + i;
		}
		off += 12 + type_extra(info);
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = rd32(a), y = rd32(b);

	return x < y ? -1 : x > y;
}

/* Patch the slot of symbol @name (at @slot, @size bytes) of .BTF_ids. */
static int patch(const struct btf *base, const struct btf *mod,
		 const char *name, unsigned char *slot, uint64_t size)
{
	static const struct { const char *s; unsigned int kind; } kinds[] = {
		{ "func__", 12 }, { "struct__", 4 }, { "union__", 5 },
		{ "typedef__", 8 },
	};
	const char *rest = name + strlen(ID_PREFIX), *end;
	unsigned int i;
	uint32_t id;

	if (!strncmp(rest, "set8__", 6)) {
		if (size < 8 || size % 8)
			return fail("%s: a set8 of a size not a multiple of 8", name);
		wr32(slot, size / 8 - 1);
		qsort(slot + 8, size / 8 - 1, 8, cmp_u32);
		return 0;
	}
	if (!strncmp(rest, "set__", 5)) {
		if (size < 4 || size % 4)
			return fail("%s: a set of a size not a multiple of 4", name);
		wr32(slot, size / 4 - 1);
		qsort(slot + 4, size / 4 - 1, 4, cmp_u32);
		return 0;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].s);

		if (strncmp(rest, kinds[i].s, n))
			continue;
		rest += n;
		/* NAME__N: the name ends at the last "__". */
		for (end = rest + strlen(rest); end > rest + 1; end--)
			if (end[-1] == '_' && end[-2] == '_')
				break;
		if (end <= rest + 1)
			return fail("%s: no __N after the name", name);
		id = btf_find(base, mod, kinds[i].kind, rest, end - 2 - rest);
		if (!id)
			return fail("%s: no such type in the module's BTF", name);
		wr32(slot, id);
		return 0;
	}
	return fail("%s: a kind of id this tool does not know", name);
}

static int is_set(const char *name)
{
	const char *rest = name + strlen(ID_PREFIX);

	return !strncmp(rest, "set8__", 6) || !strncmp(rest, "set__", 5);
}

static int resolve(struct blob *ko, const struct btf *base, const struct btf *mod)
{
	const Elf64_Ehdr *eh = (const void *)ko->p;
	Elf64_Shdr *sh = (Elf64_Shdr *)(ko->p + eh->e_shoff);
	Elf64_Shdr *ids = elf_section(ko, ".BTF_ids");
	Elf64_Shdr *symsh = elf_section(ko, ".symtab");
	const Elf64_Sym *sym;
	const char *strs;
	size_t i, nsym, strs_len, idx;
	int n = 0, pass;

	if (!ids)
		return 0;	/* nothing to resolve */
	if (!symsh || symsh->sh_link >= eh->e_shnum ||
	    sh[symsh->sh_link].sh_offset > ko->len ||
	    sh[symsh->sh_link].sh_size > ko->len - sh[symsh->sh_link].sh_offset)
		return fail("%s", "no symbol table");
	idx = ids - sh;
	sym = (const Elf64_Sym *)(ko->p + symsh->sh_offset);
	nsym = symsh->sh_size / sizeof(*sym);
	strs = (const char *)ko->p + sh[symsh->sh_link].sh_offset;
	strs_len = sh[symsh->sh_link].sh_size;
	/* The ids first, then the sets, sorted by them. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nsym; i++) {
			const char *name;

			if (sym[i].st_shndx != idx || sym[i].st_name >= strs_len)
				continue;
			name = strs + sym[i].st_name;
			if (strncmp(name, ID_PREFIX, strlen(ID_PREFIX)))
				continue;
			if (is_set(name) != pass)
				continue;
			if (sym[i].st_value > ids->sh_size ||
			    ids->sh_size - sym[i].st_value < 4 ||
			    sym[i].st_size > ids->sh_size - sym[i].st_value)
				return fail("%s: out of .BTF_ids", name);
			if (patch(base, mod, name,
				  ko->p + ids->sh_offset + sym[i].st_value,
				  sym[i].st_size))
				return -1;
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	struct blob bb, kb;
	struct btf base, mod;
	FILE *f;
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s BASE MODULE.ko\n", prog);
		return 2;
	}
	if (slurp(argv[1], &bb) || slurp(argv[2], &kb) ||
	    btf_of(&bb, &base, argv[1]) || btf_of(&kb, &mod, argv[2]))
		return 1;
	if (!is_elf(&kb) || !elf_section(&kb, ".symtab")) {
		fail("%s: not an ELF64 little-endian object", argv[2]);
		return 1;
	}
	n = resolve(&kb, &base, &mod);
	if (n < 0)
		return 1;
	f = fopen(argv[2], "r+b");
	if (!f || fwrite(kb.p, 1, kb.len, f) != kb.len || fclose(f)) {
		fail("cannot write %s", argv[2]);
		return 1;
	}
	return 0;
}
