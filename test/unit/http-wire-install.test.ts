/**
 * The HTTP wire layer fails loudly: installing it when the uWS binary it must sit under is
 * not loaded throws (a front-end then refuses to start), and so does a second install.
 * Each check runs in a child process, as the layer hooks a process once.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { WIRE_ADDON_FILE } from '../../src/http/wire.js';
import { uwsBinaryPath } from '../../src/http/uws.js';

const run = promisify(execFile);

async function outcome(script: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['-e', script]);
  return stdout.trim();
}

const tryInstall = (name: string) => `try { wire.install(${JSON.stringify(name)}, 30); console.log('installed'); } catch (e) { console.log('threw: ' + e.message); }`;

test('without the uWS binary loaded, install throws', async () => {
  const out = await outcome(`const wire = require(${JSON.stringify(WIRE_ADDON_FILE)}); ${tryInstall('uws_linux_x64_115.node')}`);
  assert.match(out, /^threw: cannot rewrite the imports of the uWebSockets.js binary/);
});

test('with it loaded, install hooks it and stops uSockets’ sweep once; a second install throws', async () => {
  const out = await outcome(
    `require(${JSON.stringify(uwsBinaryPath())}); const wire = require(${JSON.stringify(WIRE_ADDON_FILE)}); ` +
      `${tryInstall(uwsBinaryPath().split('/').pop()!)} console.log('sweeps ' + wire.sweepTimersRefused()); ${tryInstall(uwsBinaryPath().split('/').pop()!)} process.exit(0);`,
  );
  assert.deepEqual(out.split('\n'), ['installed', 'sweeps 1', 'threw: the HTTP wire layer is already installed']);
});
