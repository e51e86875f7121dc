/**
 * The Util, Rawtransactions, Network, Control and Wallet methods of this node against a
 * real daemon: pure methods and txout proofs answered by the HTTP front-ends themselves
 * (checked with the coordinator stopped by SIGSTOP), gettxoutproof / verifytxoutproof
 * with and without -txindex, scantxoutset's actions, getnetworkinfo, and the no-wallet
 * answers on `/` and `/wallet/<name>` (and -disablewallet).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fromHex, parseBlock } from '../../src/primitives/index.js';
import { rawTransactionMethods, utilMethods } from '../../src/rpc/index.js';
import { mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { caller } from '../unit/rpc-call-helper.js';
import { Daemon, sleep } from './daemon-harness.js';

const NO_WALLET =
  'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)';

let d: Daemon;
let wallet: TestWallet;
let hashes: string[];
let withTxs: number[];

before(async () => {
  d = await Daemon.start({ args: ['-rpcfrontends=2'] });
  wallet = new TestWallet(7);
  const stats = await mineWithSpends(d, wallet, 0, 112, { seed: 11 });
  hashes = stats.hashes;
  withTxs = stats.blocksWithTransactions;
});
after(async () => {
  await d?.cleanup();
});

const result = async (node: Daemon, method: string, params: unknown = [], path?: string) => {
  const r = await node.rpc(method, params, path === undefined ? {} : { path });
  assert.equal(r.json?.error, null, `${method}: ${JSON.stringify(r.json?.error)}`);
  return r.json.result;
};
const error = async (node: Daemon, method: string, params: unknown = [], path?: string) => (await node.rpc(method, params, path === undefined ? {} : { path })).json.error;

/** The txids of the block at `height` (1-based heights of `hashes`). */
async function blockTxids(height: number): Promise<string[]> {
  return (await result(d, 'getblock', [hashes[height - 1]])).tx;
}

/** Whether any output of `txid` is still unspent. */
async function hasUnspent(node: Daemon, txid: string): Promise<boolean> {
  for (let n = 0; n < 4; n++) if ((await result(node, 'gettxout', [txid, n])) !== null) return true;
  return false;
}

test('pure methods through the front-ends: same bytes as the functions the coordinator registers', async () => {
  const local = caller(...utilMethods('regtest'), ...rawTransactionMethods('regtest'));
  const txid = (await blockTxids(withTxs[0]!))[1]!;
  const calls: [string, unknown[]][] = [
    ['validateaddress', [wallet.address('p2tr-key')]],
    ['validateaddress', ['bcrt1qinvalid']],
    ['getdescriptorinfo', ['wpkh(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)']],
    ['deriveaddresses', ['addr(bcrt1pfeesnyr2tx)#swxgse0y']],
    ['decodescript', ['5121' + '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798' + '51ae']],
    ['createrawtransaction', [[{ txid, vout: 0 }], [{ [wallet.address('p2wpkh')]: '0.1' }, { data: 'cafe' }], 0, false, 3]],
  ];
  for (const [method, params] of calls) {
    const r = await d.rpc(method, params);
    assert.equal(r.status, 200, `${method}: ${r.body}`);
    assert.equal(r.body, `{"result":${await local.text(method, params as never)},"error":null,"id":1}\n`, method);
  }
  const hex = await result(d, 'createrawtransaction', [[{ txid, vout: 0 }], { [wallet.address('p2wpkh')]: 1 }]);
  const decoded = await result(d, 'decoderawtransaction', [hex]);
  assert.equal(decoded.vin[0].txid, txid);
  assert.equal(decoded.vout[0].scriptPubKey.address, wallet.address('p2wpkh'));
  // 1.1 errors: HTTP 500 with Core's codes.
  const bad = await d.rpc('createrawtransaction', [[], { foo: 1 }]);
  assert.equal(bad.status, 500);
  assert.deepEqual(bad.json.error, { code: -5, message: 'Invalid Bitcoin address: foo' });
  assert.deepEqual(await error(d, 'decoderawtransaction', ['00']), { code: -22, message: 'TX decode failed' });
});

