/**
 * Closing the script-check pool right after creating it, while its threads still load
 * their module, must not abort the process: Node >= 20.19 loads Piscina's worker module
 * through a synchronous require of an ES module, and a thread terminated in the middle
 * of that takes the whole process down with a V8 fatal error (a daemon stopped right
 * after start-up died with SIGABRT). The race is narrow, so many short-lived processes
 * close their pools at spread-out moments; each must exit with code 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const POOL_MODULE = fileURLToPath(new URL('../../workers/index.js', import.meta.url));
const RUNS = 24;

function closeAfter(delayMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const script = `import { ScriptCheckPool } from ${JSON.stringify(POOL_MODULE)};
const pool = new ScriptCheckPool({ threads: 2 });
await new Promise((r) => setTimeout(r, ${delayMs}));
await pool.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

test('a pool closed while its threads are still loading exits cleanly', { timeout: 120_000 }, async () => {
  // Two at a time (two cores); the delays sweep the window in which the threads load.
  for (let i = 0; i < RUNS; i += 2) {
    const results = await Promise.all([closeAfter(i * 8), closeAfter(i * 8 + 4)]);
    for (const [j, r] of results.entries()) {
      assert.deepEqual({ code: r.code, signal: r.signal }, { code: 0, signal: null }, `close after ${i * 8 + j * 4} ms: ${r.stderr}`);
    }
  }
});
