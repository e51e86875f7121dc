/**
 * script_tests.json, run as Core's script_tests.cpp does: each row's scripts run as input 0
 * of a spending transaction; the result and error name must match, and must stay the
 * same when flags are removed from a passing row or added to a failing one.
 */
import { fromHex, NULL_OUTPOINT, Transaction } from '../../../src/primitives/index.js';
import {
  parseFlags,
  parseTestScript,
  taprootOutput,
  TransactionSignatureChecker,
  VerifyFlags,
  verifyScript,
  type ScriptError,
} from '../../../src/script/index.js';
import { installMemoizingBackend, seededRandom } from '../../support/memo-signatures.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

/** BIP341's NUMS point H, the internal key Core's harness uses for generated tapscript outputs. */
const NUMS_H = fromHex('50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0');
const SCRIPT_FLAG = '#SCRIPT#';

export function creditingTransaction(scriptPubKey: Uint8Array, value: bigint): Transaction {
  return new Transaction({
    version: 1,
    locktime: 0,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: Uint8Array.of(0, 0), sequence: 0xffffffff, witness: [] }],
    outputs: [{ value, scriptPubKey }],
  });
}

export function spendingTransaction(scriptSig: Uint8Array, witness: Uint8Array[], credit: Transaction): Transaction {
  return new Transaction({
    version: 1,
    locktime: 0,
    inputs: [{ prevout: { txid: credit.txid, vout: 0 }, scriptSig, sequence: 0xffffffff, witness }],
    outputs: [{ value: credit.outputs[0]!.value, scriptPubKey: new Uint8Array(0) }],
  });
}

interface ScriptTestCase {
  witness: Uint8Array[];
  amount: bigint;
  scriptSig: Uint8Array;
  scriptPubKey: Uint8Array;
  flags: number;
  expected: string;
  text: string;
}

function parseRow(row: unknown[]): ScriptTestCase {
  let pos = 0;
  const witness: Uint8Array[] = [];
  let amount = 0n;
  let leafOutput: ReturnType<typeof taprootOutput> | undefined;
  if (Array.isArray(row[0])) {
    const items = row[0] as (string | number)[];
    for (let i = 0; i < items.length - 1; i++) {
      const element = String(items[i]);
      if (element.startsWith(SCRIPT_FLAG)) {
        witness.push(parseTestScript(element.slice(SCRIPT_FLAG.length)));
      } else if (element === '#CONTROLBLOCK#') {
        leafOutput = taprootOutput(NUMS_H, { script: witness[witness.length - 1]!, leafVersion: 0xc0 });
        witness.push(leafOutput.leaves[0]!.controlBlock);
      } else {
        witness.push(fromHex(element));
      }
    }
    amount = BigInt(Math.round(Number(items[items.length - 1]) * 1e8));
    pos = 1;
  }
  const scriptSig = parseTestScript(String(row[pos]));
  const pubKeyText = String(row[pos + 1]);
  let scriptPubKey: Uint8Array;
  if (pubKeyText === '0x51 0x20 #TAPROOTOUTPUT#') {
    if (!leafOutput) throw new Error('#TAPROOTOUTPUT# without a #CONTROLBLOCK#');
    scriptPubKey = leafOutput.scriptPubKey;
  } else {
    scriptPubKey = parseTestScript(pubKeyText);
  }
  return {
    witness,
    amount,
    scriptSig,
    scriptPubKey,
    flags: parseFlags(String(row[pos + 2])),
    expected: String(row[pos + 3]),
    text: JSON.stringify(row),
  };
}

function verifyCase(c: ScriptTestCase, flags: number): ScriptError {
  const credit = creditingTransaction(c.scriptPubKey, c.amount);
  const spend = spendingTransaction(c.scriptSig, c.witness, credit);
  const checker = new TransactionSignatureChecker(spend, 0, c.amount);
  return verifyScript(c.scriptSig, c.scriptPubKey, c.witness, flags, checker);
}

export const suite: VectorSuite = {
  file: 'script_tests.json',
  run() {
    const restore = installMemoizingBackend();
    try {
      const rows = readVectorJson<unknown[][]>('script_tests.json');
      const tally = new Tally();
      const random = seededRandom(0x5c121);
      for (const row of rows) {
        if (row.length === 1) continue;
        tally.run(
          () => JSON.stringify(row).slice(0, 300),
          () => {
            const c = parseRow(row);
            let flags = c.flags;
            if (flags & VerifyFlags.CLEANSTACK) flags |= VerifyFlags.P2SH | VerifyFlags.WITNESS;
            const result = verifyCase(c, flags);
            if (result !== c.expected) throw new Error(`got ${result}, expected ${c.expected}`);
            const expectOk = c.expected === 'OK';
            // Removing flags never breaks a passing script; adding flags never fixes a failing one.
            for (let i = 0; i < 16; i++) {
              const extra = random() & 0xffff;
              const combined = expectOk ? flags & ~extra : flags | extra;
              if (combined & VerifyFlags.CLEANSTACK && ~combined & (VerifyFlags.P2SH | VerifyFlags.WITNESS)) continue;
              if (combined & VerifyFlags.WITNESS && ~combined & VerifyFlags.P2SH) continue;
              const again = verifyCase(c, combined);
              if ((again === 'OK') !== expectOk) throw new Error(`flags 0x${combined.toString(16)} gave ${again}`);
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
