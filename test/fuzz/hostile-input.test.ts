/**
 * Hostile input never crashes: random and mutated transactions, blocks and scripts go
 * through the parsers and the interpreter, and every one ends in a result or a typed
 * error. Seeded, so a failure reproduces; the seed and iteration are in the message.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DecodeError, fromHex, parseBlock, parseTransaction, toHex, Transaction, type TxOut } from '../../src/primitives/index.js';
import {
  ALL_FLAG_NAMES,
  evalScript,
  NULL_SIGNATURE_CHECKER,
  ScriptError,
  SigVersion,
  transactionSigOpCost,
  VerifyFlags,
  verifyInput,
} from '../../src/script/index.js';
import { seededRandom } from '../support/memo-signatures.js';
import { mutate } from '../support/mutate.js';
import { readVectorJson, vectorPath } from '../support/vectors.js';

const SEED = 0xfadedace;
const ERROR_NAMES = new Set<string>(Object.values(ScriptError));
const ALL_FLAGS = ALL_FLAG_NAMES.reduce((acc, n) => acc | VerifyFlags[n], 0);

function randomBytes(random: () => number, max: number): Uint8Array {
  const out = new Uint8Array(random() % max);
  for (let i = 0; i < out.length; i++) out[i] = random() & 0xff;
  return out;
}

function parseOrDecodeError<T>(parse: () => T, label: string): T | undefined {
  try {
    return parse();
  } catch (err) {
    assert.ok(err instanceof DecodeError, `${label}: threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
    return undefined;
  }
}

const sampleTxs: Uint8Array[] = readVectorJson<unknown[][]>('tx_valid.json')
  .filter((row) => Array.isArray(row[0]))
  .map((row) => fromHex(String(row[1])));

test('random and mutated transactions parse or fail with DecodeError, and what parses round-trips', () => {
  const random = seededRandom(SEED);
  let parsed = 0;
  for (let i = 0; i < 20000; i++) {
    const input = i % 4 === 0 ? randomBytes(random, 300) : mutate(sampleTxs[random() % sampleTxs.length]!, random);
    const tx = parseOrDecodeError(() => parseTransaction(input), `seed ${SEED} iteration ${i} (${toHex(input)})`);
    if (!tx) continue;
    parsed++;
    assert.equal(toHex(tx.toBytes()), toHex(input), `iteration ${i}: re-serialization differs`);
    assert.ok(tx.weight >= 0 && tx.txid.length === 32);
  }
  assert.ok(parsed > 1000, `only ${parsed} mutated transactions parsed: the fuzzer is not reaching the interpreter`);
});

test('mutated blocks parse or fail with DecodeError', () => {
  const random = seededRandom(SEED + 1);
  const blocks = readFileSync(vectorPath('mainnet-blocks-0-255.hex'), 'utf8').trim().split('\n').slice(160, 200).map(fromHex);
  for (let i = 0; i < 3000; i++) {
    const input = mutate(blocks[random() % blocks.length]!, random);
    parseOrDecodeError(() => parseBlock(input), `seed ${SEED + 1} iteration ${i}`);
  }
});

test('random scripts end in a named result in every script context and under any flags', () => {
  const random = seededRandom(SEED + 2);
  const contexts = [SigVersion.BASE, SigVersion.WITNESS_V0, SigVersion.TAPSCRIPT];
  for (let i = 0; i < 30000; i++) {
    const script = randomBytes(random, 80);
    const stack = Array.from({ length: random() % 4 }, () => randomBytes(random, 6));
    const flags = random() & ALL_FLAGS;
    const result = evalScript(stack, script, flags, NULL_SIGNATURE_CHECKER, contexts[i % 3]!);
    assert.ok(ERROR_NAMES.has(result), `seed ${SEED + 2} iteration ${i}: ${result} for ${toHex(script)}`);
  }
});

test('mutated spends of real vectors verify to a named result, and sigop counting never throws', () => {
  const random = seededRandom(SEED + 3);
  const rows = readVectorJson<unknown[][]>('tx_valid.json').filter((row) => Array.isArray(row[0]));
  let checked = 0;
  for (let i = 0; i < 1500; i++) {
    const row = rows[random() % rows.length]!;
    const tx = parseOrDecodeError(() => parseTransaction(mutate(fromHex(String(row[1])), random)), `iteration ${i}`);
    if (!tx || tx.inputs.length === 0) continue;
    const spent: TxOut[] = tx.inputs.map(() => ({
      value: BigInt(random() % 100000),
      scriptPubKey: random() % 2 ? randomBytes(random, 40) : mutate(Uint8Array.of(0x51, 0x20, ...new Uint8Array(32)), random),
    }));
    const flags = random() & ALL_FLAGS;
    const result = verifyInput(tx, random() % tx.inputs.length, spent, flags);
    assert.ok(ERROR_NAMES.has(result), `iteration ${i}: ${result}`);
    assert.ok(Number.isInteger(transactionSigOpCost(tx, spent, flags)));
    checked++;
  }
  assert.ok(checked > 100, `only ${checked} spends reached the interpreter`);
  assert.ok(new Transaction({ version: 1, inputs: [], outputs: [], locktime: 0 }).txid.length === 32);
});
