/**
 * Descriptors with miniscript to send both tsbtcd and bitcoind: valid miniscripts of every
 * fragment and wrapper in wsh() and tr() leaves, with hex keys, x-only keys, WIF, xpubs and
 * xprvs with origins, paths, ranges and multipath; and invalid ones for each class of
 * error Core reports. Expected answers are not written here: bitcoind's are the reference.
 */
import { Point } from '@noble/secp256k1';
import { sha256, toHex } from '../../src/primitives/index.js';
import { seededRandom } from './wallet.js';
import { decodeExtPrivKey, encodeExtPrivKey, encodeExtPubKey, encodeSecret, extKeyFromSeed, neuterExtKey } from '../../src/script/index.js';

/** The compressed public key of the secret `i` (i·G). */
export function pubkeyOf(i: number): string {
  return toHex(Point.BASE.multiply(BigInt(i)).toBytes(true));
}

export function uncompressedOf(i: number): string {
  return toHex(Point.BASE.multiply(BigInt(i)).toBytes(false));
}

export function xOnlyOf(i: number): string {
  return pubkeyOf(i).slice(2);
}

const K = Array.from({ length: 130 }, (_, i) => pubkeyOf(i + 1));
const X = Array.from({ length: 10 }, (_, i) => xOnlyOf(i + 1));
const H32 = toHex(sha256(Uint8Array.of(1)));
const H20 = H32.slice(0, 40);
const ROOT = extKeyFromSeed(Uint8Array.from({ length: 16 }, (_, i) => i))!;
const XPRV = encodeExtPrivKey(ROOT, 'regtest');
const XPUB = encodeExtPubKey(neuterExtKey(ROOT), 'regtest');
const ROOT2 = decodeExtPrivKey(encodeExtPrivKey(extKeyFromSeed(Uint8Array.from({ length: 32 }, (_, i) => 255 - i))!, 'regtest'), 'regtest')!;
const XPUB2 = encodeExtPubKey(neuterExtKey(ROOT2), 'regtest');
const WIF = encodeSecret(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0)), true, 'regtest');
const WIF_UNCOMPRESSED = encodeSecret(Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0)), false, 'regtest');

