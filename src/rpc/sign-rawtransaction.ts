/**
 * signrawtransactionwithkey (Core's rpc/rawtransaction.cpp with rawtransaction_util's
 * ParsePrevouts, SignTransaction and SignTransactionResultToJSON): signs what the given
 * keys can sign, keeping and pooling the signatures the inputs already carry. Spent outputs
 * come from the call's snapshot (UTXO set and mempool, Core's FindCoins) and `prevtxs`.
 */
import {
  dataFromTransaction,
  decodeSecret,
  isPayToScriptHash,
  payToScriptHashOf,
  payToWitnessScriptHashOf,
  PrecomputedTransactionData,
  produceSignature,
  SCRIPT_ERROR_MESSAGES,
  ScriptError,
  scriptToAsm,
  SIGHASH_ANYONECANPAY,
  SIGHASH_DEFAULT,
  SIGHASH_SINGLE,
  SigningKeyStore,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  TransactionSignatureChecker,
  transactionInputSigner,
  verifyScript,
  witnessProgram,
  type ChainName,
} from '../script/index.js';
import { emptyInput, type PsbtProvider } from '../psbt/index.js';
import { bytesEqual, hashToHex, toHex, Transaction, type OutPoint, type TxIn, type TxOut } from '../primitives/index.js';
import { view } from './blockchain-read.js';
import { RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { decodeTxHex } from './format/index.js';
import { MempoolView, spentOutput } from './mempool-view.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcCallContext, type RpcMethod } from './spec.js';
import { parseHash } from './values.js';
import { amountFromValue, getInt, getStr, INT32_MAX, INT32_MIN, isJsonObject, parseHexV, rpcTypeCheckObj } from './value-parse.js';
import type { Json } from './json.js';

/** Core's MAX_MONEY: the amount a prevtxs entry without one is given. */
const MAX_MONEY = 2_100_000_000_000_000n;

export const SIGHASH_NAMES: Readonly<Record<string, number>> = {
  DEFAULT: SIGHASH_DEFAULT,
  ALL: 0x01,
  NONE: 0x02,
  SINGLE: 0x03,
  'ALL|ANYONECANPAY': 0x81,
  'NONE|ANYONECANPAY': 0x82,
  'SINGLE|ANYONECANPAY': 0x83,
};

/** Core's ParseSighashString: null is DEFAULT. */
export function parseSighash(value: Json | undefined): number {
  if (value === undefined || value === null) return SIGHASH_DEFAULT;
  const text = getStr(value);
  const type = SIGHASH_NAMES[text];
  if (type === undefined) throw new RpcError(RPC_INVALID_PARAMETER, `'${text}' is not a valid sighash parameter.`);
  return type;
}

/** An input's spent output, or undefined when it is unknown or spent (Core's cleared Coin). */
type Coins = Map<string, TxOut | undefined>;

const outpointKey = (outpoint: OutPoint) => `${hashToHex(outpoint.txid)}:${outpoint.vout}`;
/** Core's IsPayToWitnessScriptHash. */
const isPayToWitnessScriptHash = (s: Uint8Array) => witnessProgram(s)?.version === 0 && s.length === 34;

/** Core's ParsePrevouts with a keystore: each entry's coin, and its redeem or witness script for signing. */
function parsePrevouts(prevtxs: Json | undefined, coins: Coins, store: SigningKeyStore): void {
  if (prevtxs === undefined || prevtxs === null) return;
  for (const entry of prevtxs as Json[]) {
    if (!isJsonObject(entry)) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'expected object with {"txid\'","vout","scriptPubKey"}');
    rpcTypeCheckObj(entry, { txid: 'string', vout: 'number', scriptPubKey: 'string' }, false, false);
    const txid = parseHash(entry['txid'] as string, 'txid');
    const vout = getInt(entry['vout'], INT32_MIN, INT32_MAX);
    if (vout < 0) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'vout cannot be negative');
    const scriptPubKey = parseHexV(entry['scriptPubKey'], 'scriptPubKey');
    const key = outpointKey({ txid, vout });
    const known = coins.get(key);
    if (known && !bytesEqual(known.scriptPubKey, scriptPubKey)) {
      throw new RpcError(RPC_DESERIALIZATION_ERROR, `Previous output scriptPubKey mismatch:\n${scriptToAsm(known.scriptPubKey)}\nvs:\n${scriptToAsm(scriptPubKey)}`);
    }
    const value = Object.hasOwn(entry, 'amount') ? amountFromValue(entry['amount']) : MAX_MONEY;
    coins.set(key, { value, scriptPubKey });

    if (!isPayToScriptHash(scriptPubKey) && !isPayToWitnessScriptHash(scriptPubKey)) continue;
    const rs = entry['redeemScript'] ?? null;
    const ws = entry['witnessScript'] ?? null;
    if (rs === null && ws === null) throw new RpcError(RPC_INVALID_PARAMETER, 'Missing redeemScript/witnessScript');
    // The witness script when there is one; its P2WSH output script too, for P2SH-P2WSH.
    const script = ws !== null ? parseHexV(ws, 'witnessScript') : parseHexV(rs, 'redeemScript');
    const witnessOutput = payToWitnessScriptHashOf(script);
    store.addScript(script);
    store.addScript(witnessOutput);
    if (ws !== null && rs !== null && getStr(ws) !== getStr(rs) && !bytesEqual(parseHexV(rs, 'redeemScript'), witnessOutput)) {
      throw new RpcError(RPC_INVALID_PARAMETER, 'redeemScript does not correspond to witnessScript');
    }
    const matches = isPayToScriptHash(scriptPubKey)
      ? bytesEqual(scriptPubKey, payToScriptHashOf(script)) || bytesEqual(scriptPubKey, payToScriptHashOf(witnessOutput))
      : bytesEqual(scriptPubKey, witnessOutput);
    if (!matches) throw new RpcError(RPC_INVALID_PARAMETER, 'redeemScript/witnessScript does not match scriptPubKey');
  }
}

