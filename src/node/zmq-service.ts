/**
 * ZeroMQ notifications (Core's zmq/ CZMQNotificationInterface and its publish notifiers):
 * -zmqpubhashblock, -zmqpubhashtx, -zmqpubrawblock, -zmqpubrawtx and -zmqpubsequence, each
 * any number of addresses with its -zmqpub<type>hwm. Every notifier publishes three-part
 * messages [topic, body, 4-byte little-endian sequence] with its own counter; notifiers on
 * one address share its socket. The events are Core's validation-interface callbacks:
 * connected and disconnected blocks (each transaction, then the block's C/D on
 * "sequence"), the new tip outside initial block download (hashblock/rawblock), mempool
 * additions and removals other than by a block (A/R with the mempool sequence).
 */
import { Publisher } from 'zeromq';
import type { BlockIndexEntry } from '../chain/index.js';
import type { MempoolEntry, PoolTransactionAdded } from '../mempool/index.js';
import type { ParsedBlock, Transaction } from '../primitives/index.js';
import { zmqMethods, type RpcMethod, type ZmqNotification } from '../rpc/index.js';
import type { ChainstateService } from './chainstate-service.js';
import { InitError, type NodeConfig } from './config.js';
import type { NodeContext, NodeService } from './services.js';

/** Core's notifier types, in the order its factory map lists them. */
const TYPES = ['hashblock', 'hashtx', 'rawblock', 'rawtx', 'sequence'] as const;
type NotifierType = (typeof TYPES)[number];

/** Core's DEFAULT_ZMQ_SNDHWM. */
const DEFAULT_HWM = 1000;

interface Channel {
  readonly socket: Publisher;
  /** Sends on one socket go one after another (zeromq allows one send in flight). */
  queue: Promise<void>;
}

interface Notifier {
  readonly type: NotifierType;
  readonly address: string;
  readonly hwm: number;
  readonly channel: Channel;
  sequence: number;
}

/** A display-order hash: the reverse of the internal bytes (Core writes data[31 - i]). */
const displayOrder = (hash: Uint8Array): Uint8Array => Uint8Array.from(hash).reverse();

const u64le = (value: number): Uint8Array => {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value), true);
  return out;
};

export class ZmqService implements NodeService {
  readonly name = 'zmq';
  readonly rpcMethods: readonly RpcMethod[];
  #notifiers: Notifier[] = [];
  /**
   * The connected blocks' messages of the current activation step: Core signals
   * BlockConnected after the step, so after a reorg's transactions went back to the pool
   * (their A messages), and sends them when the step reports its tip.
   */
  #connected: (() => void)[] = [];
  #log: ((message: string) => void) | undefined;

