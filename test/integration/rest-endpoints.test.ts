/**
 * Every REST endpoint in every format against a real tsbtcd (-rest -txindex
 * -blockfilterindex) whose chain
 * holds segwit v0 and taproot (key and script path) spends, a ~900 kB block and a stale
 * block, over real HTTP: bodies byte for byte against the RPC results they must equal
 * (getblockchaininfo, getdeploymentinfo, getmempoolinfo, getblock 0/1/3, getblockheader,
 * getblockhash, gettxout, getrawtransaction, getblockfilter), content types, trailing newlines, and every
 * error of Core's rest.cpp with its status and text.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { after, before, test } from 'node:test';
import { concatBytes, fromHex, hashToHex, hexToHash, parseBlock, toHex } from '../../src/primitives/index.js';
import { OP, pushData } from '../../src/script/index.js';
import { Daemon, waitFor } from './daemon-harness.js';
import { mineWithSpends } from '../support/regtest-mining.js';
import { rawExchange, rawResult, restRequest, type RestResponse } from '../support/rest-client.js';
import { TestWallet } from '../support/wallet.js';

let d: Daemon;
const wallet = new TestWallet(31);
/** Active chain hashes by height (0 = genesis). */
let hashes: string[] = [];
let bigBlock: string;
let staleBlock: string;
let headerOnly: string;
/** Transactions of the spend blocks, with their kinds of inputs. */
let spendBlock: string;
const ZERO = '00'.repeat(32);
const GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

const get = (target: string, opts: Parameters<typeof restRequest>[2] = {}) => restRequest(d.port, target, opts);
/** The RPC result as the node wrote it. */
async function rpcText(method: string, params: unknown[] = []): Promise<string> {
  const r = await d.post(JSON.stringify({ method, params, id: 1 }));
  return rawResult(r.body);
}

function assertError(r: RestResponse, status: number, message: string, what = ''): void {
  assert.equal(r.status, status, `${what}: status (body ${JSON.stringify(r.text)})`);
  assert.equal(r.headers['content-type'], 'text/plain', `${what}: content type`);
  assert.equal(r.text, `${message}\r\n`, what);
}

function assertOk(r: RestResponse, contentType: string, what = ''): void {
  assert.equal(r.status, 200, `${what}: status ${r.status} ${r.text.slice(0, 200)}`);
  assert.equal(r.headers['content-type'], contentType, `${what}: content type`);
  assert.equal(r.headers['content-length'], String(r.body.length), `${what}: content length`);
  // Core v31 sends no Cache-Control (master does).
  assert.equal(r.headers['cache-control'], undefined);
}

before(async () => {
  d = await Daemon.start({ args: ['-rest', '-txindex', '-blockfilterindex', '-rpcfrontends=2', '-par=2'] });
  // Coinbases to the wallet, then blocks whose transactions spend them through every kind of output.
  await mineWithSpends(d, wallet, 0, 112, { seed: 31, chainRate: 1, earlierRate: 1 });
  // A ~900 kB block: one transaction with nine 100 kB OP_RETURN outputs.
  const height = await d.call<number>('getblockcount');
  const coin = wallet.spendable(height + 1).find((c) => !c.coinbase && c.height !== null)!;
  const filler = (i: number) => concatBytes(Uint8Array.of(OP.OP_RETURN), pushData(new Uint8Array(100_000).fill(i)));
  const big = wallet.spend([coin], [{ value: coin.value - 5000n, to: 'p2tr-key' }, ...Array.from({ length: 9 }, (_, i) => ({ value: 0n, to: filler(i) }))]);
  bigBlock = (await d.call<{ hash: string }>('generateblock', [wallet.address('p2wpkh'), [toHex(big.toBytes())]])).hash;
  wallet.confirmBuilt(height + 1);
  // A stale block: the tip is replaced by a longer branch and then reconsidered (valid-fork).
  const tip = await d.call<string>('getbestblockhash');
  await d.call('invalidateblock', [tip]);
  await d.call('generatetoaddress', [2, wallet.address('p2tr-leaf')]);
  await d.call('reconsiderblock', [tip]);
  staleBlock = tip;
  // A header whose block never arrives (not fully downloaded).
  const made = await d.call<{ hash: string; hex: string }>('generateblock', [wallet.address('p2tr-tree'), [], false]);
  assert.equal(await d.call('submitheader', [made.hex.slice(0, 160)]), null);
  headerOnly = made.hash;
  const count = await d.call<number>('getblockcount');
  await waitFor('the indexes to catch up', async () => {
    const info = await d.call('getindexinfo');
    return info.txindex?.synced && info['basic block filter index']?.synced ? true : undefined;
  }, 60_000);
  hashes = [];
  for (let h = 0; h <= count; h++) hashes.push(await d.call<string>('getblockhash', [h]));
  // A block with segwit v0 and taproot spends in it.
  for (let h = 101; h <= count; h++) {
    const b = await d.call('getblock', [hashes[h], 2]);
    const witnesses = b.tx.slice(1).flatMap((t: any) => t.vin.map((v: any) => v.txinwitness?.length ?? 0));
    if (b.tx.length >= 3 && witnesses.includes(2) && witnesses.includes(1) && witnesses.includes(3)) {
      spendBlock = hashes[h]!;
      break;
    }
  }
  assert.ok(spendBlock, 'a block with p2wpkh, taproot key-path and script-path spends');
});

after(async () => {
  await d?.cleanup();
});

