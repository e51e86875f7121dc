/**
 * getdescriptorinfo and deriveaddresses as the RPCs compute them (cases from Core's
 * rpc_deriveaddresses.py and rpc_getdescriptorinfo.py), and parser robustness.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addChecksum,
  DescriptorError,
  deriveAddresses,
  expandDescriptor,
  getDescriptorInfo,
  parseDescriptor,
  validateDescriptorRange,
} from '../../src/script/index.js';

const TPRV = 'tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK';
const TPUB = 'tpubD6NzVbkrYhZ4WaWSyoBvQwbpLkojyoTZPRsgXELWz3Popb3qkjcJyJUGLnL4qHHoQvao8ESaAstxYSnhyswJ76uZPStJRJCTKvosUCJZL5B';
const ADDRESS = 'bcrt1qjqmxmkpmxt80xz4y3746zgt0q3u3ferr34acd5';

function rpcError(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof DescriptorError, String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('no error');
}

test('deriveaddresses: rpc_deriveaddresses.py', () => {
  assert.deepEqual(rpcError(() => deriveAddresses('a', 'regtest')), { code: -5, message: 'Missing checksum' });
  assert.deepEqual(deriveAddresses(`wpkh(${TPRV}/1/1/0)#t6wfjs64`, 'regtest'), [ADDRESS]);
  assert.deepEqual(rpcError(() => deriveAddresses(`wpkh(${TPRV}/1/1/0)`, 'regtest')), { code: -5, message: 'Missing checksum' });
  assert.deepEqual(deriveAddresses(`wpkh(${TPUB}/1/1/0)#s9ga3alw`, 'regtest'), [ADDRESS]);
  const ranged = `wpkh(${TPRV}/1/1/*)#kft60nuy`;
  assert.deepEqual(deriveAddresses(ranged, 'regtest', [1, 2]), ['bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy', 'bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq']);
  assert.deepEqual(deriveAddresses(ranged, 'regtest', validateDescriptorRange(2)), [
    ADDRESS,
    'bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy',
    'bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq',
  ]);
  assert.deepEqual(rpcError(() => deriveAddresses(addChecksum(`wpkh(${TPRV}/1/1/0)`), 'regtest', [0, 2])), {
    code: -8,
    message: 'Range should not be specified for an un-ranged descriptor',
  });
  assert.deepEqual(rpcError(() => deriveAddresses(addChecksum(`wpkh(${TPRV}/1/1/*)`), 'regtest')), {
    code: -8,
    message: 'Range must be specified for a ranged descriptor',
  });
  // combo(): the P2PK script has no address and is skipped.
  assert.deepEqual(deriveAddresses(addChecksum(`combo(${TPRV}/1/1/0)`), 'regtest'), ['mtfUoUax9L4tzXARpw1oTGxWyoogp52KhJ', ADDRESS, '2NDvEwGfpEqJWfybzpKPHF2XH3jwoQV3D7x']);
  assert.deepEqual(rpcError(() => deriveAddresses(addChecksum(`wpkh(${TPUB}/1'/1/0)`), 'regtest')), {
    code: -5,
    message: 'Cannot derive script without private keys',
  });
  assert.deepEqual(rpcError(() => deriveAddresses(addChecksum(`multi(1,${TPUB}/1/1/0,${TPUB}/1/1/1)`), 'regtest')), {
    code: -5,
    message: 'Descriptor does not have a corresponding address',
  });
  assert.deepEqual(rpcError(() => deriveAddresses(addChecksum('pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)'), 'regtest')), {
    code: -5,
    message: 'Descriptor does not have a corresponding address',
  });
  // The same tprv is not a key on main.
  assert.deepEqual(rpcError(() => deriveAddresses(`wpkh(${TPRV}/1/1/0)#t6wfjs64`, 'main')), {
    code: -5,
    message: `wpkh(): key '${TPRV}' is not valid`,
  });
});

test('deriveaddresses: multipath gives one list per expansion', () => {
  const result = deriveAddresses(addChecksum(`wpkh(${TPRV}/1/<1;2>/*)`), 'regtest', [0, 2]);
  assert.ok(Array.isArray(result[0]));
  const [first, second] = result as string[][];
  assert.deepEqual(first, [ADDRESS, 'bcrt1qhku5rq7jz8ulufe2y6fkcpnlvpsta7rq4442dy', 'bcrt1qpgptk2gvshyl0s9lqshsmx932l9ccsv265tvaq']);
  assert.deepEqual(second, deriveAddresses(addChecksum(`wpkh(${TPRV}/1/2/*)`), 'regtest', [0, 2]));
});

test('deriveaddresses: range checks of ParseDescriptorRange', () => {
  assert.deepEqual(rpcError(() => validateDescriptorRange(10000000000)), { code: -8, message: 'End of range is too high' });
  assert.deepEqual(rpcError(() => validateDescriptorRange(-1)), { code: -8, message: 'End of range is too high' });
  assert.deepEqual(rpcError(() => validateDescriptorRange([1000000000, 2000000000])), { code: -8, message: 'Range is too large' });
  assert.deepEqual(rpcError(() => validateDescriptorRange([2, 0])), { code: -8, message: 'Range specified as [begin,end] must not have begin after end' });
  assert.deepEqual(rpcError(() => validateDescriptorRange([-1, 0])), { code: -8, message: 'Range should be greater or equal than 0' });
  assert.deepEqual(validateDescriptorRange([5, 7]), [5, 7]);
  assert.deepEqual(validateDescriptorRange(0), [0, 0]);
});

test('getdescriptorinfo: canonical form, checksum of the input, flags', () => {
  const key = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  assert.deepEqual(getDescriptorInfo(`pk(${key})`, 'main'), {
    descriptor: `pk(${key})#gn28ywm7`,
    checksum: 'gn28ywm7',
    isrange: false,
    issolvable: true,
    hasprivatekeys: false,
  });
  // Core's deriveaddresses help example: h markers are kept as written.
  const example = 'wpkh([d34db33f/84h/0h/0h]xpub6DJ2dNUysrn5Vt36jH2KLBT2i1auw1tTSSomg8PhqNiUtx8QX2SvC9nrHu81fT41fvDUnhMjEzQgXnQjKEu3oaqMSzhSrHMxyyoEAmUHQbY/0/*)';
  const info = getDescriptorInfo(example, 'main');
  assert.equal(info.descriptor, `${example}#cjjspncu`);
  assert.equal(info.isrange, true);
  // The private form reports the public descriptor and the checksum of what was given.
  const prv = getDescriptorInfo(`wpkh(${TPRV}/1/1/0)`, 'regtest');
  assert.equal(prv.descriptor, `wpkh(${TPUB}/1/1/0)#s9ga3alw`);
  assert.equal(prv.checksum, 't6wfjs64');
  assert.equal(prv.hasprivatekeys, true);
  // addr() and raw() are not solvable; upper-case hex is printed lower-case.
  const raw = getDescriptorInfo('raw(DEADBEEF)', 'main');
  assert.equal(raw.descriptor, addChecksum('raw(deadbeef)'));
  assert.equal(raw.issolvable, false);
  assert.equal(getDescriptorInfo('addr(BCRT1PFEESNYR2TX)', 'regtest').descriptor, 'addr(bcrt1pfeesnyr2tx)#swxgse0y');
  // Multipath: the first expansion, then all of them.
  const multipath = getDescriptorInfo(`wpkh(${TPUB}/<0;1>/*)`, 'regtest');
  assert.equal(multipath.descriptor, addChecksum(`wpkh(${TPUB}/0/*)`));
  assert.deepEqual(multipath.multipath_expansion, [addChecksum(`wpkh(${TPUB}/0/*)`), addChecksum(`wpkh(${TPUB}/1/*)`)]);
  assert.deepEqual(Object.keys(multipath), ['descriptor', 'multipath_expansion', 'checksum', 'isrange', 'issolvable', 'hasprivatekeys']);
});

test('parse failures Core reports with an empty message', () => {
  const key = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  assert.deepEqual(rpcError(() => getDescriptorInfo(`pk(${key}),pk(${key})`, 'main')), { code: -5, message: '' });
  assert.deepEqual(rpcError(() => getDescriptorInfo(`sh(pk(${key}),x)`, 'main')), { code: -5, message: '' });
  assert.equal(rpcError(() => getDescriptorInfo('foo(bar)', 'main')).message, "'foo(bar)' is not a valid descriptor function");
  assert.equal(rpcError(() => getDescriptorInfo('', 'main')).message, "'' is not a valid descriptor function");
  assert.equal(rpcError(() => getDescriptorInfo('raw()', 'main')).message, 'Raw script is not hex');
});

test('tr() tree syntax errors', () => {
  const k = 'a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd';
  const leaf = `pk(${k})`;
  const error = (text: string): string => rpcError(() => parseDescriptor(text, 'main')).message;
  assert.equal(error(`tr(${k},{${leaf}})`), "tr(): expected ',' after script expression");
  assert.equal(error(`tr(${k},{${leaf},${leaf})`), "tr(): expected '}' after script expression");
  assert.equal(error(`tr(${k},${leaf},${leaf})`), "tr(): expected ')' after script expression");
  assert.equal(error(`tr(${k}x${leaf})`), `tr(): key '${k}x${leaf}' is not valid`);
  assert.equal(error(`tr(${k},${'{'.repeat(129)}${leaf}${'}'.repeat(129)})`), 'tr() supports at most 128 nesting levels');
  // pkh() is no descriptor function in tr(), but it is miniscript (c:pk_h), which bitcoind v31 accepts in a leaf.
  assert.equal(parseDescriptor(`tr(${k},pkh(${k}))`, 'main').descriptors[0]!.toString(), addChecksum(`tr(${k},pkh(${k}))`));
  assert.equal(error(`wsh(tr(${k}))`), 'Can only have tr at top level');
  assert.equal(error(`sh(rawtr(${k}))`), 'Can only have rawtr at top level');
  assert.equal(error(`multi_a(1,${k})`), 'Can only have multi_a/sortedmulti_a inside tr()');
  assert.equal(error(`tr(${k},multi(1,${k}))`), 'Can only have multi/sortedmulti at top level, in sh(), or in wsh()');
  // A 128-deep tree is fine.
  const deep = `tr(${k},${'{'.repeat(128)}${leaf},${leaf}}${`,${leaf}}`.repeat(127)})`;
  assert.equal(parseDescriptor(deep, 'main').descriptors[0]!.toString().split('#')[0], deep);
});

/** A deterministic generator so failures reproduce. */
function* randomNumbers(seed: number): Generator<number> {
  let state = seed >>> 0;
  for (;;) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    yield state;
  }
}

