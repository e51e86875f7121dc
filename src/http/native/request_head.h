#ifndef TSBTCD_REQUEST_HEAD_H
#define TSBTCD_REQUEST_HEAD_H
#include <stddef.h>

/* libevent's limit on the request line plus header lines (Core's MAX_HEADERS_SIZE). */
#define MAX_HEADERS_SIZE 8192
/* libevent's limit on a body (Core's MAX_SIZE). */
#define MAX_BODY_SIZE 0x02000000LL

/* The Connection value standing for an HTTP/1.0 client's `Connection: keep-alive` (src/http/wire.ts). */
#define HTTP10_KEEP_ALIVE "x-tsbtcd-http10-keep-alive"

/* The path uWS is given for a URI that is no path: Core's handlers match none of it. */
#define NOT_A_PATH "/.tsbtcd-uri-not-a-path"

/* What libevent's evhttp made of one request head, and what uWS needs to see instead. */
struct request_head {
  /* 0: hand on; else the status libevent answers with (400, 404, 417, 501) and closes. */
  int refuse;
  /* The head must be rebuilt before uWS sees it (HTTP/1.0, no Host, bare LF, ...). */
  int rewrite;
  int http10;
  int keepalive;
  int head_method;
  /* CONNECT: libevent answers 501 without closing or a Content-Length, and reads on. */
  int connect_method;
  /* `HTTP/d.d` as the client sent it: libevent's status line echoes it. */
  char version[9];
  /* The first Content-Length is not plain digits (`+26`, ` 26`): uWS gets the number. */
  int odd_length;
  /* `Expect: 100-continue` on an HTTP/1.1 request with a body: libevent answers `100 Continue`
   * only while none of the body has arrived (uWS always does), else uWS must not see it. */
  int expect_continue;
  /* The URI is no path (`x`, `*`, `ftp://...`): uWS gets NOT_A_PATH, which no handler takes (404). */
  int not_a_path;
  int drop_expect;
  /* -1: no body; else the Content-Length. */
  long long content_length;
  int chunked;
};

/*
 * Judges the head in p[0..len) (ending with its empty line) as evhttp does: request line
 * `METHOD SP URI SP HTTP/x.y`, header lines `Name: value` (continuations allowed),
 * Content-Length, Transfer-Encoding, Expect.
 */
void parse_request_head(const char *p, size_t len, struct request_head *h);

/*
 * Writes the head uWS can parse into out (capacity cap): an HTTP/1.1 request line (spaces
 * inside the URI left out), a Host,
 * continuation lines folded, only the headers tsbtcd reads when uWS's header count would
 * overflow, and for an HTTP/1.0 client `Connection: close`, or HTTP10_KEEP_ALIVE when it
 * asked for keep-alive. Returns the
 * length, or 0 when it does not fit.
 */
size_t rebuild_request_head(const char *p, size_t len, const struct request_head *h, char *out, size_t cap);

/* The length of the head at the start of p (through its empty line), or 0 when incomplete. */
size_t request_head_length(const char *p, size_t len);

#endif