test('chaininfo.json equals getblockchaininfo byte for byte; other formats are 404', async () => {
  const r = await get('/rest/chaininfo.json');
  assertOk(r, 'application/json');
  assert.equal(r.text, `${await rpcText('getblockchaininfo')}\n`);
  assert.equal((await get('/rest/chaininfoXYZ.json')).text, r.text);
  for (const t of ['/rest/chaininfo', '/rest/chaininfo.hex', '/rest/chaininfo.bin', '/rest/chaininfo.', '/rest/chaininfo.JSON']) {
    assertError(await get(t), 404, 'output format not found (available: json)', t);
  }
});

test('deploymentinfo equals getdeploymentinfo at the tip and at a given block', async () => {
  const tip = await get('/rest/deploymentinfo.json');
  assertOk(tip, 'application/json');
  assert.equal(tip.text, `${await rpcText('getdeploymentinfo')}\n`);
  assert.equal((await get('/rest/deploymentinfo/.json')).text, tip.text);
  for (const h of [GENESIS, hashes[50]!, staleBlock]) {
    const r = await get(`/rest/deploymentinfo/${h}.json`);
    assertOk(r, 'application/json');
    assert.equal(r.text, `${await rpcText('getdeploymentinfo', [h])}\n`);
  }
  assertError(await get(`/rest/deploymentinfo/${ZERO}.json`), 400, 'Block not found');
  assertError(await get('/rest/deploymentinfo/xyz.json'), 400, 'Invalid hash: xyz');
  assertError(await get('/rest/deploymentinfoXYZ.json'), 400, 'Invalid hash: XYZ');
  // The format is checked before the hash.
  assertError(await get(`/rest/deploymentinfo/${ZERO}.hex`), 404, 'output format not found (available: json)');
  assertError(await get('/rest/deploymentinfo/xyz'), 404, 'output format not found (available: json)');
});

test('mempool/info.json equals getmempoolinfo; contents.json is the empty pool’s getrawmempool', async () => {
  const info = await get('/rest/mempool/info.json');
  assertOk(info, 'application/json');
  assert.equal(info.text, `${await rpcText('getmempoolinfo')}\n`);
  assert.equal(
    info.text,
    '{"loaded":true,"size":0,"bytes":0,"usage":0,"total_fee":0.00000000,"maxmempool":300000000,"mempoolminfee":0.00000100,"minrelaytxfee":0.00000100,"incrementalrelayfee":0.00000100,"unbroadcastcount":0,"fullrbf":true,"permitbaremultisig":true,"maxdatacarriersize":100000,"limitclustercount":64,"limitclustersize":101000,"optimal":true}\n',
  );
  const contents = await get('/rest/mempool/contents.json');
  assertOk(contents, 'application/json');
  const rawmempool = await d.rpc('getrawmempool', [true]);
  if (rawmempool.json.error?.code === -32601) {
    // getrawmempool arrives with the mempool: until then the empty pool's documented body.
    assert.equal(contents.text, '{}\n');
  } else {
    assert.equal(contents.text, `${rawResult(rawmempool.body)}\n`);
  }
  assert.equal((await get('/rest/mempool/contents.json?verbose=true')).text, contents.text);
  assert.equal((await get('/rest/mempool/contents.json?verbose=false')).text, '[]\n');
  assert.equal((await get('/rest/mempool/contents.json?verbose=false&mempool_sequence=true')).text, '{"txids":[],"mempool_sequence":1}\n');
  assert.equal((await get('/rest/mempool/contents.json?verbose=false&mempool_sequence=false')).text, '[]\n');
  // A malformed pair drops every parameter: defaults (verbose) apply.
  assert.equal((await get('/rest/mempool/contents.json?verbose=false&x')).text, contents.text);
  assertError(await get('/rest/mempool/contents.json?mempool_sequence=true'), 400, 'Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")');
  assertError(await get('/rest/mempool/contents.json?verbose=TRUE'), 400, 'The "verbose" query parameter must be either "true" or "false".');
  assertError(await get('/rest/mempool/contents.json?verbose=false&mempool_sequence=1'), 400, 'The "mempool_sequence" query parameter must be either "true" or "false".');
  assertError(await get('/rest/mempool/contents.json?verbose=%XY'), 400, 'URI parsing failed, it likely contained RFC 3986 invalid characters');
  for (const t of ['/rest/mempool/info', '/rest/mempool/info.hex', '/rest/mempool/contents.bin', '/rest/mempool/info.']) {
    assertError(await get(t), 404, 'output format not found (available: json)', t);
  }
  for (const t of ['/rest/mempool/info.xml', '/rest/mempool/foo.json', '/rest/mempool/.json', '/rest/mempool/info/x.json']) {
    assertError(await get(t), 400, 'Invalid URI format. Expected /rest/mempool/<info|contents>.json', t);
  }
});

