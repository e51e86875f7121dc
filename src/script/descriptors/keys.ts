/**
 * Key expressions (Core's PubkeyProvider family): a constant key, an extended key with a
 * path and optional wildcard, a key with a declared origin, and a musig() aggregate. Each
 * derives the public key at a position and prints itself in public, private and
 * normalized form the way Core does, because getdescriptorinfo and listdescriptors
 * return those strings verbatim.
 */
import { toHex } from '../../primitives/index.js';
import {
  BIP32_HARDENED,
  deriveExtPrivKey,
  deriveExtPrivKeyPath,
  deriveExtPubKey,
  deriveExtPubKeyPath,
  encodeExtPrivKey,
  encodeExtPubKey,
  keyFingerprint,
  neuterExtKey,
  type ExtPrivKey,
  type ExtPubKey,
} from '../bip32.js';
import type { ChainName } from '../chain-prefixes.js';
import { encodeSecret } from '../wif.js';
import { formatKeyPath, hasHardenedStep, type DeriveType } from './keypath.js';
import type { KeyStore } from './keystore.js';
import { aggregatePublicKeys, musigSyntheticXpub, sortPublicKeys } from './musig.js';

export interface PrivateText {
  readonly text: string;
  /** Whether at least one private key was available and printed. */
  readonly hasPrivate: boolean;
}

export abstract class KeyExpression {
  /** Whether the key changes with the derivation position (a wildcard somewhere). */
  abstract isRange(): boolean;
  /** Core's GetSize: 33 or 65 for ECDSA keys, 32 for musig() (only used in tr()). */
  abstract size(): number;
  /** Whether this is an extended key that can be derived from (musig(): all participants are). */
  abstract isBip32(): boolean;
  /**
   * The public key at `pos` (33 or 65 bytes), or null when a hardened step needs a private
   * key `keys` does not hold, or BIP32 derivation fails.
   */
  abstract derive(pos: number, keys: KeyStore): Uint8Array | null;
  abstract toString(): string;
  abstract toPrivateString(keys: KeyStore): PrivateText;
  /** Core's ToNormalizedString: the xpub at the last hardened step; null if that needs a missing key. */
  abstract toNormalizedString(keys: KeyStore): string | null;
}

/** A literal public key, or one given as WIF. x-only keys are held as 02||x. */
export class ConstKey extends KeyExpression {
  constructor(
    readonly publicKey: Uint8Array,
    /** Printed as 64 hex digits (tr() contexts). */
    readonly xOnly: boolean,
    private readonly chain: ChainName,
  ) {
    super();
  }

  isRange(): boolean {
    return false;
  }

  size(): number {
    return this.publicKey.length;
  }

  isBip32(): boolean {
    return false;
  }

  derive(): Uint8Array {
    return this.publicKey;
  }

  override toString(): string {
    const hex = toHex(this.publicKey);
    return this.xOnly ? hex.slice(2) : hex;
  }

  toPrivateString(keys: KeyStore): PrivateText {
    const stored = this.xOnly ? keys.getByXOnly(this.publicKey.subarray(1)) : keys.get(this.publicKey);
    if (!stored) return { text: this.toString(), hasPrivate: false };
    return { text: encodeSecret(stored.secret, stored.compressed, this.chain), hasPrivate: true };
  }

  toNormalizedString(): string {
    return this.toString();
  }
}

/** How many public children a key keeps (a default descriptor range is 1001). */
const PUBLIC_CHILD_CACHE = 4096;

/** An extended key (xpub or xprv), a path below it and an optional `/*` or hardened `/*h`. */
export class Bip32Key extends KeyExpression {
  /** The extended public key after the fixed path, for keys with no hardened step. */
  private publicParent: ExtPubKey | null | undefined;
  /** Public children by position (bounded: a default range is 1001 positions). */
  private readonly publicChildren = new Map<number, Uint8Array | null>();
  /**
   * The extended private key after the fixed path, per key store (hardened paths need one).
   * Only found keys are remembered: a wallet's store gains its keys when it is unlocked.
   */
  private readonly privateParents = new WeakMap<KeyStore, ExtPrivKey>();

  constructor(
    readonly root: ExtPubKey,
    readonly path: readonly number[],
    readonly deriveType: DeriveType,
    /** Print hardened steps with ' (as written) rather than h. */
    readonly apostrophe: boolean,
    private readonly chain: ChainName,
  ) {
    super();
  }

  isRange(): boolean {
    return this.deriveType !== 'none';
  }

  size(): number {
    return 33;
  }

  isBip32(): boolean {
    return true;
  }

  /** Core's IsHardened: public derivation alone cannot produce the key. */
  private needsPrivateKey(): boolean {
    return this.deriveType === 'hardened' || hasHardenedStep(this.path);
  }

