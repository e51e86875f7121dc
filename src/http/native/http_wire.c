/*
 * The wire under uWebSockets.js, made to behave as Core's libevent HTTP server does where
 * uWS 20.30 cannot: a Node-API addon that rewrites the uWS binary's imports of recv, send,
 * writev, accept4, close, getpeername, uv_poll_start and uv_timer_start (got_patch.c), so it
 * sits between uSockets and each client socket. Per connection it
 *
 *  - judges each request head by evhttp's rules before uWS sees it: answers what libevent
 *    refuses (400, 404 for a URI that is no path, 417, 501, 413 for a corrupt chunked body)
 *    with libevent's page and closes, and rebuilds heads uWS cannot parse (HTTP/1.0, no Host,
 *    bare LF, folded or too many headers) into HTTP/1.1 ones, telling the JavaScript side
 *    of an HTTP/1.0 client through its Connection header (request_head.h);
 *  - hands uWS one request at a time: the next pipelined request waits here (uWS closes a
 *    connection whose next request arrives while a reply is pending, HttpContext.h "Are we
 *    not ready for another request yet? Terminate the connection") until the reply to the
 *    previous one has been written, and reading stops meanwhile, as libevent's does;
 *  - follows each reply's framing on the way out, takes out uWS's `uWebSockets: 20` header,
 *    and gives replies to HTTP/1.0 and HEAD requests libevent's shape (the client's version
 *    in the status line; no Date; Content-Length only with keep-alive; HEAD replies without
 *    Content-Length and default Content-Type);
 *  - owns the idle timeout (-rpcservertimeout): uSockets' own 4-second sweep, which closes
 *    every HTTP connection idle for uWS's compiled-in 10 s, is stopped, and a
 *    connection with no traffic for the timeout is shut down here, except while tsbtcd
 *    works on its request (libevent's timeouts cover reading and writing only);
 *  - keeps the client's address from accept4, so the -rpcallowip check uWS.js makes per
 *    request (getRemoteAddress: a getpeername system call each time in uSockets) costs none.
 *
 * Requests answered normally (HTTP/1.1 with Host, one at a time) take one scan of the head
 * and pass through untouched.
 */
#define NAPI_VERSION 8
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <node_api.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "got_patch.h"
#include "hex_encode.h"
#include "request_body.h"
#include "request_head.h"

/* uSockets' LIBUS_TIMEOUT_GRANULARITY (4 s): its timeout sweep timer, started with this period. */
#define USOCKETS_SWEEP_MS 4000
#define IDLE_CHECK_MS 250
#define OUT_HEAD_CAP 16384
/* The header uWS adds to every reply (UWS_HTTPRESPONSE_NO_WRITEMARK is not set in the npm build). */
#define UWS_MARK "\r\nuWebSockets: 20\r\n"
#define LIBEVENT_PAGE_TYPE "\r\nContent-Type: text/html\r\n"

struct conn {
  int fd;
  uv_poll_t *handle;
  int requested; /* the events uSockets asked for */
  int applied;   /* the events libuv polls for */
  /* Bytes read from the client and not yet given to uWS. */
  char *stash;
  size_t stash_off, stash_len, stash_cap;
  /* The body of the request being handed over (BODY_NONE between requests). */
  struct body_walk body;
  /* A request was handed to uWS and its final reply is not all written yet. */
  int pending;
  /* Shape of the reply being written: HTTP/1.0 client, keep-alive, HEAD. */
  int http10, keepalive, head_method;
  /* The status line's version when the client's was not HTTP/1.1 (libevent echoes it). */
  char version[9];
  int reshape;
  /* Reply framing on the way out. */
  int out_body;
  long long out_remaining;
  char *out_head;
  size_t out_head_len;
  int reply_started;
  uint64_t last_activity;
  int shut;     /* shut down here (idle or refused): uWS reads end-of-stream next */
  /* A write failed (the client is gone): uWS must read, and see the end, even mid-reply. */
  int hangup;
  /* A 101 reply went out (WebSocket): from here on bytes pass untouched both ways, and the
   * idle timeout is uWS's (its pings), not -rpcservertimeout. */
  int upgraded;
  /* The client's address as accept4 gave it (peer_len 0: not known, ask the kernel). */
  struct sockaddr_storage peer;
  socklen_t peer_len;
};

