/**
 * Miniscript in descriptors, answered byte for byte as bitcoind v31.0 answers: a table of
 * descriptors (every fragment and wrapper in wsh() and tr() leaves, hex and x-only keys,
 * WIF, xpubs and xprvs with origins, ranges and multipath, and invalid ones of each error
 * class) through getdescriptorinfo; the ones bitcoind accepts through deriveaddresses
 * (three positions when ranged); and their witness and leaf scripts, near misses of them
 * and seeded assemblies of miniscript pieces through decodescript, whose P2WSH form is
 * where Core infers miniscript. Then the same chain on both, with an output paying to each
 * descriptor bitcoind accepts, through scantxoutset, whose descriptors Core infers back
 * from the scripts (miniscript with key origins, taproot trees rebuilt from spend data).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { toHex } from '../../src/primitives/index.js';
import { parseDescriptor, type Descriptor, type KeyStore } from '../../src/script/index.js';
import { rpcCall as call, withBareNodes, type Answer, type SendToBoth } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { mapInOrder } from '../support/in-order.js';
import { decodescriptScripts, miniscriptDescriptors } from '../support/miniscript-table.js';

const reference = referenceBitcoind();
/** Requests in flight at once: the descriptors are independent, and both nodes answer on several threads. */
const IN_FLIGHT = 8;

/** The witness scripts and tapscript leaves below a descriptor, at position 0. */
function innerScripts(d: Descriptor, keys: KeyStore): string[] {
  return d.subArgs.flatMap((sub) => {
    const own = sub.expand(0, keys);
    return [...(own ? [toHex(own[0]!)] : []), ...innerScripts(sub, keys)];
  });
}

/** Sends requests to both nodes and keeps count of identical answers per method, and the differences. */
function comparer(send: SendToBoth) {
  const different: string[] = [];
  const counts: Record<string, { sent: number; identical: number }> = {};
  const compare = async (request: DiffRequest): Promise<Answer> => {
    const [a, b] = await send(request);
    const tally = (counts[request.group] ??= { sent: 0, identical: 0 });
    tally.sent++;
    if (a.status === b.status && a.contentType === b.contentType && a.body.equals(b.body)) {
      tally.identical++;
    } else {
      different.push(`${request.label.slice(0, 400)}\n  tsbtcd:   ${a.status} ${a.body.toString().slice(0, 600)}\n  bitcoind: ${b.status} ${b.body.toString().slice(0, 600)}`);
    }
    return b;
  };
  const summary = () => Object.entries(counts).map(([method, c]) => `${method}: ${c.identical} of ${c.sent} identical`).join('; ');
  return { compare, different, summary };
}

const result = <T>(answer: Answer): T => JSON.parse(answer.body.toString()).result as T;

test('miniscript descriptors: getdescriptorinfo, deriveaddresses and decodescript as bitcoind v31 answers them', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send) => {
    const { compare, different, summary } = comparer(send);
    const perDescriptor = await mapInOrder(miniscriptDescriptors(), IN_FLIGHT, async (descriptor) => {
      const info = result<{ checksum: string; isrange: boolean } | null>(await compare(call('getdescriptorinfo', [descriptor])));
      if (!info) return undefined;
      const text = `${descriptor.split('#')[0]}#${info.checksum}`;
      await compare(call('deriveaddresses', info.isrange ? [text, [0, 2]] : [text]));
      const parsed = parseDescriptor(descriptor, 'regtest');
      // The longest scripts (near the Tapscript limit) are not decoded: megabytes of asm each.
      return innerScripts(parsed.descriptors[0]!, parsed.keys).filter((script) => script.length <= 20_000);
    });
    const accepted = perDescriptor.filter((scripts) => scripts !== undefined).length;
    const scripts = new Set(perDescriptor.flatMap((s) => s ?? []));
    await mapInOrder(decodescriptScripts([...scripts]), IN_FLIGHT, (script) => compare(call('decodescript', [script])));
    console.log(`bitcoind accepted ${accepted} descriptors; ${summary()}`);
    assert.ok(accepted > 300, `bitcoind accepted only ${accepted} descriptors of the table`);
    assert.deepEqual(different, [], different.slice(0, 20).join('\n'));
  });
});

test('scantxoutset finds outputs paying to miniscript descriptors and describes them as bitcoind v31 does', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send, each) => {
    const { compare, different, summary } = comparer(send);
    // An output for each accepted descriptor (position 1 of ranged ones), mined by bitcoind and replayed into tsbtcd.
    const payments = await mapInOrder(miniscriptDescriptors(), IN_FLIGHT, async (descriptor) => {
      if (descriptor.includes('<') || descriptor.includes('#')) return undefined;
      const info = result<{ checksum: string; isrange: boolean } | null>(await each.bitcoind(call('getdescriptorinfo', [descriptor])));
      if (!info) return undefined;
      const text = `${descriptor}#${info.checksum}`;
      // Descriptors whose keys cannot be derived (hardened steps without the private key) pay nowhere.
      if (!info.isrange) return { scanObject: text as unknown, generate: call('generatetodescriptor', [1, text]) };
      const addresses = result<string[] | null>(await each.bitcoind(call('deriveaddresses', [text, [1, 1]])));
      return addresses ? { scanObject: { desc: text, range: [0, 2] } as unknown, generate: call('generatetoaddress', [1, addresses[0]]) } : undefined;
    });
    // The blocks one after another: each pays the next descriptor.
    const scanObjects: unknown[] = [];
    for (const payment of payments) {
      if (payment && result<string[] | null>(await each.bitcoind(payment.generate))) scanObjects.push(payment.scanObject);
    }
    const height = result<number>(await each.bitcoind(call('getblockcount', [])));
    const heights = Array.from({ length: height }, (_, i) => i + 1);
    const blocks = await mapInOrder(heights, IN_FLIGHT, async (h) => result<string>(await each.bitcoind(call('getblock', [result<string>(await each.bitcoind(call('getblockhash', [h]))), 0]))));
    for (const [i, block] of blocks.entries()) {
      const h = i + 1;
      assert.equal(result<null>(await each.tsbtcd(call('submitblock', [block]))), null, `tsbtcd refused block ${h}`);
    }
    for (const scanObject of scanObjects) await compare(call('scantxoutset', ['start', [scanObject]]));
    console.log(`${scanObjects.length} descriptors paid to; ${summary()}`);
    assert.ok(scanObjects.length > 300);
    assert.deepEqual(different, [], different.slice(0, 20).join('\n'));
  });
});
