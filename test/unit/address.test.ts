import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/primitives/index.js';
import { decodeAddress, decodeSecret, encodeAddress, encodeBase58Check, encodeSecret, type ChainName } from '../../src/script/index.js';

// Cases and expected texts of Core's functional tests rpc_validateaddress.py (main chain,
// from the BIP173/BIP350 vectors) and rpc_invalid_address_message.py (regtest).
const MAIN_INVALID: [string, string, number[]][] = [
  ['tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'Invalid Bech32 checksum', [41]],
  ['BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', 'Version 1+ witness address must use Bech32m checksum', []],
  ['bc1rw5uspcuh', 'Version 1+ witness address must use Bech32m checksum', []],
  ['bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90', 'Version 1+ witness address must use Bech32m checksum', []],
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'Invalid Bech32 v0 address program size (16 bytes), per BIP141', []],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3t4', 'Invalid character or mixed case', [40]],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', 'Version 1+ witness address must use Bech32m checksum', []],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['bc1gmk9yu', 'Empty Bech32 data section', []],
  ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'Version 1+ witness address must use Bech32m checksum', []],
  ['BC1PFYSXZMFQ2PHHYARVV9HXGTJGFAZYCWJYPQQQF9ZLQ6', 'Version 1+ witness address must use Bech32m checksum', []],
  ['bc1qfysxzmfq2phhyarvv9hxgtjgfazycwjypqqqfm706a', 'Version 0 witness address must use Bech32 checksum', []],
  ['bc1qfysxzmfq2phhyarvv9hxgtjgdajxcw3fpkpph893lw', 'Invalid padding in Bech32 data section', []],
  ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'Invalid Base 32 character', [59]],
  ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'Invalid Bech32 address witness version', []],
  ['bc1pw5dgrnzv', 'Invalid Bech32 address program size (1 byte)', []],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'Invalid Bech32 address program size (41 bytes)', []],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'Invalid padding in Bech32 data section', []],
];
const REGTEST_INVALID: [string, string, number[]][] = [
  ['bcrt1s0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav25430mtr', 'Invalid Bech32 address program size (41 bytes)', []],
  ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqdmchcc', 'Version 1+ witness address must use Bech32m checksum', []],
  ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k35mrzd', 'Version 0 witness address must use Bech32 checksum', []],
  ['bcrt130xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqynjegk', 'Invalid Bech32 address witness version', []],
  ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kqqq5k3my', 'Invalid Bech32 v0 address program size (21 bytes), per BIP141', []],
  ['bcrt1q049edschfnwystcqnsvyfpj23mpsg3jcedq9xv049edschfnwystcqnsvyfpj23mpsg3jcedq9xv049edschfnwystcqnsvyfpj23m', 'Bech32 string too long', Array.from({ length: 18 }, (_, i) => 90 + i)],
  ['bcrt1q049edschfnwystcqnsvyfpj23mpsg3jcedq9xv', 'Invalid Bech32 checksum', [9]],
  ['bcrt1qax9suht3qv95sw33xavx8crpxduefdrsvgsklu', 'Invalid Bech32 checksum', [22, 43]],
  ['BCRT1QPLMTZKC2XHARPPZDLNPAQL78RSHJ68U32RAH7R', 'Invalid Bech32 checksum', [38]],
  ['bcrtq049ldschfnwystcqnsvyfpj23mpsg3jcedq9xv', 'Missing separator', []],
  ['bcrt1q04oldschfnwystcqnsvyfpj23mpsg3jcedq9xv', 'Invalid Base 32 character', [8]],
  ['bcrt1qdg3myrgvzw7ml8q0ejxhlkyxn7vl9r56yzkfgvzclrf4hkpx9yfqhpsuks', 'Invalid Bech32 checksum', [19, 30]],
  ['bcrt1ptmp74ayg7p24uslctssvjm06q5phz4yrxucgnv', 'Invalid Bech32 checksum', [5]],
  ['17VZNX1SN5NtKa8UQFxwQbFeFc3iqRYhem', 'Invalid or unsupported Base58-encoded address.', []],
  ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJJfn', 'Invalid checksum or length of Base58 address (P2PKH or P2SH)', []],
  ['2VKf7XKMrp4bVNVmuRbyCewkP8FhGLP2E54LHDPakr9Sq5mtU2', 'Invalid checksum or length of Base58 address (P2PKH or P2SH)', []],
  ['asfah14i8fajz0123f', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
  ['1q049ldschfnwystcqnsvyfpj23mpsg3jcedq9xv', 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.', []],
];

const MAIN_VALID: [string, string][] = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
  ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
  [
    'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
    '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
  ],
  ['BC1SW50QGDZ25J', '6002751e'],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
  ['bc1pfeessrawgf', '51024e73'],
];

const REGTEST_VALID = [
  'bcrt1qtmp74ayg7p24uslctssvjm06q5phz4yrxucgnv',
  'bcrt1p424qxxyd0r',
  'BCRT1QPLMTZKC2XHARPPZDLNPAQL78RSHJ68U33RAH7R',
  'bcrt1qdg3myrgvzw7ml9q0ejxhlkyxm7vl9r56yzkfgvzclrf4hkpx9yfqhpsuks',
  'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
];

function assertRejected(chain: ChainName, cases: [string, string, number[]][]): void {
  for (const [text, error, errorLocations] of cases) {
    assert.deepEqual(decodeAddress(text, chain), { ok: false, error, errorLocations }, text);
  }
}

test('Core error texts and error locations, main chain', () => assertRejected('main', MAIN_INVALID));

test('Core error texts and error locations, regtest', () => assertRejected('regtest', REGTEST_INVALID));

test('valid addresses decode, and re-encode in lower case', () => {
  for (const [text, script] of MAIN_VALID) {
    const decoded = decodeAddress(text, 'main');
    assert.ok(decoded.ok, text);
    assert.equal(toHex(decoded.scriptPubKey), script);
    assert.equal(encodeAddress(decoded.scriptPubKey, 'main'), text.toLowerCase());
  }
  for (const text of REGTEST_VALID) assert.ok(decodeAddress(text, 'regtest').ok, text);
});

test('wrong-chain prefixes', () => {
  // A bech32 HRP that merely starts with the chain's HRP is decoded and its prefix reported.
  const regtestOnMain = decodeAddress('bcrt1qtmp74ayg7p24uslctssvjm06q5phz4yrxucgnv', 'main');
  assert.deepEqual(regtestOnMain, {
    ok: false,
    error: 'Invalid or unsupported prefix for Segwit (Bech32) address (expected bc, got bcrt).',
    errorLocations: [],
  });
  // A valid base58 address of another chain has an unknown version byte.
  assert.deepEqual(decodeAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'main'), {
    ok: false,
    error: 'Invalid or unsupported Base58-encoded address.',
    errorLocations: [],
  });
});

