/*
 * A request head judged by libevent 2.1's evhttp rules (evhttp_parse_firstline_,
 * evhttp_parse_headers_, evhttp_get_body_length, evhttp_have_expect), the parser in front
 * of Core's HTTP server, and rebuilt into the HTTP/1.1 head uWebSockets parses when the
 * client sent one uWS refuses but libevent accepts.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "request_head.h"

/* uWS 20.30 keeps at most this many headers (HttpRequest::MAX_HEADERS is 50, one is the request line). */
#define UWS_HEADER_ROOM 40

struct line {
  const char *p;
  size_t len; /* without the line end */
  int bare_lf;
};

/* The line at p (evbuffer EOL_CRLF: LF, optionally after CR); 0 when p[0..len) holds no LF. */
static size_t next_line(const char *p, size_t len, struct line *l) {
  const char *lf = memchr(p, '\n', len);
  if (!lf) return 0;
  l->p = p;
  l->len = (size_t)(lf - p);
  l->bare_lf = !(l->len && p[l->len - 1] == '\r');
  if (!l->bare_lf) l->len--;
  return (size_t)(lf - p) + 1;
}

size_t request_head_length(const char *p, size_t len) {
  struct line l;
  size_t at = 0;
  for (int index = 0;; index++) {
    size_t used = next_line(p + at, len - at, &l);
    if (!used) return 0;
    at += used;
    /* An empty first line is a malformed request line: the head ends there. */
    if (l.len == 0) return at;
  }
}

static int is_name(const struct line *l, size_t name_len, const char *name) {
  return name_len == strlen(name) && strncasecmp(l->p, name, name_len) == 0;
}

struct header {
  size_t name_len;
  const char *value;
  size_t value_len;
};

/* Splits `Name: value` as evhttp does: value after spaces, trailing blanks trimmed; -1 without a colon. */
static int split_header(const struct line *l, struct header *h) {
  const char *colon = memchr(l->p, ':', l->len);
  if (!colon) return -1;
  h->name_len = (size_t)(colon - l->p);
  const char *v = colon + 1, *end = l->p + l->len;
  while (v < end && *v == ' ') v++;
  while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n')) end--;
  h->value = v;
  h->value_len = (size_t)(end - v);
  return 0;
}

static int value_is(const struct header *h, const char *text) {
  return h->value_len == strlen(text) && strncasecmp(h->value, text, h->value_len) == 0;
}

/* evutil_strtoll(value, &end, 10) with nothing after the number and no sign of a negative. */
static int parse_content_length(const struct header *h, long long *out) {
  size_t i = 0;
  while (i < h->value_len && isspace((unsigned char)h->value[i])) i++;
  int negative = 0;
  if (i < h->value_len && (h->value[i] == '+' || h->value[i] == '-')) negative = h->value[i++] == '-';
  size_t digits = 0;
  long long n = 0;
  for (; i < h->value_len && isdigit((unsigned char)h->value[i]); i++, digits++) {
    int d = h->value[i] - '0';
    n = n > (0x7fffffffffffffffLL - d) / 10 ? 0x7fffffffffffffffLL : n * 10 + d;
  }
  if (!digits || i != h->value_len || (negative && n > 0)) return -1;
  *out = n;
  return 0;
}

static const char *const KNOWN_METHODS[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PATCH"};
/* Core allows only these (evhttp_set_allowed_methods); libevent answers the others 501. */
static const char *const CORE_METHODS[] = {"GET", "POST", "HEAD", "PUT", "DELETE"};

static int method_in(const char *m, size_t len, const char *const *set, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(set[i]) == len && memcmp(m, set[i], len) == 0) return 1;
  return 0;
}

/* sscanf's `%d` (optional sign, digits) at p, within end; the digits' end, or NULL. */
static const char *scan_int(const char *p, const char *end, int *out) {
  int negative = 0;
  if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
  const char *digits = p;
  long value = 0;
  for (; p < end && isdigit((unsigned char)*p); p++)
    if (value < 100000000) value = value * 10 + (*p - '0');
  if (p == digits) return NULL;
  *out = (int)(negative ? -value : value);
  return p;
}

/* evhttp_parse_http_version: `HTTP/%d.%d` and nothing after. */
static int parse_version(const char *p, size_t len, int *major, int *minor) {
  const char *end = p + len;
  if (len < 5 || memcmp(p, "HTTP/", 5) != 0) return -1;
  const char *q = scan_int(p + 5, end, major);
  if (!q || q == end || *q != '.') return -1;
  q = scan_int(q + 1, end, minor);
  return q == end ? 0 : -1;
}

