/**
 * The front-end's Basic authentication: a header value that verified is remembered (the
 * same keep-alive client sends it with every request), and the memory never admits
 * anything the full check would refuse: other passwords, other users, wrong schemes.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { Authenticator } from '../../src/http/index.js';

const credential = (user: string, password: string, salt = 'salt') => ({ user, salt, hash: createHmac('sha256', salt).update(password).digest('hex') });
const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

test('a verified header keeps verifying; wrong ones never do, before or after', () => {
  const auth = new Authenticator([credential('alice', 'pw1'), credential('bob', 'pw2', 'other')]);
  assert.equal(auth.authenticate(basic('alice:wrong')), undefined);
  for (let i = 0; i < 3; i++) {
    assert.equal(auth.authenticate(basic('alice:pw1')), 'alice');
    assert.equal(auth.authenticate(basic('bob:pw2')), 'bob');
  }
  assert.equal(auth.authenticate(basic('alice:pw2')), undefined, 'bob’s password is not alice’s');
  assert.equal(auth.authenticate(basic('alice:pw1 ')), undefined);
  assert.equal(auth.authenticate(`basic ${Buffer.from('alice:pw1').toString('base64')}`), undefined, 'the scheme is case-sensitive');
  assert.equal(auth.authenticate(`Basic  ${Buffer.from('alice:pw1').toString('base64')}x`), undefined);
  assert.equal(auth.authenticate(basic('alice:pw1')), 'alice');
});

test('past the cache bound every header is still checked in full', () => {
  const auth = new Authenticator([credential('alice', 'pw1')]);
  // Trailing blanks are trimmed before decoding: 1,500 distinct header values that all verify.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 1500; i++) {
      assert.equal(auth.authenticate(basic('alice:pw1') + ' '.repeat(i)), 'alice');
      assert.equal(auth.authenticate(basic('alice:pw2') + ' '.repeat(i)), undefined);
    }
  }
});
