/**
 * Filling a signing provider from a descriptor (Core's Descriptor::Expand into a
 * FlatSigningProvider): every key's public key with its origin and, where the key store
 * holds it, its private key; the scripts inside sh() and wsh(); taproot spend data. The
 * PSBT RPCs fill one from descriptors they are given, the wallet from its own.
 */
import { getPublicKey } from '@noble/secp256k1';
import { hash160, toHex } from '../primitives/index.js';
import {
  Bip32Key,
  BIP32_HARDENED,
  ComboDescriptor,
  ConstKey,
  deriveExtPrivKey,
  deriveExtPrivKeyPath,
  keyFingerprint,
  MusigKey,
  OriginKey,
  aggregatePublicKeys,
  sortPublicKeys,
  ShDescriptor,
  TrDescriptor,
  WshDescriptor,
  type Descriptor,
  type ExtPrivKey,
  type KeyExpression,
  type KeyOriginInfo,
  type KeyStore,
  type TaprootOutput,
} from '../script/index.js';
import type { PsbtProvider } from './provider.js';

/**
 * An extended key's private key at its fixed path, derived once per key store; null without
 * the root's private key. Only found keys are remembered: a wallet's store gains its keys
 * when it is unlocked.
 */
const privateParents = new WeakMap<Bip32Key, WeakMap<KeyStore, ExtPrivKey>>();

function privateParent(key: Bip32Key, keys: KeyStore): ExtPrivKey | null {
  let byStore = privateParents.get(key);
  if (!byStore) privateParents.set(key, (byStore = new WeakMap()));
  const known = byStore.get(keys);
  if (known) return known;
  const root = keys.get(key.root.publicKey);
  const derived = root ? deriveExtPrivKeyPath({ ...key.root, privateKey: root.secret }, key.path) : null;
  if (derived) byStore.set(keys, derived);
  return derived;
}

interface KeyFacts {
  readonly pubkey: Uint8Array;
  readonly origin: KeyOriginInfo;
  readonly secret?: { secret: Uint8Array; compressed: boolean };
}

/**
 * A key expression at `pos` as Core's pubkey providers report it: the public key (an x-only
 * literal's real key when its private key is known), the origin (a literal key is its own
 * master, an extended key's root is the master of its path) and the private key if known.
 */
function keyFacts(key: KeyExpression, pos: number, keys: KeyStore): KeyFacts | undefined {
  if (key instanceof ConstKey) {
    const stored = key.xOnly ? keys.getByXOnly(key.publicKey.subarray(1)) : keys.get(key.publicKey);
    const pubkey = stored ? getPublicKey(stored.secret, stored.compressed) : key.publicKey;
    return { pubkey, origin: { fingerprint: hash160(pubkey).slice(0, 4), path: [] }, ...(stored ? { secret: stored } : {}) };
  }
  if (key instanceof Bip32Key) {
    const pubkey = key.derive(pos, keys);
    if (!pubkey) return undefined;
    const step = key.deriveType === 'unhardened' ? [pos] : key.deriveType === 'hardened' ? [(pos | BIP32_HARDENED) >>> 0] : [];
    const path = [...key.path, ...step];
    const parent = privateParent(key, keys);
    const child = parent && (step.length > 0 ? deriveExtPrivKey(parent, step[0]!) : parent);
    return { pubkey, origin: { fingerprint: keyFingerprint(key.root.publicKey), path }, ...(child ? { secret: { secret: child.privateKey, compressed: true } } : {}) };
  }
  if (key instanceof MusigKey && !key.participants.some((participant) => participant.isRange())) {
    // The aggregate of the fixed participants is a literal key, or the root of a synthetic xpub when a path follows.
    const aggregate = musigAggregate(key, pos, keys);
    const pubkey = aggregate && key.derive(pos, keys);
    if (!aggregate || !pubkey) return undefined;
    if (key.deriveType === 'none' && key.path.length === 0) return { pubkey, origin: { fingerprint: hash160(pubkey).slice(0, 4), path: [] } };
    const step = key.deriveType === 'unhardened' ? [pos] : [];
    return { pubkey, origin: { fingerprint: keyFingerprint(aggregate), path: [...key.path, ...step] } };
  }
  if (key instanceof OriginKey) {
    const inner = keyFacts(key.inner, pos, keys);
    return inner && { ...inner, origin: { fingerprint: key.fingerprint, path: [...key.path, ...inner.origin.path] } };
  }
  return undefined;
}

/** A musig() key's aggregate of its participants at `pos` (sorted, as aggregated), with the participants. */
function musigAggregate(key: MusigKey, pos: number, keys: KeyStore): Uint8Array | null {
  const participants = key.participants.map((participant) => participant.derive(pos, keys));
  if (participants.some((p) => !p)) return null;
  return aggregatePublicKeys(sortPublicKeys(participants as Uint8Array[]));
}

function addKey(provider: PsbtProvider, key: KeyExpression, pos: number, keys: KeyStore): void {
  const facts = keyFacts(key, pos, keys);
  if (facts) {
    provider.addPubkey(facts.pubkey, facts.origin);
    if (facts.secret) provider.keys.addKey(facts.secret.secret, facts.secret.compressed, facts.pubkey);
  }
  if (key instanceof MusigKey) {
    for (const participant of key.participants) addKey(provider, participant, pos, keys);
    const aggregate = musigAggregate(key, pos, keys);
    const participants = key.participants.map((participant) => keyFacts(participant, pos, keys)?.pubkey);
    if (aggregate && participants.every((p) => p)) provider.addMusigAggregate(aggregate, sortPublicKeys(participants as Uint8Array[]));
  }
}

/** Core's descriptor expansion into a FlatSigningProvider: `d` at `pos` adds its keys (with origins and the private keys `keys` holds), its scripts inside sh() and wsh(), and its taproot spend data. */
export function addDescriptor(provider: PsbtProvider, d: Descriptor, pos: number, keys: KeyStore, taproot?: TaprootOutput | null): void {
  for (const key of d.keyArgs) addKey(provider, key, pos, keys);
  // combo() knows its P2WPKH script, so P2SH-P2WPKH spends of a compressed key solve.
  if (d instanceof ComboDescriptor) {
    const key = keyFacts(d.keyArgs[0]!, pos, keys)?.pubkey;
    if (key?.length === 33) provider.keys.addScript(Uint8Array.of(0x00, 20, ...hash160(key)));
  }
  if (d instanceof TrDescriptor) {
    const output = taproot ?? d.taprootAt(pos, keys);
    if (output) {
      const scripts = output.leaves.map((leaf) => ({ script: leaf.leaf.script, leafVersion: leaf.leaf.leafVersion, controlBlock: leaf.controlBlock }));
      const tree = output.leaves.map((leaf, i) => ({ depth: d.depths[i]!, leafVersion: leaf.leaf.leafVersion, script: leaf.leaf.script }));
      provider.taprootOutputs.set(toHex(output.outputKey), { internalKey: output.internalKey, merkleRoot: output.merkleRoot, scripts, tree });
    }
  }
  for (const sub of d.subArgs) {
    if (d instanceof ShDescriptor || d instanceof WshDescriptor) {
      const script = sub.expand(pos, keys)?.[0];
      if (script) provider.keys.addScript(script);
    }
    addDescriptor(provider, sub, pos, keys);
  }
}

