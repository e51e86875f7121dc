/** sighash.json: Core's legacy SignatureHash on random transactions and scripts (many unparsable). */
import { checkTransaction } from '../../../src/consensus/index.js';
import { fromHex, hashToHex, parseTransaction } from '../../../src/primitives/index.js';
import { legacySignatureHash } from '../../../src/script/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

export const suite: VectorSuite = {
  file: 'sighash.json',
  run() {
    const tally = new Tally();
    for (const row of readVectorJson<unknown[][]>('sighash.json')) {
      if (row.length === 1) continue;
      const [txHex, scriptHex, inputIndex, hashType, expected] = row as [string, string, number, number, string];
      tally.run(
        () => `${txHex.slice(0, 40)}… input ${inputIndex} type ${hashType}: expected ${expected}`,
        () => {
          const tx = parseTransaction(fromHex(txHex));
          if (checkTransaction(tx) !== null) throw new Error('transaction fails CheckTransaction');
          return hashToHex(legacySignatureHash(fromHex(scriptHex), tx, inputIndex, hashType)) === expected;
        },
      );
    }
    return tally;
  },
};
