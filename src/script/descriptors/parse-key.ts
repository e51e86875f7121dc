/**
 * Key expressions as Core's ParsePubkey / ParsePubkeyInner read them: hex keys (x-only in
 * tr()), WIF, xpub/xprv with paths, wildcards and multipath elements, `[origin]` prefixes
 * and musig(). Each returns one key per multipath alternative. Errors are Core's texts;
 * callers add the function-name prefix Core adds.
 */
import { Point } from '@noble/secp256k1';
import { fromHex } from '../../primitives/index.js';
import { decodeExtPrivKey, decodeExtPubKey, neuterExtKey } from '../bip32.js';
import { decodeSecret } from '../wif.js';
import { isValidPublicKeySize } from '../secp256k1.js';
import { alignMultipath, withPrefix, type ParseContext, type ParseState } from './context.js';
import { DescriptorError } from './errors.js';
import { parseDeriveType, parseKeyPath, type MarkerState } from './keypath.js';
import { Bip32Key, ConstKey, KeyExpression, MusigKey, OriginKey } from './keys.js';
import { constant, Cursor, expr, func, isHexText, isSpaceChar, split } from '../parsing.js';

/** Core's CPubKey::IsValidNonHybrid: 02/03 with 33 bytes or 04 with 65. */
function isNonHybridSize(key: Uint8Array): boolean {
  return (key.length === 33 && (key[0] === 2 || key[0] === 3)) || (key.length === 65 && key[0] === 4);
}

/** Core's CPubKey::IsFullyValid for the non-hybrid keys that reach it: a point on the curve. */
function isFullyValidKey(key: Uint8Array): boolean {
  if (!isNonHybridSize(key)) return false;
  try {
    Point.fromBytes(key);
    return true;
  } catch {
    return false;
  }
}

function parseHexKey(text: string, ctx: ParseContext, permitUncompressed: boolean, state: ParseState): KeyExpression {
  const data = fromHex(text);
  if (isValidPublicKeySize(data) && !isNonHybridSize(data)) throw new DescriptorError('Hybrid public keys are not allowed');
  if (isFullyValidKey(data)) {
    if (!permitUncompressed && data.length !== 33) throw new DescriptorError('Uncompressed keys are not allowed');
    return new ConstKey(data, false, state.chain);
  }
  if (data.length === 32 && ctx === 'p2tr') {
    // An x-only key stands for the point with even y.
    const full = new Uint8Array(33);
    full[0] = 2;
    full.set(data, 1);
    if (isFullyValidKey(full)) return new ConstKey(full, true, state.chain);
  }
  throw new DescriptorError(`Pubkey '${text}' is invalid`);
}

/** A key expression without origin (Core's ParsePubkeyInner). */
function parsePubkeyInner(state: ParseState, text: string, ctx: ParseContext, marker: MarkerState): KeyExpression[] {
  const permitUncompressed = ctx === 'top' || ctx === 'p2sh';
  const parts = split(text, '/');
  const str = parts[0]!;
  if (str.length === 0) throw new DescriptorError('No key provided');
  if (isSpaceChar(str[0]) || isSpaceChar(str[str.length - 1])) {
    throw new DescriptorError(`Key '${str}' is invalid due to whitespace`);
  }
  if (parts.length === 1) {
    if (isHexText(str)) return [parseHexKey(str, ctx, permitUncompressed, state)];
    const wif = decodeSecret(str, state.chain);
    if (wif) {
      if (!permitUncompressed && !wif.compressed) throw new DescriptorError('Uncompressed keys are not allowed');
      const publicKey = state.keys.add(wif.secret, wif.compressed);
      return [new ConstKey(publicKey, ctx === 'p2tr', state.chain)];
    }
  }
  const xprv = decodeExtPrivKey(str, state.chain);
  const xpub = xprv ? neuterExtKey(xprv) : decodeExtPubKey(str, state.chain);
  if (!xpub) throw new DescriptorError(`key '${str}' is not valid`);
  const deriveType = parseDeriveType(parts, marker);
  const { paths } = parseKeyPath(parts, marker, true);
  if (xprv) state.keys.add(xprv.privateKey, true);
  return paths.map((path) => new Bip32Key(xpub, path, deriveType, marker.apostrophe, state.chain));
}

