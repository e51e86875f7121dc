/**
 * validateaddress (BIP173/BIP350 cases as Core's rpc_validateaddress.py uses them, with the
 * error texts of this node's decoder), getdescriptorinfo and deriveaddresses through the
 * dispatcher (range argument parsing, "given" as Core's params.size() > 1).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utilMethods } from '../../src/rpc/index.js';
import { caller } from './rpc-call-helper.js';

const main = caller(...utilMethods('main'));
const regtest = caller(...utilMethods('regtest'));

test('validateaddress: valid addresses with Core’s keys and DescribeAddress details', async () => {
  const valid: [string, string][] = [
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
    ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6'],
    ['BC1SW50QGDZ25J', '6002751e'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
    ['bc1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvses5wp4dt', '0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
    ['bc1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvses7epu4h', '5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'],
    ['bc1pfeessrawgf', '51024e73'],
  ];
  for (const [address, spk] of valid) {
    const info = await main.result('validateaddress', [address]);
    assert.equal(info.isvalid, true, address);
    assert.equal(info.scriptPubKey, spk, address);
    assert.equal(info.address, address.toLowerCase());
    assert.ok(!('error' in info) && !('error_locations' in info));
  }
  assert.deepEqual(await main.result('validateaddress', ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4']), {
    isvalid: true,
    address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    scriptPubKey: '0014751e76e8199196d454941c45d1b3a323f1433bd6',
    isscript: false,
    iswitness: true,
    witness_version: 0,
    witness_program: '751e76e8199196d454941c45d1b3a323f1433bd6',
  });
  assert.deepEqual(Object.keys(await main.result('validateaddress', ['bc1pfeessrawgf'])), ['isvalid', 'address', 'scriptPubKey', 'isscript', 'iswitness']);
  assert.deepEqual(Object.keys(await main.result('validateaddress', ['BC1SW50QGDZ25J'])), ['isvalid', 'address', 'scriptPubKey', 'iswitness', 'witness_version', 'witness_program']);
  assert.deepEqual(await regtest.result('validateaddress', ['mh5CE8Nbj38iND267s4XnvhSmhDW7yWc6Q']), {
    isvalid: true,
    address: 'mh5CE8Nbj38iND267s4XnvhSmhDW7yWc6Q',
    scriptPubKey: '76a914111111111111111111111111111111111111111188ac',
    isscript: false,
    iswitness: false,
  });
  const p2sh = await regtest.result('validateaddress', ['2MtoTvMi65NXBt3sTCXNd1aqKGa7gXsX8CC']);
  assert.equal(p2sh.isscript, true);
  assert.equal(p2sh.iswitness, false);
  const tr = await regtest.result('validateaddress', ['bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6']);
  assert.deepEqual([tr.isscript, tr.iswitness, tr.witness_version], [true, true, 1]);
});

test('validateaddress: invalid addresses carry error_locations before error', async () => {
  const invalid: [string, string, number[]][] = [
    ['tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'Invalid Bech32 checksum', [41]],
    ['BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', 'Version 1+ witness address must use Bech32m checksum', []],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'Invalid Bech32 v0 address program size (16 bytes), per BIP141', []],
    ['bc1qfysxzmfq2phhyarvv9hxgtjgdajxcw3fpkpph893lw', 'Invalid padding in Bech32 data section', []],
    ['bc1gmk9yu', 'Empty Bech32 data section', []],
    ['bc1qfysxzmfq2phhyarvv9hxgtjgfazycwjypqqqfm706a', 'Version 0 witness address must use Bech32 checksum', []],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'Invalid Bech32 address witness version', []],
    ['bc1pw5dgrnzv', 'Invalid Bech32 address program size (1 byte)', []],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'Invalid Bech32 address program size (41 bytes)', []],
  ];
  for (const [address, error, locations] of invalid) {
    const info = await main.result('validateaddress', [address]);
    assert.deepEqual(info, { isvalid: false, error_locations: locations, error }, address);
    assert.deepEqual(Object.keys(info), ['isvalid', 'error_locations', 'error']);
  }
  assert.equal((await main.error('validateaddress', [])).code, -1);
  assert.equal((await main.error('validateaddress', [1])).code, -3);
});

test('getdescriptorinfo: Core’s result and -5 for descriptors that do not parse', async () => {
  const info = await regtest.result('getdescriptorinfo', ['wpkh(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)']);
  assert.deepEqual(Object.keys(info), ['descriptor', 'checksum', 'isrange', 'issolvable', 'hasprivatekeys']);
  assert.match(info.descriptor, /^wpkh\(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798\)#[a-z0-9]{8}$/);
  assert.equal(info.checksum, info.descriptor.slice(-8));
  assert.equal((await regtest.error('getdescriptorinfo', ['nonsense(x)'])).code, -5);
});

test('deriveaddresses: range parsing and Core’s "range given" rule', async () => {
  const tpub = 'tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B';
  const fixed = `wpkh(${tpub}/1/1/0)#s9ga3alw`;
  assert.deepEqual(await regtest.result('deriveaddresses', [fixed]), ['bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5']);
  // An explicit null is still a second parameter: Core counts params.size().
  assert.deepEqual(await regtest.error('deriveaddresses', [fixed, null]), { code: -8, message: 'Range should not be specified for an un-ranged descriptor' });
  const ranged = await regtest.result('getdescriptorinfo', [`wpkh(${tpub}/1/1/*)`]);
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor]), { code: -8, message: 'Range must be specified for a ranged descriptor' });
  assert.deepEqual(await regtest.result('deriveaddresses', [ranged.descriptor, null]), ['bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5']);
  assert.equal((await regtest.result('deriveaddresses', [ranged.descriptor, [1, 2]])).length, 2);
  assert.equal((await regtest.result('deriveaddresses', [ranged.descriptor, 2])).length, 3);
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, 'x']), { code: -8, message: 'Range must be specified as end or as [begin,end]' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, [1]]), { code: -8, message: 'Range must be specified as end or as [begin,end]' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, 1.5]), { code: -1, message: 'JSON integer out of range' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, [2, 1]]), { code: -8, message: 'Range specified as [begin,end] must not have begin after end' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, [-1, 1]]), { code: -8, message: 'Range should be greater or equal than 0' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, -1]), { code: -8, message: 'End of range is too high' });
  assert.deepEqual(await regtest.error('deriveaddresses', [ranged.descriptor, [0, 1000000]]), { code: -8, message: 'Range is too large' });
  assert.deepEqual(await regtest.error('deriveaddresses', ['a']), { code: -5, message: 'Missing checksum' });
});