static struct conn **conns;
static int conns_cap;
static uv_poll_cb usockets_poll_cb;
static uv_loop_t *loop;
static uv_timer_t idle_timer;
static uint64_t idle_timeout_ms = 30000;
static int sweep_timers_refused;

static struct conn *conn_of(int fd) { return fd >= 0 && fd < conns_cap ? conns[fd] : NULL; }

static void conn_free(int fd) {
  struct conn *c = conn_of(fd);
  if (!c) return;
  free(c->stash);
  free(c->out_head);
  free(c);
  conns[fd] = NULL;
}

static struct conn *conn_new(int fd) {
  if (fd >= conns_cap) {
    int cap = conns_cap ? conns_cap : 1024;
    while (cap <= fd) cap *= 2;
    struct conn **grown = realloc(conns, (size_t)cap * sizeof *conns);
    if (!grown) return NULL;
    memset(grown + conns_cap, 0, (size_t)(cap - conns_cap) * sizeof *conns);
    conns = grown;
    conns_cap = cap;
  }
  conn_free(fd);
  struct conn *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->fd = fd;
  c->applied = -1;
  c->last_activity = uv_now(loop);
  conns[fd] = c;
  return c;
}

static void touch(struct conn *c) { c->last_activity = uv_now(loop); }

/* What libuv should poll for: no reading while a reply is pending (the next request waits in
 * the kernel), and a writable wake-up to hand over a request already read. */
static int wanted_events(const struct conn *c) {
  int ev = c->requested;
  if (c->shut || c->hangup) return ev | UV_READABLE;
  if (c->pending && c->body.state == BODY_NONE) ev &= ~UV_READABLE;
  if (!c->pending && c->stash_len) ev |= UV_WRITABLE;
  return ev;
}

static void poll_cb(uv_poll_t *handle, int status, int events);

static int apply_events(struct conn *c) {
  if (!c->handle || uv_is_closing((uv_handle_t *)c->handle)) return 0;
  int ev = wanted_events(c);
  if (ev == c->applied) return 0;
  c->applied = ev;
  return uv_poll_start(c->handle, ev, poll_cb);
}

static void poll_cb(uv_poll_t *handle, int status, int events) {
  uv_os_fd_t fd = -1;
  uv_fileno((uv_handle_t *)handle, &fd);
  struct conn *c = conn_of(fd);
  if (c && c->handle == handle && status >= 0) {
    int ev = events & c->requested;
    /* A request already read stands for readability. */
    if (!c->pending && c->stash_len) ev |= UV_READABLE;
    if (c->shut || c->hangup) ev |= UV_READABLE;
    if (!ev) {
      apply_events(c);
      return;
    }
    events = ev;
  }
  usockets_poll_cb(handle, status, events);
  c = conn_of(fd);
  if (c && c->handle == handle) apply_events(c);
}

static int hook_uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb) {
  uv_os_fd_t fd = -1;
  uv_fileno((uv_handle_t *)handle, &fd);
  struct conn *c = conn_of(fd);
  if (!c) return uv_poll_start(handle, events, cb);
  usockets_poll_cb = cb;
  c->handle = handle;
  c->requested = events;
  c->applied = -1;
  return apply_events(c);
}

static int hook_uv_timer_start(uv_timer_t *timer, uv_timer_cb cb, uint64_t timeout, uint64_t repeat) {
  if (timeout == USOCKETS_SWEEP_MS && repeat == USOCKETS_SWEEP_MS) {
    sweep_timers_refused++;
    return 0;
  }
  return uv_timer_start(timer, cb, timeout, repeat);
}

static int hook_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
  int s = accept4(fd, addr, len, flags);
  if (s < 0) return s;
  struct conn *c = conn_new(s);
  if (!c) {
    close(s);
    errno = ENOMEM;
    return -1;
  }
  if (addr && len && *len > 0 && *len <= sizeof c->peer) {
    memcpy(&c->peer, addr, *len);
    c->peer_len = *len;
  }
  return s;
}

