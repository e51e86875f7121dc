/**
 * Entry point of an HTTP front-end process (spawned by the coordinator, never run by
 * hand). It talks to the coordinator over the pipe on fd 3: it receives its settings,
 * binds every address with SO_REUSEPORT (uSockets' default listen option, which lets K
 * front-ends share one port and the kernel spread connections between them), forwards
 * calls, and exits when told to shut down or when the coordinator goes away.
 */
import * as net from 'node:net';
import type { us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import { IpcChannel, type BindAddress, type FrontendSettings, type NodeState, type ToCoordinator, type ToFrontend } from '../ipc/index.js';
import { ChainSnapshotSource, type NodeView } from '../chain/index.js';
import { readChainArgs, selectParams } from '../consensus/index.js';
import { blockchainBlockMethods, blockchainReadMethods, blockFilterMethods, descriptorActivityMethods, mempoolMethods, RPC_MISC_ERROR, RpcError, RpcRegistry, RpcServer, TipWaiters, waitMethods, writeJson, type RpcOutcome, type RpcParams } from '../rpc/index.js';
import { pureRpcMethods } from '../rpc/index.js';
import { createApp, type FrontendState } from './app.js';
import type { CallOutcome } from './jsonrpc.js';
import { RestRouter } from './rest.js';
import { PushHub } from './push-socket.js';
import { registerRestEndpoints, useNativeHexEncoder } from '../rest/index.js';
import { loadUws, type UwsModule } from './uws.js';
import { wireHexEncoder } from './wire.js';
import { chooseSignatureBackend } from '../script/index.js';
import { handleEsplora, type EsploraContext } from '../esplora/index.js';
import type { Reply } from './reply.js';

/** How long a shutting-down front-end waits for requests in flight. */
const SHUTDOWN_GRACE_MS = 5000;
/** The caller name the node's logs show for the Esplora API's RPC calls (it has no login). */
const ESPLORA_CALLER = 'esplora';

const state: FrontendState = { warmup: 'RPC server started', shuttingDown: false, inflight: 0 };
const pending = new Map<number, (outcome: CallOutcome) => void>();
let nextId = 1;
let debugCategories = new Set<string>();
let uws: UwsModule | undefined;
const listenSockets: us_listen_socket[] = [];

const channel = new IpcChannel<ToFrontend, ToCoordinator>(new net.Socket({ fd: 3, readable: true, writable: true }), onMessage, () => {
  // The coordinator is gone (or broke the protocol): a front-end never outlives it.
  process.exit(state.shuttingDown ? 0 : 1);
});

function log(level: 'debug' | 'info' | 'warning' | 'error', category: string | null, msg: string): void {
  if (level === 'debug' && (category === null || !debugCategories.has(category))) return;
  channel.send({ t: 'log', level, category, msg });
}

/**
 * Read-only methods run here, against this process's own LMDB snapshot (one per call), so
 * the coordinator is not involved; everything else is forwarded to it.
 */
let localServer: RpcServer | undefined;
let snapshots: ChainSnapshotSource | undefined;
/** This process's snapshot source, opened on first use (undefined until the chainstate exists). */
let openSnapshots: () => ChainSnapshotSource | undefined = () => undefined;
/** Tip events pushed by the coordinator, for the long polls answered here. */
const tipWaiters = new TipWaiters();
/** -websocket: the /ws subscribers and the events kept for them. */
let pushHub: PushHub | undefined;
/** The coordinator's IBD state and mock time, pushed with its changes. */
let nodeState: NodeState = { ibd: true, mocktime: 0, warnings: [] };
/** What snapshot views see of nodeState; remade after each change. */
let nodeView: NodeView | undefined;

function setUpLocalCalls(settings: FrontendSettings): void {
  if (settings.netDir === '') return;
  // Rendering blocks hashes every transaction and checks taproot keys: with the native
  // backend (the default) the addon does both; a failure to load it ends this process loudly.
  chooseSignatureBackend(settings.sigBackend);
  const registry = new RpcRegistry();
  registry.register(...blockchainReadMethods(), ...blockchainBlockMethods((name) => settings.deprecatedRpc.includes(name)), ...blockFilterMethods(), ...descriptorActivityMethods(), ...mempoolMethods(), ...waitMethods(() => tipWaiters));
  registry.register(...pureRpcMethods(settings.chain));
  // getrpcinfo runs on the coordinator: it cannot list this process's commands.
  localServer = new RpcServer(registry, { tracksActiveCommands: false });
  // Warm-up is checked before dispatch (below), as Core checks it before method lookup.
  localServer.setWarmupFinished();
  const params = selectParams(settings.chain, readChainArgs(settings.chain, settings.chainArgs));
  // One object per pushed node state, not one per snapshot.
  const node = () =>
    (nodeView ??= {
      ibd: nodeState.ibd,
      now: () => nodeState.mocktime || Math.floor(Date.now() / 1000),
      deprecatedRpc: settings.deprecatedRpc,
      warnings: nodeState.warnings,
      pruneTarget: settings.pruneTarget,
      mempoolPolicy: settings.mempoolPolicy,
      coinsCacheBytes: settings.coinsCacheBytes,
    });
  const open = (openSnapshots = (): ChainSnapshotSource | undefined =>
    (snapshots ??= ChainSnapshotSource.openReadOnly(settings.netDir, params, node, settings.txindex, settings.blockfilterindex ?? false, settings.coinstatsindex ?? false, settings.addressindex ?? false, settings.txospenderindex ?? false, settings.blocksDir)));
  localServer.setSnapshotSource({
    withSnapshot: (fn) => {
      const source = open();
      if (!source) throw new RpcError(RPC_MISC_ERROR, 'Chainstate not available');
      return source.withTurnSnapshot(fn);
    },
  });
}

const serialized = (outcome: RpcOutcome): CallOutcome => ('error' in outcome ? outcome : { result: writeJson(outcome.result) });

let nextRunningId = 1;

/**
 * Synchronous for snapshot reads, which is nearly every local call. A call that outlives
 * its first turn (the waitfor long polls) is reported to the coordinator while it runs,
 * so getrpcinfo there lists it as Core's lists every running command; a synchronous one
 * ends before any other request could ask.
 */
function callLocally(server: RpcServer, method: string, params: RpcParams, wallet: string | undefined, user: string, spelled?: readonly (number | string)[]): CallOutcome | Promise<CallOutcome> {
  const outcome = server.dispatch({ method, params, wallet, user, spelled });
  if (!(outcome instanceof Promise)) return serialized(outcome);
  const id = nextRunningId++;
  channel.send({ t: 'running', id, method });
  return outcome.then(serialized).finally(() => channel.send({ t: 'finished', id }));
}

function call(method: string, params: RpcParams, wallet: string | undefined, user: string, spelled?: readonly (number | string)[]): CallOutcome | Promise<CallOutcome> {
  // Warm-up is answered here: Core checks it before even looking the method up.
  if (state.warmup !== null) return { error: { code: -28, message: state.warmup } };
  if (localServer?.registry.get(method)) return callLocally(localServer, method, params, wallet, user, spelled);
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    channel.send({ t: 'call', id, method, params, wallet: wallet ?? null, user, ...(spelled ? { spelled } : {}) });
  });
}

