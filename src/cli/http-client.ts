/**
 * One JSON-RPC POST over node:http, as bitcoin-cli sends it through libevent: a fresh
 * connection per request (`Connection: close`), `Host` without the port, and a timeout
 * on connection inactivity. Failures are reported with libevent's request-error codes so
 * the client can word them as Core does.
 */
import * as http from 'node:http';

/** libevent's evhttp_request_error values that bitcoin-cli prints. */
export const HTTP_ERROR = { TIMEOUT: 0, EOF: 1, INVALID_HEADER: 2, BUFFER_ERROR: 3, REQUEST_CANCEL: 4, DATA_TOO_LONG: 5 } as const;

/** http_errorstring() in bitcoin-cli.cpp. */
export function httpErrorString(code: number): string {
  switch (code) {
    case HTTP_ERROR.TIMEOUT:
      return 'timeout reached';
    case HTTP_ERROR.EOF:
      return 'EOF reached';
    case HTTP_ERROR.INVALID_HEADER:
      return 'error while reading header, or invalid header';
    case HTTP_ERROR.BUFFER_ERROR:
      return 'error encountered while reading or writing';
    case HTTP_ERROR.REQUEST_CANCEL:
      return 'request was canceled';
    case HTTP_ERROR.DATA_TOO_LONG:
      return 'response body is larger than allowed';
    default:
      return 'unknown';
  }
}

export interface HttpPost {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Inactivity timeout in milliseconds; 0 for none. */
  readonly timeoutMs: number;
}

export interface HttpReply {
  readonly status: number;
  readonly body: string;
}

/**
 * No reply at all: the connection failed or broke. `code` is the libevent request error
 * when libevent would report one (timeout, EOF, bad header), -1 when it reports none
 * (connection refused, name not resolved).
 */
export class HttpTransportError extends Error {
  override readonly name = 'HttpTransportError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export type Transport = (request: HttpPost) => Promise<HttpReply>;

const MAX_TIMER_MS = 2 ** 31 - 1;

/** The libevent error a Node socket/parser error corresponds to. */
function libeventCode(err: NodeJS.ErrnoException): number {
  if (err.code === 'ECONNRESET' || err.message === 'socket hang up') return HTTP_ERROR.EOF;
  if (typeof err.code === 'string' && err.code.startsWith('HPE_')) return HTTP_ERROR.INVALID_HEADER;
  return -1;
}

/** The real transport. */
export const nodeHttpTransport: Transport = (request) =>
  new Promise((resolve, reject) => {
    let settled = false;
    const fail = (code: number, message: string) => {
      if (settled) return;
      settled = true;
      reject(new HttpTransportError(code, message));
    };
    const req = http.request(
      {
        host: request.host,
        port: request.port,
        method: 'POST',
        path: request.path,
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        agent: false,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err: NodeJS.ErrnoException) => fail(libeventCode(err), err.message));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    if (request.timeoutMs > 0) {
      // Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer wait is no timeout.
      req.setTimeout(Math.min(request.timeoutMs, MAX_TIMER_MS), () => {
        fail(HTTP_ERROR.TIMEOUT, 'timeout');
        req.destroy();
      });
    }
    req.on('error', (err: NodeJS.ErrnoException) => fail(libeventCode(err), err.message));
    req.end(request.body);
  });