/* The address kept at accept4 (truncated to the caller's buffer, as the kernel does); else the kernel's answer, kept. */
static int hook_getpeername(int fd, struct sockaddr *addr, socklen_t *len) {
  struct conn *c = conn_of(fd);
  if (c && c->peer_len == 0) {
    socklen_t n = sizeof c->peer;
    if (getpeername(fd, (struct sockaddr *)&c->peer, &n) == 0 && n <= sizeof c->peer) c->peer_len = n;
  }
  if (!c || c->peer_len == 0) return getpeername(fd, addr, len);
  memcpy(addr, &c->peer, *len < c->peer_len ? *len : c->peer_len);
  *len = c->peer_len;
  return 0;
}

static int hook_close(int fd) {
  conn_free(fd);
  return close(fd);
}

/* ---- libevent's own replies ---- */

static const char *reason(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 413: return "Request Entity Too Large";
    case 417: return "Expectation Failed";
    case 501: return "Not Implemented";
  }
  return "Error";
}

static size_t http_date(char *out, size_t cap) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  return strftime(out, cap, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void refuse_connect(int fd, const char *version) {
  char date[64], reply[512];
  http_date(date, sizeof date);
  int n = snprintf(reply, sizeof reply, "%s 501 Not Implemented\r\nContent-Type: text/html\r\nConnection: close\r\nDate: %s\r\n\r\n"
                   "<HTML><HEAD>\n<TITLE>501 Not Implemented</TITLE>\n</HEAD><BODY>\n<H1>Not Implemented</H1>\n</BODY></HTML>\n", version, date);
  (void)!send(fd, reply, (size_t)n, MSG_NOSIGNAL);
}

/*
 * Writes libevent's answer to a request it refuses, then ends the connection (uWS reads
 * end-of-stream): its error page, always in HTTP/1.1 form; or, for a URI that is no path,
 * Core's empty 404 in the client's version's shape.
 */
static void refuse(int fd, struct conn *c, int status, int http10) {
  char date[64], body[256], reply[640];
  http_date(date, sizeof date);
  int n;
  if (status == 404 && http10) {
    n = snprintf(reply, sizeof reply, "HTTP/1.0 404 Not Found\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\r\n");
  } else if (status == 404) {
    n = snprintf(reply, sizeof reply, "HTTP/1.1 404 Not Found\r\nDate: %s\r\nContent-Length: 0\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\r\n", date);
  } else {
    int b = snprintf(body, sizeof body, "<HTML><HEAD>\n<TITLE>%d %s</TITLE>\n</HEAD><BODY>\n<H1>%s</H1>\n</BODY></HTML>\n", status, reason(status), reason(status));
    n = snprintf(reply, sizeof reply, "HTTP/1.1 %d %s\r\nContent-Type: text/html\r\nConnection: close\r\nDate: %s\r\nContent-Length: %d\r\n\r\n%s", status, reason(status), date, b, body);
  }
  (void)!send(fd, reply, (size_t)n, MSG_NOSIGNAL);
  shutdown(fd, SHUT_WR);
  c->shut = 1;
  c->stash_len = c->stash_off = 0;
}

/* ---- requests in ---- */

static int stash_append(struct conn *c, const char *p, size_t n) {
  if (c->stash_off && c->stash_off + c->stash_len + n > c->stash_cap) {
    memmove(c->stash, c->stash + c->stash_off, c->stash_len);
    c->stash_off = 0;
  }
  if (c->stash_len + n > c->stash_cap) {
    size_t cap = c->stash_cap ? c->stash_cap : 4096;
    while (cap < c->stash_len + n) cap *= 2;
    char *grown = realloc(c->stash, cap);
    if (!grown) return -1;
    c->stash = grown;
    c->stash_cap = cap;
  }
  memcpy(c->stash + c->stash_off + c->stash_len, p, n);
  c->stash_len += n;
  return 0;
}

static void stash_take(struct conn *c, size_t n) {
  c->stash_off += n;
  c->stash_len -= n;
  if (!c->stash_len) c->stash_off = 0;
}

static void begin_reply(struct conn *c, const struct request_head *h) {
  c->pending = 1;
  c->http10 = h->http10;
  c->keepalive = h->keepalive;
  c->head_method = h->head_method;
  memcpy(c->version, h->version, sizeof c->version);
  c->reshape = h->http10 || h->head_method || strcmp(h->version, "HTTP/1.1") != 0;
  c->out_body = 0;
  c->out_head_len = 0;
  c->reply_started = 0;
}

/* A request head that uWS may see as it is, followed by no more than its own body. */
static int pass_through(struct conn *c, const char *p, size_t n) {
  size_t head = request_head_length(p, n);
  if (!head) return 0;
  struct request_head h;
  parse_request_head(p, head, &h);
  if (h.refuse || h.rewrite || h.chunked || (h.expect_continue && n > head)) return 0;
  long long body = h.content_length > 0 ? h.content_length : 0;
  if ((long long)(n - head) > body) return 0;
  begin_reply(c, &h);
  body_begin(&c->body, &h);
  body_walk(&c->body, p + head, n - head);
  return 1;
}

/* Hands uWS what the stash holds of the current request: a head (as is or rebuilt), then body. */
static ssize_t deliver(int fd, struct conn *c, char *buf, size_t len) {
  size_t out = 0;
  while (c->body.state == BODY_NONE) {
    const char *p = c->stash + c->stash_off;
    size_t head = request_head_length(p, c->stash_len);
    if (!head) {
      if (c->stash_len > MAX_HEADERS_SIZE) refuse(fd, c, 400, 0);
      if (c->shut) return 0;
      errno = EAGAIN;
      return -1;
    }
    struct request_head h;
    parse_request_head(p, head, &h);
    if (h.refuse == 501 && h.connect_method) {
      /* libevent's answer to CONNECT says close but keeps reading requests. */
      refuse_connect(fd, h.version);
      stash_take(c, head);
      if (!c->stash_len) {
        errno = EAGAIN;
        return -1;
      }
      continue;
    }
    if (h.refuse) {
      refuse(fd, c, h.refuse, h.http10);
      return 0;
    }
    if (h.expect_continue && c->stash_len > head) h.rewrite = h.drop_expect = 1;
    if (h.rewrite) {
      out = rebuild_request_head(p, head, &h, buf, len);
      if (!out) {
        refuse(fd, c, 400, h.http10);
        return 0;
      }
    } else {
      if (head > len) {
        refuse(fd, c, 400, h.http10);
        return 0;
      }
      memcpy(buf, p, head);
      out = head;
    }
    stash_take(c, head);
    begin_reply(c, &h);
    body_begin(&c->body, &h);
    break;
  }
  while (c->body.state != BODY_NONE && c->stash_len && out < len) {
    const char *p = c->stash + c->stash_off;
    if (c->body.state == BODY_TRAILER) {
      /* uWS parses no trailer lines: only the empty line that ends the body goes on. */
      int ends = c->body.line == 0 && (*p == '\r' || *p == '\n');
      body_walk(&c->body, p, 1);
      if (ends) buf[out++] = *p;
      stash_take(c, 1);
      continue;
    }
    size_t avail = c->stash_len < len - out ? c->stash_len : len - out;
    long long k = body_walk(&c->body, p, avail);
    if (k < 0) {
      refuse(fd, c, 413, c->http10);
      return 0;
    }
    memcpy(buf + out, p, (size_t)k);
    stash_take(c, (size_t)k);
    out += (size_t)k;
  }
  if (!out) {
    errno = EAGAIN;
    return -1;
  }
  return (ssize_t)out;
}

static ssize_t hook_recv(int fd, void *buf, size_t len, int flags) {
  struct conn *c = conn_of(fd);
  if (!c) return recv(fd, buf, len, flags);
  if (c->shut) return 0;
  if (c->upgraded) {
    if (!c->stash_len) return recv(fd, buf, len, flags);
    /* Frames that came in with the upgrade request go first, as they are. */
    size_t k = c->stash_len < len ? c->stash_len : len;
    memcpy(buf, c->stash + c->stash_off, k);
    c->stash_off += k, c->stash_len -= k;
    if (!c->stash_len) c->stash_off = 0;
    return (ssize_t)k;
  }
  if (c->pending && c->body.state == BODY_NONE) {
    /* uSockets learns that a client left only by reading: once a write failed, it reads the
     * end (or the reset) here, while a request waiting behind the reply stays unread. */
    if (c->hangup) {
      ssize_t n = recv(fd, buf, len, flags);
      if (n <= 0) return n;
      (void)stash_append(c, buf, (size_t)n);
    }
    errno = EAGAIN;
    return -1;
  }
  if (!c->stash_len) {
    ssize_t n = recv(fd, buf, len, flags);
    if (n <= 0) return n;
    touch(c);
    if (c->body.state == BODY_LENGTH && n <= c->body.remaining) {
      body_walk(&c->body, buf, (size_t)n);
      return n;
    }
    if (c->body.state == BODY_NONE && pass_through(c, buf, (size_t)n)) return n;
    if (stash_append(c, buf, (size_t)n) != 0) {
      errno = ENOMEM;
      return -1;
    }
  } else if (c->body.state == BODY_NONE && !request_head_length(c->stash + c->stash_off, c->stash_len)) {
    ssize_t n = recv(fd, buf, len, flags);
    if (n <= 0) return n;
    touch(c);
    if (stash_append(c, buf, (size_t)n) != 0) {
      errno = ENOMEM;
      return -1;
    }
  }
  ssize_t r = deliver(fd, c, buf, len);
  apply_events(c);
  return r;
}

/* ---- replies out ---- */

static void write_failed(struct conn *c, ssize_t result);

static void reply_done(struct conn *c) {
  /* An HTTP/1.0 reply without keep-alive ends at the end of the connection, streamed ones too
   * (uWS leaves closing those to a client that reads to a Content-Length it no longer has). */
  if (c->http10 && !c->keepalive && !c->shut) {
    shutdown(c->fd, SHUT_WR);
    c->shut = 1;
  }
  c->pending = 0;
  c->out_body = 0;
  c->out_head_len = 0;
  apply_events(c);
}

static long long header_number(const char *head, size_t len, const char *name) {
  size_t nl = strlen(name);
  for (const char *p = head; p < head + len;) {
    const char *eol = memchr(p, '\n', (size_t)(head + len - p));
    if (!eol) break;
    if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0) return strtoll(p + nl, NULL, 10);
    p = eol + 1;
  }
  return -1;
}

