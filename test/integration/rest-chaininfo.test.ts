/**
 * /rest/chaininfo.json is answered from the last answer while the state it describes
 * stands (src/rest/chaininfo-memo.ts): it must follow every change of that state, each
 * time byte for byte what getblockchaininfo says: new blocks, a tip moved back by
 * invalidateblock, the node's clock (setmocktime), and back again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Daemon } from './daemon-harness.js';
import { rawResult, restRequest } from '../support/rest-client.js';

const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

test('chaininfo.json follows the tip, the best header and the clock, equal to getblockchaininfo each time', { timeout: 60_000 }, async () => {
  const d = await Daemon.start({ args: ['-rest', '-rpcfrontends=1'] });
  try {
    const check = async (what: string) => {
      const rest = await restRequest(d.port, '/rest/chaininfo.json');
      // Asked twice: the second answer comes from the kept one.
      const again = await restRequest(d.port, '/rest/chaininfo.json');
      const rpc = rawResult((await d.post(JSON.stringify({ method: 'getblockchaininfo', params: [], id: 1 }))).body);
      assert.equal(rest.text, `${rpc}\n`, what);
      assert.equal(again.text, rest.text, what);
    };
    await check('genesis');
    const [first] = await d.call<string[]>('generatetoaddress', [3, ADDRESS]);
    await check('three blocks');
    await d.call('invalidateblock', [first]);
    await check('tip back at genesis');
    await d.call('reconsiderblock', [first]);
    await check('reconsidered');
    // Far ahead: the tip's age changes initialblockdownload's inputs and the progress estimate.
    await d.call('setmocktime', [2_000_000_000]);
    await check('mock time');
    await d.call('setmocktime', [0]);
    await check('clock back');
  } finally {
    await d.cleanup();
  }
});
