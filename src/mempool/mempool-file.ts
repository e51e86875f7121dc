/**
 * mempool.dat in Core's format (node/mempool_persist.cpp, v31), so the file moves between
 * bitcoind and tsbtcd both ways:
 *
 *   u64 version                      1: plain; 2: an obfuscation key follows
 *   [version 2] CompactSize 8 ‖ key  the 8-byte key (a std::vector<std::byte>)
 *   — from here on, with version 2, the byte at file offset p is XOR-ed with key[p % 8] —
 *   u64 count, then per transaction:  transaction with witness ‖ i64 entry time ‖ i64 fee delta
 *   map<txid, i64>                    prioritisations of transactions not in the file
 *   set<txid>                         the unbroadcast txids
 *
 * Maps and sets are a CompactSize count and their elements in std::map/std::set order: the
 * txids' internal bytes compared as by memcmp. Reading is sequential, as Core's is, so a
 * damaged file still yields what came before the damage.
 */
import { ByteReader, ByteWriter, compareBytes, DecodeError, readTransaction, type Transaction } from '../primitives/index.js';

/** MEMPOOL_DUMP_VERSION_NO_XOR_KEY. */
export const MEMPOOL_DUMP_VERSION_PLAIN = 1n;
/** MEMPOOL_DUMP_VERSION: what Core writes unless -persistmempoolv1. */
export const MEMPOOL_DUMP_VERSION_OBFUSCATED = 2n;
/** Obfuscation::KEY_SIZE. */
export const MEMPOOL_OBFUSCATION_KEY_SIZE = 8;

export interface MempoolFileTx {
  readonly tx: Transaction;
  /** Unix seconds the transaction entered the pool. */
  readonly time: number;
  /** Its prioritisetransaction delta (satoshis). */
  readonly feeDelta: bigint;
}

/** A txid in internal byte order with a prioritisation. */
export interface MempoolFileDelta {
  readonly txid: Uint8Array;
  readonly delta: bigint;
}

export interface MempoolFileContent {
  readonly txs: readonly { readonly tx: Transaction; readonly time: number; readonly feeDelta: bigint }[];
  readonly deltas: readonly MempoolFileDelta[];
  /** Txids (internal byte order) not yet announced to a peer. */
  readonly unbroadcast: readonly Uint8Array[];
}

function xorFrom(bytes: Uint8Array, start: number, key: Uint8Array): void {
  for (let p = start; p < bytes.length; p++) bytes[p]! ^= key[p % MEMPOOL_OBFUSCATION_KEY_SIZE]!;
}

/**
 * Core's DumpMempool serialization. With `obfuscationKey` (8 bytes) the file is version 2,
 * without it version 1 (-persistmempoolv1). Deltas and unbroadcast txids are sorted here.
 */
export function encodeMempoolFile(content: MempoolFileContent, obfuscationKey?: Uint8Array): Uint8Array {
  if (obfuscationKey && obfuscationKey.length !== MEMPOOL_OBFUSCATION_KEY_SIZE) throw new RangeError(`obfuscation key must be ${MEMPOOL_OBFUSCATION_KEY_SIZE} bytes`);
  const w = new ByteWriter(1024);
  w.u64(obfuscationKey ? MEMPOOL_DUMP_VERSION_OBFUSCATED : MEMPOOL_DUMP_VERSION_PLAIN);
  if (obfuscationKey) w.varBytes(obfuscationKey);
  const obfuscatedFrom = w.finish().length;
  w.u64(BigInt(content.txs.length));
  for (const { tx, time, feeDelta } of content.txs) w.bytes(tx.toBytes()).i64(BigInt(time)).i64(feeDelta);
  const deltas = [...content.deltas].sort((a, b) => compareBytes(a.txid, b.txid));
  w.compactSize(deltas.length);
  for (const { txid, delta } of deltas) w.bytes(txid).i64(delta);
  const unbroadcast = [...content.unbroadcast].sort(compareBytes);
  w.compactSize(unbroadcast.length);
  for (const txid of unbroadcast) w.bytes(txid);
  const out = w.finish().slice();
  if (obfuscationKey) xorFrom(out, obfuscatedFrom, obfuscationKey);
  return out;
}

/**
 * Core's end-of-file failure text (what LoadMempool logs for a truncated file); other
 * decode failures keep their own text.
 */
function coreFailureText(err: unknown): string {
  if (err instanceof DecodeError && err.message.startsWith('unexpected end of data')) return 'AutoFile::read: end of file: iostream error';
  return err instanceof Error ? err.message : String(err);
}

/** A failure to read the file, with the text Core's LoadMempool logs for it. */
export class MempoolFileError extends Error {}

/**
 * Reads a mempool.dat in Core's order: `open` (version and count), then `count` calls of
 * `nextTx`, then `deltas`, then `unbroadcast`. Each step throws a MempoolFileError at the
 * first damaged or missing byte. `open` answers undefined for an unknown version (Core
 * refuses it without a log line).
 */
export class MempoolFileReader {
  private readonly reader: ByteReader;
  /** The transactions the file announces. */
  count = 0n;

  private constructor(bytes: Uint8Array) {
    this.reader = new ByteReader(bytes);
  }

  static open(file: Uint8Array): MempoolFileReader | undefined {
    const bytes = file.slice();
    const self = new MempoolFileReader(bytes);
    return self.step(() => {
      const version = self.reader.u64();
      if (version === MEMPOOL_DUMP_VERSION_OBFUSCATED) {
        const key = self.reader.varBytes();
        if (key.length !== MEMPOOL_OBFUSCATION_KEY_SIZE) throw new DecodeError(`obfuscation key must be ${MEMPOOL_OBFUSCATION_KEY_SIZE} bytes, got ${key.length}`);
        xorFrom(bytes, self.reader.offset, key.slice());
      } else if (version !== MEMPOOL_DUMP_VERSION_PLAIN) {
        return undefined;
      }
      self.count = self.reader.u64();
      return self;
    });
  }

  private step<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      throw new MempoolFileError(coreFailureText(err), { cause: err });
    }
  }

  nextTx(): MempoolFileTx {
    return this.step(() => {
      const tx = readTransaction(this.reader);
      const time = this.reader.i64();
      const feeDelta = this.reader.i64();
      return { tx, time: Number(time), feeDelta };
    });
  }

  deltas(): MempoolFileDelta[] {
    return this.step(() => {
      const n = this.reader.compactSize();
      const out: MempoolFileDelta[] = [];
      for (let i = 0; i < n; i++) out.push({ txid: this.reader.slice(32), delta: this.reader.i64() });
      return out;
    });
  }

  unbroadcast(): Uint8Array[] {
    return this.step(() => {
      const n = this.reader.compactSize();
      const out: Uint8Array[] = [];
      for (let i = 0; i < n; i++) out.push(this.reader.slice(32));
      return out;
    });
  }
}
