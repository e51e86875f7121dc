/**
 * Signature checks for the differential test between the signature backends: a fixed
 * list of edge cases (r or s zero or >= n, high S, every DER signature in
 * script_tests.json and lax re-encodings of valid ones, keys off the curve or >= p,
 * hybrid and uncompressed keys, Schnorr s >= n and R off the curve, tweaks >= n), and
 * an endless deterministic stream of random ones (valid signatures, wrong messages, wrong
 * keys, garbage), case i being the same on every run and in every thread.
 */
import * as noble from '@noble/secp256k1';
import { sha256, toHex } from '../../src/primitives/index.js';
import { verifyEcdsaDer, type SignatureBackend } from '../../src/script/index.js';
import { seededRandom } from './memo-signatures.js';
// spends.ts installs the HMAC-SHA256 that noble's synchronous signing needs.
import './spends.js';
import { readVectorJson } from './vectors.js';

export type SigCase =
  /** Through verifyEcdsaDer: lax DER, key size rule and the hybrid-key rewrite. */
  | { kind: 'ecdsa-der'; label: string; der: Uint8Array; digest: Uint8Array; key: Uint8Array }
  /** Straight to the backend: a compact signature and a 02/03/04 key. */
  | { kind: 'ecdsa'; label: string; sig: Uint8Array; digest: Uint8Array; key: Uint8Array }
  | { kind: 'schnorr'; label: string; sig: Uint8Array; message: Uint8Array; key: Uint8Array }
  | { kind: 'tweak'; label: string; internal: Uint8Array; tweak: Uint8Array; output: Uint8Array; parity: number };

const N = noble.Point.CURVE().n;
const P = noble.Point.CURVE().p;

function bytes32(n: bigint): Uint8Array {
  return noble.etc.numberToBytesBE(n & ((1n << 256n) - 1n));
}
function big(bytes: Uint8Array): bigint {
  return noble.etc.bytesToNumberBE(bytes);
}
function concat(...parts: Uint8Array[]): Uint8Array {
  return noble.etc.concatBytes(...parts);
}

/** The backend's verdict, or what it threw: two backends must give the same string. */
export function verdict(c: SigCase, backend: SignatureBackend): string {
  try {
    switch (c.kind) {
      case 'ecdsa-der':
        return String(verifyEcdsaDer(c.der, c.digest, c.key, backend));
      case 'ecdsa':
        return String(backend.verifyEcdsa(c.sig, c.digest, c.key));
      case 'schnorr':
        return String(backend.verifySchnorr(c.sig, c.message, c.key));
      case 'tweak':
        return String(backend.checkTapTweak(c.internal, c.tweak, c.output, c.parity));
    }
  } catch (err) {
    return `threw ${(err as Error).message}`;
  }
}

export function describeCase(c: SigCase): string {
  const fields = Object.entries(c)
    .filter(([k]) => k !== 'kind' && k !== 'label')
    .map(([k, v]) => `${k}=${v instanceof Uint8Array ? toHex(v) : String(v)}`);
  return `${c.kind} ${c.label}: ${fields.join(' ')}`;
}

/** Strict DER of r || s, optionally with Core-lax oddities noble never emits. */
function der(compact: Uint8Array, odd: 'none' | 'long-lengths' | 'padded' | 'long-seq' = 'none'): Uint8Array {
  const integer = (v: Uint8Array): Uint8Array => {
    let i = 0;
    while (i < 31 && v[i] === 0) i++;
    let body = v.subarray(i);
    if (body[0]! & 0x80) body = concat(Uint8Array.of(0), body);
    if (odd === 'padded') body = concat(Uint8Array.of(0, 0, 0), body);
    if (odd === 'long-lengths') return concat(Uint8Array.of(0x02, 0x82, 0x00, body.length), body);
    return concat(Uint8Array.of(0x02, body.length), body);
  };
  const inner = concat(integer(compact.subarray(0, 32)), integer(compact.subarray(32)));
  return odd === 'long-seq' ? concat(Uint8Array.of(0x30, 0x81, inner.length), inner) : concat(Uint8Array.of(0x30, inner.length), inner);
}

