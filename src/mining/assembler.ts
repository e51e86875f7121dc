/**
 * Block templates (Core's BlockAssembler::CreateNewBlock): the coinbase, the chosen
 * transactions, the version from versionbits, the time from UpdateTime (median-time-past
 * + 1 and the timewarp bound, or now), the required difficulty, and the witness
 * commitment once segwit is active.
 */
import { blockSubsidy, computeBlockVersion, deploymentActiveAfter, getNextWorkRequired } from '../consensus/index.js';
import { BlockHeader, blockMerkleRoot, type Block, type Transaction } from '../primitives/index.js';
import type { Chainstate } from '../chain/index.js';
import { DEFAULT_BLOCK_RESERVED_WEIGHT, recordAssembly } from './assembly-stats.js';
import { minimumBlockTime } from './block-time.js';
import { createCoinbase } from './coinbase.js';
import { addWitnessCommitment } from './witness-commitment.js';

export interface TemplateTransaction {
  tx: Transaction;
  fee: bigint;
  /** Sigop cost (segwit units), when the assembler knows it (mempool selections). */
  sigopsCost?: number;
}

/** Transactions chosen from the mempool, with the weight counted while choosing them (reserved weight included). */
export interface MempoolSelection {
  readonly transactions: readonly TemplateTransaction[];
  readonly weight: number;
}

export interface BlockTemplate {
  block: Block;
  height: number;
  fees: bigint;
}

export interface TemplateOptions {
  /** Overrides the versionbits version (regtest's -blockversion). */
  version?: number;
  /** The transactions came from the mempool: getmininginfo reports this selection. */
  selection?: MempoolSelection;
}

export function createBlockTemplate(
  chain: Chainstate,
  payoutScript: Uint8Array,
  transactions: readonly TemplateTransaction[] = [],
  options: TemplateOptions = {},
): BlockTemplate {
  const tip = chain.tip;
  if (!tip) throw new Error('no active chain tip');
  const params = chain.params;
  const height = tip.height + 1;
  const time = Math.max(minimumBlockTime(tip, params.difficultyAdjustmentInterval), chain.now());
  const fees = transactions.reduce((sum, t) => sum + t.fee, 0n);
  const coinbase = createCoinbase(height, payoutScript, blockSubsidy(height, params) + fees);
  const header = new BlockHeader({
    version: options.version ?? computeBlockVersion(tip, params, chain.versionBits),
    prevHash: tip.hash,
    merkleRoot: new Uint8Array(32),
    time,
    bits: getNextWorkRequired(tip, time, params),
    nonce: 0,
  });
  let txs: Transaction[] = [coinbase, ...transactions.map((t) => t.tx)];
  if (deploymentActiveAfter(tip, params, 'segwit')) txs = addWitnessCommitment({ header, transactions: txs });
  const merkleRoot = blockMerkleRoot({ header, transactions: txs }).root;
  const block: Block = { header: new BlockHeader({ ...header, merkleRoot }), transactions: txs };
  // Transactions given by the caller (generateblock) are added after assembly in Core:
  // nothing was selected from the mempool, so only the reserved weight counts.
  const selection = options.selection;
  recordAssembly(chain, selection ? { weight: selection.weight, txCount: selection.transactions.length } : { weight: DEFAULT_BLOCK_RESERVED_WEIGHT, txCount: 0 });
  return { block, height, fees };
}