/* Ends one reply head: a 1xx one is interim; a final one's body is its Content-Length (none: empty). */
static void reply_head_seen(struct conn *c, const char *head, size_t len) {
  int status = len > 12 ? atoi(head + 9) : 0;
  if (status == 101) {
    c->upgraded = 1;
    reply_done(c);
    return;
  }
  if (status >= 100 && status < 200) return;
  long long length = header_number(head, len, "content-length:");
  c->out_remaining = length > 0 ? length : 0;
  if (c->out_remaining) c->out_body = 1;
  else reply_done(c);
}

static const char *find_head_end(const char *p, size_t n) {
  const char *end = memmem(p, n, "\r\n\r\n", 4);
  return end ? end + 4 : NULL;
}

/* Follows the bytes of replies that left for the client. */
static void replies_sent(struct conn *c, const char *p, size_t n) {
  while (n) {
    if (!c->pending) return;
    c->reply_started = 1;
    if (c->out_body) {
      size_t k = (long long)n < c->out_remaining ? n : (size_t)c->out_remaining;
      c->out_remaining -= (long long)k;
      p += k, n -= k;
      if (!c->out_remaining) reply_done(c);
      continue;
    }
    if (!c->out_head_len) {
      const char *end = find_head_end(p, n);
      if (end) {
        size_t k = (size_t)(end - p);
        reply_head_seen(c, p, k);
        p += k, n -= k;
        continue;
      }
    }
    /* A head split between writes is gathered first. */
    if (!c->out_head && !(c->out_head = malloc(OUT_HEAD_CAP))) return;
    size_t room = OUT_HEAD_CAP - c->out_head_len, k = n < room ? n : room;
    if (!k) {
      /* No reply head of uWS's is this long: stop following this one rather than loop. */
      reply_done(c);
      return;
    }
    size_t from = c->out_head_len > 3 ? c->out_head_len - 3 : 0;
    memcpy(c->out_head + c->out_head_len, p, k);
    c->out_head_len += k;
    const char *end = find_head_end(c->out_head + from, c->out_head_len - from);
    if (!end) {
      p += k, n -= k;
      continue;
    }
    size_t head = (size_t)(end - c->out_head), used = k - (c->out_head_len - head);
    c->out_head_len = 0;
    reply_head_seen(c, c->out_head, head);
    p += used, n -= used;
  }
}