function secretOf(seed: bigint): Uint8Array {
  return bytes32((seed % (N - 1n)) + 1n);
}

function pointOf(secret: Uint8Array): noble.Point {
  return noble.Point.BASE.multiply(big(secret));
}

/** 33, 65 and hybrid (06/07) encodings of a point; the hybrid prefix matches y's parity. */
function encodings(point: noble.Point): { compressed: Uint8Array; uncompressed: Uint8Array; hybrid: Uint8Array; hybridWrong: Uint8Array } {
  const uncompressed = point.toBytes(false);
  const odd = uncompressed[64]! & 1;
  const hybrid = uncompressed.slice();
  hybrid[0] = 6 | odd;
  const hybridWrong = uncompressed.slice();
  hybridWrong[0] = 6 | (odd ^ 1);
  return { compressed: point.toBytes(true), uncompressed, hybrid, hybridWrong };
}

function onCurveX(x: bigint): boolean {
  if (x >= P) return false;
  try {
    noble.Point.fromBytes(concat(Uint8Array.of(2), bytes32(x)));
    return true;
  } catch {
    return false;
  }
}

/** An x in [start, p) with no point on the curve. */
function offCurveX(start: bigint): bigint {
  let x = start;
  while (onCurveX(x)) x++;
  return x;
}

function withS(compact: Uint8Array, s: bigint): Uint8Array {
  return concat(compact.subarray(0, 32), bytes32(s));
}
function withR(compact: Uint8Array, r: bigint): Uint8Array {
  return concat(bytes32(r), compact.subarray(32));
}
function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[(bit >> 3) % out.length]! ^= 1 << (bit & 7);
  return out;
}

/** Every push in script_tests.json that looks like a DER signature (0x30...), with and without its last byte. */
function scriptTestDerSignatures(): Uint8Array[] {
  const rows = readVectorJson<unknown[][]>('script_tests.json');
  const seen = new Set<string>();
  for (const row of rows) {
    if (!Array.isArray(row) || typeof row[0] !== 'string') continue;
    const scripts = row.filter((cell): cell is string => typeof cell === 'string').slice(0, 2);
    for (const script of scripts) {
      for (const match of script.matchAll(/0x(30[0-9a-fA-F]{10,})/g)) {
        const hex = match[1]!.toLowerCase();
        if (hex.length % 2 === 0) seen.add(hex);
      }
    }
  }
  const out: Uint8Array[] = [];
  for (const hex of seen) {
    const bytes = noble.etc.hexToBytes(hex);
    out.push(bytes, bytes.subarray(0, bytes.length - 1));
  }
  return out;
}

