/**
 * `make vectors`: runs every suite in test/vectors/suites/ and prints one line per vector
 * file, `<file>: <N> passed, <M> failed`, then the first failures of any failing suite.
 * Exits non-zero when anything failed.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { VectorSuite } from '../support/vectors.js';

const suitesDir = join(dirname(fileURLToPath(import.meta.url)), 'suites');
const files = readdirSync(suitesDir).filter((f) => f.endsWith('.js')).sort();
let totalFailed = 0;
let totalPassed = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(join(suitesDir, file)).href)) as { suite?: VectorSuite; suites?: VectorSuite[] };
  const suites = mod.suites ?? (mod.suite ? [mod.suite] : []);
  for (const suite of suites) {
    const started = performance.now();
    const result = suite.run();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${suite.file}: ${result.passed} passed, ${result.failed} failed (${seconds}s)`);
    for (const failure of result.failures.slice(0, 10)) console.log(`    ${failure}`);
    totalFailed += result.failed;
    totalPassed += result.passed;
  }
}
console.log(`total: ${totalPassed} passed, ${totalFailed} failed`);
process.exitCode = totalFailed === 0 ? 0 : 1;
