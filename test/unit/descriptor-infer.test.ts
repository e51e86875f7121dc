/**
 * Descriptor inference: the "desc" of every scriptPubKey object (rpc-results.md §0.7),
 * Core's CheckInferDescriptor cases, and the wrapped forms decodescript prints.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Point } from '@noble/secp256k1';
import { fromHex, sha256, toHex } from '../../src/primitives/index.js';
import {
  checkChecksum,
  inferDescriptor,
  inferScriptInContext,
  isValidXOnlyKey,
  loadNativeXOnlyCheck,
  useNativeXOnlyCheck,
  KeyStore,
  scriptPubKeyDescriptor,
  ScriptKnowledge,
  type ChainName,
} from '../../src/script/index.js';

const PUB1 = '03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd';
const PUB1U =
  '04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235';
const PUB2 = '0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600';
const HYBRID =
  '069228de6902abb4f541791f6d7f925b10e2078ccb1298856e5ea5cc5fd667f930eac37a00cc07f9a91ef3c2d17bf7a17db04552ff90ac312a5b8b4caca6c97aa4';
const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const XONLY_ONE = `${'00'.repeat(31)}01`; // x = 1 is on the curve
const XONLY_ZERO = '00'.repeat(32); // x = 0 is not

/** The descriptor body (without checksum), checking that the checksum is right. */
function body(desc: string): string {
  return checkChecksum(desc, true).payload;
}

function describe(scriptHex: string, chain: ChainName = 'main'): string {
  const script = fromHex(scriptHex);
  const fast = scriptPubKeyDescriptor(script, chain);
  // The fast path and the general inference agree, checksum included.
  assert.equal(fast, inferDescriptor(script, chain).toString(), scriptHex);
  return fast;
}

test('rpc-results §0.7 checksum check values', () => {
  assert.equal(describe(''), 'raw()#58lrscpx');
  assert.equal(describe('ac'), 'raw(ac)#50dpv3k6');
  assert.equal(describe('6a'), 'raw(6a)#4mhr9ur5');
  assert.equal(describe('51024e73', 'regtest'), 'addr(bcrt1pfeesnyr2tx)#swxgse0y');
  assert.equal(describe(`21${G}ac`), `pk(${G})#gn28ywm7`);
});

test('pubkey outputs: pk() for 02/03/04 keys, raw() for hybrid keys', () => {
  assert.equal(body(describe(`21${PUB1}ac`)), `pk(${PUB1})`);
  assert.equal(body(describe(`41${PUB1U}ac`)), `pk(${PUB1U})`);
  assert.equal(body(describe(`41${HYBRID}ac`)), `raw(41${HYBRID}ac)`);
  // Only the prefix and size are checked: a 02 key off the curve is still pk().
  const offCurve = `02${XONLY_ZERO}`;
  assert.equal(body(describe(`21${offCurve}ac`)), `pk(${offCurve})`);
});

test('multisig outputs: multi() unless a key is hybrid or a count is not minimal', () => {
  assert.equal(body(describe(`5121${PUB1}21${PUB2}52ae`)), `multi(1,${PUB1},${PUB2})`);
  assert.equal(body(describe(`5121${PUB1}41${PUB1U}52ae`)), `multi(1,${PUB1},${PUB1U})`);
  assert.equal(body(describe(`5121${PUB1}41${HYBRID}52ae`)), `raw(5121${PUB1}41${HYBRID}52ae)`);
  // 2-of-2 with the threshold pushed as data instead of OP_2 (Core's CheckInferRaw).
  const nonMinimal = `0102${`21${PUB1}21${PUB2}`}52ae`;
  assert.equal(body(describe(nonMinimal)), `raw(${nonMinimal})`);
});

