/**
 * The reference Bitcoin Core v31.0 for tests that compare tsbtcd with it: BITCOIND when set
 * (`make test` sets it from ../shared/bin/ensure-deps when that is beside the checkout, as
 * in CI), else ../shared/bin/bitcoind when it is there and runs. A clone with nothing
 * beside it has none: those tests skip with one line saying why instead of failing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { CHECKOUT_ROOT } from './checkout.js';

const BESIDE_CHECKOUT = join(CHECKOUT_ROOT, '..', 'shared', 'bin', 'bitcoind');

type Lookup = { readonly path: string } | { readonly missing: string };
let lookup: Lookup | undefined;

function lookUp(): Lookup {
  // A path named on purpose is used as it is: if it does not run, the test fails loudly.
  if (process.env.BITCOIND) return { path: process.env.BITCOIND };
  if (!existsSync(BESIDE_CHECKOUT)) {
    return { missing: 'no reference bitcoind: set BITCOIND or put ../shared/bin/bitcoind beside the checkout' };
  }
  try {
    execFileSync(BESIDE_CHECKOUT, ['-version'], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    return { missing: `${BESIDE_CHECKOUT} does not run: ../shared/bin/ensure-deps installs its libraries (make test runs it)` };
  }
  return { path: BESIDE_CHECKOUT };
}

/** Why there is no reference bitcoind, for node:test's `skip` option; false when there is one. */
export function bitcoindMissing(): string | false {
  lookup ??= lookUp();
  return 'missing' in lookup ? lookup.missing : false;
}

/**
 * The reference bitcoind's path; or null after marking the test skipped with the reason
 * (one `# SKIP` line in the output): `const bitcoind = referenceBitcoind(t); if (!bitcoind) return;`
 */
export function referenceBitcoind(t: TestContext): string | null {
  lookup ??= lookUp();
  if ('path' in lookup) return lookup.path;
  t.skip(lookup.missing);
  return null;
}
