/**
 * Miniscript inside wsh() and tr() leaves (Core's MiniscriptDescriptor and KeyParser):
 * the descriptor node, the parse step that ParseScript tries last, with Core's error
 * texts for expressions that are miniscript but not sane, and the inference of
 * miniscript from witness scripts and tapscript leaves.
 */
import { hash160, toHex } from '../../primitives/index.js';
import { miniscriptFromScript, miniscriptFromString, type KeyInferrer, type KeyReader, type MiniscriptContext, type Node } from '../miniscript/index.js';
import { alignMultipath, type ParseContext, type ParseState } from './context.js';
import { DescriptorError } from './errors.js';
import type { KeyExpression } from './keys.js';
import { KeyStore } from './keystore.js';
import { Descriptor, FAILED, type Rendered, type StringKind } from './nodes.js';
import { parsePubkey } from './parse-key.js';
import { xOnly } from './script-builders.js';

/** Key comparison derives as Core's does, with an empty signing provider. */
const NO_PRIVATE_KEYS = new KeyStore();

export class MiniscriptDescriptor extends Descriptor {
  constructor(
    keys: readonly KeyExpression[],
    readonly node: Node,
  ) {
    super('?', keys, []);
  }

  protected makeScripts(keys: readonly Uint8Array[]): Uint8Array[] {
    // In Tapscript every key serializes as x-only, and pk_h commits to the x-only key.
    const bytes = (key: number) => (this.node.ctx === 'tapscript' ? xOnly(keys[key]!) : keys[key]!);
    return [this.node.toScript({ toPKBytes: bytes, toPKHBytes: (key) => hash160(bytes(key)) })];
  }

  override render(kind: StringKind, keys: KeyStore): Rendered {
    let hasPrivate = false;
    const text = this.node.toString((index) => {
      const key = this.keyArgs[index]!;
      if (kind === 'public') return key.toString();
      if (kind === 'normalized') return key.toNormalizedString(keys);
      const printed = key.toPrivateString(keys);
      hasPrivate ||= printed.hasPrivate;
      return printed.text;
    });
    if (text === null) return FAILED;
    return { text, ok: kind === 'private' ? hasPrivate : true };
  }
}

/** Core's KeyParser reading key expressions from text: one list per key (several for multipath). */
class TextKeyReader implements KeyReader {
  readonly keys: KeyExpression[][] = [];
  /** Core's m_key_parsing_error: why the last key failed to parse. */
  error = '';

  constructor(
    readonly ctx: MiniscriptContext,
    private readonly state: ParseState,
  ) {}

  fromString(text: string): number | null {
    const keyContext: ParseContext = this.ctx === 'p2wsh' ? 'p2wsh' : 'p2tr';
    try {
      this.keys.push(parsePubkey(this.state, text, keyContext));
      return this.keys.length - 1;
    } catch (err) {
      if (!(err instanceof DescriptorError)) throw err;
      this.error = err.message;
      return null;
    }
  }

  /**
   * Core's KeyCompare (PubkeyProvider's operator<): the keys at position 0, derived without
   * private keys, so every key behind a hardened step compares equal to every other.
   */
  keyIdentity(index: number): string {
    const derived = this.keys[index]![0]!.derive(0, NO_PRIVATE_KEYS);
    return derived ? toHex(derived) : '';
  }
}

/** The reason Core gives for a parsed miniscript it refuses (ParseScript's sanity report). */
function insanityMessage(node: Node, printKey: (key: number) => string): string | null {
  if (node.isSane() && !node.isNotSatisfiable()) return null;
  const insane = node.findInsaneSub() ?? node;
  let error = insane.toString(printKey)!;
  if (!insane.isValid()) {
    error += ' is invalid';
  } else if (!node.isSane()) {
    error += ' is not sane';
    if (!insane.isNonMalleable()) {
      error += ': malleable witnesses exist';
    } else if (insane === node && !insane.needsSignature()) {
      error += ': witnesses without signature exist';
    } else if (!insane.checkTimeLocksMix()) {
      error += ': contains mixes of timelocks expressed in blocks and seconds';
    } else if (!insane.checkDuplicateKey()) {
      error += ': contains duplicate public keys';
    } else if (!insane.validSatisfactions()) {
      error += ': needs witnesses that may exceed resource limits';
    }
  } else {
    error += ' is not satisfiable';
  }
  return error;
}

