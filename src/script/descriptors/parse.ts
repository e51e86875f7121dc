/**
 * Descriptor text to descriptor objects: a port of Core's Parse and ParseScript, in the
 * same order of checks, so that every input fails with the message Core gives (and
 * getdescriptorinfo / deriveaddresses return it as RPC error -5). A multipath key
 * expression (`<0;1>`) makes the result a list, one descriptor per alternative.
 */
import { decodeAddress } from '../address.js';
import type { ChainName } from '../chain-prefixes.js';
import { TAPROOT_CONTROL_MAX_NODE_COUNT, MAX_PUBKEYS_PER_MULTISIG, MAX_SCRIPT_ELEMENT_SIZE } from '../limits.js';
import { fromHex } from '../../primitives/index.js';
import { checkChecksum } from './checksum.js';
import { alignMultipath, withPrefix, type ParseContext, type ParseState } from './context.js';
import { DescriptorError } from './errors.js';
import type { KeyExpression } from './keys.js';
import { KeyStore } from './keystore.js';
import {
  AddrDescriptor,
  ComboDescriptor,
  Descriptor,
  MultiADescriptor,
  MultisigDescriptor,
  PkDescriptor,
  PkhDescriptor,
  RawDescriptor,
  RawTrDescriptor,
  ShDescriptor,
  TrDescriptor,
  WpkhDescriptor,
  WshDescriptor,
} from './nodes.js';
import { parseMiniscriptDescriptor } from './miniscript-descriptor.js';
import { parsePubkey } from './parse-key.js';
import { constant, Cursor, expr, func, isHexText, parseUint32 } from '../parsing.js';

/** BIP342's limit on keys in a CHECKSIGADD multisig, from the 1000-element stack. */
const MAX_PUBKEYS_PER_MULTI_A = 999;
/** Bare multisig is standard with at most 3 keys; Core refuses more in a descriptor. */
const MAX_BARE_MULTISIG_KEYS = 3;

function isScriptContext(ctx: ParseContext, ...allowed: ParseContext[]): boolean {
  return allowed.includes(ctx);
}

function parseSingleKey(state: ParseState, text: string, ctx: ParseContext, label: string): KeyExpression[] {
  return withPrefix(`${label}(): `, () => parsePubkey(state, text, ctx));
}

/** multi, sortedmulti (top, sh, wsh) and multi_a, sortedmulti_a (tr leaves). */
function parseMulti(state: ParseState, inner: Cursor, ctx: ParseContext, kind: 'multi' | 'multi_a', sorted: boolean): Descriptor[] {
  const thresholdText = expr(inner);
  const threshold = parseUint32(thresholdText);
  if (threshold === null) throw new DescriptorError(`Multi threshold '${thresholdText}' is not valid`);
  const providers: KeyExpression[][] = [];
  let scriptSize = 0;
  while (!inner.empty) {
    if (!constant(',', inner)) throw new DescriptorError(`Multi: expected ',', got '${inner.text[0]}'`);
    const arg = expr(inner);
    const keys = withPrefix('Multi: ', () => parsePubkey(state, arg, ctx));
    scriptSize += keys[0]!.size() + 1;
    providers.push(keys);
  }
  const count = providers.length;
  if (kind === 'multi' && (count === 0 || count > MAX_PUBKEYS_PER_MULTISIG)) {
    throw new DescriptorError(`Cannot have ${count} keys in multisig; must have between 1 and ${MAX_PUBKEYS_PER_MULTISIG} keys, inclusive`);
  }
  if (kind === 'multi_a' && (count === 0 || count > MAX_PUBKEYS_PER_MULTI_A)) {
    throw new DescriptorError(`Cannot have ${count} keys in multi_a; must have between 1 and ${MAX_PUBKEYS_PER_MULTI_A} keys, inclusive`);
  }
  if (threshold < 1) throw new DescriptorError(`Multisig threshold cannot be ${threshold}, must be at least 1`);
  if (threshold > count) {
    throw new DescriptorError(`Multisig threshold cannot be larger than the number of keys; threshold is ${threshold} but only ${count} keys specified`);
  }
  if (ctx === 'top' && count > MAX_BARE_MULTISIG_KEYS) {
    throw new DescriptorError(`Cannot have ${count} pubkeys in bare multisig; only at most 3 pubkeys`);
  }
  // The redeem script must fit one push: this caps compressed keys at 15.
  if (ctx === 'p2sh' && scriptSize + 3 > MAX_SCRIPT_ELEMENT_SIZE) {
    throw new DescriptorError(`P2SH script is too large, ${scriptSize + 3} bytes is larger than ${MAX_SCRIPT_ELEMENT_SIZE} bytes`);
  }
  const longest = Math.max(...providers.map((list) => list.length));
  if (!alignMultipath(providers, longest)) throw new DescriptorError('multi(): Multipath derivation paths have mismatched lengths');
  return Array.from({ length: longest }, (_, i) => {
    const keys = providers.map((list) => list[i]!);
    return kind === 'multi' ? new MultisigDescriptor(threshold, keys, sorted) : new MultiADescriptor(threshold, keys, sorted);
  });
}

