/**
 * Access to the consensus test data carried in the project (test/vectors/data, with its
 * provenance in the README there), or to another copy named by TSBTCD_VECTORS.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { CHECKOUT_ROOT } from './checkout.js';

export const VECTORS_DIR = process.env.TSBTCD_VECTORS
  ? resolve(process.env.TSBTCD_VECTORS)
  : join(CHECKOUT_ROOT, 'test', 'vectors', 'data');

export function vectorPath(file: string): string {
  return join(VECTORS_DIR, file);
}

/** A data file name as stored: a file over 4 MiB is kept gzipped (`<name>.gz`), the rest as is. */
export const GZIP_SUFFIX = '.gz';

/** The bytes of `file` as upstream published them, read from `file` or, when only that exists, `file.gz`. */
export function readVectorBytes(file: string): Buffer {
  const path = vectorPath(file);
  if (!existsSync(path) && existsSync(path + GZIP_SUFFIX)) return gunzipSync(readFileSync(path + GZIP_SUFFIX));
  return readFileSync(path);
}

export function readVectorText(file: string): string {
  return readVectorBytes(file).toString('utf8');
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
  /** The file name in test/vectors/data, printed by `make vectors`. */
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
