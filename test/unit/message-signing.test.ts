/**
 * Core's message signing and DecodeBase64, against answers observed from bitcoind v31
 * (signmessagewithprivkey and verifymessage on regtest).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeBase64, decodeSecret, signMessage, verifyMessage } from '../../src/script/index.js';

const WIF = 'cVpF924EspNh8KjYsfhgY96mmxvT6DgdWiTYMtMjuM74hJaU5psW';
/** The P2PKH address of WIF's key (bitcoind's verifymessage accepts the signature below for it). */
const ADDRESS = 'mjTkW3DjgyZck4KbiRusZsqTgaYTxdSz6z';

test('signatures are bitcoind signmessagewithprivkey byte for byte (RFC6979, no extra entropy)', () => {
  const key = decodeSecret(WIF, 'regtest')!;
  assert.equal(signMessage(key.secret, key.compressed, 'hello'), 'IKC+Ijl/SSZ+8GIt8RfXjZa/tzuYFEzIzAyxpvUf48D8AjUYXGAZKz3JfJVta+NUzDlZdMmJIa5rLtdE0ChWEfs=');
  assert.equal(signMessage(key.secret, key.compressed, ''), 'Hxjgha3U+D3as46jB79PjVtg8mGwNErBHZBBUX1ajqtwQ2JOz20OmPrloH4FW70X38mVPYmJAIJYXPBVnEM3Jxw=');
});

test('verifyMessage: the signer, another message, and the signature forms bitcoind rejects', () => {
  const key = decodeSecret(WIF, 'regtest')!;
  const signature = signMessage(key.secret, key.compressed, 'hello');
  assert.equal(verifyMessage(ADDRESS, signature, 'hello', 'regtest'), 'ok');
  assert.equal(verifyMessage(ADDRESS, signature, 'hellO', 'regtest'), 'not_signed');
  assert.equal(verifyMessage('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', signature, 'hello', 'regtest'), 'address_no_key');
  assert.equal(verifyMessage('notanaddress', signature, 'hello', 'regtest'), 'invalid_address');
  // bitcoind: '' 'AAAA' 'AAA=' 'AA==' are false (decoded, no key recovered); the rest "Malformed base64 encoding".
  for (const text of ['', 'AAAA', 'AAA=', 'AA==']) assert.equal(verifyMessage(ADDRESS, text, 'm', 'regtest'), 'pubkey_not_recovered', text);
  for (const text of ['AB==', 'A===', 'AAA', 'AA-_', 'AA AA']) assert.equal(verifyMessage(ADDRESS, text, 'm', 'regtest'), 'malformed_signature', text);
});

test('decodeBase64 reads what Core decodes', () => {
  assert.deepEqual(decodeBase64('AAA='), Uint8Array.of(0, 0));
  assert.deepEqual(decodeBase64('/w=='), Uint8Array.of(0xff));
  assert.deepEqual(decodeBase64(''), new Uint8Array(0));
  assert.equal(decodeBase64('/x=='), null);
});