/** tr(KEY) and tr(KEY,TREE), the tree written with {left,right} braces. */
function parseTr(state: ParseState, inner: Cursor): Descriptor[] {
  const keyText = expr(inner);
  const internalKeys = withPrefix('tr(): ', () => parsePubkey(state, keyText, 'p2tr'));
  let longest = internalKeys.length;
  const leaves: Descriptor[][] = [];
  const depths: number[] = [];
  if (!inner.empty) {
    if (!constant(',', inner)) throw new DescriptorError(`tr: expected ',', got '${inner.text[0]}'`);
    // The route from the root to the leaf being read: false = left branch, true = right.
    const branches: boolean[] = [];
    do {
      while (constant('{', inner)) {
        branches.push(false);
        if (branches.length > TAPROOT_CONTROL_MAX_NODE_COUNT) {
          throw new DescriptorError(`tr() supports at most ${TAPROOT_CONTROL_MAX_NODE_COUNT} nesting levels`);
        }
      }
      const leafText = new Cursor(expr(inner));
      const leaf = parseScript(state, leafText, 'p2tr');
      leaves.push(leaf);
      longest = Math.max(longest, leaf.length);
      depths.push(branches.length);
      while (branches.length > 0 && branches[branches.length - 1]) {
        if (!constant('}', inner)) throw new DescriptorError("tr(): expected '}' after script expression");
        branches.pop();
      }
      if (branches.length > 0) {
        if (!constant(',', inner)) throw new DescriptorError("tr(): expected ',' after script expression");
        branches[branches.length - 1] = true;
      }
    } while (branches.length > 0);
    if (!inner.empty) throw new DescriptorError("tr(): expected ')' after script expression");
  }
  if (!alignMultipath(leaves, longest)) throw new DescriptorError('tr(): Multipath subscripts have mismatched lengths');
  if (internalKeys.length > 1 && internalKeys.length !== longest) {
    throw new DescriptorError('tr(): Multipath internal key mismatches multipath subscripts lengths');
  }
  while (internalKeys.length < longest) internalKeys.push(internalKeys[0]!);
  return Array.from({ length: longest }, (_, i) => new TrDescriptor(internalKeys[i]!, leaves.map((list) => list[i]!), depths));
}

