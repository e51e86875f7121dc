/**
 * ZeroMQ notifications against bitcoind v31.0: a driver node (bitcoind with a wallet) makes
 * transactions and blocks, and hands the same ones, in the same order, to bitcoind and to
 * tsbtcd, both publishing all five topics on one address each. A zeromq subscriber on each
 * reads [topic, body, sequence] messages: blocks, mempool additions, a fee bump's
 * replacement, an invalidateblock reorg (transactions back in the pool) and a new branch,
 * a competing branch that wins in one step, an expiry and evictions from full pools (-maxmempool=5)
 * give byte-identical message lists. getzmqnotifications lists the publishers as bitcoind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subscriber } from 'zeromq';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, freePort, waitFor, type WalletCaller } from './daemon-harness.js';

const reference = referenceBitcoind();
const TOPICS = ['hashblock', 'hashtx', 'rawblock', 'rawtx', 'sequence'];
/** Payments of 90 kB each: more than a 5 MB pool holds. */
const FILLERS = 64;

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** Every message a subscriber receives, as hex parts. */
function collect(address: string): { messages: string[][]; close(): void } {
  const socket = new Subscriber();
  socket.connect(address);
  socket.subscribe();
  const messages: string[][] = [];
  void (async () => {
    try {
      for await (const parts of socket) messages.push(parts.map((p, i) => (i === 0 ? p.toString() : p.toString('hex'))));
    } catch {
      // closed
    }
  })();
  return { messages, close: () => socket.close() };
}

