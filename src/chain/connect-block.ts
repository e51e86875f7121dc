/**
 * Connecting and disconnecting a block's transactions against a UTXO view (Core's
 * ConnectBlock and DisconnectBlock). Everything here is synchronous and pure over the
 * view; the script checks are returned as jobs for the worker pool, because signature
 * checking is the whole cost of validation and runs in parallel off this thread.
 */
import {
  bip30CheckRequired,
  blockScriptFlags,
  isBIP30Unspendable,
  blockSubsidy,
  checkTxInputs,
  moneyRange,
  MAX_BLOCK_SIGOPS_COST,
  sequenceLocks,
  LOCKTIME_VERIFY_SEQUENCE,
  type ChainParams,
  type Coin,
} from '../consensus/index.js';
import { type Block, type Transaction, type TxOut } from '../primitives/index.js';
import { isUnspendable, transactionSigOpCost } from '../script/index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { BlockUndo } from './block-undo.js';
import type { CoinsCache } from './coins-view.js';

/** The script checks a block needs, one job per transaction (the coinbase's is empty). */
export interface ScriptJob {
  tx: Transaction;
  spentOutputs: readonly TxOut[];
  flags: number;
}

export type ConnectOutcome =
  | { ok: true; undo: BlockUndo; fees: bigint; scriptJobs: ScriptJob[] | null; sigOpsCost: number }
  | { ok: false; reason: string; debug?: string };

/** Core's AddCoins: every spendable output of `tx` becomes a coin at `height`. */
export function addTransactionCoins(view: CoinsCache, tx: Transaction, height: number, checkForOverwrite: boolean): void {
  const coinbase = tx.isCoinbase();
  const txid = tx.txid;
  tx.outputs.forEach((output, vout) => {
    if (isUnspendable(output.scriptPubKey)) return;
    const outpoint = { txid, vout };
    // Coinbases may overwrite: the pre-BIP30 duplicate coinbases must connect.
    const overwrite = checkForOverwrite ? view.haveCoin(outpoint) : coinbase;
    // The script is copied: a parsed output's script is a view into its block's buffer, and
    // a cached coin would pin the whole block (every coinbase output did, for every block
    // an import read) while -dbcache counted only the script's bytes.
    view.addCoin(outpoint, { output: { value: output.value, scriptPubKey: output.scriptPubKey.slice() }, height, coinbase }, overwrite);
  });
}

/**
 * Applies `block` (whose index entry is `entry`) to `view`. Returns the undo data, fees and
 * the script jobs to run, or the consensus failure. `checkScripts` false is assumevalid.
 */
export function connectBlockTransactions(
  block: Block,
  entry: BlockIndexEntry,
  view: CoinsCache,
  params: ChainParams,
  checkScripts: boolean,
): ConnectOutcome {
  if (entry.height === 0) return { ok: true, undo: [], fees: 0n, scriptJobs: null, sigOpsCost: 0 };

  if (bip30CheckRequired(entry, params)) {
    for (const tx of block.transactions) {
      const txid = tx.txid;
      for (let vout = 0; vout < tx.outputs.length; vout++) {
        if (view.haveCoin({ txid, vout })) return { ok: false, reason: 'bad-txns-BIP30', debug: 'tried to overwrite transaction' };
      }
    }
  }

  const lockTimeFlags = entry.height >= params.csvHeight ? LOCKTIME_VERIFY_SEQUENCE : 0;
  const flags = blockScriptFlags(entry, params);
  const undo: BlockUndo = [];
  const scriptJobs: ScriptJob[] = [];
  let fees = 0n;
  let sigOpsCost = 0;

  for (const tx of block.transactions) {
    const coinbase = tx.isCoinbase();
    let spentCoins: Coin[] = [];
    if (!coinbase) {
      const found: (Coin | undefined)[] = tx.inputs.map((input) => view.getCoin(input.prevout));
      const inputs = checkTxInputs(tx, found, entry.height);
      if (!inputs.ok) return { ok: false, reason: inputs.reason, debug: inputs.debug };
      spentCoins = found as Coin[];
      fees += inputs.fee;
      if (!moneyRange(fees)) return { ok: false, reason: 'bad-txns-accumulated-fee-outofrange', debug: 'accumulated fee in the block out of range' };
      const prevHeights = spentCoins.map((coin) => coin.height);
      if (!sequenceLocks(tx, lockTimeFlags, prevHeights, entry)) {
        return { ok: false, reason: 'bad-txns-nonfinal', debug: 'contains a non-BIP68-final transaction' };
      }
    }

    const spentOutputs = spentCoins.map((coin) => coin.output);
    sigOpsCost += transactionSigOpCost(tx, spentOutputs, flags);
    if (sigOpsCost > MAX_BLOCK_SIGOPS_COST) return { ok: false, reason: 'bad-blk-sigops', debug: 'too many sigops' };

    if (!coinbase) {
      if (checkScripts) scriptJobs.push({ tx, spentOutputs, flags });
      for (const input of tx.inputs) view.spendCoin(input.prevout);
      undo.push(spentCoins);
    }
    addTransactionCoins(view, tx, entry.height, false);
  }

  const reward = fees + blockSubsidy(entry.height, params);
  const coinbaseOut = block.transactions[0]!.outputs.reduce((sum, out) => sum + out.value, 0n);
  if (coinbaseOut > reward) {
    return { ok: false, reason: 'bad-cb-amount', debug: `coinbase pays too much (actual=${coinbaseOut} vs limit=${reward})` };
  }
  return { ok: true, undo, fees, scriptJobs: checkScripts ? scriptJobs : null, sigOpsCost };
}

export type DisconnectOutcome = 'ok' | 'unclean' | 'failed';

function sameOutput(a: TxOut, b: TxOut): boolean {
  if (a.value !== b.value || a.scriptPubKey.length !== b.scriptPubKey.length) return false;
  return a.scriptPubKey.every((byte, i) => byte === b.scriptPubKey[i]);
}

/**
 * Core's DisconnectBlock: removes the block's outputs and restores the coins it spent.
 * 'unclean' means the view did not match the block exactly (tolerated, as Core does,
 * for the BIP30-duplicate coinbases); 'failed' means the undo data does not fit the block.
 */
export function disconnectBlockTransactions(block: Block, entry: BlockIndexEntry, undo: BlockUndo, view: CoinsCache): DisconnectOutcome {
  let clean = true;
  if (undo.length + 1 !== block.transactions.length) return 'failed';
  for (let i = block.transactions.length - 1; i >= 0; i--) {
    const tx = block.transactions[i]!;
    const coinbase = i === 0;
    const unspendableException = coinbase && isBIP30Unspendable(entry.hash, entry.height);
    const txid = tx.txid;
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const coin = view.spendCoin({ txid, vout });
      if (!coin || !sameOutput(coin.output, output) || coin.height !== entry.height || coin.coinbase !== coinbase) {
        if (!unspendableException) clean = false;
      }
    });
    if (i > 0) {
      const spent = undo[i - 1]!;
      if (spent.length !== tx.inputs.length) return 'failed';
      for (let j = tx.inputs.length - 1; j >= 0; j--) {
        const prevout = tx.inputs[j]!.prevout;
        // Core's ApplyTxInUndo: restoring over an existing coin is unclean, and allowed.
        const overwrite = view.haveCoin(prevout);
        if (overwrite) clean = false;
        view.addCoin(prevout, spent[j]!, overwrite);
      }
    }
  }
  return clean ? 'ok' : 'unclean';
}
