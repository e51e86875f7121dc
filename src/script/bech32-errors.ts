/**
 * Core's bech32::LocateErrors: for a string that does not decode, the reason and the
 * positions of the offending characters. validateaddress returns both, so the message
 * (including which checksum variant the damage is attributed to) and the positions
 * follow Core exactly. Checksum damage is located by solving for one or two symbol
 * errors with the BCH code's syndromes over GF(1024); positions are byte offsets into
 * the UTF-8 string, as Core counts them.
 */
import { BECH32_MAX_LENGTH, type Bech32Encoding } from './bech32.js';

export interface Bech32ErrorReport {
  /** Core's text, e.g. "Invalid Bech32 checksum"; empty when the string is valid. */
  message: string;
  /** Byte offsets of the suspect characters, ascending as Core lists them. */
  locations: number[];
}

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHARSET_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < CHARSET.length; i++) {
  CHARSET_REV[CHARSET.charCodeAt(i)] = i;
  CHARSET_REV[CHARSET.toUpperCase().charCodeAt(i)] = i;
}

const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

/**
 * Exponent and logarithm tables of GF(1024), built as GF(32)[x] / (x^2 + 9x + 23) with
 * GF(32) = GF(2)[a] / (a^5 + a^3 + 1). Element e = 1·x + 0 generates the field.
 */
const { GF1024_EXP, GF1024_LOG } = (() => {
  const gf32Exp = new Int16Array(31);
  const gf32Log = new Int16Array(32);
  gf32Exp[0] = 1;
  gf32Log[0] = -1;
  let v = 1;
  for (let i = 1; i < 31; i++) {
    v <<= 1;
    if (v & 32) v ^= 41;
    gf32Exp[i] = v;
    gf32Log[v] = i;
  }
  const mul32 = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : gf32Exp[(gf32Log[a]! + gf32Log[b]!) % 31]!);
  const exp = new Int16Array(1023);
  const log = new Int16Array(1024);
  exp[0] = 1;
  log[0] = -1;
  v = 1;
  for (let i = 1; i < 1023; i++) {
    // Multiply v = v1·x + v0 by x, reducing x^2 to 9x + 23.
    const v0 = v & 31;
    const v1 = v >> 5;
    v = ((mul32(v1, 9) ^ v0) << 5) | mul32(v1, 23);
    exp[i] = v;
    log[v] = i;
  }
  return { GF1024_EXP: exp, GF1024_LOG: log };
})();

/** Contribution of each residue bit to the syndromes s997, s998, s999, packed 10 bits each. */
const SYNDROME_CONSTS = (() => {
  const consts = new Uint32Array(25);
  for (let k = 1; k < 6; k++) {
    for (let shift = 0; shift < 5; shift++) {
      const b = GF1024_LOG[1 << shift]!;
      const c0 = GF1024_EXP[(997 * k + b) % 1023]!;
      const c1 = GF1024_EXP[(998 * k + b) % 1023]!;
      const c2 = GF1024_EXP[(999 * k + b) % 1023]!;
      consts[5 * (k - 1) + shift] = (c2 << 20) | (c1 << 10) | c0;
    }
  }
  return consts;
})();

function syndrome(residue: number): number {
  const low = residue & 0x1f;
  let result = low ^ (low << 10) ^ (low << 20);
  for (let i = 0; i < 25; i++) {
    if ((residue >>> (5 + i)) & 1) result ^= SYNDROME_CONSTS[i]!;
  }
  return result;
}

/** BIP173's checksum polynomial remainder. */
function polymod(values: readonly number[]): number {
  let c = 1;
  for (const value of values) {
    const c0 = c >>> 25;
    c = ((c & 0x1ffffff) << 5) ^ value;
    if (c0 & 1) c ^= 0x3b6a57b2;
    if (c0 & 2) c ^= 0x26508e6d;
    if (c0 & 4) c ^= 0x1ea119fa;
    if (c0 & 8) c ^= 0x3d4233dd;
    if (c0 & 16) c ^= 0x2a1462b3;
  }
  return c >>> 0;
}

function expandHrp(hrp: Uint8Array): number[] {
  const out: number[] = [];
  for (const c of hrp) out.push(c >> 5);
  out.push(0);
  for (const c of hrp) out.push(c & 0x1f);
  return out;
}