test('block and block/notxdetails: bin, hex and JSON equal getblock 0, 3 and 1 (segwit, taproot, large, stale, genesis)', async () => {
  for (const hash of [GENESIS, spendBlock, hashes[100]!, staleBlock, bigBlock]) {
    const hex = JSON.parse(await rpcText('getblock', [hash, 0])) as string;
    const bin = await get(`/rest/block/${hash}.bin`);
    assertOk(bin, 'application/octet-stream', hash);
    assert.equal(bin.body.toString('hex'), hex);
    const hexReply = await get(`/rest/block/${hash}.hex`);
    assertOk(hexReply, 'text/plain');
    assert.equal(hexReply.text, `${hex}\n`);
    const full = await get(`/rest/block/${hash}.json`);
    assertOk(full, 'application/json');
    assert.equal(full.text, `${await rpcText('getblock', [hash, 3])}\n`, `getblock 3 of ${hash}`);
    const brief = await get(`/rest/block/notxdetails/${hash}.json`);
    assertOk(brief, 'application/json');
    assert.equal(brief.text, `${await rpcText('getblock', [hash, 1])}\n`);
    // notxdetails changes JSON only.
    assert.ok((await get(`/rest/block/notxdetails/${hash}.bin`)).body.equals(bin.body));
    assert.equal((await get(`/rest/block/notxdetails/${hash}.hex`)).text, hexReply.text);
  }
  // The stale block is served, with confirmations -1; the spend block's JSON has fees and prevouts of every kind.
  assert.equal(JSON.parse((await get(`/rest/block/${staleBlock}.json`)).text).confirmations, -1);
  const spend = JSON.parse((await get(`/rest/block/${spendBlock}.json`)).text);
  const types = new Set(spend.tx.slice(1).flatMap((t: any) => t.vin.map((v: any) => v.prevout.scriptPubKey.type)));
  assert.ok(types.has('witness_v0_keyhash') && types.has('witness_v1_taproot'), [...types].join());
  assert.ok(spend.tx.slice(1).every((t: any) => typeof t.fee === 'number'));
  const big = (await get(`/rest/block/${bigBlock}.bin`)).body;
  assert.ok(big.length > 900_000, `big block is ${big.length} bytes`);
  // Upper-case hashes are accepted.
  assert.ok((await get(`/rest/block/${spendBlock.toUpperCase()}.bin`)).body.equals((await get(`/rest/block/${spendBlock}.bin`)).body));
});

test('block errors: bad hash, unknown, not fully downloaded, unknown or missing suffix', async () => {
  for (const prefix of ['/rest/block/', '/rest/block/notxdetails/']) {
    assertError(await get(`${prefix}abc.json`), 400, 'Invalid hash: abc');
    assertError(await get(`${prefix}${GENESIS}.JSON`), 400, `Invalid hash: ${GENESIS}.JSON`);
    assertError(await get(`${prefix}${GENESIS}.xml?x=1`), 400, `Invalid hash: ${GENESIS}.xml`);
    assertError(await get(`${prefix}${ZERO}.bin`), 404, `${ZERO} not found`);
    // An unknown block is "not found" whatever the suffix; a known one without a format is the format error.
    assertError(await get(`${prefix}${ZERO}`), 404, `${ZERO} not found`);
    assertError(await get(`${prefix}${GENESIS}`), 404, 'output format not found (available: .bin, .hex, .json)');
    assertError(await get(`${prefix}${GENESIS}.`), 404, 'output format not found (available: .bin, .hex, .json)');
    assertError(await get(`${prefix}${headerOnly}.hex`), 404, `${headerOnly} not available (not fully downloaded)`);
  }
  // Query strings are ignored; the method is not looked at.
  assert.equal((await get(`/rest/block/${GENESIS}.hex?foo=bar`)).status, 200);
  assert.equal((await get(`/rest/block/${GENESIS}.hex`, { method: 'POST', body: 'x' })).status, 200);
  assert.equal((await get(`/rest/block/${GENESIS}.hex`, { method: 'PUT' })).status, 200);
});

test('blockpart (v31): byte ranges read alone, Core’s checks in Core’s order', async () => {
  const full = (await get(`/rest/block/${bigBlock}.bin`)).body;
  for (const [offset, size] of [[0, 80], [80, 1], [123_456, 400_000], [full.length - 1, 1], [0, full.length]] as const) {
    const bin = await get(`/rest/blockpart/${bigBlock}.bin?offset=${offset}&size=${size}`);
    assertOk(bin, 'application/octet-stream');
    assert.ok(bin.body.equals(full.subarray(offset, offset + size)), `${offset}/${size}`);
    const hex = await get(`/rest/blockpart/${bigBlock}.hex?size=${size}&offset=${offset}`);
    assertOk(hex, 'text/plain');
    assert.equal(hex.text, `${full.subarray(offset, offset + size).toString('hex')}\n`);
  }
  const part = (q: string, suffix = '.bin') => get(`/rest/blockpart/${bigBlock}${suffix}?${q}`);
  assertError(await part('size=1'), 400, 'Block part offset missing or invalid');
  assertError(await part('offset=-1&size=1'), 400, 'Block part offset missing or invalid');
  assertError(await part('offset=+1&size=1'), 400, 'Block part offset missing or invalid');
  assertError(await part('offset=0'), 400, 'Block part size missing or invalid');
  assertError(await part('offset=0&size=x'), 400, 'Block part size missing or invalid');
  assertError(await part('offset=0&size=1&bad'), 400, 'Block part offset missing or invalid');
  assertError(await part('offset=%XY&size=1'), 400, 'URI parsing failed, it likely contained RFC 3986 invalid characters');
  assertError(await part('offset=0&size=0'), 400, `Bad block part offset/size 0/0 for ${bigBlock}`);
  assertError(await part(`offset=${full.length}&size=1`), 400, `Bad block part offset/size ${full.length}/1 for ${bigBlock}`);
  assertError(await part('offset=18446744073709551615&size=18446744073709551615'), 400, `Bad block part offset/size 18446744073709551615/18446744073709551615 for ${bigBlock}`);
  assertError(await part('offset=0&size=1', '.json'), 400, 'JSON output is not supported for this request type');
  assertError(await part('offset=0&size=1', ''), 404, 'output format not found (available: .bin, .hex, .json)');
  assertError(await get(`/rest/blockpart/${ZERO}.bin?offset=0&size=1`), 404, `${ZERO} not found`);
  assertError(await get(`/rest/blockpart/xyz.bin?offset=0&size=1`), 400, 'Invalid hash: xyz');
  assertError(await get(`/rest/blockpart/${headerOnly}.bin?offset=0&size=1`), 404, `${headerOnly} not available (not fully downloaded)`);
});

