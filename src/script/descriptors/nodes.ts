/**
 * Parsed descriptors (Core's DescriptorImpl family): each node knows its key and script
 * arguments, builds its scripts from the derived keys, and prints itself. The printing
 * follows Core's ToStringHelper, including where commas go and which forms report
 * failure, because the strings are returned to RPC clients and checksummed.
 */
import { compareBytes, toHex } from '../../primitives/index.js';
import { encodeAddress, witnessProgramScript } from '../address.js';
import type { ChainName } from '../chain-prefixes.js';
import { TAPROOT_CONTROL_MAX_NODE_COUNT, TAPROOT_LEAF_TAPSCRIPT } from '../limits.js';
import { TaprootError, taprootOutput, type TaprootOutput, type TapTree } from '../taproot.js';
import { addChecksum } from './checksum.js';
import type { KeyExpression, PrivateText } from './keys.js';
import { KeyStore } from './keystore.js';
import {
  multiAScript,
  multisigScript,
  payToPubkeyHashOf,
  payToPubkeyScript,
  payToScriptHashOf,
  payToWitnessPubkeyHashOf,
  payToWitnessScriptHashOf,
  xOnly,
} from './script-builders.js';

export type StringKind = 'public' | 'private' | 'normalized';

export interface Rendered {
  readonly text: string;
  /** public: always true; private: some key printed privately; normalized: every key could be. */
  readonly ok: boolean;
}

export const FAILED: Rendered = { text: '', ok: false };

/** The public form reads no private keys; this store stays empty. */
const NO_KEYS = new KeyStore();

/** Core's `int pos`: descriptors are expanded at 0..2^31-1. */
const MAX_POSITION = 0x7fffffff;

export abstract class Descriptor {
  protected constructor(
    /** The function name as printed: pk, pkh, wpkh, combo, multi, sortedmulti, ... */
    readonly name: string,
    readonly keyArgs: readonly KeyExpression[],
    readonly subArgs: readonly Descriptor[],
  ) {}

  /** What is printed before the key and script arguments (threshold, address, hex). */
  protected extra(): string {
    return '';
  }

  protected abstract makeScripts(keys: readonly Uint8Array[], subScripts: readonly Uint8Array[]): Uint8Array[];

  /** Whether the descriptor has a wildcard, so expansion depends on the position. */
  isRange(): boolean {
    return this.keyArgs.some((key) => key.isRange()) || this.subArgs.some((sub) => sub.isRange());
  }

  /** Core's IsSolvable: false for addr() and raw(), which carry no keys to sign with. */
  isSolvable(): boolean {
    return this.subArgs.every((sub) => sub.isSolvable());
  }

  /**
   * The scriptPubKeys at `pos` (several for combo()), or null when a key needs a private
   * key that `keys` does not hold. Non-ranged descriptors give the same scripts at any pos.
   */
  expand(pos: number, keys: KeyStore = new KeyStore()): Uint8Array[] | null {
    if (!Number.isInteger(pos) || pos < 0 || pos > MAX_POSITION) throw new RangeError(`derivation position ${pos} out of range`);
    return this.expandAt(pos, keys);
  }

  private expandAt(pos: number, keys: KeyStore): Uint8Array[] | null {
    const pubkeys: Uint8Array[] = [];
    for (const key of this.keyArgs) {
      const derived = key.derive(pos, keys);
      if (!derived) return null;
      pubkeys.push(derived);
    }
    const subScripts: Uint8Array[] = [];
    for (const sub of this.subArgs) {
      const scripts = sub.expandAt(pos, keys);
      if (!scripts) return null;
      // Script arguments (inside sh, wsh and tr) always produce exactly one script.
      subScripts.push(scripts[0]!);
    }
    return this.makeScripts(pubkeys, subScripts);
  }

  /** Core's ToStringSubScriptHelper; tr() overrides it to print its tree. */
  protected renderSubs(kind: StringKind, keys: KeyStore): Rendered {
    const isPrivate = kind === 'private';
    let any = !isPrivate;
    const parts: string[] = [];
    for (const sub of this.subArgs) {
      const rendered = sub.render(kind, keys);
      if (!isPrivate && !rendered.ok) return FAILED;
      any ||= rendered.ok;
      parts.push(rendered.text);
    }
    return { text: parts.join(','), ok: any };
  }

