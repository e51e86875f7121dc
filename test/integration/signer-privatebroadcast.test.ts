/**
 * enumeratesigners with an external signer command (-signer), on tsbtcd and on the reference
 * bitcoind: the same fake signer (a shell script whose answer a file selects) gives the same
 * result or the same error for every way a signer can answer, fail or be missing. And
 * -privatebroadcast, which tsbtcd does not have, stops start-up instead of being ignored.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runToExit, tempDir } from './daemon-harness.js';
import { cleanupsAfterTests, NODE_STARTERS, skipUnless, type NodeUnderTest, type Starter } from './node-under-test.js';

/** What the fake signer prints (stdout, stderr, exit code) in each mode. */
const MODES: Record<string, { out: string; err?: string; exit?: number }> = {
  devices: { out: '[{"fingerprint":"00000001","model":"trezor"},{"fingerprint":"00000002"},{"fingerprint":"00000003","model":""}]' },
  duplicate: { out: '[{"fingerprint":"0000000a","model":"a"},{"fingerprint":"0000000a","model":"b"},{"fingerprint":"0000000c","model":"c"}]' },
  none: { out: '[]' },
  'second line': { out: '[]\n[{"fingerprint":"00000001"}]' },
  fails: { out: '', err: 'device not found\nsecond line', exit: 3 },
  'not json': { out: 'not json' },
  object: { out: '{"a":1}' },
  'error text': { out: '[{"error":"device locked"}]' },
  'error number': { out: '[{"error":5}]' },
  'no fingerprint': { out: '[{"model":"x"}]' },
  'fingerprint number': { out: '[{"fingerprint":5}]' },
  'not an object': { out: '[5]' },
};

type Outcome = { result: unknown } | { code: unknown; message: string };

async function enumerate(node: NodeUnderTest): Promise<Outcome> {
  try {
    return { result: await node.call('enumeratesigners') };
  } catch (err) {
    // The harnesses put the method's name (tsbtcd) or the code (bitcoind) before the node's message.
    return { code: (err as { code?: unknown }).code, message: (err as Error).message.replace(/^((enumeratesigners|error -?\d+): )+/, '') };
  }
}

function fakeSigner(dir: string): string {
  const script = join(dir, 'signer.sh');
  writeFileSync(script, `#!/bin/sh\necho "$@" >> "${dir}/args"\nmode=$(cat "${dir}/mode")\ncat "${dir}/$mode.out"\ncat "${dir}/$mode.err" >&2\nexit $(cat "${dir}/$mode.exit")\n`);
  chmodSync(script, 0o755);
  for (const [name, mode] of Object.entries(MODES)) {
    const file = name.replace(/ /g, '-');
    writeFileSync(join(dir, `${file}.out`), mode.out ? `${mode.out}\n` : '');
    writeFileSync(join(dir, `${file}.err`), mode.err ? `${mode.err}\n` : '');
    writeFileSync(join(dir, `${file}.exit`), String(mode.exit ?? 0));
  }
  return script;
}

async function transcript(start: Starter): Promise<Record<string, Outcome>> {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-signer-'));
  const cleanups: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  try {
    const script = fakeSigner(dir);
    const out: Record<string, Outcome> = {};
    const unconfigured = await start({});
    cleanups.push(() => unconfigured.stop());
    out['no -signer'] = await enumerate(unconfigured);
    const node = await start({ args: [`-signer=${script}`] });
    cleanups.push(() => node.stop());
    for (const name of Object.keys(MODES)) {
      writeFileSync(join(dir, 'mode'), name.replace(/ /g, '-'));
      // The script's path differs between the two runs: the messages that name it are compared without it.
      const outcome = await enumerate(node);
      out[name] = 'message' in outcome ? { ...outcome, message: outcome.message.replaceAll(script, '<signer>') } : outcome;
    }
    const missing = await start({ args: [`-signer=${join(dir, 'missing')} --flag`] });
    cleanups.push(() => missing.stop());
    out['missing command'] = await enumerate(missing);
    return out;
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}

const transcripts = new Map<string, Record<string, Outcome>>();
cleanupsAfterTests();

for (const [name, start] of NODE_STARTERS) {
  test(`enumeratesigners on ${name}: every answer of a fake signer`, { skip: skipUnless(start), timeout: 120_000 }, async () => {
    const got = await transcript(start!);
    assert.deepEqual(got['devices'], { result: { signers: [{ fingerprint: '00000001', name: 'trezor' }, { fingerprint: '00000002', name: '' }, { fingerprint: '00000003', name: '' }] } });
    assert.equal((got['no -signer'] as { code: unknown }).code, -1);
    transcripts.set(name, got);
  });
}

test('enumeratesigners: tsbtcd answers as bitcoind', { skip: skipUnless(NODE_STARTERS[1]![1]) }, () => {
  const [ours, theirs] = [transcripts.get('tsbtcd'), transcripts.get('bitcoind')];
  assert.ok(ours && theirs, 'both transcripts were taken');
  assert.deepEqual(ours, theirs);
});

test('-privatebroadcast is refused at start-up: tsbtcd would broadcast publicly', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-privatebroadcast=1', '-proxy=127.0.0.1:9050']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: -privatebroadcast is not supported by tsbtcd: it would relay transactions publicly instead of privately.\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
