/**
 * The wallet's own broadcasting, on tsbtcd and on bitcoind v31.0 with the same script (the
 * idea of Core's wallet_resendwallettransactions.py and wallet_basic.py's -walletbroadcast
 * part): the periodic resend (MaybeResendWalletTxs every minute, 12 to 36 hours apart,
 * only transactions older than the last tip by five minutes, told to peers that have not
 * seen them), the resubmission of expired parents and children in the wallet's order, the
 * load-time resubmission that tells no peer, and -walletbroadcast=0, under which nothing of
 * the wallet reaches the pool until a restart with broadcasting on.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { decodeInventory, MSG_WTX } from '../../src/net/index.js';
import { hashToHex } from '../../src/primitives/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, sleep, tempDir, waitFor } from './daemon-harness.js';
import { TestPeer } from './p2p-test-peer.js';

const reference = referenceBitcoind();
/** Core's DEFAULT_MEMPOOL_EXPIRY_HOURS and the resend timer's upper limit. */
const MEMPOOL_EXPIRY = 336 * 3600;
const RESEND_TIMER_LIMIT = 36 * 3600;

/** One node of either kind, as the scenario drives it. */
interface WalletNode {
  readonly name: string;
  readonly p2pPort: number;
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
  wallet<T = any>(method: string, params?: unknown[]): Promise<T>;
  log(): string;
  /** Stopped and started again on the same data directory with these arguments. */
  restart(args: readonly string[]): Promise<WalletNode>;
  stop(): Promise<void>;
}

// noban: announcements at every send round (Core's fSendTrickle), as Core's test sets noban_tx_relay.
const COMMON = ['-connect=0', '-fallbackfee=0.0002', '-peertimeout=999999999', '-whitelist=noban@127.0.0.1'];

function tsbtcdNodeOf(daemon: Daemon): WalletNode {
  return {
    name: 'tsbtcd',
    p2pPort: daemon.p2pPort,
    call: (method, params = []) => daemon.call(method, params),
    wallet: async (method, params = []) => {
      const r = await daemon.rpc(method, params, { path: '/wallet/w' });
      if (r.json.error) throw Object.assign(new Error(`${method}: ${r.json.error.message}`), { code: r.json.error.code });
      return r.json.result;
    },
    log: () => daemon.debugLog(),
    restart: async (args) => {
      await daemon.stop();
      return tsbtcdNodeOf(await daemon.restart({ args: [...COMMON, ...args] }));
    },
    stop: () => daemon.cleanup(),
  };
}

async function tsbtcdNode(args: readonly string[]): Promise<WalletNode> {
  return tsbtcdNodeOf(await Daemon.start({ args: [...COMMON, ...args] }));
}

