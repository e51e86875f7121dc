/**
 * Every input of mainnet block 277,647 through the real worker pool, and the mutations a
 * script check must catch (and the one it must not: see the amount test), once with the
 * worker threads on each signature backend (native libsecp256k1, noble).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TxOut } from '../../src/primitives/index.js';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, ScriptError, SIGNATURE_BACKEND_CHOICES, VerifyFlags } from '../../src/script/index.js';
import { ScriptCheckPool } from '../../workers/index.js';
import { loadBlock277647, type BlockWithPrevouts } from '../support/mainnet.js';
import { flipScriptSigSignature, withInput } from '../support/mutate.js';

/**
 * Core's GetBlockScriptFlags below BIP66 (height 363,725): P2SH, WITNESS and TAPROOT are on
 * for every block but two historical exceptions; they cannot change the verdict of a
 * P2PKH spend, and DERSIG, CLTV, CSV and NULLDUMMY are not yet active at 277,647.
 */
const FLAGS_AT_277647 = VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.TAPROOT;
const INPUTS = 732;

let vector: BlockWithPrevouts;

before(() => {
  vector = loadBlock277647();
});

/** The transaction with the most inputs, and an input in its middle (not the first). */
function mutationTarget(): { txIndex: number; inputIndex: number } {
  let txIndex = 1;
  vector.block.transactions.forEach((tx, i) => {
    if (i > 0 && tx.inputs.length > vector.block.transactions[txIndex]!.inputs.length) txIndex = i;
  });
  return { txIndex, inputIndex: vector.block.transactions[txIndex]!.inputs.length >> 1 };
}

for (const backend of SIGNATURE_BACKEND_CHOICES) {
  describe(`block 277647 on the ${backend} signature backend`, () => {
    let pool: ScriptCheckPool;
    before(() => {
      pool = new ScriptCheckPool({ threads: 2, signatureBackend: backend });
    });
    after(() => pool.close());

    test(`all ${INPUTS} inputs of block 277647 verify with the flags in force at its height`, async () => {
      const result = await pool.verifyBlock(vector.block.transactions, vector.spentOutputs, FLAGS_AT_277647);
      assert.deepEqual(result, { ok: true, checked: INPUTS, signaturesVerified: INPUTS, signatureCacheHits: 0 });
    });

    test('block 277647 also verifies with P2SH alone and with every mandatory flag (its signatures are strict DER)', async () => {
      for (const flags of [VerifyFlags.P2SH, MANDATORY_SCRIPT_VERIFY_FLAGS]) {
        const result = await pool.verifyBlock(vector.block.transactions, vector.spentOutputs, flags);
        assert.deepEqual(result, { ok: true, checked: INPUTS, signaturesVerified: INPUTS, signatureCacheHits: 0 }, `flags ${flags}`);
      }
    });

    test('one flipped signature byte is rejected, naming exactly that transaction and input', async () => {
      const { txIndex, inputIndex } = mutationTarget();
      assert.ok(inputIndex > 0, 'the target transaction has several inputs');
      const transactions = vector.block.transactions.slice();
      transactions[txIndex] = withInput(transactions[txIndex]!, inputIndex, (input) => ({
        ...input,
        scriptSig: flipScriptSigSignature(input.scriptSig),
      }));
      const result = await pool.verifyBlock(transactions, vector.spentOutputs, FLAGS_AT_277647);
      assert.deepEqual(result, { ok: false, reason: 'script', txIndex, inputIndex, error: ScriptError.EVAL_FALSE });
    });

    test('a changed prevout amount does not fail the scripts of this legacy block', async () => {
      // Every input of 277647 is P2PKH, signed with the legacy sighash, which does not commit
      // to the amount spent. Catching a wrong amount here is the contextual check's job (inputs
      // must cover outputs; fees feed the coinbase limit), not the script check's. Segwit v0
      // and taproot signatures do commit to amounts: worker-pool.test.ts shows those failing.
      const { txIndex, inputIndex } = mutationTarget();
      const spentOutputs = vector.spentOutputs.map((list) => list.slice());
      const original = spentOutputs[txIndex]![inputIndex]!;
      spentOutputs[txIndex]![inputIndex] = { ...original, value: original.value + 1n } satisfies TxOut;
      const result = await pool.verifyBlock(vector.block.transactions, spentOutputs, FLAGS_AT_277647);
      assert.deepEqual(result, { ok: true, checked: INPUTS, signaturesVerified: INPUTS, signatureCacheHits: 0 });
    });
  });
}
