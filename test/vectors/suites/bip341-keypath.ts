/**
 * bip341_wallet_vectors.json, keyPathSpending: the transaction-wide hashes, each input's
 * tweak, tweaked secret key, SigMsg and SigHash, the BIP340 signature made with all-zero
 * aux randomness, and verification of the fully signed transaction through the interpreter.
 */
import * as noble from '@noble/secp256k1';
import { fromHex, parseTransaction, toHex, type TxOut } from '../../../src/primitives/index.js';
import {
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  PrecomputedTransactionData,
  taprootSignatureHash,
  taprootSignatureMessage,
  taptweakHash,
  verifyInput,
} from '../../../src/script/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

interface KeyPathVector {
  given: { rawUnsignedTx: string; utxosSpent: { scriptPubKey: string; amountSats: number }[] };
  intermediary: Record<string, string>;
  inputSpending: {
    given: { txinIndex: number; internalPrivkey: string; merkleRoot: string | null; hashType: number };
    intermediary: { internalPubkey: string; tweak: string; tweakedPrivkey: string; sigMsg: string; sigHash: string };
    expected: { witness: string[] };
  }[];
  auxiliary: { fullySignedTx: string };
}

const ORDER = noble.Point.CURVE().n;

function toBig(bytes: Uint8Array): bigint {
  return BigInt('0x' + (toHex(bytes) || '0'));
}

function fromBig(n: bigint): Uint8Array {
  return fromHex(n.toString(16).padStart(64, '0'));
}

/** BIP341's taproot_tweak_seckey: negate for odd y, then add the tweak. */
function tweakSecretKey(secret: Uint8Array, tweak: Uint8Array): Uint8Array {
  const compressed = noble.getPublicKey(secret, true);
  let d = toBig(secret);
  if (compressed[0] === 0x03) d = ORDER - d;
  return fromBig((d + toBig(tweak)) % ORDER);
}

export const suite: VectorSuite = {
  file: 'bip341_wallet_vectors.json (keyPathSpending)',
  run() {
    const tally = new Tally();
    const vectors = readVectorJson<{ keyPathSpending: KeyPathVector[] }>('bip341_wallet_vectors.json').keyPathSpending;
    for (const v of vectors) {
      const tx = parseTransaction(fromHex(v.given.rawUnsignedTx));
      const spent: TxOut[] = v.given.utxosSpent.map((u) => ({ value: BigInt(u.amountSats), scriptPubKey: fromHex(u.scriptPubKey) }));
      const txdata = new PrecomputedTransactionData(tx, spent);
      const shared: [string, Uint8Array | undefined][] = [
        ['hashPrevouts', txdata.prevoutsHash],
        ['hashAmounts', txdata.amountsHash],
        ['hashScriptPubkeys', txdata.scriptsHash],
        ['hashSequences', txdata.sequencesHash],
        ['hashOutputs', txdata.outputsHash],
      ];
      for (const [name, value] of shared) {
        tally.check(value !== undefined && toHex(value) === v.intermediary[name], () => `${name}: got ${value && toHex(value)}`);
      }

      const signed = parseTransaction(fromHex(v.auxiliary.fullySignedTx));
      const signedData = new PrecomputedTransactionData(signed, spent);
      for (const input of v.inputSpending) {
        const { txinIndex, internalPrivkey, merkleRoot, hashType } = input.given;
        const label = `input ${txinIndex}`;
        tally.run(
          () => `${label}: keys and tweak`,
          () => {
            const internalPubkey = noble.schnorr.getPublicKey(fromHex(internalPrivkey));
            const tweak = taptweakHash(internalPubkey, merkleRoot ? fromHex(merkleRoot) : undefined);
            const tweaked = tweakSecretKey(fromHex(internalPrivkey), tweak);
            return (
              toHex(internalPubkey) === input.intermediary.internalPubkey &&
              toHex(tweak) === input.intermediary.tweak &&
              toHex(tweaked) === input.intermediary.tweakedPrivkey
            );
          },
        );
        tally.run(
          () => `${label}: SigMsg and SigHash`,
          () => {
            const context = { annexHash: undefined };
            const message = taprootSignatureMessage(tx, txinIndex, hashType, txdata, context, false);
            const digest = taprootSignatureHash(tx, txinIndex, hashType, txdata, context, false);
            return message !== null && digest !== null && toHex(message) === input.intermediary.sigMsg && toHex(digest) === input.intermediary.sigHash;
          },
        );
        tally.run(
          () => `${label}: signature with zero aux randomness`,
          () => {
            const signature = noble.schnorr.sign(fromHex(input.intermediary.sigHash), fromHex(input.intermediary.tweakedPrivkey), new Uint8Array(32));
            const witness = hashType === 0 ? toHex(signature) : toHex(signature) + hashType.toString(16).padStart(2, '0');
            return witness === input.expected.witness[0];
          },
        );
        tally.run(
          () => `${label}: fully signed transaction verifies`,
          () => verifyInput(signed, txinIndex, spent, MANDATORY_SCRIPT_VERIFY_FLAGS, signedData) === 'OK',
        );
      }
    }
    return tally;
  },
};