/** Miniscript bodies valid (or refused) in both contexts; `k(n)` stands for the n-th key. */
function bodies(k: (n: number) => string): string[] {
  return [
    `pk(${k(1)})`,
    `pkh(${k(1)})`,
    `c:pk_k(${k(1)})`,
    `c:pk_h(${k(1)})`,
    `and_v(v:pk(${k(1)}),older(2))`,
    `and_v(v:pk(${k(1)}),older(4194305))`,
    `and_v(v:pk(${k(1)}),older(2147483647))`,
    `and_v(v:pk(${k(1)}),after(100))`,
    `and_v(v:pk(${k(1)}),after(500000001))`,
    `and_v(v:pkh(${k(1)}),older(16))`,
    `and_v(vc:pk_h(${k(1)}),older(17))`,
    `and_v(v:pk(${k(1)}),sha256(${H32}))`,
    `and_v(v:pk(${k(1)}),hash256(${H32}))`,
    `and_v(v:pk(${k(1)}),ripemd160(${H20}))`,
    `and_v(v:pk(${k(1)}),hash160(${H20}))`,
    `and_v(v:pk(${k(1)}),sha256(${H32.toUpperCase()}))`,
    `and_v(v:sha256(${H32}),pk(${k(2)}))`,
    `and_b(pk(${k(1)}),s:pk(${k(2)}))`,
    `and_b(pk(${k(1)}),a:pk(${k(2)}))`,
    `and_b(pk(${k(1)}),sdv:older(144))`,
    `and_n(pk(${k(1)}),older(1))`,
    `and_n(pk(${k(1)}),pk(${k(2)}))`,
    `andor(pk(${k(1)}),older(10),pk(${k(2)}))`,
    `andor(pk(${k(1)}),pk(${k(2)}),pk(${k(3)}))`,
    `or_b(pk(${k(1)}),s:pk(${k(2)}))`,
    `or_b(pk(${k(1)}),a:pk(${k(2)}))`,
    `or_d(pk(${k(1)}),and_v(v:pk(${k(2)}),older(144)))`,
    `or_d(pk(${k(1)}),pk(${k(2)}))`,
    `t:or_c(pk(${k(1)}),v:pk(${k(2)}))`,
    `t:or_c(pk(${k(1)}),and_v(v:pk(${k(2)}),v:older(5)))`,
    `or_i(pk(${k(1)}),pk(${k(2)}))`,
    `or_i(and_v(v:pk(${k(1)}),older(100)),pk(${k(2)}))`,
    `thresh(1,pk(${k(1)}),a:pk(${k(2)}))`,
    `thresh(2,pk(${k(1)}),s:pk(${k(2)}),s:pk(${k(3)}))`,
    `thresh(3,pk(${k(1)}),s:pk(${k(2)}),s:pk(${k(3)}))`,
    `thresh(2,pk(${k(1)}),s:pk(${k(2)}),sln:older(100))`,
    `thresh(2,pk(${k(1)}),a:pk(${k(2)}),adv:older(20))`,
    `and_b(j:pk(${k(1)}),a:pk(${k(2)}))`,
    `and_b(n:pk(${k(1)}),a:pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),l:pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),u:pk(${k(2)}))`,
    `or_d(pk(${k(1)}),l:after(50))`,
    `andor(pk(${k(1)}),u:after(50),pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),t:or_c(pk(${k(2)}),v:pk(${k(3)})))`,
    `and_v(and_v(v:pk(${k(1)}),v:pk(${k(2)})),pk(${k(3)}))`,
    `and_v(v:pk(${k(1)}),and_v(v:pk(${k(2)}),pk(${k(3)})))`,
    `or_d(multi(1,${k(1)},${k(2)}),pk(${k(3)}))`,
    `and_v(v:multi(2,${k(1)},${k(2)},${k(3)}),after(10))`,
    `and_v(v:multi_a(1,${k(1)},${k(2)}),pk(${k(3)}))`,
    `and_v(v:multi_a(2,${k(1)},${k(2)},${k(3)}),older(10))`,
    `or_d(multi_a(1,${k(1)},${k(2)}),pk(${k(3)}))`,
    `and_v(v:pk(${k(1)}),d:v:older(10))`,
    `or_b(pk(${k(1)}),sdv:older(10))`,
    `andor(multi(1,${k(1)},${k(2)}),older(3),pk(${k(3)}))`,
    // Sane in neither context: the error names the culprit.
    `older(1)`,
    `after(10)`,
    `sha256(${H32})`,
    `1`,
    `0`,
    `and_v(v:pk(${k(1)}),0)`,
    `and_v(pk(${k(1)}),pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),pk(${k(1)}))`,
    `or_b(pk(${k(1)}),s:pk(${k(1)}))`,
    `and_v(v:after(100),and_v(v:after(500000001),pk(${k(1)})))`,
    `and_v(v:older(100),and_v(v:older(4194305),pk(${k(1)})))`,
    `thresh(2,pk(${k(1)}),s:pk(${k(2)}),sln:older(100),sln:older(4194305))`,
    `thresh(1,pk(${k(1)}),sln:after(100),sln:after(500000001))`,
    `or_i(pk(${k(1)}),older(1))`,
    `or_b(pk(${k(1)}),a:older(1))`,
    `andor(pk(${k(1)}),older(1),older(2))`,
    `or_d(pk(${k(1)}),older(1))`,
    `and_b(pk(${k(1)}),a:older(1))`,
    `thresh(1,older(1),a:pk(${k(1)}))`,
    `c:pk_k(${k(1)})x`,
    `vv:pk(${k(1)})`,
    `x:pk(${k(1)})`,
    `:pk(${k(1)})`,
    `and_v(v:pk(${k(1)}),older(0))`,
    `and_v(v:pk(${k(1)}),older(2147483648))`,
    `and_v(v:pk(${k(1)}),after(-1))`,
    `and_v(v:pk(${k(1)}),after(+5))`,
    `and_v(v:pk(${k(1)}),sha256(${H20}))`,
    `and_v(v:pk(${k(1)}),hash160(${H32}))`,
    `and_v(v:pk(${k(1)}),sha256(zz${H32.slice(2)}))`,
    `thresh(0,pk(${k(1)}),s:pk(${k(2)}))`,
    `thresh(3,pk(${k(1)}),s:pk(${k(2)}))`,
    `thresh(x,pk(${k(1)}),s:pk(${k(2)}))`,
    `and_v(v:multi(0,${k(1)}),pk(${k(2)}))`,
    `and_v(v:multi(3,${k(1)},${k(2)}),pk(${k(3)}))`,
    `and_v(v:multi_a(0,${k(1)}),pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),pk(${k(2)})`,
    `and_v(v:pk(${k(1)}))`,
    `and_v(v:pk(${k(1)}),pk(${k(2)}),pk(${k(3)}))`,
    `andor(pk(${k(1)}),pk(${k(2)}))`,
    `or_x(pk(${k(1)}),pk(${k(2)}))`,
    `and_v(v:pk(zz),pk(${k(1)}))`,
    `and_v(v:pk(),pk(${k(1)}))`,
    `and_v(v:pk( ${k(1)}),pk(${k(2)}))`,
    `and_v(v:pk_k(${k(1)}),pk(${k(2)}))`,
    `and_v(v:pk(${k(1)}),pk(${uncompressedOf(2)}))`,
    `and_v(v:pk(${k(1)}),pk(${xOnlyOf(2)}))`,
    `and_v(v:pk(${k(1)}),pk(${pubkeyOf(2).slice(0, 64)}))`,
    `and_v(v:pk(${k(1)}),pkh(${WIF}))`,
    `and_v(v:pk(${k(1)}),pk(${WIF_UNCOMPRESSED}))`,
    `and_v(v:pk(${k(1)}),pk(musig(${k(2)},${k(3)})))`,
  ];
}

