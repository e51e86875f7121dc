/**
 * Peer addresses as the RPCs show them (Core's CService::ToStringAddrPort and
 * CNetAddr::GetNetClass): "1.2.3.4:8333" or "[::1]:8333", and the network class —
 * "not_publicly_routable" for loopback, private and other reserved ranges.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Node reports IPv4 peers on a dual-stack socket as ::ffff:a.b.c.d. */
export function plainIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
}

export function formatAddrPort(ip: string, port: number): string {
  const plain = plainIp(ip);
  return isIPv6(plain) ? `[${plain}]:${port}` : `${plain}:${port}`;
}

function ipv4Routable(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  if (a === 0 || a === 10 || a === 127) return false; // RFC1918 10/8, loopback, "this network"
  if (a === 192 && b === 168) return false; // RFC1918
  if (a === 172 && b >= 16 && b <= 31) return false; // RFC1918
  if (a === 169 && b === 254) return false; // RFC3927 link-local
  if (a === 100 && b >= 64 && b <= 127) return false; // RFC6598 shared space
  if (a === 198 && (b === 18 || b === 19)) return false; // RFC2544 benchmarking
  if (a >= 240) return false; // RFC1112 reserved, broadcast
  return true;
}

function ipv6Routable(ip: string): boolean {
  const lower = ip.toLowerCase();
  if (lower === '::' || lower === '::1') return false;
  if (/^fe[89ab]/.test(lower)) return false; // RFC4862 link-local
  if (/^f[cd]/.test(lower)) return false; // RFC4193 unique local
  if (lower.startsWith('2001:db8') || lower.startsWith('2001:0db8')) return false; // RFC3849 documentation
  return true;
}

/** Core's GetNetworkName of GetNetClass for an IP peer. */
export function networkClass(ip: string): 'ipv4' | 'ipv6' | 'not_publicly_routable' {
  const plain = plainIp(ip);
  if (isIPv4(plain)) return ipv4Routable(plain) ? 'ipv4' : 'not_publicly_routable';
  return ipv6Routable(plain) ? 'ipv6' : 'not_publicly_routable';
}

/** "host:port", "[v6]:port" or a bare host, resolved against a default port (Core's SplitHostPort). */
export function splitHostPort(text: string, defaultPort: number): { host: string; port: number } | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2] === undefined ? defaultPort : Number(bracketed[2]) };
  const colon = text.lastIndexOf(':');
  // More than one colon without brackets is a bare IPv6 address.
  if (colon > 0 && text.indexOf(':') === colon) {
    const port = text.slice(colon + 1);
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return null;
    return { host: text.slice(0, colon), port: Number(port) };
  }
  if (text === '') return null;
  return { host: text, port: defaultPort };
}
