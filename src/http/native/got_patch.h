#ifndef TSBTCD_GOT_PATCH_H
#define TSBTCD_GOT_PATCH_H
#include <stddef.h>

struct got_hook {
  const char *name;
  void *fn;
};

/*
 * Points every import of `hooks[i].name` by the loaded object whose file name contains
 * `name_part` at `hooks[i].fn`; patched[i] counts the slots rewritten. -1 when the object
 * is not loaded or its tables cannot be read or written.
 */
int got_patch(const char *name_part, const struct got_hook *hooks, size_t count, int *patched);

#endif