test('base58 version byte with the wrong length', () => {
  const errorOf = (text: string): string | false => {
    const decoded = decodeAddress(text, 'main');
    return !decoded.ok && decoded.error;
  };
  // 0x00 then 19 bytes: a P2PKH version byte with a short hash.
  assert.equal(errorOf(encodeBase58Check(fromHex('00' + '00'.repeat(4) + '07' + '00'.repeat(14)))), 'Invalid length for Base58 address (P2PKH or P2SH)');
  // A payload over 21 bytes fails Core's size-limited checksum decode before any prefix check.
  assert.equal(errorOf(encodeBase58Check(fromHex('05' + '00'.repeat(21)))), 'Invalid checksum or length of Base58 address (P2PKH or P2SH)');
});

test('scripts without an address', () => {
  const key = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  assert.equal(encodeAddress(fromHex(`21${key}ac`), 'main'), null);
  assert.equal(encodeAddress(fromHex(`5121${key}51ae`), 'main'), null);
  assert.equal(encodeAddress(fromHex('6a0474657374'), 'main'), null);
  assert.equal(encodeAddress(fromHex(''), 'main'), null);
});

test('WIF round trip and rejection', () => {
  const secret = fromHex('0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d');
  const uncompressed = '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ';
  assert.equal(encodeSecret(secret, false, 'main'), uncompressed);
  assert.deepEqual(decodeSecret(uncompressed, 'main'), { secret, compressed: false });
  const compressed = encodeSecret(secret, true, 'main');
  assert.deepEqual(decodeSecret(compressed, 'main'), { secret, compressed: true });
  // Another chain's version byte, and a secret of zero, are refused.
  assert.equal(decodeSecret(uncompressed, 'test'), null);
  assert.throws(() => encodeSecret(new Uint8Array(32), true, 'main'), RangeError);
});
