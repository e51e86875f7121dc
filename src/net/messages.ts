/**
 * Payload codecs of the P2P messages (Core's net_processing.cpp and protocol.h
 * serializations). Decoders read untrusted bytes: every count is checked against Core's
 * limit before anything is allocated, trailing bytes are refused where Core's stream would
 * leave them unread only for messages that define optional tails (version), and any
 * malformation is a DecodeError.
 */
import { ByteReader, ByteWriter, DecodeError, readHeader, type BlockHeader } from '../primitives/index.js';
import { MAX_HEADERS_RESULTS, MAX_INV_SZ, MAX_LOCATOR_SZ, MAX_SUBVERSION_LENGTH } from './protocol.js';

/** A network address as the version message carries it: no time field (CService + services). */
export interface VersionAddress {
  readonly services: bigint;
  /** 16 bytes: IPv6, or IPv4 mapped into ::ffff:0:0/96. */
  readonly ip: Uint8Array;
  readonly port: number;
}

export interface VersionMessage {
  readonly version: number;
  readonly services: bigint;
  /** Seconds since the epoch, signed 64-bit on the wire. */
  readonly timestamp: bigint;
  readonly receiver: VersionAddress;
  readonly sender: VersionAddress;
  readonly nonce: bigint;
  readonly userAgent: string;
  readonly startHeight: number;
  /** BIP37's fRelay; absent (true) from old peers. */
  readonly relay: boolean;
}

export interface InventoryItem {
  readonly type: number;
  /** Internal byte order. */
  readonly hash: Uint8Array;
}

export interface BlockLocatorRequest {
  /** The sender's protocol version, as Core writes it (and ignores when reading). */
  readonly version: number;
  /** Newest first; internal byte order. */
  readonly locator: readonly Uint8Array[];
  /** All zero for "as many as allowed". */
  readonly stop: Uint8Array;
}

function writeAddress(w: ByteWriter, a: VersionAddress): void {
  if (a.ip.length !== 16) throw new RangeError('an address is 16 bytes (IPv4 mapped into IPv6)');
  w.u64(a.services).bytes(a.ip);
  // The port is big-endian on the wire.
  w.u8(a.port >>> 8).u8(a.port & 0xff);
}

function readAddress(r: ByteReader): VersionAddress {
  const services = r.u64();
  const ip = r.slice(16);
  const port = (r.u8() << 8) | r.u8();
  return { services, ip, port };
}

/** An IPv4 address mapped into the 16-byte form. */
export function ipv4Mapped(a: number, b: number, c: number, d: number): Uint8Array {
  return Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d);
}

export function encodeVersion(m: VersionMessage): Uint8Array {
  const agent = new TextEncoder().encode(m.userAgent);
  if (agent.length > MAX_SUBVERSION_LENGTH) throw new RangeError(`user agent over ${MAX_SUBVERSION_LENGTH} bytes`);
  const w = new ByteWriter(128);
  w.i32(m.version).u64(m.services).i64(m.timestamp);
  writeAddress(w, m.receiver);
  writeAddress(w, m.sender);
  w.u64(m.nonce).varBytes(agent).i32(m.startHeight).u8(m.relay ? 1 : 0);
  return w.finish();
}

/**
 * Core reads the fields after the receiver's address only if present (very old peers sent
 * less), and ignores bytes after fRelay.
 */
export function decodeVersion(payload: Uint8Array): VersionMessage {
  const r = new ByteReader(payload);
  const version = r.i32();
  const services = r.u64();
  const timestamp = r.i64();
  const receiver = readAddress(r);
  const none: VersionAddress = { services: 0n, ip: new Uint8Array(16), port: 0 };
  const sender = r.remaining > 0 ? readAddress(r) : none;
  const nonce = r.remaining > 0 ? r.u64() : 0n;
  let userAgent = '';
  if (r.remaining > 0) {
    const length = r.compactSize();
    if (length > MAX_SUBVERSION_LENGTH) throw new DecodeError(`user agent of ${length} bytes, over ${MAX_SUBVERSION_LENGTH}`);
    userAgent = new TextDecoder().decode(r.slice(length));
  }
  const startHeight = r.remaining > 0 ? r.i32() : 0;
  const relay = r.remaining > 0 ? r.u8() !== 0 : true;
  return { version, services, timestamp, receiver, sender, nonce, userAgent, startHeight, relay };
}

/** ping and pong: one 64-bit nonce. */
export function encodeNonce(nonce: bigint): Uint8Array {
  return new ByteWriter(8).u64(nonce).finish();
}