test('headers: bin, hex and JSON equal getblockheader; count forms, limits and errors', async () => {
  const from = hashes[90]!;
  const expectedHex: string[] = [];
  const expectedJson: string[] = [];
  for (let h = 90; h < 95; h++) {
    expectedHex.push(JSON.parse(await rpcText('getblockheader', [hashes[h], false])));
    expectedJson.push(await rpcText('getblockheader', [hashes[h], true]));
  }
  const bin = await get(`/rest/headers/${from}.bin`);
  assertOk(bin, 'application/octet-stream');
  assert.equal(bin.body.toString('hex'), expectedHex.join(''), 'count defaults to 5');
  const hex = await get(`/rest/headers/${from}.hex?count=3`);
  assertOk(hex, 'text/plain');
  assert.equal(hex.text, `${expectedHex.slice(0, 3).join('')}\n`);
  const json = await get(`/rest/headers/${from}.json?count=5`);
  assertOk(json, 'application/json');
  assert.equal(json.text, `[${expectedJson.join(',')}]\n`);
  // Deprecated <count>/<hash> form; the query count is then ignored.
  assert.equal((await get(`/rest/headers/5/${from}.json?count=1`)).text, json.text);
  assert.equal((await get(`/rest/headers/005/${from}.json`)).text, json.text);
  // Up to the tip only; 2000 at most.
  const tipHeight = hashes.length - 1;
  const toTip = await get(`/rest/headers/${hashes[tipHeight - 2]}.bin?count=2000`);
  assert.equal(toTip.body.length, 3 * 80);
  const all = await get(`/rest/headers/${GENESIS}.bin?count=2000`);
  assert.equal(all.body.length, hashes.length * 80);
  // A malformed query drops every parameter: the default 5.
  assert.equal((await get(`/rest/headers/${from}.bin?count`)).body.length, 400);
  // Unknown or stale start: an empty result, not an error.
  for (const h of [ZERO, staleBlock, headerOnly]) {
    assert.equal((await get(`/rest/headers/${h}.bin?count=2`)).body.length, 0);
    assert.equal((await get(`/rest/headers/${h}.hex?count=2`)).text, '\n');
    assert.equal((await get(`/rest/headers/${h}.json`)).text, '[]\n');
  }
  const range = 'Header count is invalid or out of acceptable range (1-2000): ';
  assertError(await get(`/rest/headers/${from}.hex?count=0`), 400, `${range}0`);
  assertError(await get(`/rest/headers/${from}.hex?count=2001`), 400, `${range}2001`);
  assertError(await get(`/rest/headers/${from}.hex?count=+1`), 400, `${range} 1`);
  assertError(await get(`/rest/headers/${from}.hex?count=-1`), 400, `${range}-1`);
  assertError(await get(`/rest/headers/${from}.hex?count=abc`), 400, `${range}abc`);
  assertError(await get(`/rest/headers/0/${from}.hex`), 400, `${range}0`);
  assertError(await get(`/rest/headers/2001/${from}.hex`), 400, `${range}2001`);
  // The count is checked before the hash.
  assertError(await get('/rest/headers/xyz.hex?count=0'), 400, `${range}0`);
  assertError(await get('/rest/headers/xyz.hex'), 400, 'Invalid hash: xyz');
  assertError(await get(`/rest/headers/${from}.json?count=%XY`), 400, 'URI parsing failed, it likely contained RFC 3986 invalid characters');
  assertError(await get('/rest/headers/a/b/c.hex'), 400, 'Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>');
  assertError(await get(`/rest/headers/${from}`), 404, 'output format not found (available: .bin, .hex, .json)');
  assertError(await get(`/rest/headers/${from}.txt`), 400, `Invalid hash: ${from}.txt`);
});

