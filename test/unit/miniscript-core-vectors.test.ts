/**
 * Core's miniscript unit vectors (src/test/miniscript_tests.cpp, fixed_tests), copied as
 * data into test/vectors/data/miniscript-core-cases.json: each miniscript is parsed in
 * P2WSH and Tapscript context and checked as Core's Test() checks it (validity, script
 * bytes and size, malleability, signature need, timelock mixing, ops and stack bounds,
 * recognition from the script), plus the generated and miscellaneous checks of that file.
 * Witness sizes and the satisfier are not implemented and not checked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Point } from '@noble/secp256k1';
import { fromHex, hash160, toHex } from '../../src/primitives/index.js';
import { has, miniscriptFromScript, miniscriptFromString, mst, type KeyInferrer, type KeyReader, type MiniscriptContext, type Node } from '../../src/script/miniscript/index.js';
import { decodescriptScripts } from '../support/miniscript-table.js';
import { readVectorText } from '../support/vectors.js';

interface CoreCase {
  readonly ms: string;
  readonly script: string;
  readonly tapscript: string;
  readonly mode: number;
  readonly ops?: number;
  readonly stack?: number;
  readonly execStack?: number | null;
}

const VALID = 1;
const NONMAL = 2;
const NEEDSIG = 4;
const TIMELOCKMIX = 8;
const P2WSH_INVALID = 16;
const TAPSCRIPT_INVALID = 32;

/** Core's TestData keys: i·G for i = 1..255. */
const PUBKEYS = Array.from({ length: 255 }, (_, i) => Point.BASE.multiply(BigInt(i + 1)).toBytes(true));
/** Core's pkmap, per context: HASH160 of each key (P2WSH) or of its x-only form (Tapscript), to the key. */
const BY_HASH = { p2wsh: new Map<string, Uint8Array>(), tapscript: new Map<string, Uint8Array>() };
for (const key of PUBKEYS) {
  BY_HASH.p2wsh.set(toHex(hash160(key)), key);
  BY_HASH.tapscript.set(toHex(hash160(key.subarray(1))), key);
}

/** CPubKey::IsValid: the length its prefix byte implies. */
function isValidPubkey(bytes: Uint8Array): boolean {
  if (bytes.length === 33) return bytes[0] === 2 || bytes[0] === 3;
  if (bytes.length === 65) return bytes[0] === 4 || bytes[0] === 6 || bytes[0] === 7;
  return false;
}

/** Core's test KeyConverter: keys are the public keys themselves. */
class KeyConverter implements KeyReader, KeyInferrer {
  readonly keys: Uint8Array[] = [];

  constructor(readonly ctx: MiniscriptContext) {}

  private add(key: Uint8Array): number {
    this.keys.push(key);
    return this.keys.length - 1;
  }

  fromString(text: string): number | null {
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) return null;
    const bytes = fromHex(text);
    return isValidPubkey(bytes) ? this.add(bytes) : null;
  }

  fromPKBytes(bytes: Uint8Array): number | null {
    if (this.ctx === 'p2wsh') return isValidPubkey(bytes) ? this.add(bytes) : null;
    if (bytes.length !== 32) return null;
    return this.add(Uint8Array.of(2, ...bytes));
  }

  fromPKHBytes(hash: Uint8Array): number | null {
    const key = BY_HASH[this.ctx].get(toHex(hash));
    return key ? this.add(key) : null;
  }

  keyIdentity(key: number): string {
    return toHex(this.keys[key]!);
  }

  toPKBytes(key: number): Uint8Array {
    const full = this.keys[key]!;
    return this.ctx === 'tapscript' ? full.subarray(1, 33) : full;
  }

  scriptContext() {
    return { toPKBytes: (key: number) => this.toPKBytes(key), toPKHBytes: (key: number) => hash160(this.toPKBytes(key)) };
  }

  printKey = (key: number): string => toHex(this.toPKBytes(key));
}

function parse(ms: string, ctx: MiniscriptContext): { node: Node | null; converter: KeyConverter } {
  const converter = new KeyConverter(ctx);
  return { node: miniscriptFromString(ms, converter), converter };
}