/** Waits until no new message arrived for a while. */
async function quiet(list: readonly unknown[]): Promise<void> {
  let seen = -1;
  while (seen !== list.length) {
    seen = list.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
}

test('ZMQ: the same blocks, transactions, replacement and reorg give byte-identical messages on every topic from bitcoind and tsbtcd', { timeout: 180_000 }, async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const [corePort, nodePort] = [await freePort(), await freePort()];
  const zmqArgs = (port: number) => TOPICS.map((topic) => `-zmqpub${topic}=tcp://127.0.0.1:${port}`);
  const driver = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  // Pools of 5 MB (the least Core takes): the last scenario fills them past the limit.
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', '-maxmempool=5', ...zmqArgs(corePort)]);
  const node = await Daemon.start({ args: ['-connect=0', '-disablewallet', '-maxmempool=5', ...zmqArgs(nodePort)] });
  const subscribers = [collect(`tcp://127.0.0.1:${corePort}`), collect(`tcp://127.0.0.1:${nodePort}`)];
  try {
    const listed = async (rpc: Rpc, port: number) => JSON.stringify(await rpc.call('getzmqnotifications')).replaceAll(String(port), 'PORT');
    assert.equal(await listed(node, nodePort), await listed(core, corePort));
    await new Promise((resolve) => setTimeout(resolve, 500)); // the subscribers join
    const targets: Rpc[] = [core, node];
    const both = async (method: string, params: unknown[]) => {
      for (const target of targets) await target.call(method, params);
    };
    await driver.call('createwallet', ['w']);
    const w: WalletCaller = (method, params = []) => driver.rpc.call(method, params, 30_000, '/wallet/w');
    const mineOne = async () => {
      const [hash] = await driver.call<string[]>('generatetoaddress', [1, await w('getnewaddress')]);
      await both('submitblock', [await driver.call('getblock', [hash, 0])]);
    };
    const relay = async (txid: string) => both('sendrawtransaction', [await driver.call('getrawtransaction', [txid])]);
    for (let i = 0; i < 102; i++) await mineOne();
    // Payments, a chain of two, a replacement, then a block.
    const first = await w('sendtoaddress', [await w('getnewaddress'), 5]);
    await relay(first);
    const second = await w('sendtoaddress', [await w('getnewaddress'), 3]);
    await relay(second);
    const bumped = await w('bumpfee', [second]);
    await relay(bumped.txid);
    await mineOne();
    await mineOne();
    // A reorg: the last block invalidated on all three (its transactions back in the pools), a new branch of two.
    const tip = await driver.call<string>('getbestblockhash');
    const payment = await w('sendtoaddress', [await w('getnewaddress'), 1]);
    await relay(payment);
    await driver.call('invalidateblock', [tip]);
    await both('invalidateblock', [tip]);
    await mineOne();
    await mineOne();
    // A competing branch that wins in one step: the tip's payment goes back to the pools
    // (its A before the new blocks' messages, as Core signals BlockConnected after the step).
    const kept = await w('sendtoaddress', [await w('getnewaddress'), 2]);
    await relay(kept);
    await mineOne();
    const replaced = await driver.call<string>('getbestblockhash');
    await driver.call('invalidateblock', [replaced]);
    const address = await w('getnewaddress');
    const branch = [(await driver.call('generateblock', [address, []])).hash, (await driver.call('generateblock', [address, []])).hash];
    for (const hash of branch) await both('submitblock', [await driver.call('getblock', [hash, 0])]);
    // An expiry: a payment left in the pools for longer than -mempoolexpiry leaves when the next one arrives.
    const confirmed = (await w('listunspent', [1])).filter((u: any) => u.amount > 10);
    const old = await w('send', [{ [await w('getnewaddress')]: 1 }, null, 'unset', null, { inputs: [{ txid: confirmed[0].txid, vout: confirmed[0].vout }], add_inputs: false }]);
    await relay(old.txid);
    const later = Math.floor(Date.now() / 1000) + 337 * 3600;
    await both('setmocktime', [later]);
    const fresh = await w('send', [{ [await w('getnewaddress')]: 1 }, null, 'unset', null, { inputs: [{ txid: confirmed[1].txid, vout: confirmed[1].vout }], add_inputs: false }]);
    await relay(fresh.txid);
    for (const target of targets) assert.equal((await target.call<string[]>('getrawmempool')).includes(old.txid), false, 'expired');
    // Evictions: payments carrying 90 kB of data each, at rising fee rates, fill the 5 MB pools;
    // past the limit each new one pushes out the lowest-paying (their R before its A: Core trims
    // inside the acceptance and announces the addition after it).
    const outputs: Record<string, number> = {};
    for (let i = 0; i < FILLERS; i++) outputs[await w('getnewaddress')] = 1;
    const fan = await w('sendmany', ['', outputs]);
    await relay(fan);
    await mineOne();
    const coins = (await w('listunspent', [1])).filter((u: any) => u.txid === fan && u.amount === 1);
    assert.equal(coins.length, FILLERS);
    for (const [i, coin] of coins.entries()) {
      const filler = await w('send', [[{ data: 'ab'.repeat(90_000) }], null, 'unset', 2 + i, { inputs: [{ txid: coin.txid, vout: coin.vout }], add_inputs: false }]);
      await relay(filler.txid);
    }
    for (const target of targets) {
      const info = await target.call('getmempoolinfo');
      assert.ok(info.mempoolminfee > info.minrelaytxfee && info.size < FILLERS, `the pool was trimmed: ${JSON.stringify(info)}`);
    }
    assert.equal(await node.call('getbestblockhash'), await core.call('getbestblockhash'));
    await waitFor('messages', () => (subscribers.every((s) => s.messages.length > 0) ? true : undefined));
    await quiet(subscribers[0]!.messages);
    await quiet(subscribers[1]!.messages);
    const [theirs, ours] = subscribers.map((s) => s.messages);
    for (const topic of TOPICS) {
      assert.deepEqual(ours!.filter((m) => m[0] === topic), theirs!.filter((m) => m[0] === topic), `topic ${topic}`);
    }
    assert.deepEqual(ours, theirs, 'the interleaving on the shared socket');
    t.diagnostic(`${theirs!.length} messages`);
  } finally {
    for (const s of subscribers) s.close();
    await node.stop();
    node.cleanup();
    await core.stop();
    await driver.stop();
  }
});
