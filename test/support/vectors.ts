/**
 * Access to ../shared/vectors (the consensus test data), found relative to the checkout so
 * that CI's clean clone with ../shared beside it works, or through TSBTCD_VECTORS.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findVectorsDir(): string {
  if (process.env.TSBTCD_VECTORS) return resolve(process.env.TSBTCD_VECTORS);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, '..', 'shared', 'vectors');
    if (existsSync(join(candidate, 'README.md'))) return resolve(candidate);
    dir = dirname(dir);
  }
  throw new Error('cannot find ../shared/vectors beside the checkout (set TSBTCD_VECTORS)');
}

export const VECTORS_DIR = findVectorsDir();

export function vectorPath(file: string): string {
  return join(VECTORS_DIR, file);
}

export function readVectorText(file: string): string {
  return readFileSync(vectorPath(file), 'utf8');
}

export function readVectorJson<T = unknown>(file: string): T {
  return JSON.parse(readVectorText(file)) as T;
}

/** The outcome of running one vector file: counts plus a description of each failure. */
export interface SuiteResult {
  passed: number;
  failed: number;
  failures: string[];
}

/** One vector file's suite. `make vectors` loads every module in test/vectors/suites/ that exports `suite`. */
export interface VectorSuite {
  /** The file name in ../shared/vectors, printed by `make vectors`. */
  file: string;
  run(): SuiteResult;
}

/** Collects pass/fail counts for a suite; keeps the first failures' descriptions. */
export class Tally implements SuiteResult {
  passed = 0;
  failed = 0;
  failures: string[] = [];

  check(ok: boolean, describe: () => string): void {
    if (ok) {
      this.passed++;
    } else {
      this.failed++;
      if (this.failures.length < 50) this.failures.push(describe());
    }
  }

  /** Runs `fn`; an exception counts as a failure with its message. */
  run(describe: () => string, fn: () => boolean): void {
    let ok = false;
    let message = '';
    try {
      ok = fn();
    } catch (err) {
      message = ` (threw ${(err as Error).message})`;
    }
    this.check(ok, () => describe() + message);
  }
}
