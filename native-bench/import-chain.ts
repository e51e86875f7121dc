/**
 * The regtest chain `make bench-import` imports, generated once and cached in
 * native-bench/.cache/ (regenerated when missing, damaged, or of another CHAIN_FORMAT),
 * and smaller chains of the same kind for tests (generateChain with another ChainShape).
 *
 * Shape (heights on regtest, where a block's work is constant; the numbers are BENCH_CHAIN's):
 *  - 1..100: coinbase-only blocks; their coinbases mature one by one from height 101.
 *  - from 101: blocks of ~200 small transactions until 200,000 non-coinbase transactions
 *    exist. A coinbase is fanned out into 250 coins whenever fewer than 240 confirmed coins
 *    are left; every other transaction spends coins confirmed in earlier blocks: mostly
 *    one input and one output, every 20th a 2-input merge and every 20th a 2-output split.
 *    Coins alternate between P2WPKH (ECDSA) and P2TR key-path (Schnorr) keys.
 *  - then 2,017 coinbase-only blocks: with -assumevalid at the last block, Core's rule
 *    skips scripts only in blocks buried under more than two weeks of work (2,016 regtest
 *    blocks at 10 minutes each), so this tail is what lets assumevalid skip the scripts of
 *    every transaction-bearing block, as it does on mainnet during initial sync.
 *
 * Planning is sequential and cheap (a witness does not change a txid, so the unsigned
 * transactions already have their final txids); signing, the expensive part, runs on a
 * Piscina pool of worker threads, one block per task, while later blocks are planned.
 * Blocks are assembled in order (coinbase with the witness commitment, merkle root,
 * regtest proof of work) and written in Core's framing: magic, LE32 size, block.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { blockSubsidy, COINBASE_MATURITY, genesisBlock, selectParams } from '../src/consensus/index.js';
import { addWitnessCommitment, createCoinbase, solveBlock } from '../src/mining/index.js';
import { scanBlockFile } from '../src/storage/index.js';
import {
  blockMerkleRoot,
  BlockHeader,
  bytesEqual,
  parseBlock,
  parseTransaction,
  serializeBlock,
  Transaction,
  type TxOut,
} from '../src/primitives/index.js';
import { benchKeys, KEY_COUNT, type SpentCoin } from './import-keys.js';
import type { SignItem } from './import-sign-worker.js';

/** Bump whenever the generated chain changes: a cached chain of another format is rebuilt. */
export const CHAIN_FORMAT = 1;

/** What to generate: how many transactions, how many per block, and whether the two-week tail follows. */
export interface ChainShape {
  transactions: number;
  txPerBlock: number;
  /** The coinbase-only tail that buries every transaction-bearing block under two weeks of work. */
  assumeValidTail: boolean;
}

/** The chain `make bench-import` imports (CHAIN_FORMAT describes this shape). */
export const BENCH_CHAIN: ChainShape = { transactions: 200_000, txPerBlock: 200, assumeValidTail: true };

const FANOUT_OUTPUTS = 250;
const POOL_TARGET = 240;
const REGULAR_FEE = 100n;
const FANOUT_FEE = 10_000n;
/** Coins below this are merged with another rather than paying a fee on their own. */
const SMALL_COIN = 20_000n;
const TWO_WEEKS = 14 * 24 * 60 * 60;
const EMPTY = new Uint8Array(0);

export interface ChainMeta {
  format: number;
  /** Blocks after genesis. */
  blocks: number;
  /** Blocks with transactions besides the coinbase. */
  txBlocks: number;
  /** Coinbase-only blocks on top of the last transaction-bearing block. */
  tailBlocks: number;
  /** Non-coinbase transactions, and their inputs. */
  transactions: number;
  inputs: number;
  /** Hash of the last block (the assumevalid block of the benchmark). */
  lastHash: string;
  /** Bytes of the framed block file. */
  bytes: number;
  /** Seconds the generation took and the signing threads it used. */
  generationSeconds: number;
  signingThreads: number;
}

export interface CachedChain {
  file: string;
  meta: ChainMeta;
}

interface Coin {
  txid: Uint8Array;
  vout: number;
  value: bigint;
  key: number;
}

interface PlannedBlock {
  height: number;
  txs: Transaction[];
  items: SignItem[];
  fees: bigint;
}

/** A FIFO of coins that does not copy on every shift. */
class CoinQueue {
  private items: Coin[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(...coins: Coin[]): void {
    this.items.push(...coins);
  }
  peek(): Coin | undefined {
    return this.items[this.head];
  }
  shift(): Coin {
    const coin = this.items[this.head++];
    if (!coin) throw new Error('coin queue is empty');
    if (this.head > 4096) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return coin;
  }
}

/** Chooses the transactions of each block; knows every txid before anything is signed. */
class Planner {
  readonly confirmed = new CoinQueue();
  private pending: Coin[] = [];
  /** Coinbase coins, with their heights, not yet fanned out. */
  readonly coinbases: (Coin & { height: number })[] = [];
  transactions = 0;
  inputs = 0;
  private regular = 0;
  private nextKey = 0;
  readonly scripts = benchKeys().map((k) => k.scriptPubKey);

