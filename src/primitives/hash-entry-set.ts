/**
 * A bounded set of 32-byte hash entries in one flat buffer: the store behind Core's
 * signature cache and script-execution cache (Core's CuckooCache plays this role). Entries
 * are salted hashes, so their first bytes are already uniform and serve as the bucket
 * index; nothing here hashes again.
 *
 * The buffer may be a SharedArrayBuffer: the signature cache is one table seen by the
 * coordinator and every worker thread (separate isolates that share no JS objects). Each
 * bucket has a sequence counter (a seqlock): a writer makes it odd while it writes and
 * even again after, and a reader that sees it odd or changed across its read reports a
 * miss. A miss only costs a verification, so a writer that finds the bucket busy simply
 * skips its insert instead of waiting.
 *
 * Layout (little-endian u32 words, then bytes):
 *
 * | part | size | meaning |
 * |---|---|---|
 * | header | 16 B | magic "THS1", bucket count, 8 reserved bytes |
 * | salt | 64 B | the owner's random salt (a cache's hashers read it; see SignatureCache) |
 * | sequence | 4 B per bucket | seqlock counter of each bucket |
 * | state | 1 B per slot | 0 empty, 1 live, 2 collectable (a hit told us it will not be needed again) |
 * | entries | 32 B per slot | the entries, `SLOTS_PER_BUCKET` slots per bucket |
 *
 * Like CuckooCache, a hit may mark its entry collectable (block validation does: a
 * transaction in a connected block is not checked again), which keeps it findable but
 * makes it the first to be overwritten.
 */

const MAGIC = 0x31534854; // "THS1"
const HEADER_BYTES = 16;
export const HASH_ENTRY_SALT_BYTES = 64;
export const SLOTS_PER_BUCKET = 4;
const ENTRY_BYTES = 32;
const ENTRY_WORDS = ENTRY_BYTES / 4;
/** Bytes one bucket costs: its sequence word, slot states and entries. */
const BUCKET_BYTES = 4 + SLOTS_PER_BUCKET * (1 + ENTRY_BYTES);

const EMPTY = 0;
const LIVE = 1;
const COLLECTABLE = 2;

export class HashEntrySetFormatError extends Error {
  override readonly name = 'HashEntrySetFormatError';
}

export class HashEntrySet {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  readonly bucketCount: number;
  readonly salt: Uint8Array;
  readonly #sequence: Int32Array;
  readonly #state: Uint8Array;
  readonly #entries: Int32Array;
  readonly #shared: boolean;

  /** How many buckets fit in `maxBytes` with the header and salt (at least one). */
  static bucketsFor(maxBytes: number): number {
    return Math.max(1, Math.floor(Math.max(0, maxBytes - HEADER_BYTES - HASH_ENTRY_SALT_BYTES) / BUCKET_BYTES));
  }

  /**
   * A new empty set using at most `maxBytes` (but never less than one bucket), with `salt`
   * stored in it; `shared` puts it in a SharedArrayBuffer that threads can attach to.
   */
  static create(maxBytes: number, salt: Uint8Array, shared: boolean): HashEntrySet {
    if (salt.length !== HASH_ENTRY_SALT_BYTES) throw new RangeError(`salt must be ${HASH_ENTRY_SALT_BYTES} bytes`);
    const buckets = HashEntrySet.bucketsFor(maxBytes);
    const size = HEADER_BYTES + HASH_ENTRY_SALT_BYTES + buckets * BUCKET_BYTES;
    const buffer = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    const header = new DataView(buffer);
    header.setUint32(0, MAGIC, true);
    header.setUint32(4, buckets, true);
    new Uint8Array(buffer, HEADER_BYTES, HASH_ENTRY_SALT_BYTES).set(salt);
    return new HashEntrySet(buffer);
  }

  /** Attaches to a set made by `create` (in this thread or, when shared, another one). */
  constructor(buffer: ArrayBuffer | SharedArrayBuffer) {
    const header = new DataView(buffer);
    if (buffer.byteLength < HEADER_BYTES + HASH_ENTRY_SALT_BYTES || header.getUint32(0, true) !== MAGIC) {
      throw new HashEntrySetFormatError('not a hash entry set (bad magic)');
    }
    const buckets = header.getUint32(4, true);
    if (buffer.byteLength !== HEADER_BYTES + HASH_ENTRY_SALT_BYTES + buckets * BUCKET_BYTES) {
      throw new HashEntrySetFormatError(`a set of ${buckets} buckets cannot be ${buffer.byteLength} bytes`);
    }
    this.buffer = buffer;
    this.bucketCount = buckets;
    this.#shared = typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer;
    this.salt = new Uint8Array(buffer, HEADER_BYTES, HASH_ENTRY_SALT_BYTES);
    let offset = HEADER_BYTES + HASH_ENTRY_SALT_BYTES;
    this.#sequence = new Int32Array(buffer, offset, buckets);
    offset += 4 * buckets;
    this.#entries = new Int32Array(buffer, offset, buckets * SLOTS_PER_BUCKET * ENTRY_WORDS);
    offset += buckets * SLOTS_PER_BUCKET * ENTRY_BYTES;
    this.#state = new Uint8Array(buffer, offset, buckets * SLOTS_PER_BUCKET);
  }

