/**
 * `make differential`: the whole catalogue against the reference bitcoind (BITCOIND, default
 * ../shared/bin/bitcoind), printing "N identical, M different" with every difference.
 * Exits 1 when anything differs.
 */
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { reportLines, runDifferential } from './compare-nodes.js';

const reference = referenceBitcoind();
if (!('path' in reference)) {
  console.log(`differential: skipped, ${reference.missing}`);
  process.exit(0);
}
const detail = Number(process.env.DETAIL ?? 1000);
const report = await runDifferential(reference.path, 1, (line) => console.log(line));
for (const line of reportLines(report, detail)) console.log(line);
process.exit(report.differences.length === 0 ? 0 : 1);