/* Request line: method, URI up to the last space, version `HTTP/d.d` (major at most 1). */
static int parse_request_line(const struct line *l, struct request_head *h) {
  const char *sp = memchr(l->p, ' ', l->len);
  if (!sp) return 400;
  const char *uri = sp + 1, *end = l->p + l->len;
  const char *version = NULL;
  for (const char *q = end; q > uri; q--)
    if (q[-1] == ' ') { version = q; break; }
  if (!version || version - 1 == uri) return 400;
  int major, minor;
  if (parse_version(version, (size_t)(end - version), &major, &minor) != 0 || major > 1) return 400;
  h->http10 = major < 1 || (major == 1 && minor == 0);
  memcpy(h->version, "HTTP/1.1", sizeof h->version);
  if (major >= 0 && major <= 9 && minor >= 0 && minor <= 9) h->version[5] = (char)('0' + major), h->version[7] = (char)('0' + minor);
  size_t mlen = (size_t)(sp - l->p);
  if (!method_in(l->p, mlen, KNOWN_METHODS, sizeof KNOWN_METHODS / sizeof *KNOWN_METHODS)) return 501;
  h->head_method = mlen == 4 && memcmp(l->p, "HEAD", 4) == 0;
  h->connect_method = mlen == 7 && memcmp(l->p, "CONNECT", 7) == 0;
  if (h->connect_method) return 501;
  if (major == 1 && minor > 1) h->rewrite = 1;
  if (*uri != '/') {
    /* uWS routes only paths; Core finds no handler for anything else (404). */
    if (!method_in(l->p, mlen, CORE_METHODS, sizeof CORE_METHODS / sizeof *CORE_METHODS)) return 501;
    /* An absolute http(s) URI is a proxy request to libevent: answered, then closed. */
    size_t ulen = (size_t)(version - 1 - uri);
    if ((ulen >= 7 && strncasecmp(uri, "http://", 7) == 0) || (ulen >= 8 && strncasecmp(uri, "https://", 8) == 0)) return 404;
    h->not_a_path = h->rewrite = 1;
  }
  /* A path with spaces in it reaches Core without them (observed of bitcoind v31); uWS
   * reads a request line with more than two spaces as no request at all. */
  if (memchr(uri, ' ', (size_t)(version - 1 - uri))) h->rewrite = 1;
  return 0;
}

void parse_request_head(const char *p, size_t len, struct request_head *h) {
  memset(h, 0, sizeof *h);
  h->content_length = -1;
  struct line l;
  size_t at = next_line(p, len, &l);
  if (l.len > MAX_HEADERS_SIZE) { h->refuse = 400; return; }
  size_t size = l.len;
  h->rewrite = l.bare_lf;
  int status = parse_request_line(&l, h);
  int host = 0, count = 0, previous = 0;
  struct header content_length = {0}, transfer = {0}, connection = {0}, expect = {0};
  int has_cl = 0, has_te = 0, has_conn = 0, has_expect = 0, te_count = 0;
  for (size_t used; (used = next_line(p + at, len - at, &l)) && l.len; at += used) {
    size += l.len;
    if (size > MAX_HEADERS_SIZE) { h->refuse = 400; return; }
    if (l.bare_lf) h->rewrite = 1;
    if (l.p[0] == ' ' || l.p[0] == '\t') {
      if (!previous) { h->refuse = 400; return; }
      h->rewrite = 1;
      continue;
    }
    struct header hd;
    if (split_header(&l, &hd) != 0) { h->refuse = 400; return; }
    previous = 1;
    count++;
    if (is_name(&l, hd.name_len, "host")) host = 1;
    else if (is_name(&l, hd.name_len, "content-length") && !has_cl) content_length = hd, has_cl = 1;
    else if (is_name(&l, hd.name_len, "transfer-encoding") && !te_count++) transfer = hd, has_te = 1;
    else if (is_name(&l, hd.name_len, "connection") && !has_conn) connection = hd, has_conn = 1;
    else if (is_name(&l, hd.name_len, "expect") && !has_expect) expect = hd, has_expect = 1;
  }
  if (status) { h->refuse = status; return; }
  if (!host || h->http10 || count > UWS_HEADER_ROOM) h->rewrite = 1;
  h->keepalive = has_conn && value_is(&connection, "keep-alive");
  /* Observed of bitcoind v31: a Transfer-Encoding with a Content-Length, or twice, is refused. */
  if (te_count > 1 || (has_te && has_cl)) { h->refuse = 400; return; }
  if (has_te) {
    /* Chunked when chunked is the last coding; any other coding leaves no body, and uWS,
     * which would wait for chunks, gets no Transfer-Encoding. */
    size_t i = transfer.value_len;
    while (i > 0 && transfer.value[i - 1] != ',') i--;
    struct header last = {0, transfer.value + i, transfer.value_len - i};
    while (last.value_len && (*last.value == ' ' || *last.value == '\t')) last.value++, last.value_len--;
    h->chunked = value_is(&last, "chunked");
    if (!h->chunked || !value_is(&transfer, "chunked")) h->rewrite = 1;
  } else if (has_cl) {
    if (parse_content_length(&content_length, &h->content_length) != 0) { h->refuse = 400; return; }
    for (size_t i = 0; i < content_length.value_len; i++)
      if (!isdigit((unsigned char)content_length.value[i])) h->odd_length = h->rewrite = 1;
    if (h->content_length == 0) h->content_length = -1;
  }
  int body = h->chunked || h->content_length > 0;
  /* Only HTTP/1.1 requests with a body have their Expect looked at. */
  if (has_expect && body && !h->http10 && !value_is(&expect, "100-continue")) { h->refuse = 417; return; }
  if (has_expect && h->http10) h->rewrite = 1;
  if (has_expect && !h->http10) {
    h->expect_continue = body;
    /* Without a body libevent ignores it. */
    if (!body) h->rewrite = h->drop_expect = 1;
  }
}