static int dropped_line(const struct conn *c, const char *line, size_t len) {
#define IS(text) (len >= sizeof(text) - 1 && strncasecmp(line, text, sizeof(text) - 1) == 0)
  if (IS("uWebSockets:")) return 1;
  if (c->http10 && IS("Date:")) return 1;
  if (c->http10 && !c->keepalive && (IS("Content-Length:") || IS("Connection:"))) return 1;
  if (c->head_method && (IS("Content-Length:") || IS("Content-Type: text/html; charset=ISO-8859-1\r"))) return 1;
  return 0;
#undef IS
}

/* libevent's head for a reply to an HTTP/1.0 or HEAD request, from uWS's. */
static size_t reshape_head(const struct conn *c, const char *head, size_t len, char *out) {
  size_t n = 0;
  const char *eol = memchr(head, '\n', len);
  size_t first = (size_t)(eol - head) + 1;
  memcpy(out, head, first);
  memcpy(out, c->version, 8);
  n = first;
  for (const char *p = head + first; p < head + len;) {
    const char *e = memchr(p, '\n', (size_t)(head + len - p));
    size_t l = (size_t)(e - p) + 1;
    if (!dropped_line(c, p, l)) memcpy(out + n, p, l), n += l;
    p += l;
  }
  return n;
}

