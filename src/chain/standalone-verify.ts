/**
 * Validates one block against the coins it spends, without a chain: what
 * `tsbtcd-bench verify-block` measures. Every context-free rule, every input's coin and
 * amounts, fees against the coinbase, sigop cost and every script run exactly as in
 * ConnectBlock. Rules that need chain context the prevouts file may lack (coinbase
 * maturity without heights, time-based sequence locks without median times) are skipped
 * and reported as skipped, never silently.
 */
import {
  blockScriptFlags,
  blockSubsidy,
  buriedDeploymentActive,
  checkBlock,
  contextualCheckBlock,
  checkTxInputs,
  MAX_BLOCK_SIGOPS_COST,
  moneyRange,
  type ChainParams,
  type Coin,
  type IndexedHeader,
} from '../consensus/index.js';
import { fromHex, hashToHex, type Block, type TxOut } from '../primitives/index.js';
import { decodeScriptNum, isUnspendable, readOp, SCRIPT_ERROR_MESSAGES, SEQUENCE_LOCKTIME_DISABLE_FLAG, transactionSigOpCost } from '../script/index.js';
import type { ScriptChecker } from './chainstate.js';
import type { ScriptJob } from './connect-block.js';

/** One entry of a prevouts file (the format of test/vectors/data/block277647-prevouts.json). */
export interface PrevoutRecord {
  tx: number;
  input: number;
  txid: string;
  vout: number;
  value: number | string;
  scriptPubKey: string;
  height?: number | null;
  coinbase?: boolean | null;
}

export interface StandaloneVerdict {
  valid: boolean;
  error: string | null;
  /** Non-coinbase inputs whose scripts were checked. */
  inputs: number;
  height: number | null;
  /** Rules not applied, and why. */
  skipped: string[];
}

/** The BIP34 height in a coinbase scriptSig, when it starts with a number push. */
export function coinbaseHeight(block: Block): number | null {
  const scriptSig = block.transactions[0]?.inputs[0]?.scriptSig;
  if (!scriptSig || scriptSig.length === 0) return null;
  const op = readOp(scriptSig, 0);
  if (!op) return null;
  if (op.opcode >= 0x51 && op.opcode <= 0x60) return op.opcode - 0x50;
  if (!op.data || op.data.length === 0 || op.data.length > 5) return null;
  try {
    const height = decodeScriptNum(op.data, false, 5);
    return height >= 0 ? height : null;
  } catch {
    return null;
  }
}

/** A stand-in index entry: script flags depend only on the height and hash. */
function headerAt(block: Block, height: number): IndexedHeader {
  const h = block.header;
  const self: IndexedHeader = {
    hash: h.hash,
    height,
    version: h.version,
    time: h.time,
    bits: h.bits,
    prev: undefined,
    ancestor: (at: number) => (at === height ? self : undefined),
    medianTimePast: () => h.time,
  };
  return self;
}

function fail(error: string, inputs: number, height: number | null, skipped: string[]): StandaloneVerdict {
  return { valid: false, error, inputs, height, skipped };
}