/** One script expression in context `ctx` (Core's ParseScript); the cursor moves past it. */
function parseScript(state: ParseState, cursor: Cursor, ctx: ParseContext): Descriptor[] {
  const inner = new Cursor(expr(cursor));
  if (func('pk', inner)) {
    return parseSingleKey(state, inner.text, ctx, 'pk').map((key) => new PkDescriptor(key, ctx === 'p2tr'));
  }
  if (isScriptContext(ctx, 'top', 'p2sh', 'p2wsh') && func('pkh', inner)) {
    return parseSingleKey(state, inner.text, ctx, 'pkh').map((key) => new PkhDescriptor(key));
  }
  if (ctx === 'top' && func('combo', inner)) {
    return parseSingleKey(state, inner.text, ctx, 'combo').map((key) => new ComboDescriptor(key));
  } else if (func('combo', inner)) {
    throw new DescriptorError('Can only have combo() at top level');
  }
  const multi = func('multi', inner);
  const sortedMulti = !multi && func('sortedmulti', inner);
  const multiA = !(multi || sortedMulti) && func('multi_a', inner);
  const sortedMultiA = !(multi || sortedMulti || multiA) && func('sortedmulti_a', inner);
  if (isScriptContext(ctx, 'top', 'p2sh', 'p2wsh') && (multi || sortedMulti)) {
    return parseMulti(state, inner, ctx, 'multi', sortedMulti);
  } else if (ctx === 'p2tr' && (multiA || sortedMultiA)) {
    return parseMulti(state, inner, ctx, 'multi_a', sortedMultiA);
  } else if (multi || sortedMulti) {
    throw new DescriptorError('Can only have multi/sortedmulti at top level, in sh(), or in wsh()');
  } else if (multiA || sortedMultiA) {
    throw new DescriptorError('Can only have multi_a/sortedmulti_a inside tr()');
  }
  if (isScriptContext(ctx, 'top', 'p2sh') && func('wpkh', inner)) {
    return parseSingleKey(state, inner.text, 'p2wpkh', 'wpkh').map((key) => new WpkhDescriptor(key));
  } else if (func('wpkh', inner)) {
    throw new DescriptorError('Can only have wpkh() at top level or inside sh()');
  }
  if (ctx === 'top' && func('sh', inner)) {
    const subs = parseScript(state, inner, 'p2sh');
    // Core fails here without setting a message.
    if (!inner.empty) throw new DescriptorError('');
    return subs.map((sub) => new ShDescriptor(sub));
  } else if (func('sh', inner)) {
    throw new DescriptorError('Can only have sh() at top level');
  }
  if (isScriptContext(ctx, 'top', 'p2sh') && func('wsh', inner)) {
    const subs = parseScript(state, inner, 'p2wsh');
    if (!inner.empty) throw new DescriptorError('');
    return subs.map((sub) => new WshDescriptor(sub));
  } else if (func('wsh', inner)) {
    throw new DescriptorError('Can only have wsh() at top level or inside sh()');
  }
  if (ctx === 'top' && func('addr', inner)) {
    const decoded = decodeAddress(inner.text, state.chain);
    if (!decoded.ok) throw new DescriptorError('Address is not valid');
    return [new AddrDescriptor(decoded.scriptPubKey, state.chain)];
  } else if (func('addr', inner)) {
    throw new DescriptorError('Can only have addr() at top level');
  }
  if (ctx === 'top' && func('tr', inner)) {
    return parseTr(state, inner);
  } else if (func('tr', inner)) {
    throw new DescriptorError('Can only have tr at top level');
  }
  if (ctx === 'top' && func('rawtr', inner)) {
    const keyText = expr(inner);
    if (!inner.empty) throw new DescriptorError('rawtr(): only one key expected.');
    return parseSingleKey(state, keyText, 'p2tr', 'rawtr').map((key) => new RawTrDescriptor(key));
  } else if (func('rawtr', inner)) {
    throw new DescriptorError('Can only have rawtr at top level');
  }
  if (ctx === 'top' && func('raw', inner)) {
    if (!isHexText(inner.text)) throw new DescriptorError('Raw script is not hex');
    return [new RawDescriptor(fromHex(inner.text))];
  } else if (func('raw', inner)) {
    throw new DescriptorError('Can only have raw() at top level');
  }
  const miniscript = parseMiniscriptDescriptor(state, inner.text, ctx);
  if (miniscript) return miniscript;
  if (ctx === 'p2sh') throw new DescriptorError('A function is needed within P2SH');
  if (ctx === 'p2wsh') throw new DescriptorError('A function is needed within P2WSH');
  throw new DescriptorError(`'${inner.text}' is not a valid descriptor function`);
}

export interface ParseOptions {
  /** deriveaddresses requires the `#checksum`; getdescriptorinfo does not. */
  readonly requireChecksum?: boolean;
}

/** The result of parsing one descriptor string. */
export interface ParsedDescriptor {
  /** One descriptor, or one per alternative of a multipath (`<a;b>`) element. */
  readonly descriptors: readonly Descriptor[];
  /** The private keys (WIF, xprv) the text contained. */
  readonly keys: KeyStore;
  readonly chain: ChainName;
  /** The checksum of the text's payload (getdescriptorinfo's "checksum"). */
  readonly checksum: string;
}

/**
 * Core's Parse: checks the checksum, then parses the whole text as one top-level script
 * expression. Throws DescriptorError with Core's message (possibly empty, where Core sets
 * none) on any failure. Keys, WIFs and addresses are read for `chain`.
 */
export function parseDescriptor(text: string, chain: ChainName, options: ParseOptions = {}): ParsedDescriptor {
  const { payload, checksum } = checkChecksum(text, options.requireChecksum ?? false);
  const state: ParseState = { keys: new KeyStore(), chain };
  const cursor = new Cursor(payload);
  const descriptors = parseScript(state, cursor, 'top');
  // Text after the first expression: Core rejects it without a message.
  if (!cursor.empty) throw new DescriptorError('');
  return { descriptors, keys: state.keys, chain, checksum };
}
