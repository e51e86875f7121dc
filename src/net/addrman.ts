/**
 * Core's address manager (addrman.cpp, addrman_impl.h, v31.0): 1024 "new" buckets of
 * addresses heard about and 256 "tried" buckets of addresses connected to, 64 slots each,
 * with bucket and slot chosen by keyed hashes of the address, its network group and the
 * group of whoever told us about it, so that no one source can fill the tables. Pure and
 * synchronous; the clock and the random source are parameters.
 *
 * Also here, because the tables depend on them: Core's view of a network address
 * (CNetAddr's classification, GetNetClass, NetGroupManager::GetGroup without an asmap,
 * ToStringAddr), Core's FastRandomContext (ChaCha20 keystream, RandomMixin's randbits and
 * randrange) so that a deterministic addrman makes Core's choices, and the AddrMan
 * serialization that peers.dat carries (addrman-file.ts adds the file's framing).
 *
 * Addresses come and go as PeerAddress (BIP155 network ids, as on the wire). Inside they
 * are held as Core holds them: its Network enum and the bytes of m_addr, where an
 * "internal" name (the source of DNS-seed results) is a 10-byte hash and an IPv6 address
 * that BIP155 forbids (embedded IPv4 or TORv2) is the invalid [::].
 */
import { createCipheriv, randomBytes, type Cipher } from 'node:crypto';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { ByteReader, ByteWriter, bytesEqual, DecodeError, sha256, sha256d, toHex } from '../primitives/index.js';
import { BIP155_NETWORK, type PeerAddress } from './addresses.js';

// ---------------------------------------------------------------------------------------
// Networks and addresses (netaddress.h/.cpp)

/** Core's enum Network. */
export const NET_UNROUTABLE: Network = 0;
export const NET_IPV4: Network = 1;
export const NET_IPV6: Network = 2;
export const NET_ONION: Network = 3;
export const NET_I2P: Network = 4;
export const NET_CJDNS: Network = 5;
export const NET_INTERNAL: Network = 6;
export type Network = 0 | 1 | 2 | 3 | 4 | 5 | 6;

const NETWORK_NAME: readonly string[] = ['not_publicly_routable', 'ipv4', 'ipv6', 'onion', 'i2p', 'cjdns', 'internal'];

/** Core's GetNetworkName. */
export function networkName(net: Network): string {
  return NETWORK_NAME[net]!;
}

/** Core's ParseNetwork: "ipv4", "ipv6", "onion", "i2p", "cjdns" (any ASCII case); anything else is undefined. */
export function parseNetworkName(name: string): Network | undefined {
  const lower = name.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const at = ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'].indexOf(lower);
  return at < 0 ? undefined : ((at + 1) as Network);
}

/** An address without a port, as BIP155 names it (PeerAddress's network and address). */
export interface NetAddress {
  readonly network: number;
  readonly address: Uint8Array;
}

/** An address and port (Core's CService). */
export interface ServiceAddress extends NetAddress {
  readonly port: number;
}

/** An address as Core's CNetAddr holds it: m_net and m_addr. */
interface CoreAddr {
  readonly net: Network;
  readonly bytes: Uint8Array;
}

const IPV4_IN_IPV6_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff);
const TORV2_IN_IPV6_PREFIX = Uint8Array.of(0xfd, 0x87, 0xd8, 0x7e, 0xeb, 0x43);
const INTERNAL_IN_IPV6_PREFIX = Uint8Array.of(0xfd, 0x6b, 0x88, 0xc0, 0x87, 0x24);
const ADDR_INTERNAL_SIZE = 10;
/** The invalid address a default CNetAddr is (IPv6 ::). */
const INVALID: CoreAddr = { net: NET_IPV6, bytes: new Uint8Array(16) };

function hasPrefix(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Core's CNetAddr::SetLegacyIPv6: the 16 bytes of an addr (v1) address. */
function fromLegacyIpv6(ip: Uint8Array): CoreAddr {
  if (hasPrefix(ip, IPV4_IN_IPV6_PREFIX)) return { net: NET_IPV4, bytes: ip.slice(12, 16) };
  // TORv2 is no longer supported: Core reads it as the invalid [::].
  if (hasPrefix(ip, TORV2_IN_IPV6_PREFIX)) return INVALID;
  if (hasPrefix(ip, INTERNAL_IN_IPV6_PREFIX)) return { net: NET_INTERNAL, bytes: ip.slice(6, 16) };
  return { net: NET_IPV6, bytes: ip.slice() };
}

/**
 * A BIP155 address as Core's CNetAddr::UnserializeV2Stream leaves it. Unknown networks,
 * TORv2 and wrong lengths become the invalid [::] (the stream decoders refuse wrong
 * lengths before they get here).
 */
function fromBip155(a: NetAddress): CoreAddr {
  const { network, address } = a;
  switch (network) {
    case BIP155_NETWORK.IPV4:
      return address.length === 4 ? { net: NET_IPV4, bytes: address.slice() } : INVALID;
    case BIP155_NETWORK.IPV6:
      if (address.length !== 16) return INVALID;
      if (hasPrefix(address, INTERNAL_IN_IPV6_PREFIX)) return { net: NET_INTERNAL, bytes: address.slice(6, 16) };
      // IPv4 and TORv2 are not to be embedded in IPv6 in BIP155: read as invalid.
      if (hasPrefix(address, IPV4_IN_IPV6_PREFIX) || hasPrefix(address, TORV2_IN_IPV6_PREFIX)) return INVALID;
      return { net: NET_IPV6, bytes: address.slice() };
    case BIP155_NETWORK.TORV3:
      return address.length === 32 ? { net: NET_ONION, bytes: address.slice() } : INVALID;
    case BIP155_NETWORK.I2P:
      return address.length === 32 ? { net: NET_I2P, bytes: address.slice() } : INVALID;
    case BIP155_NETWORK.CJDNS:
      return address.length === 16 ? { net: NET_CJDNS, bytes: address.slice() } : INVALID;
    default:
      return INVALID;
  }
}

/** BIP155 network id and bytes, as Core's SerializeV2Stream writes (internal as IPv6 with its prefix). */
function toBip155(a: CoreAddr): { network: number; address: Uint8Array } {
  switch (a.net) {
    case NET_IPV4:
      return { network: BIP155_NETWORK.IPV4, address: a.bytes.slice() };
    case NET_ONION:
      return { network: BIP155_NETWORK.TORV3, address: a.bytes.slice() };
    case NET_I2P:
      return { network: BIP155_NETWORK.I2P, address: a.bytes.slice() };
    case NET_CJDNS:
      return { network: BIP155_NETWORK.CJDNS, address: a.bytes.slice() };
    case NET_INTERNAL: {
      const out = new Uint8Array(16);
      out.set(INTERNAL_IN_IPV6_PREFIX);
      out.set(a.bytes, 6);
      return { network: BIP155_NETWORK.IPV6, address: out };
    }
    default:
      return { network: BIP155_NETWORK.IPV6, address: a.bytes.slice() };
  }
}

const isIPv4 = (a: CoreAddr) => a.net === NET_IPV4;
const isIPv6 = (a: CoreAddr) => a.net === NET_IPV6;
const isRFC1918 = (a: CoreAddr) => isIPv4(a) && (a.bytes[0] === 10 || (a.bytes[0] === 192 && a.bytes[1] === 168) || (a.bytes[0] === 172 && a.bytes[1]! >= 16 && a.bytes[1]! <= 31));
const isRFC2544 = (a: CoreAddr) => isIPv4(a) && a.bytes[0] === 198 && (a.bytes[1] === 18 || a.bytes[1] === 19);
const isRFC3927 = (a: CoreAddr) => isIPv4(a) && a.bytes[0] === 169 && a.bytes[1] === 254;
const isRFC6598 = (a: CoreAddr) => isIPv4(a) && a.bytes[0] === 100 && a.bytes[1]! >= 64 && a.bytes[1]! <= 127;
const isRFC5737 = (a: CoreAddr) =>
  isIPv4(a) && ((a.bytes[0] === 192 && a.bytes[1] === 0 && a.bytes[2] === 2) || (a.bytes[0] === 198 && a.bytes[1] === 51 && a.bytes[2] === 100) || (a.bytes[0] === 203 && a.bytes[1] === 0 && a.bytes[2] === 113));
const isRFC3849 = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x01 && a.bytes[2] === 0x0d && a.bytes[3] === 0xb8;
const isRFC3964 = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x02;
const RFC6052_PREFIX = Uint8Array.of(0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0);
const isRFC6052 = (a: CoreAddr) => isIPv6(a) && hasPrefix(a.bytes, RFC6052_PREFIX);
const isRFC4380 = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x01 && a.bytes[2] === 0 && a.bytes[3] === 0;
const RFC4862_PREFIX = Uint8Array.of(0xfe, 0x80, 0, 0, 0, 0, 0, 0);
const isRFC4862 = (a: CoreAddr) => isIPv6(a) && hasPrefix(a.bytes, RFC4862_PREFIX);
const isRFC4193 = (a: CoreAddr) => isIPv6(a) && (a.bytes[0]! & 0xfe) === 0xfc;
const RFC6145_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0);
const isRFC6145 = (a: CoreAddr) => isIPv6(a) && hasPrefix(a.bytes, RFC6145_PREFIX);
const isRFC4843 = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x01 && a.bytes[2] === 0x00 && (a.bytes[3]! & 0xf0) === 0x10;
const isRFC7343 = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x01 && a.bytes[2] === 0x00 && (a.bytes[3]! & 0xf0) === 0x20;
const isHeNet = (a: CoreAddr) => isIPv6(a) && a.bytes[0] === 0x20 && a.bytes[1] === 0x01 && a.bytes[2] === 0x04 && a.bytes[3] === 0x70;
const isInternal = (a: CoreAddr) => a.net === NET_INTERNAL;

