/**
 * A small deterministic test wallet for daemon tests: keys from seed numbers, four kinds
 * of outputs (P2WPKH, P2TR key path, P2TR script path with one tapscript leaf, and P2TR
 * script path through a two-leaf tree so the control block carries a merkle path), and
 * transactions signed with the project's own sighash code (src/script) and
 * @noble/secp256k1. It learns its coins from the blocks it is shown (coinbases mature
 * after 100 blocks) and from the transactions it builds, so spends can be chained, also
 * within one block.
 */
import * as noble from '@noble/secp256k1';
import { concatBytes, hashToHex, taggedHash, type Block, type OutPoint, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import {
  encodeAddress,
  OP,
  PrecomputedTransactionData,
  pushData,
  SIGHASH_ALL,
  SIGHASH_DEFAULT,
  taprootOutput,
  taprootSignatureHash,
  witnessV0SignatureHash,
  type TaprootLeafSpend,
} from '../../src/script/index.js';
import { derEncode, p2wpkhScriptCode, secretFromSeed, spendKey, type SpendKey } from './spends.js';

/** Core's COINBASE_MATURITY. */
export const COINBASE_MATURITY = 100;

/** The tapscript leaf version (BIP342). */
const TAPSCRIPT_LEAF = 0xc0;

export type WalletKind = 'p2wpkh' | 'p2tr-key' | 'p2tr-leaf' | 'p2tr-tree';
export const WALLET_KINDS: readonly WalletKind[] = ['p2wpkh', 'p2tr-key', 'p2tr-leaf', 'p2tr-tree'];

export interface WalletCoin {
  readonly outpoint: OutPoint;
  readonly value: bigint;
  readonly kind: WalletKind;
  readonly scriptPubKey: Uint8Array;
  /** Height of the block that confirmed it; null while only built (to be mined next). */
  height: number | null;
  readonly coinbase: boolean;
}

/** A tapscript leaf `<x-only key> OP_CHECKSIG` and the secret that satisfies it. */
interface LeafKey {
  readonly secret: Uint8Array;
  readonly script: Uint8Array;
}

/** A script-path output: its tree's leaves with control blocks, and the key behind each leaf. */
interface ScriptPathOutput {
  readonly scriptPubKey: Uint8Array;
  readonly leaves: readonly TaprootLeafSpend[];
  readonly keys: readonly LeafKey[];
}

function leafKey(seed: number): LeafKey {
  const secret = secretFromSeed(seed);
  return { secret, script: concatBytes(pushData(noble.schnorr.getPublicKey(secret)), Uint8Array.of(OP.OP_CHECKSIG)) };
}

function scriptPathOutput(internalSeed: number, keys: readonly LeafKey[]): ScriptPathOutput {
  // The internal key is a real key, but these outputs are only ever spent by a leaf.
  const internalKey = noble.schnorr.getPublicKey(secretFromSeed(internalSeed));
  const leaves = keys.map((k) => ({ script: k.script, leafVersion: TAPSCRIPT_LEAF }));
  const tree = leaves.length === 1 ? leaves[0]! : ([leaves[0]!, leaves[1]!] as const);
  const output = taprootOutput(internalKey, tree);
  return { scriptPubKey: output.scriptPubKey, leaves: output.leaves, keys };
}

const outpointKey = (o: OutPoint): string => `${hashToHex(o.txid)}:${o.vout}`;

export interface PaymentOutput {
  readonly value: bigint;
  /** A wallet output kind (the wallet tracks it) or any script (it does not). */
  readonly to: WalletKind | Uint8Array;
}

/** How a spend is built: the transaction version (3 is TRUC), and whether its inputs may be coins an earlier spend took (a conflicting spend, for replacements). */
export interface SpendOptions {
  readonly version?: number;
  readonly conflicting?: boolean;
}

export class TestWallet {
  private readonly p2wpkh: SpendKey;
  private readonly p2trKey: SpendKey;
  private readonly leaf: ScriptPathOutput;
  private readonly tree: ScriptPathOutput;
  private readonly coins = new Map<string, WalletCoin>();
  /** Which of the tree's two leaves the next tree spend uses: alternating covers both paths. */
  private nextTreeLeaf = 0;

  /** Keys are derived from `seed`: two wallets with different seeds share no key. */
  constructor(readonly seed: number) {
    const base = seed * 100;
    this.p2wpkh = spendKey('p2wpkh', base + 1);
    this.p2trKey = spendKey('p2tr', base + 2);
    this.leaf = scriptPathOutput(base + 3, [leafKey(base + 4)]);
    this.tree = scriptPathOutput(base + 5, [leafKey(base + 6), leafKey(base + 7)]);
  }

  scriptPubKey(kind: WalletKind): Uint8Array {
    switch (kind) {
      case 'p2wpkh':
        return this.p2wpkh.scriptPubKey;
      case 'p2tr-key':
        return this.p2trKey.scriptPubKey;
      case 'p2tr-leaf':
        return this.leaf.scriptPubKey;
      case 'p2tr-tree':
        return this.tree.scriptPubKey;
    }
  }

  /** The bech32/bech32m address of a kind (regtest by default). */
  address(kind: WalletKind, chain: 'regtest' | 'main' = 'regtest'): string {
    const address = encodeAddress(this.scriptPubKey(kind), chain);
    if (!address) throw new Error(`no address for ${kind}`);
    return address;
  }

  private kindOf(script: Uint8Array): WalletKind | undefined {
    return WALLET_KINDS.find((kind) => Buffer.compare(Buffer.from(this.scriptPubKey(kind)), Buffer.from(script)) === 0);
  }

  /**
   * Learns from a block at `height` that is now on the active chain: outputs paying the
   * wallet become coins (coinbase ones flagged), coins it spends are gone, and coins the
   * wallet built get their confirmation height.
   */
  processBlock(block: Block, height: number): void {
    for (const tx of block.transactions) {
      const coinbase = tx.isCoinbase();
      if (!coinbase) for (const input of tx.inputs) this.coins.delete(outpointKey(input.prevout));
      tx.outputs.forEach((output, vout) => {
        const kind = this.kindOf(output.scriptPubKey);
        if (!kind) return;
        const outpoint = { txid: tx.txid, vout };
        const known = this.coins.get(outpointKey(outpoint));
        if (known) known.height = height;
        else this.coins.set(outpointKey(outpoint), { outpoint, value: output.value, kind, scriptPubKey: output.scriptPubKey, height, coinbase });
      });
    }
  }

  /**
   * Every transaction built since the last block went into the block at `height` (for
   * blocks the wallet is not shown, such as generateblock's submit=true ones).
   */
  confirmBuilt(height: number): void {
    for (const c of this.coins.values()) if (c.height === null) c.height = height;
  }

  /** Coins a transaction in the block at `nextHeight` may spend: mature coinbases, all others (also unconfirmed ones). */
  spendable(nextHeight: number): WalletCoin[] {
    return [...this.coins.values()].filter((c) => !c.coinbase || (c.height !== null && nextHeight - c.height >= COINBASE_MATURITY));
  }

  get size(): number {
    return this.coins.size;
  }

  /** Sum of all coins the wallet holds (mature or not). */
  balance(): bigint {
    let total = 0n;
    for (const c of this.coins.values()) total += c.value;
    return total;
  }

  /**
   * A signed transaction spending `inputs` to `outputs` (what the outputs leave of the
   * inputs is the fee). The inputs leave the wallet at once and outputs paying a wallet
   * kind join it unconfirmed, so the next transaction may spend them in the same block.
   */
  spend(inputs: readonly WalletCoin[], outputs: readonly PaymentOutput[], options: SpendOptions = {}): Transaction {
    const tx = this.sign(inputs, outputs, options);
    for (const c of inputs) this.coins.delete(outpointKey(c.outpoint));
    tx.outputs.forEach((out, vout) => {
      const kind = this.kindOf(out.scriptPubKey);
      if (!kind) return;
      const outpoint = { txid: tx.txid, vout };
      this.coins.set(outpointKey(outpoint), { outpoint, value: out.value, kind, scriptPubKey: out.scriptPubKey, height: null, coinbase: false });
    });
    return tx;
  }

  /** The signed transaction spend() would make, leaving the wallet as it is (to learn a spend's size first). */
  sign(inputs: readonly WalletCoin[], outputs: readonly PaymentOutput[], options: SpendOptions = {}): Transaction {
    if (inputs.length === 0 || outputs.length === 0) throw new RangeError('a spend needs inputs and outputs');
    const inTotal = inputs.reduce((a, c) => a + c.value, 0n);
    const outTotal = outputs.reduce((a, o) => a + o.value, 0n);
    if (outTotal > inTotal) throw new RangeError(`outputs (${outTotal}) exceed inputs (${inTotal})`);
    if (!options.conflicting) for (const c of inputs) if (!this.coins.has(outpointKey(c.outpoint))) throw new Error(`coin ${outpointKey(c.outpoint)} is not in the wallet`);
    const version = options.version ?? 2;
    const txOuts: TxOut[] = outputs.map((o) => ({ value: o.value, scriptPubKey: typeof o.to === 'string' ? this.scriptPubKey(o.to) : o.to }));
    const spentOutputs: TxOut[] = inputs.map((c) => ({ value: c.value, scriptPubKey: c.scriptPubKey }));
    const unsignedInputs: TxIn[] = inputs.map((c) => ({ prevout: c.outpoint, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }));
    const unsigned = new Transaction({ version, inputs: unsignedInputs, outputs: txOuts, locktime: 0 });
    // BIP143 and BIP341 hashes do not commit to witnesses: the unsigned transaction's hashes are the signed one's.
    const txdata = new PrecomputedTransactionData(unsigned, spentOutputs);
    const signedInputs = unsignedInputs.map((input, i) => ({ ...input, witness: this.witness(inputs[i]!, unsigned, i, txdata) }));
    return new Transaction({ version, inputs: signedInputs, outputs: txOuts, locktime: 0 });
  }

  private witness(coin: WalletCoin, tx: Transaction, inputIndex: number, txdata: PrecomputedTransactionData): Uint8Array[] {
    switch (coin.kind) {
      case 'p2wpkh': {
        const key = this.p2wpkh;
        const digest = witnessV0SignatureHash(p2wpkhScriptCode(key.publicKey), tx, inputIndex, SIGHASH_ALL, coin.value, txdata);
        const compact = noble.sign(digest, key.signingSecret, { prehash: false, lowS: true });
        return [concatBytes(derEncode(compact), Uint8Array.of(SIGHASH_ALL)), key.publicKey];
      }
      case 'p2tr-key': {
        const digest = taprootSignatureHash(tx, inputIndex, SIGHASH_DEFAULT, txdata, { annexHash: undefined }, false);
        if (!digest) throw new Error('taproot key-path sighash undefined');
        return [schnorrSign(digest, this.p2trKey.signingSecret, auxRand(tx, inputIndex))];
      }
      case 'p2tr-leaf':
        return this.scriptPathWitness(this.leaf, 0, tx, inputIndex, txdata);
      case 'p2tr-tree': {
        const leaf = this.nextTreeLeaf;
        this.nextTreeLeaf ^= 1;
        return this.scriptPathWitness(this.tree, leaf, tx, inputIndex, txdata);
      }
    }
  }

  /** BIP342: [signature, leaf script, control block]; the signature commits to the leaf hash. */
  private scriptPathWitness(output: ScriptPathOutput, leafIndex: number, tx: Transaction, inputIndex: number, txdata: PrecomputedTransactionData): Uint8Array[] {
    const leaf = output.leaves[leafIndex]!;
    const context = { annexHash: undefined, tapleafHash: leaf.leafHash, codeseparatorPosition: 0xffffffff };
    const digest = taprootSignatureHash(tx, inputIndex, SIGHASH_DEFAULT, txdata, context, true);
    if (!digest) throw new Error('tapscript sighash undefined');
    const signature = schnorrSign(digest, output.keys[leafIndex]!.secret, auxRand(tx, inputIndex));
    return [signature, leaf.leaf.script, leaf.controlBlock];
  }
}

const CURVE_ORDER = noble.Point.CURVE().n;
const bigIntOf = (bytes: Uint8Array): bigint => noble.etc.bytesToNumberBE(bytes);
const bytesOf = (n: bigint): Uint8Array => noble.etc.numberToBytesBE(n);
/** x-only public key and the secret negated to its even-y point, per signing secret (hex). */
const evenKeys = new Map<string, { d: bigint; px: Uint8Array }>();

/**
 * BIP340 signing exactly as the BIP's reference code, without noble's final self-check:
 * noble's schnorr.sign verifies every signature it makes, which costs more than the
 * signing itself, and the node under test verifies each one anyway. The unit test
 * checks it gives noble's bytes.
 */
export function schnorrSign(message: Uint8Array, secret: Uint8Array, aux: Uint8Array): Uint8Array {
  const cacheKey = hashToHex(secret);
  let key = evenKeys.get(cacheKey);
  if (!key) {
    const d0 = bigIntOf(secret);
    const p = noble.Point.BASE.multiply(d0).toAffine();
    key = { d: p.y & 1n ? CURVE_ORDER - d0 : d0, px: bytesOf(p.x) };
    evenKeys.set(cacheKey, key);
  }
  const masked = bytesOf(key.d);
  const auxHash = taggedHash('BIP0340/aux', aux);
  for (let i = 0; i < 32; i++) masked[i]! ^= auxHash[i]!;
  const k0 = bigIntOf(taggedHash('BIP0340/nonce', masked, key.px, message)) % CURVE_ORDER;
  if (k0 === 0n) throw new Error('BIP340 nonce is zero');
  const r = noble.Point.BASE.multiply(k0).toAffine();
  const k = r.y & 1n ? CURVE_ORDER - k0 : k0;
  const rx = bytesOf(r.x);
  const e = bigIntOf(taggedHash('BIP0340/challenge', rx, key.px, message)) % CURVE_ORDER;
  return concatBytes(rx, bytesOf((k + e * key.d) % CURVE_ORDER));
}

/** Deterministic BIP340 auxiliary randomness, so the same run signs the same bytes. */
function auxRand(tx: Transaction, inputIndex: number): Uint8Array {
  const aux = new Uint8Array(32);
  aux.set(tx.txid.subarray(0, 28));
  new DataView(aux.buffer).setUint32(28, inputIndex);
  return aux;
}

/** A seeded PRNG (mulberry32): tests log the seed so a failing run can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
