/**
 * BIP152 compact block relay (Core's PartiallyDownloadedBlock and the CMPCTBLOCK,
 * GETBLOCKTXN and BLOCKTXN handlers): blocks we announce go out as a header, a nonce and
 * 6-byte short IDs of the transactions' wtxids; blocks announced to us that way are rebuilt
 * from the mempool, and only what is missing is asked for. Up to three peers that give us
 * new blocks first are asked to push them unannounced (high-bandwidth mode).
 */
import { randomBytes } from 'node:crypto';
import type { BlockIndexEntry, Chainstate } from '../chain/index.js';
import { isBlockMutated } from '../consensus/index.js';
import type { NodeMempool } from '../mempool/index.js';
import { hashToHex, type Block, type ParsedBlock, type Transaction } from '../primitives/index.js';
import {
  decodeBlockTransactionsRequest,
  decodeCompactBlock,
  encodeBlockTransactions,
  encodeBlockTransactionsRequest,
  encodeCompactBlock,
  shortIdKey,
  shortTxId,
  type BlockTransactions,
  type CompactBlock,
} from './compact-blocks.js';
import { encodeSendCmpct } from './messages.js';
import type { NetLog } from './peer-manager.js';
import type { Peer } from './peer.js';

/** Core's MAX_BLOCKTXN_DEPTH: deeper blocks are answered with the whole block. */
const MAX_BLOCKTXN_DEPTH = 10;
/** High-bandwidth peers at most (Core keeps three in lNodesAnnouncingHeaderAndIDs). */
const MAX_HIGH_BANDWIDTH_PEERS = 3;
const CMPCTBLOCKS_VERSION = 2n;

export interface CompactRelayOptions {
  readonly chain: Chainstate;
  readonly mempool: NodeMempool | undefined;
  readonly log: NetLog;
  peers(): Iterable<Peer>;
  misbehaving(peer: Peer, reason: string): void;
  /** Core's header handling for an announcement: the entry, or undefined when the peer was dealt with. */
  acceptHeader(peer: Peer, header: Block['header']): Promise<BlockIndexEntry | undefined>;
  processBlock(peer: Peer, block: Block, bytes: Uint8Array | undefined): Promise<void>;
  requestBlock(peer: Peer, entry: BlockIndexEntry): void;
  /** The block arrived (or will be fetched whole): it is no longer in flight as compact. */
  markReceived(hashHex: string): void;
  inFlightFrom(hashHex: string): number | undefined;
  markInFlight(peer: Peer, entry: BlockIndexEntry): void;
  canDirectFetch(): boolean;
}

interface PartialBlock {
  readonly peer: number;
  readonly entry: BlockIndexEntry;
  readonly header: Block['header'];
  /** One slot per transaction; undefined where it is still missing. */
  readonly slots: (Transaction | undefined)[];
}

export class CompactBlockRelay {
  /** Compact blocks being completed, by block hash (hex). */
  readonly #partial = new Map<string, PartialBlock>();
  /** Peer ids we asked for high-bandwidth announcements, oldest first. */
  readonly #highBandwidth: number[] = [];
  /** The compact form of the newest block we announced (Core's m_most_recent_compact_block). */
  #recent: { hashHex: string; message: Uint8Array; block: ParsedBlock } | undefined;

  constructor(private readonly options: CompactRelayOptions) {}