  private rootPrivateKey(keys: KeyStore): ExtPrivKey | null {
    const stored = keys.get(this.root.publicKey);
    return stored ? { ...this.root, privateKey: stored.secret } : null;
  }

  private privateParent(keys: KeyStore): ExtPrivKey | null {
    const known = this.privateParents.get(keys);
    if (known) return known;
    const root = this.rootPrivateKey(keys);
    const derived = root ? deriveExtPrivKeyPath(root, this.path) : null;
    if (derived) this.privateParents.set(keys, derived);
    return derived;
  }

  derive(pos: number, keys: KeyStore): Uint8Array | null {
    if (!this.needsPrivateKey()) {
      // Public derivation depends on the position alone: callers expanding a range repeatedly get it once.
      let derived = this.publicChildren.get(pos);
      if (derived === undefined) {
        if (this.publicChildren.size >= PUBLIC_CHILD_CACHE) this.publicChildren.clear();
        this.publicChildren.set(pos, (derived = this.derivePublic(pos)));
      }
      return derived;
    }
    let xprv = this.privateParent(keys);
    if (xprv && this.deriveType === 'unhardened') xprv = deriveExtPrivKey(xprv, pos);
    if (xprv && this.deriveType === 'hardened') xprv = deriveExtPrivKey(xprv, (pos | BIP32_HARDENED) >>> 0);
    return xprv ? neuterExtKey(xprv).publicKey : null;
  }

  /**
   * What Core's BIP32PubkeyProvider::GetPubKey writes to a descriptor cache expanding `pos`:
   * the parent xpub (after the fixed path) for a key not derived hardened at the end, with the
   * xpub at the path's last hardened step when the private key was needed; the derived xpub
   * itself for a hardened wildcard. Null when the key cannot be derived here (no private key).
   */
  cacheEntries(pos: number, keys: KeyStore): { parent?: ExtPubKey; lastHardened?: ExtPubKey; derived?: ExtPubKey } | null {
    if (!this.needsPrivateKey()) {
      if (this.publicParent === undefined) this.publicParent = deriveExtPubKeyPath(this.root, this.path);
      return this.publicParent ? { parent: this.publicParent } : null;
    }
    let xprv = this.rootPrivateKey(keys);
    let lastHardened: ExtPrivKey | null = null;
    for (const step of this.path) {
      xprv = xprv && deriveExtPrivKey(xprv, step);
      if (xprv && step >= BIP32_HARDENED) lastHardened = xprv;
    }
    if (!xprv) return null;
    if (this.deriveType === 'hardened') {
      const child = deriveExtPrivKey(xprv, (pos | BIP32_HARDENED) >>> 0);
      return child ? { derived: neuterExtKey(child) } : null;
    }
    return { parent: neuterExtKey(xprv), ...(lastHardened ? { lastHardened: neuterExtKey(lastHardened) } : {}) };
  }

  private derivePublic(pos: number): Uint8Array | null {
    if (this.publicParent === undefined) this.publicParent = deriveExtPubKeyPath(this.root, this.path);
    let xpub = this.publicParent;
    if (xpub && this.deriveType === 'unhardened') xpub = deriveExtPubKey(xpub, pos);
    return xpub ? xpub.publicKey : null;
  }

  private suffix(apostrophe: boolean): string {
    let out = formatKeyPath(this.path, apostrophe);
    if (this.isRange()) out += '/*';
    if (this.deriveType === 'hardened') out += apostrophe ? "'" : 'h';
    return out;
  }

  /** Public form; `normalized` forces h markers (Core's ToString with normalized=true). */
  override toString(normalized = false): string {
    return encodeExtPubKey(this.root, this.chain) + this.suffix(!normalized && this.apostrophe);
  }

  toPrivateString(keys: KeyStore): PrivateText {
    const xprv = this.rootPrivateKey(keys);
    if (!xprv) return { text: this.toString(), hasPrivate: false };
    return { text: encodeExtPrivKey(xprv, this.chain) + this.suffix(this.apostrophe), hasPrivate: true };
  }

  toNormalizedString(keys: KeyStore): string | null {
    if (this.deriveType === 'hardened') return this.toString(true);
    let last = this.path.length - 1;
    while (last >= 0 && this.path[last]! < BIP32_HARDENED) last--;
    // No hardened step: the key is already public-derivable as written.
    if (last < 0) return this.toString();
    const origin = this.path.slice(0, last + 1);
    const root = this.rootPrivateKey(keys);
    const lastHardened = root ? deriveExtPrivKeyPath(root, origin) : null;
    if (!lastHardened) return null;
    const fingerprint = toHex(keyFingerprint(this.root.publicKey));
    let out = `[${fingerprint}${formatKeyPath(origin, false)}]${encodeExtPubKey(neuterExtKey(lastHardened), this.chain)}`;
    out += formatKeyPath(this.path.slice(last + 1), false);
    if (this.isRange()) out += '/*';
    return out;
  }
}