  constructor(
    private readonly config: NodeConfig,
    private readonly chainstate: ChainstateService,
  ) {
    this.rpcMethods = zmqMethods(() => this.#notifiers.map((n): ZmqNotification => ({ type: `pub${n.type}`, address: n.address, hwm: n.hwm })));
  }

  async start(ctx: NodeContext): Promise<void> {
    this.#log = (m) => ctx.log.info(m);
    const args = this.config.args;
    const channels = new Map<string, Channel>();
    for (const type of TYPES) {
      const hwm = args.getIntArg(`zmqpub${type}hwm`, DEFAULT_HWM);
      if (hwm < 0) throw new InitError(`Invalid -zmqpub${type}hwm: ${hwm}`);
      for (const address of args.getArgs(`zmqpub${type}`)) {
        let channel = channels.get(address);
        if (!channel) {
          const socket = new Publisher({ sendHighWaterMark: hwm, tcpKeepalive: 1, ipv6: address.includes('[') });
          try {
            await socket.bind(address);
          } catch (err) {
            socket.close();
            throw new InitError(`Unable to bind ZMQ socket to ${address}: ${(err as Error).message}`);
          }
          channel = { socket, queue: Promise.resolve() };
          channels.set(address, channel);
          ctx.log.info(`zmq: Outbound message high water mark for ${type} at ${address} is ${hwm}`);
        }
        this.#notifiers.push({ type, address, hwm, channel, sequence: this.#sentBeforeStart(type) });
      }
    }
    if (this.#notifiers.length === 0) return;
    this.chainstate.chainListeners.push({
      blockConnected: (block, entry) => this.#blockConnected(block, entry),
      blockDisconnected: (block, entry) => this.#blockDisconnected(block, entry),
      updatedBlockTip: (tip, ibd) => this.#updatedBlockTip(tip, ibd),
    });
    this.chainstate.nodeMempool?.eventListeners.push({
      transactionAdded: (event) => this.#transactionAdded(event),
      transactionRemoved: (entry) => this.#transactionRemoved(entry),
      removedForBlock: () => undefined,
    });
  }

  /**
   * What Core's notifier of `type` sent while the chain loaded (it listens from before the
   * genesis block is connected): each connected block's transactions and its C, and one tip
   * when loading ended outside initial block download. Nobody could have received them, but
   * the counters count them.
   */
  #sentBeforeStart(type: NotifierType): number {
    const chain = this.chainstate.chainstate;
    const loaded = chain?.connectedDuringLoad ?? { blocks: 0, transactions: 0 };
    if (type === 'hashtx' || type === 'rawtx') return loaded.transactions;
    if (type === 'sequence') return loaded.blocks;
    return loaded.blocks > 0 && chain && !chain.isInitialBlockDownload() ? 1 : 0;
  }

  /** SendZmqMessage: the three parts, then the notifier's counter moves on. */
  #send(notifier: Notifier, body: Uint8Array): void {
    const sequence = new Uint8Array(4);
    new DataView(sequence.buffer).setUint32(0, notifier.sequence >>> 0, true);
    notifier.sequence++;
    const parts = [Buffer.from(notifier.type), body, sequence];
    const channel = notifier.channel;
    // A failed send is Core's dropped notification (it logs and goes on): never an unhandled rejection.
    channel.queue = channel.queue.then(() => channel.socket.send(parts)).catch((err: Error) => this.#log?.(`zmq: send to ${notifier.address} failed: ${err.message}`));
  }

  #each(types: readonly NotifierType[], body: (type: NotifierType) => Uint8Array | undefined): void {
    for (const notifier of this.#notifiers) {
      if (!types.includes(notifier.type)) continue;
      const data = body(notifier.type);
      if (data) this.#send(notifier, data);
    }
  }

  /** NotifyTransaction: hashtx (txid, display order) and rawtx (with witness). */
  #transaction(tx: Transaction): void {
    this.#each(['hashtx', 'rawtx'], (type) => (type === 'hashtx' ? displayOrder(tx.txid) : tx.toBytes()));
  }

  /** SendSequenceMsg: a hash, its label, and for mempool events the mempool sequence. */
  #sequence(hash: Uint8Array, label: 'C' | 'D' | 'A' | 'R', mempoolSequence?: number): void {
    const parts = [displayOrder(hash), Uint8Array.of(label.charCodeAt(0)), ...(mempoolSequence === undefined ? [] : [u64le(mempoolSequence)])];
    this.#each(['sequence'], () => Buffer.concat(parts));
  }

  #blockConnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    this.#connected.push(() => {
      for (const tx of block.transactions) this.#transaction(tx);
      this.#sequence(entry.hash, 'C');
    });
  }

  #blockDisconnected(block: ParsedBlock, entry: BlockIndexEntry): void {
    for (const tx of block.transactions) this.#transaction(tx);
    this.#sequence(entry.hash, 'D');
  }

  /**
   * The end of an activation step (Core's UpdatedBlockTip): the step's connected blocks'
   * messages, then hashblock and rawblock of the new tip unless in initial block download
   * or the step only disconnected blocks.
   */
  #updatedBlockTip(tip: BlockIndexEntry, ibd: boolean): void {
    const connected = this.#connected;
    this.#connected = [];
    for (const send of connected) send();
    const chain = this.chainstate.chainstate;
    if (connected.length === 0 || ibd || !chain) return;
    this.#each(['hashblock', 'rawblock'], (type) => {
      if (type === 'hashblock') return displayOrder(tip.hash);
      try {
        return chain.readBlockBytes(tip);
      } catch {
        return undefined;
      }
    });
  }

  #transactionAdded(event: PoolTransactionAdded): void {
    this.#transaction(event.entry.tx);
    this.#sequence(event.entry.tx.txid, 'A', event.mempoolSequence);
  }

  #transactionRemoved(entry: MempoolEntry): void {
    this.#sequence(entry.tx.txid, 'R', entry.removalSequence ?? 0);
  }

  async stop(): Promise<void> {
    const channels = new Set(this.#notifiers.map((n) => n.channel));
    this.#notifiers = [];
    for (const channel of channels) {
      await channel.queue.catch(() => undefined);
      channel.socket.close();
    }
  }
}
