/**
 * getblockchaininfo and /rest/chaininfo.json are answered from the last answer while the
 * state it describes stands (src/rpc/blockchain-info-memo.ts): both must follow every
 * change of that state (new blocks, a tip moved back by invalidateblock, the node's clock
 * through setmocktime, and back again), byte for byte the same, and agree with what
 * getblockcount and getbestblockhash say each time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Daemon } from './daemon-harness.js';
import { rawResult, restRequest } from '../support/rest-client.js';

const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

test('chaininfo.json follows the tip, the best header and the clock, equal to getblockchaininfo each time', { timeout: 60_000 }, async () => {
  const d = await Daemon.start({ args: ['-rest', '-rpcfrontends=1'] });
  try {
    const check = async (what: string): Promise<{ verificationprogress: number }> => {
      // verificationprogress follows the clock's second, so three answers asked across a
      // second's boundary may differ there: such a triple is asked again (once is enough,
      // as the three take milliseconds).
      let rest = { text: '' };
      let again = { text: '' };
      let rpc = '';
      for (let attempt = 0; attempt < 3; attempt++) {
        const second = Math.floor(Date.now() / 1000);
        rest = await restRequest(d.port, '/rest/chaininfo.json');
        // Asked twice: the second answer comes from the kept one.
        again = await restRequest(d.port, '/rest/chaininfo.json');
        rpc = rawResult((await d.post(JSON.stringify({ method: 'getblockchaininfo', params: [], id: 1 }))).body);
        if (Math.floor(Date.now() / 1000) === second) break;
      }
      assert.equal(rest.text, `${rpc}\n`, what);
      assert.equal(again.text, rest.text, what);
      const info = JSON.parse(rpc) as { blocks: number; headers: number; bestblockhash: string; verificationprogress: number };
      assert.equal(info.blocks, await d.call<number>('getblockcount'), what);
      assert.equal(info.bestblockhash, await d.call<string>('getbestblockhash'), what);
      return info;
    };
    await check('genesis');
    const [first] = await d.call<string[]>('generatetoaddress', [3, ADDRESS]);
    await check('three blocks');
    await d.call('invalidateblock', [first]);
    await check('tip back at genesis');
    await d.call('reconsiderblock', [first]);
    const now = await check('reconsidered');
    // Far ahead: the tip's age changes initialblockdownload's inputs and the progress estimate.
    await d.call('setmocktime', [2_000_000_000]);
    const later = await check('mock time');
    assert.ok(later.verificationprogress < now.verificationprogress, `progress ${later.verificationprogress} at the mock time, ${now.verificationprogress} now`);
    await d.call('setmocktime', [0]);
    assert.ok((await check('clock back')).verificationprogress > later.verificationprogress);
  } finally {
    await d.cleanup();
  }
});