/* Writes all of p or gives up: the reshaped head of one reply, on a socket that is rarely full. */
static int send_all(int fd, const char *p, size_t n) {
  for (int waits = 0; n;) {
    ssize_t s = send(fd, p, n, MSG_NOSIGNAL);
    if (s > 0) {
      p += s, n -= (size_t)s;
      continue;
    }
    if (s < 0 && errno != EAGAIN && errno != EINTR) return -1;
    struct pollfd pfd = {fd, POLLOUT, 0};
    if (++waits > 20 || poll(&pfd, 1, 100) < 0) return -1;
  }
  return 0;
}

static ssize_t send_reshaped(int fd, struct conn *c, const char *p, size_t n, int flags) {
  const char *end = find_head_end(p, n);
  if (!end) return -2;
  size_t head = (size_t)(end - p);
  int status = atoi(p + 9);
  if (status >= 100 && status < 200) return -2;
  /* libevent's own error pages (the only replies typed plain `text/html`) keep their HTTP/1.1 shape. */
  if (memmem(p, head, LIBEVENT_PAGE_TYPE, strlen(LIBEVENT_PAGE_TYPE))) return -2;
  char *out = malloc(head);
  if (!out) return -2;
  size_t m = reshape_head(c, p, head, out);
  int ok = send_all(fd, out, m) == 0;
  free(out);
  if (!ok) {
    errno = EPIPE;
    write_failed(c, -1);
    return -1;
  }
  touch(c);
  replies_sent(c, p, head);
  if (head == n) return (ssize_t)n;
  ssize_t s = send(fd, p + head, n - head, flags);
  if (s > 0) replies_sent(c, p + head, (size_t)s);
  return (ssize_t)head + (s > 0 ? s : 0);
}

static void write_failed(struct conn *c, ssize_t result) {
  if (!c || result >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || c->hangup) return;
  int saved = errno;
  c->hangup = 1;
  apply_events(c);
  errno = saved;
}

