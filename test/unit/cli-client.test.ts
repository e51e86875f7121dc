/**
 * tsbtcd-cli as a whole program against a stub transport: options and bitcoin.conf (the
 * client's own option table), the request it sends (bytes, endpoint, credentials), and
 * what it prints and exits with for each kind of reply or failure, as bitcoin-cli does.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { after, test } from 'node:test';
import { HttpTransportError, runCli, streamLines, type CliIo, type HttpPost, type HttpReply } from '../../src/cli/index.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A data directory with bitcoin.conf and (unless null) a regtest cookie. */
function datadir(conf = 'regtest=1\n[regtest]\nrpcport=18555\n', cookie: string | null = '__cookie__:secret'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-cli-unit-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'bitcoin.conf'), conf);
  if (cookie !== null) {
    fs.mkdirSync(path.join(dir, 'regtest'));
    fs.writeFileSync(path.join(dir, 'regtest', '.cookie'), cookie);
  }
  return dir;
}

type Answer = HttpReply | HttpTransportError | ((req: HttpPost, body: any) => HttpReply | HttpTransportError);

const ok = (result: string, id = '1') => ({ status: 200, body: `{"jsonrpc":"2.0","result":${result},"id":${id}}\n` });
const rpcError = (code: number, message: string, status = 200) => ({
  status,
  body: `{"jsonrpc":"2.0","error":{"code":${code},"message":${JSON.stringify(message)}},"id":1}\n`,
});

interface Run {
  stdout: string;
  stderr: string;
  status: number;
  requests: HttpPost[];
  slept: number;
}

/** Runs the client with `answers` keyed by method (or by the batch's methods joined with ','). */
async function cli(argv: string[], answers: Record<string, Answer> = {}, opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const run: Run = { stdout: '', stderr: '', status: -1, requests: [], slept: 0 };
  let clock = 1_700_000_000_000;
  const io: CliIo = {
    stdout: (t) => (run.stdout += t),
    stderr: (t) => (run.stderr += t),
    stdin: streamLines(Readable.from([opts.stdin ?? ''])),
    stdoutIsTerminal: false,
    env: opts.env ?? { HOME: '/nonexistent-home' },
    transport: async (req) => {
      run.requests.push(req);
      const body = JSON.parse(req.body);
      const key = Array.isArray(body) ? body.map((r: { method: string }) => r.method).join(',') : body.method;
      let answer = answers[key];
      if (typeof answer === 'function') answer = answer(req, body);
      if (answer === undefined) answer = rpcError(-32601, 'Method not found');
      if (answer instanceof HttpTransportError) throw answer;
      return answer;
    },
    sleep: async (ms) => {
      run.slept += ms;
      clock += ms;
    },
    now: () => clock,
    version: 'v0.1.0',
  };
  run.status = await runCli(argv, io);
  return run;
}

const refused = () => new HttpTransportError(-1, 'connect ECONNREFUSED');

test('a call: JSON-RPC 2.0 body, cookie credentials, port from [regtest] in bitcoin.conf, raw string result', async () => {
  const dir = datadir();
  const r = await cli([`-datadir=${dir}`, 'getblockhash', '0'], { getblockhash: ok('"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"') });
  assert.deepEqual([r.stdout, r.stderr, r.status], ['0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206\n', '', 0]);
  const [req] = r.requests;
  assert.equal(req!.body, '{"method":"getblockhash","params":[0],"id":1,"jsonrpc":"2.0"}\n');
  assert.equal(req!.host, '127.0.0.1');
  assert.equal(req!.port, 18555);
  assert.equal(req!.path, '/');
  assert.equal(req!.timeoutMs, 900_000);
  assert.deepEqual(req!.headers, {
    Host: '127.0.0.1',
    Connection: 'close',
    'Content-Type': 'application/json',
    Authorization: `Basic ${Buffer.from('__cookie__:secret').toString('base64')}`,
  });
});

