/**
 * anchors.dat as Core's addrdb.cpp writes and reads it (DumpAnchors / ReadAnchors): the
 * addresses of up to two block-relay-only outbound peers at a clean shutdown, tried first
 * at the next start so that a restart does not hand an attacker fresh block-relay slots.
 * The file has peers.dat's framing (SerializeFileDB): the network's message start, a
 * vector of CAddress in the addrv2 disk format (CAddress::V2_DISK), and SHA-256d of both.
 */
import { readFileSync, rmSync } from 'node:fs';
import { ByteReader, ByteWriter, bytesEqual, concatBytes, sha256d } from '../primitives/index.js';
import { writeFileAtomic } from '../storage/index.js';
import { BIP155_NETWORK, type PeerAddress } from './addresses.js';
import { BIP155_ADDRESS_LENGTH } from './fixed-seeds.js';

/** Core's ANCHORS_DATABASE_FILENAME. */
export const ANCHORS_FILENAME = 'anchors.dat';
/** Core's MAX_BLOCK_RELAY_ONLY_ANCHORS. */
export const MAX_BLOCK_RELAY_ONLY_ANCHORS = 2;

/** CAddress's disk format words: DISK_VERSION_INIT, DISK_VERSION_ADDRV2 and the bits a reader ignores. */
const DISK_VERSION_INIT = 220000;
const DISK_VERSION_ADDRV2 = 1 << 29;
const DISK_VERSION_IGNORE_MASK = 0x7ffff;
/** Core's MAX_ADDRV2_SIZE and MAX_SIZE. */
const MAX_ADDRV2_SIZE = 512;
const MAX_SIZE = 0x02000000;
const IPV4_MAPPED_PREFIX = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff);

function writeAddress(w: ByteWriter, a: PeerAddress): void {
  w.u32((DISK_VERSION_INIT | DISK_VERSION_ADDRV2) >>> 0).u32(a.time);
  // Services as a CompactSize in the v2 encoding.
  w.compactSize(Number(a.services));
  w.u8(a.network).compactSize(a.address.length).bytes(a.address);
  w.u8(a.port >>> 8).u8(a.port & 0xff);
}

/**
 * One CAddress (Core's SERIALIZE_METHODS with Format::Disk, Encoding::V2): the version
 * word chooses v1 (16-byte address, 64-bit services) or addrv2; an address of a network
 * Core does not know is read and kept as it is (Core reads it as invalid, and skips it).
 */
function readAddress(r: ByteReader): PeerAddress {
  const version = (r.u32() & ~DISK_VERSION_IGNORE_MASK) >>> 0;
  if (version !== 0 && version !== DISK_VERSION_ADDRV2) throw new RangeError('Unsupported CAddress disk format version');
  const v2 = version === DISK_VERSION_ADDRV2;
  const time = r.u32();
  const services = v2 ? BigInt(r.compactSize(false)) : r.u64();
  let network: number;
  let address: Uint8Array;
  if (v2) {
    network = r.u8();
    const length = r.compactSize();
    if (length > MAX_ADDRV2_SIZE) throw new RangeError(`Address too long: ${length} > ${MAX_ADDRV2_SIZE}`);
    const expected = BIP155_ADDRESS_LENGTH[network];
    if (expected !== undefined && length !== expected) throw new RangeError(`BIP155 network ${network} address with length ${length} (should be ${expected})`);
    address = r.slice(length);
  } else {
    const ip = r.slice(16);
    const mapped = IPV4_MAPPED_PREFIX.every((b, i) => ip[i] === b);
    network = mapped ? BIP155_NETWORK.IPV4 : BIP155_NETWORK.IPV6;
    address = mapped ? ip.slice(12) : ip;
  }
  const port = (r.u8() << 8) | r.u8();
  return { time, services, network, address, port };
}

/** The anchors.dat bytes for these addresses: message start, vector<CAddress> (V2_DISK), SHA-256d of both. */
export function encodeAnchors(addresses: readonly PeerAddress[], messageStart: Uint8Array): Uint8Array {
  const w = new ByteWriter(64 + 64 * addresses.length).bytes(messageStart).compactSize(addresses.length);
  for (const a of addresses) writeAddress(w, a);
  const body = w.finish();
  return concatBytes(body, sha256d(body));
}

/** The addresses of anchors.dat bytes; throws as Core's DeserializeDB does (magic, truncation, checksum). */
export function decodeAnchors(bytes: Uint8Array, messageStart: Uint8Array): PeerAddress[] {
  const r = new ByteReader(bytes);
  if (!bytesEqual(r.slice(messageStart.length), messageStart)) throw new RangeError('Invalid network magic number');
  const count = r.compactSize();
  if (count > MAX_SIZE) throw new RangeError('ReadCompactSize(): size too large');
  const out: PeerAddress[] = [];
  for (let i = 0; i < count; i++) out.push(readAddress(r));
  const hashed = bytes.subarray(0, r.offset);
  if (!bytesEqual(r.slice(32), sha256d(hashed))) throw new RangeError('Checksum mismatch, data corrupted');
  return out;
}

/** Core's DumpAnchors (SerializeFileDB("anchors", ...)): written to a temporary file, then renamed into place. */
export function writeAnchors(path: string, addresses: readonly PeerAddress[], messageStart: Uint8Array): void {
  writeFileAtomic(path, encodeAnchors(addresses, messageStart));
}

/**
 * Core's ReadAnchors: the addresses in the file, or none when it is missing or cannot be
 * read (no error: a bad anchors.dat costs only the anchors); the file is removed either way,
 * so a crash before the next clean shutdown leaves no stale anchors behind.
 */
export function readAnchors(path: string, messageStart: Uint8Array): PeerAddress[] | undefined {
  let addresses: PeerAddress[] | undefined;
  try {
    addresses = decodeAnchors(new Uint8Array(readFileSync(path)), messageStart);
  } catch {
    addresses = undefined;
  }
  rmSync(path, { force: true });
  return addresses;
}
