/**
 * scantxoutset's scan objects: Core's EvalDescriptorStringOrObject errors and the
 * "specialized descriptors" Core reports for matches (vectors of Core's
 * rpc_scantxoutset.py: origins with the root fingerprint and full path).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/primitives/index.js';
import { evalScanObject, RpcError } from '../../src/rpc/index.js';
import { decodeAddress, getDescriptorInfo } from '../../src/script/index.js';

const TPRV = 'tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK';
const TPUB = 'tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B';

function descFor(scanObject: Parameters<typeof evalScanObject>[0], address: string): string {
  const decoded = decodeAddress(address, 'regtest');
  assert.ok(decoded.ok);
  const needle = evalScanObject(scanObject, 'regtest').find((n) => toHex(n.script) === toHex(decoded.scriptPubKey));
  assert.ok(needle, `no script for ${address}`);
  return needle.describe();
}

function rpcError(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof RpcError, String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('no error');
}

test('specialized descriptors of combo() matches (rpc_scantxoutset.py)', () => {
  assert.equal(descFor(`combo(${TPRV}/1/1/0)`, 'mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ'), 'pkh([0c5f9a1e/1/1/0]03e1c5b6e650966971d7e71ef2674f80222752740fc1dfd63bbbd220d2da9bd0fb)#cxmct4w8');
  assert.equal(
    descFor({ desc: `combo(${TPRV}/0h/0h/*)`, range: 1 }, 'mqS9Rpg8nNLAzxFExsgFLCnzHBsoQ3PRM6'),
    'pkh([0c5f9a1e/0h/0h/0]026dbd8b2315f296d36e6b6920b1579ca75569464875c7ebe869b536a7d9503c8c)#rthll0rg',
  );
  assert.equal(
    descFor({ desc: `combo(${TPUB}/1/1/*)`, range: [1500, 1500] }, 'mpQ8rokAhp1TAtJQR6F6TaUmjAWkAWYYBq'),
    'pkh([0c5f9a1e/1/1/1500]03832901c250025da2aebae2bfb38d5c703a57ab66ad477f9c578bfbcd78abca6f)#vchwd07g',
  );
  // A declared origin replaces the fingerprint and prefixes the path.
  assert.match(descFor(`combo([abcdef88/1/2'/3/4h]${TPUB}/1/1/1)`, 'mxp7w7j8S1Aq6L8StS2PqVvtt4HGxXEvdy'), /^pkh\(\[abcdef88\/1\/2h\/3\/4h\/1\/1\/1\]030d820f/);
  // addr() and raw() matches are described from the script alone.
  assert.equal(descFor('addr(mpQ8rokAhp1TAtJQR6F6TaUmjAWkAWYYBq)', 'mpQ8rokAhp1TAtJQR6F6TaUmjAWkAWYYBq'), getDescriptorInfo('addr(mpQ8rokAhp1TAtJQR6F6TaUmjAWkAWYYBq)', 'regtest').descriptor);
});

test('specialized descriptors keep the descriptor’s shape with derived keys', () => {
  const key = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  const needles = evalScanObject(`sh(wpkh(${key}))`, 'regtest');
  assert.equal(needles.length, 1);
  // A literal key's origin is the first four bytes of its HASH160.
  assert.match(needles[0]!.describe(), /^sh\(wpkh\(\[751e76e8\]0279be66[0-9a-f]+\)\)#/);
  const combo = evalScanObject(`combo(${key})`, 'regtest').map((n) => n.describe().replace(/#.*/, ''));
  assert.deepEqual(combo, [`pk([751e76e8]${key})`, `pkh([751e76e8]${key})`, `wpkh([751e76e8]${key})`, `sh(wpkh([751e76e8]${key}))`]);
  const tr = evalScanObject(`tr(${TPUB}/0/*)`, 'regtest');
  assert.equal(tr.length, 1001);
  assert.match(tr[5]!.describe(), /^tr\(\[0c5f9a1e\/0\/5\][0-9a-f]{64}\)#/);
  const sorted = evalScanObject(`wsh(sortedmulti(1,${TPUB}/0/0,${TPUB}/0/1))`, 'regtest');
  assert.match(sorted[0]!.describe(), /^wsh\(multi\(1,\[0c5f9a1e\/0\/[01]\]0[23][0-9a-f]{64},\[0c5f9a1e\/0\/[01]\]0[23][0-9a-f]{64}\)\)#/);
});