function isLocal(a: CoreAddr): boolean {
  if (isIPv4(a) && (a.bytes[0] === 127 || a.bytes[0] === 0)) return true;
  if (isIPv6(a)) {
    for (let i = 0; i < 15; i++) if (a.bytes[i] !== 0) return false;
    return a.bytes[15] === 1;
  }
  return false;
}

function coreIsValid(a: CoreAddr): boolean {
  if (isIPv6(a) && a.bytes.every((b) => b === 0)) return false;
  // CJDNS addresses start with 0xfc (HasCJDNSPrefix).
  if (a.net === NET_CJDNS && a.bytes[0] !== 0xfc) return false;
  if (isRFC3849(a)) return false;
  if (isInternal(a)) return false;
  if (isIPv4(a)) {
    const all = (v: number) => a.bytes.every((b) => b === v);
    if (all(0) || all(0xff)) return false; // INADDR_ANY, INADDR_NONE
  }
  return true;
}

function coreIsRoutable(a: CoreAddr): boolean {
  return (
    coreIsValid(a) &&
    !(isRFC1918(a) || isRFC2544(a) || isRFC3927(a) || isRFC4862(a) || isRFC6598(a) || isRFC5737(a) || isRFC4193(a) || isRFC4843(a) || isRFC7343(a) || isLocal(a) || isInternal(a))
  );
}

function coreNetwork(a: CoreAddr): Network {
  if (isInternal(a)) return NET_INTERNAL;
  if (!coreIsRoutable(a)) return NET_UNROUTABLE;
  return a.net;
}

function hasLinkedIPv4(a: CoreAddr): boolean {
  return coreIsRoutable(a) && (isIPv4(a) || isRFC6145(a) || isRFC6052(a) || isRFC3964(a) || isRFC4380(a));
}

function readBE32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function linkedIPv4(a: CoreAddr): number {
  if (isIPv4(a)) return readBE32(a.bytes, 0);
  if (isRFC6052(a) || isRFC6145(a)) return readBE32(a.bytes, 12);
  if (isRFC3964(a)) return readBE32(a.bytes, 2);
  if (isRFC4380(a)) return ~readBE32(a.bytes, 12) >>> 0;
  throw new Error('no linked IPv4 address');
}

function coreNetClass(a: CoreAddr): Network {
  if (isInternal(a)) return NET_INTERNAL;
  if (!coreIsRoutable(a)) return NET_UNROUTABLE;
  if (hasLinkedIPv4(a)) return NET_IPV4;
  return a.net;
}

/** Core's GetAddrBytes: the 16-byte addr (v1) form for IPv4, IPv6 and internal, else m_addr. */
function addrBytes(a: CoreAddr): Uint8Array {
  if (a.net === NET_IPV4) {
    const out = new Uint8Array(16);
    out.set(IPV4_IN_IPV6_PREFIX);
    out.set(a.bytes, 12);
    return out;
  }
  if (a.net === NET_INTERNAL) {
    const out = new Uint8Array(16);
    out.set(INTERNAL_IN_IPV6_PREFIX);
    out.set(a.bytes, 6);
    return out;
  }
  return a.bytes;
}

/** Core's NetGroupManager::GetGroup with no asmap. */
function coreGroup(a: CoreAddr): Uint8Array {
  const out: number[] = [coreNetClass(a)];
  let startByte = 0;
  let bits = 0;
  if (isLocal(a)) {
    // all local addresses belong to the same group
  } else if (isInternal(a)) {
    startByte = INTERNAL_IN_IPV6_PREFIX.length;
    bits = ADDR_INTERNAL_SIZE * 8;
  } else if (!coreIsRoutable(a)) {
    // all other unroutable addresses belong to the same group
  } else if (hasLinkedIPv4(a)) {
    const ipv4 = linkedIPv4(a);
    out.push((ipv4 >>> 24) & 0xff, (ipv4 >>> 16) & 0xff);
    return Uint8Array.from(out);
  } else if (a.net === NET_ONION || a.net === NET_I2P) {
    bits = 4;
  } else if (a.net === NET_CJDNS) {
    bits = 12;
  } else if (isHeNet(a)) {
    bits = 36;
  } else {
    bits = 32;
  }
  const bytes = addrBytes(a);
  const whole = Math.floor(bits / 8);
  for (let i = 0; i < whole; i++) out.push(bytes[startByte + i]!);
  const rest = bits % 8;
  if (rest > 0) out.push(bytes[startByte + whole]! | ((1 << (8 - rest)) - 1));
  return Uint8Array.from(out);
}

/** Whether Core's CNetAddr::IsValid holds (a valid address may still be unroutable). */
export function isValidAddress(a: NetAddress): boolean {
  return coreIsValid(fromBip155(a));
}

/** Core's CNetAddr::IsRoutable: only such addresses enter the address manager. */
export function isRoutableAddress(a: NetAddress): boolean {
  return coreIsRoutable(fromBip155(a));
}

/** Core's CNetAddr::GetNetwork: the network, or NET_UNROUTABLE / NET_INTERNAL. */
export function addressNetwork(a: NetAddress): Network {
  return coreNetwork(fromBip155(a));
}

/** Core's CNetAddr::GetNetClass: as addressNetwork, but IPv6 with an embedded IPv4 is NET_IPV4. */
export function addressNetClass(a: NetAddress): Network {
  return coreNetClass(fromBip155(a));
}

/** Core's NetGroupManager::GetGroup without an asmap: the /16 of IPv4, the /32 of IPv6, and so on. */
export function netGroup(a: NetAddress): Uint8Array {
  return coreGroup(fromBip155(a));
}

/** Core's CNetAddr::SetInternal: the stand-in address of a name (a DNS seed), as BIP155 IPv6 with the internal prefix. */
export function internalAddress(name: string): NetAddress {
  if (name === '') throw new RangeError('an internal address needs a name');
  return toBip155({ net: NET_INTERNAL, bytes: sha256(new TextEncoder().encode(name)).slice(0, ADDR_INTERNAL_SIZE) });
}

/** The address Core's default CNetAddr is ([::], invalid): a source "nobody". */
export const NO_SOURCE: NetAddress = { network: BIP155_NETWORK.IPV6, address: new Uint8Array(16) };

// --- text forms (CNetAddr::ToStringAddr, CService::ToStringAddrPort, LookupHost for numeric hosts)

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Core's EncodeBase32 (lower case). */
function encodeBase32(bytes: Uint8Array, pad = true): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  if (pad) while (out.length % 8 !== 0) out += '=';
  return out;
}

function decodeBase32(text: string): Uint8Array | null {
  const trimmed = text.replace(/=+$/, '').toLowerCase();
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of trimmed) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return null;
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  }
  return Uint8Array.from(out);
}

function onionChecksum(pubkey: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode('.onion checksum');
  const data = new Uint8Array(prefix.length + 33);
  data.set(prefix);
  data.set(pubkey, prefix.length);
  data[prefix.length + 32] = 3;
  return sha3_256(data).slice(0, 2);
}

function ipv6ToString(a: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((a[i]! << 8) | a[i + 1]!);
  // The longest run of zero groups (the first of equal runs), if at least two long, becomes "::".
  let bestStart = 0;
  let bestLen = 0;
  let curStart = 0;
  let curLen = 0;
  for (let i = 0; i < 8; i++) {
    if (groups[i] !== 0) {
      curStart = i + 1;
      curLen = 0;
      continue;
    }
    curLen++;
    if (curLen > bestLen) {
      bestLen = curLen;
      bestStart = curStart;
    }
  }
  let r = '';
  for (let i = 0; i < 8; i++) {
    if (bestLen >= 2 && i >= bestStart && i < bestStart + bestLen) {
      if (i === bestStart) r += '::';
      continue;
    }
    r += (r !== '' && !r.endsWith(':') ? ':' : '') + groups[i]!.toString(16);
  }
  return r;
}

function coreToString(a: CoreAddr): string {
  switch (a.net) {
    case NET_IPV4:
      return Array.from(a.bytes).join('.');
    case NET_ONION: {
      const all = new Uint8Array(35);
      all.set(a.bytes);
      all.set(onionChecksum(a.bytes), 32);
      all[34] = 3;
      return `${encodeBase32(all)}.onion`;
    }
    case NET_I2P:
      return `${encodeBase32(a.bytes, false)}.b32.i2p`;
    case NET_INTERNAL:
      return `${encodeBase32(a.bytes)}.internal`;
    default:
      return ipv6ToString(a.bytes);
  }
}

