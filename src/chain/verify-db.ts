/**
 * verifychain and the start-up check (-checkblocks, -checklevel), as Core's CVerifyDB:
 * walking back from the tip, level 0 reads each block, 1 runs CheckBlock, 2 reads its undo
 * data, 3 disconnects it in a throwaway coins view (catching undo/coins mismatches), and
 * 4 reconnects the disconnected blocks with full validation. Nothing is written.
 */
import { checkBlock } from '../consensus/index.js';
import type { ParsedBlock } from '../primitives/index.js';
import type { BlockIndexEntry } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';
import { CoinsCache } from './coins-view.js';
import { connectBlockTransactions, disconnectBlockTransactions } from './connect-block.js';

export type VerifyDbResult = 'success' | 'corrupted' | 'skipped-l3' | 'skipped-missing-blocks';

export const DEFAULT_CHECKBLOCKS = 6;
export const DEFAULT_CHECKLEVEL = 3;

export async function verifyDb(chain: Chainstate, checkLevel: number, checkDepth: number, log: (m: string) => void): Promise<VerifyDbResult> {
  const tip = chain.tip;
  if (!tip || !tip.prev) return 'success';
  const height = chain.chain.height;
  const depth = checkDepth <= 0 || checkDepth > height ? height : checkDepth;
  const level = Math.max(0, Math.min(4, checkLevel));
  log(`Verifying last ${depth} blocks at level ${level}`);
  const coins = new CoinsCache(chain.coins);
  let failure: BlockIndexEntry | undefined;
  let goodTransactions = 0;
  let skippedNoData = false;
  let skippedL3 = false;
  let entry: BlockIndexEntry | undefined = tip;
  for (; entry && entry.prev; entry = entry.prev) {
    if (entry.height <= height - depth) break;
    if (chain.pruneMode !== 'off' && !entry.hasData) {
      log(`VerifyDB(): block verification stopping at height ${entry.height} (no data). This could be due to pruning or use of an assumeutxo snapshot.`);
      skippedNoData = true;
      break;
    }
    let block: ParsedBlock;
    try {
      block = chain.readBlock(entry);
    } catch {
      log(`Verification error: ReadBlock failed at ${entry.height}, hash=${entry.hashHex}`);
      return 'corrupted';
    }
    if (level >= 1) {
      const check = checkBlock(block, chain.params);
      if (!check.ok) {
        log(`Verification error: found bad block at ${entry.height}, hash=${entry.hashHex} (${check.reason})`);
        return 'corrupted';
      }
    }
    const undo = level >= 2 ? chain.readUndo(entry) : undefined;
    if (level >= 2 && !undo) {
      log(`Verification error: found bad undo data at ${entry.height}, hash=${entry.hashHex}`);
      return 'corrupted';
    }
    if (level >= 3) {
      if (coins.memoryUsage + chain.coins.memoryUsage <= chain.coinsCacheBytes) {
        const result = disconnectBlockTransactions(block, entry, undo!, coins);
        if (result === 'failed') {
          log(`Verification error: irrecoverable inconsistency in block data at ${entry.height}, hash=${entry.hashHex}`);
          return 'corrupted';
        }
        if (result === 'unclean') {
          goodTransactions = 0;
          failure = entry;
        } else {
          goodTransactions += block.transactions.length;
        }
      } else {
        skippedL3 = true;
      }
    }
  }
  if (failure) {
    log(`Verification error: coin database inconsistencies found (last ${height - failure.height} blocks, ${goodTransactions} good transactions before that)`);
    return 'corrupted';
  }
  if (skippedL3) log('Skipped verification of level >=3 (insufficient database cache size). Consider increasing -dbcache.');
  const blockCount = height - (entry?.height ?? 0);
  if (level >= 4 && !skippedL3) {
    for (let next = entry ? chain.chain.next(entry) : undefined; next; next = chain.chain.next(next)) {
      let block: ParsedBlock;
      try {
        block = chain.readBlock(next);
      } catch {
        log(`Verification error: ReadBlock failed at ${next.height}, hash=${next.hashHex}`);
        return 'corrupted';
      }
      const outcome = connectBlockTransactions(block, next, coins, chain.params, true);
      const scripts = outcome.ok && outcome.scriptJobs?.length ? await chain.scriptChecker.verify(outcome.scriptJobs) : { ok: true };
      if (!outcome.ok || !scripts.ok) {
        log(`Verification error: found unconnectable block at ${next.height}, hash=${next.hashHex} (${outcome.ok ? 'scripts' : outcome.reason})`);
        return 'corrupted';
      }
    }
  }
  log(`Verification: No coin database inconsistencies in last ${blockCount} blocks (${goodTransactions} transactions)`);
  if (skippedL3) return 'skipped-l3';
  if (skippedNoData) return 'skipped-missing-blocks';
  return 'success';
}
