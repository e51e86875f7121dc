/**
 * tsbtcd as a process, as harnesses drive bitcoind: the data directory it creates, the
 * cookie (content, mode, removal), readiness through -28 during warm-up, `stop` and
 * SIGTERM ending with code 0, init errors on stderr with exit code 1, and front-end
 * processes restarted by the coordinator.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Daemon, freePort, pidAlive, runToExit, sleep, tempDir, TSBTCD, waitFor } from './daemon-harness.js';

async function withDaemon(opts: Parameters<typeof Daemon.start>[0], body: (d: Daemon) => Promise<void>): Promise<void> {
  const d = await Daemon.start(opts);
  try {
    await body(d);
  } finally {
    await d.cleanup();
  }
}

test('a new data directory: regtest/ with wallets/, debug.log says Done loading, cookie 0600 without newline; stop exits 0 and removes it', async () => {
  await withDaemon({}, async (d) => {
    assert.ok(fs.statSync(path.join(d.netdir, 'wallets')).isDirectory());
    assert.deepEqual(fs.readdirSync(path.join(d.netdir, 'wallets')), []);
    assert.match(d.debugLog(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ init message: Done loading$/m);
    const cookie = d.cookie();
    assert.match(cookie, /^__cookie__:[0-9a-f]{64}$/);
    assert.equal(fs.statSync(d.cookiePath).mode & 0o777, 0o600);
    assert.ok(!fs.existsSync(`${d.cookiePath}.tmp`));
    const stop = await d.rpc('stop');
    assert.equal(stop.body, '{"result":"tsbtcd stopping","error":null,"id":1}\n');
    const exit = await d.exited;
    assert.equal(exit.code, 0);
    assert.ok(!fs.existsSync(d.cookiePath), 'cookie removed at clean shutdown');
    assert.match(d.debugLog(), /Shutdown: done\n$/);
    assert.equal(d.stderr, '');
  });
});

test('SIGTERM and SIGINT stop cleanly with exit code 0', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    await withDaemon({}, async (d) => {
      const exit = await d.stopWithSignal(signal);
      assert.equal(exit.code, 0, signal);
      assert.ok(!fs.existsSync(d.cookiePath));
      assert.equal(d.stderr, '');
    });
  }
});

test('an unknown option is an init error: exit 1, Core\'s one line on stderr', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, '-foo']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Error parsing command line arguments: Invalid parameter -foo\n');
    const v = await runToExit(['-regtest', `-datadir=${dir}`, '-nodatadir']);
    assert.equal(v.stderr, 'Error: Error parsing command line arguments: Negating of -datadir is meaningless and therefore forbidden\n');
    const missing = await runToExit([`-datadir=${dir}/nope`]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `Error: Specified data directory "${dir}/nope" does not exist.\n`);
    const both = await runToExit(['-regtest', '-testnet4', `-datadir=${dir}`]);
    assert.equal(both.stderr, 'Error: Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('during warm-up every call gets -28 with the current init message (500 for 1.1, 200 for 2.0)', async () => {
  await withDaemon({ args: ['-testwarmupms=2500'], waitReady: false }, async (d) => {
    await d.waitCookie();
    // The cookie appears once the port is bound; the first service's init message follows a moment later.
    const legacy = await waitFor('the warm-up service to report', async () => {
      const r = await d.post('{"method":"nosuch","id":1}');
      return r.body.includes('RPC server started') ? undefined : r;
    });
    assert.equal(legacy.status, 500);
    assert.equal(legacy.body, '{"result":null,"error":{"code":-28,"message":"Test warm-up delay…"},"id":1}\n');
    const v2 = await d.post('{"jsonrpc":"2.0","method":"uptime","id":1}');
    assert.equal(v2.status, 200);
    assert.equal(v2.body, '{"jsonrpc":"2.0","error":{"code":-28,"message":"Test warm-up delay…"},"id":1}\n');
    await d.waitReady();
    assert.equal((await d.rpc('uptime')).status, 200);
    const log = d.debugLog();
    assert.ok(log.indexOf('init message: Test warm-up delay…') < log.indexOf('init message: Done loading'));
  });
});

test('-rpccookieperms sets the cookie mode; an invalid value fails start-up as Core does', async () => {
  for (const [perms, mode] of [
    ['group', 0o640],
    ['all', 0o644],
    ['owner', 0o600],
  ] as const) {
    await withDaemon({ args: [`-rpccookieperms=${perms}`] }, async (d) => {
      assert.equal(fs.statSync(d.cookiePath).mode & 0o777, mode, perms);
    });
  }
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, `-rpcport=${await freePort()}`, '-printtoconsole=0', '-rpccookieperms=world']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Unable to start HTTP server. See debug log for details.\n');
    const log = fs.readFileSync(path.join(dir, 'regtest', 'debug.log'), 'utf8');
    assert.match(log, /\[error\] Invalid -rpccookieperms=world; must be one of 'owner', 'group', or 'all'\./);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('-rpccookiefile moves the cookie; -norpccookiefile writes none', async () => {
  await withDaemon({ args: ['-rpccookiefile=auth/my.cookie'], waitReady: false }, async (d) => {
    const p = path.join(d.netdir, 'auth', 'my.cookie');
    // The folder does not exist: start-up fails, as Core fails to write the cookie.
    const exit = await d.exited;
    assert.equal(exit.code, 1);
    assert.equal(d.stderr, 'Error: Unable to start HTTP server. See debug log for details.\n');
    assert.match(d.debugLog(), /\[error\] Unable to open cookie authentication file .*auth\/my\.cookie\.tmp for writing/);
    assert.ok(!fs.existsSync(p));
  });
  await withDaemon({ args: ['-rpccookiefile=my.cookie'], waitReady: false }, async (d) => {
    const p = path.join(d.netdir, 'my.cookie');
    await waitFor('the moved cookie', () => (fs.existsSync(p) ? true : undefined));
    assert.ok(!fs.existsSync(d.cookiePath));
    // The cookie appears once the port is bound, before loading ends (-28 → HTTP 500 until then), as in Core.
    const r = await waitFor('the end of warm-up', async () => {
      const reply = await d.post('{"method":"uptime","id":1}', { auth: fs.readFileSync(p, 'utf8') });
      return reply.status === 500 && reply.body.includes('-28') ? undefined : reply;
    });
    assert.equal(r.status, 200);
    assert.equal((await d.stopWithSignal()).code, 0);
    assert.ok(!fs.existsSync(p));
  });
  await withDaemon({ args: ['-norpccookiefile', '-rpcauth=alice:cb77f0957de88ff388cf817ddbc72737$695b11b6f3aac81cfbb226e4c57284a8916da13967e85209d53883847def7906'], waitReady: false }, async (d) => {
    await waitFor('the RPC port', async () => {
      const r = await d.post('{"method":"uptime","id":1}', { auth: 'alice:secret' }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    });
    assert.ok(!fs.existsSync(d.cookiePath));
  });
});

test('a killed front-end is restarted by the coordinator and requests succeed again', async () => {
  await withDaemon({}, async (d) => {
    const [pid] = d.frontendPids();
    assert.ok(pid !== undefined && pid > 0);
    process.kill(pid, 'SIGKILL');
    await waitFor('the restart', () => (/HTTP front-end 0 restarted \(pid \d+\)/.test(d.debugLog()) ? true : undefined));
    assert.match(d.debugLog(), new RegExp(`\\[warning\\] HTTP front-end 0 \\(pid ${pid}\\) exited \\(SIGKILL\\); restarting it`));
    const r = await d.rpc('uptime');
    assert.equal(r.status, 200);
    assert.equal(d.stderr, '');
    assert.equal((await d.stopWithSignal()).code, 0);
  });
});

test('uptime counts on the node’s clock: setmocktime moves it (Core’s rpc_uptime)', async () => {
  await withDaemon({}, async (d) => {
    const before = (await d.rpc('uptime')).json.result as number;
    assert.ok(before >= 0 && before < 60, String(before));
    await d.call('setmocktime', [Math.floor(Date.now() / 1000) + 10]);
    assert.ok(((await d.rpc('uptime')).json.result as number) >= 10);
  });
});

test('-rpcfrontends=2: two processes share the port (SO_REUSEPORT) and one keeps serving while the other restarts', async () => {
  await withDaemon({ args: ['-rpcfrontends=2'] }, async (d) => {
    const pids = d.frontendPids();
    assert.equal(pids.length, 2);
    const results = await Promise.all(Array.from({ length: 20 }, () => d.rpc('uptime')));
    assert.ok(results.every((r) => r.status === 200));
    process.kill(pids[0]!, 'SIGKILL');
    // Once the coordinator has seen it exit, its socket is closed and the kernel sends new
    // connections to the survivor. (A fixed 50 ms was not always enough for a loaded
    // machine to tear the killed process down: a connection queued on its socket is reset.)
    await waitFor('the killed front-end to exit', () => (new RegExp(`HTTP front-end 0 \\(pid ${pids[0]}\\) exited`).test(d.debugLog()) ? true : undefined));
    for (let i = 0; i < 10; i++) assert.equal((await d.rpc('uptime')).status, 200);
    await waitFor('the restart', () => (/HTTP front-end 0 restarted/.test(d.debugLog()) ? true : undefined));
    assert.equal((await d.stopWithSignal()).code, 0);
  });
});

test('a second node on a port already in use fails as bitcoind does, instead of sharing it', async () => {
  await withDaemon({}, async (d) => {
    const dir = tempDir();
    try {
      const r = await runToExit(['-regtest', `-datadir=${dir}`, `-rpcport=${d.port}`, '-printtoconsole=0']);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'Error: Unable to start HTTP server. See debug log for details.\n');
      const log = fs.readFileSync(path.join(dir, 'regtest', 'debug.log'), 'utf8');
      assert.match(log, new RegExp(`Binding RPC on address 127\\.0\\.0\\.1 port ${d.port} failed\\.`));
      assert.match(log, /\[error\] Unable to bind any endpoint for RPC server/);
      assert.ok(!fs.existsSync(path.join(dir, 'regtest', '.cookie')), 'no cookie when the port is not bound');
      assert.equal((await d.rpc('uptime')).status, 200);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('-server=0: no front-end processes (the launcher\'s spares are killed), and the node runs until it is signalled', async () => {
  const dir = tempDir();
  try {
    // In the config file, which the launcher does not read: it starts its spares anyway.
    fs.writeFileSync(path.join(dir, 'bitcoin.conf'), 'regtest=1\nserver=0\nprinttoconsole=0\n');
    const proc = spawn(TSBTCD, [`-datadir=${dir}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const log = () => {
      try {
        return fs.readFileSync(path.join(dir, 'regtest', 'debug.log'), 'utf8');
      } catch {
        return '';
      }
    };
    await waitFor('Done loading', () => (log().includes('init message: Done loading') ? true : undefined));
    await sleep(1000);
    assert.ok(pidAlive(proc.pid!), 'the node is still running a second after Done loading');
    // Its own children only: other tests' daemons run beside this one.
    const frontends = execFileSync('ps', ['-eo', 'ppid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('frontend-main.js') && Number(line.trim().split(/\s+/)[0]) === proc.pid);
    assert.deepEqual(frontends, [], 'no front-end process runs for a node without a server');
    proc.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(log(), /Shutdown: done/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