  /** Core's ToStringHelper, without checksum. */
  render(kind: StringKind, keys: KeyStore): Rendered {
    const extra = this.extra();
    const isPrivate = kind === 'private';
    let any = !isPrivate;
    const args: string[] = extra ? [extra] : [];
    for (const key of this.keyArgs) {
      if (kind === 'public') {
        args.push(key.toString());
      } else if (kind === 'private') {
        const text: PrivateText = key.toPrivateString(keys);
        any ||= text.hasPrivate;
        args.push(text.text);
      } else {
        const text = key.toNormalizedString(keys);
        if (text === null) return FAILED;
        args.push(text);
      }
    }
    const subs = this.renderSubs(kind, keys);
    if (!isPrivate && !subs.ok) return FAILED;
    any ||= subs.ok;
    if (subs.text) args.push(subs.text);
    return { text: `${this.name}(${args.join(',')})`, ok: any };
  }

  /** The public form with checksum, as getdescriptorinfo prints it. */
  toString(): string {
    return addChecksum(this.render('public', NO_KEYS).text);
  }

  /** The form with every private key `keys` holds; hasPrivate is false when there was none. */
  toPrivateString(keys: KeyStore): PrivateText {
    const rendered = this.render('private', keys);
    return { text: addChecksum(rendered.text), hasPrivate: rendered.ok };
  }

  /** Core's ToNormalizedString (listdescriptors); null when a hardened step needs a missing key. */
  toNormalizedString(keys: KeyStore): string | null {
    const rendered = this.render('normalized', keys);
    return rendered.ok ? addChecksum(rendered.text) : null;
  }
}

export class AddrDescriptor extends Descriptor {
  private readonly address: string;

  constructor(
    readonly scriptPubKey: Uint8Array,
    chain: ChainName,
  ) {
    super('addr', [], []);
    // Core prints the address re-encoded from its destination (lower-case bech32, trimmed base58).
    const address = encodeAddress(scriptPubKey, chain);
    if (address === null) throw new RangeError('addr() needs a script that has an address');
    this.address = address;
  }

  protected override extra(): string {
    return this.address;
  }

  protected makeScripts(): Uint8Array[] {
    return [this.scriptPubKey];
  }

  override isSolvable(): boolean {
    return false;
  }

  override toPrivateString(): PrivateText {
    return { text: this.toString(), hasPrivate: false };
  }
}

export class RawDescriptor extends Descriptor {
  constructor(readonly script: Uint8Array) {
    super('raw', [], []);
  }

  protected override extra(): string {
    return toHex(this.script);
  }

  protected makeScripts(): Uint8Array[] {
    return [this.script];
  }

  override isSolvable(): boolean {
    return false;
  }

  override toPrivateString(): PrivateText {
    return { text: this.toString(), hasPrivate: false };
  }
}

export class PkDescriptor extends Descriptor {
  constructor(
    key: KeyExpression,
    /** Inside tr(): the script pushes the x-only key. */
    readonly xOnly: boolean,
  ) {
    super('pk', [key], []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    return [payToPubkeyScript(this.xOnly ? xOnly(keys[0]!) : keys[0]!)];
  }
}

export class PkhDescriptor extends Descriptor {
  constructor(key: KeyExpression) {
    super('pkh', [key], []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    return [payToPubkeyHashOf(keys[0]!)];
  }
}

export class WpkhDescriptor extends Descriptor {
  constructor(key: KeyExpression) {
    super('wpkh', [key], []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    return [payToWitnessPubkeyHashOf(keys[0]!)];
  }
}

/** combo(KEY): P2PK and P2PKH, plus P2WPKH and P2SH-P2WPKH when the key is compressed. */
export class ComboDescriptor extends Descriptor {
  constructor(key: KeyExpression) {
    super('combo', [key], []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    const key = keys[0]!;
    const scripts = [payToPubkeyScript(key), payToPubkeyHashOf(key)];
    if (key.length === 33) {
      const p2wpkh = payToWitnessPubkeyHashOf(key);
      scripts.push(p2wpkh, payToScriptHashOf(p2wpkh));
    }
    return scripts;
  }
}

export class MultisigDescriptor extends Descriptor {
  constructor(
    readonly threshold: number,
    keys: readonly KeyExpression[],
    readonly sorted: boolean,
  ) {
    super(sorted ? 'sortedmulti' : 'multi', keys, []);
  }

  protected override extra(): string {
    return String(this.threshold);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    return [multisigScript(this.threshold, this.sorted ? [...keys].sort(compareBytes) : keys)];
  }
}

/** multi_a / sortedmulti_a: CHECKSIGADD multisig over x-only keys, tr() leaves only. */
export class MultiADescriptor extends Descriptor {
  constructor(
    readonly threshold: number,
    keys: readonly KeyExpression[],
    readonly sorted: boolean,
  ) {
    super(sorted ? 'sortedmulti_a' : 'multi_a', keys, []);
  }