/** Large expressions that reach the ops, stack and script-size limits. */
function resourceBodies(k: (n: number) => string): string[] {
  const many = (n: number, first = 1) => Array.from({ length: n }, (_, i) => (i === 0 ? `pk(${k(first)})` : `s:pk(${k(first + i)})`)).join(',');
  return [
    `thresh(1,${many(60)})`,
    `thresh(60,${many(60)})`,
    `thresh(1,${many(67)})`,
    `thresh(67,${many(67)})`,
    `thresh(50,${many(101)})`,
    `thresh(101,${many(101)})`,
    `thresh(1,${many(105)})`,
    `thresh(1,${many(120)})`,
    `and_v(v:multi(20,${K.slice(0, 20).join(',')}),and_v(v:multi(20,${K.slice(20, 40).join(',')}),multi(20,${K.slice(40, 60).join(',')})))`,
    `and_v(v:multi(1,${K.slice(0, 20).join(',')}),and_v(v:multi(1,${K.slice(20, 40).join(',')}),multi(1,${K.slice(40, 60).join(',')})))`,
    `and_v(v:multi(1,${K.slice(0, 21).join(',')}),pk(${k(99)}))`,
  ];
}

const hexKey = (n: number) => K[n - 1]!;
const xOnlyKey = (n: number) => X[n - 1]!;
const xpubKey = (n: number) => `${XPUB}/0/${n}/*`;
const originKey = (n: number) => `[deadbeef/48h/1h/0h/2h]${XPUB2}/${n}/*`;
const multipathKey = (n: number) => `${XPUB}/${n}/<0;1>/*`;
const hardenedKey = (n: number) => `${XPRV}/${n}h/*h`;
const fixedXpubKey = (n: number) => `${XPUB}/7/${n}`;

export interface MiniscriptCase {
  readonly descriptor: string;
  /** The range deriveaddresses is asked for (ranged descriptors). */
  readonly ranged: boolean;
}

/** Every descriptor of the table, in the contexts each applies to. */
export function miniscriptDescriptors(): string[] {
  const out: string[] = [];
  for (const body of bodies(hexKey)) out.push(`wsh(${body})`);
  for (const body of bodies(xOnlyKey)) out.push(`tr(${X[9]},${body})`);
  for (const body of bodies(hexKey).slice(0, 56)) out.push(`tr(${X[9]},{pk(${X[8]}),${body}})`);
  for (const keyOf of [xpubKey, originKey, multipathKey, hardenedKey, fixedXpubKey]) {
    for (const body of bodies(keyOf).slice(0, 56)) {
      out.push(`wsh(${body})`);
      out.push(`tr(${X[9]},${body})`);
    }
  }
  for (const body of resourceBodies(hexKey)) {
    out.push(`wsh(${body})`);
    out.push(`tr(${X[9]},${body.replace(/multi\(/g, 'multi_a(')})`);
  }
  out.push(
    `sh(wsh(and_v(v:pk(${K[0]}),older(2))))`,
    `sh(and_v(v:pk(${K[0]}),older(2)))`,
    `and_v(v:pk(${K[0]}),older(2))`,
    `and_v(v:pk(zz),older(2))`,
    `wsh(and_v(v:pk(${WIF}),older(2)))`,
    `wsh(and_v(v:pk(${XPRV}/1/*),pk(${XPUB}/2/*)))`,
    `wsh(and_v(v:pk(${XPUB}/<0;1>/*),pk(${XPUB}/<2;3;4>/*)))`,
    `wsh(and_v(v:pk(${XPUB}/<0;1>/*),pk(${XPUB}/<2;3>/*)))`,
    `tr(${XPUB}/<0;1>/*,and_v(v:pk(${XPUB}/<2;3>/*),older(2)))`,
    `wsh(and_v(v:pk(${XPUB}/1h/*),pk(${K[0]})))`,
    `wsh(and_v(v:pk(${XPUB}/0),pk(${XPUB}/0)))`,
    `wsh(and_v(v:pk(${XPUB}/0/*),pk(${XPUB}/0/*)))`,
    `wsh(and_v(v:pk(${XPRV}/1h),pk(${XPRV}/1h)))`,
    `wsh(and_v(v:pk(${XPUB}/1h),pk(${XPUB}/1h)))`,
    `wsh(and_v(v:pk(${XPUB}/1h),pk(${XPUB}/2h)))`,
    `tr(${X[9]},and_v(v:pk(${K[0]}),pk(${X[0]})))`,
    `tr(${X[9]},and_v(v:pk(${K[0]}),pk(03${X[0]})))`,
    `tr(${X[9]},multi_a(1,${X[0]},${X[1]}))`,
    `tr(${X[9]},sortedmulti_a(1,${X[1]},${X[0]}))`,
    `wsh(multi(1,${K[0]},${K[1]}))`,
    `wsh(and_v(v:pk(${K[0]}),older(2)))#00000000`,
  );
  // Around the script size limits (3,600 bytes in P2WSH, 329,482 in Tapscript): the last sane
  // chains, the ones Core calls invalid, and the ones its parser gives up on early.
  const chain = (n: number) => `${'and_v(v:older(1),'.repeat(n)}pk(${K[0]})${')'.repeat(n)}`;
  for (const n of [100, 101, 1187, 1188, 1189]) out.push(`wsh(${chain(n)})`);
  for (const n of [109816, 109817]) out.push(`tr(${X[1]},${chain(n)})`);
  return out;
}

