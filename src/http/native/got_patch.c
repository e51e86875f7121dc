/*
 * Redirects the imports of one loaded shared object (the uWebSockets.js binary) to our own
 * functions by rewriting its global offset table: only that object's calls change, so Node,
 * libuv and every other library keep calling libc and libuv directly. The object is found
 * among the loaded ones by a piece of its file name; its dynamic section gives the
 * relocation tables (JUMP_SLOT for lazy/PLT calls, GLOB_DAT for -fno-plt or BIND_NOW ones).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "got_patch.h"

/* The relocation types that fill a GOT slot with a symbol's address, per architecture
 * uWebSockets.js ships a Linux binary for. */
#if defined(__x86_64__)
#define GOT_JUMP_SLOT R_X86_64_JUMP_SLOT
#define GOT_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define GOT_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define GOT_GLOB_DAT R_AARCH64_GLOB_DAT
#else
#error "the HTTP wire layer patches x86-64 and arm64 binaries only"
#endif

struct found {
  const char *name_part;
  const struct dl_phdr_info *info;
  ElfW(Addr) base;
  const ElfW(Dyn) *dynamic;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct found *f = data;
  if (!info->dlpi_name || !strstr(info->dlpi_name, f->name_part)) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      f->base = info->dlpi_addr;
      f->dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
      return 1;
    }
  }
  return 0;
}

/* glibc relocates most d_ptr values of a loaded object in place; some loaders do not. */
static uintptr_t absolute(ElfW(Addr) base, ElfW(Addr) ptr) { return ptr < base ? base + ptr : ptr; }

static int write_slot(void **slot, void *fn) {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)slot & ~(uintptr_t)(page - 1);
  /* RELRO makes the table read-only after loading; it stays writable afterwards, as
   * a lazily bound table is. */
  if (mprotect((void *)start, (size_t)page, PROT_READ | PROT_WRITE) != 0) return -1;
  *slot = fn;
  return 0;
}

int got_patch(const char *name_part, const struct got_hook *hooks, size_t count, int *patched) {
  struct found f = {name_part, NULL, 0, NULL};
  if (!dl_iterate_phdr(find_object, &f) || !f.dynamic) return -1;
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  uintptr_t tables[2] = {0, 0};
  size_t sizes[2] = {0, 0};
  for (const ElfW(Dyn) *d = f.dynamic; d->d_tag != DT_NULL; d++) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = (const ElfW(Sym) *)absolute(f.base, d->d_un.d_ptr); break;
      case DT_STRTAB: strtab = (const char *)absolute(f.base, d->d_un.d_ptr); break;
      case DT_JMPREL: tables[0] = absolute(f.base, d->d_un.d_ptr); break;
      case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
      case DT_RELA: tables[1] = absolute(f.base, d->d_un.d_ptr); break;
      case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
    }
  }
  if (!symtab || !strtab) return -1;
  for (size_t i = 0; i < count; i++) patched[i] = 0;
  for (int t = 0; t < 2; t++) {
    const ElfW(Rela) *rel = (const ElfW(Rela) *)tables[t];
    for (size_t r = 0; rel && r < sizes[t] / sizeof(ElfW(Rela)); r++) {
      unsigned long type = ELF64_R_TYPE(rel[r].r_info);
      if (type != GOT_JUMP_SLOT && type != GOT_GLOB_DAT) continue;
      const char *name = strtab + symtab[ELF64_R_SYM(rel[r].r_info)].st_name;
      for (size_t h = 0; h < count; h++) {
        if (strcmp(name, hooks[h].name) != 0) continue;
        if (write_slot((void **)(f.base + rel[r].r_offset), hooks[h].fn) != 0) return -1;
        patched[h]++;
      }
    }
  }
  return 0;
}
