/**
 * The native backend (libsecp256k1) and the reference (@noble/secp256k1) give the same
 * verdict on every edge case and on a few thousand random signatures. noble verifies only
 * a few hundred signatures per second per core, so this is the quick form: the large one
 * (>= 200,000 signatures on every core) is `make differential-sig`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadNativeBackend, nobleBackend, SignatureBatch } from '../../src/script/index.js';
import { compareBackends, edgeCases, randomCases, verdict } from '../support/signature-cases.js';

const RANDOM_CASES = 2500;
const native = loadNativeBackend();

test('every edge case: the same verdict from both backends', (t) => {
  const cases = edgeCases();
  const result = compareBackends(cases, native, nobleBackend);
  t.diagnostic(`${result.checked} edge cases, verdicts ${JSON.stringify(result.verdicts)}`);
  assert.deepEqual(result.differences, []);
  // The list holds both outcomes in every kind, so agreement is not agreement on "false".
  for (const kind of ['ecdsa', 'ecdsa-der', 'schnorr', 'tweak']) {
    const verdicts = new Set(cases.filter((c) => c.kind === kind).map((c) => verdict(c, nobleBackend)));
    assert.deepEqual([...verdicts].sort(), ['false', 'true'], kind);
  }
  assert.ok(cases.some((c) => c.label.startsWith('script_tests.json')), 'the DER signatures of script_tests.json are included');
});

test(`${RANDOM_CASES} random signatures: the same verdict from both backends`, (t) => {
  const result = compareBackends(randomCases(0, RANDOM_CASES), native, nobleBackend);
  t.diagnostic(`${result.checked} random cases, verdicts ${JSON.stringify(result.verdicts)}`);
  assert.equal(result.checked, RANDOM_CASES);
  assert.deepEqual(result.differences, []);
  assert.ok((result.verdicts['true'] ?? 0) > RANDOM_CASES / 3 && (result.verdicts['false'] ?? 0) > RANDOM_CASES / 10);
});

test('the batch entry point gives the per-call verdicts, in order', () => {
  const cases = [...edgeCases(), ...randomCases(0, 300)];
  const batch = new SignatureBatch(4);
  const expected: string[] = [];
  for (const c of cases) {
    if (c.kind === 'ecdsa') batch.addEcdsa(c.sig, c.digest, c.key);
    else if (c.kind === 'schnorr') batch.addSchnorr(c.sig, c.message, c.key);
    else if (c.kind === 'tweak') batch.addTapTweak(c.internal, c.tweak, c.output, c.parity);
    else continue;
    expected.push(verdict(c, native));
  }
  const verdicts = [...batch.run()].map((v) => String(v === 1));
  assert.deepEqual(verdicts, expected);
  assert.equal(batch.size, 0);
});

test('the addon throws a TypeError on wrong argument types and lengths, and survives', () => {
  const bad: [string, () => unknown][] = [
    ['a number for the signature', () => native.verifyEcdsa(1 as unknown as Uint8Array, new Uint8Array(32), new Uint8Array(33))],
    ['a 63-byte signature', () => native.verifyEcdsa(new Uint8Array(63), new Uint8Array(32), new Uint8Array(33))],
    ['a 31-byte digest', () => native.verifyEcdsa(new Uint8Array(64), new Uint8Array(31), new Uint8Array(33))],
    ['a 34-byte key', () => native.verifyEcdsa(new Uint8Array(64), new Uint8Array(32), new Uint8Array(34))],
    ['a Uint16Array key', () => native.verifySchnorr(new Uint8Array(64), new Uint8Array(32), new Uint16Array(16) as unknown as Uint8Array)],
    ['a 33-byte x-only key', () => native.verifySchnorr(new Uint8Array(64), new Uint8Array(32), new Uint8Array(33))],
    ['a string tweak', () => native.checkTapTweak(new Uint8Array(32), 'x' as unknown as Uint8Array, new Uint8Array(32), 0)],
    ['a missing parity', () => (native.checkTapTweak as (...a: unknown[]) => boolean)(new Uint8Array(32), new Uint8Array(32), new Uint8Array(32))],
  ];
  for (const [what, call] of bad) assert.throws(call, TypeError, what);
  assert.equal(native.verifySchnorr(new Uint8Array(64), new Uint8Array(32), new Uint8Array(32)), false);
});
