/**
 * script_assets_test.json (Core's feature_taproot.py dump): each success case verifies
 * under every consensus flag combination that is a subset of its flags (all of them when
 * `final`), and each failure case fails under every superset.
 */
import { fromHex, parseTransaction, parseTxOut, Transaction, type TxIn } from '../../../src/primitives/index.js';
import { parseFlags, PrecomputedTransactionData, verifyInput } from '../../../src/script/index.js';
import { installMemoizingBackend } from '../../support/memo-signatures.js';
import { allConsensusFlagCombinations } from '../../support/script-flags.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

interface Spend {
  scriptSig: string;
  witness: string[];
}

interface AssetTest {
  tx: string;
  prevouts: string[];
  index: number;
  flags: string;
  comment: string;
  success?: Spend;
  failure?: Spend;
  final?: boolean;
}

function withSpend(base: Transaction, index: number, spend: Spend): Transaction {
  const inputs: TxIn[] = base.inputs.map((input, i) =>
    i === index ? { ...input, scriptSig: fromHex(spend.scriptSig), witness: spend.witness.map(fromHex) } : input,
  );
  return new Transaction({ version: base.version, locktime: base.locktime, inputs, outputs: base.outputs });
}

export const suite: VectorSuite = {
  file: 'script_assets_test.json',
  run() {
    const restore = installMemoizingBackend();
    try {
      const tally = new Tally();
      const combos = allConsensusFlagCombinations();
      for (const test of readVectorJson<AssetTest[]>('script_assets_test.json')) {
        tally.run(
          () => `${test.comment} (index ${test.index}, flags ${test.flags})`,
          () => {
            const base = parseTransaction(fromHex(test.tx));
            const spent = test.prevouts.map((p) => parseTxOut(fromHex(p)));
            const testFlags = parseFlags(test.flags);
            if (test.success) {
              const tx = withSpend(base, test.index, test.success);
              const txdata = new PrecomputedTransactionData(tx, spent);
              for (const flags of combos) {
                if (test.final || (flags & testFlags) === flags) {
                  const result = verifyInput(tx, test.index, spent, flags, txdata);
                  if (result !== 'OK') throw new Error(`success case failed with ${result} under flags 0x${flags.toString(16)}`);
                }
              }
            }
            if (test.failure) {
              const tx = withSpend(base, test.index, test.failure);
              const txdata = new PrecomputedTransactionData(tx, spent);
              for (const flags of combos) {
                if ((flags & testFlags) === testFlags) {
                  if (verifyInput(tx, test.index, spent, flags, txdata) === 'OK') {
                    throw new Error(`failure case passed under flags 0x${flags.toString(16)}`);
                  }
                }
              }
            }
            return true;
          },
        );
      }
      return tally;
    } finally {
      restore();
    }
  },
};