export async function verifyBlockStandalone(
  block: Block,
  prevouts: readonly PrevoutRecord[],
  params: ChainParams,
  scripts: ScriptChecker,
  heightOverride?: number,
): Promise<StandaloneVerdict> {
  const skipped: string[] = [];
  const height = heightOverride ?? coinbaseHeight(block);
  const context = checkBlock(block, params);
  if (!context.ok) return fail(context.reason, 0, height, skipped);
  if (height === null) {
    skipped.push('contextual block checks (BIP34 height, witness commitment, finality, weight): height unknown');
  } else {
    // The parent is known only by height: its median time past is not, so BIP113's cutoff
    // uses this block's own time (which is never earlier) once CSV is active.
    const parent = height > 0 ? headerAt(block, height - 1) : undefined;
    const contextual = contextualCheckBlock(block, parent, params);
    if (!contextual.ok) return fail(contextual.reason, 0, height, skipped);
    if (buriedDeploymentActive(height, params, 'csv')) skipped.push('BIP113 median-time-past cutoff: the block’s own time was used (parent times unknown)');
  }

  const byInput = new Map<string, PrevoutRecord>();
  for (const p of prevouts) byInput.set(`${p.tx}:${p.input}`, p);

  // Coins created inside the block are spendable by later transactions of the block.
  const created = new Map<string, Coin>();
  const blockHeight = height ?? 0;
  let unknownMaturity = false;
  let fees = 0n;
  let sigOpsCost = 0;
  let inputs = 0;
  // Unknown height: the rules in force today, the strictest set.
  const flags = blockScriptFlags(headerAt(block, height ?? Number.MAX_SAFE_INTEGER), params);
  if (height === null) skipped.push('height unknown (no BIP34 height in the coinbase): script flags of the latest rules, no subsidy check');
  const jobs: ScriptJob[] = [];

  for (let t = 0; t < block.transactions.length; t++) {
    const tx = block.transactions[t]!;
    const coinbase = t === 0;
    const coins: Coin[] = [];
    if (!coinbase) {
      for (let i = 0; i < tx.inputs.length; i++) {
        const prevout = tx.inputs[i]!.prevout;
        const key = `${hashToHex(prevout.txid)}:${prevout.vout}`;
        const inBlock = created.get(key);
        const record = byInput.get(`${t}:${i}`);
        if (inBlock) {
          created.delete(key);
          coins.push(inBlock);
          continue;
        }
        if (!record || record.txid !== hashToHex(prevout.txid) || record.vout !== prevout.vout) {
          return fail('bad-txns-inputs-missingorspent', inputs, height, skipped);
        }
        const known = typeof record.height === 'number' && typeof record.coinbase === 'boolean';
        if (!known) unknownMaturity = true;
        const output: TxOut = { value: BigInt(record.value), scriptPubKey: fromHex(record.scriptPubKey) };
        // Without the creating height and coinbase flag, maturity cannot be judged: treat as mature.
        coins.push({ output, height: known ? (record.height as number) : 0, coinbase: known ? (record.coinbase as boolean) : false });
      }
      const check = checkTxInputs(tx, coins, blockHeight);
      if (!check.ok) return fail(check.reason, inputs, height, skipped);
      fees += check.fee;
      if (!moneyRange(fees)) return fail('bad-txns-accumulated-fee-outofrange', inputs, height, skipped);
    }
    const spentOutputs = coins.map((c) => c.output);
    sigOpsCost += transactionSigOpCost(tx, spentOutputs, flags);
    if (sigOpsCost > MAX_BLOCK_SIGOPS_COST) return fail('bad-blk-sigops', inputs, height, skipped);
    if (!coinbase) {
      jobs.push({ tx, spentOutputs, flags });
      inputs += tx.inputs.length;
    }
    tx.outputs.forEach((output, vout) => {
      if (!isUnspendable(output.scriptPubKey)) created.set(`${tx.txidHex}:${vout}`, { output, height: blockHeight, coinbase });
    });
  }
  if (unknownMaturity) skipped.push('coinbase maturity: some prevouts lack height or coinbase');
  // BIP68 applies from CSV activation to version ≥ 2 transactions with enabled relative locks.
  const csvActive = height === null || buriedDeploymentActive(height, params, 'csv');
  const relativeLocks = block.transactions.some(
    (tx) => !tx.isCoinbase() && tx.version >= 2 && tx.inputs.some((input) => (input.sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) === 0),
  );
  if (csvActive && relativeLocks) skipped.push('sequence locks (BIP68): need the chain’s median times past');

  if (height !== null) {
    const reward = fees + blockSubsidy(height, params);
    const paid = block.transactions[0]!.outputs.reduce((sum, out) => sum + out.value, 0n);
    if (paid > reward) return fail('bad-cb-amount', inputs, height, skipped);
  }

  const verdict = await scripts.verify(jobs);
  if (!verdict.ok) {
    if (!verdict.consensus) throw new Error(`script checks did not complete: ${verdict.detail}`);
    const job = jobs[verdict.txIndex]!;
    const tIndex = block.transactions.indexOf(job.tx);
    return fail(
      `block-script-verify-flag-failed (${SCRIPT_ERROR_MESSAGES[verdict.error]}), tx ${tIndex} input ${verdict.inputIndex}`,
      inputs,
      height,
      skipped,
    );
  }
  return { valid: true, error: null, inputs, height, skipped };
}