test('results: null prints nothing, "" prints nothing, numbers and objects as write(2) with their text kept', async () => {
  const dir = datadir();
  assert.deepEqual(await cli([`-datadir=${dir}`, 'submitblock', 'ab'], { submitblock: ok('null') }).then((r) => [r.stdout, r.stderr, r.status]), ['', '', 0]);
  assert.equal((await cli([`-datadir=${dir}`, 'echo', ''], { echo: ok('""') })).stdout, '');
  assert.equal((await cli([`-datadir=${dir}`, 'getblockcount'], { getblockcount: ok('101') })).stdout, '101\n');
  const info = await cli([`-datadir=${dir}`, 'getmempoolinfo'], { getmempoolinfo: ok('{"loaded":true,"minrelaytxfee":0.00001000,"x":[],"y":{"z":[1]}}') });
  assert.equal(info.stdout, '{\n  "loaded": true,\n  "minrelaytxfee": 0.00001000,\n  "x": [\n  ],\n  "y": {\n    "z": [\n      1\n    ]\n  }\n}\n');
  // A 1.1-shaped reply (error: null) is a success too.
  assert.equal((await cli([`-datadir=${dir}`, 'uptime'], { uptime: { status: 200, body: '{"result":5,"error":null,"id":1}' } })).stdout, '5\n');
});

test('RPC errors: "error code" / "error message" on stderr, |code| as status, the -19 hint', async () => {
  const dir = datadir();
  const nf = await cli([`-datadir=${dir}`, 'nosuch'], { nosuch: rpcError(-32601, 'Method not found', 404) });
  assert.deepEqual([nf.stdout, nf.stderr, nf.status], ['', 'error code: -32601\nerror message:\nMethod not found\n', 32601]);
  const range = await cli([`-datadir=${dir}`, 'getblockhash', '9'], { getblockhash: rpcError(-8, 'Block height out of range', 500) });
  assert.deepEqual([range.stderr, range.status], ['error code: -8\nerror message:\nBlock height out of range\n', 8]);
  const multi = await cli([`-datadir=${dir}`, 'getbalance'], { getbalance: rpcError(-19, 'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.') });
  assert.equal(
    multi.stderr,
    'error code: -19\nerror message:\nMultiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path. ' +
      'Or for the CLI, specify the "-rpcwallet=<walletname>" option before the command (run "bitcoin-cli -h" for help or "bitcoin-cli listwallets" to see which wallets are currently loaded).\n',
  );
  assert.equal(multi.status, 19);
  // An error that is not an object, or without a code.
  const odd = await cli([`-datadir=${dir}`, 'x'], { x: { status: 500, body: '{"result":null,"error":"boom","id":1}' } });
  assert.deepEqual([odd.stderr, odd.status], ['error: JSON value is not an integer as expected\n', 1]);
});