/*
 * Sends a reply that starts in p without uWS's `uWebSockets: 20` line (libevent writes no
 * such header): the bytes around it in one sendmsg. -2 when p does not hold the line.
 */
static ssize_t send_unmarked(int fd, const char *p, size_t n, int flags) {
  const char *end = find_head_end(p, n);
  const char *mark = end ? memmem(p, (size_t)(end - p), UWS_MARK, sizeof UWS_MARK - 1) : NULL;
  if (!mark) return -2;
  size_t before = (size_t)(mark - p) + 2, skipped = sizeof UWS_MARK - 3;
  struct iovec parts[2] = {{(void *)p, before}, {(void *)(p + before + skipped), n - before - skipped}};
  struct msghdr msg = {.msg_iov = parts, .msg_iovlen = 2};
  ssize_t s = sendmsg(fd, &msg, flags);
  /* Once all before the line is out, the line counts as written; short of that, the rest of
   * the head, line and all, goes out with uWS's next write. */
  if (s >= (ssize_t)before) s += (ssize_t)skipped;
  return s;
}

static ssize_t hook_send(int fd, const void *buf, size_t len, int flags) {
  struct conn *c = conn_of(fd);
  if (c && c->upgraded) return send(fd, buf, len, flags);
  ssize_t s = -2;
  if (c && c->pending && !c->out_body && !c->out_head_len) {
    if (c->reshape) s = send_reshaped(fd, c, buf, len, flags);
    if (s != -2) return s;
    s = send_unmarked(fd, buf, len, flags);
  }
  if (s == -2) s = send(fd, buf, len, flags);
  if (c && s > 0) {
    touch(c);
    replies_sent(c, buf, (size_t)s);
  }
  write_failed(c, s);
  return s;
}

static ssize_t hook_writev(int fd, const struct iovec *iov, int count) {
  struct conn *c = conn_of(fd);
  if (c && c->upgraded) return writev(fd, iov, count);
  if (c && c->pending && !c->out_body && c->reshape) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += iov[i].iov_len;
    char *flat = malloc(total ? total : 1);
    if (!flat) {
      errno = ENOMEM;
      return -1;
    }
    for (size_t at = 0, i = 0; i < (size_t)count; at += iov[i].iov_len, i++) memcpy(flat + at, iov[i].iov_base, iov[i].iov_len);
    ssize_t r = hook_send(fd, flat, total, MSG_NOSIGNAL);
    free(flat);
    return r;
  }
  ssize_t s = writev(fd, iov, count);
  write_failed(c, s);
  if (c && s > 0) {
    touch(c);
    size_t left = (size_t)s;
    for (int i = 0; i < count && left; i++) {
      size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
      replies_sent(c, iov[i].iov_base, k);
      left -= k;
    }
  }
  return s;
}

/* ---- idle timeout ---- */

static void idle_check(uv_timer_t *timer) {
  (void)timer;
  uint64_t now = uv_now(loop);
  for (int fd = 0; fd < conns_cap; fd++) {
    struct conn *c = conns[fd];
    if (!c || c->shut || c->upgraded) continue;
    /* tsbtcd is working on the request: no timeout, as libevent has none then. */
    if (c->pending && c->body.state == BODY_NONE && !c->reply_started) continue;
    if (now - c->last_activity < idle_timeout_ms) continue;
    shutdown(fd, SHUT_RDWR);
    c->shut = 1;
    apply_events(c);
  }
}

/* uSockets starts its sweep when the binary loads (us_create_loop), before install(): it is
 * found among the loop's handles (a timer of the uWS binary repeating every 4 s) and stopped. */
static void stop_sweep(uv_handle_t *handle, void *arg) {
  if (uv_handle_get_type(handle) != UV_TIMER || !uv_is_active(handle)) return;
  uv_timer_t *timer = (uv_timer_t *)handle;
  if (uv_timer_get_repeat(timer) != USOCKETS_SWEEP_MS) return;
  Dl_info where;
  if (!dladdr((void *)timer->timer_cb, &where) || !where.dli_fname || !strstr(where.dli_fname, (const char *)arg)) return;
  uv_timer_stop(timer);
  sweep_timers_refused++;
}