/** Core's Test() for one context; returns the reasons it fails (none when it passes). */
function check(c: CoreCase, ctx: MiniscriptContext): string[] {
  const { node, converter } = parse(c.ms, ctx);
  const tapscript = ctx === 'tapscript';
  if (c.mode === 0 || (c.mode & P2WSH_INVALID && !tapscript) || (c.mode & TAPSCRIPT_INVALID && tapscript)) {
    return !node || !node.isValid() ? [] : ['unexpectedly valid'];
  }
  if (!node) return ['unparseable'];
  const problems: string[] = [];
  if (!node.isValid()) problems.push('invalid');
  if (!node.isValidTopLevel()) problems.push('invalid top level');
  const script = node.toScript(converter.scriptContext());
  if (node.scriptSize !== script.length) problems.push(`script size ${node.scriptSize} vs ${script.length}`);
  const expected = tapscript ? (c.tapscript === '=' ? c.script : c.tapscript) : c.script;
  if (expected !== '?' && toHex(script) !== expected) problems.push(`script ${toHex(script)} vs ${expected}`);
  if (node.isNonMalleable() !== Boolean(c.mode & NONMAL)) problems.push('malleability');
  if (node.needsSignature() !== Boolean(c.mode & NEEDSIG)) problems.push('signature need');
  if (has(node.type, mst('k')) === Boolean(c.mode & TIMELOCKMIX)) problems.push('timelock mix');
  const inferredConverter = new KeyConverter(ctx);
  const inferred = miniscriptFromScript(script, inferredConverter);
  if (!inferred) problems.push('not recognised from its script');
  else if (toHex(inferred.toScript(inferredConverter.scriptContext())) !== toHex(script)) problems.push('script round trip');
  if (c.ops !== undefined && node.getOps() !== c.ops) problems.push(`ops ${node.getOps()} vs ${c.ops}`);
  if (c.stack !== undefined && node.getStackSize() !== c.stack) problems.push(`stack ${node.getStackSize()} vs ${c.stack}`);
  if (c.execStack !== undefined && c.execStack !== null && node.getExecStackSize() !== c.execStack) {
    problems.push(`exec stack ${node.getExecStackSize()} vs ${c.execStack}`);
  }
  return problems;
}

const CASES = (JSON.parse(readVectorText('miniscript-core-cases.json')) as { cases: CoreCase[] }).cases;

test(`Core's fixed miniscript vectors (${CASES.length} miniscripts, each in P2WSH and Tapscript)`, () => {
  const failures: string[] = [];
  let checks = 0;
  for (const c of CASES) {
    for (const ctx of ['p2wsh', 'tapscript'] as const) {
      checks++;
      const problems = check(c, ctx);
      if (problems.length) failures.push(`${ctx} ${c.ms}: ${problems.join('; ')}`);
    }
  }
  console.log(`Core miniscript vectors: ${checks - failures.length} of ${checks} checks pass`);
  assert.deepEqual(failures, []);
});

test("Core's generated cases: long and_b chains and the 1000-element execution stack, valid only in Tapscript", () => {
  const hexKey = (i: number) => toHex(PUBKEYS[i]!);
  for (const count of [99, 110, 200]) {
    let ms = '';
    for (let i = 0; i < count - 1; i++) ms += `and_b(pk(${hexKey(i)}),a:`;
    ms += `pk(${hexKey(count - 1)})` + ')'.repeat(count - 1);
    const c: CoreCase = { ms, script: '?', tapscript: '?', mode: VALID | NONMAL | NEEDSIG | P2WSH_INVALID, ops: count + (count - 1) * 3, stack: count, execStack: count + 1 };
    assert.deepEqual([...check(c, 'p2wsh'), ...check(c, 'tapscript')], [], `and_b chain of ${count}`);
  }
  let depth = 998;
  let ms = 'and_b(older(1),a:'.repeat(depth) + `pk(${hexKey(0)})` + ')'.repeat(depth);
  const ok = parse(ms, 'tapscript').node!;
  assert.ok(ok.checkStackSize());
  const mode = VALID | NONMAL | NEEDSIG | P2WSH_INVALID;
  assert.deepEqual(check({ ms, script: '?', tapscript: '?', mode, ops: 4 * depth + 1, stack: 1, execStack: depth + 2 }, 'tapscript'), []);
  depth++;
  ms = `and_b(older(1),a:${ms})`;
  assert.ok(!parse(ms, 'tapscript').node!.checkStackSize());
  assert.deepEqual(check({ ms, script: '?', tapscript: '?', mode, ops: 4 * depth + 1, stack: 1, execStack: depth + 2 }, 'tapscript'), []);
});