test('address outputs: addr() with each chain encoding', () => {
  // Core's CheckInferDescriptor: a P2PKH and a P2WPKH whose keys are not known.
  assert.equal(body(describe('76a91445ff7c2327866472639d507334a9a00119dfd32688ac')), 'addr(17P7ge56F2QcdHxxRBa2NyzmejFggPwBJ9)');
  assert.equal(body(describe('001422e363a523947a110d9a9eb114820de183aca313')), 'addr(bc1qyt3k8ffrj3apzrv6n6c3fqsduxp6egcnk2r66j)');
  assert.equal(body(describe('a914eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee87')), 'addr(3PUNyaW7M55oKWJ3kDukwk9bsKvryra15j)');
  assert.match(body(describe(`0020${'11'.repeat(32)}`)), /^addr\(bc1q[a-z0-9]{58}\)$/);
  assert.match(body(describe(`0020${'11'.repeat(32)}`, 'test')), /^addr\(tb1q/);
  // witness_unknown (v2) and P2A use bech32m.
  assert.match(body(describe(`5210${'22'.repeat(16)}`)), /^addr\(bc1z/);
  assert.equal(body(describe('51024e73')), 'addr(bc1pfeessrawgf)');
  assert.equal(body(describe('51024e73', 'signet')), 'addr(tb1pfees9rn5nz)');
});

test('taproot outputs: rawtr() for a key on the curve, addr() otherwise', () => {
  assert.equal(body(describe(`5120${XONLY_ONE}`)), `rawtr(${XONLY_ONE})`);
  assert.match(body(describe(`5120${XONLY_ZERO}`)), /^addr\(bc1p/);
});

test('everything else: raw()', () => {
  assert.equal(body(describe('6a0b68656c6c6f20776f726c64')), 'raw(6a0b68656c6c6f20776f726c64)');
  assert.equal(body(describe('51')), 'raw(51)');
  // A v0 program of a length BIP141 does not define, and a truncated push.
  assert.equal(body(describe(`0015${'33'.repeat(21)}`)), `raw(0015${'33'.repeat(21)})`);
  assert.equal(body(describe('4c')), 'raw(4c)');
});

test('inferred descriptors expand back to their scripts', () => {
  for (const hex of [`21${PUB1}ac`, `5121${PUB1}21${PUB2}52ae`, `5120${XONLY_ONE}`, '51024e73', '6a', '', `5120${XONLY_ZERO}`]) {
    const scripts = inferDescriptor(fromHex(hex), 'main').expand(0, new KeyStore());
    assert.deepEqual(scripts?.map(toHex), [hex]);
  }
});

// Core's CheckInferDescriptor cases that give the inference public keys and scripts.
test('with known keys: pkh(), pk() and addr() as Core infers them', () => {
  const hybridKnown = new ScriptKnowledge().addPubkey(fromHex(HYBRID));
  assert.equal(body(inferDescriptor(fromHex('76a91445ff7c2327866472639d507334a9a00119dfd32688ac'), 'main', hybridKnown).toString()), 'addr(17P7ge56F2QcdHxxRBa2NyzmejFggPwBJ9)');
  const uncompressed = '049228de6902abb4f541791f6d7f925b10e2078ccb1298856e5ea5cc5fd667f930eac37a00cc07f9a91ef3c2d17bf7a17db04552ff90ac312a5b8b4caca6c97aa4';
  const uncompressedKnown = new ScriptKnowledge().addPubkey(fromHex(uncompressed));
  assert.equal(
    body(inferDescriptor(fromHex('001422e363a523947a110d9a9eb114820de183aca313'), 'main', uncompressedKnown).toString()),
    'addr(bc1qyt3k8ffrj3apzrv6n6c3fqsduxp6egcnk2r66j)',
  );
  const pkhKey = '04c56fe4a92d401bcbf1b3dfbe4ac3dac5602ca155a3681497f02c1b9a733b92d704e2da6ec4162e4846af9236ef4171069ac8b7f8234a8405b6cadd96f34f5a31';
  assert.equal(
    body(inferDescriptor(fromHex('76a914a31725c74421fadc50d35520ab8751ed120af80588ac'), 'main', new ScriptKnowledge().addPubkey(fromHex(pkhKey))).toString()),
    `pkh(${pkhKey})`,
  );
  const pkKey = '04032540df1d3c7070a8ab3a9cdd304dfc7fd1e6541369c53c4c3310b2537d91059afc8b8e7673eb812a32978dabb78c40f2e423f7757dca61d11838c7aeeb5220';
  assert.equal(body(inferDescriptor(fromHex(`41${pkKey}ac`), 'main').toString()), `pk(${pkKey})`);
});

test('with known scripts: sh(), wsh() and wpkh() wrappers', () => {
  const knowledge = new ScriptKnowledge().addScript(fromHex('76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac')).addPubkey(fromHex(PUB1));
  assert.equal(body(inferDescriptor(fromHex('a9141a31ad23bf49c247dd531a623c2ef57da3c400c587'), 'main', knowledge).toString()), `sh(pkh(${PUB1}))`);
  assert.equal(body(inferDescriptor(fromHex('00149a1c78a507689f6f54b847ad1cef1e614ee23f1e'), 'main', knowledge).toString()), `wpkh(${PUB1})`);
  assert.equal(body(inferDescriptor(fromHex('a91484ab21b1b2fd065d4504ff693d832434b6108d7b87'), 'main', knowledge.addScript(fromHex('00149a1c78a507689f6f54b847ad1cef1e614ee23f1e'))).toString()), `sh(wpkh(${PUB1}))`);

  // decodescript's segwit field: the P2WSH of a multisig script infers as wsh(multi()).
  const multisig = fromHex(`5121${PUB1}21${PUB2}52ae`);
  const knownMultisig = new ScriptKnowledge().addScript(multisig);
  const p2wsh = fromHex(`0020${toHex(sha256(multisig))}`);
  assert.equal(body(inferDescriptor(p2wsh, 'main', knownMultisig).toString()), `wsh(multi(1,${PUB1},${PUB2}))`);
  // An uncompressed key cannot be in a witness script: Core falls back to addr().
  const uncompressedMultisig = fromHex(`5121${PUB1}41${PUB1U}52ae`);
  const p2wshU = fromHex(`0020${toHex(sha256(uncompressedMultisig))}`);
  assert.match(body(inferDescriptor(p2wshU, 'main', new ScriptKnowledge().addScript(uncompressedMultisig)).toString()), /^addr\(bc1q/);
});

test('below top level: pk(), multi() and tr() leaves, or nothing', () => {
  assert.equal(inferScriptInContext(fromHex(`21${PUB1}ac`), 'p2wsh', 'main')?.toString().split('#')[0], `pk(${PUB1})`);
  assert.equal(inferScriptInContext(fromHex(`41${PUB1U}ac`), 'p2wsh', 'main'), null);
  assert.equal(inferScriptInContext(fromHex(`41${PUB1U}ac`), 'p2sh', 'main')?.toString().split('#')[0], `pk(${PUB1U})`);
  assert.equal(inferScriptInContext(fromHex('6a'), 'p2wsh', 'main'), null);
  const x = PUB1.slice(2);
  assert.equal(inferScriptInContext(fromHex(`20${x}ac`), 'p2tr', 'main')?.toString().split('#')[0], `pk(${x})`);
  const y = PUB2.slice(2);
  const multiA = fromHex(`20${x}ac20${y}ba529c`);
  assert.equal(inferScriptInContext(multiA, 'p2tr', 'main')?.toString().split('#')[0], `multi_a(2,${x},${y})`);
  // Threshold above the key count, and a trailing opcode, are not multi_a.
  assert.equal(inferScriptInContext(fromHex(`20${x}ac20${y}ba539c`), 'p2tr', 'main'), null);
  assert.equal(inferScriptInContext(fromHex(`20${x}ac20${y}ba529c51`), 'p2tr', 'main'), null);
});

test('random scripts: the fast path and full inference agree and never throw', () => {
  let state = 386;
  const next = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  const prefixes = ['', '51', '0014', '0020', '5120', '76a914', 'a914', '21', '41', '6a', '5221', '60'];
  for (let round = 0; round < 2000; round++) {
    const length = next() % 48;
    const random = Array.from({ length }, () => (next() & 0xff).toString(16).padStart(2, '0')).join('');
    const hex = prefixes[next() % prefixes.length]! + random;
    describe(hex);
    describe(hex, 'regtest');
  }
});

test('scriptPubKeyDescriptor is cheap enough for every output of a block', () => {
  const scripts = [`5120${PUB1.slice(2)}`, '76a91445ff7c2327866472639d507334a9a00119dfd32688ac', `0020${'11'.repeat(32)}`, '6a04deadbeef'].map(fromHex);
  const started = performance.now();
  for (let i = 0; i < 4000; i++) scriptPubKeyDescriptor(scripts[i % scripts.length]!, 'main');
  // A few thousand outputs per block: well under a second on any machine this runs on.
  assert.ok(performance.now() - started < 2000);
});

for (const native of [false, true]) {
  test(`the x-only validity check agrees with point decompression (${native ? 'libsecp256k1 through the addon' : 'BigInt arithmetic'})`, () => {
    useNativeXOnlyCheck(native ? loadNativeXOnlyCheck() : null);
    try {
      let state = 341;
      const next = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
      for (let round = 0; round < 300; round++) {
        const x = Uint8Array.from({ length: 32 }, () => next() & 0xff);
        if (round % 50 === 0) x.fill(0xff); // above the field prime
        let decompresses = true;
        try {
          Point.fromBytes(Uint8Array.of(2, ...x));
        } catch {
          decompresses = false;
        }
        assert.equal(isValidXOnlyKey(x), decompresses, toHex(x));
        // Asked again (the kept answer), and from a copy at another offset.
        assert.equal(isValidXOnlyKey(x), decompresses, toHex(x));
        const shifted = new Uint8Array(40);
        shifted.set(x, 5);
        assert.equal(isValidXOnlyKey(shifted.subarray(5, 37)), decompresses, toHex(x));
      }
      assert.equal(isValidXOnlyKey(fromHex(XONLY_ZERO)), false);
      assert.equal(isValidXOnlyKey(fromHex(XONLY_ONE)), true);
    } finally {
      useNativeXOnlyCheck(null);
    }
  });
}

test('witness scripts that are sane miniscript infer as wsh(miniscript), others stay addr() (bitcoind decodescript answers)', () => {
  const wsh = (witnessScript: string): string => {
    const script = fromHex(witnessScript);
    const program = fromHex(`0020${toHex(sha256(script))}`);
    return inferDescriptor(program, 'regtest', new ScriptKnowledge().addScript(script)).toString();
  };
  // 0 is sane (vacuously safe and non-malleable), so Core infers it even though nothing can spend it.
  assert.equal(wsh('00'), 'wsh(0)#a0qjqdfq');
  assert.equal(
    wsh('2103d18a97975c5f2e11dfa22dd686315f27b35c2db5d32cd7d0c11aea146fdd17c2ad52b2'),
    'wsh(and_v(v:pk(03d18a97975c5f2e11dfa22dd686315f27b35c2db5d32cd7d0c11aea146fdd17c2),older(2)))#u3vhvxsx',
  );
  // 1 needs no signature: not sane, so only the address is known.
  assert.ok(wsh('51').startsWith('addr('));
});

test('the x-only answers kept for recent keys stay right past the point where they are dropped', () => {
  // More distinct keys than are kept (8,192), then the first ones again: each answer is recomputed or kept, never mixed up.
  const keys = Array.from({ length: 9000 }, (_, i) => {
    const x = new Uint8Array(32);
    new DataView(x.buffer).setUint32(28, i + 1);
    return x;
  });
  const first = keys.map((x) => isValidXOnlyKey(x));
  assert.ok(first.includes(true) && first.includes(false));
  assert.deepEqual(keys.map((x) => isValidXOnlyKey(x)), first);
  for (const [i, x] of keys.slice(0, 50).entries()) {
    let decompresses = true;
    try {
      Point.fromBytes(Uint8Array.of(2, ...x));
    } catch {
      decompresses = false;
    }
    assert.equal(first[i], decompresses, toHex(x));
  }
});
