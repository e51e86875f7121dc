/**
 * The Esplora API (-esplora, with -txindex and -addressindex) read by the published
 * `@mempool/mempool.js` client, unmodified, against what the chain holds as tsbtcd's
 * JSON-RPC reports it (getblock verbosity 3, getrawmempool, getrawtransaction verbosity 2,
 * gettxoutproof): blocks, transactions with prevouts, fees and status, outspends, address
 * stats, history with paging, UTXOs, the mempool, and POST /tx; then the same after a
 * reorg that sends confirmed payments back to the pool and after they confirm again.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { Daemon, waitFor, walletCaller, type WalletCaller } from './daemon-harness.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const mempoolJS = require('@mempool/mempool.js') as (options: { hostname: string; network: string }) => { bitcoin: any };

const sats = (btc: number): number => Math.round(btc * 1e8);

interface ChainTx {
  txid: string;
  height: number;
  pos: number;
  blockhash: string;
  time: number;
  /** Spent outputs' (script hex, value) per input; none for a coinbase. */
  prevouts: { script: string; value: number; address?: string; txid: string; vout: number }[];
  outputs: { script: string; value: number; address?: string }[];
  fee: number;
  coinbase: boolean;
}

interface PoolTx extends Omit<ChainTx, 'height' | 'pos' | 'blockhash' | 'time'> {
  time: number;
}

/** The active chain and the pool as JSON-RPC reports them. */
async function chainFacts(d: Daemon): Promise<{ txs: ChainTx[]; pool: PoolTx[] }> {
  const tip = await d.call<number>('getblockcount');
  const txs: ChainTx[] = [];
  for (let height = 0; height <= tip; height++) {
    const block = await d.call('getblock', [await d.call('getblockhash', [height]), 3]);
    block.tx.forEach((tx: any, pos: number) => {
      const coinbase = 'coinbase' in tx.vin[0];
      txs.push({
        txid: tx.txid,
        height,
        pos,
        blockhash: block.hash,
        time: block.time,
        coinbase,
        prevouts: coinbase ? [] : tx.vin.map((i: any) => ({ script: i.prevout.scriptPubKey.hex, value: sats(i.prevout.value), address: i.prevout.scriptPubKey.address, txid: i.txid, vout: i.vout })),
        outputs: tx.vout.map((o: any) => ({ script: o.scriptPubKey.hex, value: sats(o.value), address: o.scriptPubKey.address })),
        fee: coinbase ? 0 : sats(tx.fee),
      });
    });
  }
  const pool: PoolTx[] = [];
  const verbose = await d.call<Record<string, any>>('getrawmempool', [true]);
  for (const [txid, entry] of Object.entries(verbose)) {
    // Core reports no prevouts for a pooled transaction: each is read from its parent (-txindex).
    const tx = await d.call('getrawtransaction', [txid, 1]);
    const prevouts = [];
    for (const input of tx.vin) {
      const spent = (await d.call('getrawtransaction', [input.txid, 1])).vout[input.vout];
      prevouts.push({ script: spent.scriptPubKey.hex, value: sats(spent.value), address: spent.scriptPubKey.address, txid: input.txid, vout: input.vout });
    }
    pool.push({
      txid,
      time: entry.time,
      coinbase: false,
      prevouts,
      outputs: tx.vout.map((o: any) => ({ script: o.scriptPubKey.hex, value: sats(o.value), address: o.scriptPubKey.address })),
      fee: sats(entry.fees.base),
    });
  }
  return { txs, pool };
}

const isConfirmed = (tx: ChainTx | PoolTx): tx is ChainTx => 'blockhash' in tx;

function touches(tx: { prevouts: { script: string }[]; outputs: { script: string }[] }, script: string): boolean {
  return tx.outputs.some((o) => o.script === script && !o.script.startsWith('6a')) || tx.prevouts.some((p) => p.script === script);
}

/** The address's expectations: stats, confirmed history newest first, UTXOs (pool spends applied). */
function addressFacts(facts: { txs: ChainTx[]; pool: PoolTx[] }, script: string) {
  const stats = (list: { prevouts: { script: string; value: number }[]; outputs: { script: string; value: number }[] }[]) => {
    const s = { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 };
    for (const tx of list) {
      s.tx_count++;
      for (const o of tx.outputs) if (o.script === script) (s.funded_txo_count++, (s.funded_txo_sum += o.value));
      for (const p of tx.prevouts) if (p.script === script) (s.spent_txo_count++, (s.spent_txo_sum += p.value));
    }
    return s;
  };
  const chain = facts.txs.filter((tx) => touches(tx, script)).sort((a, b) => b.height - a.height || b.pos - a.pos);
  const pool = facts.pool.filter((tx) => touches(tx, script));
  const spent = new Set<string>();
  for (const tx of [...facts.txs, ...facts.pool]) for (const p of tx.prevouts) spent.add(`${p.txid}:${p.vout}`);
  const utxos: string[] = [];
  for (const tx of [...chain, ...pool]) {
    tx.outputs.forEach((o, vout) => {
      if (o.script === script && !spent.has(`${tx.txid}:${vout}`)) utxos.push(`${tx.txid}:${vout}:${o.value}:${'height' in tx ? tx.height : 'pool'}`);
    });
  }
  return { chainStats: stats(chain), mempoolStats: stats(pool), chain, pool, utxos: utxos.sort() };
}

