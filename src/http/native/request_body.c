/*
 * A request body's end, found as libevent finds it: Content-Length bytes, or chunks
 * (evhttp_handle_chunked_read: a hex size line, optional extensions, the data, CRLF; a
 * zero size, then trailer lines up to an empty one). The bytes themselves pass on unchanged.
 */
#include "request_body.h"

#define IN_EXTENSIONS ((size_t)1 << 62)

void body_begin(struct body_walk *w, const struct request_head *h) {
  w->line = 0;
  w->remaining = 0;
  w->total = 0;
  if (h->chunked) w->state = BODY_CHUNK_SIZE;
  else if (h->content_length > 0) w->state = BODY_LENGTH, w->remaining = h->content_length;
  else w->state = BODY_NONE;
}

/* Counts off up to `available` bytes of what remains; `then` once none remains. */
static size_t count_off(struct body_walk *w, size_t available, enum body_state then) {
  size_t k = (long long)available < w->remaining ? available : (size_t)w->remaining;
  w->remaining -= (long long)k;
  if (!w->remaining) w->state = then;
  return k;
}

static int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* One character of a chunk-size line; -1 when libevent would reject the line. */
static int size_line(struct body_walk *w, char ch) {
  if (ch == '\n') {
    if (!w->line) return -1;
    w->line = 0;
    if (!w->remaining) {
      w->state = BODY_TRAILER;
      return 0;
    }
    w->total += w->remaining;
    if (w->total > MAX_BODY_SIZE) return -1;
    w->state = BODY_CHUNK_DATA;
    return 0;
  }
  if (ch == '\r' || (w->line & IN_EXTENSIONS)) return 0;
  /* libevent reads the size with strtoll: a space may end it, anything else (`;ext`) is corrupt. */
  if (ch == ' ') {
    if (!w->line) return -1;
    w->line |= IN_EXTENSIONS;
    return 0;
  }
  int d = hex_digit(ch);
  if (d < 0 || w->remaining > MAX_BODY_SIZE) return -1;
  w->remaining = w->remaining * 16 + d;
  w->line++;
  return 0;
}

long long body_walk(struct body_walk *w, const char *p, size_t n) {
  size_t i = 0;
  while (i < n && w->state != BODY_NONE) {
    switch (w->state) {
      case BODY_LENGTH:
        i += count_off(w, n - i, BODY_NONE);
        break;
      case BODY_CHUNK_SIZE:
        if (size_line(w, p[i++]) != 0) return -1;
        /* The caller hands trailers on its own way (uWS reads none). */
        if (w->state == BODY_TRAILER) return (long long)i;
        break;
      case BODY_CHUNK_DATA:
        i += count_off(w, n - i, BODY_CHUNK_DATA_END);
        break;
      case BODY_CHUNK_DATA_END:
        /* The CRLF after a chunk's data. */
        if (p[i++] == '\n') w->state = BODY_CHUNK_SIZE, w->remaining = 0;
        break;
      case BODY_TRAILER:
        /* Trailer lines until an empty one. */
        if (p[i] == '\n') {
          if (!w->line) w->state = BODY_NONE;
          w->line = 0;
        } else if (p[i] != '\r') {
          w->line++;
        }
        i++;
        break;
      case BODY_NONE:
        break;
    }
  }
  return (long long)i;
}