/** Core's CTxOut::ToString, as the "Missing amount" error prints the coin. */
function txOutString(out: TxOut): string {
  const whole = out.value / 100_000_000n;
  const fraction = (out.value % 100_000_000n).toString().padStart(8, '0');
  return `CTxOut(nValue=${whole}.${fraction}, scriptPubKey=${toHex(out.scriptPubKey).slice(0, 30)})`;
}

/** Core's SignTransaction: the signed inputs and each failing input's error, by index. */
function signTransaction(tx: Transaction, store: SigningKeyStore, coins: Coins, hashType: number, provider?: PsbtProvider): { inputs: TxIn[]; errors: Map<number, string> } {
  const spent = tx.inputs.map((input) => coins.get(outpointKey(input.prevout)));
  const txdata = new PrecomputedTransactionData(tx, spent.every((s) => s !== undefined) ? (spent as TxOut[]) : undefined);
  const hashSingle = (hashType & ~SIGHASH_ANYONECANPAY) === SIGHASH_SINGLE;
  const errors = new Map<number, string>();
  const inputs = tx.inputs.map((input, i): TxIn => {
    const coin = spent[i];
    if (!coin) {
      errors.set(i, 'Input not found or already spent');
      return input;
    }
    const data = dataFromTransaction(tx, i, coin);
    let signed: { scriptSig: Uint8Array; witness: readonly Uint8Array[] } = { scriptSig: data.scriptSig, witness: data.witness };
    // SIGHASH_SINGLE signs only inputs with an output of the same index.
    if (!hashSingle || i < tx.outputs.length) {
      // A provider that knows descriptors (a wallet's) also signs taproot spends.
      const signer = provider ? provider.forInput(tx, i, coin.value, hashType, txdata) : transactionInputSigner(store, tx, i, coin.value, hashType, txdata);
      const taproot = provider?.taproot(emptyInput(), tx, i, hashType, txdata);
      signed = produceSignature(data, coin.scriptPubKey, { tx, inputIndex: i, amount: coin.value }, signer, taproot);
    }
    const updated: TxIn = { ...input, scriptSig: signed.scriptSig, witness: signed.witness };
    if (coin.value === MAX_MONEY && updated.witness.length > 0) {
      errors.set(i, 'Missing amount');
      return updated;
    }
    if (data.complete) return updated;
    // The checker sees the transaction as it was given, as Core's txConst.
    const error = verifyScript(updated.scriptSig, coin.scriptPubKey, updated.witness, STANDARD_SCRIPT_VERIFY_FLAGS, new TransactionSignatureChecker(tx, i, coin.value, txdata));
    if (error === ScriptError.INVALID_STACK_OPERATION) errors.set(i, 'Unable to sign input, invalid stack size (possibly missing key)');
    else if (error === ScriptError.NULLFAIL) errors.set(i, 'CHECK(MULTI)SIG failing with non-zero signature (possibly need more signatures)');
    else if (error !== ScriptError.OK) errors.set(i, SCRIPT_ERROR_MESSAGES[error]);
    return updated;
  });
  return { inputs, errors };
}

/** The spent outputs of a transaction's inputs from the call's snapshot (the UTXO set and the mempool), then prevtxs (Core's findCoins and ParsePrevouts). */
export function inputCoins(ctx: RpcCallContext, tx: Transaction): Coins {
  const snapshot = view(ctx);
  const pool = MempoolView.of(snapshot);
  const coins: Coins = new Map();
  for (const input of tx.inputs) coins.set(outpointKey(input.prevout), spentOutput(snapshot, pool, input.prevout));
  return coins;
}

export { parsePrevouts, type Coins };