  protected override extra(): string {
    return String(this.threshold);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    const xOnlyKeys = keys.map(xOnly);
    if (this.sorted) xOnlyKeys.sort(compareBytes);
    return [multiAScript(this.threshold, xOnlyKeys)];
  }
}

export class ShDescriptor extends Descriptor {
  constructor(sub: Descriptor) {
    super('sh', [], [sub]);
  }

  protected makeScripts(_keys: readonly Uint8Array[], subScripts: readonly Uint8Array[]): Uint8Array[] {
    return [payToScriptHashOf(subScripts[0]!)];
  }
}

export class WshDescriptor extends Descriptor {
  constructor(sub: Descriptor) {
    super('wsh', [], [sub]);
  }

  protected makeScripts(_keys: readonly Uint8Array[], subScripts: readonly Uint8Array[]): Uint8Array[] {
    return [payToWitnessScriptHashOf(subScripts[0]!)];
  }
}

/** Rebuilds the nested tree from leaves listed depth-first with their depths (Core's m_depths). */
function treeFromDepths(depths: readonly number[], leaves: readonly Uint8Array[]): TapTree {
  let next = 0;
  const build = (depth: number): TapTree => {
    if (next >= depths.length || depth > TAPROOT_CONTROL_MAX_NODE_COUNT) throw new TaprootError('malformed script tree depths');
    if (depths[next] === depth) return { script: leaves[next++]!, leafVersion: TAPROOT_LEAF_TAPSCRIPT };
    const left = build(depth + 1);
    return [left, build(depth + 1)];
  };
  const tree = build(0);
  if (next !== depths.length) throw new TaprootError('malformed script tree depths');
  return tree;
}

/** tr(KEY) or tr(KEY,TREE): leaves are kept depth-first with their depths, as Core does. */
export class TrDescriptor extends Descriptor {
  constructor(
    internalKey: KeyExpression,
    leaves: readonly Descriptor[],
    readonly depths: readonly number[],
  ) {
    super('tr', [internalKey], leaves);
    if (leaves.length !== depths.length) throw new RangeError('one depth per tr() leaf');
  }

  /** The output for the internal key and leaf scripts; null where Core's TaprootBuilder gives none (an unusable key or tree). */
  private taproot(internalKey: Uint8Array, subScripts: readonly Uint8Array[]): TaprootOutput | null {
    try {
      const tree = subScripts.length > 0 ? treeFromDepths(this.depths, subScripts) : null;
      return taprootOutput(xOnly(internalKey), tree);
    } catch (err) {
      if (err instanceof TaprootError) return null;
      throw err;
    }
  }

  protected makeScripts(keys: readonly Uint8Array[], subScripts: readonly Uint8Array[]): Uint8Array[] {
    const output = this.taproot(keys[0]!, subScripts);
    return output ? [output.scriptPubKey] : [];
  }

  /** The output at `pos` with every leaf's control block (Core's TaprootSpendData); null when a key cannot be derived or the tree is unusable. */
  taprootAt(pos: number, keys: KeyStore): TaprootOutput | null {
    const internalKey = this.keyArgs[0]!.derive(pos, keys);
    if (!internalKey) return null;
    const subScripts: Uint8Array[] = [];
    for (const sub of this.subArgs) {
      const scripts = sub.expand(pos, keys);
      if (!scripts) return null;
      subScripts.push(scripts[0]!);
    }
    return this.taproot(internalKey, subScripts);
  }

  /** Prints the leaves with the braces their depths imply (Core's TRDescriptor::ToStringSubScriptHelper). */
  protected override renderSubs(kind: StringKind, keys: KeyStore): Rendered {
    const isPrivate = kind === 'private';
    if (this.depths.length === 0) return { text: '', ok: !isPrivate };
    let any = !isPrivate;
    let out = '';
    const path: boolean[] = [];
    for (let pos = 0; pos < this.subArgs.length; pos++) {
      if (pos) out += ',';
      while (path.length <= this.depths[pos]!) {
        if (path.length) out += '{';
        path.push(false);
      }
      const rendered = this.subArgs[pos]!.render(kind, keys);
      if (!isPrivate && !rendered.ok) return FAILED;
      any ||= rendered.ok;
      out += rendered.text;
      // Close one brace for every right branch just finished.
      while (path.length && path[path.length - 1]) {
        if (path.length > 1) out += '}';
        path.pop();
      }
      if (path.length) path[path.length - 1] = true;
    }
    return { text: out, ok: any };
  }
}

export class RawTrDescriptor extends Descriptor {
  constructor(outputKey: KeyExpression) {
    super('rawtr', [outputKey], []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    return [witnessProgramScript(1, xOnly(keys[0]!))];
  }
}