test('scan object errors, as Core words them', () => {
  assert.deepEqual(rpcError(() => evalScanObject(5, 'regtest')), { code: -8, message: 'Scan object needs to be either a string or an object' });
  assert.deepEqual(rpcError(() => evalScanObject({ range: 1 }, 'regtest')), { code: -8, message: 'Descriptor needs to be provided in scan object' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 1 }, 'regtest')), { code: -3, message: 'JSON value of type number is not of expected type string' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 'desc', range: -1 }, 'regtest')), { code: -8, message: 'End of range is too high' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 'desc', range: [-1, 10] }, 'regtest')), { code: -8, message: 'Range should be greater or equal than 0' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 'desc', range: [2 ** 32 - 1000000, 2 ** 32] }, 'regtest')), { code: -8, message: 'End of range is too high' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 'desc', range: [2, 1] }, 'regtest')), { code: -8, message: 'Range specified as [begin,end] must not have begin after end' });
  assert.deepEqual(rpcError(() => evalScanObject({ desc: 'desc', range: [0, 1000001] }, 'regtest')), { code: -8, message: 'Range is too large' });
  assert.equal(rpcError(() => evalScanObject('desc', 'regtest')).code, -5);
  const hardened = `combo(${TPUB}/0h/*)`;
  assert.deepEqual(rpcError(() => evalScanObject(hardened, 'regtest')), { code: -5, message: `Cannot derive script without private keys: '${hardened}'` });
  // Non-ranged descriptors ignore the range; ranged ones default to 0..1000.
  assert.equal(evalScanObject({ desc: `pkh(${TPUB}/1)`, range: 50 }, 'regtest').length, 1);
  assert.equal(evalScanObject(`pkh(${TPUB}/*)`, 'regtest').length, 1001);
});

/** A scan object's only script at position 0, described as a match. */
function onlyDescription(scanObject: string): string {
  const needles = evalScanObject(scanObject, 'regtest');
  assert.equal(needles.length, 1);
  return needles[0]!.describe();
}

test('miniscript and taproot-tree matches are described as bitcoind v31 infers them back (observed answers)', () => {
  const xpub = 'tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp';
  const k1 = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  const x2 = 'c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5';
  // pk_h's key comes back from the provider, with the origin a hex key gets: its own fingerprint.
  assert.equal(
    onlyDescription(`wsh(and_v(v:pk(${xpub}/1/2),pkh(${k1})))`),
    'wsh(and_v(v:pk([3442193e/1/2]03d18a97975c5f2e11dfa22dd686315f27b35c2db5d32cd7d0c11aea146fdd17c2),pkh([751e76e8]0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)))#8h6tylmq',
  );
  // In Tapscript pk() keys come back x-only, pkh() keys whole.
  assert.equal(
    onlyDescription(`tr(${x2},and_v(v:pk(${xpub}/4),pkh(${xpub}/5)))`),
    'tr([06afd46b]c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5,and_v(v:pk([3442193e/4]bd7987a1c7da858fdc51eca16b5623eba73ee3dadc24a3ad5c589648d900a797),pkh([3442193e/5]0305ec5990bad0fadc5f250d60108245e88166c347deed9ec55c84b76f42b7d7f3)))#zehegltq',
  );
  // The tree comes back in the order Core rebuilds it from the spend data, not as written.
  assert.equal(
    onlyDescription(`tr(${xpub}/8,{pk(${x2}),pk(${k1})})`),
    'tr([3442193e/8]0d51114417b6cb3af077d669bee5473c4297541652fc865f015eba3c31bb3fd7,{pk([751e76e8]79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798),pk([06afd46b]c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5)})#44tz6es3',
  );
  assert.equal(
    onlyDescription(`tr(${xpub}/6,{pk(${k1}),and_v(v:multi_a(1,${xpub}/7,${x2}),older(5))})`),
    'tr([3442193e/6]921cacc5d4929f14f5983bd4291f86798ff7e3216b9de72ce809fcbc78c8a4af,{and_v(v:multi_a(1,[3442193e/7]396b1f9cd6e68720106eb6d26b2c8840c73aaf76b5cd9c6dff38461c28143601,[06afd46b]c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5),older(5)),pk([751e76e8]79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)})#hh2gae4d',
  );
});