function checkTxValue(actual: any, expected: ChainTx | PoolTx): void {
  assert.equal(actual.txid, expected.txid);
  assert.equal(actual.fee, expected.fee, `fee of ${expected.txid}`);
  assert.deepEqual(
    actual.vout.map((o: any) => ({ script: o.scriptpubkey, value: o.value, address: o.scriptpubkey_address })),
    expected.outputs.map((o) => ({ script: o.script, value: o.value, address: o.address })),
  );
  if (expected.coinbase) {
    assert.equal(actual.vin[0].is_coinbase, true);
    assert.equal(actual.vin[0].prevout, null);
  } else {
    assert.deepEqual(
      actual.vin.map((i: any) => ({ script: i.prevout.scriptpubkey, value: i.prevout.value, address: i.prevout.scriptpubkey_address, txid: i.txid, vout: i.vout })),
      expected.prevouts,
    );
  }
  if ('height' in expected) assert.deepEqual(actual.status, { confirmed: true, block_height: expected.height, block_hash: expected.blockhash, block_time: expected.time });
  else assert.deepEqual(actual.status, { confirmed: false });
}

let d: Daemon;
let w: WalletCaller;
let api: any;
let base: string;
const addresses: Record<string, string> = {};
const scripts: Record<string, string> = {};

async function indexSynced(): Promise<void> {
  const height = await d.call<number>('getblockcount');
  await waitFor(
    'address index synced',
    async () => {
      const info = (await d.call('getindexinfo', ['addressindex'])).addressindex;
      return info?.synced && info.best_block_height === height ? true : undefined;
    },
    60_000,
  );
}

