/**
 * Headers and blocks (rpc-results.md §3–§4): getblockheader fields and their edge cases
 * (off-chain confirmations, genesis, signed version, difficulty digits), getblock 1–3 on
 * mainnet blocks with undo data replayed from the chain, and v31's coinbase_tx.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockProof, selectParams } from '../../src/consensus/index.js';
import { BlockHeader, fromHex, parseBlock, Transaction } from '../../src/primitives/index.js';
import { writeJson } from '../../src/rpc/json.js';
import { blockToJson, coinbaseTxJson, headerToJson, type HeaderJsonFields } from '../../src/rpc/format/index.js';
import { readVectorText } from '../support/vectors.js';
import { replayChain } from '../vectors/suites/getblockstats.js';

const main = selectParams('main');
const MAINNET = readVectorText('mainnet-blocks-0-255.hex')
  .trim()
  .split('\n')
  .map((hex) => parseBlock(fromHex(hex)));
const chain = replayChain(MAINNET);

/** Header fields of mainnet block `height` as the active chain at tip 255 sees them. */
function fieldsAt(height: number): HeaderJsonFields {
  let chainWork = 0n;
  for (let h = 0; h <= height; h++) chainWork += blockProof(MAINNET[h]!.header.bits);
  return {
    header: MAINNET[height]!.header,
    height,
    chainWork,
    medianTimePast: chain[height]!.medianTimePast,
    txCount: MAINNET[height]!.transactions.length,
    confirmations: 255 - height + 1,
    nextHash: height < 255 ? MAINNET[height + 1]!.header.hash : undefined,
    powLimit: main.powLimit,
  };
}

const GENESIS_COINBASE =
  '04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73';

test('getblockheader of the mainnet genesis block', () => {
  assert.equal(
    writeJson(headerToJson(fieldsAt(0))),
    '{"hash":"000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f","confirmations":256,"height":0,"version":1,"versionHex":"00000001",' +
      '"merkleroot":"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b","time":1231006505,"mediantime":1231006505,"nonce":2083236893,' +
      '"bits":"1d00ffff","target":"00000000ffff0000000000000000000000000000000000000000000000000000","difficulty":1,' +
      '"chainwork":"0000000000000000000000000000000000000000000000000000000100010001","nTx":1,' +
      '"nextblockhash":"00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048"}',
  );
});