test('createrawtransaction sees repeated keys in the request body, as UniValue keeps them', async () => {
  const address = wallet.address('p2wpkh');
  const body = `{"method":"createrawtransaction","params":[[],{"${address}":1,"${address}":2}],"id":1}`;
  const r = await d.post(body);
  assert.equal(r.status, 500);
  assert.deepEqual(JSON.parse(r.body).error, { code: -8, message: `Invalid parameter, duplicated address: ${address}` });
  const data = await d.post('{"jsonrpc":"2.0","method":"createrawtransaction","params":[[],{"data":"aa","data":"bb"}],"id":2}');
  assert.deepEqual(JSON.parse(data.body).error, { code: -8, message: 'Invalid parameter, duplicate key: data' });
});

test('gettxoutproof and verifytxoutproof (rpc_txoutproof.py’s cases)', async () => {
  const height = withTxs.at(-1)!;
  const blockhash = hashes[height - 1]!;
  const txids = await blockTxids(height);
  assert.ok(txids.length >= 3, `block ${height} has ${txids.length} transactions`);
  const unspent: string[] = [];
  for (const txid of txids.slice(1)) if (await hasUnspent(d, txid)) unspent.push(txid);
  assert.ok(unspent.length > 0);
  const proof = await result(d, 'gettxoutproof', [[unspent[0]]]);
  assert.deepEqual(await result(d, 'verifytxoutproof', [proof]), [unspent[0]]);
  assert.equal(proof.slice(0, 160), await result(d, 'getblockheader', [blockhash, false]));
  // Several transactions, found through any unspent one; the order of the request does not matter.
  const pair = [txids[1]!, txids[2]!];
  const pairProof = await result(d, 'gettxoutproof', [pair, blockhash]);
  assert.deepEqual(await result(d, 'verifytxoutproof', [pairProof]), pair);
  if (unspent.includes(pair[0]!) || unspent.includes(pair[1]!)) {
    assert.equal(await result(d, 'gettxoutproof', [[...pair].reverse()]), pairProof);
  }
  // A fully spent transaction: the coinbase of block 1 (spent at maturity), without -txindex.
  const spentCoinbase = (await blockTxids(1))[0]!;
  assert.equal(await hasUnspent(d, spentCoinbase), false);
  assert.deepEqual(await error(d, 'gettxoutproof', [[spentCoinbase]]), { code: -5, message: 'Transaction not yet in block' });
  assert.deepEqual(await result(d, 'verifytxoutproof', [await result(d, 'gettxoutproof', [[spentCoinbase], hashes[0]])]), [spentCoinbase]);
  // Errors.
  assert.deepEqual(await error(d, 'gettxoutproof', [[], blockhash]), { code: -8, message: "Parameter 'txids' cannot be empty" });
  assert.deepEqual(await error(d, 'gettxoutproof', [[pair[0], pair[0]]]), { code: -8, message: `Invalid parameter, duplicated txid: ${pair[0]}` });
  assert.deepEqual(await error(d, 'gettxoutproof', [['00'.repeat(16)], blockhash]), { code: -8, message: `txid must be of length 64 (not 32, for '${'00'.repeat(16)}')` });
  const zzz = 'ZZZ' + '0'.repeat(61);
  assert.deepEqual(await error(d, 'gettxoutproof', [[zzz], blockhash]), { code: -8, message: `txid must be hexadecimal string (not '${zzz}')` });
  assert.deepEqual(await error(d, 'gettxoutproof', [[pair[0]], '00'.repeat(16)]), { code: -8, message: `blockhash must be of length 64 (not 32, for '${'00'.repeat(16)}')` });
  assert.deepEqual(await error(d, 'gettxoutproof', [[pair[0]], '00'.repeat(32)]), { code: -5, message: 'Block not found' });
  assert.deepEqual(await error(d, 'gettxoutproof', [[spentCoinbase], blockhash]), { code: -5, message: 'Not all transactions found in specified or retrieved block' });
  const other = (await blockTxids(withTxs[0]!))[1]!;
  assert.deepEqual(await error(d, 'gettxoutproof', [[pair[0], other], blockhash]), { code: -5, message: 'Not all transactions found in specified or retrieved block' });
  assert.deepEqual(await error(d, 'verifytxoutproof', ['00']), { code: -1, message: 'DataStream::read(): end of data: iostream error' });
  assert.deepEqual(await error(d, 'verifytxoutproof', ['zz']), { code: -8, message: "proof must be hexadecimal string (not 'zz')" });
  assert.deepEqual(await error(d, 'verifytxoutproof', ['']), { code: -8, message: "proof must be hexadecimal string (not '')" });
  // A proof whose root is altered does not verify: empty result, no error.
  const flipped = proof.slice(0, 80) + (proof[80] === '0' ? '1' : '0') + proof.slice(81);
  assert.deepEqual(await result(d, 'verifytxoutproof', [flipped]), []);
  // Passed off as a one-transaction block: the block's transaction count differs, so [].
  const root = proof.slice(72, 136);
  const tweaked = proof.slice(0, 160) + '01000000' + '01' + root + '01' + '01';
  assert.deepEqual(await result(d, 'verifytxoutproof', [tweaked]), []);
  // A block that left the active chain: Core's -5.
  await result(d, 'invalidateblock', [blockhash]);
  try {
    assert.deepEqual(await error(d, 'verifytxoutproof', [proof]), { code: -5, message: 'Block not found in chain' });
  } finally {
    await result(d, 'reconsiderblock', [blockhash]);
  }
  assert.deepEqual(await result(d, 'verifytxoutproof', [proof]), [unspent[0]]);
});