async function getJson(path: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${base}${path}`);
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

/** Everything the client reads, against the chain's facts. */
async function checkEverything(label: string): Promise<{ txs: ChainTx[]; pool: PoolTx[] }> {
  await indexSynced();
  const facts = await chainFacts(d);
  const tip = await d.call<number>('getblockcount');
  assert.equal(await api.blocks.getBlocksTipHeight(), tip, label);
  assert.equal(await api.blocks.getBlocksTipHash(), await d.call('getbestblockhash'), label);

  // Blocks: a few heights, every read mempool.js has for them.
  for (const height of [0, 1, tip - 2, tip - 1, tip]) {
    const hash = await d.call<string>('getblockhash', [height]);
    assert.equal(await api.blocks.getBlockHeight({ height }), hash);
    const verbose = await d.call('getblock', [hash, 1]);
    assert.deepEqual(await api.blocks.getBlockTxids({ hash }), verbose.tx);
    assert.equal(await api.blocks.getBlockHeader({ hash }), await d.call('getblockheader', [hash, false]));
    assert.equal(await api.blocks.getBlockTxid({ hash, index: 0 }), verbose.tx[0]);
    // mempool.js hands raw bytes over as axios's text; the bytes are checked over fetch.
    assert.ok((await api.blocks.getBlockRaw({ hash })).length > 0);
    const raw = await fetch(`${base}/block/${hash}/raw`);
    assert.equal(raw.headers.get('content-type'), 'application/octet-stream');
    assert.equal(Buffer.from(await raw.arrayBuffer()).toString('hex'), await d.call('getblock', [hash, 0]));
    assert.deepEqual(await api.blocks.getBlockStatus({ hash }), { in_best_chain: true, height, next_best: height < tip ? await d.call('getblockhash', [height + 1]) : null });
    const block = (await getJson(`/block/${hash}`)).body;
    assert.deepEqual(
      { id: block.id, height: block.height, tx_count: block.tx_count, size: block.size, weight: block.weight, merkle_root: block.merkle_root, mediantime: block.mediantime, previousblockhash: block.previousblockhash },
      { id: hash, height, tx_count: verbose.nTx, size: verbose.size, weight: verbose.weight, merkle_root: verbose.merkleroot, mediantime: verbose.mediantime, previousblockhash: verbose.previousblockhash ?? null },
    );
    const page = await api.blocks.getBlockTxs({ hash, start_index: 0 });
    const inBlock = facts.txs.filter((tx) => tx.blockhash === hash);
    assert.equal(page.length, Math.min(25, inBlock.length));
    page.forEach((tx: any, i: number) => checkTxValue(tx, inBlock[i]!));
  }
  const list = (await getJson('/blocks')).body;
  assert.deepEqual(
    list.map((b: any) => b.height),
    Array.from({ length: Math.min(10, tip + 1) }, (_, i) => tip - i),
  );

  // Transactions: every one of the last blocks and the pool, through the client.
  const recent = facts.txs.filter((tx) => tx.height >= tip - 3);
  for (const expected of [...recent, ...facts.pool]) {
    const txid = expected.txid;
    checkTxValue(await api.transactions.getTx({ txid }), expected);
    const status = await api.transactions.getTxStatus({ txid });
    assert.equal(status.confirmed, 'height' in expected);
    assert.equal(await api.transactions.getTxHex({ txid }), await d.call('getrawtransaction', [txid]));
    const spends = await api.transactions.getTxOutspends({ txid });
    assert.equal(spends.length, expected.outputs.length);
    spends.forEach((spend: any, vout: number) => {
      const spender = [...facts.txs, ...facts.pool].find((tx) => tx.prevouts.some((p) => p.txid === txid && p.vout === vout));
      assert.equal(spend.spent, spender !== undefined, `outspend ${txid}:${vout}`);
      if (spender) {
        assert.equal(spend.txid, spender.txid);
        assert.equal(spend.status.confirmed, 'height' in spender);
      }
    });
    if (isConfirmed(expected)) {
      const proof = await api.transactions.getTxMerkleProof({ txid });
      assert.equal(proof.block_height, expected.height);
      assert.equal(proof.pos, expected.pos);
      assert.equal(await api.transactions.getTxMerkleBlockProof({ txid }), await d.call('gettxoutproof', [[txid], expected.blockhash]));
    }
  }

  // Addresses: stats, history pages, unspent outputs.
  for (const [kind, address] of Object.entries(addresses)) {
    const expected = addressFacts(facts, scripts[kind]!);
    const got = await api.addresses.getAddress({ address });
    assert.deepEqual(got, { address, chain_stats: expected.chainStats, mempool_stats: expected.mempoolStats }, `${label}: stats of ${kind}`);
    const firstPage = await api.addresses.getAddressTxsChain({ address });
    assert.deepEqual(
      firstPage.map((tx: any) => tx.txid),
      expected.chain.slice(0, 25).map((tx) => tx.txid),
      `${label}: first page of ${kind}`,
    );
    // Paging by the last txid seen reaches the whole history, newest first.
    const all: string[] = firstPage.map((tx: any) => tx.txid);
    while (all.length > 0 && all.length % 25 === 0) {
      const next = (await getJson(`/address/${address}/txs/chain/${all[all.length - 1]}`)).body;
      if (next.length === 0) break;
      all.push(...next.map((tx: any) => tx.txid));
    }
    assert.deepEqual(all, expected.chain.map((tx) => tx.txid), `${label}: whole history of ${kind}`);
    const pooled = await api.addresses.getAddressTxsMempool({ address });
    assert.deepEqual(pooled.map((tx: any) => tx.txid).sort(), expected.pool.map((tx) => tx.txid).sort(), `${label}: pool history of ${kind}`);
    const both = await api.addresses.getAddressTxs({ address });
    assert.deepEqual(both.map((tx: any) => tx.txid).sort(), [...expected.pool, ...expected.chain.slice(0, 25)].map((tx) => tx.txid).sort());
    const utxos = await api.addresses.getAddressTxsUtxo({ address });
    assert.deepEqual(
      utxos.map((u: any) => `${u.txid}:${u.vout}:${u.value}:${u.status.confirmed ? u.status.block_height : 'pool'}`).sort(),
      expected.utxos,
      `${label}: utxos of ${kind}`,
    );
  }

  // The pool.
  assert.deepEqual((await api.mempool.getMempoolTxids()).sort(), facts.pool.map((tx) => tx.txid).sort());
  const backlog = await api.mempool.getMempool();
  assert.equal(backlog.count, facts.pool.length);
  assert.equal(backlog.total_fee, facts.pool.reduce((s, tx) => s + tx.fee, 0));
  return facts;
}

before(async () => {
  d = await Daemon.start({ args: ['-txindex', '-addressindex', '-esplora', '-fallbackfee=0.0002'] });
  base = `http://127.0.0.1:${d.port}/api`;
  api = mempoolJS({ hostname: `localhost:${d.port}`, network: 'regtest' }).bitcoin;
  await d.call('createwallet', ['w']);
  w = walletCaller(d, 'w');
  await d.call('generatetoaddress', [110, await w('getnewaddress')]);
  for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) {
    addresses[type] = await w('getnewaddress', ['', type]);
    scripts[type] = (await w('getaddressinfo', [addresses[type]])).scriptPubKey;
  }
});
after(async () => {
  await d?.cleanup();
});