test('getblockheader: previousblockhash after genesis, no nextblockhash at the tip or off the active chain', () => {
  const one = headerToJson(fieldsAt(1));
  assert.equal(one.previousblockhash, '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
  assert.equal(one.chainwork, '0000000000000000000000000000000000000000000000000000000200020002');
  const tip = headerToJson(fieldsAt(255));
  assert.equal(tip.hash, '00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c');
  assert.equal(tip.confirmations, 1);
  assert.equal('nextblockhash' in tip, false);
  const stale = headerToJson({ ...fieldsAt(100), confirmations: -1, nextHash: undefined });
  assert.equal(stale.confirmations, -1);
  assert.deepEqual(Object.keys(stale).slice(-2), ['nTx', 'previousblockhash']);
});

test('getblockheader: version is signed, versionHex its 32 bits; nonce and time unsigned; nTx 0 for a header-only entry', () => {
  const header = new BlockHeader({ version: -1, prevHash: new Uint8Array(32).fill(1), merkleRoot: new Uint8Array(32), time: 0xfffffffe, bits: 0x207fffff, nonce: 0xffffffff });
  const json = headerToJson({ header, height: 5, chainWork: 12n, medianTimePast: 3, txCount: 0, confirmations: -1, powLimit: selectParams('regtest').powLimit });
  assert.equal(json.version, -1);
  assert.equal(json.versionHex, 'ffffffff');
  assert.equal(json.nonce, 4294967295);
  assert.equal(json.time, 4294967294);
  assert.equal(json.nTx, 0);
  assert.equal(json.target, '7fffff0000000000000000000000000000000000000000000000000000000000');
  assert.equal(writeJson(json.difficulty), '4.656542373906925e-10');
});

test('difficulty prints with 16 significant digits (%.16g), not JavaScript\'s shortest form', () => {
  const cases: [number, string][] = [
    [0x1b0404cb, '16307.42093852398'],
    [0x1b04864c, '14484.1623612254'],
    [0x1a05db8b, '2864140.507810974'],
    [0x1e0fffff, '0.0002441371325370145'],
    [0x1f00ffff, '1.52587890625e-05'],
    [0x1703a30c, '77392982524430'],
    [0x1d00fffe, '1.000015259254738'],
  ];
  for (const [bits, printed] of cases) {
    const header = new BlockHeader({ version: 1, prevHash: new Uint8Array(32), merkleRoot: new Uint8Array(32), time: 0, bits, nonce: 0 });
    const json = headerToJson({ header, height: 1, chainWork: 1n, medianTimePast: 0, txCount: 1, confirmations: 1, powLimit: (1n << 256n) - 1n });
    assert.equal(writeJson(json.difficulty), printed, bits.toString(16));
  }
});

test('getblock verbosity 1 of the mainnet genesis block, with coinbase_tx before tx', () => {
  const json = blockToJson(MAINNET[0]!, fieldsAt(0), { chain: 'main', verbosity: 1 });
  const text = writeJson(json);
  assert.equal(
    text.slice(text.indexOf('"strippedsize"')),
    `"strippedsize":285,"size":285,"weight":1140,"coinbase_tx":{"version":1,"locktime":0,"sequence":4294967295,"coinbase":"${GENESIS_COINBASE}"},` +
      '"tx":["4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"]}',
  );
  assert.equal('coinbase_tx' in blockToJson(MAINNET[0]!, fieldsAt(0), { chain: 'main', verbosity: 1, omitCoinbaseTx: true }), false);
});

test('coinbase_tx: witness only when the coinbase input has one; version unsigned', () => {
  const cb = MAINNET[0]!.transactions[0]!;
  assert.deepEqual(Object.keys(coinbaseTxJson(cb)), ['version', 'locktime', 'sequence', 'coinbase']);
  const withWitness = new Transaction({
    version: 0x80000000,
    inputs: [{ ...cb.inputs[0]!, witness: [new Uint8Array(32).fill(0xab)] }],
    outputs: cb.outputs,
    locktime: cb.locktime,
  });
  assert.equal(
    writeJson(coinbaseTxJson(withWitness)),
    `{"version":2147483648,"locktime":0,"sequence":4294967295,"coinbase":"${GENESIS_COINBASE}","witness":"${'ab'.repeat(32)}"}`,
  );
});

test('getblock 2 and 3 of block 170 (the first spend): fee with undo data, prevout only at 3', () => {
  const entry = chain[170]!;
  const v3 = JSON.parse(writeJson(blockToJson(entry.block, fieldsAt(170), { chain: 'main', verbosity: 3, undo: entry.undo })));
  const spend = v3.tx[1];
  assert.equal(spend.txid, 'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16');
  assert.equal(spend.fee, 0);
  assert.deepEqual(Object.keys(spend.vin[0]), ['txid', 'vout', 'scriptSig', 'prevout', 'sequence']);
  assert.equal(spend.vin[0].scriptSig.asm.includes('[ALL]'), true);
  const { generated, height, value, scriptPubKey } = spend.vin[0].prevout;
  assert.deepEqual([generated, height, value, scriptPubKey.type, 'address' in scriptPubKey], [true, 9, 50, 'pubkey', false]);
  assert.match(scriptPubKey.desc, /^pk\(0411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3\)#/);
  // The coinbase never has fee or prevout.
  assert.deepEqual(Object.keys(v3.tx[0]), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex']);

  const v2 = JSON.parse(writeJson(blockToJson(entry.block, fieldsAt(170), { chain: 'main', verbosity: 2, undo: entry.undo })));
  assert.equal(v2.tx[1].fee, 0);
  assert.equal('prevout' in v2.tx[1].vin[0], false);
  // Without undo data (pruned, or not connected): neither fee nor prevout, at any verbosity.
  const bare = JSON.parse(writeJson(blockToJson(entry.block, fieldsAt(170), { chain: 'main', verbosity: 3 })));
  assert.equal('fee' in bare.tx[1] || 'prevout' in bare.tx[1].vin[0], false);
  assert.equal(bare.tx[1].hex.length > 0, true);
  assert.throws(() => blockToJson(entry.block, fieldsAt(170), { chain: 'main', verbosity: 2, undo: [] }), /undo data covers 0 transactions/);
});
