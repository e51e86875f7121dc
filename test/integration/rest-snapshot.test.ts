/**
 * Snapshot consistency under reorganisations: while a loop applies reorgs of depth 5
 * (invalidateblock of the 5th block from the tip, then 6 new blocks on the fork point),
 * 10,000 concurrent REST requests for headers, blockhashbyheight and block/notxdetails
 * must each describe one committed state: header chains whose prev-hash links hold and
 * whose heights, confirmations and nextblockhash agree within the response, block
 * objects whose nextblockhash is a child of theirs, and hashes that exist at the height
 * asked for.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { test } from 'node:test';
import { hashToHex, parseHeader } from '../../src/primitives/index.js';
import { Daemon } from './daemon-harness.js';
import { restRequest } from '../support/rest-client.js';
import { TestWallet } from '../support/wallet.js';

const REQUESTS = 10_000;
const CONCURRENCY = 64;
const DEPTH = 5;

interface Known {
  readonly height: number;
  readonly prev: string;
}

test(`${REQUESTS} concurrent REST requests during depth-${DEPTH} reorgs never mix two branches`, { timeout: 240_000 }, async (t) => {
  const d = await Daemon.start({ args: ['-rest', '-rpcfrontends=2'] });
  try {
    const wallet = new TestWallet(41);
    const addresses = [wallet.address('p2wpkh'), wallet.address('p2tr-key'), wallet.address('p2tr-leaf'), wallet.address('p2tr-tree')];
    const known = new Map<string, Known>();
    const genesis = await d.call<string>('getblockhash', [0]);
    known.set(genesis, { height: 0, prev: '00'.repeat(32) });
    /** Mines `n` blocks on the current tip and records them. */
    const mine = async (n: number, address: string) => {
      let prev = await d.call<string>('getbestblockhash');
      let height = known.get(prev)!.height;
      for (const hash of await d.call<string[]>('generatetoaddress', [n, address])) {
        known.set(hash, { height: ++height, prev });
        prev = hash;
      }
    };
    await mine(30, addresses[0]!);

    // The reorg loop: depth-5 reorgs until the requests are done.
    let running = true;
    let reorgs = 0;
    const loop = (async () => {
      while (running) {
        const height = await d.call<number>('getblockcount');
        const fifth = await d.call<string>('getblockhash', [height - (DEPTH - 1)]);
        await d.call('invalidateblock', [fifth]);
        await mine(DEPTH + 1, addresses[++reorgs % addresses.length]!);
      }
    })();

    interface Sample {
      kind: 'headers-bin' | 'headers-json' | 'height' | 'block';
      target: string;
      status: number;
      body: Buffer;
      height?: number;
    }
    const samples: Sample[] = [];
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const recent = () => {
      // Blocks near the tips of the branches the loop makes: the ones a reorg moves.
      const all = [...known.keys()];
      return all[Math.max(0, all.length - 1 - Math.floor(Math.random() * 40))]!;
    };
    let issued = 0;
    const started = Date.now();
    const worker = async () => {
      while (issued < REQUESTS) {
        const i = issued++;
        let sample: Omit<Sample, 'status' | 'body'>;
        switch (i % 4) {
          case 0:
            sample = { kind: 'headers-bin', target: `/rest/headers/${recent()}.bin?count=${10 + (i % 20)}` };
            break;
          case 1:
            sample = { kind: 'headers-json', target: `/rest/headers/${recent()}.json?count=12` };
            break;
          case 2: {
            const height = Math.max(1, known.get(recent())!.height - (i % 8));
            sample = { kind: 'height', target: `/rest/blockhashbyheight/${height}.hex`, height };
            break;
          }
          default:
            sample = { kind: 'block', target: `/rest/block/notxdetails/${recent()}.json` };
        }
        const r = await restRequest(d.port, sample.target, { agent });
        samples.push({ ...sample, status: r.status, body: r.body });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const elapsed = Date.now() - started;
    running = false;
    await loop;
    agent.destroy();
    t.diagnostic(`${samples.length} requests in ${elapsed} ms during ${reorgs} reorgs of depth ${DEPTH}; ${known.size} blocks known`);
    assert.equal(samples.length, REQUESTS);
    assert.ok(reorgs >= 5, `only ${reorgs} reorgs happened while the requests ran`);

    let nonEmptyHeaders = 0;
    for (const s of samples) {
      const what = `${s.target} → ${s.status} ${s.body.toString('latin1').slice(0, 200)}`;
      switch (s.kind) {
        case 'headers-bin': {
          assert.equal(s.status, 200, what);
          assert.equal(s.body.length % 80, 0, what);
          let prev: string | undefined;
          for (let o = 0; o < s.body.length; o += 80) {
            const header = parseHeader(s.body.subarray(o, o + 80));
            const k = known.get(header.hashHex);
            assert.ok(k, `unknown header in ${what}`);
            if (prev !== undefined) assert.equal(hashToHex(header.prevHash), prev, `broken link in ${what}`);
            prev = header.hashHex;
          }
          if (s.body.length > 0) nonEmptyHeaders++;
          break;
        }
        case 'headers-json': {
          assert.equal(s.status, 200, what);
          const headers = JSON.parse(s.body.toString()) as { hash: string; height: number; confirmations: number; previousblockhash: string; nextblockhash?: string }[];
          // One snapshot: one tip height for every element; each nextblockhash is the following element.
          const tips = new Set(headers.map((h) => h.height + h.confirmations - 1));
          assert.ok(tips.size <= 1, `two tips in ${what}`);
          headers.forEach((h, i) => {
            assert.equal(known.get(h.hash)?.height, h.height, what);
            if (h.height > 0) assert.equal(h.previousblockhash, known.get(h.hash)!.prev, what);
            if (i > 0) assert.equal(h.previousblockhash, headers[i - 1]!.hash, `broken link in ${what}`);
            if (i + 1 < headers.length) assert.equal(h.nextblockhash, headers[i + 1]!.hash, `nextblockhash from another branch in ${what}`);
            assert.ok(h.confirmations >= 1, what);
          });
          if (headers.length > 0) nonEmptyHeaders++;
          break;
        }
        case 'height': {
          if (s.status === 404) {
            // The tip goes down by five between the disconnects and the new blocks.
            assert.equal(s.body.toString(), 'Block height out of range\r\n', what);
            break;
          }
          assert.equal(s.status, 200, what);
          const hash = s.body.toString().trimEnd();
          assert.equal(known.get(hash)?.height, s.height, `a hash of another height in ${what}`);
          break;
        }
        case 'block': {
          assert.equal(s.status, 200, what);
          const block = JSON.parse(s.body.toString()) as { hash: string; height: number; confirmations: number; previousblockhash: string; nextblockhash?: string };
          assert.equal(known.get(block.hash)?.height, block.height, what);
          if (block.height > 0) assert.equal(block.previousblockhash, known.get(block.hash)!.prev, what);
          if (block.confirmations === -1) {
            assert.equal(block.nextblockhash, undefined, `a stale block with a next block in ${what}`);
          } else if (block.nextblockhash !== undefined) {
            assert.equal(known.get(block.nextblockhash)?.prev, block.hash, `nextblockhash from another branch in ${what}`);
            assert.ok(block.confirmations >= 2, what);
          } else {
            assert.equal(block.confirmations, 1, `an active block with no next block must be the tip: ${what}`);
          }
          break;
        }
      }
    }
    assert.ok(nonEmptyHeaders > REQUESTS / 8, `${nonEmptyHeaders} non-empty header responses`);
  } finally {
    await d.cleanup();
  }
});
