/**
 * scantxoutset's scan objects as Core evaluates them (EvalDescriptorStringOrObject): a
 * descriptor string, or {desc, range}, expanded at every position of its range (default
 * 0..1000) into the scripts to look for, each with the "specialized descriptor" Core
 * reports for it: InferDescriptor(script, provider) where the provider holds what the
 * expansion produced (derived keys with their origins, sh()/wsh() sub-scripts, taproot
 * trees). For the descriptor forms tsbtcd parses, that is the descriptor rewritten at
 * the position: every key replaced by `[fingerprint/path]` and its derived hex,
 * sortedmulti as multi in script order, combo() split per output type, and addr()/raw()
 * inferred from the script alone.
 */
import { compareBytes, concatBytes, hash160 } from '../primitives/index.js';
import {
  BIP32_HARDENED,
  Bip32Key,
  ComboDescriptor,
  ConstKey,
  Descriptor,
  DescriptorError,
  inferDescriptor,
  inferScriptInContext,
  inferTaprootTree,
  MiniscriptDescriptor,
  ScriptKnowledge,
  keyFingerprint,
  MultiADescriptor,
  MultisigDescriptor,
  OriginKey,
  parseDescriptor,
  PkDescriptor,
  PkhDescriptor,
  RawTrDescriptor,
  scriptPubKeyDescriptor,
  ShDescriptor,
  solve,
  TrDescriptor,
  WpkhDescriptor,
  WshDescriptor,
  type ChainName,
  type ParsedDescriptor,
  type KeyExpression,
  type KeyStore,
} from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import type { Json } from './json.js';
import { getStr, isJsonObject } from './value-parse.js';
import { parseDescriptorRange, rethrowDescriptorError } from './util-methods.js';

/**
 * A script to look for, and the descriptor reported for outputs paying to it: computed
 * only for scripts that match (a ranged scan object has thousands that never do).
 */
export interface ScanNeedle {
  readonly script: Uint8Array;
  describe(): string;
}

/** Core's default range for ranged scan objects: positions 0 to 1000. */
export const DEFAULT_SCAN_RANGE: [number, number] = [0, 1000];

/** The origin Core's pubkey providers record for a derived key: fingerprint and full path. */
function keyOrigin(key: KeyExpression, derived: Uint8Array, pos: number): { fingerprint: Uint8Array; path: number[] } | null {
  if (key instanceof ConstKey) return { fingerprint: hash160(key.publicKey).subarray(0, 4), path: [] };
  if (key instanceof Bip32Key) {
    const path = [...key.path];
    if (key.deriveType === 'unhardened') path.push(pos);
    if (key.deriveType === 'hardened') path.push((pos | BIP32_HARDENED) >>> 0);
    return { fingerprint: keyFingerprint(key.root.publicKey), path };
  }
  if (key instanceof OriginKey) {
    const inner = keyOrigin(key.inner, derived, pos);
    return inner ? { fingerprint: key.fingerprint, path: [...key.path, ...inner.path] } : null;
  }
  // musig() aggregates: not specialized (the caller falls back to plain inference).
  return null;
}

/** The const key with origin that InferPubkey / InferXOnlyPubkey prints for a derived key. */
function specializedKey(key: KeyExpression, pos: number, keys: KeyStore, xOnly: boolean, chain: ChainName): { expr: KeyExpression; pubkey: Uint8Array } | null {
  const derived = key.derive(pos, keys);
  if (!derived) return null;
  const origin = keyOrigin(key, derived, pos);
  if (!origin) return null;
  const held = xOnly ? concatBytes(Uint8Array.of(2), derived.subarray(derived.length - 32)) : derived;
  return { expr: new OriginKey(origin.fingerprint, origin.path, new ConstKey(held, xOnly, chain), false), pubkey: derived };
}

/**
 * What Core's signing provider holds after expanding `d` at `pos`: every key's origin and,
 * for pk_h, the key behind each hash miniscripts commit to (HASH160 of the x-only key in
 * Tapscript). As in Core, sub-descriptors come before their parent and the first origin of
 * a key is the one kept.
 */
