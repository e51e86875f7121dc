/**
 * Raw bytes to an HTTP server and what came back, for comparing tsbtcd's HTTP layer with
 * bitcoind's (libevent's): one TCP connection per exchange, the request written in parts
 * (a number between parts is a pause in ms), every byte read until the server has been
 * quiet for a while, and whether the server ended the connection.
 */
import * as net from 'node:net';

/** Strings are written as latin1 bytes; numbers are pauses in milliseconds. */
export type RawPart = string | number;

export interface RawExchange {
  /** The replies, one line each for status, sorted headers and body (see describeReplies). */
  readonly replies: string;
  /** 'open', 'closed' (FIN) or the socket error code. */
  readonly connection: string;
}

/**
 * Sends `parts` and waits until nothing has arrived for `quietMs` after the last part (or
 * until the server closed), and at least `minMs` in all.
 */
export function exchange(port: number, parts: readonly RawPart[], opts: { quietMs?: number; minMs?: number } = {}): Promise<RawExchange> {
  const quietMs = opts.quietMs ?? 400;
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let connection = 'open';
    let written = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ replies: describeReplies(Buffer.concat(chunks).toString('latin1')), connection });
    };
    const settle = (): void => {
      clearTimeout(timer);
      if (!written) return;
      if (connection !== 'open') return finish();
      timer = setTimeout(finish, Math.max(quietMs, (opts.minMs ?? 0) - (Date.now() - started)));
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      settle();
    });
    socket.on('end', () => {
      connection = 'closed';
      settle();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      connection = err.code ?? 'error';
      settle();
    });
    socket.on('connect', async () => {
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else if (!socket.destroyed) socket.write(Buffer.from(part, 'latin1'));
      }
      written = true;
      settle();
    });
  });
}

/**
 * The replies in `text`, one block each: the status line, the header lines sorted (Date's
 * value left out), and the body, delimited by Content-Length when there is one, else to the end.
 */
export function describeReplies(text: string): string {
  const out: string[] = [];
  // Also inside a body read to the end (a reply without Content-Length, then another).
  let rest = text.replace(/^Date: .*\r$/gim, 'Date: (now)\r');
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) {
      out.push(`TRAILING ${JSON.stringify(rest)}`);
      break;
    }
    const lines = rest.slice(0, end).split('\r\n');
    const status = lines.shift()!;
    const headers = lines;
    const length = headers.find((l) => /^content-length:/i.test(l));
    const interim = / 1\d\d /.test(`${status} `);
    const size = length ? Number(length.slice(length.indexOf(':') + 1)) : interim ? 0 : rest.length;
    const body = rest.slice(end + 4, end + 4 + size);
    out.push([status, ...headers.sort().map((h) => `  ${h}`), `  body ${JSON.stringify(body)}`].join('\n'));
    rest = rest.slice(end + 4 + size);
  }
  return out.join('\n');
}
