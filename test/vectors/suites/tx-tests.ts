/**
 * tx_valid.json and tx_invalid.json, run as Core's transaction_tests.cpp does: every input
 * of the transaction verifies (or some input fails) under the row's flags, and the flags
 * are exact — removing one from an invalid row, or adding one back to a valid row, flips
 * the result. BADTX rows must fail the context-free transaction checks.
 */
import { checkTransaction } from '../../../src/consensus/index.js';
import { fromHex, hexToHash, parseTransaction, toHex, type Transaction, type TxOut } from '../../../src/primitives/index.js';
import {
  ALL_FLAG_NAMES,
  parseFlags,
  parseTestScript,
  PrecomputedTransactionData,
  VerifyFlags,
  verifyInput,
} from '../../../src/script/index.js';
import { installMemoizingBackend, seededRandom } from '../../support/memo-signatures.js';
import { ALL_FLAGS, excludeIndividualFlags, fillFlags, trimFlags } from '../../support/script-flags.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

type PrevoutRow = [string, number, string, number?];

interface TxCase {
  tx: Transaction;
  spent: TxOut[];
  flagsText: string;
}

function parseCase(row: unknown[]): TxCase {
  const prevouts = new Map<string, TxOut>();
  for (const [txid, index, script, amount] of row[0] as PrevoutRow[]) {
    const vout = index === -1 ? 0xffffffff : index;
    prevouts.set(`${toHex(hexToHash(txid))}:${vout}`, { value: BigInt(amount ?? 0), scriptPubKey: parseTestScript(script) });
  }
  const tx = parseTransaction(fromHex(String(row[1])));
  const spent = tx.inputs.map((input) => {
    const out = prevouts.get(`${toHex(input.prevout.txid)}:${input.prevout.vout}`);
    if (!out) throw new Error('row lacks a prevout for an input');
    return out;
  });
  return { tx, spent, flagsText: String(row[2]) };
}

/** Core's CheckTxScripts: true when every input verifies. */
function allInputsValid(c: TxCase, flags: number): boolean {
  const txdata = new PrecomputedTransactionData(c.tx, c.spent);
  for (let i = 0; i < c.tx.inputs.length; i++) {
    if (verifyInput(c.tx, i, c.spent, flags, txdata) !== 'OK') return false;
  }
  return true;
}

function runValid(c: TxCase, random: () => number): void {
  if (checkTransaction(c.tx) !== null) throw new Error(`CheckTransaction failed: ${checkTransaction(c.tx)}`);
  const excluded = parseFlags(c.flagsText);
  if (!allInputsValid(c, ALL_FLAGS & ~excluded)) throw new Error('invalid with all but the excluded flags');
  for (const name of ALL_FLAG_NAMES) {
    const fewer = trimFlags(ALL_FLAGS & ~(excluded | VerifyFlags[name]));
    if (!allInputsValid(c, fewer)) throw new Error(`invalid after also removing ${name}`);
    const randomFewer = trimFlags(ALL_FLAGS & ~(excluded | (random() & ALL_FLAGS)));
    if (!allInputsValid(c, randomFewer)) throw new Error(`invalid with flags 0x${randomFewer.toString(16)}`);
  }
  // Maximal: putting back any one excluded flag must make it fail.
  for (const oneBack of excludeIndividualFlags(excluded)) {
    if (allInputsValid(c, ALL_FLAGS & ~oneBack)) throw new Error(`still valid with flags 0x${(ALL_FLAGS & ~oneBack).toString(16)}: too many flags excluded`);
  }
}

function runInvalid(c: TxCase, random: () => number): void {
  const failure = checkTransaction(c.tx);
  if (failure !== null) {
    if (c.flagsText !== 'BADTX') throw new Error(`CheckTransaction failed (${failure}) but the row is not BADTX`);
    return;
  }
  if (c.flagsText === 'BADTX') throw new Error('BADTX row passed CheckTransaction');
  const flags = parseFlags(c.flagsText);
  // Minimal: removing any one flag must make it pass.
  for (const fewer of excludeIndividualFlags(flags)) {
    if (!allInputsValid(c, fewer)) throw new Error(`still invalid with flags 0x${fewer.toString(16)}: too many flags set`);
  }
  if (allInputsValid(c, flags)) throw new Error('passed under its flags');
  for (const name of ALL_FLAG_NAMES) {
    const more = fillFlags(flags | VerifyFlags[name]);
    if (allInputsValid(c, more)) throw new Error(`passed after adding ${name}`);
    const randomMore = fillFlags(flags | (random() & ALL_FLAGS));
    if (allInputsValid(c, randomMore)) throw new Error(`passed with flags 0x${randomMore.toString(16)}`);
  }
}

function txSuite(file: string, run: (c: TxCase, random: () => number) => void): VectorSuite {
  return {
    file,
    run() {
      const restore = installMemoizingBackend();
      try {
        const tally = new Tally();
        const random = seededRandom(0x7e57);
        for (const row of readVectorJson<unknown[][]>(file)) {
          if (!Array.isArray(row[0])) continue;
          tally.run(
            () => JSON.stringify(row).slice(0, 300),
            () => {
              run(parseCase(row), random);
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
}

export const suites: VectorSuite[] = [txSuite('tx_valid.json', runValid), txSuite('tx_invalid.json', runInvalid)];