/** Core's CNetAddr::ToStringAddr: "1.2.3.4", "2001:db8::1", "<base32>.onion", "<base32>.b32.i2p". */
export function formatAddress(a: NetAddress): string {
  return coreToString(fromBip155(a));
}

/**
 * Core's MaybeFlipIPv6toCJDNS: CJDNS addresses are written as IPv6 in fc00::/8, so an IPv6
 * address there is taken as CJDNS when CJDNS is reachable (-cjdnsreachable).
 */
export function maybeFlipIPv6ToCjdns<T extends NetAddress>(a: T, cjdnsReachable: boolean): T {
  if (!cjdnsReachable || a.network !== BIP155_NETWORK.IPV6 || a.address[0] !== 0xfc) return a;
  return { ...a, network: BIP155_NETWORK.CJDNS };
}

/** Core's CService::ToStringAddrPort: "1.2.3.4:8333", "[2001:db8::1]:8333", "<onion>:8333". */
export function formatAddressPort(a: ServiceAddress): string {
  const c = fromBip155(a);
  const text = coreToString(c);
  return c.net === NET_IPV4 || c.net === NET_ONION || c.net === NET_I2P || c.net === NET_INTERNAL ? `${text}:${a.port}` : `[${text}]:${a.port}`;
}

function parseIPv4(text: string): Uint8Array | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return Uint8Array.from(parts);
}

function parseIPv6(text: string): Uint8Array | null {
  let head = text;
  let tail4: Uint8Array | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail4 = parseIPv4(text.slice(lastColon + 1));
    if (!tail4) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!left || !right) return null;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  if (tail4) out.set(tail4, 12);
  return out;
}

/**
 * A numeric host as Core's LookupHost(name, false) reads it: dotted IPv4, IPv6 (an
 * IPv4-mapped one is IPv4), a v3 .onion (checksum checked) or a .b32.i2p. Null otherwise.
 */
export function parseAddress(text: string): NetAddress | null {
  if (text.includes('\0')) return null;
  const lower = text.toLowerCase();
  if (lower.endsWith('.onion')) {
    const decoded = decodeBase32(text.slice(0, -6));
    if (!decoded || decoded.length !== 35 || decoded[34] !== 3) return null;
    const pubkey = decoded.slice(0, 32);
    if (!bytesEqual(onionChecksum(pubkey), decoded.slice(32, 34))) return null;
    return { network: BIP155_NETWORK.TORV3, address: pubkey };
  }
  if (lower.endsWith('.b32.i2p')) {
    if (text.length !== 52 + 8) return null;
    const decoded = decodeBase32(text.slice(0, 52));
    return decoded && decoded.length === 32 ? { network: BIP155_NETWORK.I2P, address: decoded } : null;
  }
  const v4 = parseIPv4(text);
  if (v4) return { network: BIP155_NETWORK.IPV4, address: v4 };
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v6 = parseIPv6(bare);
  if (!v6) return null;
  return toBip155(fromLegacyIpv6(v6));
}

// ---------------------------------------------------------------------------------------
// Randomness (random.h: FastRandomContext over ChaCha20, RandomMixin)

/** What the address manager draws on: Core's RandomMixin interface. */
export interface AddrManRandom {
  /** A uniformly random integer of `bits` bits (0..32). */
  randbits(bits: number): number;
  /** A uniformly random integer in [0, range); range > 0. */
  randrange(range: number): number;
  randbool(): boolean;
  /** 32 random bytes (used for a fresh nKey). */
  rand256(): Uint8Array;
}

const KEYSTREAM_CHUNK = 4096;
const ZEROS = new Uint8Array(KEYSTREAM_CHUNK);

/**
 * Core's FastRandomContext: a ChaCha20 keystream (key as given, zero nonce, counter from
 * zero) read 8 bytes at a time, with RandomMixin's bit buffer. With the zero key it is
 * Core's deterministic context (FastRandomContext{true}), which an addrman under
 * `-test=addrman` uses; with no key, a random one.
 */
export class FastRandomContext implements AddrManRandom {
  readonly #cipher: Cipher;
  #stream = new Uint8Array(0);
  #view = new DataView(this.#stream.buffer);
  #at = 0;
  /** RandomMixin's 64-bit bit buffer as two 32-bit halves, and how many of its bits are unused. */
  #bufLo = 0;
  #bufHi = 0;
  #bufSize = 0;

  constructor(key?: Uint8Array) {
    const k = key ?? randomBytes(32);
    if (k.length !== 32) throw new RangeError('a FastRandomContext key is 32 bytes');
    this.#cipher = createCipheriv('chacha20', k, new Uint8Array(16));
  }

  /** Core's FastRandomContext{true} (deterministic): the all-zero key. */
  static deterministic(): FastRandomContext {
    return new FastRandomContext(new Uint8Array(32));
  }

  #refill(): void {
    this.#stream = new Uint8Array(this.#cipher.update(ZEROS));
    this.#view = new DataView(this.#stream.buffer, this.#stream.byteOffset, this.#stream.byteLength);
    this.#at = 0;
  }

  /** The next n bytes of the keystream (Core's ChaCha20::Keystream). */
  #keystream(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (this.#at === this.#stream.length) this.#refill();
      const take = Math.min(n - filled, this.#stream.length - this.#at);
      out.set(this.#stream.subarray(this.#at, this.#at + take), filled);
      this.#at += take;
      filled += take;
    }
    return out;
  }

  /** rand64() as [low 32 bits, high 32 bits]. */
  #rand64(): [number, number] {
    if (this.#stream.length - this.#at >= 8) {
      const lo = this.#view.getUint32(this.#at, true);
      const hi = this.#view.getUint32(this.#at + 4, true);
      this.#at += 8;
      return [lo, hi];
    }
    const b = new DataView(this.#keystream(8).buffer);
    return [b.getUint32(0, true), b.getUint32(4, true)];
  }

  /** 64 random bits: the next 8 keystream bytes, little-endian. */
  rand64(): bigint {
    const [lo, hi] = this.#rand64();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  randbits(bits: number): number {
    if (bits < 0 || bits > 32) throw new RangeError('randbits takes 0 to 32 bits');
    const mask = bits === 32 ? 0xffffffff : (1 << bits) - 1;
    if (bits <= this.#bufSize) {
      const ret = (this.#bufLo & mask) >>> 0;
      this.#shiftBuffer(bits);
      this.#bufSize -= bits;
      return ret;
    }
    // Fewer than 32 bits left (all in the low half): they, then the low bits of a new draw.
    const [lo, hi] = this.#rand64();
    const ret = ((this.#bufLo | (lo << this.#bufSize)) & mask) >>> 0;
    this.#bufLo = lo;
    this.#bufHi = hi;
    this.#shiftBuffer(bits - this.#bufSize);
    this.#bufSize = 64 + this.#bufSize - bits;
    return ret;
  }

  #shiftBuffer(s: number): void {
    if (s === 0) return;
    if (s === 32) {
      this.#bufLo = this.#bufHi;
      this.#bufHi = 0;
      return;
    }
    this.#bufLo = ((this.#bufLo >>> s) | (this.#bufHi << (32 - s))) >>> 0;
    this.#bufHi = this.#bufHi >>> s;
  }

  randrange(range: number): number {
    if (!(range > 0)) throw new RangeError('randrange needs a positive range');
    const maxval = range - 1;
    if (maxval > 0xffffffff) throw new RangeError('randrange supports ranges up to 2^32');
    const bits = 32 - Math.clz32(maxval); // std::bit_width
    for (;;) {
      const ret = this.randbits(bits);
      if (ret <= maxval) return ret;
    }
  }

  randbool(): boolean {
    return this.randbits(1) !== 0;
  }

  rand256(): Uint8Array {
    return this.#keystream(32);
  }
}

// ---------------------------------------------------------------------------------------
// Bucket math (AddrInfo::GetTriedBucket, GetNewBucket, GetBucketPosition)

export const ADDRMAN_TRIED_BUCKET_COUNT = 256;
export const ADDRMAN_NEW_BUCKET_COUNT = 1024;
export const ADDRMAN_BUCKET_SIZE = 64;
const ADDRMAN_TRIED_BUCKETS_PER_GROUP = 8;
const ADDRMAN_NEW_BUCKETS_PER_SOURCE_GROUP = 64;
/** Most "new" buckets one address may sit in. */
export const ADDRMAN_NEW_BUCKETS_PER_ADDRESS = 8;
const ADDRMAN_HORIZON = 30 * 24 * 3600;
const ADDRMAN_RETRIES = 3;
const ADDRMAN_MAX_FAILURES = 10;
const ADDRMAN_MIN_FAIL = 7 * 24 * 3600;
const ADDRMAN_REPLACEMENT = 4 * 3600;
const ADDRMAN_SET_TRIED_COLLISION_SIZE = 10;
const ADDRMAN_TEST_WINDOW = 40 * 60;
/** Core's CAddress::TIME_INIT: the time of an address nobody gave one. */
export const ADDRESS_TIME_INIT = 100_000_000;

/** A vector<unsigned char> as Core serializes it: CompactSize length (always one byte here), then the bytes. */
function serVector(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + bytes.length);
  out[0] = bytes.length;
  out.set(bytes, 1);
  return out;
}