  constructor(readonly shape: ChainShape) {}

  get done(): boolean {
    return this.transactions >= this.shape.transactions;
  }

  private output(value: bigint): { out: TxOut; key: number } {
    const key = this.nextKey++ % KEY_COUNT;
    return { out: { value, scriptPubKey: this.scripts[key]! }, key };
  }

  private build(spent: Coin[], values: bigint[], block: PlannedBlock): void {
    const outs = values.map((v) => this.output(v));
    const tx = new Transaction({
      version: 2,
      inputs: spent.map((c) => ({ prevout: { txid: c.txid, vout: c.vout }, scriptSig: EMPTY, sequence: 0xffffffff, witness: [] })),
      outputs: outs.map((o) => o.out),
      locktime: 0,
    });
    const txid = tx.txid;
    outs.forEach((o, vout) => this.pending.push({ txid, vout, value: o.out.value, key: o.key }));
    const coins: SpentCoin[] = spent.map((c) => ({ value: c.value, key: c.key }));
    block.txs.push(tx);
    block.items.push({ tx: tx.toBytesNoWitness(), spent: coins });
    block.fees += spent.reduce((sum, c) => sum + c.value, 0n) - values.reduce((sum, v) => sum + v, 0n);
    this.transactions++;
    this.inputs += spent.length;
  }

  plan(height: number): PlannedBlock {
    const block: PlannedBlock = { height, txs: [], items: [], fees: 0n };
    if (!this.done) {
      const oldest = this.coinbases[0];
      if (this.confirmed.length < POOL_TARGET && oldest && height - oldest.height >= COINBASE_MATURITY) {
        const coin = this.coinbases.shift()!;
        const each = (coin.value - FANOUT_FEE) / BigInt(FANOUT_OUTPUTS);
        this.build([coin], new Array<bigint>(FANOUT_OUTPUTS).fill(each), block);
      }
      while (block.txs.length < this.shape.txPerBlock && !this.done && this.confirmed.length > 0) {
        const shape = this.regular % 20;
        const first = this.confirmed.peek()!;
        const merge = shape === 0 || first.value < SMALL_COIN;
        if (merge && this.confirmed.length < 2) break;
        this.regular++;
        const spent = merge ? [this.confirmed.shift(), this.confirmed.shift()] : [this.confirmed.shift()];
        const value = spent.reduce((sum, c) => sum + c.value, 0n) - REGULAR_FEE;
        this.build(spent, shape === 10 && !merge ? [value / 2n, value - value / 2n] : [value], block);
      }
    }
    // Coins created in this block are spendable from the next one on.
    this.confirmed.push(...this.pending);
    this.pending = [];
    return block;
  }
}

function progress(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Generates a chain of `shape` into `file` (written aside, then renamed); returns its description. */
export async function generateChain(file: string, shape: ChainShape, threads = availableParallelism()): Promise<ChainMeta> {
  const started = performance.now();
  const params = selectParams('regtest');
  const genesisTime = genesisBlock('regtest').header.time;
  const planner = new Planner(shape);
  const pool = new Piscina<SignItem[], Uint8Array[]>({
    filename: fileURLToPath(new URL('./import-sign-worker.js', import.meta.url)),
    minThreads: threads,
    maxThreads: threads,
  });
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w');
  const frame = new Uint8Array(8);
  frame.set(params.messageStart, 0);
  let prevHash = params.genesisHash;
  let bytes = 0;
  let txBlocks = 0;
  let lastTxHeight = 0;
  let lastHash = '';
  let lastReport = performance.now();

  const assemble = (planned: PlannedBlock, signed: Uint8Array[]): void => {
    const { height } = planned;
    const txs = signed.map((raw, i) => {
      const tx = parseTransaction(raw);
      if (!bytesEqual(tx.txid, planned.txs[i]!.txid)) throw new Error(`signing changed the txid of a transaction at height ${height}`);
      return tx;
    });
    const payoutKey = height % KEY_COUNT;
    const coinbase = createCoinbase(height, planner.scripts[payoutKey]!, blockSubsidy(height, params) + planned.fees);
    const fields = { version: 0x20000000, prevHash, time: genesisTime + height * params.targetSpacing, bits: params.powLimitBits, nonce: 0 };
    const draft = new BlockHeader({ ...fields, merkleRoot: new Uint8Array(32) });
    const transactions = addWitnessCommitment({ header: draft, transactions: [coinbase, ...txs] });
    const header = new BlockHeader({ ...fields, merkleRoot: blockMerkleRoot({ header: draft, transactions }).root });
    const block = solveBlock({ header, transactions }, params, { remaining: 1 << 20 });
    if (!block) throw new Error(`could not solve regtest block ${height}`);
    const raw = serializeBlock(block);
    new DataView(frame.buffer).setUint32(4, raw.length, true);
    writeSync(fd, frame);
    writeSync(fd, raw);
    bytes += frame.length + raw.length;
    planner.coinbases.push({ txid: transactions[0]!.txid, vout: 0, value: transactions[0]!.outputs[0]!.value, key: payoutKey, height });
    prevHash = block.header.hash;
    lastHash = block.header.hashHex;
    if (txs.length > 0) {
      txBlocks++;
      lastTxHeight = height;
    }
    const now = performance.now();
    if (now - lastReport > 5000) {
      lastReport = now;
      progress(`  generating: height ${height}, ${planner.transactions.toLocaleString('en-US')} of ${shape.transactions.toLocaleString('en-US')} transactions signed or queued, ${((now - started) / 1000).toFixed(0)} s`);
    }
  };

  // Blocks in flight: planned, being signed. Fewer than COINBASE_MATURITY, so a coinbase is
  // always assembled (its txid known) before a planned block can fan it out.
  const window: { planned: PlannedBlock; signed: Promise<Uint8Array[]> }[] = [];
  const maxInFlight = Math.min(4 * threads, COINBASE_MATURITY - 1);
  const tail = shape.assumeValidTail ? tailBlocks(params.targetSpacing) : 0;
  let lastPlannedTxHeight = 0;
  try {
    for (let height = 1; !planner.done || height <= lastPlannedTxHeight + tail; height++) {
      const planned = planner.plan(height);
      if (planned.txs.length > 0) lastPlannedTxHeight = height;
      const signed = planned.items.length > 0 ? pool.run(planned.items) : Promise.resolve([]);
      window.push({ planned, signed });
      if (window.length >= maxInFlight) {
        const next = window.shift()!;
        assemble(next.planned, await next.signed);
      }
    }
    while (window.length > 0) {
      const next = window.shift()!;
      assemble(next.planned, await next.signed);
    }
  } finally {
    closeSync(fd);
    await pool.destroy();
  }
  renameSync(partial, file);
  return {
    format: CHAIN_FORMAT,
    blocks: lastTxHeight + tail,
    txBlocks,
    tailBlocks: tail,
    transactions: planner.transactions,
    inputs: planner.inputs,
    lastHash,
    bytes,
    generationSeconds: (performance.now() - started) / 1000,
    signingThreads: threads,
  };
}

/** Blocks past two weeks of work: one more than 14 days of blocks at the target spacing. */
function tailBlocks(spacing: number): number {
  return TWO_WEEKS / spacing + 1;
}

function readMeta(path: string): ChainMeta | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ChainMeta;
  } catch {
    return undefined;
  }
}

