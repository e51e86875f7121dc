/**
 * The messages of the coordinator ⇄ front-end protocol. The coordinator sends a
 * front-end its settings first; the front-end answers `listening` (or `fatal`), then
 * forwards calls and receives replies, warm-up changes, tip events and shutdown.
 */
import type { RpcErrorObject, RpcParams } from '../rpc/index.js';
import type { ChainArgs, ChainName } from '../consensus/index.js';
import type { MempoolPolicyOptions } from '../mempool/index.js';
import type { SubnetSpec } from '../primitives/index.js';
import type { SignatureBackendChoice } from '../script/index.js';

export type { SubnetSpec };

export interface BindAddress {
  readonly host: string;
  readonly port: number;
}


/** One accepted login: HMAC-SHA256(key = salt, message = password) in lowercase hex. */
export interface Credential {
  readonly user: string;
  readonly salt: string;
  readonly hash: string;
}

export interface FrontendSettings {
  /** Position among the K front-ends, for log lines. */
  readonly index: number;
  readonly binds: readonly BindAddress[];
  readonly allowSubnets: readonly SubnetSpec[];
  readonly credentials: readonly Credential[];
  /** -rpcwhitelist, already intersected per user. */
  readonly whitelists: readonly { readonly user: string; readonly methods: readonly string[] }[];
  readonly whitelistDefault: boolean;
  readonly rest: boolean;
  /** -rpcservertimeout: seconds an idle connection stays open. */
  readonly serverTimeout: number;
  /** Requests one front-end runs at once before it answers 503 (Core's threads + work queue); null: no bound. */
  readonly requestBound: number | null;
  /** Current init message, null once ready. */
  readonly warmup: string | null;
  readonly tip: TipEvent | null;
  /** Debug categories enabled now, so front-ends only send debug lines that will be kept. */
  readonly debugCategories: readonly string[];
  /** The network directory, whose chainstate front-ends read (read-only) to answer read-only calls. */
  readonly netDir: string;
  /** Where the blk and rev files are (-blocksdir); absent: `<netDir>/blocks`. */
  readonly blocksDir?: string;
  readonly chain: ChainName;
  /** The chain options (-testactivationheight, -vbparams, ...) that shape the network parameters. */
  readonly chainArgs: ChainArgs;
  readonly nodeState: NodeState;
  /** -txindex: front-ends read the indexes environment for getrawtransaction and REST tx. */
  readonly txindex: boolean;
  /** -blockfilterindex: front-ends read the basic filters for getblockfilter and REST blockfilter(headers). */
  readonly blockfilterindex?: boolean;
  /** -coinstatsindex: front-ends read its records for gettxoutsetinfo. */
  readonly coinstatsindex?: boolean;
  /** -txospenderindex: front-ends read it for gettxspendingprevout. */
  readonly txospenderindex?: boolean;
  /** -addressindex: front-ends read it for the Esplora API's address queries. */
  readonly addressindex?: boolean;
  /** -esplora: front-ends serve the Esplora-compatible API under /api/. */
  readonly esplora?: boolean;
  /** -websocket: the push endpoint /ws, with the coordinator's kept events (to resume from) and its run's id. */
  readonly push?: { readonly epoch: string; readonly backlog: readonly PushEvent[] };
  readonly deprecatedRpc: readonly string[];
  /** -prune: 0 off, 1 manual, else the automatic target in bytes. */
  readonly pruneTarget: number;
  readonly mempoolPolicy: MempoolPolicyOptions;
  /** The -dbcache split getchainstates reports. */
  readonly coinsCacheBytes: { readonly db: number; readonly tip: number };
  /** -sigbackend: front-ends hash and check keys with the same backend as the coordinator. */
  readonly sigBackend: SignatureBackendChoice;
}

export interface TipEvent {
  readonly hash: string;
  readonly height: number;
}

/** Coordinator state that read-only answers depend on but LMDB does not hold. */
export interface NodeState {
  /** Core's IsInitialBlockDownload() as the coordinator last evaluated it. */
  readonly ibd: boolean;
  /** setmocktime / -mocktime, 0 when the real clock is used. */
  readonly mocktime: number;
  /** The node's warnings (getblockchaininfo's), oldest kind first. */
  readonly warnings: readonly string[];
}

/** A WebSocket push event (-websocket): its number, its topic (an address's own, for address activity) and its JSON text. */
export interface PushEvent {
  readonly seq: number;
  /** "block", "tip", "mempool", "sequence", or "address:<address>". */
  readonly topic: string;
  readonly json: string;
}

export type ToFrontend =
  | { readonly t: 'settings'; readonly settings: FrontendSettings }
  | { readonly t: 'reply'; readonly id: number; readonly result?: unknown; readonly error?: RpcErrorObject }
  | { readonly t: 'warmup'; readonly status: string | null }
  | { readonly t: 'tip'; readonly tip: TipEvent }
  | { readonly t: 'push'; readonly events: readonly PushEvent[] }
  | { readonly t: 'nodestate'; readonly state: NodeState }
  | { readonly t: 'logconfig'; readonly debugCategories: readonly string[] }
  | { readonly t: 'shutdown' };

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warning' | 'error';

export type ToCoordinator =
  | { readonly t: 'listening'; readonly bound: readonly BindAddress[]; readonly failed: readonly (BindAddress & { readonly error: string })[] }
  | { readonly t: 'fatal'; readonly message: string }
  | {
      readonly t: 'call';
      readonly id: number;
      readonly method: string;
      readonly params: RpcParams;
      readonly wallet: string | null;
      readonly user: string;
      /** Params holding integral numbers spelled 1.0 or 1e3 (Core's getInt refuses them). */
      readonly spelled?: readonly (number | string)[];
    }
  | { readonly t: 'log'; readonly level: LogLevelName; readonly category: string | null; readonly msg: string }
  /** A call this front-end answers itself is still running after its first turn (a long poll): getrpcinfo lists it. */
  | { readonly t: 'running'; readonly id: number; readonly method: string }
  | { readonly t: 'finished'; readonly id: number };
