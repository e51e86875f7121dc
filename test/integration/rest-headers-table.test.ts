/**
 * The headers table behind REST headers on a real node: a data directory whose table is
 * missing (as an older build left it) is rebuilt at start-up, and the table follows
 * invalidateblock, new blocks and reconsiderblock; every answer equals the headers
 * getblockheader gives for the active chain.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { open } from 'lmdb';
import { Daemon } from './daemon-harness.js';
import { restRequest } from '../support/rest-client.js';

const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

/** The active chain's headers from `from`, at most `count`, as getblockheader gives them. */
async function expectedHeaders(d: Daemon, from: number, count: number): Promise<Buffer> {
  const tip = await d.call<number>('getblockcount');
  const parts: Buffer[] = [];
  for (let h = from; h <= Math.min(tip, from + count - 1); h++) {
    parts.push(Buffer.from(await d.call<string>('getblockheader', [await d.call<string>('getblockhash', [h]), false]), 'hex'));
  }
  return Buffer.concat(parts);
}

async function assertHeaders(d: Daemon, from: number, count: number): Promise<void> {
  const hash = await d.call<string>('getblockhash', [from]);
  const reply = await restRequest(d.port, `/rest/headers/${hash}.bin?count=${count}`);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.body, await expectedHeaders(d, from, count), `${count} headers from ${from}`);
}

test('REST headers: a directory without the headers table is rebuilt at start-up; the table follows reorgs', { timeout: 120_000 }, async () => {
  let d = await Daemon.start({ args: ['-rest'] });
  try {
    await d.call('generatetoaddress', [300, ADDRESS]);
    await d.stop();
    // What a build before the table left: the table absent.
    const env = open({ path: join(d.netdir, 'chainstate'), maxDbs: 16 });
    await env.openDB({ name: 'headers', keyEncoding: 'binary', encoding: 'binary' }).drop();
    await env.close();

    d = await d.restart({ args: ['-rest'] });
    await assertHeaders(d, 0, 2000);
    await assertHeaders(d, 250, 10);

    // A reorg across a chunk boundary (heights 256 and up are a chunk of their own).
    const fork = await d.call<string>('getblockhash', [250]);
    await d.call('invalidateblock', [fork]);
    await d.call('generatetoaddress', [20, 'bcrt1q6rhpng9evdsfnn833a4f4vej0asu6dk5srld6x']);
    await assertHeaders(d, 240, 100);
    await d.call('reconsiderblock', [fork]);
    assert.equal(await d.call<number>('getblockcount'), 300);
    await assertHeaders(d, 200, 2000);
  } finally {
    await d.cleanup();
  }
});
