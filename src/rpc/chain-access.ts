/**
 * What chain-facing RPC families need from the node: the chainstate (once loaded), the
 * network parameters and the node clock. Passed in by the chainstate service so these
 * modules stay free of process concerns.
 */
import type { Chainstate, TxIndex } from '../chain/index.js';
import type { ChainParams } from '../consensus/index.js';
import type { NodeMempool } from '../mempool/index.js';
import type { NodeFacts } from './node-facts.js';

export interface NodeClockAccess {
  now(): number;
  readonly mocktime: number;
  setMockTime(seconds: number): void;
}

export interface ChainAccess {
  /** The loaded chainstate (RPC dispatch answers -28 until start-up is done, so it exists by then). */
  chain(): Chainstate;
  readonly network: ChainParams;
  /** The transaction index when -txindex is on. */
  txindex(): TxIndex | undefined;
  clock(): NodeClockAccess;
  /** debug.log, for results that tell the caller to look there. */
  log(message: string): void;
  /** Node-level facts for the mining RPCs; DEFAULT_NODE_FACTS when absent. */
  readonly node?: NodeFacts;
  /** The node's mempool (loaded with the chainstate); absent where there is none. */
  mempool?(): NodeMempool | undefined;
}