/** Serialized CService::GetKey(): GetAddrBytes() and the port, big-endian. */
function serServiceKey(a: CoreAddr, port: number): Uint8Array {
  const bytes = addrBytes(a);
  const key = new Uint8Array(bytes.length + 2);
  key.set(bytes);
  key[bytes.length] = port >>> 8;
  key[bytes.length + 1] = port & 0xff;
  return serVector(key);
}

const hashScratch = new Uint8Array(256);

/**
 * HashWriter{} << parts ... GetCheapHash(), reduced modulo a power of two at most 2^32:
 * the low bits of the first eight bytes of SHA-256d read as a little-endian uint64 are
 * the low bits of its first four.
 */
function cheapHashLow32(parts: readonly Uint8Array[]): number {
  let n = 0;
  for (const p of parts) {
    hashScratch.set(p, n);
    n += p.length;
  }
  const h = sha256d(hashScratch.subarray(0, n));
  return (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
}

function u64le(v: number): Uint8Array {
  const out = new Uint8Array(8);
  out[0] = v & 0xff;
  out[1] = (v >>> 8) & 0xff;
  return out;
}

function i32le(v: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, v, true);
  return out;
}

function triedBucketOf(key: Uint8Array, serKey: Uint8Array, serGroup: Uint8Array): number {
  const hash1 = cheapHashLow32([key, serKey]) % ADDRMAN_TRIED_BUCKETS_PER_GROUP;
  return cheapHashLow32([key, serGroup, u64le(hash1)]) % ADDRMAN_TRIED_BUCKET_COUNT;
}

function newBucketOf(key: Uint8Array, serGroup: Uint8Array, serSourceGroup: Uint8Array): number {
  const hash1 = cheapHashLow32([key, serGroup, serSourceGroup]) % ADDRMAN_NEW_BUCKETS_PER_SOURCE_GROUP;
  return cheapHashLow32([key, serSourceGroup, u64le(hash1)]) % ADDRMAN_NEW_BUCKET_COUNT;
}

const TAG_NEW = Uint8Array.of(0x4e); // 'N'
const TAG_TRIED = Uint8Array.of(0x4b); // 'K'

function bucketPositionOf(key: Uint8Array, isNew: boolean, bucket: number, serKey: Uint8Array): number {
  return cheapHashLow32([key, isNew ? TAG_NEW : TAG_TRIED, i32le(bucket), serKey]) % ADDRMAN_BUCKET_SIZE;
}

function checkKey(key: Uint8Array): void {
  if (key.length !== 32) throw new RangeError('an addrman key (nKey) is 32 bytes');
}

/** AddrInfo::GetTriedBucket: the tried bucket of an address under `key` (Core's nKey, 32 bytes as serialized). */
export function triedBucket(key: Uint8Array, addr: ServiceAddress): number {
  checkKey(key);
  const a = fromBip155(addr);
  return triedBucketOf(key, serServiceKey(a, addr.port), serVector(coreGroup(a)));
}

/** AddrInfo::GetNewBucket: the new bucket of an address heard from `source`. */
export function newBucket(key: Uint8Array, addr: NetAddress, source: NetAddress): number {
  checkKey(key);
  return newBucketOf(key, serVector(coreGroup(fromBip155(addr))), serVector(coreGroup(fromBip155(source))));
}

/** AddrInfo::GetBucketPosition: the slot of an address within a new (isNew) or tried bucket. */
export function bucketPosition(key: Uint8Array, isNew: boolean, bucket: number, addr: ServiceAddress): number {
  checkKey(key);
  return bucketPositionOf(key, isNew, bucket, serServiceKey(fromBip155(addr), addr.port));
}

/** The statistics IsTerrible and GetChance judge an entry by (seconds since the epoch). */
export interface AddrQuality {
  /** nTime: when the address was last seen (as told). */
  readonly time: number;
  readonly lastTry: number;
  readonly lastSuccess: number;
  readonly attempts: number;
}

/** AddrInfo::IsTerrible: bad enough to be overwritten, and left out of getaddr answers. */
export function isTerrible(q: AddrQuality, now: number): boolean {
  if (now - q.lastTry <= 60) return false; // never remove things tried in the last minute
  if (q.time > now + 10 * 60) return true; // came in a flying DeLorean
  if (now - q.time > ADDRMAN_HORIZON) return true; // not seen in recent history
  if (q.lastSuccess === 0 && q.attempts >= ADDRMAN_RETRIES) return true; // tried N times and never a success
  if (now - q.lastSuccess > ADDRMAN_MIN_FAIL && q.attempts >= ADDRMAN_MAX_FAILURES) return true; // N successive failures in the last week
  return false;
}

/** AddrInfo::GetChance: the relative chance of selection. */
export function getChance(q: AddrQuality, now: number): number {
  let chance = 1.0;
  if (now - q.lastTry < 10 * 60) chance *= 0.01;
  chance *= Math.pow(0.66, Math.min(q.attempts, 8));
  return chance;
}

// ---------------------------------------------------------------------------------------
// The address manager

/** One address manager entry as the caller sees it (Core's AddrInfo). */
export interface AddrManEntry {
  /** The address with nTime and nServices. */
  readonly address: PeerAddress;
  /** Where knowledge about it first came from. */
  readonly source: NetAddress;
  readonly lastSuccess: number;
  readonly lastTry: number;
  readonly lastCountAttempt: number;
  /** Connection attempts since the last success. */
  readonly attempts: number;
  /** How many new buckets hold it (0 when in tried). */
  readonly refCount: number;
  readonly inTried: boolean;
}

/** Core's AddressPosition: where an entry sits. */
export interface AddressPosition {
  readonly tried: boolean;
  /** Number of new buckets holding it (1 in tried). */
  readonly multiplicity: number;
  readonly bucket: number;
  readonly position: number;
}

/** Counts per network, as getaddrmaninfo reports them. */
export interface AddrManCounts {
  readonly new: number;
  readonly tried: number;
  readonly total: number;
}

export interface AddrManOptions {
  /** Core's nKey; a random one (from `random`) when absent, uint256{1} when deterministic. */
  readonly key?: Uint8Array;
  /** Random source; FastRandomContext.deterministic() when deterministic, else a randomly keyed one. */
  readonly random?: AddrManRandom;
  /** Core's `deterministic` constructor flag (-test=addrman): key uint256{1} and the zero-key random context. */
  readonly deterministic?: boolean;
  /** The clock, seconds since the epoch (Core's mockable Now<NodeSeconds>()). */
  readonly now?: () => number;
  /** Core's -checkaddrman: run the consistency check on one in this many operations (0 never). */
  readonly consistencyCheckRatio?: number;
}

/** A selected address and when it was last tried (Core's Select/SelectTriedCollision result). */
export interface SelectedAddress {
  readonly address: PeerAddress;
  readonly lastTry: number;
}

/** Raised by the consistency check (Core aborts). */
export class AddrManConsistencyError extends Error {
  override readonly name = 'AddrManConsistencyError';
  constructor(readonly code: number) {
    super(`addrman consistency check failed with code ${code}`);
  }
}

/** A std::ios_base::failure from AddrMan::Unserialize (corrupt data). */
export class AddrManFormatError extends Error {
  override readonly name = 'AddrManFormatError';
}

/** Core's InvalidAddrManVersionError: a file for a newer, incompatible addrman format. */
export class AddrManVersionError extends Error {
  override readonly name = 'AddrManVersionError';
}

class AddrInfo implements AddrQuality {
  readonly addr: CoreAddr;
  readonly port: number;
  /** mapAddr's key: the CService. */
  readonly mapKey: string;
  readonly serKey: Uint8Array;
  readonly serGroup: Uint8Array;
  readonly source: CoreAddr;
  readonly serSourceGroup: Uint8Array;
  time: number;
  services: bigint;
  lastTry = 0;
  lastCountAttempt = 0;
  lastSuccess = 0;
  attempts = 0;
  refCount = 0;
  inTried = false;
  randomPos = -1;

  constructor(addr: CoreAddr, port: number, time: number, services: bigint, source: CoreAddr) {
    this.addr = addr;
    this.port = port;
    this.mapKey = serviceKey(addr, port);
    this.serKey = serServiceKey(addr, port);
    this.serGroup = serVector(coreGroup(addr));
    this.source = source;
    this.serSourceGroup = serVector(coreGroup(source));
    this.time = time;
    this.services = services;
  }

  get network(): Network {
    return coreNetwork(this.addr);
  }

  toPeerAddress(): PeerAddress {
    return { time: this.time, services: this.services, ...toBip155(this.addr), port: this.port };
  }

  toEntry(): AddrManEntry {
    return {
      address: this.toPeerAddress(),
      source: toBip155(this.source),
      lastSuccess: this.lastSuccess,
      lastTry: this.lastTry,
      lastCountAttempt: this.lastCountAttempt,
      attempts: this.attempts,
      refCount: this.refCount,
      inTried: this.inTried,
    };
  }
}

