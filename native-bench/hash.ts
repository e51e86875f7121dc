/**
 * `make bench-hash`: SHA-256 throughput of node's one-shot crypto.hash (OpenSSL), node's
 * createHash, and @noble/hashes (pure JS), on the input sizes validation hashes most:
 * 64 B (merkle nodes, tagged-hash blocks), 250 B (a typical transaction or sighash
 * preimage) and 1 MB (a block). The ratios justify src/primitives/hashes.ts using
 * crypto.hash on the hot paths.
 */
import { createHash, hash as nodeHash } from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { bestOf, fmt, opsPerSecond, pad, warmUp } from './measure.js';

const SIZES: readonly [string, number][] = [
  ['64 B', 64],
  ['250 B', 250],
  ['1 MB', 1_000_000],
];
const MIN_MS = 400;
const RUNS = 3;

const candidates: readonly [string, (data: Uint8Array) => unknown][] = [
  ['crypto.hash', (data) => nodeHash('sha256', data, 'buffer')],
  ['createHash', (data) => createHash('sha256').update(data).digest()],
  ['@noble/hashes', (data) => nobleSha256(data)],
];

console.log(`SHA-256 on node ${process.version}, best of ${RUNS} runs of ${MIN_MS} ms per cell`);
console.log(`${pad('input', 8)} ${candidates.map(([name]) => pad(`${name} ops/s`, 22)).join(' ')} ${pad('crypto.hash/noble', 18)} ${pad('MB/s (crypto.hash)', 19)}`);
const ratios: string[] = [];
for (const [label, size] of SIZES) {
  const data = new Uint8Array(size).map((_, i) => (i * 131 + 7) & 0xff);
  const rates: number[] = [];
  for (const [, fn] of candidates) {
    warmUp(() => fn(data), 100);
    rates.push(await bestOf(RUNS, () => opsPerSecond(() => fn(data), MIN_MS)));
  }
  const ratio = rates[0]! / rates[2]!;
  ratios.push(`${label} ${ratio.toFixed(2)}x`);
  const mbPerSecond = (rates[0]! * size) / 1e6;
  console.log(`${pad(label, 8)} ${rates.map((r) => pad(fmt(r), 22)).join(' ')} ${pad(ratio.toFixed(2) + 'x', 18)} ${pad(fmt(mbPerSecond), 19)}`);
}
console.log(`crypto.hash / @noble/hashes sha256: ${ratios.join(', ')}`);
