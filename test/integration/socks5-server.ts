/**
 * A minimal SOCKS5 proxy for tests (RFC 1928 CONNECT with no-auth or RFC 1929
 * username/password): it records every CONNECT request and relays the bytes. Started with
 * `refuse`, it records the request and answers "connection not allowed by ruleset" without
 * connecting anywhere (for nodes given public addresses, such as the fixed seeds). With
 * `routes`, destinations are looked up there and relayed to a local port instead (so a
 * node can make "automatic" connections to routable addresses that are really scripted
 * peers on this machine); a destination without a route is refused, never dialed.
 */
import * as net from 'node:net';

export interface ProxiedConnect {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
}

export class Socks5Server {
  readonly connects: ProxiedConnect[] = [];
  readonly #sockets = new Set<net.Socket>();
  private constructor(
    readonly server: net.Server,
    readonly port: number,
    private readonly refuse: boolean,
    /** "host:port" → the local port to relay to (undefined: connect to the destination itself). */
    readonly routes: Map<string, number> | undefined,
  ) {}

  static async start(options: { refuse?: boolean; routes?: Map<string, number> } = {}): Promise<Socks5Server> {
    let self!: Socks5Server;
    const server = net.createServer((client) => {
      self.#sockets.add(client);
      client.once('close', () => self.#sockets.delete(client));
      // A client that resets mid-handshake is just gone.
      client.on('error', () => client.destroy());
      void self.#serve(client).catch(() => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new Socks5Server(server, (server.address() as net.AddressInfo).port, options.refuse ?? false, options.routes);
    return self;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async #serve(client: net.Socket): Promise<void> {
    let buffered = Buffer.alloc(0);
    const read = async (n: number): Promise<Buffer> => {
      while (buffered.length < n) {
        const chunk = await new Promise<Buffer>((resolve, reject) => {
          client.once('data', resolve);
          client.once('close', () => reject(new Error('closed')));
        });
        buffered = Buffer.concat([buffered, chunk]);
      }
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return out;
    };
    const [, count] = await read(2);
    const methods = await read(count!);
    let username: string | undefined;
    if (methods.includes(2)) {
      client.write(Buffer.of(5, 2));
      const [, ulen] = await read(2);
      username = (await read(ulen!)).toString();
      const [plen] = await read(1);
      await read(plen!);
      client.write(Buffer.of(1, 0));
    } else {
      client.write(Buffer.of(5, 0));
    }
    const [, , , atyp] = await read(4);
    if (atyp !== 3) throw new Error('only domain names here');
    const [len] = await read(1);
    const host = (await read(len!)).toString();
    const portBytes = await read(2);
    const port = (portBytes[0]! << 8) | portBytes[1]!;
    this.connects.push({ host, port, ...(username !== undefined ? { username } : {}) });
    if (this.refuse) {
      client.end(Buffer.of(5, 2, 0, 1, 0, 0, 0, 0, 0, 0));
      return;
    }
    let target = { host, port };
    if (this.routes) {
      const local = this.routes.get(`${host}:${port}`);
      if (local === undefined) {
        // Not ours to reach: "connection refused" (RFC 1928 reply 5).
        client.end(Buffer.of(5, 5, 0, 1, 0, 0, 0, 0, 0, 0));
        return;
      }
      target = { host: '127.0.0.1', port: local };
    }
    const upstream = net.connect(target.port, target.host);
    await new Promise<void>((resolve, reject) => upstream.once('connect', resolve).once('error', reject));
    client.write(Buffer.of(5, 0, 0, 1, 127, 0, 0, 1, 0, 0));
    if (buffered.length > 0) upstream.write(buffered);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  }

  close(): void {
    this.server.close();
    for (const s of this.#sockets) s.destroy();
  }
}