/** The cached BENCH_CHAIN in `cacheDir`, generated first when missing, damaged or of another format. */
export async function ensureChain(cacheDir: string, threads = availableParallelism()): Promise<CachedChain> {
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, 'regtest-chain.blk');
  const metaPath = join(cacheDir, 'regtest-chain.json');
  const cached = readMeta(metaPath);
  if (cached && cached.format === CHAIN_FORMAT && existsSync(file) && statSync(file).size === cached.bytes) {
    progress(`Using the cached chain ${file} (format ${CHAIN_FORMAT}).`);
    return { file, meta: cached };
  }
  progress(
    cached
      ? `The cached chain is ${cached.format === CHAIN_FORMAT ? 'incomplete' : `of format ${cached.format}, not ${CHAIN_FORMAT}`}: generating it again.`
      : `No cached chain in ${cacheDir}: generating one (once; signing on ${threads} thread${threads === 1 ? '' : 's'}).`,
  );
  rmSync(metaPath, { force: true });
  const meta = await generateChain(file, BENCH_CHAIN, threads);
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  progress(`  generated ${meta.blocks.toLocaleString('en-US')} blocks, ${meta.transactions.toLocaleString('en-US')} transactions in ${meta.generationSeconds.toFixed(1)} s`);
  return { file, meta };
}

/**
 * The non-coinbase inputs of every block of a generated chain file, indexed by height
 * (the file holds heights 1..N in order; index 0, genesis, is not in it and counts 0).
 */
export function inputsByHeight(file: string): number[] {
  const counts = [0];
  for (const record of scanBlockFile(file, selectParams('regtest').messageStart, new Uint8Array(8))) {
    const block = parseBlock(record.bytes);
    counts.push(block.transactions.slice(1).reduce((sum, tx) => sum + tx.inputs.length, 0));
  }
  return counts;
}