/** musig(KEY,KEY,...)[/path][/*], only inside tr() and rawtr(). */
function parseMusig(state: ParseState, text: string, ctx: ParseContext): KeyExpression[] {
  if (ctx !== 'p2tr') throw new DescriptorError('musig() is only allowed in tr() and rawtr()');
  // The closing parenthesis stays with the first piece so that func() can match it.
  const pieces = split(text, ')', true);
  if (pieces.length > 2) throw new DescriptorError("Too many ')' in musig() expression");
  const inner = new Cursor(pieces[0]!);
  if (!func('musig', inner)) throw new DescriptorError('Invalid musig() expression');

  const participants: KeyExpression[][] = [];
  let anyRanged = false;
  let allBip32 = true;
  while (!inner.empty) {
    if (participants.length > 0 && !constant(',', inner)) {
      throw new DescriptorError(`musig(): expected ',', got '${inner.text[0]}'`);
    }
    const arg = expr(inner);
    const keys = withPrefix('musig(): ', () => parsePubkey(state, arg, 'musig'));
    anyRanged ||= keys[0]!.isRange();
    allBip32 &&= keys[0]!.isBip32();
    participants.push(keys);
  }
  if (participants.length === 0) throw new DescriptorError('musig(): Must contain key expressions');

  let deriveType: 'none' | 'unhardened' = 'none';
  let paths: number[][] = [[]];
  const derivation = pieces[1];
  // Text after ')' that does not start with '/' is ignored, as in Core.
  if (pieces.length === 2 && derivation!.startsWith('/')) {
    if (!allBip32) throw new DescriptorError('musig(): derivation requires all participants to be xpubs or xprvs');
    if (anyRanged) throw new DescriptorError('musig(): Cannot have ranged participant keys if musig() also has derivation');
    const elements = split(derivation!, '/');
    const ignored: MarkerState = { apostrophe: false };
    const type = parseDeriveType(elements, ignored);
    if (type === 'hardened') throw new DescriptorError('musig(): Cannot have hardened child derivation');
    deriveType = type;
    const parsed = withPrefix('musig(): ', () => parseKeyPath(elements, ignored, true));
    if (parsed.hasHardened) throw new DescriptorError('musig(): cannot have hardened derivation steps');
    paths = parsed.paths;
  }

  const longest = Math.max(...participants.map((list) => list.length));
  if (longest > 1 && paths.length > 1) {
    throw new DescriptorError('musig(): Cannot have multipath participant keys if musig() is also multipath');
  }
  if (longest > 1) {
    if (!alignMultipath(participants, longest)) throw new DescriptorError('musig(): Multipath derivation paths have mismatched lengths');
    return Array.from({ length: longest }, (_, i) => new MusigKey(participants.map((list) => list[i]!), paths[0]!, deriveType, state.chain));
  }
  const fixed = participants.map((list) => list[0]!);
  return paths.map((path) => new MusigKey(fixed, path, deriveType, state.chain));
}

/** A key expression with optional `[fingerprint/path]` origin (Core's ParsePubkey). */
export function parsePubkey(state: ParseState, text: string, ctx: ParseContext): KeyExpression[] {
  if (constant('musig(', new Cursor(text), false)) return parseMusig(state, text, ctx);
  const originSplit = split(text, ']');
  if (originSplit.length > 2) throw new DescriptorError("Multiple ']' characters found for a single pubkey");
  // Set by the last hardened element anywhere in the origin, path or wildcard.
  const marker: MarkerState = { apostrophe: false };
  if (originSplit.length === 1) return parsePubkeyInner(state, originSplit[0]!, ctx, marker);
  const origin = originSplit[0]!;
  if (origin.length === 0 || origin[0] !== '[') {
    throw new DescriptorError(`Key origin start '[ character expected but not found, got '${origin.length === 0 ? ']' : origin[0]}' instead`);
  }
  const elements = split(origin.slice(1), '/');
  const fingerprintHex = elements[0]!;
  if (fingerprintHex.length !== 8) {
    throw new DescriptorError(`Fingerprint is not 4 bytes (${fingerprintHex.length} characters instead of 8 characters)`);
  }
  if (!isHexText(fingerprintHex)) throw new DescriptorError(`Fingerprint '${fingerprintHex}' is not hex`);
  const path = parseKeyPath(elements, marker, false).paths[0]!;
  const keys = parsePubkeyInner(state, originSplit[1]!, ctx, marker);
  return keys.map((key) => new OriginKey(fromHex(fingerprintHex), path, key, marker.apostrophe));
}