test("Core's miscellaneous miniscript checks", () => {
  const fromScript = (hex: string, ctx: MiniscriptContext) => miniscriptFromScript(fromHex(hex), new KeyConverter(ctx));
  // multi_a from script: no key at all, none before a CHECKSIGADD, none before the CHECKSIG.
  assert.equal(fromScript('ac519c', 'tapscript'), null);
  assert.equal(fromScript('ba20c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5ba519c', 'tapscript'), null);
  assert.equal(fromScript('ac2079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac20c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5ba519c', 'tapscript'), null);
  // More than 20 keys in a multi_a.
  const multiA = `multi_a(1,${PUBKEYS.slice(0, 21).map(toHex).join(',')})`;
  assert.deepEqual(check({ ms: multiA, script: '?', tapscript: '?', mode: VALID | NONMAL | NEEDSIG | P2WSH_INVALID, ops: 22, stack: 21, execStack: 22 }, 'tapscript'), []);
  // A non-minimal push, and a VERIFY that should have been CHECKSIGVERIFY.
  const nonMinimalPush = '0000210232780000feff00ffffffffffff21ff005f00ae21ae00000000060602060406564c2102320000060900fe00005f00ae21ae00100000060606060606000000000000000000000000000000000000000000000000000000000000000000';
  const nonMinimalVerify = '2103a0434d9e47f3c86235477c7b1ae6ae5d3442d49b1943c2b752a68e2a47e247c7ac6951';
  for (const ctx of ['p2wsh', 'tapscript'] as const) {
    assert.equal(fromScript(nonMinimalPush, ctx), null);
    assert.equal(fromScript(nonMinimalVerify, ctx), null);
  }
  const k = ['03d30199d74fb5a22d47b6e054e2f378cedacffcb89904a61d75d0dbd407143e65', '03fff97bd5755eeea420453a14355235d382f6472f8568a18b2f057a1460297556', '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'];
  // CHECKMULTISIG costs an op per key, but needs a stack element per signature and the dummy.
  const multi = parse(`multi(1,${k.join(',')})`, 'p2wsh').node!;
  assert.equal(multi.getOps(), 4);
  assert.equal(multi.getStackSize(), 2);
  // d: is not u under P2WSH, so it cannot be a thresh child there.
  assert.equal(parse(`thresh(3,c:pk_k(${k[0]}),sc:pk_k(${k[1]}),sc:pk_k(${k[2]}),sdv:older(32))`, 'p2wsh').node!.isValid(), false);
  // Duplicate keys, in conjunctions, disjunctions, pk and pkh, leaves and deeper.
  for (const ms of [
    `and_v(v:pk(${k[0]}),pk(${k[0]}))`,
    `or_b(c:pk_k(${k[0]}),ac:pk_h(${k[0]}))`,
    `or_i(and_b(pk(${k[0]}),s:pk(${k[1]})),and_b(older(1),s:pk(${k[0]})))`,
    `thresh(2,pkh(${k[0]}),s:pk(${k[1]}),a:and_b(dv:older(1),s:pk(${k[0]})))`,
  ]) {
    const node = parse(ms, 'p2wsh').node!;
    assert.ok(!node.isSane() && !node.checkDuplicateKey(), ms);
  }
  const single = parse(`pk(${k[0]})`, 'p2wsh').node!;
  assert.ok(single.checkDuplicateKey() && single.isSane());
  // The insane node reported is the one closest to a leaf.
  const { node: insane, converter } = parse('or_i(and_b(after(1),a:after(1000000000)),pk(03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204))', 'p2wsh');
  assert.ok(insane!.isValid() && !insane!.isSane());
  assert.equal(insane!.findInsaneSub()!.toString(converter.printKey), 'and_b(after(1),a:after(1000000000))');
  // Numbers take no sign.
  for (const ms of ['after(-1)', 'after(+1)', 'thresh(-1,pk(03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204))', 'multi(+1,03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204)']) {
    assert.equal(parse(ms, 'p2wsh').node, null, ms);
  }
});

test('scripts recognised as miniscript rebuild to the same bytes; everything else is refused without error', () => {
  const seeds = CASES.flatMap((c) => [c.script, c.tapscript]).filter((hex) => hex !== '?' && hex !== '=');
  let recognised = 0;
  for (const hex of decodescriptScripts(seeds)) {
    for (const ctx of ['p2wsh', 'tapscript'] as const) {
      const converter = new KeyConverter(ctx);
      const node = miniscriptFromScript(fromHex(hex), converter);
      if (!node) continue;
      recognised++;
      assert.equal(toHex(node.toScript(converter.scriptContext())), hex, `${ctx} ${hex}`);
      assert.ok(node.isValidTopLevel());
    }
  }
  assert.ok(recognised > 50, `only ${recognised} scripts recognised`);
});