/** The fixed edge cases; every one runs in every form of the test. */
export function edgeCases(): SigCase[] {
  const cases: SigCase[] = [];
  const secret = secretOf(0x5eed_0001n);
  const point = pointOf(secret);
  const keys = encodings(point);
  const digest = sha256(new TextEncoder().encode('edge case digest'));
  const sig = noble.sign(digest, secret, { prehash: false });
  const s = big(sig.subarray(32));
  const r = big(sig.subarray(0, 32));
  const ecdsa = (label: string, sigBytes: Uint8Array, key: Uint8Array = keys.compressed, d: Uint8Array = digest) =>
    cases.push({ kind: 'ecdsa', label, sig: sigBytes, digest: d, key });
  const ecdsaDer = (label: string, derBytes: Uint8Array, key: Uint8Array = keys.compressed, d: Uint8Array = digest) =>
    cases.push({ kind: 'ecdsa-der', label, der: derBytes, digest: d, key });

  ecdsa('valid', sig);
  ecdsa('valid, uncompressed key', sig, keys.uncompressed);
  ecdsa('high S', withS(sig, N - s));
  ecdsa('high S, uncompressed key', withS(sig, N - s), keys.uncompressed);
  for (const [label, value] of [['0', 0n], ['n', N], ['n+1', N + 1n], ['n-1', N - 1n], ['2^256-1', (1n << 256n) - 1n], ['p', P]] as const) {
    ecdsa(`r = ${label}`, withR(sig, value));
    ecdsa(`s = ${label}`, withS(sig, value));
  }
  ecdsa('r = s = 0', new Uint8Array(64));
  ecdsa('r + n (overflow of a valid r)', withR(sig, r + N));
  ecdsa('s + n (overflow of a valid s)', withS(sig, s + N));
  ecdsa('wrong digest', sig, keys.compressed, flipBit(digest, 3));
  ecdsa('digest 0', sig, keys.compressed, new Uint8Array(32));
  ecdsa('digest 2^256-1 (>= n, reduced)', sig, keys.compressed, new Uint8Array(32).fill(0xff));
  const digestAboveN = bytes32(N + 5n);
  ecdsa('signature over a digest >= n', noble.sign(digestAboveN, secret, { prehash: false }), keys.compressed, digestAboveN);
  const badX = offCurveX(5n);
  for (const [label, x] of [['x = p', P], ['x = p + 1', P + 1n], ['x = 2^256-1', (1n << 256n) - 1n], ['x = 0', 0n], ['x off the curve', badX]] as const) {
    ecdsa(`compressed key, ${label}`, sig, concat(Uint8Array.of(2), bytes32(x)));
    ecdsa(`uncompressed key, ${label}`, sig, concat(Uint8Array.of(4), bytes32(x), keys.uncompressed.subarray(33)));
  }
  const yWrong = keys.uncompressed.slice();
  yWrong[64]! ^= 1;
  ecdsa('uncompressed key, y off the curve', sig, yWrong);
  const yAboveP = concat(keys.uncompressed.subarray(0, 33), bytes32(big(keys.uncompressed.subarray(33)) + P));
  ecdsa('uncompressed key, y + p', sig, yAboveP);
  ecdsa('compressed key with the other parity', sig, concat(Uint8Array.of(keys.compressed[0]! ^ 1), keys.compressed.subarray(1)));

  ecdsaDer('valid DER', der(sig));
  ecdsaDer('DER, high S', der(withS(sig, N - s)));
  ecdsaDer('DER, uncompressed key', der(sig), keys.uncompressed);
  ecdsaDer('DER, hybrid key of the right parity', der(sig), keys.hybrid);
  ecdsaDer('DER, hybrid key of the wrong parity', der(sig), keys.hybridWrong);
  const hybridOffCurve = keys.hybrid.slice();
  hybridOffCurve[40]! ^= 0x10;
  ecdsaDer('DER, hybrid key off the curve', der(sig), hybridOffCurve);
  ecdsaDer('DER, key prefix 05', der(sig), concat(Uint8Array.of(5), keys.uncompressed.subarray(1)));
  ecdsaDer('DER, 33-byte key with prefix 04', der(sig), concat(Uint8Array.of(4), keys.compressed.subarray(1)));
  for (const odd of ['long-lengths', 'padded', 'long-seq'] as const) ecdsaDer(`lax DER (${odd})`, der(sig, odd));
  ecdsaDer('DER of r = 0', der(withR(sig, 0n)));
  ecdsaDer('DER of s >= n', der(withS(sig, N + 1n)));
  ecdsaDer('empty DER', new Uint8Array(0));
  scriptTestDerSignatures().forEach((bytes, i) => {
    ecdsaDer(`script_tests.json DER signature #${i}`, bytes);
    ecdsaDer(`script_tests.json DER signature #${i}, uncompressed key`, bytes, keys.uncompressed);
  });

  const message = sha256(new TextEncoder().encode('edge case message'));
  const xonly = noble.schnorr.getPublicKey(secret);
  const schnorrSig = noble.schnorr.sign(message, secret, new Uint8Array(32));
  const schnorrS = big(schnorrSig.subarray(32));
  const schnorr = (label: string, sigBytes: Uint8Array, key: Uint8Array = xonly, m: Uint8Array = message) =>
    cases.push({ kind: 'schnorr', label, sig: sigBytes, message: m, key });
  schnorr('valid', schnorrSig);
  schnorr('wrong message', schnorrSig, xonly, flipBit(message, 9));
  schnorr('s = n', withS(schnorrSig, N));
  schnorr('s + n', withS(schnorrSig, schnorrS + N));
  schnorr('s = 2^256-1', withS(schnorrSig, (1n << 256n) - 1n));
  schnorr('s = 0', withS(schnorrSig, 0n));
  schnorr('R x = p', withR(schnorrSig, P));
  schnorr('R x = 2^256-1', withR(schnorrSig, (1n << 256n) - 1n));
  schnorr('R x off the curve', withR(schnorrSig, badX));
  schnorr('R x = 0', withR(schnorrSig, 0n));
  schnorr('zero signature', new Uint8Array(64));
  for (const [label, x] of [['p', P], ['p + 1', P + 1n], ['2^256-1', (1n << 256n) - 1n], ['0', 0n], ['off the curve', badX]] as const) {
    schnorr(`key x = ${label}`, schnorrSig, bytes32(x));
  }

  const internal = xonly;
  const tweak = sha256(new TextEncoder().encode('edge case tweak'));
  const tweaked = noble.Point.fromBytes(concat(Uint8Array.of(2), internal)).add(noble.Point.BASE.multiply(big(tweak)));
  const out = tweaked.toBytes(true);
  const output = out.subarray(1);
  const parity = out[0]! & 1;
  const tw = (label: string, i: Uint8Array, t: Uint8Array, o: Uint8Array, p: number) =>
    cases.push({ kind: 'tweak', label, internal: i, tweak: t, output: o, parity: p });
  tw('valid', internal, tweak, output, parity);
  tw('wrong parity', internal, tweak, output, parity ^ 1);
  tw('tweak 0, output = internal', internal, new Uint8Array(32), internal, 0);
  tw('tweak 0, output = internal, odd parity', internal, new Uint8Array(32), internal, 1);
  tw('tweak = n', internal, bytes32(N), internal, 0);
  tw('tweak = n + t', internal, bytes32(N + big(tweak)), output, parity);
  tw('tweak = 2^256-1', internal, new Uint8Array(32).fill(0xff), output, parity);
  tw('internal x = p', bytes32(P), tweak, output, parity);
  tw('internal x off the curve', bytes32(badX), tweak, output, parity);
  tw('output x = p', internal, tweak, bytes32(P), parity);
  tw('output x + p', internal, tweak, bytes32(big(output) + P), parity);
  tw('wrong output', internal, tweak, flipBit(output, 17), parity);
  return cases;
}

