/**
 * createrawtransaction, decoderawtransaction and decodescript through the dispatcher:
 * the error cases of Core's rpc_rawtransaction.py (createrawtransaction_tests), outputs
 * as object or array, repeated keys, sequences, versions, and AmountFromValue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTransaction, fromHex, hashToHex } from '../../src/primitives/index.js';
import { amountFromValue, JSON_ENTRIES, parseFixedPoint, rawTransactionMethods, RpcError, type Json } from '../../src/rpc/index.js';
import { caller } from './rpc-call-helper.js';

const rpc = caller(...rawTransactionMethods('regtest'));
const TXID = '1d1d4e24ed99057e84c3f80fd8fbec79ed9e1acee37da269356ecea000000000';
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const ADDRESS2 = 'mh5CE8Nbj38iND267s4XnvhSmhDW7yWc6Q';

/** An object whose repeated keys survive, as the HTTP layer's strict parser builds them. */
function multidict(entries: [string, Json][]): Json {
  const obj = Object.fromEntries(entries) as Record<string, Json>;
  Object.defineProperty(obj, JSON_ENTRIES, { value: entries, enumerable: false });
  return obj;
}

/** createrawtransaction output has no witnesses: read it the legacy way (zero inputs would look like a marker). */
const tx = (hex: string) => parseTransaction(fromHex(hex), { allowWitness: false });

test('createrawtransaction: argument count and type errors (rpc_rawtransaction.py)', async () => {
  assert.equal((await rpc.error('createrawtransaction', [])).code, -1);
  assert.match((await rpc.error('createrawtransaction', [[]])).message, /^createrawtransaction \[/);
  assert.equal((await rpc.error('createrawtransaction', [[], {}, 0, false, 2, 3])).code, -1);
  const inputsNotArray = await rpc.error('createrawtransaction', ['foo', {}]);
  assert.deepEqual(inputsNotArray, {
    code: -3,
    message: 'Wrong type passed:\n{\n    "Position 1 (inputs)": "JSON value of type string is not of expected type array"\n}',
  });
  assert.deepEqual(await rpc.error('createrawtransaction', [['foo'], {}]), { code: -3, message: 'JSON value of type string is not of expected type object' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{}], {}]), { code: -3, message: 'JSON value of type null is not of expected type string' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: 'foo' }], {}]), { code: -8, message: "txid must be of length 64 (not 3, for 'foo')" });
  const badHex = 'ZZZ7bb8b1697ea987f3b223ba7819250cae33efacb068d23dc24859824a77844';
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: badHex }], {}]), { code: -8, message: `txid must be hexadecimal string (not '${badHex}')` });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID }], {}]), { code: -8, message: 'Invalid parameter, missing vout key' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID, vout: 'foo' }], {}]), { code: -8, message: 'Invalid parameter, missing vout key' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID, vout: -1 }], {}]), { code: -8, message: 'Invalid parameter, vout cannot be negative' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID, vout: 1.5 }], {}]), { code: -1, message: 'JSON integer out of range' });
  for (const seq of [-1, 4294967296]) {
    assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID, vout: 1, sequence: seq }], { [ADDRESS]: 1 }]), {
      code: -8,
      message: 'Invalid parameter, sequence number is out of range',
    });
  }
  for (const seq of [1000, 4294967294]) {
    const hex = await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 1, sequence: seq }], { [ADDRESS]: 1 }]);
    assert.equal(tx(hex).inputs[0]!.sequence, seq);
  }
});