test('mutated descriptors parse or fail with a DescriptorError, never anything else', () => {
  const seeds = [
    `sh(wsh(multi(2,[d34db33f/84h/0h/0h]${TPUB}/<0;1>/*,${TPRV}/1h/*h,0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)))`,
    `tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd,{pk(${TPUB}/0/*),{multi_a(1,${TPRV}/2),pk(musig(${TPUB},${TPRV})/3/*)}})`,
    `combo(${TPRV}/0'/1)`,
    'addr(bcrt1pfeesnyr2tx)',
    `wsh(andor(pk(${TPUB}/<0;1>/*),or_i(older(144),after(500000001)),thresh(2,pkh(${TPRV}/1h/*h),a:sha256(${'ab'.repeat(32)}),s:multi(1,0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798))))`,
    `tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd,{and_v(v:multi_a(1,${TPUB}/0/*,${TPRV}/2),or_d(pk_h(${TPUB}/3),l:hash160(${'cd'.repeat(20)}))),and_b(j:pk(${TPRV}/5),a:d:v:older(7))})`,
  ];
  const alphabet = "()[]{},/*'h<>;#0123456789abcdefxpubtrmultishkcoSZ :_vdjnlutawroi";
  const rng = randomNumbers(380);
  for (let round = 0; round < 3000; round++) {
    let text = seeds[rng.next().value! % seeds.length]!;
    const edits = 1 + (rng.next().value! % 4);
    for (let e = 0; e < edits; e++) {
      const at = rng.next().value! % (text.length + 1);
      const op = rng.next().value! % 3;
      const c = alphabet[rng.next().value! % alphabet.length]!;
      if (op === 0) text = text.slice(0, at) + c + text.slice(at);
      else if (op === 1) text = text.slice(0, at) + text.slice(at + 1);
      else text = text.slice(0, at) + c + text.slice(at + 1);
    }
    try {
      const parsed = parseDescriptor(text, 'regtest');
      for (const descriptor of parsed.descriptors) {
        descriptor.toString();
        descriptor.toPrivateString(parsed.keys);
        descriptor.toNormalizedString(parsed.keys);
        descriptor.expand(0, parsed.keys);
      }
    } catch (err) {
      assert.ok(err instanceof DescriptorError, `${text}: ${String(err)}`);
    }
  }
});

test('expandDescriptor: per index and per multipath expansion', () => {
  const parsed = parseDescriptor(`wpkh(${TPRV}/1/<1;2>/*)`, 'regtest');
  const first = expandDescriptor(parsed, 0);
  const second = expandDescriptor(parsed, 0, 1);
  assert.equal(first?.length, 1);
  assert.notDeepEqual(first, second);
  assert.throws(() => expandDescriptor(parsed, 0, 2), RangeError);
  assert.throws(() => expandDescriptor(parsed, -1), RangeError);
  assert.throws(() => expandDescriptor(parsed, 2 ** 31), RangeError);
  // Hardened steps without the private key cannot be expanded.
  assert.equal(expandDescriptor(parseDescriptor(`wpkh(${TPUB}/1h/*)`, 'regtest'), 0), null);
});