/** Positions (from the left) of one or two symbol errors that explain the residue, or []. */
function locateChecksumErrors(residue: number, length: number, stringLength: number): number[] {
  const syn = syndrome(residue);
  const s0 = syn & 0x3ff;
  const s1 = (syn >>> 10) & 0x3ff;
  const s2 = syn >>> 20;
  const ls0 = GF1024_LOG[s0]!;
  const ls1 = GF1024_LOG[s1]!;
  const ls2 = GF1024_LOG[s2]!;
  const fromLeft = (p: number): number => stringLength - p - 1;

  // One error e1·x^p1 gives s1² = s0·s2, and then e^p1 = s1 / s0.
  if (ls0 !== -1 && ls1 !== -1 && ls2 !== -1 && (2 * ls1 - ls2 - ls0 + 2046) % 1023 === 0) {
    const p1 = (ls1 - ls0 + 1023) % 1023;
    const le1 = ls0 + (1023 - 997) * p1;
    // The error value must lie in GF(32), the elements whose log is a multiple of 33.
    return p1 < length && le1 % 33 === 0 ? [fromLeft(p1)] : [];
  }

  // Two errors: guess p1, solve for p2, and accept when both error values lie in GF(32).
  for (let p1 = 0; p1 < length; p1++) {
    const s2s1p1 = s2 ^ (s1 === 0 ? 0 : GF1024_EXP[(ls1 + p1) % 1023]!);
    if (s2s1p1 === 0) continue;
    const s1s0p1 = s1 ^ (s0 === 0 ? 0 : GF1024_EXP[(ls0 + p1) % 1023]!);
    if (s1s0p1 === 0) continue;
    const ls1s0p1 = GF1024_LOG[s1s0p1]!;
    const p2 = (GF1024_LOG[s2s1p1]! - ls1s0p1 + 1023) % 1023;
    if (p2 >= length || p1 === p2) continue;
    const s1s0p2 = s1 ^ (s0 === 0 ? 0 : GF1024_EXP[(ls0 + p2) % 1023]!);
    if (s1s0p2 === 0) continue;
    const invP1P2 = 1023 - GF1024_LOG[GF1024_EXP[p1]! ^ GF1024_EXP[p2]!]!;
    const le2 = ls1s0p1 + invP1P2 + (1023 - 997) * p2;
    if (le2 % 33) continue;
    const le1 = GF1024_LOG[s1s0p2]! + invP1P2 + (1023 - 997) * p1;
    if (le1 % 33) continue;
    return p1 > p2 ? [fromLeft(p1), fromLeft(p2)] : [fromLeft(p2), fromLeft(p1)];
  }
  return [];
}

/** Core's CheckCharacters on bytes: positions of non-printable bytes and of case switches. */
function badCharacters(bytes: Uint8Array): number[] {
  const errors: number[] = [];
  let lower = false;
  let upper = false;
  bytes.forEach((c, i) => {
    if (c >= 0x61 && c <= 0x7a) {
      if (upper) errors.push(i);
      else lower = true;
    } else if (c >= 0x41 && c <= 0x5a) {
      if (lower) errors.push(i);
      else upper = true;
    } else if (c < 33 || c > 126) {
      errors.push(i);
    }
  });
  return errors;
}

const UTF8 = new TextEncoder();

export function locateBech32Errors(text: string): Bech32ErrorReport {
  const bytes = UTF8.encode(text);
  if (bytes.length > BECH32_MAX_LENGTH) {
    const locations = Array.from({ length: bytes.length - BECH32_MAX_LENGTH }, (_, i) => BECH32_MAX_LENGTH + i);
    return { message: 'Bech32 string too long', locations };
  }
  const bad = badCharacters(bytes);
  if (bad.length > 0) return { message: 'Invalid character or mixed case', locations: bad };

  const pos = bytes.lastIndexOf(0x31);
  if (pos === -1) return { message: 'Missing separator', locations: [] };
  if (pos === 0 || pos + 7 > bytes.length) return { message: 'Invalid separator position', locations: [pos] };

  const hrp = bytes.slice(0, pos).map((c) => (c >= 0x41 && c <= 0x5a ? c + 32 : c));
  const values: number[] = [];
  for (let i = pos + 1; i < bytes.length; i++) {
    const rev = CHARSET_REV[bytes[i]!]!;
    if (rev === -1) return { message: 'Invalid Base 32 character', locations: [i] };
    values.push(rev);
  }

  // Try both variants and keep the explanation with fewer errors: the witness version
  // cannot pick the variant, because it may itself be the damaged character.
  const check = polymod([...expandHrp(hrp), ...values]);
  let locations: number[] = [];
  let blamed: Bech32Encoding | undefined;
  for (const [encoding, constant] of [['bech32', BECH32_CONST], ['bech32m', BECH32M_CONST]] as const) {
    const residue = (check ^ constant) >>> 0;
    if (residue === 0) return { message: '', locations: [] };
    const possible = locateChecksumErrors(residue, values.length, bytes.length);
    if (locations.length === 0 || (possible.length > 0 && possible.length < locations.length)) {
      locations = possible;
      if (possible.length > 0) blamed = encoding;
    }
  }
  const message =
    blamed === 'bech32m' ? 'Invalid Bech32m checksum' : blamed === 'bech32' ? 'Invalid Bech32 checksum' : 'Invalid checksum';
  return { message, locations };
}