  /** Sends a block's compact form (built once per block). */
  sendCompactBlock(peer: Peer, entry: BlockIndexEntry, block: ParsedBlock): void {
    if (this.#recent?.hashHex !== entry.hashHex) {
      this.#recent = { hashHex: entry.hashHex, message: encodeCompactBlock(buildCompactBlock(block)), block };
    }
    peer.send('cmpctblock', this.#recent.message);
  }

  /** A high-bandwidth announcement of a connected block; false when its data cannot be read. */
  sendCompactBlockFor(peer: Peer, entry: BlockIndexEntry): boolean {
    let block = this.#recent?.hashHex === entry.hashHex ? this.#recent.block : undefined;
    try {
      block ??= this.options.chain.readBlock(entry);
    } catch {
      return false;
    }
    this.sendCompactBlock(peer, entry, block);
    return true;
  }

  getBlockTxnReceived(peer: Peer, payload: Uint8Array): void {
    const request = decodeBlockTransactionsRequest(payload);
    const chain = this.options.chain;
    const entry = chain.tree.getByHash(request.blockHash);
    if (!entry || !entry.hasData) return;
    if (entry.height < chain.chain.height - MAX_BLOCKTXN_DEPTH) {
      // Too deep: answer with the whole block, as Core does.
      peer.send('block', chain.readBlockBytes(entry));
      return;
    }
    const block = this.#recent?.hashHex === entry.hashHex ? this.#recent.block : chain.readBlock(entry);
    const txs: Transaction[] = [];
    for (const index of request.indexes) {
      const tx = block.transactions[index];
      if (!tx) return this.options.misbehaving(peer, 'getblocktxn with out-of-bounds tx indices');
      txs.push(tx);
    }
    peer.send('blocktxn', encodeBlockTransactions({ blockHash: entry.hash, transactions: txs }));
  }

  /** Decodes (throwing on malformed bytes) before anything asynchronous happens. */
  decodeCompactBlock(payload: Uint8Array): CompactBlock {
    return decodeCompactBlock(payload);
  }

  async compactBlockReceived(peer: Peer, compact: CompactBlock, messageBytes: number): Promise<void> {
    const entry = await this.options.acceptHeader(peer, compact.header);
    if (!entry || peer.disconnectReason !== undefined) return;
    const chain = this.options.chain;
    const tip = chain.chain.tip!;
    // Already have it, or it does not beat our tip: nothing to rebuild.
    if (entry.hasData || entry.chainWork <= tip.chainWork) return;
    const holder = this.options.inFlightFrom(entry.hashHex);
    if (holder === undefined && !this.options.canDirectFetch()) return;
    if (entry.height > chain.chain.height + 2) {
      // Far ahead of us: this is sync, not relay; fetch it whole in order.
      return;
    }
    const partial = this.#initPartial(peer, entry, compact);
    if (partial === 'collision') {
      this.options.log.debug('cmpctblock', `Failed to reconstruct block ${entry.hashHex} (short ID collision), requesting full block peer=${peer.id}`);
      this.options.requestBlock(peer, entry);
      return;
    }
    if (partial === 'invalid') return this.options.misbehaving(peer, 'invalid compact block');
    const missing = partial.slots.flatMap((tx, i) => (tx ? [] : [i]));
    if (missing.length === 0) return this.#complete(peer, partial);
    this.#partial.set(entry.hashHex, partial);
    this.options.markInFlight(peer, entry);
    this.options.log.debug('cmpctblock', `Initialized PartiallyDownloadedBlock for block ${entry.hashHex} using a cmpctblock of ${messageBytes} bytes; requesting ${missing.length} transactions peer=${peer.id}`);
    peer.send('getblocktxn', encodeBlockTransactionsRequest({ blockHash: entry.hash, indexes: missing }));
  }

  /** Core's PartiallyDownloadedBlock::InitData with the mempool as the transaction source. */
  #initPartial(peer: Peer, entry: BlockIndexEntry, compact: CompactBlock): PartialBlock | 'collision' | 'invalid' {
    const total = compact.shortIds.length + compact.prefilled.length;
    if (total === 0 || compact.prefilled.some((p) => p.index >= total)) return 'invalid';
    const slots: (Transaction | undefined)[] = new Array(total).fill(undefined);
    for (const p of compact.prefilled) slots[p.index] = p.tx;
    // Short IDs fill the remaining slots in order.
    const slotOfShortId = new Map<bigint, number>();
    let next = 0;
    for (const id of compact.shortIds) {
      while (slots[next] !== undefined) next++;
      if (slotOfShortId.has(id)) return 'collision';
      slotOfShortId.set(id, next++);
    }
    const key = shortIdKey(compact.header, compact.nonce);
    const matched = new Set<number>();
    const pool = this.options.mempool?.pool;
    if (pool) {
      for (const e of pool.entries()) {
        const slot = slotOfShortId.get(shortTxId(key, e.tx.wtxid));
        if (slot === undefined) continue;
        if (matched.has(slot)) {
          // Two pool transactions share the short ID: ask for this one.
          slots[slot] = undefined;
          continue;
        }
        matched.add(slot);
        slots[slot] = e.tx;
      }
    }
    return { peer: peer.id, entry, header: compact.header, slots };
  }

