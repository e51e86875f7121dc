/**
 * The policy options as the reference bitcoind v31.0 reads them, compared side by side:
 * bad values stop start-up with bitcoind's exit code and message; accepted values
 * (including the odd ones Core takes as they are: negative or oversized unsigned
 * values, -incrementalrelayfee raising -minrelaytxfee, the ignored pre-cluster limits)
 * give bitcoind's getmempoolinfo (but for `usage`) and getnetworkinfo fees; and the
 * options change acceptance as they do in bitcoind, the cluster limits at their edges
 * included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { fromHex, hashToHex } from '../../src/primitives/index.js';
import { TestWallet } from '../support/wallet.js';
import { assertSameStartupRefusals } from './bitcoind-process.js';
import { cleanupsAfterTests, skipUnless } from './node-under-test.js';
import { referenceStarter, startPairedNodes } from './paired-nodes.js';

const cleanups = cleanupsAfterTests();
const reference = referenceBitcoind();
const skip = skipUnless(referenceStarter);

const INVALID: readonly string[][] = [
  ['-regtest', '-minrelaytxfee=abc'],
  ['-regtest', '-minrelaytxfee=-1'],
  ['-regtest', '-minrelaytxfee=21000001'],
  ['-regtest', '-incrementalrelayfee=x'],
  ['-regtest', '-dustrelayfee=1e-5'],
  ['-regtest', '-blockmintxfee=zz'],
  ['-regtest', '-limitclustercount=65'],
  ['-regtest', '-limitclustercount=-1'],
  ['-regtest', '-limitclustersize=99999999'],
  ['-regtest', '-maxmempool=1'],
  ['-regtest', '-maxmempool=-1'],
  ['-regtest', '-limitclustersize=126', '-maxmempool=5'],
  ['-acceptnonstdtxn=1'],
];

test('bad policy options stop start-up with bitcoind exit code and message', { skip, timeout: 300_000 }, async () => {
  await assertSameStartupRefusals((reference as { path: string }).path, INVALID);
});

const ACCEPTED: readonly string[][] = [
  [],
  ['-minrelaytxfee=0.00000001', '-datacarrier=0', '-permitbaremultisig=0', '-limitancestorcount=5', '-limitdescendantcount=3', '-limitancestorsize=10', '-limitdescendantsize=10'],
  ['-incrementalrelayfee=0.0001', '-datacarriersize=-1', '-limitclustercount=4294967301', '-maxmempool=0'],
  ['-nominrelaytxfee', '-incrementalrelayfee=0.00005', '-datacarriersize=5000000005', '-limitclustersize=-5'],
  ['-incrementalrelayfee=0.0001', '-minrelaytxfee=0.00001', '-datacarriersize=abc', '-dustrelayfee=0.0001', '-acceptnonstdtxn=1', '-bytespersigop=-1'],
  ['-limitclustercount=10', '-limitclustersize=50', '-blockmintxfee=0.0001'],
];

test('accepted policy options give bitcoind getmempoolinfo and relay fees', { skip, timeout: 300_000 }, async () => {
  for (const args of ACCEPTED) {
    const pair = await startPairedNodes(args);
    try {
      const [want, got] = await pair.both<Record<string, unknown>>('getmempoolinfo');
      delete want.usage;
      delete got.usage;
      assert.deepEqual(got, want, args.join(' '));
      const fees = (info: { relayfee: number; incrementalfee: number }) => [info.relayfee, info.incrementalfee];
      const [wantNet, gotNet] = await pair.both('getnetworkinfo');
      assert.deepEqual(fees(gotNet), fees(wantNet), args.join(' '));
      const [wantMining, gotMining] = await pair.both<{ blockmintxfee: number }>('getmininginfo');
      assert.equal(gotMining.blockmintxfee, wantMining.blockmintxfee, args.join(' '));
    } finally {
      await pair.stop();
    }
  }
});

/** A compressed public key (the generator point) for bare scripts. */
const KEY = fromHex('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const OP_RETURN = 0x6a;
const OP_CHECKSIG = 0xac;
const OP_CHECKMULTISIG = 0xae;
const OP_1 = 0x51;

test('-datacarriersize, -permitbaremultisig, -dustrelayfee, -minrelaytxfee and -bytespersigop decide acceptance, and -blockmintxfee the template, as in bitcoind', { skip, timeout: 300_000 }, async () => {
  const pair = await startPairedNodes(['-datacarriersize=22', '-permitbaremultisig=0', '-dustrelayfee=0.0001', '-minrelaytxfee=0.00002', '-bytespersigop=200', '-blockmintxfee=0.00003']);
  cleanups.push(() => pair.stop());
  const wallet = new TestWallet(23);
  await pair.mine(wallet, 110);
  const coins = wallet.spendable(111).filter((c) => c.coinbase);
  let next = 0;
  /** A spend of one coinbase: `extra` outputs, and the rest back to the wallet less `fee`. */
  const spend = (extra: { value: bigint; script: Uint8Array }[], fee: bigint) => {
    const coin = coins[next++]!;
    const rest = coin.value - fee - extra.reduce((a, o) => a + o.value, 0n);
    return wallet.spend([coin], [...extra.map((o) => ({ value: o.value, to: o.script })), { value: rest, to: 'p2tr-key' as const }]);
  };
  const data = (n: number) => Uint8Array.of(OP_RETURN, n, ...new Uint8Array(n));
  const outcomes = {
    dataAtLimit: await pair.send(spend([{ value: 0n, script: data(20) }], 1000n)),
    dataOverLimit: await pair.send(spend([{ value: 0n, script: data(21) }], 1000n)),
    bareMultisig: await pair.send(spend([{ value: 10_000n, script: Uint8Array.of(OP_1, 33, ...KEY, OP_1, OP_CHECKMULTISIG) }], 1000n)),
    dust: await pair.send(spend([{ value: 500n, script: wallet.scriptPubKey('p2tr-key') }], 1000n)),
    belowMinRelay: await pair.send(spend([], 200n)),
    // One sigop at 200 bytes each makes the virtual size 200: 300 sat no longer pays 2 sat/vB.
    sigopHeavy: await pair.send(spend([{ value: 10_000n, script: Uint8Array.of(33, ...KEY, OP_CHECKSIG) }], 300n)),
    sigopHeavyPaid: await pair.send(spend([{ value: 10_000n, script: Uint8Array.of(33, ...KEY, OP_CHECKSIG) }], 400n)),
  };
  // Both nodes gave these answers (send asserts it); that they are the intended rules:
  assert.equal(outcomes.dataAtLimit, 'accepted');
  assert.equal(outcomes.sigopHeavyPaid, 'accepted');
  assert.match(outcomes.dataOverLimit, /: datacarrier$/);
  assert.match(outcomes.bareMultisig, /: bare-multisig$/);
  assert.match(outcomes.dust, /: dust/);
  assert.match(outcomes.belowMinRelay, /min relay fee not met/);
  assert.match(outcomes.sigopHeavy, /min relay fee not met, 300 < 400/);
  const sizes = (pool: Record<string, { vsize: number; weight: number; chunkweight: number; fees: unknown }>) =>
    Object.entries(pool).map(([txid, e]) => [txid, e.vsize, e.weight, e.chunkweight, e.fees]);
  const [want, got] = await pair.both('getrawmempool', [true]);
  assert.deepEqual(sizes(got).sort(), sizes(want).sort());
  // The 2 sat/vB transaction stays out of a template that asks 3.
  const [wantTemplate, gotTemplate] = await pair.both<{ transactions: { txid: string }[] }>('getblocktemplate', [{ rules: ['segwit'] }]);
  assert.deepEqual(gotTemplate.transactions.map((t) => t.txid), wantTemplate.transactions.map((t) => t.txid));
  assert.equal(wantTemplate.transactions.length, 1);
});

test('-limitclustercount and -limitclustersize at their edges (0, 1, negative) decide on a parent and its child as bitcoind does', { skip, timeout: 300_000 }, async () => {
  for (const args of [['-limitclustercount=0'], ['-limitclustercount=1'], ['-limitclustersize=0'], ['-limitclustersize=-5']]) {
    const pair = await startPairedNodes(args);
    try {
      const wallet = new TestWallet(9);
      await pair.mine(wallet, 102);
      const coin = wallet.spendable(103).find((c) => c.coinbase)!;
      const parent = wallet.spend([coin], [{ value: coin.value - 1000n, to: 'p2tr-key' }]);
      await pair.send(parent);
      const out = wallet.spendable(Number.MAX_SAFE_INTEGER).find((c) => hashToHex(c.outpoint.txid) === parent.txidHex)!;
      // send asserts that both nodes answer alike.
      await pair.send(wallet.spend([out], [{ value: out.value - 1000n, to: 'p2tr-key' }]));
      const [want, got] = await pair.both<string[]>('getrawmempool');
      assert.deepEqual(got.sort(), want.sort(), args.join(' '));
    } finally {
      await pair.stop();
    }
  }
});