function expansionKnowledge(d: Descriptor, pos: number, keys: KeyStore, inTaproot = false, knowledge = new ScriptKnowledge()): ScriptKnowledge {
  for (const sub of d.subArgs) expansionKnowledge(sub, pos, keys, inTaproot || d instanceof TrDescriptor, knowledge);
  for (const key of d.keyArgs) {
    const derived = key.derive(pos, keys);
    if (!derived) continue;
    const origin = keyOrigin(key, derived, pos);
    if (origin) knowledge.addOrigin(derived, origin);
    if (d instanceof MiniscriptDescriptor) knowledge.addPubkey(derived, hash160(inTaproot ? derived.subarray(1, 33) : derived));
  }
  return knowledge;
}

/** A miniscript at `pos` as Core infers it back from its script: the tree Core recognises there, which need not be the one written. */
function specializeMiniscript(d: MiniscriptDescriptor, pos: number, keys: KeyStore, chain: ChainName, inTaproot: boolean, knowledge: ScriptKnowledge): Descriptor | null {
  const script = d.expand(pos, keys)?.[0];
  return script ? inferScriptInContext(script, inTaproot ? 'p2tr' : 'p2wsh', chain, knowledge) : null;
}

/** `d` at `pos` with every key specialized; null for forms Core would infer differently. */
function specialize(d: Descriptor, pos: number, keys: KeyStore, chain: ChainName, inTaproot: boolean, knowledge: ScriptKnowledge): Descriptor | null {
  const key = (i: number, xOnly: boolean) => specializedKey(d.keyArgs[i]!, pos, keys, xOnly, chain);
  const sub = (i: number, taproot: boolean) => specialize(d.subArgs[i]!, pos, keys, chain, taproot, knowledge);
  switch (d.name) {
    case 'pk': {
      const k = key(0, inTaproot);
      return k ? new PkDescriptor(k.expr, inTaproot) : null;
    }
    case 'pkh': {
      const k = key(0, false);
      return k ? new PkhDescriptor(k.expr) : null;
    }
    case 'wpkh': {
      const k = key(0, false);
      return k ? new WpkhDescriptor(k.expr) : null;
    }
    case 'multi':
    case 'sortedmulti':
    case 'multi_a':
    case 'sortedmulti_a': {
      const xOnly = d.name.endsWith('_a');
      const specialized = d.keyArgs.map((_, i) => key(i, xOnly));
      if (specialized.some((k) => k === null)) return null;
      const list = specialized as { expr: KeyExpression; pubkey: Uint8Array }[];
      // The script holds the keys sorted; Core infers multi()/multi_a() in that order.
      if (d.name.startsWith('sorted')) {
        const sortKey = (k: { pubkey: Uint8Array }) => (xOnly ? k.pubkey.subarray(k.pubkey.length - 32) : k.pubkey);
        list.sort((a, b) => compareBytes(sortKey(a), sortKey(b)));
      }
      const threshold = (d as MultisigDescriptor | MultiADescriptor).threshold;
      const exprs = list.map((k) => k.expr);
      return xOnly ? new MultiADescriptor(threshold, exprs, false) : new MultisigDescriptor(threshold, exprs, false);
    }
    case 'sh': {
      const inner = sub(0, false);
      return inner ? new ShDescriptor(inner) : null;
    }
    case 'wsh': {
      const inner = sub(0, false);
      return inner ? new WshDescriptor(inner) : null;
    }
    case 'tr': {
      const k = key(0, true);
      const output = (d as TrDescriptor).taprootAt(pos, keys);
      if (!k || !output) return null;
      if (!output.merkleRoot) return new TrDescriptor(k.expr, [], []);
      // Core prints the tree as it rebuilds it from the spend data, not as it was written.
      const tree = inferTaprootTree(
        output.merkleRoot,
        output.leaves.map((leaf) => ({ script: leaf.leaf.script, leafVersion: leaf.leaf.leafVersion, controlBlock: leaf.controlBlock })),
      );
      if (!tree) return null;
      const leaves: Descriptor[] = [];
      for (const { script } of tree) {
        const index = output.leaves.findIndex((leaf) => compareBytes(leaf.leaf.script, script) === 0);
        const leaf = sub(index, true);
        if (!leaf) return null;
        leaves.push(leaf);
      }
      return new TrDescriptor(k.expr, leaves, tree.map((leaf) => leaf.depth));
    }
    case '?':
      return specializeMiniscript(d as MiniscriptDescriptor, pos, keys, chain, inTaproot, knowledge);
    case 'rawtr': {
      const k = key(0, true);
      return k ? new RawTrDescriptor(k.expr) : null;
    }
    default:
      return null;
  }
}

