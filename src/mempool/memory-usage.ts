/**
 * Core v31's estimate of the mempool's memory (CTxMemPool::DynamicMemoryUsage), what
 * getmempoolinfo reports as `usage` and -maxmempool is measured against, on 64-bit Linux:
 * per entry the multi_index node, the transaction with everything it allocates
 * (RecursiveDynamicUsage), a mapNextTx node per input and the txgraph's Entry; per
 * cluster its TotalMemoryUsage; per chunk a chunk-index node; per prioritisation a
 * mapDeltas node; and txns_randomized's buffer, whose capacity has a history (kept by
 * RandomizedTxnsCapacity). Every size here is Core's sizeof or allocation as
 * memusage::MallocUsage counts it, checked against bitcoind v31.0's reported usage.
 * Every cluster's chunks are counted: bitcoind omits those of a cluster its txgraph has
 * not yet linearized acceptably (a post-change work budget ran out), until it does.
 */
import type { Transaction } from '../primitives/index.js';

/** memusage::MallocUsage on 64-bit: the allocation rounded as glibc's malloc chunks are. */
export function mallocUsage(bytes: number): number {
  return bytes === 0 ? 0 : Math.floor((bytes + 31) / 16) * 16;
}

/** sizeof(CTransaction): two vectors, version, locktime, the witness flag and both hashes. */
const TRANSACTION_BYTES = 128;
/** sizeof(stl_shared_counter): the CTransactionRef's control block. */
const SHARED_COUNTER_BYTES = 24;
/** sizeof(CTxIn): the outpoint, a CScript, nSequence and the witness stack's vector. */
const TXIN_BYTES = 112;
/** sizeof(CTxOut): the value and a CScript. */
const TXOUT_BYTES = 48;
/** A std::vector<unsigned char> witness item's handle inside the stack vector. */
const VECTOR_BYTES = 24;
/** CScript's prevector<36>: scripts up to this size (P2TR and P2WSH included) live inline and allocate nothing. */
const SCRIPT_INLINE_BYTES = 36;
/**
 * Per pool entry, apart from its transaction: mapTx's node (sizeof(CTxMemPoolEntry) plus
 * nine pointers, malloc-rounded) and the txgraph's Entry, as bitcoind v31.0 reports them.
 */
const ENTRY_OVERHEAD = 304;
/** A mapNextTx node: stl_tree_node<pair<const COutPoint*, const CTransaction*>>. */
const NEXT_TX_NODE = mallocUsage(32 + 16);
/** A mapDeltas node: stl_tree_node<pair<const Txid, CAmount>>. */
const DELTA_NODE = mallocUsage(32 + 40);
/** A chunk-index node: stl_tree_node<ChunkData>. */
const CHUNK_NODE = mallocUsage(32 + 8);
/** std::pair<Wtxid, txiter>, txns_randomized's element. */
const RANDOMIZED_ELEMENT_BYTES = 40;
/** The unique_ptr slot a cluster takes in its ClusterSet vector. */
const CLUSTER_SLOT = 8;
/** SingletonClusterImpl: constant. */
const SINGLETON_CLUSTER = mallocUsage(48) + CLUSTER_SLOT;
/** sizeof(GenericClusterImpl). */
const GENERIC_CLUSTER_BYTES = 104;
/** DepGraph's per-transaction entry: a FeeFrac and two 64-bit sets. */
const DEPGRAPH_ENTRY_BYTES = 32;

function scriptUsage(script: Uint8Array): number {
  return script.length > SCRIPT_INLINE_BYTES ? mallocUsage(script.length) : 0;
}

/**
 * RecursiveDynamicUsage of a CTransactionRef: the shared allocation, the input and output
 * vectors, scripts too long to sit inline, and witness stacks with their items.
 * Deserialization sizes every vector exactly, so capacities are the lengths.
 */
export function transactionUsage(tx: Transaction): number {
  let usage = mallocUsage(TRANSACTION_BYTES) + mallocUsage(SHARED_COUNTER_BYTES);
  usage += mallocUsage(tx.inputs.length * TXIN_BYTES) + mallocUsage(tx.outputs.length * TXOUT_BYTES);
  for (const input of tx.inputs) {
    usage += scriptUsage(input.scriptSig) + mallocUsage(input.witness.length * VECTOR_BYTES);
    for (const item of input.witness) usage += mallocUsage(item.length);
  }
  for (const output of tx.outputs) usage += scriptUsage(output.scriptPubKey);
  return usage;
}

/** What one pool entry adds apart from its cluster and chunks: the entry, its transaction, its mapNextTx nodes. */
export function entryUsage(tx: Transaction): number {
  return ENTRY_OVERHEAD + transactionUsage(tx) + tx.inputs.length * NEXT_TX_NODE;
}

/**
 * A cluster's TotalMemoryUsage in the txgraph: a singleton is constant; a larger cluster
 * holds its mapping and linearization (4 bytes a transaction each) and its DepGraph, all
 * compacted to their lengths.
 */
export function clusterUsage(txCount: number): number {
  if (txCount <= 1) return SINGLETON_CLUSTER;
  return 2 * mallocUsage(4 * txCount) + mallocUsage(DEPGRAPH_ENTRY_BYTES * txCount) + mallocUsage(GENERIC_CLUSTER_BYTES) + CLUSTER_SLOT;
}

export function chunkIndexUsage(chunks: number): number {
  return chunks * CHUNK_NODE;
}

export function deltasUsage(prioritisations: number): number {
  return prioritisations * DELTA_NODE;
}

export function randomizedTxnsUsage(capacity: number): number {
  return mallocUsage(capacity * RANDOMIZED_ELEMENT_BYTES);
}

/**
 * txns_randomized's capacity as libstdc++ grows it and Core shrinks it: push_back doubles a
 * full buffer; a removal that leaves it less than half full shrinks it to fit; removing the
 * last element clears it without freeing.
 */
export class RandomizedTxnsCapacity {
  private size = 0;
  capacity = 0;

  added(): void {
    if (this.size === this.capacity) this.capacity = Math.max(1, 2 * this.size);
    this.size++;
  }

  removed(): void {
    if (this.size > 1) {
      this.size--;
      if (this.size * 2 < this.capacity) this.capacity = this.size;
    } else {
      this.size = 0;
    }
  }
}
