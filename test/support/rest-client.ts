/**
 * A raw HTTP client for REST tests: bodies as bytes, headers in wire order, any method,
 * a request target sent exactly as given (no normalisation), and Core's RPC results as
 * the exact text the node wrote (for byte comparisons with REST bodies).
 */
import * as http from 'node:http';
import * as net from 'node:net';

export interface RestResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
  readonly text: string;
}

export interface RestRequestOptions {
  readonly method?: string;
  readonly body?: Uint8Array | string;
  readonly agent?: http.Agent;
  readonly headers?: Record<string, string>;
}

export function restRequest(port: number, target: string, opts: RestRequestOptions = {}): Promise<RestResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: target, agent: opts.agent ?? false, headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body, text: body.toString('latin1') });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`REST request ${target} timed out`)));
    req.end(opts.body === undefined ? undefined : Buffer.from(opts.body));
  });
}

/**
 * Sends `request` bytes as they are over a new connection and collects the reply until the
 * server closes or `idleMs` pass without data (for targets http.request would reject).
 */
export function rawExchange(port: number, request: string, idleMs = 300): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks));
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(done, idleMs);
    };
    socket.on('connect', () => {
      socket.write(request, 'latin1');
      arm();
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      arm();
    });
    socket.on('end', done);
    socket.on('error', reject);
  });
}

/** The `result` of a JSON-RPC 1.1 reply exactly as written: `{"result":<text>,"error":null,"id":1}`. */
export function rawResult(body: string): string {
  const prefix = '{"result":';
  const suffix = ',"error":null,"id":1}\n';
  if (!body.startsWith(prefix) || !body.endsWith(suffix)) throw new Error(`not a successful JSON-RPC reply: ${body.slice(0, 300)}`);
  return body.slice(prefix.length, body.length - suffix.length);
}
