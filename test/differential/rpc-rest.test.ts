/**
 * `make differential` inside `make test` (it takes seconds): the same rich chain and the
 * whole catalogue against the reference bitcoind; any difference not listed in
 * known-differences.ts fails it. Skipped with one line without a reference bitcoind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { reportLines, runDifferential } from './compare-nodes.js';
import { knownDifference } from './known-differences.js';

const reference = referenceBitcoind();

test('every request of the differential catalogue gets bitcoind v31’s answer (known differences aside)', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  const report = await runDifferential((reference as { path: string }).path);
  const unknown = report.differences.filter((d) => !knownDifference(d.request.label));
  console.log(`${report.requests} requests: ${report.identical} identical, ${report.differences.length} different (${report.differences.length - unknown.length} known)`);
  assert.ok(report.requests > 3000, `${report.requests} requests`);
  assert.equal(unknown.length, 0, reportLines({ ...report, differences: unknown }, 20).join('\n'));
});