/**
 * The miniscript step of Core's ParseScript: descriptors (one per multipath alternative)
 * when `text` is a sane miniscript in wsh() or a tr() leaf; null when it is no miniscript
 * at all (the caller then reports Core's final messages); throws Core's error otherwise.
 */
export function parseMiniscriptDescriptor(state: ParseState, text: string, ctx: ParseContext): Descriptor[] | null {
  // Outside wsh(), keys are read as in tr(), as Core does before refusing the expression.
  const reader = new TextKeyReader(ctx === 'p2wsh' ? 'p2wsh' : 'tapscript', state);
  const node = miniscriptFromString(text, reader);
  if (reader.error !== '') throw new DescriptorError(reader.error);
  if (!node) return null;
  if (ctx !== 'p2wsh' && ctx !== 'p2tr') throw new DescriptorError('Miniscript expressions can only be used in wsh or tr.');
  const error = insanityMessage(node, (key) => reader.keys[key]![0]!.toString());
  if (error !== null) throw new DescriptorError(error);
  const longest = Math.max(...reader.keys.map((list) => list.length));
  if (!alignMultipath(reader.keys, longest)) throw new DescriptorError('Miniscript: Multipath derivation paths have mismatched lengths');
  return Array.from({ length: longest }, (_, i) => new MiniscriptDescriptor(
    reader.keys.map((list) => list[i]!),
    node,
  ));
}

/** How inference turns pushed keys into key expressions (InferPubkey / InferXOnlyPubkey with the caller's knowledge). */
export interface KeyInference {
  /** A full public key in `ctx`, or null where Core's InferPubkey refuses it. */
  pubkey(key: Uint8Array, ctx: 'p2wsh' | 'p2tr'): KeyExpression | null;
  xOnly(key: Uint8Array): KeyExpression;
  /** The public key the caller knows with this HASH160, if any. */
  pubkeyByHash(hash: Uint8Array): Uint8Array | null;
}

/** Core's KeyParser reading keys from a script, for InferScript's miniscript step. */
class ScriptKeyReader implements KeyInferrer {
  readonly keys: KeyExpression[] = [];
  private readonly identities: string[] = [];

  constructor(
    readonly ctx: MiniscriptContext,
    private readonly inference: KeyInference,
  ) {}

  private add(key: KeyExpression | null, identity: Uint8Array): number | null {
    if (!key) return null;
    this.keys.push(key);
    this.identities.push(toHex(identity));
    return this.keys.length - 1;
  }

  fromPKBytes(bytes: Uint8Array): number | null {
    if (this.ctx === 'tapscript') {
      if (bytes.length !== 32) return null;
      return this.add(this.inference.xOnly(bytes), Uint8Array.of(2, ...bytes));
    }
    return this.add(this.inference.pubkey(bytes, 'p2wsh'), bytes);
  }

  fromPKHBytes(hash: Uint8Array): number | null {
    const pubkey = this.inference.pubkeyByHash(hash);
    if (!pubkey) return null;
    return this.add(this.inference.pubkey(pubkey, this.ctx === 'p2wsh' ? 'p2wsh' : 'p2tr'), pubkey);
  }

  keyIdentity(index: number): string {
    return this.identities[index]!;
  }
}

/** InferScript's miniscript step for a witness script or tapscript leaf: the descriptor when the script is sane miniscript. */
export function inferMiniscript(script: Uint8Array, ctx: 'p2wsh' | 'p2tr', inference: KeyInference): MiniscriptDescriptor | null {
  const reader = new ScriptKeyReader(ctx === 'p2wsh' ? 'p2wsh' : 'tapscript', inference);
  const node = miniscriptFromScript(script, reader);
  return node && node.isSane() ? new MiniscriptDescriptor(reader.keys, node) : null;
}
