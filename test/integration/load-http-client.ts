/**
 * A bare keep-alive HTTP/1.1 client for the load tests and the HTTP benchmark: one TCP
 * connection, JSON-RPC POSTs written straight to the socket (pipelined when several are
 * in flight) and replies parsed by Content-Length, in order. Unlike node:http's Agent it
 * never opens a connection by itself, so a test knows exactly which socket carried which
 * request — and, through /proc, which front-end process accepted that socket.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

export interface RawReply {
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/** Why a request got no HTTP reply: the connection failed under it (reset, closed, refused). */
export class ConnectionFailure extends Error {
  override readonly name = 'ConnectionFailure';
  constructor(
    message: string,
    /** The socket error code (ECONNRESET, EPIPE, ECONNREFUSED) or 'closed' for an orderly close by the server. */
    readonly code: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(reply: RawReply): void;
  reject(err: Error): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class KeepAliveConnection {
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private failure: ConnectionFailure | undefined;
  /** The client-side port: with the server's port it names the connection in /proc/net/tcp. */
  readonly localPort: number;
  /** Requests answered on this connection. */
  answered = 0;

  private constructor(
    private readonly socket: net.Socket,
    private readonly authorization: string,
  ) {
    this.localPort = socket.localPort ?? 0;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => this.fail(new ConnectionFailure(err.message, err.code ?? 'error')));
    socket.on('close', () => this.fail(new ConnectionFailure('connection closed by the server', 'closed')));
  }

  /** Opens a connection to 127.0.0.1:`port`; `auth` is "user:password" (the cookie's text). */
  static open(port: number, auth: string, timeoutMs = 20_000): Promise<KeepAliveConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      const timer = setTimeout(() => socket.destroy(new Error(`connect to port ${port} timed out`)), timeoutMs);
      socket.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new ConnectionFailure(err.message, err.code ?? 'error'));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new KeepAliveConnection(socket, `Basic ${Buffer.from(auth).toString('base64')}`));
      });
    });
  }

  get open(): boolean {
    return this.failure === undefined;
  }

  get inFlight(): number {
    return this.pending.length;
  }

  /** Sends one POST to / with `body`; resolves with the reply, rejects with a ConnectionFailure. */
  post(body: string): Promise<RawReply> {
    if (this.failure) return Promise.reject(this.failure);
    const head =
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${this.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise<RawReply>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.socket.write(head + body);
    });
  }

  /** A JSON-RPC 1.1 call. */
  call(method: string, params: unknown[] = [], id: unknown = 1): Promise<RawReply> {
    return this.post(JSON.stringify({ method, params, id }));
  }

  close(): void {
    this.failure ??= new ConnectionFailure('closed by the client', 'closed');
    this.socket.destroy();
  }

  private fail(failure: ConnectionFailure): void {
    this.failure ??= failure;
    for (const p of this.pending.splice(0)) p.reject(this.failure);
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf(HEADER_END);
      if (end < 0) return;
      const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get('content-length'));
      if (!Number.isInteger(status) || !Number.isSafeInteger(length) || headers.has('transfer-encoding')) {
        this.fail(new ConnectionFailure(`unparsable reply: ${JSON.stringify(lines.join('\n').slice(0, 200))}`, 'EPROTO'));
        this.socket.destroy();
        return;
      }
      const total = end + HEADER_END.length + length;
      if (this.buffer.length < total) return;
      const body = this.buffer.subarray(end + HEADER_END.length, total).toString('utf8');
      this.buffer = this.buffer.subarray(total);
      const p = this.pending.shift();
      if (!p) {
        this.fail(new ConnectionFailure('a reply nobody asked for', 'EPROTO'));
        this.socket.destroy();
        return;
      }
      this.answered++;
      p.resolve({ status, headers, body });
    }
  }
}

/**
 * Which process accepted each connection to 127.0.0.1:`serverPort`, by client port: the
 * server-side sockets of /proc/net/tcp (local port = serverPort) matched by inode against
 * the socket descriptors of `pids`. A client port missing from the map is a connection
 * no process has accepted (still in a listen queue) or one already closed.
 */
export function acceptingPids(serverPort: number, pids: readonly number[]): Map<number, number> {
  const inodeToPid = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m) inodeToPid.set(m[1]!, pid);
    }
  }
  const byClientPort = new Map<number, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const localPort = parseInt(f[1]!.split(':')[1]!, 16);
      const remotePort = parseInt(f[2]!.split(':')[1]!, 16);
      const pid = inodeToPid.get(f[9]!);
      if (localPort === serverPort && pid !== undefined) byClientPort.set(remotePort, pid);
    }
  }
  return byClientPort;
}

/** The soft limit on open files of this process (from /proc/self/limits). */
export function openFileLimit(): number {
  const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === 'unlimited' ? Infinity : Number(soft);
}