/** `[fingerprint/path]KEY`: a key with its declared origin. */
export class OriginKey extends KeyExpression {
  constructor(
    readonly fingerprint: Uint8Array,
    readonly path: readonly number[],
    readonly inner: KeyExpression,
    readonly apostrophe: boolean,
  ) {
    super();
  }

  private origin(apostrophe: boolean): string {
    return toHex(this.fingerprint) + formatKeyPath(this.path, apostrophe);
  }

  isRange(): boolean {
    return this.inner.isRange();
  }

  size(): number {
    return this.inner.size();
  }

  isBip32(): boolean {
    return this.inner.isBip32();
  }

  derive(pos: number, keys: KeyStore): Uint8Array | null {
    return this.inner.derive(pos, keys);
  }

  override toString(): string {
    return `[${this.origin(this.apostrophe)}]${this.inner.toString()}`;
  }

  toPrivateString(keys: KeyStore): PrivateText {
    const inner = this.inner.toPrivateString(keys);
    return { text: `[${this.origin(this.apostrophe)}]${inner.text}`, hasPrivate: inner.hasPrivate };
  }

  toNormalizedString(keys: KeyStore): string | null {
    const inner = this.inner.toNormalizedString(keys);
    if (inner === null) return null;
    // A normalized extended key brings an origin of its own: keep our fingerprint, join the paths.
    if (inner.startsWith('[')) return `[${this.origin(false)}${inner.slice(9)}`;
    return `[${this.origin(false)}]${inner}`;
  }
}

/** musig(KEY,...)[/path][/*]: the BIP327 aggregate of the participants, optionally BIP328-derived. */
export class MusigKey extends KeyExpression {
  /** What derives the output key when the participants are fixed: cached like Core's m_aggregate_provider. */
  private aggregateKey: KeyExpression | null = null;
  private readonly rangedParticipants: boolean;

  constructor(
    readonly participants: readonly KeyExpression[],
    readonly path: readonly number[],
    readonly deriveType: 'none' | 'unhardened',
    private readonly chain: ChainName,
  ) {
    super();
    this.rangedParticipants = participants.some((key) => key.isRange());
  }

  isRange(): boolean {
    return this.deriveType !== 'none' || this.rangedParticipants;
  }

  size(): number {
    return 32;
  }

  isBip32(): boolean {
    return this.participants.every((key) => key.isBip32());
  }

  private participantKeys(pos: number, keys: KeyStore): Uint8Array[] | null {
    const out: Uint8Array[] = [];
    for (const participant of this.participants) {
      const key = participant.derive(pos, keys);
      if (!key) return null;
      out.push(key);
    }
    return sortPublicKeys(out);
  }

  derive(pos: number, keys: KeyStore): Uint8Array | null {
    if (!this.rangedParticipants && !this.aggregateKey) {
      const fixed = this.participantKeys(0, keys);
      const aggregate = fixed ? aggregatePublicKeys(fixed) : null;
      if (!aggregate) return null;
      this.aggregateKey =
        this.deriveType !== 'none' || this.path.length > 0
          ? new Bip32Key(musigSyntheticXpub(aggregate), this.path, this.deriveType, false, this.chain)
          : new ConstKey(aggregate, false, this.chain);
    }
    // Core derives every participant at `pos` even when the aggregate is cached: a hardened
    // participant still needs its private key.
    const current = this.participantKeys(pos, keys);
    if (!current) return null;
    if (this.aggregateKey) return this.aggregateKey.derive(pos, keys);
    return aggregatePublicKeys(current);
  }

  private suffix(): string {
    return `)${formatKeyPath(this.path, false)}${this.deriveType !== 'none' ? '/*' : ''}`;
  }

  override toString(): string {
    return `musig(${this.participants.map((key) => key.toString()).join(',')}${this.suffix()}`;
  }

  toPrivateString(keys: KeyStore): PrivateText {
    const parts = this.participants.map((key) => key.toPrivateString(keys));
    return { text: `musig(${parts.map((p) => p.text).join(',')}${this.suffix()}`, hasPrivate: parts.some((p) => p.hasPrivate) };
  }

  toNormalizedString(keys: KeyStore): string | null {
    const parts: string[] = [];
    for (const key of this.participants) {
      const text = key.toNormalizedString(keys);
      if (text === null) return null;
      parts.push(text);
    }
    return `musig(${parts.join(',')}${this.suffix()}`;
  }
}
