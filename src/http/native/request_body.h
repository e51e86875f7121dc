#ifndef TSBTCD_REQUEST_BODY_H
#define TSBTCD_REQUEST_BODY_H
#include <stddef.h>

#include "request_head.h"

/* Where a request's body stands: its bytes are counted (Content-Length) or its chunks read. */
enum body_state { BODY_NONE, BODY_LENGTH, BODY_CHUNK_SIZE, BODY_CHUNK_DATA, BODY_CHUNK_DATA_END, BODY_TRAILER };

struct body_walk {
  /* BODY_NONE: no body left; the next bytes start a request head. */
  enum body_state state;
  /* Bytes left of the body or of the current chunk. */
  long long remaining;
  /* Characters of the current chunk-size or trailer line (bit 62: inside chunk extensions). */
  size_t line;
  /* The chunks' sizes so far, against libevent's body limit. */
  long long total;
};

/* The body that follows head `h` (none, Content-Length bytes, or chunks). */
void body_begin(struct body_walk *w, const struct request_head *h);

/*
 * Walks up to n body bytes at p; returns how many belong to this body (state is BODY_NONE
 * once it is complete; the walk stops where the trailer starts, BODY_TRAILER), or -1 for a chunked body libevent rejects (413: a bad size line, or
 * chunks over its limit).
 */
long long body_walk(struct body_walk *w, const char *p, size_t n);

#endif
