/**
 * Mines a regtest chain through a daemon's RPC with transactions from a TestWallet: once
 * coinbases mature, each block spends one (segwit v0 or taproot, key or script path,
 * as the coinbase paid), chains a spend of that transaction's output in the same block,
 * and spends earlier outputs. Blocks go through `generateblock` (whose coinbase claims no
 * fees, as Core's), mostly with submit=false and then `submitblock` so the wallet sees
 * the coinbase, every fourth (height ≡ 3 mod 4) with submit=true to a foreign address.
 */
import { bytesEqual, fromHex, parseBlock } from '../../src/primitives/index.js';
import { seededRandom, TestWallet, WALLET_KINDS, type WalletCoin, type WalletKind } from './wallet.js';

/** The part of a daemon handle mining needs (test/integration/daemon-harness's Daemon fits). */
export interface RpcNode {
  call<T = any>(method: string, params?: unknown): Promise<T>;
}

export interface MiningStats {
  blocks: number;
  transactions: number;
  /** Inputs spent, by the kind of output they spend (coinbase spends counted separately too). */
  inputs: Record<WalletKind, number>;
  coinbaseSpends: number;
  /** Spends of an output created earlier in the same block. */
  inBlockChains: number;
  /** Hashes of the mined blocks, in order. */
  hashes: string[];
  /** Heights of the blocks that carry transactions besides the coinbase. */
  blocksWithTransactions: number[];
  /** Fees paid (the coinbases of generateblock claim none, so they leave the UTXO set). */
  fees: bigint;
}

export interface MineOptions {
  /** Seed of the transaction plan (logged by callers so a run replays). */
  seed: number;
  /** Earlier outputs one transaction merges (default 2; 0 never spends earlier outputs). */
  earlierInputs?: number;
  /** Chance that a coinbase spend's output is spent again in the same block (default 1). */
  chainRate?: number;
  /** Chance of an earlier-outputs spend in a block that already spends a coinbase (default 1). */
  earlierRate?: number;
}

/** Outputs worth spending: far above the 1,000-satoshi fee each transaction leaves. */
const MIN_SPEND_VALUE = 20_000n;
const FEE = 1000n;

/** A wallet with no foreign coins: blocks mined with submit=true pay here, so the test wallet never sees them. */
const FOREIGN = new TestWallet(999);
/** The address blocks mined with submit=true pay (outside the test wallet). */
export const FOREIGN_ADDRESS = FOREIGN.address('p2wpkh');

export function emptyStats(): MiningStats {
  return { blocks: 0, transactions: 0, inputs: { p2wpkh: 0, 'p2tr-key': 0, 'p2tr-leaf': 0, 'p2tr-tree': 0 }, coinbaseSpends: 0, inBlockChains: 0, hashes: [], blocksWithTransactions: [], fees: 0n };
}

/** Mines `count` blocks on `node`'s tip at `startHeight` + 1 onwards; returns what went in. */
export async function mineWithSpends(node: RpcNode, wallet: TestWallet, startHeight: number, count: number, options: MineOptions, stats = emptyStats()): Promise<MiningStats> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const earlierInputs = options.earlierInputs ?? 2;
  const chainRate = options.chainRate ?? 1;
  const earlierRate = options.earlierRate ?? 1;
  for (let height = startHeight + 1; height <= startHeight + count; height++) {
    const txs: string[] = [];
    const record = (inputs: readonly WalletCoin[]): void => {
      for (const c of inputs) stats.inputs[c.kind]++;
      stats.transactions++;
      stats.fees += FEE;
    };
    const spendable = wallet.spendable(height).filter((c) => c.value >= MIN_SPEND_VALUE);
    // 1. The oldest mature coinbase, split in two outputs of random kinds.
    const coinbase = spendable.filter((c) => c.coinbase).sort((a, b) => a.height! - b.height!)[0];
    if (coinbase) {
      const half = (coinbase.value - FEE) / 2n;
      const tx = wallet.spend([coinbase], [
        { value: half, to: pick(WALLET_KINDS) },
        { value: coinbase.value - FEE - half, to: pick(WALLET_KINDS) },
      ]);
      record([coinbase]);
      stats.coinbaseSpends++;
      txs.push(hex(tx.toBytes()));
      // 2. A chain inside the block: spend that transaction's first output right away.
      if (random() < chainRate) {
        const child = wallet.spendable(height).find((c) => c.outpoint.vout === 0 && bytesEqual(c.outpoint.txid, tx.txid))!;
        record([child]);
        stats.inBlockChains++;
        txs.push(hex(wallet.spend([child], [{ value: child.value - FEE, to: pick(WALLET_KINDS) }]).toBytes()));
      }
    }
    // 3. Earlier confirmed outputs merged into one or two new ones: always when no coinbase was spent, so every block after maturity has a transaction.
    const earlier = spendable.filter((c) => !c.coinbase && c.height !== null && c.height < height);
    if (earlierInputs > 0 && earlier.length >= earlierInputs && (!coinbase || random() < earlierRate)) {
      const inputs: WalletCoin[] = [];
      for (let guard = 0; inputs.length < earlierInputs && guard < 1000; guard++) {
        const c = pick(earlier);
        if (!inputs.includes(c)) inputs.push(c);
      }
      const total = inputs.reduce((a, c) => a + c.value, 0n) - FEE;
      const outputs = random() < 0.5 ? [{ value: total, to: pick(WALLET_KINDS) }] : [{ value: total / 3n, to: pick(WALLET_KINDS) }, { value: total - total / 3n, to: pick(WALLET_KINDS) }];
      record(inputs);
      txs.push(hex(wallet.spend(inputs, outputs).toBytes()));
    }
    if (txs.length > 0) stats.blocksWithTransactions.push(height);
    const hash = await mineBlock(node, wallet, height, txs);
    stats.hashes.push(hash);
    stats.blocks++;
  }
  return stats;
}

/** One block with `txs` at `height`; the coinbase pays the wallet (a rotating kind) except every fourth block. */
async function mineBlock(node: RpcNode, wallet: TestWallet, height: number, txs: readonly string[]): Promise<string> {
  if (height % 4 === 3) {
    const { hash } = await node.call<{ hash: string }>('generateblock', [FOREIGN_ADDRESS, txs]);
    wallet.confirmBuilt(height);
    return hash;
  }
  // Four blocks per kind in turn: every kind gets coinbases (height % 4 alone would leave one kind to the foreign blocks).
  const kind = WALLET_KINDS[(height >> 2) % WALLET_KINDS.length]!;
  const made = await node.call<{ hash: string; hex: string }>('generateblock', [wallet.address(kind), txs, false]);
  const result = await node.call<string | null>('submitblock', [made.hex]);
  if (result !== null) throw new Error(`submitblock of a generated block at height ${height} answered ${JSON.stringify(result)}`);
  wallet.processBlock(parseBlock(fromHex(made.hex)), height);
  return made.hash;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
