/**
 * WebSocket push (-websocket, beyond Core): the coordinator's side. Turns the chain's and
 * the pool's events into numbered JSON events (push-journal.ts) that the front-ends hand
 * to their /ws subscribers:
 *   block     {event: "connected"|"disconnected", hash, height, prev, time, tx_count}
 *   tip       {hash, height}                      (each new tip, after its blocks)
 *   mempool   {event: "added", txid, wtxid, fee, vsize} | {event: "removed", txid, reason}
 *   sequence  {hash, label: C|D|A|R, mempool_sequence?}   (ZMQ's sequence topic as JSON)
 *   address   {address, txid, event: "mempool"|"confirmed"|"disconnected", height?}
 * Address activity names the addresses a transaction pays or spends from (its outputs,
 * and the outputs its inputs spend, read from the block's undo data or the pool entry).
 */
import type { BlockIndexEntry } from '../chain/index.js';
import type { MempoolEntry, PoolTransactionAdded } from '../mempool/index.js';
import { hashToHex, type ParsedBlock, type Transaction, type TxOut } from '../primitives/index.js';
import { encodeAddress } from '../script/index.js';
import type { ChainstateService } from './chainstate-service.js';
import type { NodeConfig } from './config.js';
import type { PushJournal } from './push-journal.js';
import type { NodeContext, NodeService } from './services.js';

export class PushService implements NodeService {
  readonly name = 'push';

  constructor(
    private readonly config: NodeConfig,
    private readonly chainstate: ChainstateService,
  ) {}

  async start(ctx: NodeContext): Promise<void> {
    const journal = ctx.pushJournal;
    if (!journal) return;
    this.chainstate.chainListeners.push({
      blockConnected: (block, entry) => this.block(journal, block, entry, 'connected'),
      blockDisconnected: (block, entry) => this.block(journal, block, entry, 'disconnected'),
      updatedBlockTip: (tip) => journal.add('tip', { hash: tip.hashHex, height: tip.height }),
    });
    this.chainstate.nodeMempool?.eventListeners.push({
      transactionAdded: (event) => this.added(journal, event),
      transactionRemoved: (entry) => this.removed(journal, entry, 'replaced-or-conflicted'),
      removedForBlock: (confirmed) => {
        for (const entry of confirmed) journal.add('mempool', { event: 'removed', txid: entry.txid, reason: 'block' });
      },
    });
  }

  private addressesOf(tx: Transaction, spent: readonly (TxOut | undefined)[]): Set<string> {
    const chain = this.config.chain;
    const out = new Set<string>();
    for (const output of [...tx.outputs, ...spent]) {
      const address = output && encodeAddress(output.scriptPubKey, chain);
      if (address) out.add(address);
    }
    return out;
  }

  private block(journal: PushJournal, block: ParsedBlock, entry: BlockIndexEntry, event: 'connected' | 'disconnected'): void {
    journal.add('block', { event, hash: entry.hashHex, height: entry.height, prev: entry.prev?.hashHex ?? null, time: entry.header.time, tx_count: block.transactions.length });
    journal.add('sequence', { hash: entry.hashHex, label: event === 'connected' ? 'C' : 'D' });
    const undo = entry.height > 0 ? this.chainstate.chainstate?.readUndo(entry) : undefined;
    const activity = event === 'connected' ? 'confirmed' : 'disconnected';
    block.transactions.forEach((tx, i) => {
      const spent = i > 0 ? (undo?.[i - 1]?.map((coin) => coin.output) ?? []) : [];
      for (const address of this.addressesOf(tx, spent)) journal.add(`address:${address}`, { address, txid: tx.txidHex, event: activity, height: entry.height });
    });
  }

  private added(journal: PushJournal, event: PoolTransactionAdded): void {
    const entry = event.entry;
    journal.add('mempool', { event: 'added', txid: entry.txid, wtxid: entry.tx.wtxidHex, fee: Number(entry.fee), vsize: entry.vsize });
    journal.add('sequence', { hash: entry.txid, label: 'A', mempool_sequence: event.mempoolSequence });
    for (const address of this.addressesOf(entry.tx, entry.spentOutputs)) journal.add(`address:${address}`, { address, txid: entry.txid, event: 'mempool' });
  }

  private removed(journal: PushJournal, entry: MempoolEntry, reason: string): void {
    journal.add('mempool', { event: 'removed', txid: entry.txid, reason });
    journal.add('sequence', { hash: hashToHex(entry.tx.txid), label: 'R', mempool_sequence: entry.removalSequence ?? 0 });
  }

  async stop(): Promise<void> {}
}
