/**
 * Wallet options and avoid_reuse against bitcoind v31.0. Core checks -addresstype,
 * -changetype and the fee options each time a wallet is created or loaded (CWallet::Create),
 * not at start-up: a bad one lets the node start and fails every load with its message, a
 * high one is a warning of each load, and a wallet named at start-up stops start-up. An
 * avoid_reuse wallet marks the addresses it spent from in its file (destdata "used"), and
 * its balances, coins and spends treat their coins as reused.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess, runBitcoindToExit } from './bitcoind-process.js';
import { Daemon, runToExit, tempDir, walletCaller, type WalletCaller } from './daemon-harness.js';
import { answerOf, copyChain } from './wallet-answers.js';

const reference = referenceBitcoind();

test('bad and high wallet options: the node starts, and each create and load answers as bitcoind\'s; a wallet named at start-up stops start-up', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  // A wallet to load, made once by bitcoind and copied into each node's -walletdir.
  const made = await BitcoindProcess.start(reference.path, ['-connect=0']);
  const source = tempDir();
  try {
    await made.call('createwallet', ['pre']);
    await made.call('unloadwallet', ['pre']);
    cpSync(join(made.datadir, 'regtest', 'wallets', 'pre'), join(source, 'pre'), { recursive: true });
  } finally {
    await made.stop();
  }
  const walletDirFor = (): string => {
    const dir = tempDir();
    cpSync(join(source, 'pre'), join(dir, 'pre'), { recursive: true });
    return dir;
  };
  const argSets: string[][] = [
    ['-addresstype=foo', '-changetype=bar'],
    ['-changetype=bar'],
    ['-fallbackfee=abc', '-maxtxfee=xyz', '-mintxfee=1'],
    ['-mintxfee=abc', '-maxapsfee=x'],
    ['-maxapsfee=x'],
    ['-discardfee=x', '-consolidatefeerate=y'],
    ['-consolidatefeerate=y'],
    ['-maxtxfee=0.0000001'],
    ['-maxtxfee=zz'],
    // Every warning, in Core's order.
    ['-mintxfee=0.5', '-fallbackfee=0.5', '-discardfee=0.5', '-maxtxfee=20', '-consolidatefeerate=0.5', '-maxapsfee=0.3', '-minrelaytxfee=0.5'],
    // Valid: no warnings.
    ['-maxapsfee=-1', '-maxtxfee=0.000001', '-addresstype=legacy', '-changetype=bech32m'],
  ];
  try {
    for (const args of argSets) {
      const [coreDir, ourDir] = [walletDirFor(), walletDirFor()];
      const core = await BitcoindProcess.start(reference.path, ['-connect=0', `-walletdir=${coreDir}`, ...args]);
      const node = await Daemon.start({ args: ['-connect=0', `-walletdir=${ourDir}`, ...args] });
      try {
        const onCore: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/');
        const onNode = walletCaller(node);
        for (const [method, params] of [
          ['createwallet', ['fresh']],
          ['loadwallet', ['pre']],
          ['listwallets', []],
        ] as const) {
          assert.deepEqual(await answerOf(onNode, method, [...params]), await answerOf(onCore, method, [...params]), `${args.join(' ')}: ${method}`);
        }
      } finally {
        await node.stop();
        node.cleanup();
        await core.stop();
        rmSync(coreDir, { recursive: true, force: true });
        rmSync(ourDir, { recursive: true, force: true });
      }
    }
    // Named at start-up: the load fails and start-up stops with the option's message (no "Wallet loading failed." there).
    for (const args of [['-changetype=bar'], ['-discardfee=x']]) {
      const [coreDir, ourDir, ourData] = [walletDirFor(), walletDirFor(), tempDir()];
      try {
        const want = await runBitcoindToExit(reference.path, ['-regtest', `-walletdir=${coreDir}`, '-wallet=pre', ...args]);
        const got = await runToExit(['-regtest', `-datadir=${ourData}`, '-printtoconsole=0', '-connect=0', '-listen=0', `-walletdir=${ourDir}`, '-wallet=pre', ...args]);
        assert.equal(want.code, 1, args.join(' '));
        assert.deepEqual({ code: got.code, stderr: got.stderr }, want, args.join(' '));
      } finally {
        for (const dir of [coreDir, ourDir, ourData]) rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
});

const byOutpoint = (a: any, b: any): number => (a.txid === b.txid ? a.vout - b.vout : a.txid < b.txid ? -1 : 1);

/** What avoid_reuse changes: balances with "used", coins with "reused", and which coins a spend may take. */
async function reuseAnswers(w: WalletCaller): Promise<Record<string, unknown>> {
  return {
    getbalances: await w('getbalances'),
    'getbalance avoid_reuse': await w('getbalance', ['*', 0, true, true]),
    'getbalance all': await w('getbalance', ['*', 0, true, false]),
    listunspent: (await w('listunspent', [0])).sort(byOutpoint),
    'getwalletinfo avoid_reuse': (await w('getwalletinfo')).avoid_reuse,
  };
}

