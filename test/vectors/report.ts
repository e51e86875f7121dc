/**
 * `make vectors`: runs every suite in test/vectors/suites/ under each signature backend and
 * prints one line per vector file and backend, `<file> (<backend>): <N> passed, <M> failed`,
 * then the first failures of any failing suite, and the totals per backend. Exits non-zero
 * when anything failed.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SIGNATURE_BACKEND_CHOICES } from '../../src/script/index.js';
import { runUnderBackend } from '../support/backend-runs.js';
import type { VectorSuite } from '../support/vectors.js';

const suitesDir = join(dirname(fileURLToPath(import.meta.url)), 'suites');
const files = readdirSync(suitesDir).filter((f) => f.endsWith('.js')).sort();
const totals = new Map(SIGNATURE_BACKEND_CHOICES.map((b) => [b, { passed: 0, failed: 0 }]));
for (const file of files) {
  const mod = (await import(pathToFileURL(join(suitesDir, file)).href)) as { suite?: VectorSuite; suites?: VectorSuite[] };
  const suites = mod.suites ?? (mod.suite ? [mod.suite] : []);
  for (const suite of suites) {
    for (const backend of SIGNATURE_BACKEND_CHOICES) {
      const started = performance.now();
      const result = runUnderBackend(backend, () => suite.run());
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`${suite.file} (${backend}): ${result.passed} passed, ${result.failed} failed (${seconds}s)`);
      for (const failure of result.failures.slice(0, 10)) console.log(`    ${failure}`);
      const total = totals.get(backend)!;
      total.passed += result.passed;
      total.failed += result.failed;
    }
  }
}
for (const [backend, total] of totals) console.log(`total (${backend}): ${total.passed} passed, ${total.failed} failed`);
process.exitCode = [...totals.values()].every((t) => t.failed === 0) ? 0 : 1;
