/**
 * The test data carried in test/vectors/data (or the copy TSBTCD_VECTORS names) is the data
 * its SHA256SUMS pins, byte for byte (a gzipped file by the bytes it holds): no file changed, missing or added without a sum, and
 * the README says where each one came from.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { GZIP_SUFFIX, readVectorBytes, readVectorText, VECTORS_DIR } from '../support/vectors.js';

/** `<sha256>  <file>` lines, as sha256sum writes them. */
function pinnedSums(): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of readVectorText('SHA256SUMS').split('\n')) {
    if (line === '') continue;
    const match = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
    assert.ok(match, `SHA256SUMS: malformed line ${JSON.stringify(line)}`);
    sums.set(match[2]!, match[1]!);
  }
  return sums;
}

test('every vector file matches its SHA256SUMS line and every data file has one', () => {
  const sums = pinnedSums();
  assert.ok(sums.size > 0, `${VECTORS_DIR}/SHA256SUMS lists no file`);
  for (const [file, expected] of sums) {
    const actual = createHash('sha256').update(readVectorBytes(file)).digest('hex');
    assert.equal(actual, expected, `${file}: SHA-256 differs from SHA256SUMS`);
  }
  const notData = new Set(['SHA256SUMS', 'README.md', '.gitattributes']);
  // A gzipped file is pinned by the sum of the bytes it holds (its name without .gz).
  const unpinned = readdirSync(VECTORS_DIR).filter((f) => !notData.has(f) && !sums.has(f.endsWith(GZIP_SUFFIX) ? f.slice(0, -GZIP_SUFFIX.length) : f));
  assert.deepEqual(unpinned, [], 'data files without a SHA256SUMS line');
});

test('the README names the origin of every pinned file', () => {
  const readme = readVectorText('README.md');
  for (const file of pinnedSums().keys()) assert.ok(readme.includes(`\`${file}\``), `README.md does not mention ${file}`);
});