/** combo(): the descriptor Core infers for each of its scripts. */
function specializeCombo(d: ComboDescriptor, pos: number, keys: KeyStore, chain: ChainName, script: Uint8Array): Descriptor | null {
  const k = specializedKey(d.keyArgs[0]!, pos, keys, false, chain);
  if (!k) return null;
  switch (solve(script).type) {
    case 'pubkey':
      return new PkDescriptor(k.expr, false);
    case 'pubkeyhash':
      return new PkhDescriptor(k.expr);
    case 'witness_v0_keyhash':
      return new WpkhDescriptor(k.expr);
    case 'scripthash':
      return new ShDescriptor(new WpkhDescriptor(k.expr));
    default:
      return null;
  }
}

/** The descriptor Core reports for `script`, one of the scripts `d` expands to at `pos`. */
export function scanDescriptorFor(d: Descriptor, pos: number, keys: KeyStore, chain: ChainName, script: Uint8Array): string {
  if (d.name === 'addr' || d.name === 'raw') return scriptPubKeyDescriptor(script, chain);
  const specialized = d instanceof ComboDescriptor ? specializeCombo(d, pos, keys, chain, script) : specialize(d, pos, keys, chain, false, expansionKnowledge(d, pos, keys));
  return (specialized ?? inferDescriptor(script, chain)).toString();
}

/** A parsed scan object (Core's EvalDescriptorStringOrObject up to the expansion): its text, descriptors and position range. */
export interface ParsedScanObject {
  readonly text: string;
  readonly parsed: ParsedDescriptor;
  readonly begin: number;
  readonly end: number;
}

/** Reads a descriptor string or {desc, range} object with Core's errors. */
export function parseScanObject(scanObject: Json, chain: ChainName): ParsedScanObject {
  let text: string;
  let range = DEFAULT_SCAN_RANGE;
  if (typeof scanObject === 'string') {
    text = scanObject;
  } else if (isJsonObject(scanObject)) {
    const desc = scanObject.desc;
    if (desc === null || desc === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Descriptor needs to be provided in scan object');
    text = getStr(desc);
    const rangeValue = scanObject.range;
    if (rangeValue !== null && rangeValue !== undefined) range = parseDescriptorRange(rangeValue);
  } else {
    throw new RpcError(RPC_INVALID_PARAMETER, 'Scan object needs to be either a string or an object');
  }
  let parsed;
  try {
    parsed = parseDescriptor(text, chain);
  } catch (err) {
    if (err instanceof DescriptorError) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, err.message);
    return rethrowDescriptorError(err);
  }
  const [begin, end] = parsed.descriptors[0]!.isRange() ? range : [0, 0];
  return { text, parsed, begin, end };
}

/**
 * Core's EvalDescriptorStringOrObject for one scan object, one position at a time: each
 * yield is every script of every multipath expansion at that position, in Core's order.
 * Callers doing long ranges can yield to the event loop between positions.
 */
export function* scanObjectPositions(scanObject: Json, chain: ChainName): Generator<ScanNeedle[]> {
  const { text, parsed, begin, end } = parseScanObject(scanObject, chain);
  for (let pos = begin; pos <= end; pos++) {
    const out: ScanNeedle[] = [];
    for (const d of parsed.descriptors) {
      const scripts = d.expand(pos, parsed.keys);
      if (!scripts) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Cannot derive script without private keys: '${text}'`);
      const at = pos;
      for (const script of scripts) out.push({ script, describe: () => scanDescriptorFor(d, at, parsed.keys, chain, script) });
    }
    yield out;
  }
}

/** Every script a scan object expands to (all positions). */
export function evalScanObject(scanObject: Json, chain: ChainName): ScanNeedle[] {
  return [...scanObjectPositions(scanObject, chain)].flat();
}