  /** How many entries the set holds at most. */
  get capacity(): number {
    return this.bucketCount * SLOTS_PER_BUCKET;
  }

  /** The bytes the set occupies. */
  get byteLength(): number {
    return this.buffer.byteLength;
  }

  /** Whether `entry` (32 bytes) is in the set; `markCollectable` lets it be overwritten first from now on. */
  has(entry: Uint8Array, markCollectable: boolean): boolean {
    const words = entryWords(entry);
    const bucket = bucketOf(words, this.bucketCount);
    const before = this.#shared ? Atomics.load(this.#sequence, bucket) : 0;
    if ((before & 1) !== 0) return false;
    const slot = this.#find(words, bucket);
    if (slot < 0) return false;
    if (this.#shared && Atomics.load(this.#sequence, bucket) !== before) return false;
    // Marking is a hint for eviction only: a lost race leaves a live entry live.
    if (markCollectable) this.#state[slot] = COLLECTABLE;
    return true;
  }

  /** Adds `entry`; when its bucket is full, the entry replaces a collectable one, else a pseudo-random one. */
  add(entry: Uint8Array): void {
    const words = entryWords(entry);
    const bucket = bucketOf(words, this.bucketCount);
    let before = 0;
    if (this.#shared) {
      before = Atomics.load(this.#sequence, bucket);
      // Another thread is writing this bucket: skipping costs at most one later verification.
      if ((before & 1) !== 0 || Atomics.compareExchange(this.#sequence, bucket, before, before + 1) !== before) return;
    }
    try {
      const existing = this.#find(words, bucket);
      if (existing >= 0) {
        this.#state[existing] = LIVE;
        return;
      }
      const first = bucket * SLOTS_PER_BUCKET;
      let slot = -1;
      for (let i = 0; i < SLOTS_PER_BUCKET && slot < 0; i++) if (this.#state[first + i] === EMPTY) slot = first + i;
      for (let i = 0; i < SLOTS_PER_BUCKET && slot < 0; i++) if (this.#state[first + i] === COLLECTABLE) slot = first + i;
      // Bits of the entry the bucket index did not use pick the victim: uniform, and free.
      if (slot < 0) slot = first + ((words[1]! >>> 0) % SLOTS_PER_BUCKET);
      this.#entries.set(words, slot * ENTRY_WORDS);
      this.#state[slot] = LIVE;
    } finally {
      if (this.#shared) Atomics.store(this.#sequence, bucket, before + 2);
    }
  }

  /** Live and collectable entries (a scan: for statistics and tests, not hot paths). */
  count(): number {
    let n = 0;
    for (const state of this.#state) if (state !== EMPTY) n++;
    return n;
  }

  #find(words: Int32Array, bucket: number): number {
    const first = bucket * SLOTS_PER_BUCKET;
    const entries = this.#entries;
    for (let slot = first; slot < first + SLOTS_PER_BUCKET; slot++) {
      if (this.#state[slot] === EMPTY) continue;
      const base = slot * ENTRY_WORDS;
      if (
        entries[base] === words[0] &&
        entries[base + 1] === words[1] &&
        entries[base + 2] === words[2] &&
        entries[base + 3] === words[3] &&
        entries[base + 4] === words[4] &&
        entries[base + 5] === words[5] &&
        entries[base + 6] === words[6] &&
        entries[base + 7] === words[7]
      ) {
        return slot;
      }
    }
    return -1;
  }
}

function entryWords(entry: Uint8Array): Int32Array {
  if (entry.length !== ENTRY_BYTES) throw new RangeError(`a hash entry is ${ENTRY_BYTES} bytes, got ${entry.length}`);
  // A fresh digest is its own 4-byte-aligned buffer; anything else is copied once.
  if (entry.byteOffset % 4 === 0) return new Int32Array(entry.buffer, entry.byteOffset, ENTRY_WORDS);
  return new Int32Array(entry.slice().buffer, 0, ENTRY_WORDS);
}

function bucketOf(words: Int32Array, buckets: number): number {
  return (words[0]! >>> 0) % buckets;
}