function serviceKey(a: CoreAddr, port: number): string {
  return `${a.net}/${toHex(a.bytes)}/${port}`;
}

const defaultNow = () => Math.floor(Date.now() / 1000);

/** Core's AddrMan (AddrManImpl), without an asmap. */
export class AddrMan {
  readonly #random: AddrManRandom;
  readonly #key: Uint8Array;
  readonly #now: () => number;
  readonly #checkRatio: number;
  #idCount = 0;
  readonly #mapInfo = new Map<number, AddrInfo>();
  readonly #mapAddr = new Map<string, number>();
  readonly #vRandom: number[] = [];
  #nTried = 0;
  readonly #vvTried = new Float64Array(ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE).fill(-1);
  #nNew = 0;
  readonly #vvNew = new Float64Array(ADDRMAN_NEW_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE).fill(-1);
  #lastGood = 1;
  /** m_tried_collisions, a std::set: kept sorted. */
  #triedCollisions: number[] = [];
  readonly #networkCounts = new Map<Network, { nNew: number; nTried: number }>();

  constructor(options: AddrManOptions = {}) {
    const deterministic = options.deterministic ?? false;
    this.#random = options.random ?? (deterministic ? FastRandomContext.deterministic() : new FastRandomContext());
    this.#now = options.now ?? defaultNow;
    this.#checkRatio = options.consistencyCheckRatio ?? 0;
    if (options.key) {
      checkKey(options.key);
      this.#key = options.key.slice();
    } else if (deterministic) {
      this.#key = new Uint8Array(32);
      this.#key[0] = 1; // uint256{1}
    } else {
      this.#key = this.#random.rand256();
    }
  }

  /** nKey, the secret that randomizes bucket placement (32 bytes, as serialized). */
  get key(): Uint8Array {
    return this.#key.slice();
  }

  // --- internal bookkeeping