test('avoid_reuse: the same wallet on both nodes marks the same addresses used, gives the same balances and coins, and bitcoind reads the marks tsbtcd wrote', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  const node = await Daemon.start({ args: ['-connect=0', '-fallbackfee=0.0002'] });
  try {
    await core.call('createwallet', ['miner']);
    const miner: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/miner');
    await core.call('generatetoaddress', [110, await miner('getnewaddress')]);
    // The avoid_reuse wallet, made by bitcoind and copied to tsbtcd before it has any transaction.
    await core.call('createwallet', ['reuse', false, false, '', true]);
    await core.call('unloadwallet', ['reuse']);
    const ourWallets = join(node.netdir, 'wallets');
    mkdirSync(ourWallets, { recursive: true });
    cpSync(join(core.datadir, 'regtest', 'wallets', 'reuse'), join(ourWallets, 'reuse'), { recursive: true });
    await core.call('loadwallet', ['reuse']);
    await copyChain(core, node);
    await node.call('loadwallet', ['reuse']);
    const cw: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/reuse');
    const tw = walletCaller(node, 'reuse');
    const sync = async (): Promise<void> => {
      await copyChain(core, node);
      assert.deepEqual(await reuseAnswers(tw), await reuseAnswers(cw));
    };

    // One address paid twice, another once.
    const [twice, once] = [await cw('getnewaddress'), await cw('getnewaddress')];
    assert.equal(await tw('getnewaddress'), twice);
    await tw('getnewaddress');
    await miner('sendtoaddress', [twice, 10]);
    await miner('sendtoaddress', [once, 4]);
    await core.call('generatetoaddress', [1, await miner('getnewaddress')]);
    await sync();
    // Spending part of the twice-paid address's coins (coin control, on bitcoind) marks it used on both.
    const coins = (await cw('listunspent')).filter((u: any) => u.address === twice);
    const spend = await cw('walletcreatefundedpsbt', [[{ txid: coins[0].txid, vout: coins[0].vout }], [{ [await miner('getnewaddress')]: 1 }], 0, { add_inputs: false }]);
    const signed = await cw('walletprocesspsbt', [spend.psbt]);
    await core.call('sendrawtransaction', [signed.hex]);
    await miner('sendtoaddress', [twice, 3]);
    await sync();
    await core.call('generatetoaddress', [1, await miner('getnewaddress')]);
    await sync();
    const reused = (await tw('listunspent')).filter((u: any) => u.reused);
    assert.ok(reused.length >= 1 && reused.every((u: any) => u.address === twice), 'the twice-paid address is reused on tsbtcd');

    // A spend on tsbtcd takes only clean coins: more than they hold is refused as bitcoind refuses it.
    const clean = (await tw('getbalances')).mine.trusted;
    const tooMuch = clean + 1;
    assert.deepEqual(await answerOf(tw, 'sendtoaddress', [await miner('getnewaddress'), tooMuch]), await answerOf(cw, 'sendtoaddress', [await miner('getnewaddress'), tooMuch]));
    const txid = await tw('sendtoaddress', [await miner('getnewaddress'), 2]);
    const spent = await tw('gettransaction', [txid, false, true]);
    for (const input of spent.decoded.vin) {
      const prev = await tw('gettransaction', [input.txid, false, true]);
      assert.notEqual(prev.decoded.vout[input.vout].scriptPubKey.address, twice, 'no reused coin spent');
    }
    await copyChain(node, core);
    await core.call('generatetoaddress', [1, await miner('getnewaddress')]);
    await sync();

    // The marks tsbtcd wrote (its own spend's change address among them) are read by bitcoind.
    await node.call('unloadwallet', ['reuse']);
    cpSync(join(ourWallets, 'reuse'), join(core.datadir, 'regtest', 'wallets', 'from-tsbtcd'), { recursive: true });
    await core.call('loadwallet', ['from-tsbtcd']);
    const fromUs: WalletCaller = (method, params = []) => core.rpc.call(method, params, 30_000, '/wallet/from-tsbtcd');
    assert.deepEqual(await reuseAnswers(fromUs), await reuseAnswers(cw));
  } finally {
    await node.stop();
    node.cleanup();
    await core.stop();
  }
});