test('createrawtransaction: outputs errors, in Core’s order', async () => {
  assert.deepEqual(await rpc.error('createrawtransaction', [[], 'foo']), { code: -3, message: 'JSON value of type string is not of expected type array' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], null]), { code: -8, message: 'Invalid parameter, output argument must be non-null' });
  assert.equal(await rpc.result('createrawtransaction', [[], {}]), '02000000000000000000');
  assert.equal(await rpc.result('createrawtransaction', [[], []]), '02000000000000000000');
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { data: 'foo' }]), { code: -8, message: "Data must be hexadecimal string (not 'foo')" });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { data: '' }]), { code: -8, message: "Data must be hexadecimal string (not '')" });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { foo: 0 }]), { code: -5, message: 'Invalid Bitcoin address: foo' });
  // The amount is read before the address is checked.
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { foo: 'x' }]), { code: -3, message: 'Invalid amount' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { [ADDRESS]: 'foo' }]), { code: -3, message: 'Invalid amount' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { [ADDRESS]: -1 }]), { code: -3, message: 'Amount out of range' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], { [ADDRESS]: true }]), { code: -3, message: 'Amount is not a number or string' });
  const dup = { code: -8, message: `Invalid parameter, duplicated address: ${ADDRESS}` };
  assert.deepEqual(await rpc.error('createrawtransaction', [[], multidict([[ADDRESS, 1], [ADDRESS, 1]])]), dup);
  assert.deepEqual(await rpc.error('createrawtransaction', [[], [{ [ADDRESS]: 1 }, { [ADDRESS]: 1 }]]), dup);
  // The same destination spelled in upper case is the same address.
  assert.deepEqual(await rpc.error('createrawtransaction', [[], [{ [ADDRESS]: 1 }, { [ADDRESS.toUpperCase()]: 1 }]]), {
    code: -8,
    message: `Invalid parameter, duplicated address: ${ADDRESS.toUpperCase()}`,
  });
  const dupData = { code: -8, message: 'Invalid parameter, duplicate key: data' };
  assert.deepEqual(await rpc.error('createrawtransaction', [[], [{ data: 'aa' }, { data: 'bb' }]]), dupData);
  assert.deepEqual(await rpc.error('createrawtransaction', [[], multidict([['data', 'aa'], ['data', 'bb']])]), dupData);
  assert.deepEqual(await rpc.error('createrawtransaction', [[], [{ a: 1, b: 2 }]]), { code: -8, message: 'Invalid parameter, key-value pair must contain exactly one key' });
  assert.deepEqual(await rpc.error('createrawtransaction', [[], [['key-value pair1'], ['2']]]), {
    code: -8,
    message: 'Invalid parameter, key-value pair not an object as expected',
  });
});

test('createrawtransaction: locktime, replaceable, version', async () => {
  const contradict = { code: -8, message: 'Invalid parameter combination: Sequence number(s) contradict replaceable option' };
  assert.deepEqual(await rpc.error('createrawtransaction', [[{ txid: TXID, vout: 0, sequence: 0xfffffffe }], {}, 0, true]), contradict);
  // Without an explicit replaceable, explicit sequences are not checked.
  assert.equal(tx(await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 0, sequence: 0xfffffffe }], {}])).inputs[0]!.sequence, 0xfffffffe);
  assert.match((await rpc.error('createrawtransaction', [[], {}, 'foo'])).message, /"Position 3 \(locktime\)": "JSON value of type string is not of expected type number"/);
  for (const locktime of [-1, 4294967296]) {
    assert.deepEqual(await rpc.error('createrawtransaction', [[], {}, locktime]), { code: -8, message: 'Invalid parameter, locktime out of range' });
  }
  assert.match((await rpc.error('createrawtransaction', [[], {}, 0, 'foo'])).message, /"Position 4 \(replaceable\)": "JSON value of type string is not of expected type bool"/);
  for (const version of [0, 4, 2147483648]) {
    assert.deepEqual(await rpc.error('createrawtransaction', [[], {}, 0, false, version]), { code: -8, message: 'Invalid parameter, version out of range(1~3)' });
  }
  for (const version of [-1, 4294967296]) {
    assert.deepEqual(await rpc.error('createrawtransaction', [[], {}, 0, false, version]), { code: -1, message: 'JSON integer out of range' });
  }
  for (const version of [1, 2, 3]) {
    assert.equal(tx(await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], { [ADDRESS]: 99 }, 0, false, version])).version, version);
  }
  // Default sequences: replaceable (unset or true) 0xfffffffd; false with locktime 0xfffffffe; else final.
  const seq = async (...extra: Json[]) => tx(await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 0 }], {}, ...extra])).inputs[0]!.sequence;
  assert.equal(await seq(), 0xfffffffd);
  assert.equal(await seq(0, true), 0xfffffffd);
  assert.equal(await seq(0, false), 0xffffffff);
  assert.equal(await seq(5, false), 0xfffffffe);
  const named = await rpc.result('createrawtransaction', { named: [['inputs', []], ['outputs', {}], ['version', 3]] });
  assert.equal(named, '03000000000000000000');
});

test('createrawtransaction: the object and array forms build the same transaction; data outputs', async () => {
  const one = await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], { [ADDRESS]: 99 }]);
  assert.equal(await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], [{ [ADDRESS]: 99 }]]), one);
  const mixed = await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], multidict([[ADDRESS, 99], [ADDRESS2, '0.5'], ['data', '99']])]);
  assert.equal(await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], [{ [ADDRESS]: 99 }, { [ADDRESS2]: '0.5' }, { data: '99' }]]), mixed);
  const t = tx(mixed);
  assert.equal(t.outputs.length, 3);
  assert.equal(t.outputs[0]!.value, 9_900_000_000n);
  assert.equal(t.outputs[1]!.value, 50_000_000n);
  assert.equal(Buffer.from(t.outputs[2]!.scriptPubKey).toString('hex'), '6a0199');
  assert.equal(t.outputs[2]!.value, 0n);
  assert.equal(hashToHex(t.inputs[0]!.prevout.txid), TXID);
  assert.equal(t.inputs[0]!.prevout.vout, 9);
  // A number as data is read as its digits, as UniValue's getValStr does.
  const numeric = tx(await rpc.result('createrawtransaction', [[], { data: 1234 }]));
  assert.equal(Buffer.from(numeric.outputs[0]!.scriptPubKey).toString('hex'), '6a021234');
});