  async blockTxnReceived(peer: Peer, response: BlockTransactions): Promise<void> {
    const hashHex = hashToHex(response.blockHash);
    const partial = this.#partial.get(hashHex);
    if (!partial || partial.peer !== peer.id) {
      this.options.log.debug('net', `Peer ${peer.id} sent us block transactions for block we weren't expecting`);
      return;
    }
    this.#partial.delete(hashHex);
    let used = 0;
    for (let i = 0; i < partial.slots.length; i++) {
      if (partial.slots[i] !== undefined) continue;
      const tx = response.transactions[used++];
      if (!tx) return this.options.misbehaving(peer, 'invalid compact block/non-matching block transactions');
      partial.slots[i] = tx;
    }
    if (used !== response.transactions.length) return this.options.misbehaving(peer, 'invalid compact block/non-matching block transactions');
    await this.#complete(peer, partial);
  }

  async #complete(peer: Peer, partial: PartialBlock): Promise<void> {
    const block: Block = { header: partial.header, transactions: partial.slots as Transaction[] };
    if (isBlockMutated(block, true)) {
      // A short-ID collision put a wrong transaction in: fetch the block whole.
      this.options.log.debug('cmpctblock', `Failed to reconstruct block ${partial.entry.hashHex}, requesting full block peer=${peer.id}`);
      this.options.markReceived(partial.entry.hashHex);
      this.options.requestBlock(peer, partial.entry);
      return;
    }
    this.options.log.debug('cmpctblock', `Successfully reconstructed block ${partial.entry.hashHex} with ${partial.slots.length} txn prefilled/from mempool/requested peer=${peer.id}`);
    this.options.markReceived(partial.entry.hashHex);
    await this.options.processBlock(peer, block, undefined);
  }

  /**
   * Core's MaybeSetPeerAsAnnouncingHeaderAndIDs: a peer that just gave us a valid new block
   * becomes one of the (at most three) peers asked to push compact blocks.
   */
  maybeSetHighBandwidth(peer: Peer): void {
    if (!peer.providesCompactBlocks || this.#highBandwidth.includes(peer.id)) return;
    const peers = new Map<number, Peer>();
    for (const p of this.options.peers()) peers.set(p.id, p);
    if (this.#highBandwidth.length >= MAX_HIGH_BANDWIDTH_PEERS) {
      // Keep at least one outbound peer among them when the newcomer is inbound.
      let evictIndex = 0;
      if (peer.inbound) {
        const outbound = this.#highBandwidth.filter((id) => peers.get(id) && !peers.get(id)!.inbound);
        if (outbound.length === 1 && !peers.get(this.#highBandwidth[0]!)?.inbound) evictIndex = 1;
      }
      const [evicted] = this.#highBandwidth.splice(evictIndex, 1);
      const old = peers.get(evicted!);
      if (old) {
        old.send('sendcmpct', encodeSendCmpct(false, CMPCTBLOCKS_VERSION));
        old.highBandwidthTo = false;
      }
    }
    this.#highBandwidth.push(peer.id);
    peer.send('sendcmpct', encodeSendCmpct(true, CMPCTBLOCKS_VERSION));
    peer.highBandwidthTo = true;
  }

  peerDisconnected(peer: Peer): void {
    const index = this.#highBandwidth.indexOf(peer.id);
    if (index !== -1) this.#highBandwidth.splice(index, 1);
    for (const [hash, partial] of this.#partial) if (partial.peer === peer.id) this.#partial.delete(hash);
  }
}

/** Core's CBlockHeaderAndShortTxIDs: the coinbase prefilled, every other transaction by short ID. */
export function buildCompactBlock(block: Block): CompactBlock {
  const nonce = randomBytes(8).readBigUInt64LE(0);
  const key = shortIdKey(block.header, nonce);
  const shortIds = block.transactions.slice(1).map((tx) => shortTxId(key, tx.wtxid));
  return { header: block.header, nonce, shortIds, prefilled: [{ index: 0, tx: block.transactions[0]! }] };
}