/* ---- Node-API ---- */

static napi_value throw_error(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

/* install(uwsFileNamePart, idleTimeoutSeconds): hooks the loaded uWS binary; throws when it cannot. */
static napi_value install(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char name[512];
  size_t name_len = 0;
  int64_t timeout_s = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_string_utf8(env, argv[0], name, sizeof name, &name_len) != napi_ok ||
      napi_get_value_int64(env, argv[1], &timeout_s) != napi_ok)
    return throw_error(env, "install(uwsFileNamePart, idleTimeoutSeconds)");
  if (loop) return throw_error(env, "the HTTP wire layer is already installed");
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) return throw_error(env, "no libuv loop");
  /* Core: a non-positive -rpcservertimeout leaves libevent's timeout unset (it never fires). */
  idle_timeout_ms = timeout_s > 0 ? (uint64_t)timeout_s * 1000 : UINT64_MAX;
  static const struct got_hook hooks[] = {
      {"recv", (void *)hook_recv}, {"send", (void *)hook_send}, {"writev", (void *)hook_writev},
      {"accept4", (void *)hook_accept4}, {"close", (void *)hook_close}, {"getpeername", (void *)hook_getpeername},
      {"uv_poll_start", (void *)hook_uv_poll_start}, {"uv_timer_start", (void *)hook_uv_timer_start},
  };
  size_t count = sizeof hooks / sizeof *hooks;
  int patched[sizeof hooks / sizeof *hooks];
  if (got_patch(name, hooks, count, patched) != 0) {
    loop = NULL;
    return throw_error(env, "cannot rewrite the imports of the uWebSockets.js binary (is it loaded?)");
  }
  for (size_t i = 0; i < count; i++) {
    if (!patched[i]) {
      char msg[160];
      snprintf(msg, sizeof msg, "the uWebSockets.js binary does not import %s: the HTTP wire layer cannot sit under it", hooks[i].name);
      loop = NULL;
      return throw_error(env, msg);
    }
  }
  uv_walk(loop, stop_sweep, name);
  if (!sweep_timers_refused) {
    loop = NULL;
    return throw_error(env, "uSockets' timeout sweep was not found: the wire layer cannot own the idle timeout");
  }
  uv_timer_init(loop, &idle_timer);
  uv_timer_start(&idle_timer, idle_check, IDLE_CHECK_MS, IDLE_CHECK_MS);
  uv_unref((uv_handle_t *)&idle_timer);
  return NULL;
}

/* How many uSockets sweep timers were stopped or refused (1 after install()). */
static napi_value sweep_refused(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v;
  napi_create_int32(env, sweep_timers_refused, &v);
  return v;
}

/* Bytes of a Uint8Array (or Buffer) argument; false (with a TypeError thrown) for anything else. */
static int typed_bytes(napi_env env, napi_value value, uint8_t **data, size_t *length) {
  napi_typedarray_type type;
  void *base = NULL;
  if (napi_get_typedarray_info(env, value, &type, length, &base, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "hexEncode(source, target) takes two Uint8Arrays");
    return 0;
  }
  *data = base;
  return 1;
}

/* hexEncode(source, target): target[0 .. 2 * source.length) = lowercase hex of source. */
static napi_value hex_encode_into(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  uint8_t *src = NULL, *dst = NULL;
  size_t src_len = 0, dst_len = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return throw_error(env, "hexEncode(source, target)");
  if (!typed_bytes(env, argv[0], &src, &src_len) || !typed_bytes(env, argv[1], &dst, &dst_len)) return NULL;
  if (dst_len / 2 < src_len) return throw_error(env, "hexEncode: the target is shorter than twice the source");
  if (src_len > 0 && dst < src + src_len && src < dst + 2 * src_len) return throw_error(env, "hexEncode: source and target overlap");
  hex_encode(src, src_len, dst);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"install", NULL, install, NULL, NULL, NULL, napi_default, NULL},
      {"sweepTimersRefused", NULL, sweep_refused, NULL, NULL, NULL, napi_default, NULL},
      {"hexEncode", NULL, hex_encode_into, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof *props, props);
  return exports;
}