test('front-ends answer pure and snapshot methods with the coordinator stopped', async () => {
  const height = withTxs.at(-1)!;
  const txid = (await blockTxids(height))[1]!;
  const proofBefore = await result(d, 'gettxoutproof', [[txid], hashes[height - 1]]);
  process.kill(d.proc.pid!, 'SIGSTOP');
  try {
    const within = <T>(p: Promise<T>) => Promise.race([p, sleep(5000).then(() => assert.fail('a front-end did not answer by itself'))]);
    assert.equal((await within(d.rpc('validateaddress', [wallet.address('p2wpkh')]))).json.result.isvalid, true);
    assert.equal((await within(d.rpc('decodescript', ['51']))).json.result.asm, '1');
    assert.equal((await within(d.rpc('gettxoutproof', [[txid], hashes[height - 1]]))).json.result, proofBefore);
    assert.deepEqual((await within(d.rpc('verifytxoutproof', [proofBefore]))).json.result, [txid]);
    assert.ok((await within(d.rpc('createrawtransaction', [[], {}]))).json.result);
  } finally {
    process.kill(d.proc.pid!, 'SIGCONT');
  }
});

test('scantxoutset: start, status, abort and Core’s errors', async () => {
  const info = await result(d, 'gettxoutsetinfo', ['none']);
  const all = await result(d, 'scantxoutset', ['start', []]);
  assert.deepEqual(Object.keys(all), ['success', 'txouts', 'height', 'bestblock', 'unspents', 'total_amount']);
  assert.deepEqual([all.success, all.txouts, all.height, all.bestblock, all.unspents], [true, info.txouts, info.height, info.bestblock, []]);
  const address = wallet.address('p2wpkh');
  const scan = await result(d, 'scantxoutset', ['start', [`addr(${address})`, { desc: `addr(${address})` }]]);
  assert.ok(scan.unspents.length > 0);
  const u = scan.unspents[0];
  assert.deepEqual(Object.keys(u), ['txid', 'vout', 'scriptPubKey', 'desc', 'amount', 'coinbase', 'height', 'blockhash', 'confirmations']);
  assert.equal(u.blockhash, hashes[u.height - 1]);
  assert.equal(u.confirmations, info.height - u.height + 1);
  assert.equal(u.desc, (await result(d, 'getdescriptorinfo', [`addr(${address})`])).descriptor);
  const out = await result(d, 'gettxout', [u.txid, u.vout]);
  assert.equal(out.value, u.amount);
  assert.equal(out.coinbase, u.coinbase);
  // Sorted by outpoint; the total is the sum.
  const total = scan.unspents.reduce((a: bigint, x: any) => a + BigInt(Math.round(x.amount * 1e8)), 0n);
  assert.equal(BigInt(Math.round(scan.total_amount * 1e8)), total);
  assert.equal(await result(d, 'scantxoutset', ['status']), null);
  assert.equal(await result(d, 'scantxoutset', ['abort']), false);
  assert.equal((await error(d, 'scantxoutset', [])).code, -1);
  assert.match((await error(d, 'scantxoutset', [])).message, /^scantxoutset "action" \( \[scanobjects,\.\.\.\] \)/);
  assert.deepEqual(await error(d, 'scantxoutset', ['start']), { code: -1, message: 'scanobjects argument is required for the start action' });
  assert.deepEqual(await error(d, 'scantxoutset', ['start', null]), { code: -3, message: 'JSON value of type null is not of expected type array' });
  assert.deepEqual(await error(d, 'scantxoutset', ['invalid_command']), { code: -8, message: "Invalid action 'invalid_command'" });
  assert.deepEqual(await error(d, 'scantxoutset', ['start', [{ desc: 'desc', range: [2, 1] }]]), { code: -8, message: 'Range specified as [begin,end] must not have begin after end' });
  // While a long expansion runs, a second start is refused and status reports progress.
  const tpub = 'tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B';
  const long = d.rpc('scantxoutset', ['start', [{ desc: `pkh(${tpub}/0/*)`, range: [0, 4000] }]]);
  let sawRunning = false;
  for (let i = 0; i < 400 && !sawRunning; i++) {
    const status = await result(d, 'scantxoutset', ['status']);
    if (status !== null) {
      sawRunning = true;
      assert.deepEqual(Object.keys(status), ['progress']);
      assert.deepEqual(await error(d, 'scantxoutset', ['start', []]), { code: -8, message: 'Scan already in progress, use action "abort" or "status"' });
      assert.equal(await result(d, 'scantxoutset', ['abort']), true);
    }
    await sleep(5);
  }
  assert.ok(sawRunning, 'the scan finished before status could see it');
  const longResult = (await long).json.result;
  // The abort came during the expansion, which Core's clears: the scan still completes.
  assert.equal(longResult.success, true);
  assert.equal(await result(d, 'scantxoutset', ['status']), null);
});