test('ParseFixedPoint and AmountFromValue (Core’s util_tests cases)', () => {
  const ok: [string, bigint][] = [
    ['0', 0n], ['1', 100000000n], ['0.0', 0n], ['-0.1', -10000000n], ['1.1', 110000000n], ['1.10000000000000000', 110000000n],
    ['1.1e1', 1100000000n], ['1.1e-1', 11000000n], ['1000', 100000000000n], ['-1000', -100000000000n], ['0.00000001', 1n],
    ['0.0000000100000000', 1n], ['-0.00000001', -1n], ['1000000000.00000001', 100000000000000001n],
    ['9999999999.99999999', 999999999999999999n], ['-9999999999.99999999', -999999999999999999n],
  ];
  for (const [text, want] of ok) assert.equal(parseFixedPoint(text, 8), want, text);
  const bad = [
    '', '-', 'a-1000', '-a1000', '-1000a', '-01000', '00.1', '.1', '--0.1', '0.000000001', '-0.000000001', '0.00000001000000001',
    '-10000000000.00000000', '10000000000.00000000', '-10000000000.00000001', '10000000000.00000001', '-10000000000.00000009',
    '10000000000.00000009', '-99999999999.99999999', '99999909999.09999999', '92233720368.54775807', '92233720368.54775808',
    '-92233720368.54775808', '-92233720368.54775809', '1.1e', '1.1e-', '1.',
  ];
  for (const text of bad) assert.equal(parseFixedPoint(text, 8), undefined, text);
  assert.equal(parseFixedPoint('0.001', 3), 1n);
  for (const text of ['0.0009', '31.00100001', '31.0011', '31.99999999', '31.999999999999999999999']) assert.equal(parseFixedPoint(text, 3), undefined, text);
  assert.equal(amountFromValue(0.00000001), 1n);
  assert.equal(amountFromValue('21000000'), 2_100_000_000_000_000n);
  assert.throws(() => amountFromValue('21000000.00000001'), (e: RpcError) => e.code === -3 && e.message === 'Amount out of range');
  assert.throws(() => amountFromValue(null), (e: RpcError) => e.code === -3 && e.message === 'Amount is not a number or string');
});

test('decoderawtransaction and decodescript through the dispatcher', async () => {
  const hex = await rpc.result('createrawtransaction', [[{ txid: TXID, vout: 9 }], { [ADDRESS]: 1 }]);
  const decoded = await rpc.result('decoderawtransaction', [hex]);
  assert.deepEqual(Object.keys(decoded), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout']);
  assert.equal(decoded.vin[0].txid, TXID);
  assert.equal(decoded.vin[0].sequence, 4294967293);
  assert.ok((await rpc.text('decoderawtransaction', [hex])).includes('"value":1.00000000'));
  assert.deepEqual(await rpc.error('decoderawtransaction', ['00']), { code: -22, message: 'TX decode failed' });
  assert.deepEqual(await rpc.error('decoderawtransaction', ['zz']), { code: -22, message: 'TX decode failed' });
  assert.equal((await rpc.result('decoderawtransaction', [hex, true])).txid, decoded.txid);
  assert.equal((await rpc.result('decoderawtransaction', [hex, false])).txid, decoded.txid);
  assert.deepEqual(await rpc.result('decodescript', ['']), {
    asm: '',
    desc: 'raw()#58lrscpx',
    type: 'nonstandard',
    p2sh: '2N9hLwkSqr1cPQAPxbrGVUjxyjD11G2e1he',
    segwit: {
      asm: '0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      desc: 'addr(bcrt1quwcvgs5clswpfxhm7nyfjmaeysn6us0yvjdexn9yjkv3k7zjhp2snwgpgy)#ctv6wqhy',
      hex: '0020e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      address: 'bcrt1quwcvgs5clswpfxhm7nyfjmaeysn6us0yvjdexn9yjkv3k7zjhp2snwgpgy',
      type: 'witness_v0_scripthash',
      'p2sh-segwit': '2N2CmnxjBbPTHrawgG2FkTuBLcJtEzA86sF',
    },
  });
  assert.equal(await rpc.text('decodescript', ['51024e73']), '{"asm":"1 29518","desc":"addr(bcrt1pfeesnyr2tx)#swxgse0y","address":"bcrt1pfeesnyr2tx","type":"anchor"}');
  assert.deepEqual(await rpc.error('decodescript', ['zz']), { code: -8, message: "argument must be hexadecimal string (not 'zz')" });
  assert.equal((await rpc.error('decodescript', [5])).code, -3);
});
