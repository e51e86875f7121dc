/**
 * addr (v1) and addrv2 (BIP155) payloads. Entries carry a last-seen time, services and an
 * endpoint; addrv2 names the network and gives each network's address length, which the
 * decoder enforces (Core's CNetAddr::UnserializeV2Stream), and reads services as a
 * CompactSize. Unknown networks are kept as such, for the caller to skip, as BIP155 asks.
 */
import { ByteReader, ByteWriter, DecodeError } from '../primitives/index.js';
import { MAX_ADDR_TO_SEND } from './protocol.js';

/** BIP155 network IDs. */
export const BIP155_NETWORK = { IPV4: 1, IPV6: 2, TORV2: 3, TORV3: 4, I2P: 5, CJDNS: 6 } as const;
/** Address lengths per BIP155 network (Tor v2 is no longer accepted by Core, but its length is fixed). */
const ADDRESS_LENGTH: Readonly<Record<number, number>> = { 1: 4, 2: 16, 3: 10, 4: 32, 5: 32, 6: 16 };
/** Longest address BIP155 allows on the wire, for any network (MAX_ADDRV2_SIZE). */
const MAX_ADDRV2_SIZE = 512;

export interface PeerAddress {
  /** Last seen, seconds since the epoch. */
  readonly time: number;
  readonly services: bigint;
  readonly network: number;
  readonly address: Uint8Array;
  readonly port: number;
}

const IPV4_MAPPED_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff);

function writePort(w: ByteWriter, port: number): void {
  w.u8(port >>> 8).u8(port & 0xff);
}

function readPort(r: ByteReader): number {
  return (r.u8() << 8) | r.u8();
}

function checkCount(r: ByteReader): number {
  const count = r.compactSize();
  if (count > MAX_ADDR_TO_SEND) throw new DecodeError(`${count} addresses, over ${MAX_ADDR_TO_SEND}`);
  return count;
}

/** addr: IPv4 and IPv6 only; IPv4 travels mapped into IPv6. */
export function encodeAddr(entries: readonly PeerAddress[]): Uint8Array {
  if (entries.length > MAX_ADDR_TO_SEND) throw new RangeError(`${entries.length} addresses, over ${MAX_ADDR_TO_SEND}`);
  const w = new ByteWriter(3 + 30 * entries.length).compactSize(entries.length);
  for (const e of entries) {
    w.u32(e.time).u64(e.services);
    if (e.network === BIP155_NETWORK.IPV4 && e.address.length === 4) w.bytes(IPV4_MAPPED_PREFIX).bytes(e.address);
    else if (e.network === BIP155_NETWORK.IPV6 && e.address.length === 16) w.bytes(e.address);
    else throw new RangeError('addr carries only IPv4 and IPv6 addresses');
    writePort(w, e.port);
  }
  return w.finish();
}

export function decodeAddr(payload: Uint8Array): PeerAddress[] {
  const r = new ByteReader(payload);
  const count = checkCount(r);
  const entries: PeerAddress[] = [];
  for (let i = 0; i < count; i++) {
    const time = r.u32();
    const services = r.u64();
    const ip = r.slice(16);
    const port = readPort(r);
    const mapped = IPV4_MAPPED_PREFIX.every((b, j) => ip[j] === b);
    entries.push({ time, services, network: mapped ? BIP155_NETWORK.IPV4 : BIP155_NETWORK.IPV6, address: mapped ? ip.subarray(12) : ip, port });
  }
  r.assertEnd();
  return entries;
}

export function encodeAddrV2(entries: readonly PeerAddress[]): Uint8Array {
  if (entries.length > MAX_ADDR_TO_SEND) throw new RangeError(`${entries.length} addresses, over ${MAX_ADDR_TO_SEND}`);
  const w = new ByteWriter(3 + 40 * entries.length).compactSize(entries.length);
  for (const e of entries) {
    const length = ADDRESS_LENGTH[e.network];
    if (length !== undefined && e.address.length !== length) throw new RangeError(`network ${e.network} addresses are ${length} bytes`);
    w.u32(e.time).compactSize(Number(e.services)).u8(e.network).varBytes(e.address);
    writePort(w, e.port);
  }
  return w.finish();
}

export function decodeAddrV2(payload: Uint8Array): PeerAddress[] {
  const r = new ByteReader(payload);
  const count = checkCount(r);
  const entries: PeerAddress[] = [];
  for (let i = 0; i < count; i++) {
    const time = r.u32();
    // A CompactSize here, unlike addr's fixed 64 bits; Core reads it as a 64-bit value.
    const services = BigInt(r.compactSize(false));
    const network = r.u8();
    const length = r.compactSize();
    if (length > MAX_ADDRV2_SIZE) throw new DecodeError(`address of ${length} bytes, over ${MAX_ADDRV2_SIZE}`);
    const expected = ADDRESS_LENGTH[network];
    if (expected !== undefined && length !== expected) throw new DecodeError(`BIP155 network ${network} address with length ${length} (must be ${expected})`);
    const address = r.slice(length);
    entries.push({ time, services, network, address, port: readPort(r) });
  }
  r.assertEnd();
  return entries;
}