/** Core's SignTransaction and SignTransactionResultToJSON: hex, complete and the inputs' errors. */
export function signedTransactionJson(tx: Transaction, store: SigningKeyStore, coins: Coins, hashType: number, provider?: PsbtProvider): { hex: string; complete: boolean; errors?: unknown[] } {
  const { inputs, errors } = signTransaction(tx, store, coins, hashType, provider);
  const signed = new Transaction({ version: tx.version, inputs, outputs: tx.outputs, locktime: tx.locktime });
  const errorList = [...errors].sort((a, b) => a[0] - b[0]).map(([i, error]) => {
    if (error === 'Missing amount') throw new RpcError(RPC_TYPE_ERROR, `Missing amount for ${txOutString(coins.get(outpointKey(inputs[i]!.prevout))!)}`);
    const input = inputs[i]!;
    return { txid: hashToHex(input.prevout.txid), vout: input.prevout.vout, witness: input.witness.map(toHex), scriptSig: toHex(input.scriptSig), sequence: input.sequence, error };
  });
  return { hex: toHex(signed.toBytes()), complete: errors.size === 0, ...(errorList.length > 0 ? { errors: errorList } : {}) };
}

export function signRawTransactionMethods(chain: ChainName): RpcMethod[] {
  const signrawtransactionwithkey = defineRpcMethod({
    name: 'signrawtransactionwithkey',
    category: 'rawtransactions',
    description:
      'Sign inputs for raw transaction (serialized, hex-encoded).\n' +
      'The second argument is an array of base58-encoded private\n' +
      'keys that will be the only keys used to sign the transaction.\n' +
      'The third optional argument (may be null) is an array of previous transaction outputs that\n' +
      'this transaction depends on but may not yet be in the block chain.\n',
    args: [
      { name: 'hexstring', type: 'str', description: 'The transaction hex string' },
      {
        name: 'privkeys',
        type: 'arr',
        description: 'The base58-encoded private keys for signing',
        inner: [{ name: 'privatekey', type: 'str', optional: true, description: 'private key in base58-encoding' }],
      },
      {
        name: 'prevtxs',
        type: 'arr',
        optional: true,
        description: 'The previous dependent transaction outputs',
        inner: [
          {
            name: '',
            type: 'obj',
            optional: true,
            description: '',
            inner: [
              { name: 'txid', type: 'hex', description: 'The transaction id' },
              { name: 'vout', type: 'num', description: 'The output number' },
              { name: 'scriptPubKey', type: 'hex', description: 'output script' },
              { name: 'redeemScript', type: 'hex', optional: true, description: '(required for P2SH) redeem script' },
              { name: 'witnessScript', type: 'hex', optional: true, description: '(required for P2WSH or P2SH-P2WSH) witness script' },
              { name: 'amount', type: 'amount', optional: true, description: '(required for Segwit inputs) the amount spent' },
            ],
          },
        ],
      },
      {
        name: 'sighashtype',
        type: 'str',
        default: 'DEFAULT for Taproot, ALL otherwise',
        description: 'The signature hash type. Must be one of:\n' + Object.keys(SIGHASH_NAMES).map((n) => `"${n}"\n`).join(''),
      },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'str_hex', key: 'hex', description: 'The hex-encoded raw transaction with signature(s)' },
          { type: 'bool', key: 'complete', description: 'If the transaction has a complete set of signatures' },
          {
            type: 'arr',
            key: 'errors',
            optional: true,
            description: 'Script verification errors (if there are any)',
            inner: [
              {
                type: 'obj',
                inner: [
                  { type: 'str_hex', key: 'txid', description: 'The hash of the referenced, previous transaction' },
                  { type: 'num', key: 'vout', description: 'The index of the output to spent and used as input' },
                  { type: 'arr', key: 'witness', inner: [{ type: 'str_hex', description: '' }] },
                  { type: 'str_hex', key: 'scriptSig', description: 'The hex-encoded signature script' },
                  { type: 'num', key: 'sequence', description: 'Script sequence number' },
                  { type: 'str', key: 'error', description: 'Verification or signing error related to the input' },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('signrawtransactionwithkey', '"myhex" "[\\"key1\\",\\"key2\\"]"') + helpExampleRpc('signrawtransactionwithkey', '"myhex", "[\\"key1\\",\\"key2\\"]"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      // Core's DecodeHexTx defaults: the extended serialization only.
      const tx = decodeTxHex(args.string('hexstring'), false, true);
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
      const store = new SigningKeyStore();
      for (const item of args.raw[1] as Json[]) {
        const key = decodeSecret(getStr(item), chain);
        if (!key) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid private key');
        store.addKey(key.secret, key.compressed);
      }
      const coins = inputCoins(ctx, tx);
      parsePrevouts(args.raw[2], coins, store);
      return signedTransactionJson(tx, store, coins, parseSighash(args.raw[3]));
    },
  });
  return [signrawtransactionwithkey];
}
