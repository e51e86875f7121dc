/**
 * HTTP replies shaped like Core's (libevent's): status lines with the standard reasons,
 * `text/html; charset=ISO-8859-1` on replies Core sends without a type, libevent's HTML
 * error page for 400/413/501/503, `Connection: close` when the connection is to end.
 * uWS adds `Date`, `Content-Length` and its own `uWebSockets: 20` header.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { takeReplyBuffer } from './reply-buffers.js';

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Request Entity Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export const LIBEVENT_DEFAULT_TYPE = 'text/html; charset=ISO-8859-1';

export interface Reply {
  readonly status: number;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Uint8Array;
  /** Content-Type; Core's plain replies get libevent's default. */
  readonly contentType?: string;
  readonly close?: boolean;
  /** A large body written chunk by chunk with backpressure instead of `body`. */
  readonly writer?: BodyWriter;
  /** Called once `body` has been handed to uWS, or dropped (a ReplyBuffer's release). */
  readonly release?: () => void;
}

/**
 * A body the response writes itself (large REST bodies): sendReply writes the status line
 * and headers, then hands the response to start(), which must call `finished` exactly once,
 * when the last byte is out or after abort(). uWS writes Content-Length from `size`.
 */
export interface BodyWriter {
  readonly size: number;
  start(res: HttpResponse, finished: () => void): void;
  /** The client went away (uWS onAborted): stop writing and release the body. */
  abort(): void;
}

export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Unknown'}`;
}

/**
 * Writes a reply; the caller corks when writing outside the request callback.
 * `requestAskedClose`: the request carried `Connection: close` (echoed, as libevent does).
 * uWS itself writes `Connection: close` when it closes a connection the client did not
 * ask to close, so the header is written here only in the other case.
 */
export function sendReply(res: HttpResponse, reply: Reply, requestAskedClose = false, writerFinished: () => void = () => undefined): void {
  // uWS writes "200 OK" itself when no status is set: one native call fewer per reply.
  if (reply.status !== 200) res.writeStatus(statusLine(reply.status));
  for (const [k, v] of reply.headers ?? []) res.writeHeader(k, v);
  if (requestAskedClose) res.writeHeader('Connection', 'close');
  if (reply.status === 204) {
    // Without arguments uWS writes no Content-Length, as libevent does for 204 (any
    // argument makes it write one); it still closes when the request asked for that.
    res.endWithoutBody();
    reply.release?.();
    return;
  }
  res.writeHeader('Content-Type', reply.contentType ?? LIBEVENT_DEFAULT_TYPE);
  if (reply.writer) {
    // A streamed body cannot ask uWS to close the connection at its end: the header says
    // so and the client, which reads to Content-Length, closes it.
    if (reply.close === true && !requestAskedClose) res.writeHeader('Connection', 'close');
    reply.writer.start(res, writerFinished);
    return;
  }
  res.end(reply.body ?? '', reply.close === true || requestAskedClose);
  // uWS has written the body or copied what the socket did not take.
  reply.release?.();
}

/** libevent's own error page (malformed request, too large, method unknown to it, shutting down). */
export function libeventErrorPage(status: 400 | 413 | 501 | 503): Reply {
  const reason = REASONS[status]!;
  return {
    status,
    contentType: 'text/html',
    close: true,
    body: `<HTML><HEAD>\n<TITLE>${status} ${reason}</TITLE>\n</HEAD><BODY>\n<H1>${reason}</H1>\n</BODY></HTML>\n`,
  };
}

/** From this many characters on, textPiecesReply writes the pieces into a reply buffer. */
const LARGE_TEXT_CHARS = 64 * 1024;

/**
 * A text body given as pieces (a result and its envelope). Large ones are written as UTF-8
 * into a reused reply buffer: concatenated, V8 had to flatten the pieces into one new
 * string (fresh pages for every reply) and uWS then measured and converted it again, two
 * thirds of a getblock verbosity 0 reply's time. Small ones are joined, which costs less.
 */
export function textPiecesReply(status: number, contentType: string, pieces: readonly string[]): Reply {
  let chars = 0;
  for (const piece of pieces) chars += piece.length;
  if (chars < LARGE_TEXT_CHARS) return { status, contentType, body: pieces.join('') };
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8');
  const out = takeReplyBuffer(size);
  let at = 0;
  for (const piece of pieces) at += out.bytes.write(piece, at, 'utf8');
  return { status, contentType, body: out.bytes, release: out.release };
}

export function jsonReply(status: number, json: string, close = false): Reply {
  return { status, contentType: 'application/json', body: `${json}\n`, close };
}

export function emptyReply(status: number, close = false, headers?: readonly (readonly [string, string])[]): Reply {
  return headers ? { status, close, headers } : { status, close };
}
