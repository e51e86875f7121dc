/**
 * IP networks (-rpcallowip, setban, -whitelist): a single address, `addr/CIDR` or `addr/netmask`, IPv4 or IPv6,
 * no host names (Core's LookupSubNet without lookups). A client matches when its
 * address is of the same family and shares the prefix; IPv4-mapped IPv6 clients count
 * as IPv4, as Core's CNetAddr does.
 */
import * as net from 'node:net';

/** An allowed source network: address bytes (4 or 16) and prefix length. */
export interface SubnetSpec {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

function ipv4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

function ipv6Bytes(text: string): number[] {
  // Expand an embedded IPv4 tail ("::ffff:1.2.3.4") into two groups first.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = ipv4Bytes(v4[1]!);
    text = text.slice(0, v4.index) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const bytes: number[] = [];
  for (const g of [...headGroups, ...fill, ...tailGroups]) {
    const v = parseInt(g, 16);
    bytes.push(v >> 8, v & 0xff);
  }
  return bytes;
}

/** Address text to bytes (4 or 16), or undefined if it is not a numeric address. */
export function addressBytes(text: string): number[] | undefined {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const kind = net.isIP(unbracketed);
  if (kind === 4) return ipv4Bytes(unbracketed);
  if (kind === 6) return ipv6Bytes(unbracketed);
  return undefined;
}

/** Leading one bits of a netmask, or undefined if the ones are not contiguous. */
function maskPrefix(mask: readonly number[]): number | undefined {
  let prefix = 0;
  let ended = false;
  for (const byte of mask) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      if (one && ended) return undefined;
      if (one) prefix++;
      else ended = true;
    }
  }
  return prefix;
}

/** Parses one -rpcallowip value; undefined when invalid. */
export function parseSubnet(text: string): SubnetSpec | undefined {
  const slash = text.indexOf('/');
  const bytes = addressBytes(slash < 0 ? text : text.slice(0, slash));
  if (!bytes) return undefined;
  const bits = bytes.length * 8;
  if (slash < 0) return { bytes, prefix: bits };
  const suffix = text.slice(slash + 1);
  let prefix: number | undefined;
  if (/^\d+$/.test(suffix)) {
    prefix = Number(suffix);
    if (prefix > bits) return undefined;
  } else {
    const mask = addressBytes(suffix);
    if (!mask || mask.length !== bytes.length) return undefined;
    prefix = maskPrefix(mask);
    if (prefix === undefined) return undefined;
  }
  return { bytes, prefix };
}

/** Core's allowed-by-default sources: 127.0.0.0/8 and ::1. */
export const LOOPBACK_SUBNETS: readonly SubnetSpec[] = [
  { bytes: [127, 0, 0, 0], prefix: 8 },
  { bytes: [...new Array<number>(15).fill(0), 1], prefix: 128 },
];

/** Folds an IPv4-mapped IPv6 address (::ffff:a.b.c.d) to its IPv4 bytes. */
export function canonicalAddress(bytes: ArrayLike<number>): ArrayLike<number> {
  if (bytes.length !== 16 || bytes[10] !== 0xff || bytes[11] !== 0xff) return bytes;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return bytes;
  return [bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!];
}

/**
 * True when -rpcallowip lets in every peer the listening sockets can see: a /0 of IPv4
 * when every bind address is IPv4 (such sockets only see IPv4 peers), and of IPv6 too
 * otherwise (IPv4-mapped peers fold to IPv4). Then the check cannot refuse anyone, and
 * the front-end need not ask the kernel for each request's peer.
 */
export function allowsEveryPeer(subnets: readonly SubnetSpec[], bindHosts: readonly string[]): boolean {
  const allowsAll = (family: 4 | 16) => subnets.some((s) => s.bytes.length === family && s.prefix === 0);
  if (!allowsAll(4)) return false;
  return bindHosts.every((host) => addressBytes(host)?.length === 4) || allowsAll(16);
}

export function subnetMatches(subnet: SubnetSpec, address: ArrayLike<number>): boolean {
  if (subnet.bytes.length !== address.length) return false;
  let bits = subnet.prefix;
  for (let i = 0; i < address.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((subnet.bytes[i]! & mask) !== (address[i]! & mask)) return false;
  }
  return true;
}

/** Text form of a client address for log lines (IPv6 in brackets). */
export function formatAddress(bytes: ArrayLike<number>): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  // Compress the longest run of zero groups, as RFC 5952 prints it.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const text = best < 0 ? groups.join(':') : `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
  return `[${text}]`;
}
