/**
 * The real bin/tsbtcd-cli and bin/tsbtcd-rpcauth against real regtest daemons: calls with
 * Core's argument conversion and output, cookie and user/password authentication read
 * from the data directory, bitcoin.conf or the command line, -rpcwait for a node that
 * starts later, the node's errors printed with Core's layout and exit statuses, and a
 * node configured with an rpcauth line the tool printed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Daemon, freePort, sleep, tempDir } from './daemon-harness.js';

const CLI = fileURLToPath(new URL('../../../bin/tsbtcd-cli', import.meta.url));
const RPCAUTH = fileURLToPath(new URL('../../../bin/tsbtcd-rpcauth', import.meta.url));
const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';
const UNREACHABLE = 'Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\nUse "bitcoin-cli -help" for more info.\n';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end: exit code (null when killed at the timeout), stdout and stderr. */
function run(program: string, args: readonly string[], opts: { stdin?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(program, args, { timeout: opts.timeoutMs ?? 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
    child.stdin?.end(opts.stdin ?? '');
  });
}

const cli = (args: readonly string[], opts?: { stdin?: string; timeoutMs?: number }) => run(CLI, args, opts);

/** What the CLI prints for an RPC error: Core's ParseError layout and |code| as the status byte. */
function expectedError(error: { code: number; message: string }): { stderr: string; code: number } {
  let stderr = `error code: ${error.code}\nerror message:\n${error.message}`;
  if (error.code === -19) {
    stderr +=
      ' Or for the CLI, specify the "-rpcwallet=<walletname>" option before the command (run "bitcoin-cli -h" for help or "bitcoin-cli listwallets" to see which wallets are currently loaded).';
  }
  return { stderr: `${stderr}\n`, code: Math.abs(error.code) & 0xff };
}

describe('tsbtcd-cli against a node with cookie authentication', () => {
  let d: Daemon;
  /** The client's view of the node: only -datadir; chain and port come from bitcoin.conf, credentials from the cookie. */
  let base: string[];
  before(async () => {
    const port = await freePort();
    d = await Daemon.start({ port, conf: `regtest=1\n[regtest]\nrpcport=${port}\n` });
    base = [`-datadir=${d.datadir}`];
  });
  after(async () => {
    await d?.cleanup();
  });

  test('getblockcount and getblockhash 0: raw results from the cookie in <datadir>/regtest', async () => {
    assert.deepEqual(await cli([...base, 'getblockcount']), { code: 0, stdout: '0\n', stderr: '' });
    const genesis = await d.call<string>('getblockhash', [0]);
    assert.equal(genesis, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    assert.deepEqual(await cli([...base, 'getblockhash', '0']), { code: 0, stdout: `${genesis}\n`, stderr: '' });
    assert.deepEqual(await cli([...base, '-named', 'getblockhash', 'height=0']), { code: 0, stdout: `${genesis}\n`, stderr: '' });
    // The explicit cookie file, relative to the network folder, and absolute.
    assert.equal((await cli([...base, '-rpccookiefile=.cookie', 'getblockcount'])).stdout, '0\n');
    assert.equal((await cli([...base, `-rpccookiefile=${d.cookiePath}`, 'getblockcount'])).stdout, '0\n');
  });

  test('generatetoaddress 2 <address>: nblocks converted to a number, the hashes printed as Core indents them', async () => {
    const r = await cli([...base, 'generatetoaddress', '2', ADDRESS]);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    const hashes = [await d.call<string>('getblockhash', [1]), await d.call<string>('getblockhash', [2])];
    assert.equal(r.stdout, `[\n  "${hashes[0]}",\n  "${hashes[1]}"\n]\n`);
    assert.equal((await cli([...base, 'getblockcount'])).stdout, '2\n');
    // Objects and arrays of objects: two-space indentation, Core's key order.
    const tips = await cli([...base, 'getchaintips']);
    assert.equal(tips.stdout, `${JSON.stringify(await d.call('getchaintips'), null, 2)}\n`);
    // -stdin: the arguments from standard input, converted the same way.
    assert.equal((await cli([...base, '-stdin', 'getblockhash'], { stdin: '2\n' })).stdout, `${hashes[1]}\n`);
    // A bad number is refused before anything is sent.
    assert.deepEqual(await cli([...base, 'getblockhash', 'two']), { code: 1, stdout: '', stderr: 'error: Error parsing JSON: two\n' });
  });

  test("the node's errors: Core's layout, |code| as the exit status", async () => {
    assert.deepEqual(await cli([...base, 'nosuchmethod']), {
      code: 32601 & 0xff,
      stdout: '',
      stderr: 'error code: -32601\nerror message:\nMethod not found\n',
    });
    assert.deepEqual(await cli([...base, 'getblockhash', '1000']), {
      code: 8,
      stdout: '',
      stderr: 'error code: -8\nerror message:\nBlock height out of range\n',
    });
    // Too many arguments: the method's help, code -1.
    const help = await cli([...base, 'getblockcount', '1']);
    assert.equal(help.code, 1);
    assert.match(help.stderr, /^error code: -1\nerror message:\ngetblockcount\n\nReturns the height of the most-work fully-validated chain\./);
  });

  test('-rpcwallet: the call goes to /wallet/<name> and the node\'s wallet error is printed', async () => {
    for (const [method, wallet] of [
      ['getbalance', 'w1'],
      ['getwalletinfo', 'my wallet'],
      ['getblockcount', 'w1'],
    ] as const) {
      const node = await d.post(JSON.stringify({ jsonrpc: '2.0', method, params: [], id: 1 }), { path: `/wallet/${encodeURIComponent(wallet)}` });
      const answer = JSON.parse(node.body) as { result?: unknown; error?: { code: number; message: string } };
      const r = await cli([...base, `-rpcwallet=${wallet}`, method]);
      if (answer.error) {
        const expected = expectedError(answer.error);
        assert.deepEqual([r.stdout, r.stderr, r.code], ['', expected.stderr, expected.code], `${method} on /wallet/${wallet}`);
      } else {
        assert.equal(r.code, 0);
        assert.equal(r.stdout, `${JSON.stringify(answer.result)}\n`);
      }
    }
  });

  test("-getinfo: Core's layout when the node has getnetworkinfo and getblockchaininfo, else their error", async () => {
    const r = await cli([...base, '-getinfo']);
    const network = await d.rpc('getnetworkinfo');
    const chain = await d.rpc('getblockchaininfo');
    const failed = network.json?.error ?? chain.json?.error;
    if (failed) {
      const expected = expectedError(failed);
      assert.deepEqual([r.stdout, r.stderr, r.code], ['', expected.stderr, expected.code]);
      return;
    }
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    const c = chain.json.result;
    const n = network.json.result;
    assert.ok(r.stdout.startsWith(`Chain: regtest\nBlocks: ${c.blocks}\nHeaders: ${c.headers}\n`), r.stdout);
    assert.ok(r.stdout.includes(`\nNetwork: in ${n.connections_in}, out ${n.connections_out}, total ${n.connections}\nVersion: ${n.version}\n`), r.stdout);
    assert.ok(r.stdout.endsWith('\n'), r.stdout);
  });

  test('no server on the port: the connection error and status 1; a wrong cookie path: Core\'s missing-credentials error', async () => {
    const port = await freePort();
    assert.deepEqual(await cli([...base, `-rpcport=${port}`, 'getblockcount']), {
      code: 1,
      stdout: '',
      stderr: `error: timeout on transient error: Could not connect to the server 127.0.0.1:${port}\n\n${UNREACHABLE}`,
    });
    assert.deepEqual(await cli([...base, '-rpccookiefile=no-such-cookie', 'getblockcount']), {
      code: 1,
      stdout: '',
      stderr:
        'error: Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  ' +
        `See -rpcpassword and -stdinrpcpass.  Configuration file: (${path.join(d.datadir, 'bitcoin.conf')})\n`,
    });
    assert.equal(d.stderr, '');
  });
});

describe('tsbtcd-cli with -rpcuser/-rpcpassword', () => {
  let d: Daemon | undefined;
  const datadir = tempDir();
  after(async () => {
    await d?.cleanup();
    fs.rmSync(datadir, { recursive: true, force: true });
  });

  test('-rpcwait reaches a node that starts later (through its warm-up); a bad password is refused', async () => {
    const port = await freePort();
    const auth = ['-regtest', `-datadir=${datadir}`, `-rpcport=${port}`, '-rpcuser=alice', '-rpcpassword=s3cret'];
    // Nothing listens yet: without -rpcwait the client fails at once.
    assert.equal((await cli([...auth, 'getblockcount'])).code, 1);
    const started = Date.now();
    const waiting = cli([...auth, '-rpcwait', '-rpcwaittimeout=60', 'getblockcount'], { timeoutMs: 90_000 });
    await sleep(1500);
    d = await Daemon.start({ datadir, port, args: ['-rpcuser=alice', '-rpcpassword=s3cret', '-testwarmupms=1500'], waitReady: false });
    const r = await waiting;
    assert.deepEqual(r, { code: 0, stdout: '0\n', stderr: '' });
    assert.ok(Date.now() - started >= 1500);
    // The password from standard input.
    assert.equal((await cli([...auth.slice(0, 4), '-stdinrpcpass', 'getblockcount'], { stdin: 's3cret\n' })).stdout, '0\n');
    assert.deepEqual(await cli([...auth.slice(0, 4), '-rpcpassword=wrong', 'getblockcount']), {
      code: 1,
      stdout: '',
      stderr: 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n',
    });
    // stop through the client; then -rpcwait gives up after -rpcwaittimeout.
    const stop = await cli([...auth, 'stop']);
    assert.deepEqual([stop.code, stop.stderr], [0, '']);
    assert.match(stop.stdout, /^\S+ stopping\n$/);
    assert.equal((await d.waitExit()).code, 0);
    const gone = await cli([...auth, '-rpcwait', '-rpcwaittimeout=2', 'getblockcount'], { timeoutMs: 30_000 });
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, `error: timeout on transient error: Could not connect to the server 127.0.0.1:${port}\n\n${UNREACHABLE}`);
  });
});

describe('tsbtcd-rpcauth and a node configured with its line', () => {
  let d: Daemon | undefined;
  after(async () => {
    await d?.cleanup();
  });

  test('the printed rpcauth line lets the generated password in, and only that password', async () => {
    const plain = await run(RPCAUTH, ['carol']);
    assert.equal(plain.code, 0);
    assert.equal(plain.stderr, '');
    const m = /^String to be appended to bitcoin\.conf:\n(rpcauth=carol:[0-9a-f]{32}\$[0-9a-f]{64})\nYour password:\n([A-Za-z0-9_-]{43})\n$/.exec(plain.stdout);
    assert.ok(m, plain.stdout);
    const json = await run(RPCAUTH, ['dave', 'pw=with:odd$chars', '-j']);
    const parsed = JSON.parse(json.stdout) as { username: string; password: string; rpcauth: string };
    assert.deepEqual(Object.keys(parsed), ['username', 'password', 'rpcauth']);
    assert.equal(parsed.password, 'pw=with:odd$chars');

    const port = await freePort();
    d = await Daemon.start({ port, conf: `regtest=1\n${m[1]}\nrpcauth=${parsed.rpcauth}\n[regtest]\nrpcport=${port}\n` });
    const as = (user: string, password: string) => cli([`-datadir=${d!.datadir}`, `-rpcuser=${user}`, `-rpcpassword=${password}`, 'getblockcount']);
    assert.deepEqual(await as('carol', m[2]!), { code: 0, stdout: '0\n', stderr: '' });
    assert.deepEqual(await as('dave', 'pw=with:odd$chars'), { code: 0, stdout: '0\n', stderr: '' });
    const refused = { code: 1, stdout: '', stderr: 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n' };
    assert.deepEqual(await as('carol', `${m[2]!}x`), refused);
    assert.deepEqual(await as('dave', m[2]!), refused);
    // The cookie still works alongside rpcauth.
    assert.equal((await cli([`-datadir=${d.datadir}`, 'getblockcount'])).stdout, '0\n');
  });
});
