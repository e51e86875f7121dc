/**
 * rpc_getblockstats.json: Core's own getblockstats expectations for heights 101–103 of a
 * 104-block regtest chain. The chain is replayed in memory (a plain UTXO map) to get each
 * block's undo data and median time past, then every statistic is compared.
 *
 * The file is Core master's (58a7869f), which counts 40 bytes of overhead per UTXO since
 * PR #31449; v31.0 counts 41 (the default of computeBlockStats). The suite therefore runs
 * with PER_UTXO_OVERHEAD_PACKED; test/unit/rpc-format-blockstats.test.ts checks that 41
 * changes exactly utxo_size_inc and utxo_size_inc_actual and nothing else.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Coin } from '../../../src/consensus/index.js';
import { selectParams } from '../../../src/consensus/index.js';
import { bytesEqual, fromHex, hashToHex, parseBlock, type ParsedBlock } from '../../../src/primitives/index.js';
import { BLOCK_STAT_NAMES, computeBlockStats, PER_UTXO_OVERHEAD_PACKED, type BlockStats, type SpentCoins } from '../../../src/rpc/format/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

const FILE = 'rpc_getblockstats.json';

interface StatsVectors {
  blocks: string[];
  mocktime: number;
  stats: Record<string, unknown>[];
}

/** One block of the replayed chain with what getblockstats needs besides the block. */
export interface ReplayedBlock {
  block: ParsedBlock;
  height: number;
  undo: SpentCoins[];
  medianTimePast: number;
}

/**
 * Connects `blocks` (genesis first) to an in-memory UTXO map, recording for each block
 * the coins its transactions spent and its median time past. Throws when a block does
 * not extend the previous one or spends a coin that does not exist.
 */
export function replayChain(blocks: readonly ParsedBlock[]): ReplayedBlock[] {
  const utxos = new Map<string, Coin>();
  const times: number[] = [];
  return blocks.map((block, height) => {
    if (height > 0 && !bytesEqual(block.header.prevHash, blocks[height - 1]!.header.hash)) {
      throw new Error(`block ${height} does not extend block ${height - 1}`);
    }
    const undo: SpentCoins[] = [];
    block.transactions.forEach((tx, i) => {
      if (i > 0) {
        undo.push(
          tx.inputs.map((input) => {
            const key = `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`;
            const coin = utxos.get(key);
            if (!coin) throw new Error(`block ${height} tx ${i} spends missing ${key}`);
            utxos.delete(key);
            return coin;
          }),
        );
      }
      tx.outputs.forEach((output, n) => utxos.set(`${tx.txidHex}:${n}`, { output, height, coinbase: i === 0 }));
    });
    times.push(block.header.time);
    const window = times.slice(-11).sort((a, b) => a - b);
    return { block, height, undo, medianTimePast: window[Math.floor(window.length / 2)]! };
  });
}

export function loadStatsVectors(): { chain: ReplayedBlock[]; expected: Record<string, unknown>[] } {
  const data = readVectorJson<StatsVectors>(FILE);
  const chain = replayChain(data.blocks.map((hex) => parseBlock(fromHex(hex))));
  return { chain, expected: data.stats };
}

export function statsAt(entry: ReplayedBlock, perUtxoOverhead?: number): BlockStats {
  const params = selectParams('regtest');
  return computeBlockStats({ block: entry.block, undo: entry.undo, height: entry.height, medianTimePast: entry.medianTimePast, params }, { perUtxoOverhead });
}

export const suite: VectorSuite = {
  file: FILE,
  run() {
    const tally = new Tally();
    const { chain, expected } = loadStatsVectors();
    for (const want of expected) {
      const height = want.height as number;
      const entry = chain[height];
      tally.check(entry !== undefined, () => `height ${height}: not in the file's chain`);
      if (!entry) continue;
      const got = statsAt(entry, PER_UTXO_OVERHEAD_PACKED) as unknown as Record<string, unknown>;
      tally.check(
        isDeepStrictEqual(Object.keys(want).sort(), [...BLOCK_STAT_NAMES].sort()),
        () => `height ${height}: the file's stats are ${Object.keys(want).join(',')}`,
      );
      for (const name of Object.keys(want)) {
        tally.check(isDeepStrictEqual(got[name], want[name]), () => `height ${height} ${name}: got ${JSON.stringify(got[name])}, want ${JSON.stringify(want[name])}`);
      }
    }
    return tally;
  },
};