/** Random case `index`: the same bytes on every run and in every thread. */
export function randomCase(index: number): SigCase {
  const next = seededRandom(0x9e3779b9 ^ Math.imul(index + 1, 0x85ebca6b));
  const rand256 = (): bigint => {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(next());
    return v;
  };
  const secret = secretOf(rand256());
  const digest = bytes32(rand256());
  const pick = next() % 20;
  const label = `random #${index}`;
  if (pick < 11) {
    const keys = encodings(pointOf(secret));
    let sig: Uint8Array = noble.sign(digest, secret, { prehash: false });
    if (next() % 5 === 0) sig = withS(sig, N - big(sig.subarray(32)));
    const keyChoice = next() % 8;
    const key = keyChoice < 5 ? keys.compressed : keyChoice < 7 ? keys.uncompressed : keys.hybrid;
    switch (pick) {
      case 6:
        return { kind: 'ecdsa-der', label: `${label} wrong digest`, der: der(sig), digest: flipBit(digest, next()), key };
      case 7:
        return { kind: 'ecdsa-der', label: `${label} wrong key`, der: der(sig), digest, key: encodings(pointOf(secretOf(rand256()))).compressed };
      case 8:
        return { kind: 'ecdsa', label: `${label} random r, s`, sig: concat(bytes32(rand256()), bytes32(next() % 4 === 0 ? N + (rand256() % (1n << 128n)) : rand256())), digest, key: keys.compressed };
      case 9:
        return { kind: 'ecdsa', label: `${label} random key x`, sig, digest, key: concat(Uint8Array.of(2 | (next() & 1)), bytes32(rand256())) };
      case 10:
        return { kind: 'ecdsa-der', label: `${label} hybrid, wrong parity`, der: der(sig), digest, key: keys.hybridWrong };
      default:
        return { kind: 'ecdsa-der', label: `${label} valid`, der: der(sig, (['none', 'none', 'none', 'long-lengths', 'padded'] as const)[next() % 5]!), digest, key };
    }
  }
  if (pick < 17) {
    const key = noble.schnorr.getPublicKey(secret);
    const sig = noble.schnorr.sign(digest, secret, bytes32(rand256()));
    switch (pick) {
      case 15:
        return next() & 1
          ? { kind: 'schnorr', label: `${label} wrong message`, sig, message: flipBit(digest, next()), key }
          : { kind: 'schnorr', label: `${label} wrong key`, sig, message: digest, key: bytes32(rand256()) };
      case 16: {
        const which = next() % 3;
        if (which === 0) return { kind: 'schnorr', label: `${label} s >= n`, sig: withS(sig, big(sig.subarray(32)) + N), message: digest, key };
        if (which === 1) return { kind: 'schnorr', label: `${label} random R`, sig: withR(sig, rand256()), message: digest, key };
        return { kind: 'schnorr', label: `${label} random signature`, sig: concat(bytes32(rand256()), bytes32(rand256())), message: digest, key };
      }
      default:
        return { kind: 'schnorr', label: `${label} valid`, sig, message: digest, key };
    }
  }
  const internal = noble.schnorr.getPublicKey(secret);
  const t = bytes32((rand256() % (N - 1n)) + 1n);
  const out = noble.Point.fromBytes(concat(Uint8Array.of(2), internal)).add(noble.Point.BASE.multiply(big(t))).toBytes(true);
  if (pick === 19) {
    const which = next() % 3;
    if (which === 0) return { kind: 'tweak', label: `${label} wrong parity`, internal, tweak: t, output: out.subarray(1), parity: (out[0]! & 1) ^ 1 };
    if (which === 1) return { kind: 'tweak', label: `${label} tweak >= n`, internal, tweak: bytes32(big(t) + N), output: out.subarray(1), parity: out[0]! & 1 };
    return { kind: 'tweak', label: `${label} random internal key`, internal: bytes32(rand256()), tweak: t, output: out.subarray(1), parity: out[0]! & 1 };
  }
  return { kind: 'tweak', label: `${label} valid`, internal, tweak: t, output: out.subarray(1), parity: out[0]! & 1 };
}

export interface DifferentialResult {
  checked: number;
  /** Verdicts per backend answer, e.g. { true: 1200, false: 800 } from the first backend. */
  verdicts: Record<string, number>;
  differences: string[];
}

/** Runs `cases` through both backends; every disagreement is described. */
export function compareBackends(cases: Iterable<SigCase>, a: SignatureBackend, b: SignatureBackend): DifferentialResult {
  const result: DifferentialResult = { checked: 0, verdicts: {}, differences: [] };
  for (const c of cases) {
    const va = verdict(c, a);
    const vb = verdict(c, b);
    result.checked++;
    result.verdicts[va] = (result.verdicts[va] ?? 0) + 1;
    if (va !== vb) result.differences.push(`${describeCase(c)}: ${a.name} ${va}, ${b.name} ${vb}`);
  }
  return result;
}

/** Random cases [start, end). */
export function* randomCases(start: number, end: number): Generator<SigCase> {
  for (let i = start; i < end; i++) yield randomCase(i);
}