test('getnetworkinfo, getconnectioncount, getmemoryinfo, syncwithvalidationinterfacequeue', async () => {
  const info = await result(d, 'getnetworkinfo');
  assert.equal(info.version, 310000);
  assert.match(info.subversion, /^\/tsbtcd:\d+\.\d+\.\d+\/$/);
  // Core's 0c09 less NODE_P2P_V2: tsbtcd speaks only the v1 transport.
  assert.equal(info.localservices, '0000000000000409');
  assert.equal(info.connections, 0);
  assert.deepEqual(info.warnings, []);
  const r = await d.rpc('getnetworkinfo');
  assert.ok(r.body.includes('"relayfee":0.00000100,"incrementalfee":0.00000100'));
  assert.equal(await result(d, 'getconnectioncount'), 0);
  assert.deepEqual(Object.keys((await result(d, 'getmemoryinfo')).locked), ['used', 'free', 'total', 'locked', 'chunks_used', 'chunks_free']);
  assert.deepEqual(await error(d, 'getmemoryinfo', ['mallocinfo']), { code: -8, message: 'mallocinfo mode not available' });
  assert.equal(await result(d, 'syncwithvalidationinterfacequeue'), null);
  const help = await result(d, 'help');
  for (const section of ['== Network ==\naddnode "node" "command" ( v2transport )\nclearbanned\ndisconnectnode ( "address" nodeid )\n', '\ngetconnectioncount\ngetnettotals\ngetnetworkinfo\n', '== Util ==\ncreatemultisig nrequired ["key",...] ( "address_type" )\nderiveaddresses', '== Wallet ==\nabandontransaction', '\ngetmemoryinfo ( "mode" )\n']) {
    assert.ok(help.includes(section), section);
  }
  assert.ok(!help.includes('syncwithvalidationinterfacequeue'));
});