function start(settings: FrontendSettings): void {
  state.warmup = settings.warmup;
  nodeState = settings.nodeState;
  nodeView = undefined;
  if (settings.tip) tipWaiters.update(settings.tip);
  setUpLocalCalls(settings);
  debugCategories = new Set(settings.debugCategories);
  try {
    uws = loadUws(settings.serverTimeout);
    useNativeHexEncoder(wireHexEncoder());
  } catch (err) {
    channel.send({ t: 'fatal', message: (err as Error).message });
    process.exitCode = 1;
    channel.close();
    return;
  }
  const rest = new RestRouter();
  // REST reads this process's snapshots only (one per event-loop turn), no call to the coordinator.
  if (settings.rest) {
    registerRestEndpoints(rest, {
      withSnapshot: (fn) => {
        const source = openSnapshots();
        if (!source) throw new Error('Chainstate not available');
        return source.withTurnSnapshot(fn);
      },
    });
  }
  const esplora = settings.esplora ? esploraHandler() : undefined;
  if (settings.push) pushHub = new PushHub(settings.push.epoch, settings.push.backlog);
  const app = createApp(uws, { settings, state, rest, ...(esplora ? { esplora } : {}), ...(pushHub ? { push: pushHub } : {}), call, log, logsDebug: (category) => debugCategories.has(category) });
  const bound: BindAddress[] = [];
  const failed: (BindAddress & { error: string })[] = [];
  for (const bind of settings.binds) {
    // uWS calls back synchronously with the socket, or false when binding failed.
    app.listen(bind.host, bind.port, (socket) => {
      if (socket) {
        listenSockets.push(socket);
        bound.push(bind);
      } else {
        failed.push({ ...bind, error: 'bind failed' });
      }
    });
  }
  channel.send({ t: 'listening', bound, failed });
}

/** The Esplora API over this process's snapshots; broadcasts and fee estimates go to the node as RPC calls. */
function esploraHandler(): (method: string, path: string, body: Uint8Array) => Reply | Promise<Reply> {
  const context: EsploraContext = {
    withSnapshot: (fn) => {
      const source = openSnapshots();
      if (!source) throw new Error('Chainstate not available');
      return source.withTurnSnapshot(fn);
    },
    rpc: async (method, params) => call(method, params as RpcParams, undefined, ESPLORA_CALLER),
  };
  return (method, path, body) => handleEsplora({ method, path, body }, context);
}

function shutdown(): void {
  if (state.shuttingDown) return;
  state.shuttingDown = true;
  // Parked long polls return the current tip, as Core's do at shutdown.
  tipWaiters.close();
  for (const s of listenSockets.splice(0)) uws?.us_listen_socket_close(s);
  const deadline = Date.now() + SHUTDOWN_GRACE_MS;
  const check = () => {
    if (state.inflight === 0 || Date.now() > deadline) {
      // Give the last replies a moment to leave the socket buffers.
      setTimeout(() => process.exit(0), 20);
      return;
    }
    setTimeout(check, 10);
  };
  check();
}

function onMessage(msg: ToFrontend): void {
  switch (msg.t) {
    case 'settings':
      start(msg.settings);
      return;
    case 'reply': {
      const resolve = pending.get(msg.id);
      if (!resolve) return;
      pending.delete(msg.id);
      resolve(msg.error ? { error: msg.error } : { result: msg.result as string });
      return;
    }
    case 'warmup':
      state.warmup = msg.status;
      return;
    case 'tip':
      tipWaiters.update(msg.tip);
      return;
    case 'push':
      pushHub?.receive(msg.events);
      return;
    case 'nodestate':
      nodeState = msg.state;
      nodeView = undefined;
      return;
    case 'logconfig':
      debugCategories = new Set(msg.debugCategories);
      return;
    case 'shutdown':
      shutdown();
      return;
  }
}