static int append(char *out, size_t cap, size_t *at, const char *p, size_t len) {
  if (*at + len > cap) return -1;
  memcpy(out + *at, p, len);
  *at += len;
  return 0;
}

static int kept_when_crowded(const struct line *l, size_t name_len) {
  static const char *const KEPT[] = {"authorization", "content-length", "transfer-encoding", "content-type", "expect", "connection"};
  for (size_t i = 0; i < sizeof KEPT / sizeof *KEPT; i++)
    if (is_name(l, name_len, KEPT[i])) return 1;
  return 0;
}

size_t rebuild_request_head(const char *p, size_t len, const struct request_head *h, char *out, size_t cap) {
  struct line l;
  size_t at = next_line(p, len, &l), n = 0;
  const char *version = l.p + l.len;
  while (version[-1] != ' ') version--;
  int crowded = 0;
  {
    struct line c;
    int count = 0;
    for (size_t i = at, used; (used = next_line(p + i, len - i, &c)) && c.len; i += used)
      if (c.p[0] != ' ' && c.p[0] != '\t') count++;
    crowded = count > UWS_HEADER_ROOM;
  }
  const char *method_end = memchr(l.p, ' ', l.len);
  if (h->not_a_path) {
    if (append(out, cap, &n, l.p, (size_t)(method_end - l.p)) || append(out, cap, &n, " " NOT_A_PATH " ", strlen(NOT_A_PATH) + 2)) return 0;
  } else {
    for (const char *q = l.p; q < version - 1; q++)
      if ((*q != ' ' || q == method_end) && append(out, cap, &n, q, 1)) return 0;
    if (append(out, cap, &n, " ", 1)) return 0;
  }
  if (append(out, cap, &n, "HTTP/1.1\r\nHost: tsbtcd", 22)) return 0;
  int skipping = 0, wrote_length = 0;
  for (size_t used; (used = next_line(p + at, len - at, &l)) && l.len; at += used) {
    if (l.p[0] == ' ' || l.p[0] == '\t') {
      if (skipping) continue;
      /* A continuation joins the previous value (evhttp_append_to_last_header), after one space. */
      size_t i = 0;
      while (i < l.len && (l.p[i] == ' ' || l.p[i] == '\t')) i++;
      if (n && out[n - 1] != ':' && append(out, cap, &n, " ", 1)) return 0;
      if (append(out, cap, &n, l.p + i, l.len - i)) return 0;
      continue;
    }
    struct header hd;
    split_header(&l, &hd);
    int drop = is_name(&l, hd.name_len, "host") || (crowded && !kept_when_crowded(&l, hd.name_len)) ||
               (h->http10 && is_name(&l, hd.name_len, "connection")) ||
               ((h->http10 || h->drop_expect) && is_name(&l, hd.name_len, "expect"));
    if (is_name(&l, hd.name_len, "transfer-encoding")) {
      drop = 1;
      if (h->chunked && append(out, cap, &n, "\r\nTransfer-Encoding: chunked", 28)) return 0;
    }
    if (is_name(&l, hd.name_len, "content-length")) {
      /* uWS reads the first Content-Length as bare digits: it gets the number libevent read. */
      drop = drop || wrote_length;
      if (!drop && h->odd_length) {
        char number[32];
        int k = snprintf(number, sizeof number, "\r\nContent-Length: %lld", h->content_length > 0 ? h->content_length : 0);
        if (append(out, cap, &n, number, (size_t)k)) return 0;
        drop = 1;
      }
      wrote_length = 1;
    }
    /* A dropped header's continuations go with it. */
    skipping = drop;
    if (drop) continue;
    if (append(out, cap, &n, "\r\n", 2) || append(out, cap, &n, l.p, hd.name_len) || append(out, cap, &n, ": ", 2) ||
        append(out, cap, &n, hd.value, hd.value_len))
      return 0;
  }
  if (h->http10) {
    const char *mark = h->keepalive ? "\r\nConnection: " HTTP10_KEEP_ALIVE : "\r\nConnection: close";
    if (append(out, cap, &n, mark, strlen(mark))) return 0;
  }
  if (append(out, cap, &n, "\r\n\r\n", 4)) return 0;
  return n;
}