test('wallet methods without a loaded wallet: Core’s errors on / and /wallet/<name>', async () => {
  assert.deepEqual(await error(d, 'getbalance'), { code: -18, message: NO_WALLET });
  assert.deepEqual(await error(d, 'getwalletinfo'), { code: -18, message: NO_WALLET });
  assert.deepEqual(await error(d, 'getbalance', [], '/wallet/w1'), { code: -18, message: 'Requested wallet does not exist or is not loaded' });
  const r = await d.rpc('getbalance', [], { path: '/wallet/w1' });
  assert.equal(r.status, 500);
  // Non-wallet methods ignore the wallet path.
  assert.equal(await result(d, 'getblockcount', [], '/wallet/w1'), 112);
  assert.deepEqual(await result(d, 'listwallets'), []);
  assert.deepEqual(await result(d, 'listwalletdir'), { wallets: [] });
  assert.deepEqual(await error(d, 'createwallet', ['w1', false, false, '', false, false]), {
    code: -4,
    message: 'descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.',
  });
  assert.equal((await error(d, 'loadwallet', ['w1'])).code, -18);
  assert.match((await error(d, 'loadwallet', ['w1'])).message, /^Wallet file verification failed\. Failed to load database path '.*w1'\. Path does not exist\.$/);
  assert.deepEqual(await error(d, 'unloadwallet', ['w2'], '/wallet/w1'), { code: -8, message: 'The RPC endpoint wallet and the wallet name parameter specify different wallets' });
  // 2.0: method errors are HTTP 200.
  const two = await d.post('{"jsonrpc":"2.0","method":"getbalance","id":"x"}');
  assert.equal(two.status, 200);
  assert.deepEqual(JSON.parse(two.body), { jsonrpc: '2.0', error: { code: -18, message: NO_WALLET }, id: 'x' });
});

test('-txindex finds spent transactions for gettxoutproof; -disablewallet; -deprecatedrpc=warnings', async () => {
  const d2 = await Daemon.start({ args: ['-txindex', '-disablewallet', '-deprecatedrpc=warnings'] });
  try {
    for (const hash of hashes) {
      const block = await result(d, 'getblock', [hash, 0]);
      assert.equal(await result(d2, 'submitblock', [block]), null);
    }
    assert.equal(parseBlock(fromHex(await result(d2, 'getblock', [hashes.at(-1), 0]))).header.hashHex, hashes.at(-1));
    const spentCoinbase = (await blockTxids(1))[0]!;
    let proof: string | undefined;
    for (let i = 0; i < 200 && proof === undefined; i++) {
      const r = await d2.rpc('gettxoutproof', [[spentCoinbase]]);
      if (r.json.error === null) proof = r.json.result;
      else await sleep(25); // the txindex catches up in the background
    }
    assert.ok(proof);
    assert.deepEqual(await result(d, 'verifytxoutproof', [proof]), [spentCoinbase]);
    assert.deepEqual(await error(d2, 'gettxoutproof', [['11'.repeat(32)]]), { code: -5, message: 'Transaction not yet in block' });
    assert.deepEqual(await error(d2, 'getbalance'), { code: -32601, message: 'Method not found' });
    assert.deepEqual(await error(d2, 'createwallet', ['w']), { code: -32601, message: 'Method not found' });
    assert.ok(!(await result(d2, 'help')).includes('== Wallet =='));
    assert.equal((await result(d2, 'getnetworkinfo')).warnings, '');
  } finally {
    await d2.cleanup();
  }
});
