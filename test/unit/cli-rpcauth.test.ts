/**
 * tsbtcd-rpcauth against Core's share/rpcauth/rpcauth.py: output format (plain and -j),
 * generated salt and password, the HMAC the server checks, and argparse's command line.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { passwordToHmac, rpcauthValue, runRpcauth, streamLines } from '../../src/cli/index.js';

async function rpcauth(argv: string[], opts: { stdin?: string; random?: (n: number) => Buffer } = {}) {
  let stdout = '';
  let stderr = '';
  const status = await runRpcauth(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stdin: streamLines(Readable.from([opts.stdin ?? ''])),
    ...(opts.random ? { random: opts.random } : {}),
  });
  return { stdout, stderr, status };
}

/** Recomputes the HMAC of an `rpcauth=` value with the salt's text as the key, as the server does. */
function verifies(value: string, user: string, password: string): boolean {
  const m = /^([^:]*):([^$]*)\$([0-9a-f]{64})$/.exec(value);
  if (!m || m[1] !== user) return false;
  return createHmac('sha256', m[2]!).update(password).digest('hex') === m[3];
}

test("the HMAC is keyed with the salt's text: jsonrpc.md's worked example", () => {
  assert.equal(passwordToHmac('cb77f0957de88ff388cf817ddbc72737', 'secret'), '695b11b6f3aac81cfbb226e4c57284a8916da13967e85209d53883847def7906');
  assert.equal(
    rpcauthValue('alice', 'cb77f0957de88ff388cf817ddbc72737', 'secret'),
    'alice:cb77f0957de88ff388cf817ddbc72737$695b11b6f3aac81cfbb226e4c57284a8916da13967e85209d53883847def7906',
  );
});

test('plain output: four lines, a 32-hex salt, and the printed line verifies', async () => {
  const r = await rpcauth(['alice', 'secret']);
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
  const m = /^String to be appended to bitcoin\.conf:\nrpcauth=(alice:[0-9a-f]{32}\$[0-9a-f]{64})\nYour password:\nsecret\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.ok(verifies(m[1]!, 'alice', 'secret'));
  assert.ok(!verifies(m[1]!, 'alice', 'Secret'));
  // A new salt every time.
  assert.notEqual((await rpcauth(['alice', 'secret'])).stdout, r.stdout);
});

test('no password (or an empty one): 32 random bytes as unpadded URL-safe base64 (43 characters)', async () => {
  for (const argv of [['bob'], ['bob', '']]) {
    const r = await rpcauth(argv);
    const m = /^String to be appended to bitcoin\.conf:\nrpcauth=(bob:[0-9a-f]{32}\$[0-9a-f]{64})\nYour password:\n([A-Za-z0-9_-]{43})\n$/.exec(r.stdout);
    assert.ok(m, r.stdout);
    assert.ok(verifies(m[1]!, 'bob', m[2]!));
  }
});

test('fixed randomness gives byte-exact output, plain and JSON (json.dumps spacing, ensure_ascii)', async () => {
  const random = (n: number) => Buffer.alloc(n, n === 16 ? 0xab : 0xfe);
  const salt = 'ab'.repeat(16);
  const password = Buffer.alloc(32, 0xfe).toString('base64url');
  assert.equal(password, '_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v4');
  const hmac = passwordToHmac(salt, password);
  assert.equal((await rpcauth(['u'], { random })).stdout, `String to be appended to bitcoin.conf:\nrpcauth=u:${salt}$${hmac}\nYour password:\n${password}\n`);
  assert.equal((await rpcauth(['u', '-j'], { random })).stdout, `{"username": "u", "password": "${password}", "rpcauth": "u:${salt}$${hmac}"}\n`);
  assert.equal((await rpcauth(['--json', 'u'], { random })).stdout, `{"username": "u", "password": "${password}", "rpcauth": "u:${salt}$${hmac}"}\n`);
  const h2 = passwordToHmac(salt, 'pä"ss\\');
  assert.equal(
    (await rpcauth(['é', 'pä"ss\\', '--js'], { random })).stdout,
    `{"username": "\\u00e9", "password": "p\\u00e4\\"ss\\\\", "rpcauth": "\\u00e9:${salt}$${h2}"}\n`,
  );
});

test('"-" prompts for the password (read from standard input when it is not a terminal)', async () => {
  const r = await rpcauth(['carol', '-'], { stdin: 'typed pw\n' });
  assert.equal(r.stderr, 'Warning: Password input may be echoed.\nPassword: ');
  const m = /^String to be appended to bitcoin\.conf:\nrpcauth=(carol:[0-9a-f]{32}\$[0-9a-f]{64})\nYour password:\ntyped pw\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.ok(verifies(m[1]!, 'carol', 'typed pw'));
});

test("argparse's command line: usage, help, errors with status 2", async () => {
  const usage = 'usage: tsbtcd-rpcauth [-h] [-j] username [password]\n';
  const err = (message: string) => ({ stdout: '', stderr: `${usage}tsbtcd-rpcauth: error: ${message}\n`, status: 2 });
  assert.deepEqual(await rpcauth([]), err('the following arguments are required: username'));
  assert.deepEqual(await rpcauth(['-j']), err('the following arguments are required: username'));
  assert.deepEqual(await rpcauth(['alice', 'a', 'b']), err('unrecognized arguments: b'));
  assert.deepEqual(await rpcauth(['alice', '-abc']), err('unrecognized arguments: -abc'));
  assert.deepEqual(await rpcauth(['alice', '--bogus', 'x', 'y']), err('unrecognized arguments: --bogus x y'));
  // The first run of words fills username and password: a word after an option is extra.
  assert.deepEqual(await rpcauth(['alice', '-j', 'secret']), err('unrecognized arguments: secret'));
  assert.deepEqual(await rpcauth(['alice', '-jx']), err("argument -j/--json: ignored explicit argument 'x'"));
  assert.deepEqual(await rpcauth(['alice', '--json=1']), err("argument -j/--json: ignored explicit argument '1'"));
  const help = await rpcauth(['alice', '-h', 'junk']);
  assert.equal(help.status, 0);
  assert.equal(help.stderr, '');
  assert.equal(
    help.stdout,
    `${usage}\nCreate login credentials for a JSON-RPC user\n\npositional arguments:\n  username    the username for authentication\n` +
      '  password    leave empty to generate a random password or specify "-" to\n              prompt for password\n\n' +
      'options:\n  -h, --help  show this help message and exit\n  -j, --json  output to json instead of plain-text\n',
  );
  assert.deepEqual(await rpcauth(['-jh']), help);
  assert.deepEqual(await rpcauth(['--he']), help);
  // Negative numbers, words with spaces and words after "--" are positional.
  assert.match((await rpcauth(['alice', '-123'])).stdout, /\nYour password:\n-123\n$/);
  assert.match((await rpcauth(['alice', '-a b'])).stdout, /\nYour password:\n-a b\n$/);
  assert.match((await rpcauth(['alice', '--', '-j'])).stdout, /\nYour password:\n-j\n$/);
  assert.match((await rpcauth(['--', '-x', 'y'])).stdout, /\nrpcauth=-x:/);
});
