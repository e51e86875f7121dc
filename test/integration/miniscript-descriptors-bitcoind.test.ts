/**
 * Miniscript in descriptors, answered byte for byte as bitcoind v31.0 answers: a table of
 * descriptors (every fragment and wrapper in wsh() and tr() leaves, hex and x-only keys,
 * WIF, xpubs and xprvs with origins, ranges and multipath, and invalid ones of each error
 * class) through getdescriptorinfo; the ones bitcoind accepts through deriveaddresses
 * (three positions when ranged); and their witness and leaf scripts, near misses of them
 * and seeded assemblies of miniscript pieces through decodescript, whose P2WSH form is
 * where Core infers miniscript.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { toHex } from '../../src/primitives/index.js';
import { parseDescriptor, type Descriptor, type KeyStore } from '../../src/script/index.js';
import { rpcCall as call, withBareNodes, type Answer } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { decodescriptScripts, miniscriptDescriptors } from '../support/miniscript-table.js';

const reference = referenceBitcoind();


/** The witness scripts and tapscript leaves below a descriptor, at position 0. */
function innerScripts(d: Descriptor, keys: KeyStore): string[] {
  return d.subArgs.flatMap((sub) => {
    const own = sub.expand(0, keys);
    return [...(own ? [toHex(own[0]!)] : []), ...innerScripts(sub, keys)];
  });
}

test('miniscript descriptors: getdescriptorinfo, deriveaddresses and decodescript as bitcoind v31 answers them', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  const different: string[] = [];
  const counts: Record<string, { sent: number; identical: number }> = {};
  await withBareNodes((reference as { path: string }).path, async (send) => {
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

    const scripts = new Set<string>();
    let accepted = 0;
    for (const descriptor of miniscriptDescriptors()) {
      const answer = await compare(call('getdescriptorinfo', [descriptor]));
      const info = JSON.parse(answer.body.toString()).result as { checksum: string; isrange: boolean } | null;
      if (!info) continue;
      accepted++;
      const text = `${descriptor.split('#')[0]}#${info.checksum}`;
      await compare(call('deriveaddresses', info.isrange ? [text, [0, 2]] : [text]));
      const parsed = parseDescriptor(descriptor, 'regtest');
      for (const script of innerScripts(parsed.descriptors[0]!, parsed.keys)) scripts.add(script);
    }
    for (const script of decodescriptScripts([...scripts])) await compare(call('decodescript', [script]));

    const summary = Object.entries(counts).map(([method, c]) => `${method}: ${c.identical} of ${c.sent} identical`);
    console.log(`bitcoind accepted ${accepted} descriptors; ${summary.join('; ')}`);
    assert.ok(accepted > 300, `bitcoind accepted only ${accepted} descriptors of the table`);
  });
  assert.deepEqual(different, [], different.slice(0, 20).join('\n'));
});
