/**
 * bitcoin.conf and the RPC credential options with real processes: chain selection and
 * [chain] sections, network-only options refused in the top level for regtest, command
 * line over file, -includeconf, rpcauth and rpcuser/rpcpassword logins.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Daemon, freePort, runToExit, tempDir, waitFor } from './daemon-harness.js';

const ALICE = 'rpcauth=alice:cb77f0957de88ff388cf817ddbc72737$695b11b6f3aac81cfbb226e4c57284a8916da13967e85209d53883847def7906';

test('bitcoin.conf: top-level regtest=1 selects the chain, [regtest] rpcport applies, [main] is ignored', async () => {
  const port = await freePort();
  const other = await freePort();
  const d = await Daemon.start({ bare: true, port, conf: `# comment\nregtest=1\nprinttoconsole=0\n[main]\nrpcport=${other}\n[regtest]\nrpcport=${port}  # trailing comment\n` });
  try {
    assert.equal((await d.rpc('uptime')).status, 200);
    assert.match(d.debugLog(), new RegExp(`Config file arg: \\[regtest\\] rpcport="${port}"`));
  } finally {
    await d.cleanup();
  }
});

test('a network-only option in the top level is refused for regtest, with Core\'s message', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'bitcoin.conf'), `regtest=1\nrpcport=${await freePort()}\n`);
    const r = await runToExit([`-datadir=${dir}`, '-printtoconsole=0']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Config setting for -rpcport only applied on regtest network when in [regtest] section.\n\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('config file errors are reported as Core reports them', async () => {
  const dir = tempDir();
  try {
    const conf = path.join(dir, 'bitcoin.conf');
    const expect = async (text: string, stderr: string) => {
      fs.writeFileSync(conf, text);
      const r = await runToExit([`-datadir=${dir}`, '-regtest']);
      assert.equal(r.code, 1, text);
      assert.equal(r.stderr, stderr, text);
    };
    await expect('-regtest=1\n', 'Error: Error reading configuration file: parse error on line 1: -regtest=1, options in configuration file must be specified without leading -\n');
    await expect('# x\nnolisten\n', 'Error: Error reading configuration file: parse error on line 2: nolisten, if you intended to specify a negated option, use nolisten=1 instead\n');
    await expect('rpcpassword=a#b\n', 'Error: Error reading configuration file: parse error on line 1, using # in rpcpassword can be ambiguous and should be avoided\n');
    await expect('conf=other.conf\n', 'Error: Error reading configuration file: conf cannot be set in the configuration file; use includeconf= if you want to include additional config files\n');
    await expect('includeconf=missing.conf\n', 'Error: Error reading configuration file: Failed to include configuration file missing.conf\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('-includeconf files are read, the command line beats the files, unknown keys are only logged', async () => {
  const port = await freePort();
  const d = await Daemon.start({
    bare: true,
    port,
    conf: 'regtest=1\nprinttoconsole=0\nincludeconf=extra.conf\nnosuchoption=1\n',
    files: { 'extra.conf': `[regtest]\nrpcport=${port}\n` },
  });
  try {
    assert.equal((await d.rpc('uptime')).status, 200);
    assert.match(d.debugLog(), /Included configuration file extra\.conf/);
    assert.match(d.debugLog(), /\[warning\] Ignoring unknown configuration value nosuchoption/);
    assert.equal(d.stderr, '');
  } finally {
    await d.cleanup();
  }
  // Daemon.start puts -rpcport on the command line: it wins over [regtest] rpcport.
  const e = await Daemon.start({ conf: `[regtest]\nrpcport=${await freePort()}\n` });
  try {
    assert.equal((await e.rpc('uptime')).status, 200);
  } finally {
    await e.cleanup();
  }
});

test('rpcauth logins (Core\'s worked example) and rpcuser/rpcpassword (no cookie then)', async () => {
  const d = await Daemon.start({ args: [`-${ALICE}`] });
  try {
    assert.equal((await d.post('{"method":"uptime","id":1}', { auth: 'alice:secret' })).status, 200);
    assert.equal((await d.post('{"method":"uptime","id":1}', { auth: 'alice:Secret' })).status, 401);
    assert.equal((await d.rpc('uptime')).status, 200, 'the cookie works beside rpcauth');
  } finally {
    await d.cleanup();
  }
  const port = await freePort();
  const u = await Daemon.start({ bare: true, port, waitReady: false, conf: `regtest=1\nprinttoconsole=0\n[regtest]\nrpcport=${port}\nrpcuser=bob\nrpcpassword=p:w\n` });
  try {
    await waitFor('bob to log in', async () => {
      const r = await u.post('{"method":"uptime","id":1}', { auth: 'bob:p:w' }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    });
    assert.ok(!fs.existsSync(u.cookiePath), 'no cookie with rpcpassword');
    assert.equal((await u.post('{"method":"uptime","id":1}', { auth: 'bob:p' })).status, 401);
    assert.match(u.debugLog(), /\[warning\] The use of rpcuser\/rpcpassword is less secure/);
  } finally {
    await u.cleanup();
  }
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, `-rpcport=${await freePort()}`, '-printtoconsole=0', '-rpcauth=alice']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Unable to start HTTP server. See debug log for details.\n');
    assert.match(fs.readFileSync(path.join(dir, 'regtest', 'debug.log'), 'utf8'), /\[error\] Invalid -rpcauth argument\./);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('-rpcwhitelist: listed methods only; a user without a list gets 403 once any list exists', async () => {
  const d = await Daemon.start({ args: [`-${ALICE}`, '-rpcwhitelist=alice:uptime,help'] }); // ready: the cookie user gets 403
  try {
    // The cookie user's 403 says nothing about warm-up: wait until alice's call is past it (-28 → HTTP 500).
    const up = await waitFor('the end of warm-up', async () => {
      const r = await d.post('{"method":"uptime","id":1}', { auth: 'alice:secret' });
      return r.status === 500 && r.body.includes('-28') ? undefined : r;
    });
    assert.equal(up.status, 200);
    const denied = await d.post('{"method":"getrpcinfo","id":1}', { auth: 'alice:secret' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body, '');
    assert.equal((await d.post('[{"method":"uptime","id":1},{"method":"echo","id":2}]', { auth: 'alice:secret' })).status, 403);
    const notObject = await d.post('[5]', { auth: 'alice:secret' });
    assert.equal(notObject.status, 400);
    assert.equal(notObject.body, '{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null}\n');
    const noMethod = await d.post('[{"id":1}]', { auth: 'alice:secret' });
    assert.equal(noMethod.status, 500);
    assert.equal(noMethod.body, '{"result":null,"error":{"code":-32700,"message":"JSON value of type null is not of expected type string"},"id":null}\n');
    assert.equal((await d.rpc('uptime')).status, 403, 'the cookie user has no list');
  } finally {
    await d.cleanup();
  }
});

test('an invalid -rpcallowip and an invalid -rpcport fail start-up with Core\'s messages', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-rpcallowip=not-an-ip', `-rpcport=${await freePort()}`]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Error: Invalid -rpcallowip subnet specification: not-an-ip. Valid values are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0), a network/CIDR (e.g. 1.2.3.4/24), all ipv4 (0.0.0.0/0), or all ipv6 (::/0). RFC4193 is allowed only if -cjdnsreachable=0.\n' +
        'Error: Unable to start HTTP server. See debug log for details.\n',
    );
    const p = await runToExit(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-rpcport=70000']);
    assert.equal(p.stderr, "Error: Invalid port specified in -rpcport: '70000'\n");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