/** Reads a whole payload with `read`; bytes left over are a DecodeError. */
function decodeWhole<T>(payload: Uint8Array, read: (r: ByteReader) => T): T {
  const r = new ByteReader(payload);
  const value = read(r);
  r.assertEnd();
  return value;
}

export function decodeNonce(payload: Uint8Array): bigint {
  return decodeWhole(payload, (r) => r.u64());
}

/** feefilter (BIP133): a fee rate in satoshis per 1,000 virtual bytes, signed 64-bit. */
export function encodeFeeFilter(satPerKvB: bigint): Uint8Array {
  return new ByteWriter(8).i64(satPerKvB).finish();
}

export function decodeFeeFilter(payload: Uint8Array): bigint {
  return decodeWhole(payload, (r) => r.i64());
}

/** sendcmpct (BIP152): high-bandwidth mode and the compact block version (2 for witness). */
export function encodeSendCmpct(highBandwidth: boolean, version: bigint): Uint8Array {
  return new ByteWriter(9).u8(highBandwidth ? 1 : 0).u64(version).finish();
}

export function decodeSendCmpct(payload: Uint8Array): { highBandwidth: boolean; version: bigint } {
  return decodeWhole(payload, (r) => ({ highBandwidth: r.u8() !== 0, version: r.u64() }));
}

/** inv, getdata and notfound. */
export function encodeInventory(items: readonly InventoryItem[]): Uint8Array {
  if (items.length > MAX_INV_SZ) throw new RangeError(`${items.length} inventory entries, over ${MAX_INV_SZ}`);
  const w = new ByteWriter(9 + 36 * items.length).compactSize(items.length);
  for (const item of items) {
    if (item.hash.length !== 32) throw new RangeError('an inventory hash is 32 bytes');
    w.u32(item.type).bytes(item.hash);
  }
  return w.finish();
}

export function decodeInventory(payload: Uint8Array): InventoryItem[] {
  const r = new ByteReader(payload);
  const count = r.compactSize();
  if (count > MAX_INV_SZ) throw new DecodeError(`${count} inventory entries, over ${MAX_INV_SZ}`);
  const items: InventoryItem[] = [];
  for (let i = 0; i < count; i++) items.push({ type: r.u32(), hash: r.slice(32) });
  r.assertEnd();
  return items;
}

/** getheaders and getblocks. */
export function encodeLocatorRequest(m: BlockLocatorRequest): Uint8Array {
  if (m.locator.length > MAX_LOCATOR_SZ) throw new RangeError(`${m.locator.length} locator hashes, over ${MAX_LOCATOR_SZ}`);
  const w = new ByteWriter(41 + 32 * m.locator.length).u32(m.version).compactSize(m.locator.length);
  for (const hash of m.locator) w.bytes(hash);
  return w.bytes(m.stop).finish();
}

/**
 * Core reads a locator of any length and then disconnects a peer whose locator is longer
 * than MAX_LOCATOR_SZ; the decoder refuses it outright, before reading the hashes.
 */
export function decodeLocatorRequest(payload: Uint8Array): BlockLocatorRequest {
  const r = new ByteReader(payload);
  const version = r.u32();
  const count = r.compactSize();
  if (count > MAX_LOCATOR_SZ) throw new DecodeError(`${count} locator hashes, over ${MAX_LOCATOR_SZ}`);
  const locator: Uint8Array[] = [];
  for (let i = 0; i < count; i++) locator.push(r.slice(32));
  const stop = r.slice(32);
  r.assertEnd();
  return { version, locator, stop };
}

/** headers: each header followed by a transaction count, which must be 0. */
export function encodeHeaders(headers: readonly BlockHeader[]): Uint8Array {
  if (headers.length > MAX_HEADERS_RESULTS) throw new RangeError(`${headers.length} headers, over ${MAX_HEADERS_RESULTS}`);
  const w = new ByteWriter(3 + 81 * headers.length).compactSize(headers.length);
  for (const header of headers) w.bytes(header.toBytes()).u8(0);
  return w.finish();
}

export function decodeHeaders(payload: Uint8Array): BlockHeader[] {
  const r = new ByteReader(payload);
  const count = r.compactSize();
  if (count > MAX_HEADERS_RESULTS) throw new DecodeError(`${count} headers, over ${MAX_HEADERS_RESULTS}`);
  const headers: BlockHeader[] = [];
  for (let i = 0; i < count; i++) {
    headers.push(readHeader(r));
    if (r.compactSize() !== 0) throw new DecodeError('a header in a headers message is followed by a transaction count other than 0');
  }
  r.assertEnd();
  return headers;
}
