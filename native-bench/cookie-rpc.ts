/**
 * JSON-RPC to a local daemon (tsbtcd or bitcoind) as harnesses talk to it: the cookie from
 * the network folder of its data directory, HTTP Basic auth, one connection per call (no
 * keep-alive, so a stopping daemon is never held up by an idle connection of ours).
 */
import { readFileSync } from 'node:fs';
import * as http from 'node:http';

/** A call the daemon answered with a JSON-RPC error (for example -28 while warming up). */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: error ${code}: ${message}`);
  }
}

/** Whether `err` means nobody answered: the daemon is not listening yet, or went away. */
export function isUnreachable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ENOENT' || (err as Error | undefined)?.message === 'socket hang up';
}

export class CookieRpc {
  constructor(
    readonly port: number,
    /** The .cookie file; read on every call because it only appears once the server is up. */
    readonly cookieFile: string,
  ) {}

  /** `path`: `/wallet/<name>` for a call on one wallet. */
  call<T = unknown>(method: string, params: unknown[] = [], timeoutMs = 600_000, path = '/'): Promise<T> {
    const auth = Buffer.from(readFileSync(this.cookieFile, 'utf8').trim()).toString('base64');
    const body = JSON.stringify({ jsonrpc: '1.0', id: method, method, params });
    return new Promise<T>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: this.port, method: 'POST', path, agent: false, headers: { Authorization: `Basic ${auth}`, 'Content-Type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let reply: { result?: T; error?: { code: number; message: string } | null };
            try {
              reply = JSON.parse(text);
            } catch {
              return reject(new Error(`${method}: HTTP ${res.statusCode}, not JSON: ${text.slice(0, 200)}`));
            }
            if (reply.error) return reject(new RpcError(method, reply.error.code, reply.error.message));
            resolve(reply.result as T);
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method}: no answer within ${timeoutMs} ms`)));
      req.end(body);
    });
  }
}