test('HTTP failures: Core\'s texts, status 1', async () => {
  const dir = datadir();
  const call = async (answer: Answer, extra: string[] = []) => {
    const r = await cli([`-datadir=${dir}`, ...extra, 'getblockcount'], { getblockcount: answer });
    assert.equal(r.stdout, '');
    assert.equal(r.status, 1);
    return r.stderr;
  };
  assert.equal(await call({ status: 401, body: '' }), 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n');
  assert.equal(await call({ status: 401, body: '' }, ['-rpcuser=u', '-rpcpassword=p']), 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n');
  assert.equal(
    await call({ status: 401, body: '' }, ['-rpccookiefile=does-not-exist']),
    `error: Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  See -rpcpassword and -stdinrpcpass.  Configuration file: (${path.join(dir, 'bitcoin.conf')})\n`,
  );
  // -norpccookiefile: no cookie is read, no credentials are sent, the 401 is a wrong password.
  assert.equal(await call({ status: 401, body: '' }, ['-norpccookiefile']), 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n');
  assert.equal(await call({ status: 503, body: 'Work queue depth exceeded' }), 'error: Server response: Work queue depth exceeded\n');
  assert.equal(await call({ status: 403, body: '' }), 'error: server returned HTTP error 403\n');
  assert.equal(await call({ status: 405, body: 'JSONRPC server handles only POST requests' }), 'error: server returned HTTP error 405\n');
  assert.equal(await call({ status: 500, body: '' }), 'error: no response from server\n');
  assert.equal(await call({ status: 200, body: 'not json' }), "error: couldn't parse reply from server\n");
  assert.equal(await call({ status: 200, body: '{}' }), 'error: expected reply to have result, error and id properties\n');
  assert.equal(await call({ status: 200, body: '[1]' }), 'error: JSON value is not an object as expected\n');
  const unreachable = 'Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\nUse "bitcoin-cli -help" for more info.\n';
  assert.equal(await call(refused()), `error: timeout on transient error: Could not connect to the server 127.0.0.1:18555\n\n${unreachable}`);
  assert.equal(
    await call(new HttpTransportError(1, 'socket hang up')),
    `error: timeout on transient error: Could not connect to the server 127.0.0.1:18555 (error code 1 - "EOF reached")\n\n${unreachable}`,
  );
  assert.equal(
    await call(new HttpTransportError(0, 'timeout')),
    `error: timeout on transient error: Could not connect to the server 127.0.0.1:18555 (error code 0 - "timeout reached")\n\n${unreachable}`,
  );
});

test('host and port: -rpcport over a port in -rpcconnect over the chain default; invalid ones named as given', async () => {
  const dir = datadir('regtest=1\n');
  const endpoint = async (...extra: string[]) => {
    const r = await cli([`-datadir=${dir}`, ...extra, 'echo'], { echo: ok('[]') });
    return { at: r.requests.map((q) => `${q.host}:${q.port}`)[0], err: r.stderr, status: r.status };
  };
  assert.deepEqual(await endpoint(), { at: '127.0.0.1:18443', err: '', status: 0 });
  assert.deepEqual(await endpoint('-rpcconnect=127.0.0.1:18999'), { at: '127.0.0.1:18999', err: '', status: 0 });
  assert.deepEqual(await endpoint('-rpcconnect=127.0.0.1:18999', '-rpcport=18000'), {
    at: '127.0.0.1:18000',
    err: 'Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport 18000\n',
    status: 0,
  });
  assert.deepEqual(await endpoint('-rpcconnect=[::1]:18998'), { at: '::1:18998', err: '', status: 0 });
  assert.deepEqual(await endpoint('-rpcconnect=::1'), { at: '::1:18443', err: '', status: 0 });
  assert.deepEqual(await endpoint('-rpcconnect=localhost'), { at: 'localhost:18443', err: '', status: 0 });
  for (const bad of ['notaport', '-1', '0', '65536']) {
    assert.deepEqual(await endpoint(`-rpcport=${bad}`), { at: undefined, err: `error: Invalid port provided in -rpcport: ${bad}\n`, status: 1 });
    assert.deepEqual(await endpoint(`-rpcconnect=127.0.0.1:${bad}`), { at: undefined, err: `error: Invalid port provided in -rpcconnect: 127.0.0.1:${bad}\n`, status: 1 });
  }
  // Chain defaults and -chain.
  const main = datadir('', null);
  assert.equal((await cli([`-datadir=${main}`, 'echo'], { echo: ok('[]') })).requests[0]!.port, 8332);
  assert.equal((await cli([`-datadir=${main}`, '-testnet', 'echo'], { echo: ok('[]') })).requests[0]!.port, 18332);
  assert.equal((await cli([`-datadir=${main}`, '-chain=testnet4', 'echo'], { echo: ok('[]') })).requests[0]!.port, 48332);
  assert.equal((await cli([`-datadir=${main}`, '-signet', 'echo'], { echo: ok('[]') })).requests[0]!.port, 38332);
});

test('bitcoin.conf is read with the client\'s own options: rpcconnect/rpcwait/rpcuser work, rpcport is network-only, unknown keys ignored', async () => {
  const dir = datadir('regtest=1\nrpcport=7777\nrpcconnect=127.0.0.2\nrpcuser=alice\nrpcpassword=pw\nserver=1\nrpcallowip=0.0.0.0/0\nbogus=1\nincludeconf=missing.conf\n[regtest]\nrpcclienttimeout=5\n', null);
  const r = await cli([`-datadir=${dir}`, 'echo'], { echo: ok('[]') });
  assert.equal(r.status, 0, r.stderr);
  const [req] = r.requests;
  // rpcport=7777 at the top level does not apply to regtest.
  assert.equal(`${req!.host}:${req!.port}`, '127.0.0.2:18443');
  assert.equal(req!.headers['Authorization'], `Basic ${Buffer.from('alice:pw').toString('base64')}`);
  assert.equal(req!.timeoutMs, 5000);
  // The command line wins.
  assert.equal((await cli([`-datadir=${dir}`, '-rpcconnect=127.0.0.3', '-rpcclienttimeout=0', 'echo'], { echo: ok('[]') })).requests[0]!.timeoutMs, 0);
});

test('start-up errors: Core\'s texts and status 1; -version and -help succeed; no arguments is usage plus an error', async () => {
  const run = (...argv: string[]) => cli(argv).then((r) => [r.stdout, r.stderr, r.status] as const);
  assert.deepEqual(await run('-foo', 'getblockcount'), ['', 'Error parsing command line arguments: Invalid parameter -foo\n', 1]);
  assert.deepEqual(await run('-regtest.rpcport=1', 'x'), ['', 'Error parsing command line arguments: Invalid parameter -regtest.rpcport=1\n', 1]);
  assert.deepEqual(await run('-nodatadir', 'x'), ['', 'Error parsing command line arguments: Negating of -datadir is meaningless and therefore forbidden\n', 1]);
  // bitcoind options are not the client's.
  assert.deepEqual(await run('-server', 'x'), ['', 'Error parsing command line arguments: Invalid parameter -server\n', 1]);
  assert.deepEqual(await run('-datadir=/nonexistent-cli-dir', 'x'), ['', 'Error: Specified data directory "/nonexistent-cli-dir" does not exist.\n', 1]);
  const conf = datadir('conf=other.conf\n', null);
  assert.deepEqual(await run(`-datadir=${conf}`, 'x'), [
    '',
    'Error reading configuration file: conf cannot be set in the configuration file; use includeconf= if you want to include additional config files\n',
    1,
  ]);
  const missing = datadir('', null);
  assert.deepEqual(await run(`-datadir=${missing}`, '-conf=nope.conf', 'x'), [
    '',
    `Error reading configuration file: specified config file "${path.join(missing, 'nope.conf')}" could not be opened.\n`,
    1,
  ]);
  assert.deepEqual(await run(`-datadir=${missing}`, '-regtest', '-testnet', 'x'), [
    '',
    'Error: Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.\n',
    1,
  ]);
  assert.deepEqual(await run(`-datadir=${missing}`, '-chain=foo', 'x'), ['', 'Error: Unknown chain foo.\n', 1]);
  assert.deepEqual(await run(`-datadir=${missing}`, '-regtest'), ['', 'error: too few parameters (need at least command)\n', 1]);
  const version = await run('-version');
  assert.deepEqual(version, ['tsbtcd RPC client version v0.1.0\n', '', 0]);
  const help = await run('-?');
  assert.match(help[0], /^tsbtcd RPC client version v0\.1\.0\n\nThe tsbtcd-cli utility provides a command line interface/);
  assert.match(help[0], /\n\nOptions:\n\n {2}-color=<when>\n {7}Color setting for CLI output/);
  assert.match(help[0], /\n\nCLI Commands:\n\n {2}-addrinfo\n/);
  assert.ok(!help[0].includes('-regtest\n'), 'debug-only options are not listed');
  assert.deepEqual([help[1], help[2]], ['', 0]);
  const none = await run();
  assert.equal(none[0], help[0]);
  assert.deepEqual([none[1], none[2]], ['Error: too few parameters\n', 1]);
});

test('-named builds an object; -stdin adds one argument per line; -stdinrpcpass takes the first line', async () => {
  const dir = datadir();
  const body = (r: Run) => r.requests[0]!.body;
  assert.equal(body(await cli([`-datadir=${dir}`, '-named', 'getblockhash', 'height=0'], { getblockhash: ok('"00"') })), '{"method":"getblockhash","params":{"height":0},"id":1,"jsonrpc":"2.0"}\n');
  assert.equal(
    body(await cli([`-datadir=${dir}`, '-named', 'echo', '0', '1', 'arg3=3'], { echo: ok('[]') })),
    '{"method":"echo","params":{"arg3":"3","args":["0","1"]},"id":1,"jsonrpc":"2.0"}\n',
  );
  // -stdin: lines are arguments, converted like the others; a last line without newline counts, an empty one does not.
  const s = await cli([`-datadir=${dir}`, '-stdin', 'generatetoaddress'], { generatetoaddress: ok('[]') }, { stdin: '2\nbcrt1qaddr\n' });
  assert.equal(body(s), '{"method":"generatetoaddress","params":[2,"bcrt1qaddr"],"id":1,"jsonrpc":"2.0"}\n');
  const e = await cli([`-datadir=${dir}`, '-stdin', 'echo', 'a'], { echo: ok('[]') }, { stdin: 'b\n\nc d\r\ne' });
  assert.equal(body(e), '{"method":"echo","params":["a","b","","c d\\r","e"],"id":1,"jsonrpc":"2.0"}\n');
  // -stdin with -named: the lines are NAME=VALUE words.
  const n = await cli([`-datadir=${dir}`, '-named', '-stdin', 'getblock'], { getblock: ok('"00"') }, { stdin: 'blockhash=ab\nverbosity=0\n' });
  assert.equal(body(n), '{"method":"getblock","params":{"blockhash":"ab","verbosity":0},"id":1,"jsonrpc":"2.0"}\n');
  // -stdinrpcpass: the first line is the password (with -rpcuser), the rest go to -stdin.
  const p = await cli([`-datadir=${dir}`, '-rpcuser=u', '-stdinrpcpass', '-stdin', 'echo'], { echo: ok('["foo","bar"]') }, { stdin: 'pw\nfoo\nbar' });
  assert.equal(p.requests[0]!.headers['Authorization'], `Basic ${Buffer.from('u:pw').toString('base64')}`);
  assert.equal(body(p), '{"method":"echo","params":["foo","bar"],"id":1,"jsonrpc":"2.0"}\n');
  assert.deepEqual(await cli([`-datadir=${dir}`, '-stdinrpcpass', 'echo']).then((r) => [r.stderr, r.status]), [
    'error: -stdinrpcpass specified but failed to read from standard input\n',
    1,
  ]);
  // -stdinwalletpassphrase goes in as the second word of walletpassphrase(change).
  const w = await cli([`-datadir=${dir}`, '-stdinwalletpassphrase', 'walletpassphrase', '60'], { walletpassphrase: ok('null') }, { stdin: 'secret phrase\n' });
  assert.equal(body(w), '{"method":"walletpassphrase","params":["secret phrase",60],"id":1,"jsonrpc":"2.0"}\n');
  assert.deepEqual(await cli([`-datadir=${dir}`, '-stdinwalletpassphrase', 'getblockcount']).then((r) => [r.stderr, r.status]), [
    'error: -stdinwalletpassphrase is only applicable for walletpassphrase(change)\n',
    1,
  ]);
});

test('the method follows the leading switches; "-" ends the options; a later "-x" is an argument', async () => {
  const dir = datadir();
  const r = await cli([`-datadir=${dir}`, 'echo', '-named', '-1'], { echo: ok('[]') });
  assert.equal(r.requests[0]!.body, '{"method":"echo","params":["-named","-1"],"id":1,"jsonrpc":"2.0"}\n');
  const dash = await cli([`-datadir=${dir}`, '-', '-named', 'echo', 'a=b'], { echo: ok('[]') });
  assert.equal(dash.requests[0]!.body, '{"method":"echo","params":["a=b"],"id":1,"jsonrpc":"2.0"}\n');
});

test('-rpcwallet: /wallet/<uri-encoded name>; -norpcwallet and no option: /', async () => {
  const dir = datadir();
  const pathOf = async (...extra: string[]) => (await cli([`-datadir=${dir}`, ...extra, 'getbalance'], { getbalance: ok('0') })).requests[0]!.path;
  assert.equal(await pathOf('-rpcwallet=my wallet/1'), '/wallet/my%20wallet%2F1');
  assert.equal(await pathOf('-rpcwallet=abc-._~é!*'), '/wallet/abc-._~%C3%A9%21%2A');
  assert.equal(await pathOf('-rpcwallet='), '/wallet/');
  assert.equal(await pathOf('-rpcwallet'), '/wallet/');
  assert.equal(await pathOf('-norpcwallet'), '/');
  assert.equal(await pathOf(), '/');
});

test('-rpcwait: retries refused connections and warm-up every second, until -rpcwaittimeout', async () => {
  const dir = datadir();
  let n = 0;
  const later = await cli([`-datadir=${dir}`, '-rpcwait', 'getblockcount'], {
    getblockcount: () => (++n < 3 ? refused() : n < 5 ? rpcError(-28, 'Loading block index…', 500) : ok('7')),
  });
  assert.deepEqual([later.stdout, later.stderr, later.status, n, later.slept], ['7\n', '', 0, 5, 4000]);
  // Without -rpcwait a warm-up answer is an ordinary error.
  const warm = await cli([`-datadir=${dir}`, 'getblockcount'], { getblockcount: rpcError(-28, 'Verifying blocks…', 500) });
  assert.deepEqual([warm.stderr, warm.status], ['error code: -28\nerror message:\nVerifying blocks…\n', 28]);
  const timeout = await cli([`-datadir=${dir}`, '-rpcwait', '-rpcwaittimeout=3', 'getblockcount'], { getblockcount: rpcError(-28, 'Loading…', 500) });
  assert.deepEqual([timeout.stderr, timeout.status, timeout.slept], ['error: timeout on transient error: server in warmup\n', 1, 3000]);
  // A 401 is not retried.
  const auth = await cli([`-datadir=${dir}`, '-rpcwait', 'getblockcount'], { getblockcount: { status: 401, body: '' } });
  assert.deepEqual([auth.stderr, auth.slept], ['error: Authorization failed: Incorrect rpcuser or rpcpassword\n', 0]);
});

test('-ipcconnect: this client has no IPC, so only auto and -noipcconnect work', async () => {
  const dir = datadir();
  assert.equal((await cli([`-datadir=${dir}`, '-ipcconnect=auto', 'echo'], { echo: ok('[]') })).status, 0);
  assert.equal((await cli([`-datadir=${dir}`, '-noipcconnect', 'echo'], { echo: ok('[]') })).status, 0);
  assert.equal((await cli([`-datadir=${dir}`, '-ipcconnect=unix', 'echo'])).stderr, 'error: bitcoin-cli was not built with IPC support\n');
  assert.equal(
    (await cli([`-datadir=${dir}`, '-ipcconnect=unix', '-rpcconnect=127.0.0.1', 'echo'])).stderr,
    'error: -rpcconnect and -ipcconnect options cannot both be enabled\n',
  );
});

const NETWORKINFO = JSON.stringify({
  version: 310000,
  subversion: '/tsbtcd:0.1.0/',
  protocolversion: 70016,
  localservicesnames: ['NETWORK', 'WITNESS', 'NETWORK_LIMITED'],
  timeoffset: 0,
  connections: 3,
  connections_in: 1,
  connections_out: 2,
  networks: [
    { name: 'ipv4', reachable: true, proxy: '127.0.0.1:9050' },
    { name: 'ipv6', reachable: true, proxy: '127.0.0.1:9050' },
    { name: 'onion', reachable: false, proxy: '' },
    { name: 'i2p', reachable: false, proxy: '127.0.0.1:7656' },
  ],
  relayfee: 0.00001,
  localaddresses: [],
  warnings: [],
}).replace('"relayfee":0.00001', '"relayfee":0.00001000');

const batchReply = (...parts: string[]) => ({ status: 200, body: `[${parts.join(',')}]` });
const part = (id: number, result: string) => `{"jsonrpc":"2.0","result":${result},"id":${id}}`;
const partError = (id: number, code: number, message: string) => `{"jsonrpc":"2.0","error":{"code":${code},"message":"${message}"},"id":${id}}`;

test('-getinfo: one batch, Core\'s layout; missing wallet calls leave out the wallet lines; -color', async () => {
  const dir = datadir();
  const chain = '{"chain":"regtest","blocks":101,"headers":101,"verificationprogress":1,"difficulty":4.656542373906925e-10}';
  const answers = (wallet: string[]): Record<string, Answer> => ({
    'getnetworkinfo,getblockchaininfo,getwalletinfo,getbalances': (_req, body) => {
      assert.deepEqual(body, [
        { method: 'getnetworkinfo', params: null, id: 0, jsonrpc: '2.0' },
        { method: 'getblockchaininfo', params: null, id: 1, jsonrpc: '2.0' },
        { method: 'getwalletinfo', params: null, id: 2, jsonrpc: '2.0' },
        { method: 'getbalances', params: null, id: 3, jsonrpc: '2.0' },
      ]);
      // Out of order on purpose: the ids place them.
      return batchReply(part(1, chain), part(0, NETWORKINFO), ...wallet);
    },
  });
  const noWallet = await cli([`-datadir=${dir}`, '-getinfo'], answers([partError(2, -18, 'No wallet is loaded.'), partError(3, -18, 'No wallet is loaded.')]));
  assert.equal(
    noWallet.stdout,
    'Chain: regtest\nBlocks: 101\nHeaders: 101\nVerification progress: 100.0000%\nDifficulty: 4.656542373906925e-10\n\n' +
      'Network: in 1, out 2, total 3\nVersion: 310000\nTime offset (s): 0\nProxies: 127.0.0.1:9050 (ipv4, ipv6), 127.0.0.1:7656 (i2p)\n' +
      'Min tx relay fee rate (BTC/kvB): 0.00001000\n\nWarnings: (none)\n',
  );
  assert.equal(noWallet.status, 0);
  // listwallets (method not found here) is asked for the per-wallet balances.
  assert.deepEqual(
    noWallet.requests.map((q) => q.body.slice(0, 30)),
    ['[{"method":"getnetworkinfo","p', '{"method":"listwallets","param'],
  );
  const withWallet = await cli(
    [`-datadir=${dir}`, '-getinfo', '-color=always'],
    answers([part(2, '{"walletname":"","keypoolsize":1000,"unlocked_until":0}'), part(3, '{"mine":{"trusted":50.00000000}}')]),
  );
  assert.equal(
    withWallet.stdout,
    '\x1B[34mChain: regtest\x1B[0m\nBlocks: 101\nHeaders: 101\nVerification progress: 100.0000%\nDifficulty: 4.656542373906925e-10\n\n' +
      '\x1B[32mNetwork: in 1, out 2, total 3\x1B[0m\nVersion: 310000\nTime offset (s): 0\nProxies: 127.0.0.1:9050 (ipv4, ipv6), 127.0.0.1:7656 (i2p)\n' +
      'Min tx relay fee rate (BTC/kvB): 0.00001000\n\n\x1B[35mWallet: ""\x1B[0m\nKeypool size: 1000\nUnlocked until: 0\n\x1B[36mBalance:\x1B[0m 50.00000000\n\n' +
      '\x1B[33mWarnings:\x1B[0m (none)\n',
  );
  // Several wallets: their balances, right-aligned.
  const several = await cli([`-datadir=${dir}`, '-getinfo'], {
    ...answers([part(2, '{"walletname":"w1","keypoolsize":1}'), part(3, '{"mine":{"trusted":1.00000000}}')]),
    listwallets: ok('["w1","Encrypted"]'),
    getbalances: (req) => ok(req.path === '/wallet/w1' ? '{"mine":{"trusted":1.00000000}}' : '{"mine":{"trusted":12345.00000000}}'),
  });
  assert.match(several.stdout, /\nBalances\n {4}1\.00000000 w1\n12345\.00000000 Encrypted\n\nWarnings: \(none\)\n$/);
  assert.deepEqual((await cli([`-datadir=${dir}`, '-getinfo', '-color=foo'], answers([]))).stderr, 'error: Invalid value for -color option. Valid values: always, auto, never.\n');
  assert.deepEqual((await cli([`-datadir=${dir}`, '-getinfo', 'x'])).stderr, 'error: -getinfo takes no arguments\n');
  // A failing getnetworkinfo is the error printed.
  const failed = await cli([`-datadir=${dir}`, '-getinfo'], {
    'getnetworkinfo,getblockchaininfo,getwalletinfo,getbalances': batchReply(partError(0, -32601, 'Method not found'), part(1, chain), partError(2, -32601, 'Method not found'), partError(3, -32601, 'Method not found')),
  });
  assert.deepEqual([failed.stdout, failed.stderr, failed.status], ['', 'error code: -32601\nerror message:\nMethod not found\n', 32601]);
  // IBD: the progress bar.
  const ibd = await cli([`-datadir=${dir}`, '-getinfo'], {
    'getnetworkinfo,getblockchaininfo,getwalletinfo,getbalances': batchReply(part(0, NETWORKINFO), part(1, chain.replace('"verificationprogress":1', '"verificationprogress":0.42'))),
  });
  assert.match(ibd.stdout, /\nVerification progress: ▒{9}░{12} 42\.0000%\n/);
});

test('-generate, -addrinfo and -netinfo as Core builds them', async () => {
  const dir = datadir();
  const gen = await cli([`-datadir=${dir}`, '-generate', '2'], {
    getnewaddress: ok('"bcrt1qnew"'),
    generatetoaddress: (_req, body) => ok(JSON.stringify(body.params)),
  });
  assert.equal(gen.stdout, '{\n  "address": "bcrt1qnew",\n  "blocks": [\n    2,\n    "bcrt1qnew"\n  ]\n}\n');
  const genErr = await cli([`-datadir=${dir}`, '-generate'], { getnewaddress: rpcError(-18, 'No wallet is loaded.') });
  assert.deepEqual([genErr.stderr, genErr.status], ['error code: -18\nerror message:\nNo wallet is loaded.\n', 18]);
  assert.equal((await cli([`-datadir=${dir}`, '-generate', '0'], { getnewaddress: ok('"a"') })).stderr, 'error: the first argument (number of blocks to generate, default: 1) must be an integer value greater than zero\n');
  assert.equal((await cli([`-datadir=${dir}`, '-generate', '1', '2', '3'], { getnewaddress: ok('"a"') })).stderr, 'error: too many arguments (maximum 2 for nblocks and maxtries)\n');
  assert.equal((await cli([`-datadir=${dir}`, '-generate', 'foo'], { getnewaddress: ok('"a"') })).stderr, 'error: Error parsing JSON: foo\n');

  const addr = await cli([`-datadir=${dir}`, '-addrinfo'], { getaddrmaninfo: ok('{"ipv4":{"new":3,"tried":1,"total":4},"onion":{"new":0,"tried":0,"total":0},"all_networks":{"new":3,"tried":1,"total":4}}') });
  assert.equal(addr.stdout, '{\n  "addresses_known": {\n    "ipv4": 4,\n    "onion": 0,\n    "total": 4\n  }\n}\n');
  assert.equal(
    (await cli([`-datadir=${dir}`, '-addrinfo'])).stderr,
    'error: -addrinfo requires bitcoind v26.0 or later which supports getaddrmaninfo RPC. Please upgrade your node or use bitcoin-cli from the same version.\n',
  );

  const net = await cli([`-datadir=${dir}`, '-netinfo'], {
    'getpeerinfo,getnetworkinfo': batchReply(part(0, '[]'), part(1, NETWORKINFO)),
  });
  assert.equal(
    net.stdout,
    'tsbtcd client v0.1.0 regtest - server 70016/tsbtcd:0.1.0/\n\n' +
      '         ipv4    ipv6   total   block\nin          0       0       0\nout         0       0       0       0\ntotal       0       0       0\n\n' +
      'Local services: network, witness, network limited\n\nLocal addresses: n/a\n\n',
  );
  assert.match((await cli([`-datadir=${dir}`, '-netinfo', 'help'])).stdout, /^-netinfo \(level \[outonly\]\) \| help\n\nReturns a network peer connections dashboard/);
  assert.equal((await cli([`-datadir=${dir}`, '-netinfo', '5x'])).stderr, 'error: invalid -netinfo level argument: 5x\nFor more information, run: bitcoin-cli -netinfo help\n');
  // Without getpeerinfo on the node: its error.
  assert.equal(
    (await cli([`-datadir=${dir}`, '-netinfo'], { 'getpeerinfo,getnetworkinfo': batchReply(partError(0, -32601, 'Method not found'), part(1, NETWORKINFO)) })).stderr,
    'error code: -32601\nerror message:\nMethod not found\n',
  );
});