test('mempool.js reads blocks, transactions, address history and UTXOs as the chain holds them', { timeout: 300_000 }, async () => {
  // 30 payments to the legacy address (two pages of history), a few to each other type,
  // an OP_RETURN output, and spends from the bech32 address's own coins.
  for (let i = 0; i < 30; i++) {
    await w('sendtoaddress', [addresses.legacy, Number((0.1 + i / 1000).toFixed(3))]);
    if (i % 8 === 7) await d.call('generatetoaddress', [1, await w('getnewaddress')]);
  }
  for (const type of ['p2sh-segwit', 'bech32', 'bech32m']) for (let i = 0; i < 3; i++) await w('sendtoaddress', [addresses[type], 1 + i]);
  const data = await d.call('createrawtransaction', [[], [{ data: 'c0ffee' }, { [addresses.bech32m!]: 0.5 }]]);
  const funded = await w('fundrawtransaction', [data]);
  await d.call('sendrawtransaction', [(await w('signrawtransactionwithwallet', [funded.hex])).hex]);
  await d.call('generatetoaddress', [1, await w('getnewaddress')]);
  const coins = await w('listunspent', [1, 9999, [addresses.bech32]]);
  const spend = await d.call('createrawtransaction', [[{ txid: coins[0].txid, vout: coins[0].vout }], [{ [addresses.legacy!]: coins[0].amount - 0.001 }]]);
  await d.call('sendrawtransaction', [(await w('signrawtransactionwithwallet', [spend])).hex]);
  await d.call('generatetoaddress', [1, await w('getnewaddress')]);
  await checkEverything('confirmed');

  // POST /tx through the client: a spend of a confirmed bech32 coin enters the pool.
  const left = await w('listunspent', [1, 9999, [addresses.bech32]]);
  const raw = await d.call('createrawtransaction', [[{ txid: left[0].txid, vout: left[0].vout }], [{ [addresses['p2sh-segwit']!]: left[0].amount - 0.0002 }]]);
  const signed = (await w('signrawtransactionwithwallet', [raw])).hex;
  const posted = await api.transactions.postTx({ txhex: signed });
  assert.equal(posted, (await d.call('decoderawtransaction', [signed])).txid);
  await w('sendtoaddress', [addresses.bech32m, 0.25]);
  await checkEverything('with pooled spends');

  // Bad input gets Esplora's plain-text errors.
  assert.deepEqual(await getJson('/tx/xyz'), { status: 400, body: undefined, text: 'Invalid hex string' });
  assert.equal((await getJson(`/tx/${'00'.repeat(32)}`)).text, 'Transaction not found');
  assert.equal((await getJson('/address/notanaddress')).status, 400);
  assert.equal((await getJson('/address/tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).text, 'Address on invalid network');
  assert.equal((await getJson(`/block/${'11'.repeat(32)}`)).text, 'Block not found');
  assert.equal((await getJson('/nothing/here')).status, 404);
  const refused = await fetch(`${base}/tx`, { method: 'POST', body: 'zz' });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /^sendrawtransaction RPC error -22: TX decode failed/);
});

test('through a reorg: payments of disconnected blocks go back to the pool, then confirm on the new branch', { timeout: 300_000 }, async () => {
  await d.call('generatetoaddress', [1, await w('getnewaddress')]);
  const tip = await d.call<number>('getblockcount');
  // The last three blocks hold payments to the addresses; a longer branch without them replaces them.
  const fork = await d.call<string>('getblockhash', [tip - 2]);
  await w('sendtoaddress', [addresses.legacy, 0.3]);
  await d.call('generatetoaddress', [1, await w('getnewaddress')]);
  await d.call('invalidateblock', [fork]);
  const miner = await w('getnewaddress');
  for (let i = 0; i < 5; i++) await d.call('generateblock', [miner, []]);
  const reorged = await checkEverything('after the reorg');
  // The disconnected payments are pooled now: the legacy address has unconfirmed activity.
  assert.ok(reorged.pool.length >= 2);
  assert.ok((await api.addresses.getAddress({ address: addresses.legacy })).mempool_stats.tx_count >= 1);
  const stale = (await getJson(`/block/${fork}/status`)).body;
  assert.deepEqual(stale, { in_best_chain: false, height: null, next_best: null });
  await d.call('generatetoaddress', [1, miner]);
  const again = await checkEverything('confirmed again');
  assert.equal(again.pool.length, 0);
});