  #counts(net: Network): { nNew: number; nTried: number } {
    let c = this.#networkCounts.get(net);
    if (!c) this.#networkCounts.set(net, (c = { nNew: 0, nTried: 0 }));
    return c;
  }

  #info(id: number): AddrInfo {
    const info = this.#mapInfo.get(id);
    if (!info) throw new Error(`addrman has no entry ${id}`);
    return info;
  }

  #find(addr: CoreAddr, port: number): { id: number; info: AddrInfo } | null {
    const id = this.#mapAddr.get(serviceKey(addr, port));
    if (id === undefined) return null;
    const info = this.#mapInfo.get(id);
    return info ? { id, info } : null;
  }

  #create(addr: CoreAddr, port: number, time: number, services: bigint, source: CoreAddr): { id: number; info: AddrInfo } {
    const id = this.#idCount++;
    const info = new AddrInfo(addr, port, time, services, source);
    this.#mapInfo.set(id, info);
    this.#mapAddr.set(info.mapKey, id);
    info.randomPos = this.#vRandom.length;
    this.#vRandom.push(id);
    this.#nNew++;
    this.#counts(info.network).nNew++;
    return { id, info };
  }

  #swapRandom(pos1: number, pos2: number): void {
    if (pos1 === pos2) return;
    const id1 = this.#vRandom[pos1]!;
    const id2 = this.#vRandom[pos2]!;
    this.#info(id1).randomPos = pos2;
    this.#info(id2).randomPos = pos1;
    this.#vRandom[pos1] = id2;
    this.#vRandom[pos2] = id1;
  }

  #delete(id: number): void {
    const info = this.#info(id);
    if (info.inTried || info.refCount !== 0) throw new Error('addrman: deleting an entry still referenced');
    this.#swapRandom(info.randomPos, this.#vRandom.length - 1);
    this.#counts(info.network).nNew--;
    this.#vRandom.pop();
    this.#mapAddr.delete(info.mapKey);
    this.#mapInfo.delete(id);
    this.#nNew--;
  }

  #clearNew(bucket: number, pos: number): void {
    const slot = bucket * ADDRMAN_BUCKET_SIZE + pos;
    const id = this.#vvNew[slot]!;
    if (id === -1) return;
    const info = this.#info(id);
    info.refCount--;
    this.#vvNew[slot] = -1;
    if (info.refCount === 0) this.#delete(id);
  }

  #makeTried(info: AddrInfo, id: number): void {
    // Remove the entry from all new buckets, starting at the one its source gives.
    const start = newBucketOf(this.#key, info.serGroup, info.serSourceGroup);
    for (let n = 0; n < ADDRMAN_NEW_BUCKET_COUNT; n++) {
      const bucket = (start + n) % ADDRMAN_NEW_BUCKET_COUNT;
      const slot = bucket * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, true, bucket, info.serKey);
      if (this.#vvNew[slot] === id) {
        this.#vvNew[slot] = -1;
        info.refCount--;
        if (info.refCount === 0) break;
      }
    }
    this.#nNew--;
    this.#counts(info.network).nNew--;

    const triedB = triedBucketOf(this.#key, info.serKey, info.serGroup);
    const triedSlot = triedB * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, false, triedB, info.serKey);
    // Make space: the entry there goes back to new, deleting whatever is in its place.
    const evictId = this.#vvTried[triedSlot]!;
    if (evictId !== -1) {
      const old = this.#info(evictId);
      old.inTried = false;
      this.#vvTried[triedSlot] = -1;
      this.#nTried--;
      this.#counts(old.network).nTried--;
      const newB = newBucketOf(this.#key, old.serGroup, old.serSourceGroup);
      const newPos = bucketPositionOf(this.#key, true, newB, old.serKey);
      this.#clearNew(newB, newPos);
      old.refCount = 1;
      this.#vvNew[newB * ADDRMAN_BUCKET_SIZE + newPos] = evictId;
      this.#nNew++;
      this.#counts(old.network).nNew++;
    }
    this.#vvTried[triedSlot] = id;
    this.#nTried++;
    info.inTried = true;
    this.#counts(info.network).nTried++;
  }

  #addSingle(entry: PeerAddress, source: CoreAddr, timePenalty: number): boolean {
    const addr = fromBip155(entry);
    if (!coreIsRoutable(addr)) return false;
    let found = this.#find(addr, entry.port);
    // No penalty for a source's self-announcement.
    if (addr.net === source.net && bytesEqual(addr.bytes, source.bytes)) timePenalty = 0;
    if (found) {
      const info = found.info;
      // Periodically update nTime.
      const currentlyOnline = this.#now() - entry.time < 24 * 3600;
      const updateInterval = currentlyOnline ? 3600 : 24 * 3600;
      if (info.time < entry.time - updateInterval - timePenalty) info.time = Math.max(0, entry.time - timePenalty);
      info.services |= entry.services;
      // Nothing new, already in tried, or in as many buckets as allowed.
      if (entry.time <= info.time) return false;
      if (info.inTried) return false;
      if (info.refCount === ADDRMAN_NEW_BUCKETS_PER_ADDRESS) return false;
      // Stochastic test: previous nRefCount == N makes it 2^N times harder to increase.
      if (info.refCount > 0 && this.#random.randrange(1 << info.refCount) !== 0) return false;
    } else {
      found = this.#create(addr, entry.port, entry.time, entry.services, source);
      found.info.time = Math.max(0, found.info.time - timePenalty);
    }
    const { id, info } = found;
    const bucket = newBucketOf(this.#key, info.serGroup, serVector(coreGroup(source)));
    const pos = bucketPositionOf(this.#key, true, bucket, info.serKey);
    const slot = bucket * ADDRMAN_BUCKET_SIZE + pos;
    let insert = this.#vvNew[slot] === -1;
    if (this.#vvNew[slot] !== id) {
      if (!insert) {
        const existing = this.#info(this.#vvNew[slot]!);
        if (isTerrible(existing, this.#now()) || (existing.refCount > 1 && info.refCount === 0)) insert = true;
      }
      if (insert) {
        this.#clearNew(bucket, pos);
        info.refCount++;
        this.#vvNew[slot] = id;
      } else if (info.refCount === 0) {
        this.#delete(id);
      }
    }
    return insert;
  }

  #good(addr: CoreAddr, port: number, testBeforeEvict: boolean, time: number): boolean {
    this.#lastGood = time;
    const found = this.#find(addr, port);
    if (!found) return false;
    const { id, info } = found;
    info.lastSuccess = time;
    info.lastTry = time;
    info.attempts = 0;
    // nTime is not updated, to avoid leaking information about currently-connected peers.
    if (info.inTried) return false;
    if (!(info.refCount > 0)) return false;
    const bucket = triedBucketOf(this.#key, info.serKey, info.serGroup);
    const slot = bucket * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, false, bucket, info.serKey);
    if (testBeforeEvict && this.#vvTried[slot] !== -1) {
      if (this.#triedCollisions.length < ADDRMAN_SET_TRIED_COLLISION_SIZE) this.#insertCollision(id);
      return false;
    }
    this.#makeTried(info, id);
    return true;
  }

  #insertCollision(id: number): void {
    const list = this.#triedCollisions;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    if (list[lo] !== id) list.splice(lo, 0, id);
  }

  #check(): void {
    if (this.#checkRatio === 0) return;
    if (this.#random.randrange(this.#checkRatio) >= 1) return;
    const code = this.check();
    if (code !== 0) throw new AddrManConsistencyError(code);
  }

  #wrap<T>(op: () => T): T {
    this.#check();
    const result = op();
    this.#check();
    return result;
  }

  // --- the public operations (AddrMan's)

  /** Size(net, in_new): all entries, or those of one network, or of one table. */
  size(network: Network | null = null, inNew: boolean | null = null): number {
    return this.#wrap(() => {
      if (network === null) {
        if (inNew !== null) return inNew ? this.#nNew : this.#nTried;
        return this.#vRandom.length;
      }
      const c = this.#networkCounts.get(network);
      if (!c) return 0;
      if (inNew !== null) return inNew ? c.nNew : c.nTried;
      return c.nNew + c.nTried;
    });
  }

  /**
   * Add(vAddr, source, time_penalty): addresses heard from `source` (an address, or
   * internalAddress(seed) for a DNS seed). Only routable addresses enter; a known one has its
   * time and services updated and may land in a further new bucket. True when at least one
   * was placed in a bucket.
   */
  add(addresses: readonly PeerAddress[], source: NetAddress, timePenalty = 0): boolean {
    return this.#wrap(() => {
      const src = fromBip155(source);
      let added = 0;
      for (const a of addresses) if (this.#addSingle(a, src, timePenalty)) added++;
      return added > 0;
    });
  }

  /** Good(addr, time): a successful connection; moves the entry to tried unless that would evict (then it is a collision to test). */
  good(addr: ServiceAddress, time: number = this.#now()): boolean {
    return this.#wrap(() => this.#good(fromBip155(addr), addr.port, true, time));
  }

  /** Attempt(addr, fCountFailure, time): a connection attempt; counted as a failure at most once per Good of any address. */
  attempt(addr: ServiceAddress, countFailure: boolean, time: number = this.#now()): void {
    this.#wrap(() => {
      const found = this.#find(fromBip155(addr), addr.port);
      if (!found) return;
      const info = found.info;
      info.lastTry = time;
      if (countFailure && info.lastCountAttempt < this.#lastGood) {
        info.lastCountAttempt = time;
        info.attempts++;
      }
    });
  }

  /** ResolveCollisions(): settles test-before-evict collisions whose old entry has been tested (or could not be in time). */
  resolveCollisions(): void {
    this.#wrap(() => {
      for (const idNew of [...this.#triedCollisions]) {
        let erase = false;
        const infoNew = this.#mapInfo.get(idNew);
        if (!infoNew) {
          erase = true;
        } else {
          const bucket = triedBucketOf(this.#key, infoNew.serKey, infoNew.serGroup);
          const slot = bucket * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, false, bucket, infoNew.serKey);
          if (!coreIsValid(infoNew.addr)) {
            erase = true;
          } else if (this.#vvTried[slot] !== -1) {
            const infoOld = this.#info(this.#vvTried[slot]!);
            const now = this.#now();
            if (now - infoOld.lastSuccess < ADDRMAN_REPLACEMENT) {
              // Connected to the old one recently: keep it.
              erase = true;
            } else if (now - infoOld.lastTry < ADDRMAN_REPLACEMENT) {
              // Tried and failed recently; give it at least 60 seconds to connect.
              if (now - infoOld.lastTry > 60) {
                this.#good(infoNew.addr, infoNew.port, false, now);
                erase = true;
              }
            } else if (now - infoNew.lastSuccess > ADDRMAN_TEST_WINDOW) {
              // Not resolved in a reasonable time: evict the old entry anyway.
              this.#good(infoNew.addr, infoNew.port, false, now);
              erase = true;
            }
          } else {
            // Not a collision any more.
            this.#good(infoNew.addr, infoNew.port, false, this.#now());
            erase = true;
          }
        }
        if (erase) this.#triedCollisions.splice(this.#triedCollisions.indexOf(idNew), 1);
      }
    });
  }

  /** SelectTriedCollision(): a tried entry that a pending collision would evict, to test it; null if none. */
  selectTriedCollision(): SelectedAddress | null {
    return this.#wrap(() => {
      if (this.#triedCollisions.length === 0) return null;
      const at = this.#random.randrange(this.#triedCollisions.length);
      const idNew = this.#triedCollisions[at]!;
      const infoNew = this.#mapInfo.get(idNew);
      if (!infoNew) {
        this.#triedCollisions.splice(at, 1);
        return null;
      }
      const bucket = triedBucketOf(this.#key, infoNew.serKey, infoNew.serGroup);
      const idOld = this.#vvTried[bucket * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, false, bucket, infoNew.serKey)]!;
      // Core reads an empty slot as a default entry, [::]:0.
      const old = idOld === -1 ? undefined : this.#mapInfo.get(idOld);
      if (!old) return null;
      return { address: old.toPeerAddress(), lastTry: old.lastTry };
    });
  }

  /**
   * Select(new_only, networks): an address to connect to, from new or tried (even odds when
   * both hold candidates), weighted by GetChance; null when there is none.
   */
  select(newOnly = false, networks: Iterable<Network> = []): SelectedAddress | null {
    return this.#wrap(() => {
      if (this.#vRandom.length === 0) return null;
      const nets = new Set(networks);
      let newCount = this.#nNew;
      let triedCount = this.#nTried;
      if (nets.size > 0) {
        newCount = 0;
        triedCount = 0;
        for (const net of nets) {
          const c = this.#networkCounts.get(net);
          if (!c) continue;
          newCount += c.nNew;
          triedCount += c.nTried;
        }
      }
      if (newOnly && newCount === 0) return null;
      if (newCount + triedCount === 0) return null;
      let searchTried: boolean;
      if (newOnly || triedCount === 0) searchTried = false;
      else if (newCount === 0) searchTried = true;
      else searchTried = this.#random.randbool();
      const bucketCount = searchTried ? ADDRMAN_TRIED_BUCKET_COUNT : ADDRMAN_NEW_BUCKET_COUNT;
      const table = searchTried ? this.#vvTried : this.#vvNew;
      let chanceFactor = 1.0;
      for (;;) {
        const bucket = this.#random.randrange(bucketCount);
        const initial = this.#random.randrange(ADDRMAN_BUCKET_SIZE);
        let nodeId = -1;
        let i: number;
        for (i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
          nodeId = table[bucket * ADDRMAN_BUCKET_SIZE + ((initial + i) % ADDRMAN_BUCKET_SIZE)]!;
          if (nodeId !== -1) {
            if (nets.size === 0 || nets.has(this.#info(nodeId).network)) break;
          }
        }
        // An empty bucket (for these networks): start over with another.
        if (i === ADDRMAN_BUCKET_SIZE) continue;
        const info = this.#info(nodeId);
        if (this.#random.randbits(30) < chanceFactor * getChance(info, this.#now()) * (1 << 30)) {
          return { address: info.toPeerAddress(), lastTry: info.lastTry };
        }
        chanceFactor *= 1.2;
      }
    });
  }

  /**
   * GetAddr(max_addresses, max_pct, network, filtered): random entries for a getaddr answer
   * (max_pct 23, max 1000) or getnodeaddresses (0, 0); 0 means no limit. `network` filters
   * by GetNetClass; `filtered` leaves out terrible entries.
   */
  getAddr(maxAddresses: number, maxPct: number, network: Network | null = null, filtered = true): PeerAddress[] {
    return this.#wrap(() => {
      let nodes = this.#vRandom.length;
      if (maxPct !== 0) nodes = Math.floor((Math.min(maxPct, 100) * nodes) / 100);
      if (maxAddresses !== 0) nodes = Math.min(nodes, maxAddresses);
      const now = this.#now();
      const out: PeerAddress[] = [];
      for (let n = 0; n < this.#vRandom.length; n++) {
        if (out.length >= nodes) break;
        const rndPos = this.#random.randrange(this.#vRandom.length - n) + n;
        this.#swapRandom(n, rndPos);
        const info = this.#info(this.#vRandom[n]!);
        if (network !== null && coreNetClass(info.addr) !== network) continue;
        if (filtered && isTerrible(info, now)) continue;
        out.push(info.toPeerAddress());
      }
      return out;
    });
  }

  /** GetEntries(from_tried): every entry of one table with its bucket and position, bucket by bucket. */
  getEntries(fromTried: boolean): { entry: AddrManEntry; position: AddressPosition }[] {
    return this.#wrap(() => {
      const bucketCount = fromTried ? ADDRMAN_TRIED_BUCKET_COUNT : ADDRMAN_NEW_BUCKET_COUNT;
      const table = fromTried ? this.#vvTried : this.#vvNew;
      const out: { entry: AddrManEntry; position: AddressPosition }[] = [];
      for (let bucket = 0; bucket < bucketCount; bucket++) {
        for (let position = 0; position < ADDRMAN_BUCKET_SIZE; position++) {
          const id = table[bucket * ADDRMAN_BUCKET_SIZE + position]!;
          if (id < 0) continue;
          const info = this.#info(id);
          out.push({ entry: info.toEntry(), position: { tried: fromTried, multiplicity: fromTried ? 1 : info.refCount, bucket, position } });
        }
      }
      return out;
    });
  }

  /** Connected(addr, time): we are (were) connected to it; refreshes nTime at most every 20 minutes. */
  connected(addr: ServiceAddress, time: number = this.#now()): void {
    this.#wrap(() => {
      const found = this.#find(fromBip155(addr), addr.port);
      if (!found) return;
      if (time - found.info.time > 20 * 60) found.info.time = time;
    });
  }

  /** SetServices(addr, services): the services it told us in its version message. */
  setServices(addr: ServiceAddress, services: bigint): void {
    this.#wrap(() => {
      const found = this.#find(fromBip155(addr), addr.port);
      if (found) found.info.services = services;
    });
  }

  /** FindAddressEntry(addr): where an address sits (for new, the bucket its source gives); null if unknown. */
  findAddressEntry(addr: ServiceAddress): AddressPosition | null {
    return this.#wrap(() => {
      const found = this.#find(fromBip155(addr), addr.port);
      if (!found) return null;
      const info = found.info;
      if (info.inTried) {
        const bucket = triedBucketOf(this.#key, info.serKey, info.serGroup);
        return { tried: true, multiplicity: 1, bucket, position: bucketPositionOf(this.#key, false, bucket, info.serKey) };
      }
      const bucket = newBucketOf(this.#key, info.serGroup, info.serSourceGroup);
      return { tried: false, multiplicity: info.refCount, bucket, position: bucketPositionOf(this.#key, true, bucket, info.serKey) };
    });
  }

  /** The entry for an address and port, or null. */
  getEntry(addr: ServiceAddress): AddrManEntry | null {
    const found = this.#find(fromBip155(addr), addr.port);
    return found ? found.info.toEntry() : null;
  }

  /** getaddrmaninfo's object: new/tried/total for ipv4, ipv6, onion, i2p, cjdns and all_networks. */
  info(): Record<string, AddrManCounts> {
    const out: Record<string, AddrManCounts> = {};
    for (const net of [NET_IPV4, NET_IPV6, NET_ONION, NET_I2P, NET_CJDNS] as const) {
      out[networkName(net)] = { new: this.size(net, true), tried: this.size(net, false), total: this.size(net) };
    }
    out.all_networks = { new: this.size(null, true), tried: this.size(null, false), total: this.size() };
    return out;
  }

  /** The tried collisions waiting to be resolved (m_tried_collisions), as addresses. */
  triedCollisions(): PeerAddress[] {
    return this.#triedCollisions.flatMap((id) => {
      const info = this.#mapInfo.get(id);
      return info ? [info.toPeerAddress()] : [];
    });
  }

  /** CheckAddrman(): 0 when the tables are consistent, else Core's negative error code. */
  check(): number {
    const setTried = new Set<number>();
    const mapNew = new Map<number, number>();
    const localCounts = new Map<Network, { nNew: number; nTried: number }>();
    const local = (net: Network) => {
      let c = localCounts.get(net);
      if (!c) localCounts.set(net, (c = { nNew: 0, nTried: 0 }));
      return c;
    };
    if (this.#vRandom.length !== this.#nTried + this.#nNew) return -7;
    for (const [n, info] of this.#mapInfo) {
      if (info.inTried) {
        if (!info.lastSuccess) return -1;
        if (info.refCount) return -2;
        setTried.add(n);
        local(info.network).nTried++;
      } else {
        if (info.refCount < 0 || info.refCount > ADDRMAN_NEW_BUCKETS_PER_ADDRESS) return -3;
        if (!info.refCount) return -4;
        mapNew.set(n, info.refCount);
        local(info.network).nNew++;
      }
      if (this.#mapAddr.get(info.mapKey) !== n) return -5;
      if (info.randomPos < 0 || info.randomPos >= this.#vRandom.length || this.#vRandom[info.randomPos] !== n) return -14;
      if (info.lastTry < 0) return -6;
      if (info.lastSuccess < 0) return -8;
    }
    if (setTried.size !== this.#nTried) return -9;
    if (mapNew.size !== this.#nNew) return -10;
    for (let n = 0; n < ADDRMAN_TRIED_BUCKET_COUNT; n++) {
      for (let i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
        const id = this.#vvTried[n * ADDRMAN_BUCKET_SIZE + i]!;
        if (id === -1) continue;
        if (!setTried.has(id)) return -11;
        const info = this.#mapInfo.get(id);
        if (!info || triedBucketOf(this.#key, info.serKey, info.serGroup) !== n) return -17;
        if (bucketPositionOf(this.#key, false, n, info.serKey) !== i) return -18;
        setTried.delete(id);
      }
    }
    for (let n = 0; n < ADDRMAN_NEW_BUCKET_COUNT; n++) {
      for (let i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
        const id = this.#vvNew[n * ADDRMAN_BUCKET_SIZE + i]!;
        if (id === -1) continue;
        if (!mapNew.has(id)) return -12;
        const info = this.#mapInfo.get(id);
        if (!info || bucketPositionOf(this.#key, true, n, info.serKey) !== i) return -19;
        const left = mapNew.get(id)! - 1;
        if (left === 0) mapNew.delete(id);
        else mapNew.set(id, left);
      }
    }
    if (setTried.size) return -13;
    if (mapNew.size) return -15;
    if (this.#key.every((b) => b === 0)) return -16;
    if (this.#networkCounts.size < localCounts.size) return -20;
    for (const [net, count] of this.#networkCounts) {
      const l = localCounts.get(net) ?? { nNew: 0, nTried: 0 };
      if (l.nNew !== count.nNew || l.nTried !== count.nTried) return -21;
    }
    return 0;
  }

  // --- serialization (AddrManImpl::Serialize / Unserialize)

  /**
   * Core's AddrMan serialization in the current format (4, lowest compatible 4): nKey, the
   * counts, the new entries, the tried entries, each new bucket's entries as indices, and
   * the asmap version (zero: no asmap). Entries go in the order they entered, which for a
   * table read from a file is the file's order.
   */
  serialize(): Uint8Array {
    const w = new ByteWriter(64 + 80 * this.#mapInfo.size + 4 * ADDRMAN_NEW_BUCKET_COUNT);
    w.u8(ADDRMAN_FORMAT.V4_MULTIPORT);
    w.u8(INCOMPATIBILITY_BASE + ADDRMAN_FORMAT.V4_MULTIPORT);
    w.bytes(this.#key);
    w.i32(this.#nNew);
    w.i32(this.#nTried);
    w.i32(ADDRMAN_NEW_BUCKET_COUNT ^ (1 << 30));
    const unkIds = new Map<number, number>();
    let ids = 0;
    for (const [id, info] of this.#mapInfo) {
      unkIds.set(id, ids);
      if (info.refCount) {
        writeAddrInfo(w, info);
        ids++;
      }
    }
    for (const info of this.#mapInfo.values()) if (info.inTried) writeAddrInfo(w, info);
    for (let bucket = 0; bucket < ADDRMAN_NEW_BUCKET_COUNT; bucket++) {
      const indices: number[] = [];
      for (let i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
        const id = this.#vvNew[bucket * ADDRMAN_BUCKET_SIZE + i]!;
        if (id !== -1) indices.push(unkIds.get(id)!);
      }
      w.i32(indices.length);
      for (const index of indices) w.i32(index);
    }
    w.bytes(new Uint8Array(32)); // asmap version: none
    return w.finish().slice();
  }

  /**
   * Core's AddrMan::Unserialize: reads an AddrMan serialization (any format 0 to 4, or a
   * later one that declares itself compatible) from `r`, leaving it after the data. The
   * new table is restored bucket for bucket when the file was bucketed as we bucket (1024
   * buckets, no asmap), else rebuilt from each entry's source; invalid entries and slot
   * collisions are dropped, as Core does. Throws AddrManFormatError for corrupt data,
   * AddrManVersionError for an incompatible format, DecodeError at the end of the data.
   */
  static deserialize(data: ByteReader | Uint8Array, options: Omit<AddrManOptions, 'key'> = {}): AddrMan {
    const r = data instanceof ByteReader ? data : new ByteReader(data);
    const format = r.u8();
    const compat = r.u8();
    if (compat < INCOMPATIBILITY_BASE) {
      throw new AddrManFormatError(`Corrupted addrman database: The compat value (${compat}) is lower than the expected minimum value ${INCOMPATIBILITY_BASE}.`);
    }
    const lowestCompatible = compat - INCOMPATIBILITY_BASE;
    if (lowestCompatible > ADDRMAN_FORMAT.V4_MULTIPORT) {
      throw new AddrManVersionError(
        `Unsupported format of addrman database: ${format}. It is compatible with formats >=${lowestCompatible}, but the maximum supported by this version of tsbtcd is ${ADDRMAN_FORMAT.V4_MULTIPORT}.`,
      );
    }
    const v2 = format >= ADDRMAN_FORMAT.V3_BIP155;
    // A zero nKey is taken as read: the consistency check refuses it (-16), as Core's does.
    const m = new AddrMan({ ...options, key: r.slice(32) });
    return m.#unserialize(r, format, v2);
  }

  #unserialize(r: ByteReader, format: number, v2: boolean): AddrMan {
    const nNew = r.i32();
    let nTried = r.i32();
    let nUBuckets = r.i32();
    if (format >= ADDRMAN_FORMAT.V1_DETERMINISTIC) nUBuckets ^= 1 << 30;
    const maxNew = ADDRMAN_NEW_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE;
    const maxTried = ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE;
    if (nNew > maxNew || nNew < 0) throw new AddrManFormatError(`Corrupt AddrMan serialization: nNew=${nNew}, should be in [0, ${maxNew}]`);
    if (nTried > maxTried || nTried < 0) throw new AddrManFormatError(`Corrupt AddrMan serialization: nTried=${nTried}, should be in [0, ${maxTried}]`);

    for (let n = 0; n < nNew; n++) {
      const info = readAddrInfo(r, v2);
      this.#mapInfo.set(n, info);
      this.#mapAddr.set(info.mapKey, n);
      info.randomPos = this.#vRandom.length;
      this.#vRandom.push(n);
      this.#counts(info.network).nNew++;
    }
    this.#nNew = nNew;
    this.#idCount = nNew;

    let lost = 0;
    for (let n = 0; n < nTried; n++) {
      const info = readAddrInfo(r, v2);
      const bucket = triedBucketOf(this.#key, info.serKey, info.serGroup);
      const slot = bucket * ADDRMAN_BUCKET_SIZE + bucketPositionOf(this.#key, false, bucket, info.serKey);
      if (coreIsValid(info.addr) && this.#vvTried[slot] === -1) {
        info.randomPos = this.#vRandom.length;
        info.inTried = true;
        this.#vRandom.push(this.#idCount);
        this.#mapInfo.set(this.#idCount, info);
        this.#mapAddr.set(info.mapKey, this.#idCount);
        this.#vvTried[slot] = this.#idCount;
        this.#idCount++;
        this.#counts(info.network).nTried++;
      } else {
        lost++;
      }
    }
    nTried -= lost;
    this.#nTried = nTried;

    // Bucket entries to apply once the asmap version is known.
    const bucketEntries: [number, number][] = [];
    for (let bucket = 0; bucket < nUBuckets; bucket++) {
      const numEntries = r.i32();
      for (let n = 0; n < numEntries; n++) {
        const index = r.i32();
        if (index >= 0 && index < nNew) bucketEntries.push([bucket, index]);
      }
    }
    let asmapVersion: Uint8Array = new Uint8Array(32);
    if (format >= ADDRMAN_FORMAT.V2_ASMAP) asmapVersion = r.slice(32);
    // Restore the positions when bucketing has not changed (no asmap here).
    const restore = nUBuckets === ADDRMAN_NEW_BUCKET_COUNT && asmapVersion.every((b) => b === 0);
    for (const [fileBucket, index] of bucketEntries) {
      const info = this.#info(index);
      if (!coreIsValid(info.addr)) continue;
      if (info.refCount >= ADDRMAN_NEW_BUCKETS_PER_ADDRESS) continue;
      let bucket = fileBucket;
      let pos = bucketPositionOf(this.#key, true, bucket, info.serKey);
      if (restore && this.#vvNew[bucket * ADDRMAN_BUCKET_SIZE + pos] === -1) {
        this.#vvNew[bucket * ADDRMAN_BUCKET_SIZE + pos] = index;
        info.refCount++;
      } else {
        // Re-bucket by the entry's own source.
        bucket = newBucketOf(this.#key, info.serGroup, info.serSourceGroup);
        pos = bucketPositionOf(this.#key, true, bucket, info.serKey);
        if (this.#vvNew[bucket * ADDRMAN_BUCKET_SIZE + pos] === -1) {
          this.#vvNew[bucket * ADDRMAN_BUCKET_SIZE + pos] = index;
          info.refCount++;
        }
      }
    }
    // Prune new entries left with no bucket (collisions, invalid addresses).
    for (const [id, info] of [...this.#mapInfo]) {
      if (!info.inTried && info.refCount === 0) this.#delete(id);
    }
    const code = this.check();
    if (code !== 0) throw new AddrManFormatError(`Corrupt data. Consistency check failed with code ${code}`);
    return this;
  }
}

// ---------------------------------------------------------------------------------------
// The AddrInfo record (AddrInfo::SERIALIZE_METHODS under CAddress::V1_DISK / V2_DISK)

/** AddrManImpl::Format. */
export const ADDRMAN_FORMAT = { V0_HISTORICAL: 0, V1_DETERMINISTIC: 1, V2_ASMAP: 2, V3_BIP155: 3, V4_MULTIPORT: 4 } as const;
const INCOMPATIBILITY_BASE = 32;
const DISK_VERSION_INIT = 220000;
const DISK_VERSION_IGNORE_MASK = 0x7ffff;
const DISK_VERSION_ADDRV2 = 1 << 29;
const MAX_ADDRV2_SIZE = 512;
const MAX_SIZE = 0x02000000;
const BIP155_LENGTH: Readonly<Record<number, [string, number]>> = {
  1: ['IPv4', 4],
  2: ['IPv6', 16],
  4: ['TORv3', 32],
  5: ['I2P', 32],
  6: ['CJDNS', 16],
};

function writeCompactSize64(w: ByteWriter, v: bigint): void {
  if (v < 0xfdn) w.u8(Number(v));
  else if (v <= 0xffffn) w.u8(0xfd).u16(Number(v));
  else if (v <= 0xffffffffn) w.u8(0xfe).u32(Number(v));
  else w.u8(0xff).u64(v);
}

/** Core's ReadCompactSize, its messages included; the value as a bigint. */
function readCompactSize64(r: ByteReader, rangeCheck: boolean): bigint {
  const first = r.u8();
  let v: bigint;
  if (first < 0xfd) v = BigInt(first);
  else if (first === 0xfd) {
    v = BigInt(r.u16());
    if (v < 0xfdn) throw new AddrManFormatError('non-canonical ReadCompactSize()');
  } else if (first === 0xfe) {
    v = BigInt(r.u32());
    if (v < 0x10000n) throw new AddrManFormatError('non-canonical ReadCompactSize()');
  } else {
    v = r.u64();
    if (v < 0x100000000n) throw new AddrManFormatError('non-canonical ReadCompactSize()');
  }
  if (rangeCheck && v > BigInt(MAX_SIZE)) throw new AddrManFormatError('ReadCompactSize(): size too large');
  return v;
}

function writeNetAddrV2(w: ByteWriter, a: CoreAddr): void {
  const { network, address } = toBip155(a);
  w.u8(network).compactSize(address.length).bytes(address);
}

/** CNetAddr::UnserializeV2Stream. */
function readNetAddrV2(r: ByteReader): CoreAddr {
  const network = r.u8();
  const size = Number(readCompactSize64(r, true));
  if (size > MAX_ADDRV2_SIZE) throw new AddrManFormatError(`Address too long: ${size} > ${MAX_ADDRV2_SIZE}`);
  const known = BIP155_LENGTH[network];
  if (known) {
    if (size !== known[1]) throw new AddrManFormatError(`BIP155 ${known[0]} address with length ${size} (should be ${known[1]})`);
    return fromBip155({ network, address: r.slice(size) });
  }
  // An unknown network (from the future?): skipped, read as invalid.
  r.slice(size);
  return INVALID;
}

function writeAddrInfo(w: ByteWriter, info: AddrInfo): void {
  w.u32(DISK_VERSION_INIT | DISK_VERSION_ADDRV2);
  w.u32(info.time);
  writeCompactSize64(w, info.services);
  writeNetAddrV2(w, info.addr);
  w.u8(info.port >>> 8).u8(info.port & 0xff);
  writeNetAddrV2(w, info.source);
  w.i64(BigInt(info.lastSuccess));
  w.i32(info.attempts);
}

function readAddrInfo(r: ByteReader, v2Stream: boolean): AddrInfo {
  const version = (r.u32() & ~DISK_VERSION_IGNORE_MASK) >>> 0;
  let v2: boolean;
  if (version === 0) v2 = false;
  else if (version === DISK_VERSION_ADDRV2 && v2Stream) v2 = true;
  else throw new AddrManFormatError('Unsupported CAddress disk format version');
  const time = r.u32();
  const services = v2 ? readCompactSize64(r, false) : r.u64();
  const addr = v2 ? readNetAddrV2(r) : fromLegacyIpv6(r.slice(16));
  const port = (r.u8() << 8) | r.u8();
  // The source follows the stream's encoding, not the record's version word.
  const source = v2Stream ? readNetAddrV2(r) : fromLegacyIpv6(r.slice(16));
  const lastSuccess = Number(r.i64());
  const attempts = r.i32();
  const info = new AddrInfo(addr, port, time, services, source);
  info.lastSuccess = lastSuccess;
  info.attempts = attempts;
  return info;
}

/** Whether `err` is the end of the data (a truncated serialization). */
export function isEndOfData(err: unknown): boolean {
  return err instanceof DecodeError && err.message.startsWith('unexpected end of data');
}