test('blockhashbyheight: bin internal order, hex and JSON display order, Core’s height checks', async () => {
  for (const h of [0, 1, 101, hashes.length - 1]) {
    const bin = await get(`/rest/blockhashbyheight/${h}.bin`);
    assertOk(bin, 'application/octet-stream');
    assert.equal(hashToHex(bin.body), hashes[h]);
    const hex = await get(`/rest/blockhashbyheight/${h}.hex`);
    assertOk(hex, 'text/plain');
    assert.equal(hex.text, `${hashes[h]}\n`);
    const json = await get(`/rest/blockhashbyheight/${h}.json`);
    assertOk(json, 'application/json');
    assert.equal(json.text, `{"blockhash":"${hashes[h]}"}\n`);
  }
  assert.equal((await get('/rest/blockhashbyheight/0.hex')).text, `${GENESIS}\n`);
  assert.equal((await get('/rest/blockhashbyheight/-0.hex')).text, `${GENESIS}\n`);
  assert.equal((await get('/rest/blockhashbyheight/007.hex')).text, `${hashes[7]}\n`);
  assertError(await get(`/rest/blockhashbyheight/${hashes.length}.json`), 404, 'Block height out of range');
  assertError(await get('/rest/blockhashbyheight/2147483647.json'), 404, 'Block height out of range');
  for (const [raw, shown] of [['-1', '-1'], ['+1', '+1'], ['', ''], ['abc', 'abc'], ['a%20b', 'a%20b'], ['2147483648', '2147483648'], ['1.5', '1.5']]) {
    assertError(await get(`/rest/blockhashbyheight/${raw}.json`), 400, `Invalid height: ${shown}`, raw);
  }
  assertError(await get('/rest/blockhashbyheight/1'), 404, 'output format not found (available: .bin, .hex, .json)');
  // Characters outside Core's URI-safe set are dropped from the message.
  const raw = await rawExchange(d.port, 'GET /rest/blockhashbyheight/1"<>.json HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(raw.toString('latin1'), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nInvalid height: 1\r\n$/);
});

test('spenttxouts: the outputs each transaction spent, as in getblock 3’s prevouts; genesis and coinbase-only blocks', async () => {
  for (const hash of [spendBlock, staleBlock, bigBlock, hashes[101]!]) {
    const block = JSON.parse(await rpcText('getblock', [hash, 3]));
    const json = await get(`/rest/spenttxouts/${hash}.json`);
    assertOk(json, 'application/json');
    const expected = block.tx.map((t: any, i: number) => (i === 0 ? [] : t.vin.map((v: any) => ({ value: v.prevout.value, scriptPubKey: v.prevout.scriptPubKey }))));
    assert.deepEqual(JSON.parse(json.text), expected);
    // Amounts keep Core's 8 decimals.
    assert.match(json.text, /^\[\[\],\[\{"value":\d+\.\d{8},"scriptPubKey":\{"asm":/);
    const bin = await get(`/rest/spenttxouts/${hash}.bin`);
    assertOk(bin, 'application/octet-stream');
    // CompactSize(ntx) ‖ 00 ‖ per tx: CompactSize(n) ‖ n × (value ‖ script).
    const parts = [Buffer.of(block.tx.length, 0)];
    for (const t of block.tx.slice(1)) {
      parts.push(Buffer.of(t.vin.length));
      for (const v of t.vin) {
        const value = Buffer.alloc(8);
        value.writeBigInt64LE(BigInt(Math.round(v.prevout.value * 1e8)));
        const script = Buffer.from(v.prevout.scriptPubKey.hex, 'hex');
        parts.push(value, Buffer.of(script.length), script);
      }
    }
    assert.equal(bin.body.toString('hex'), Buffer.concat(parts).toString('hex'));
    assert.equal((await get(`/rest/spenttxouts/${hash}.hex`)).text, `${bin.body.toString('hex')}\n`);
  }
  assert.equal((await get(`/rest/spenttxouts/${GENESIS}.hex`)).text, '0100\n');
  assert.equal((await get(`/rest/spenttxouts/${GENESIS}.bin`)).body.toString('hex'), '0100');
  assert.equal((await get(`/rest/spenttxouts/${GENESIS}.json`)).text, '[[]]\n');
  assert.equal((await get(`/rest/spenttxouts/${hashes[5]}.hex`)).text, '0100\n');
  assertError(await get(`/rest/spenttxouts/${headerOnly}.json`), 404, `${headerOnly} undo not available`);
  assertError(await get(`/rest/spenttxouts/${ZERO}.json`), 404, `${ZERO} not found`);
  assertError(await get('/rest/spenttxouts/xyz.json'), 400, 'Invalid hash: xyz');
  assertError(await get('/rest/spenttxouts/a/b.json'), 400, 'Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>');
  assertError(await get(`/rest/spenttxouts/${GENESIS}`), 404, 'output format not found (available: .bin, .hex, .json)');
});

test('tx: confirmed transactions through the txindex, TxToUniv with blockhash, bin/hex with witness', async () => {
  const block = JSON.parse(await rpcText('getblock', [spendBlock, 2]));
  for (const t of block.tx) {
    const bin = await get(`/rest/tx/${t.txid}.bin`);
    assertOk(bin, 'application/octet-stream');
    assert.equal(bin.body.toString('hex'), t.hex);
    const hex = await get(`/rest/tx/${t.txid}.hex`);
    assertOk(hex, 'text/plain');
    assert.equal(hex.text, `${t.hex}\n`);
    const json = await get(`/rest/tx/${t.txid}.json`);
    assertOk(json, 'application/json');
    // getrawtransaction 1 is TxToUniv, hex, then blockhash, confirmations, time; REST has blockhash before hex and nothing after.
    const raw = await rpcText('getrawtransaction', [t.txid, 1]);
    const txToUniv = raw.slice(0, raw.lastIndexOf(',"hex":"'));
    assert.equal(json.text, `${txToUniv},"blockhash":"${spendBlock}","hex":"${t.hex}"}\n`);
    assert.equal(JSON.parse(raw).blockhash, spendBlock);
  }
  assert.equal((await get(`/rest/tx/${block.tx[1].txid}.hex`, { method: 'POST' })).status, 200);
  assert.equal((await get(`/rest/tx/${block.tx[1].txid}.json?foo=bar`)).status, 200);
  assertError(await get(`/rest/tx/${ZERO}.json`), 404, `${ZERO} not found`);
  assertError(await get(`/rest/tx/${ZERO}`), 404, `${ZERO} not found`);
  assertError(await get('/rest/tx/abc.json'), 400, 'Invalid hash: abc');
  assertError(await get(`/rest/tx/${block.tx[1].txid}.JSON`), 400, `Invalid hash: ${block.tx[1].txid}.JSON`);
  assertError(await get(`/rest/tx/${block.tx[1].txid}`), 404, 'output format not found (available: .bin, .hex, .json)');
  assertError(await get(`/rest/tx/${block.tx[1].txid}.`), 404, 'output format not found (available: .bin, .hex, .json)');
  // The genesis coinbase is not indexed (Core's txindex leaves it out).
  const genesisCoinbase = JSON.parse(await rpcText('getblock', [GENESIS, 1])).tx[0];
  assertError(await get(`/rest/tx/${genesisCoinbase}.hex`), 404, `${genesisCoinbase} not found`);
  // The appendix's exact exchange: status line, headers in order, CRLF body.
  const raw = (await rawExchange(d.port, `GET /rest/tx/${ZERO}.json HTTP/1.1\r\nHost: x\r\n\r\n`)).toString('latin1');
  assert.match(raw, new RegExp(`^HTTP/1\\.1 404 Not Found\\r\\nContent-Type: text/plain\\r\\nDate: [^\\r]+\\r\\n(uWebSockets: 20\\r\\n)?Content-Length: 76\\r\\n\\r\\n${ZERO} not found\\r\\n$`));
});

test('getutxos: URI outpoints in bin, hex and JSON against gettxout; checkmempool; POSTed bodies as Core reads them', async () => {
  const block = JSON.parse(await rpcText('getblock', [hashes[hashes.length - 2], 2]));
  const spendTx = JSON.parse(await rpcText('getblock', [spendBlock, 2])).tx[1];
  const tipHeight = hashes.length - 1;
  const tip = hashes[tipHeight]!;
  // Unspent outputs (gettxout finds them) and a spent one (the spend block's first input).
  const unspent: string[] = [];
  for (const t of [block.tx[0], ...JSON.parse(await rpcText('getblock', [hashes[tipHeight]!, 2])).tx]) {
    for (let n = 0; n < t.vout.length && unspent.length < 4; n++) {
      if ((await d.call('gettxout', [t.txid, n])) !== null) unspent.push(`${t.txid}-${n}`);
    }
  }
  assert.ok(unspent.length >= 2, `unspent outputs: ${unspent.length}`);
  const spent = `${spendTx.vin[0].txid}-${spendTx.vin[0].vout}`;
  const missing = `${ZERO}-0`;
  const outpoints = [unspent[0]!, spent, unspent[1]!, missing];
  const json = await get(`/rest/getutxos/${outpoints.join('/')}.json`);
  assertOk(json, 'application/json');
  const body = JSON.parse(json.text);
  assert.deepEqual(Object.keys(body), ['chainHeight', 'chaintipHash', 'bitmap', 'utxos']);
  assert.equal(body.chainHeight, tipHeight);
  assert.equal(body.chaintipHash, tip);
  assert.equal(body.bitmap, '1010');
  assert.equal(body.utxos.length, 2);
  for (const [i, op] of [unspent[0]!, unspent[1]!].entries()) {
    const [txid, n] = op.split('-');
    const out = await d.call('gettxout', [txid, Number(n)]);
    assert.deepEqual(body.utxos[i].scriptPubKey, out.scriptPubKey);
    assert.equal(body.utxos[i].value, out.value);
    assert.equal(body.utxos[i].height, tipHeight - out.confirmations + 1);
  }
  assert.match(json.text, /"utxos":\[\{"height":\d+,"value":\d+\.\d{8},"scriptPubKey":\{"asm":/);
  // Binary: int32 height ‖ tip (internal order) ‖ bitmap ‖ CCoins.
  const bin = await get(`/rest/getutxos/${outpoints.join('/')}.bin`);
  assertOk(bin, 'application/octet-stream');
  assert.equal(bin.body.readInt32LE(0), tipHeight);
  assert.equal(hashToHex(bin.body.subarray(4, 36)), tip);
  assert.deepEqual([...bin.body.subarray(36, 39)], [1, 0b0101, 2]);
  assert.equal(bin.body.readUInt32LE(39), 0);
  assert.equal(bin.body.readUInt32LE(43), body.utxos[0].height);
  const hex = await get(`/rest/getutxos/checkmempool/${outpoints.join('/')}.hex`);
  assertOk(hex, 'text/plain');
  assert.equal(hex.text, `${bin.body.toString('hex')}\n`, 'an empty mempool changes nothing');
  // 15 outpoints are fine, 16 are not.
  const fifteen = Array.from({ length: 15 }, () => unspent[0]!);
  assert.equal(JSON.parse((await get(`/rest/getutxos/${fifteen.join('/')}.json`)).text).bitmap, '1'.repeat(15));
  assertError(await get(`/rest/getutxos/${[...fifteen, missing].join('/')}.json`), 400, 'Error: max outpoints exceeded (max: 15, tried: 16)');
  // POST bodies: Core reads CompactSize(count) ‖ outpoints (no BIP64 flag byte); checkmempool is forced on.
  const [txid0, n0] = unspent[0]!.split('-');
  const outpointBytes = (txid: string, n: number) => {
    const b = Buffer.alloc(36);
    Buffer.from(hexToHash(txid)).copy(b);
    b.writeUInt32LE(n, 32);
    return b;
  };
  const coreBody = Buffer.concat([Buffer.of(1), outpointBytes(txid0!, Number(n0))]);
  const posted = await get('/rest/getutxos.bin', { method: 'POST', body: coreBody });
  assertOk(posted, 'application/octet-stream');
  assert.deepEqual([...posted.body.subarray(36, 39)], [1, 1, 1]);
  const postedHex = await get('/rest/getutxos.hex', { method: 'POST', body: coreBody.toString('hex') });
  assert.equal(postedHex.text, `${posted.body.toString('hex')}\n`);
  const bip64 = await get('/rest/getutxos.bin', { method: 'POST', body: Buffer.concat([Buffer.of(1, 1), outpointBytes(txid0!, Number(n0))]) });
  assert.deepEqual([...bip64.body.subarray(36, 39)], [1, 0, 0], 'a literal BIP64 body is misread, as by Core');
  const seven = Buffer.concat([Buffer.of(7), ...Array.from({ length: 7 }, () => outpointBytes(txid0!, Number(n0)))]);
  assertError(await get('/rest/getutxos.bin', { method: 'POST', body: seven }), 400, 'Parse error');
  // 16 outpoints make a body of 577 bytes, whose 3-byte length prefix Core misreads: Parse error, not the limit.
  const sixteen = Buffer.concat([Buffer.of(16), ...Array.from({ length: 16 }, () => outpointBytes(txid0!, Number(n0)))]);
  assertError(await get('/rest/getutxos.hex', { method: 'POST', body: sixteen.toString('hex') }), 400, 'Parse error');
  assertError(await get('/rest/getutxos.bin', { method: 'POST', body: Buffer.of(2, 1, 2, 3) }), 400, 'Parse error');
  const badHex = await get('/rest/getutxos.hex', { method: 'POST', body: 'zz' });
  assertOk(badHex, 'text/plain');
  assert.equal(badHex.text, `${bin.body.subarray(0, 36).toString('hex')}0000\n`, 'bad hex becomes no outpoints');
  assertError(await get(`/rest/getutxos/${unspent[0]}.bin`, { method: 'POST', body: coreBody }), 400, 'Combination of URI scheme inputs and raw post data is not allowed');
  // A body is ignored by JSON; without URI outpoints JSON is an empty request.
  assert.equal((await get(`/rest/getutxos/${unspent[0]}.json`, { method: 'POST', body: coreBody })).status, 200);
  assertError(await get('/rest/getutxos.json', { method: 'POST', body: coreBody }), 400, 'Error: empty request');
  for (const t of ['/rest/getutxos.json', '/rest/getutxos/checkmempool.json', '/rest/getutxos.bin', '/rest/getutxos/.hex']) {
    assertError(await get(t), 400, 'Error: empty request', t);
  }
  for (const t of [`/rest/getutxos/${txid0}-+1.json`, `/rest/getutxos/${txid0}-0-1.json`, `/rest/getutxos/${txid0}.json`, `/rest/getutxos/${txid0}-0/.json`, '/rest/getutxosXYZ.json']) {
    assertError(await get(t), 400, 'Parse error', t);
  }
  assertError(await get(`/rest/getutxos/${unspent[0]}`), 404, 'output format not found (available: .bin, .hex, .json)');
});

test('blockfilter and blockfilterheaders (-blockfilterindex) equal getblockfilter; Core’s checks in order', async () => {
  for (const h of [GENESIS, spendBlock, bigBlock, hashes[hashes.length - 1]!, staleBlock, headerOnly]) {
    const rpc = await d.rpc('getblockfilter', [h]);
    const json = await get(`/rest/blockfilter/basic/${h}.json`);
    if (rpc.json.error) {
      assertError(json, 404, rpc.json.error.message, h);
      continue;
    }
    const { filter } = rpc.json.result as { filter: string };
    assertOk(json, 'application/json');
    assert.equal(json.text, `{"filter":"${filter}"}\n`);
    const bin = await get(`/rest/blockfilter/basic/${h}.bin`);
    assertOk(bin, 'application/octet-stream');
    // filter type 0 ‖ block hash (internal order) ‖ CompactSize length ‖ encoded filter.
    const len = filter.length / 2;
    const prefix = len < 0xfd ? len.toString(16).padStart(2, '0') : `fd${Buffer.from([len & 0xff, len >> 8]).toString('hex')}`;
    assert.equal(bin.body.toString('hex'), `00${toHex(hexToHash(h))}${prefix}${filter}`);
    assert.equal((await get(`/rest/blockfilter/basic/${h}.hex`)).text, `${bin.body.toString('hex')}\n`);
  }
  // rest.md's observed regtest genesis filter.
  assert.equal((await get(`/rest/blockfilter/basic/${GENESIS}.json`)).text, '{"filter":"014756c0"}\n');
  assertError(await get(`/rest/blockfilter/basic/${headerOnly}.json`), 404, 'Filter not found. Block was not connected to active chain.');
  // Filter headers: JSON in display order, bin and hex in internal order.
  const from = hashes[95]!;
  const expected: string[] = [];
  for (let h = 95; h < 102; h++) expected.push((await d.call('getblockfilter', [hashes[h]])).header);
  const json = await get(`/rest/blockfilterheaders/basic/${from}.json?count=7`);
  assertOk(json, 'application/json');
  assert.equal(json.text, `${JSON.stringify(expected)}\n`);
  const bin = await get(`/rest/blockfilterheaders/basic/${from}.bin`);
  assertOk(bin, 'application/octet-stream');
  assert.equal(bin.body.toString('hex'), expected.slice(0, 5).map((x) => toHex(hexToHash(x))).join(''), 'count defaults to 5');
  const hex = await get(`/rest/blockfilterheaders/basic/3/${from}.hex?count=1`);
  assertOk(hex, 'text/plain');
  assert.equal(hex.text, `${expected.slice(0, 3).map((x) => toHex(hexToHash(x))).join('')}\n`);
  assert.equal((await get(`/rest/blockfilterheaders/basic/${GENESIS}.bin?count=2000`)).body.length, hashes.length * 32);
  for (const h of [ZERO, staleBlock, headerOnly]) assert.equal((await get(`/rest/blockfilterheaders/basic/${h}.json`)).text, '[]\n');
  const g = GENESIS;
  assertError(await get(`/rest/blockfilter/extended/${g}.json`), 400, 'Unknown filtertype extended');
  assertError(await get(`/rest/blockfilter/basic/xyz.json`), 400, 'Invalid hash: xyz');
  assertError(await get(`/rest/blockfilter/basic/${ZERO}.json`), 404, `${ZERO} not found`);
  assertError(await get(`/rest/blockfilter/basic/${g}`), 404, 'output format not found (available: .bin, .hex, .json)');
  assertError(await get('/rest/blockfilter/basic.json'), 400, 'Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>');
  assertError(await get(`/rest/blockfilter/basic/${g}/x.json`), 400, 'Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>');
  assertError(await get(`/rest/blockfilterheaders/BASIC/${g}.json`), 400, 'Unknown filtertype BASIC');
  assertError(await get(`/rest/blockfilterheaders/basic/${g}.json?count=0`), 400, 'Header count is invalid or out of acceptable range (1-2000): 0');
  assertError(await get(`/rest/blockfilterheaders/basic/2001/${g}.json`), 400, 'Header count is invalid or out of acceptable range (1-2000): 2001');
  assertError(await get(`/rest/blockfilterheaders/basic/xyz.json`), 400, 'Invalid hash: xyz');
  assertError(await get(`/rest/blockfilterheaders/basic/${g}.json?count=%XY`), 400, 'URI parsing failed, it likely contained RFC 3986 invalid characters');
  assertError(await get(`/rest/blockfilterheaders/basic/${g}`), 404, 'output format not found (available: .bin, .hex, .json)');
  assertError(await get('/rest/blockfilterheaders/basic.json'), 400, 'Invalid URI format. Expected /rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>');
  assertError(await get(`/rest/blockfilterheaders/a/b/c/${g}.json`), 400, 'Invalid URI format. Expected /rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>');
});

test('routing as Core: unknown paths 404 with an empty body, DELETE 405, HEAD and PUT run the handler', async () => {
  for (const t of ['/rest/foo.json', '/rest/', '/rest/blockhashbyheight', '/rest/spenttxouts', '/rest/block']) {
    const r = await get(t);
    assert.equal(r.status, 404, t);
    assert.equal(r.body.length, 0, t);
    assert.equal(r.headers['content-type'], 'text/html; charset=ISO-8859-1', t);
  }
  const del = await get(`/rest/block/${GENESIS}.hex`, { method: 'DELETE' });
  assert.equal(del.status, 405);
  assert.equal(del.body.length, 0);
  // HEAD runs the handler as GET does (Core even sends the body; node's client would reject it, so raw).
  const head = (await rawExchange(d.port, 'HEAD /rest/blockhashbyheight/0.hex HTTP/1.1\r\nHost: x\r\n\r\n')).toString('latin1');
  assert.match(head, /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\n/);
});

/** Reads a response's status line and headers, then `keep` body bytes, then drops the connection. */
function abortAfter(port: number, target: string, keep: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let seen = 0;
    socket.on('connect', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`));
    socket.on('data', (c: Buffer) => {
      seen += c.length;
      if (seen >= keep) {
        socket.destroy();
        resolve(seen);
      }
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(seen));
  });
}

test('large bodies stream with backpressure to slow readers; clients that leave mid-body cost nothing', async () => {
  const expectedHex = `${JSON.parse(await rpcText('getblock', [bigBlock, 0]))}\n`;
  const expectedJson = `${await rpcText('getblock', [bigBlock, 3])}\n`;
  assert.ok(expectedJson.length > 2_000_000, `block JSON is ${expectedJson.length} bytes`);
  // A reader that pauses: uWS's socket fills, the rest follows from onWritable.
  const slowRead = (target: string) =>
    new Promise<Buffer>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: d.port, path: target, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.pause();
        setTimeout(() => res.resume(), 300);
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const [hexBody, jsonBody] = await Promise.all([slowRead(`/rest/block/${bigBlock}.hex`), slowRead(`/rest/block/${bigBlock}.json`)]);
  assert.equal(hexBody.toString('latin1'), expectedHex);
  assert.equal(jsonBody.toString('latin1'), expectedJson);
  // Many clients that read a little and leave.
  const leavers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => abortAfter(d.port, `/rest/block/${bigBlock}.${['hex', 'json', 'bin'][i % 3]}`, 1000 + i * 5000)),
  );
  assert.ok(leavers.every((n) => n > 0));
  // The node keeps serving, whole bodies, on kept-alive connections too.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const again = await Promise.all(Array.from({ length: 8 }, () => get(`/rest/block/${bigBlock}.hex`, { agent })));
  for (const r of again) assert.equal(r.text, expectedHex);
  agent.destroy();
  assert.equal((await get('/rest/chaininfo.json')).status, 200);
});

test('the last block bytes round-trip: REST bin parses to the block RPC describes', async () => {
  const bin = (await get(`/rest/block/${spendBlock}.bin`)).body;
  const block = parseBlock(bin);
  assert.equal(block.header.hashHex, spendBlock);
  const header = (await get(`/rest/headers/${spendBlock}.bin?count=1`)).body;
  assert.equal(toHex(header), toHex(bin.subarray(0, 80)));
  assert.equal(toHex(fromHex(JSON.parse(await rpcText('getblockheader', [spendBlock, false])))), toHex(header));
});

test('streams cut short leave nothing in flight: a clean stop is not held up by them', async () => {
  await Promise.all(Array.from({ length: 12 }, (_, i) => abortAfter(d.port, `/rest/block/${bigBlock}.${i % 2 ? 'hex' : 'json'}`, 2000)));
  // A front-end waits up to 5 s for requests in flight before it exits.
  const started = Date.now();
  assert.deepEqual(await d.stop(), { code: 0, signal: null });
  assert.ok(Date.now() - started < 4000, `stop took ${Date.now() - started} ms`);
});