const push = (hex: string) => (hex.length / 2).toString(16).padStart(2, '0') + hex;

/** Pieces miniscript scripts are made of, for assembling near-miss scripts. */
const PIECES = [
  push(K[0]!), push(K[1]!), push(K[2]!), push(X[0]!), '76a9' + push(H20) + '88', 'ac', 'ad', '69', '87', '88', '9c', '9d', 'ae', 'af', 'ba',
  '52b2', '0164b2', '52b1', '0400e1f505b1', '8201208769', 'a8' + push(H32), 'a9' + push(H20), 'a6' + push(H20), 'aa' + push(H32),
  '63', '64', '67', '68', '73', '7c', '6b', '6c', '76', '92', '9a', '9b', '93', '00', '51', '52', '53', '4f', '0100', '020100',
];

/**
 * Scripts for decodescript: each given script and near misses of it (a byte short, a
 * VERIFY opcode split in two, an extra opcode either side, keys and numbers respelled),
 * hand-made edge cases, and assemblies of miniscript pieces from a seeded generator.
 */
export function decodescriptScripts(base: readonly string[]): string[] {
  const out = new Set<string>();
  for (const s of base) {
    out.add(s);
    out.add(s.slice(0, -2));
    out.add(s.slice(2));
    out.add(s + '69');
    out.add('51' + s);
    out.add(s.replace(/ad/g, 'ac69'));
    out.add(s.replace(/88/g, '8769'));
    out.add(s.replace(/^21(02|03)/, '2104'));
    out.add(s.replace(/^2102/, '2106'));
    out.add(s.replace(/52b2/g, '0102b2'));
    out.add(s.replace(/5[0-9a-f]b2/g, '0480000000b2'));
    out.add(s.replace(/21(0[23][0-9a-f]{64})/g, (_, key: string) => '20' + key.slice(2)));
  }
  out.add('00');
  out.add('51');
  out.add('');
  out.add('6a');
  out.add(push(K[0]!) + 'ac');
  out.add(push(X[0]!) + 'ac');
  out.add('76a9' + push(H20) + '88ac');
  out.add(push(K[0]!) + 'ad52b2');
  out.add(push(K[0]!) + 'ad52b275');
  out.add(`52${push(K[0]!)}${push(K[1]!)}52ae`);
  out.add(`51${push(K[0]!)}${push(K[0]!)}52ae`);
  out.add(`${push(X[0]!)}ac${push(X[1]!)}ba519c`);
  out.add(`${push(K[0]!)}ac${push(K[1]!)}ac9a`);
  out.add(`${push(K[0]!)}ac7c${push(K[1]!)}ac9b`);
  out.add(`${push(K[0]!)}ac7c${push(K[0]!)}ac9b`);
  out.add(`${push('02' + '00'.repeat(32))}ad52b2`);
  const random = seededRandom(31);
  for (let i = 0; i < 400; i++) {
    const count = 1 + Math.floor(random() * 8);
    let s = '';
    for (let j = 0; j < count; j++) s += PIECES[Math.floor(random() * PIECES.length)]!;
    out.add(s);
  }
  return [...out];
}
