/**
 * -coinstatsindex (Core's CoinStatsIndex): per block, the UTXO set's statistics after it —
 * outputs, bogosize, total amount, the MuHash3072 of the set — and the running totals
 * gettxoutsetinfo turns into block_info (spent prevouts, coinbase and other new outputs,
 * unspendable amounts by cause). Each block's record is written from its parent's with the
 * block's created outputs and its undo data's spent ones, as CustomAppend does: outputs
 * with unspendable scripts and the duplicate BIP30 coinbases stay out of the set, the
 * genesis subsidy and unclaimed rewards count as unspendable. Records are keyed by block
 * hash and carry the running MuHash state, so a reorg moves the index back to the fork by
 * reading the fork's record (BaseIndex's rewind) instead of reversing blocks.
 */
import { blockSubsidy, type Coin } from '../consensus/index.js';
import { hashToHex, MuHash3072, type ParsedBlock } from '../primitives/index.js';
import { isUnspendable } from '../script/index.js';
import { INDEXES_META, type CoinStatsRecord, type IndexesEnv, type IndexesWriter } from '../storage/index.js';
import { BaseIndex, openIndex } from './base-index.js';
import { coinStatsIndexView, type CoinStatsIndexView } from './coinstats-view.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';
import { bogoSize, serializeCoinRecord } from './utxo-stats.js';

/** Core's index name (BaseIndex::GetName). */
export const COINSTATS_INDEX_NAME = 'coinstatsindex';

/** The two mainnet coinbases that duplicate earlier ones (BIP30): their outputs never entered the set. */
const BIP30_UNSPENDABLE: ReadonlyMap<number, string> = new Map([
  [91842, '00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec'],
  [91880, '00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721'],
]);

function emptyRecord(): CoinStatsRecord {
  return {
    height: -1,
    txouts: 0n,
    bogosize: 0n,
    totalAmount: 0n,
    totalSubsidy: 0n,
    totalUnspendable: 0n,
    prevoutSpent: 0n,
    newOutputsExCoinbase: 0n,
    coinbase: 0n,
    unspendableGenesis: 0n,
    unspendableBip30: 0n,
    unspendableScripts: 0n,
    unspendableUnclaimed: 0n,
    muhashState: new MuHash3072().serialize(),
  };
}

export class CoinStatsIndex extends BaseIndex<CoinStatsRecord> {
  readonly view: CoinStatsIndexView;

  private constructor(env: IndexesEnv, chain: Chainstate, log: (m: string) => void, logError: (m: string) => void) {
    super(env, chain, { name: COINSTATS_INDEX_NAME, bestBlockField: INDEXES_META.coinStatsBest, syncBatch: 100, allowPrune: true, log, logError });
    this.view = coinStatsIndexView(env, () => this.info());
    this.loadBest();
  }

  /** Opens the index in `<netdir>/indexes`; `wipe` (-reindex) starts it over. */
  static open(netdir: string, chain: Chainstate, log: (m: string) => void, options: { wipe?: boolean; logError?: (m: string) => void } = {}): CoinStatsIndex {
    const clear = (w: IndexesWriter) => {
      w.clear('coinstats');
      w.deleteMeta(INDEXES_META.coinStatsBest);
    };
    return openIndex(netdir, options.wipe, clear, (env) => new CoinStatsIndex(env, chain, log, options.logError ?? log));
  }

  protected override tipStateAt(entry: BlockIndexEntry | undefined): CoinStatsRecord {
    if (!entry) return emptyRecord();
    const record = this.env.withSnapshot((r) => r.coinStats(entry.hash));
    if (!record) throw new Error(`Cannot read current ${COINSTATS_INDEX_NAME} state; index may be corrupted`);
    return record;
  }

  protected override appendBlock(w: IndexesWriter, block: ParsedBlock, entry: BlockIndexEntry, parent: CoinStatsRecord): CoinStatsRecord {
    const next: CoinStatsRecord = { ...parent, height: entry.height };
    const muhash = MuHash3072.deserialize(parent.muhashState);
    const subsidy = blockSubsidy(entry.height, this.chain.params);
    next.totalSubsidy += subsidy;
    if (entry.height > 0) {
      const undo = this.chain.readUndo(entry);
      if (!undo) throw new Error(`no undo data for block ${entry.hashHex}`);
      const bip30 = BIP30_UNSPENDABLE.get(entry.height) === entry.hashHex && this.chain.params.name === 'main';
      block.transactions.forEach((tx, i) => {
        const coinbase = i === 0;
        if (coinbase && bip30) {
          const value = tx.outputs.reduce((s, o) => s + o.value, 0n);
          next.unspendableBip30 += value;
          next.totalUnspendable += value;
          return;
        }
        tx.outputs.forEach((output, vout) => {
          if (isUnspendable(output.scriptPubKey)) {
            next.totalUnspendable += output.value;
            next.unspendableScripts += output.value;
            return;
          }
          const coin: Coin = { output, height: entry.height, coinbase };
          muhash.insert(serializeCoinRecord({ txid: tx.txid, vout }, coin));
          if (coinbase) next.coinbase += output.value;
          else next.newOutputsExCoinbase += output.value;
          next.txouts++;
          next.totalAmount += output.value;
          next.bogosize += BigInt(bogoSize(coin));
        });
        if (coinbase) return;
        const spent = undo[i - 1];
        if (!spent) throw new Error(`undo data of block ${entry.hashHex} lacks transaction ${hashToHex(tx.txid)}`);
        spent.forEach((coin, j) => {
          muhash.remove(serializeCoinRecord(tx.inputs[j]!.prevout, coin));
          next.prevoutSpent += coin.output.value;
          next.txouts--;
          next.totalAmount -= coin.output.value;
          next.bogosize -= BigInt(bogoSize(coin));
        });
      });
    } else {
      next.totalUnspendable += subsidy;
      next.unspendableGenesis += subsidy;
    }
    // Spent prevouts and subsidies beyond what new outputs, coinbases and unspendables
    // account for were not claimed by the miner: unspendable too.
    const unclaimed = next.prevoutSpent + next.totalSubsidy - (next.newOutputsExCoinbase + next.coinbase + next.totalUnspendable);
    next.totalUnspendable += unclaimed;
    next.unspendableUnclaimed += unclaimed;
    next.muhashState = muhash.serialize();
    w.putCoinStats(entry.hash, next);
    return next;
  }
}
