/**
 * Addresses: Core's ExtractDestination + EncodeDestination (script to text) and
 * DecodeDestination + GetScriptForDestination (text to script). Decoding reports Core's
 * exact error strings and bech32 error positions, because validateaddress returns them.
 */
import { concatBytes } from '../primitives/index.js';
import { decodeBase58, decodeBase58Check, encodeBase58Check } from './base58.js';
import { bytesToWords, decodeBech32, encodeBech32, wordsToBytes } from './bech32.js';
import { locateBech32Errors } from './bech32-errors.js';
import { chainPrefixes, type ChainName, type ChainPrefixes } from './chain-prefixes.js';
import { OP } from './opcodes.js';
import { solve } from './standard.js';

/** BIP141's witness program size bounds. */
const MIN_WITNESS_PROGRAM = 2;
const MAX_WITNESS_PROGRAM = 40;
const HASH160_SIZE = 20;
/** Core's cap on a base58 string's decoded size when only asking "is this base58 at all?". */
const MAX_BASE58_PROBE = 100;

export type AddressDecodeResult =
  | { ok: true; scriptPubKey: Uint8Array }
  | {
      ok: false;
      /** Core's DecodeDestination error text. */
      error: string;
      /** Positions of suspect characters (bech32 errors only), as validateaddress's error_locations. */
      errorLocations: number[];
    };

function fail(error: string, errorLocations: number[] = []): AddressDecodeResult {
  return { ok: false, error, errorLocations };
}

function ok(scriptPubKey: Uint8Array): AddressDecodeResult {
  return { ok: true, scriptPubKey };
}

export function payToPubkeyHashScript(hash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, HASH160_SIZE), hash, Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG));
}

export function payToScriptHashScript(hash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(OP.OP_HASH160, HASH160_SIZE), hash, Uint8Array.of(OP.OP_EQUAL));
}

/** OP_n <program>: the scriptPubKey of a witness program of version 0..16. */
export function witnessProgramScript(version: number, program: Uint8Array): Uint8Array {
  const versionOp = version === 0 ? OP.OP_0 : OP.OP_1 + version - 1;
  return concatBytes(Uint8Array.of(versionOp, program.length), program);
}

function encodeSegwit(prefixes: ChainPrefixes, version: number, program: Uint8Array): string {
  // BIP350: version 0 keeps the original bech32 checksum, every later version uses bech32m.
  return encodeBech32(version === 0 ? 'bech32' : 'bech32m', prefixes.bech32Hrp, [version, ...bytesToWords(program)]);
}

/**
 * The address of a scriptPubKey, or null when it has none: bare pubkeys (Core no longer
 * shows P2PK as P2PKH), multisig, OP_RETURN data and nonstandard scripts.
 */
export function encodeAddress(scriptPubKey: Uint8Array, chain: ChainName): string | null {
  const prefixes = chainPrefixes(chain);
  const solution = solve(scriptPubKey);
  switch (solution.type) {
    case 'pubkeyhash':
      return encodeBase58Check(concatBytes(Uint8Array.of(prefixes.pubkeyAddress), solution.hash));
    case 'scripthash':
      return encodeBase58Check(concatBytes(Uint8Array.of(prefixes.scriptAddress), solution.hash));
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return encodeSegwit(prefixes, 0, solution.program);
    case 'witness_v1_taproot':
      return encodeSegwit(prefixes, 1, solution.program);
    case 'witness_unknown':
      return encodeSegwit(prefixes, solution.version, solution.program);
    case 'anchor':
      return encodeSegwit(prefixes, 1, scriptPubKey.subarray(2));
    default:
      return null;
  }
}

/** ASCII-only lower-casing, as Core's ToLower (JS toLowerCase folds non-ASCII letters too). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

function decodeBase58Address(payload: Uint8Array, prefixes: ChainPrefixes): AddressDecodeResult {
  const version = payload[0];
  const hash = payload.subarray(1);
  if (payload.length === 1 + HASH160_SIZE && version === prefixes.pubkeyAddress) return ok(payToPubkeyHashScript(hash));
  if (payload.length === 1 + HASH160_SIZE && version === prefixes.scriptAddress) return ok(payToScriptHashScript(hash));
  // A known version byte means only the length was wrong.
  if (payload.length >= 1 && (version === prefixes.scriptAddress || version === prefixes.pubkeyAddress)) {
    return fail('Invalid length for Base58 address (P2PKH or P2SH)');
  }
  return fail('Invalid or unsupported Base58-encoded address.');
}

function decodeSegwitAddress(text: string, prefixes: ChainPrefixes): AddressDecodeResult {
  const decoded = decodeBech32(text);
  if (!decoded) {
    const report = locateBech32Errors(text);
    return fail(report.message, report.locations);
  }
  const { encoding, hrp, words } = decoded;
  if (words.length === 0) return fail('Empty Bech32 data section');
  if (hrp !== prefixes.bech32Hrp) {
    return fail(`Invalid or unsupported prefix for Segwit (Bech32) address (expected ${prefixes.bech32Hrp}, got ${hrp}).`);
  }
  const version = words[0]!;
  if (version === 0 && encoding !== 'bech32') return fail('Version 0 witness address must use Bech32 checksum');
  if (version !== 0 && encoding !== 'bech32m') return fail('Version 1+ witness address must use Bech32m checksum');
  const program = wordsToBytes(words.slice(1));
  if (!program) return fail('Invalid padding in Bech32 data section');
  const size = `${program.length} ${program.length === 1 ? 'byte' : 'bytes'}`;
  if (version === 0) {
    if (program.length === 20 || program.length === 32) return ok(witnessProgramScript(0, program));
    return fail(`Invalid Bech32 v0 address program size (${size}), per BIP141`);
  }
  if (version > 16) return fail('Invalid Bech32 address witness version');
  // Taproot and P2A (version 1 with 32 or 2 bytes) are ordinary programs here.
  if (program.length < MIN_WITNESS_PROGRAM || program.length > MAX_WITNESS_PROGRAM) {
    return fail(`Invalid Bech32 address program size (${size})`);
  }
  return ok(witnessProgramScript(version, program));
}

/**
 * Core's DecodeDestination for `chain`. A string counts as a segwit address when it
 * starts with the chain's HRP (in either case); everything else is tried as base58,
 * so another chain's bech32 address is reported as an unknown encoding, as in Core.
 */
export function decodeAddress(text: string, chain: ChainName): AddressDecodeResult {
  const prefixes = chainPrefixes(chain);
  const isBech32 = asciiLower(text.slice(0, prefixes.bech32Hrp.length)) === prefixes.bech32Hrp;
  if (isBech32) return decodeSegwitAddress(text, prefixes);
  const payload = decodeBase58Check(text, 1 + HASH160_SIZE);
  if (payload) return decodeBase58Address(payload, prefixes);
  if (!decodeBase58(text, MAX_BASE58_PROBE)) return fail('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
  return fail('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
}

export function isValidAddress(text: string, chain: ChainName): boolean {
  return decodeAddress(text, chain).ok;
}
