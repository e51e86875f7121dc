/**
 * Outbound connections through a SOCKS5 proxy (-proxy), as Core's Socks5() does it
 * (RFC 1928 and RFC 1929): offer "no authentication" and, when credentials are given,
 * username/password; then CONNECT to the destination named as a domain (address type 3,
 * even for numeric addresses, so the proxy resolves names). With -proxyrandomize (the
 * default) every connection gets its own credentials, which Tor uses to isolate streams.
 */
import { randomBytes } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';

export interface ProxyCredentials {
  readonly username: string;
  readonly password: string;
}

const SOCKS_VERSION = 0x05;
const METHOD_NO_AUTH = 0x00;
const METHOD_USER_PASS = 0x02;
const CMD_CONNECT = 0x01;
const ATYP_IPV4 = 0x01;
const ATYP_DOMAINNAME = 0x03;
const ATYP_IPV6 = 0x04;

/** Core's Socks5ErrorString. */
const REPLY_TEXT: Record<number, string> = {
  0x01: 'general failure',
  0x02: 'connection not allowed',
  0x03: 'network unreachable',
  0x04: 'host unreachable',
  0x05: 'connection refused',
  0x06: 'TTL expired',
  0x07: 'protocol error',
  0x08: 'address type not supported',
};

let counter = 0;
const prefix = randomBytes(8).toString('hex');

/** Fresh credentials for one connection (Core's randomized proxy credentials). */
export function randomProxyCredentials(): ProxyCredentials {
  const name = `${prefix}${counter++}`;
  return { username: name, password: name };
}

/** Reads exactly `n` bytes from a socket in paused mode (what follows stays buffered for the P2P stream). */
function readExactly(socket: Socket, n: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error('SOCKS5 proxy did not answer in time')), timeoutMs);
    const tryRead = (): void => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk) finish(undefined, chunk);
    };
    const onEnd = (): void => finish(new Error('SOCKS5 proxy closed the connection'));
    const onError = (err: Error): void => finish(err);
    function finish(err: Error | undefined, data?: Buffer): void {
      clearTimeout(timer);
      socket.off('readable', tryRead);
      socket.off('end', onEnd);
      socket.off('error', onError);
      if (err) reject(err);
      else resolve(data!);
    }
    socket.on('readable', tryRead);
    socket.once('end', onEnd);
    socket.once('error', onError);
    tryRead();
  });
}

/**
 * Connects to `host:port` through the SOCKS5 proxy at `proxy`; resolves to the socket,
 * ready for the P2P stream, or rejects with the reason (Core's wording where it has one).
 */
export async function socks5Connect(
  proxy: { host: string; port: number },
  host: string,
  port: number,
  credentials: ProxyCredentials | undefined,
  timeoutMs: number,
): Promise<Socket> {
  if (host.length > 255) throw new Error('Hostname too long');
  const socket = netConnect({ host: proxy.host, port: proxy.port, noDelay: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`connection to proxy ${proxy.host}:${proxy.port} timed out`)), timeoutMs);
      socket.once('connect', () => (clearTimeout(timer), resolve()));
      socket.once('error', (err) => (clearTimeout(timer), reject(err)));
    });
    socket.write(credentials ? Buffer.of(SOCKS_VERSION, 2, METHOD_NO_AUTH, METHOD_USER_PASS) : Buffer.of(SOCKS_VERSION, 1, METHOD_NO_AUTH));
    const method = await readExactly(socket, 2, timeoutMs);
    if (method[0] !== SOCKS_VERSION) throw new Error('Proxy failed to initialize');
    if (method[1] === METHOD_USER_PASS && credentials) {
      const user = Buffer.from(credentials.username);
      const pass = Buffer.from(credentials.password);
      if (user.length > 255 || pass.length > 255) throw new Error('Proxy username or password too long');
      socket.write(Buffer.concat([Buffer.of(0x01, user.length), user, Buffer.of(pass.length), pass]));
      const auth = await readExactly(socket, 2, timeoutMs);
      if (auth[0] !== 0x01 || auth[1] !== 0x00) throw new Error('Proxy authentication unsuccessful');
    } else if (method[1] !== METHOD_NO_AUTH) {
      throw new Error('Proxy requested wrong authentication method');
    }
    const name = Buffer.from(host);
    socket.write(Buffer.concat([Buffer.of(SOCKS_VERSION, CMD_CONNECT, 0x00, ATYP_DOMAINNAME, name.length), name, Buffer.of(port >> 8, port & 0xff)]));
    const head = await readExactly(socket, 4, timeoutMs);
    if (head[0] !== SOCKS_VERSION) throw new Error('Proxy failed to accept request');
    if (head[1] !== 0x00) throw new Error(`Proxy error: ${REPLY_TEXT[head[1]!] ?? 'unknown'}`);
    if (head[2] !== 0x00) throw new Error('Error: malformed proxy response');
    // The bound address that follows is read and ignored, as Core does.
    const atyp = head[3];
    let length: number;
    if (atyp === ATYP_IPV4) length = 4;
    else if (atyp === ATYP_IPV6) length = 16;
    else if (atyp === ATYP_DOMAINNAME) length = (await readExactly(socket, 1, timeoutMs))[0]!;
    else throw new Error('Error: malformed proxy response');
    await readExactly(socket, length + 2, timeoutMs);
    // Left in paused mode: whoever takes the stream resumes it once its listeners are on.
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  }
}