async function bitcoindNode(path: string, args: readonly string[], datadir?: string): Promise<WalletNode> {
  const core = await BitcoindProcess.start(path, [...COMMON, ...args], datadir ?? tempDir());
  const logPath = `${core.datadir}/regtest/debug.log`;
  return {
    name: 'bitcoind',
    p2pPort: core.p2pPort,
    call: (method, params = []) => core.call(method, params),
    wallet: (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/w'),
    log: () => readFileSync(logPath, 'utf8'),
    restart: async (next) => {
      await core.stop();
      return bitcoindNode(path, next, core.datadir);
    },
    stop: async () => {
      await core.stop();
      rmSync(core.datadir, { recursive: true, force: true });
    },
  };
}

/** The wtxids a peer was told of. */
const announced = (peer: TestPeer): Set<string> =>
  new Set(peer.received.filter((f) => f.command === 'inv').flatMap((f) => decodeInventory(f.payload).filter((i) => i.type === MSG_WTX).map((i) => hashToHex(i.hash))));

/** The log written since `mark` (a length of the log). */
const logSince = (node: WalletNode, mark: number): string => node.log().slice(mark);

async function inPool(node: WalletNode, txid: string): Promise<boolean> {
  return (await node.call<string[]>('getrawmempool')).includes(txid);
}

/** Core's test's mine_empty_block: a block without our transactions, six minutes on. */
async function mineEmptyBlock(node: WalletNode, now: { t: number }, address: string): Promise<void> {
  now.t += 6 * 60;
  await node.call('setmocktime', [now.t]);
  await node.call('generateblock', [address, []]);
  await node.call('syncwithvalidationinterfacequeue');
}

/** setmocktime, then mockscheduler 60: the minute's task runs; its log line (or none) within two seconds. */
async function runScheduler(node: WalletNode, time: number, expect: string | null): Promise<string> {
  const mark = node.log().length;
  await node.call('setmocktime', [time]);
  await node.call('mockscheduler', [60]);
  if (expect === null) {
    await sleep(1500);
    return logSince(node, mark);
  }
  return waitFor(`"${expect}" in ${node.name}'s log`, () => (logSince(node, mark).includes(expect) ? logSince(node, mark) : undefined), 5000);
}

/** Facts the scenario saw, compared between the two nodes. */
type Observed = Record<string, unknown>;

async function resendScenario(node: WalletNode): Promise<Observed> {
  const seen: Observed = {};
  await node.call('createwallet', ['w']);
  const mine = await node.wallet<string>('getnewaddress');
  await node.call('generatetoaddress', [110, mine]);
  const first = await TestPeer.connect(node.p2pPort);
  const coin = (await node.wallet<any[]>('listunspent'))[0];
  const { txid } = await node.wallet('send', [{ [await node.wallet('getnewaddress')]: 1 }, null, 'unset', 2, { inputs: [{ txid: coin.txid, vout: coin.vout }], add_inputs: false }]);
  const wtxid = (await node.wallet('gettransaction', [txid])).wtxid as string;
  // A noban peer hears of it at the next send round.
  await waitFor(`${node.name} announcing the payment`, () => (announced(first).has(wtxid) ? true : undefined), 30_000);
  const second = await TestPeer.connect(node.p2pPort);
  const now = { t: Math.floor(Date.now() / 1000) };
  await mineEmptyBlock(node, now, mine);

  // Not within the first 12 hours (two minutes short).
  const early = await runScheduler(node, now.t + 12 * 3600 - 120, null);
  await second.sync();
  seen.earlyResubmits = early.includes('unconfirmed transactions');
  seen.earlyAnnounced = announced(second).has(wtxid);
  // By 36 hours it has been resent, and the peer that had not seen it is told.
  const late = await runScheduler(node, now.t + RESEND_TIMER_LIMIT, 'resubmit 1 unconfirmed transactions');
  seen.lateSubmitting = late.includes(`Submitting wtx ${txid} to mempool and for broadcast to peers`);
  await node.call('setmocktime', [now.t + RESEND_TIMER_LIMIT + 600]);
  await waitFor(`${node.name} announcing the resent payment`, async () => {
    await second.sync();
    return announced(second).has(wtxid) ? true : undefined;
  }, 15_000);
  seen.lateAnnounced = true;
  // The first peer knew it already: not told again.
  await first.sync();
  seen.firstTold = [...first.received.filter((f) => f.command === 'inv')].flatMap((f) => decodeInventory(f.payload)).filter((i) => hashToHex(i.hash) === wtxid).length;
  now.t += RESEND_TIMER_LIMIT + 600;
  await node.call('generatetoaddress', [1, mine]);

  // A parent and its child, expired from the pool, come back in the wallet's order.
  const parent = (await node.wallet('sendall', [[await node.wallet('getnewaddress')], null, 'unset', 3, { inputs: [(await node.wallet<any[]>('listunspent', [1]))[0]].map((u) => ({ txid: u.txid, vout: u.vout })) }])).txid as string;
  const child = (await node.wallet('sendall', [[await node.wallet('getnewaddress')], null, 'unset', 3, { inputs: [{ txid: parent, vout: 0 }] }])).txid as string;
  await mineEmptyBlock(node, now, mine);
  const evictTime = now.t + MEMPOOL_EXPIRY + 5;
  // This minute's resend is spent now (both still pooled, both counted), so none falls between the expiry and the check.
  seen.beforeExpiry = (await runScheduler(node, evictTime, 'resubmit 2 unconfirmed transactions')).match(/resubmit \d+ unconfirmed transactions/)?.[0];
  // Any acceptance expires what is older than -mempoolexpiry.
  const other = await node.wallet<string>('sendtoaddress', [mine, 1]);
  seen.expired = [await inPool(node, other), await inPool(node, parent), await inPool(node, child)];
  const resent = await runScheduler(node, evictTime + RESEND_TIMER_LIMIT, 'resubmit 2 unconfirmed transactions');
  seen.backInPool = [await inPool(node, parent), await inPool(node, child)];
  // Parent first: the child could not have entered before it.
  seen.order = [resent.indexOf(`Submitting wtx ${parent}`) < resent.indexOf(`Submitting wtx ${child}`)];
  first.close();
  second.close();
  return seen;
}

async function broadcastOffScenario(start: (args: readonly string[]) => Promise<WalletNode>): Promise<Observed> {
  const seen: Observed = {};
  let node = await start(['-walletbroadcast=0']);
  try {
    await node.call('createwallet', ['w']);
    const mine = await node.wallet<string>('getnewaddress');
    await node.call('generatetoaddress', [101, mine]);
    const mark = node.log().length;
    const txid = await node.wallet<string>('sendtoaddress', [await node.wallet('getnewaddress'), 2]);
    const tx = await node.wallet('gettransaction', [txid]);
    seen.kept = [tx.confirmations, tx.trusted, tx.txid === txid];
    seen.pooled = await inPool(node, txid);
    seen.submittingLogged = logSince(node, mark).includes('Submitting wtx');
    seen.balances = (await node.wallet('getbalances')).mine;
    // The periodic resend does nothing either.
    await runScheduler(node, Math.floor(Date.now() / 1000) + RESEND_TIMER_LIMIT + 3600, null);
    seen.pooledAfterResend = await inPool(node, txid);
    // Restarted with broadcasting on: the wallet's load puts it in the pool.
    node = await node.restart(['-wallet=w']);
    await waitFor(`${node.name} resubmitting at load`, async () => ((await inPool(node, txid)) ? true : undefined), 10_000);
    seen.pooledAfterRestart = true;
    seen.loadLog = [node.log().includes('ResubmitWalletTransactions: resubmit 1 unconfirmed transactions'), node.log().includes(`Submitting wtx ${txid} to mempool without broadcast`)];
  } finally {
    await node.stop();
  }
  return seen;
}

test('the periodic resend: not before 12 hours, by 36 hours to peers that had not seen it, expired parents and children back in order', async (t) => {
  const ours = await tsbtcdNode([]);
  let mine: Observed;
  try {
    mine = await resendScenario(ours);
  } finally {
    await ours.stop();
  }
  assert.deepEqual(mine, {
    earlyResubmits: false,
    earlyAnnounced: false,
    lateSubmitting: true,
    lateAnnounced: true,
    firstTold: 1,
    beforeExpiry: 'resubmit 2 unconfirmed transactions',
    expired: [true, false, false],
    backInPool: [true, true],
    order: [true],
  });
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await bitcoindNode(reference.path, []);
  try {
    assert.deepEqual(await resendScenario(core), mine);
  } finally {
    await core.stop();
  }
});

test('-walletbroadcast=0: payments are kept and not pooled, the resend does nothing, a restart with broadcasting pools them', async (t) => {
  const mine = await broadcastOffScenario((args) => tsbtcdNode(args));
  assert.deepEqual(
    { ...mine, balances: undefined },
    { kept: [0, false, true], pooled: false, submittingLogged: false, balances: undefined, pooledAfterResend: false, pooledAfterRestart: true, loadLog: [true, true] },
  );
  if ('missing' in reference) return t.skip(reference.missing);
  assert.deepEqual(await broadcastOffScenario((args) => bitcoindNode(reference.path, args)), mine);
});
