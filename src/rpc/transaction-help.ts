/**
 * Result descriptions of decoded transactions, shared by decoderawtransaction,
 * getrawtransaction and getblock (Core's ScriptPubKeyDoc, DecodeTxDoc and the prevout
 * and block fields of TxToUniv).
 */
import type { RpcResultSpec } from './spec.js';

/** Core's GetAllOutputTypes (v31 order). */
export const ALL_OUTPUT_TYPES =
  'nonstandard, anchor, pubkey, pubkeyhash, scripthash, multisig, nulldata, witness_v0_scripthash, witness_v0_keyhash, witness_v1_taproot, witness_unknown';

/** Core's ScriptPubKeyDoc(). */
export function scriptPubKeyDoc(): RpcResultSpec[] {
  return [
    { type: 'str', key: 'asm', description: 'Disassembly of the output script' },
    { type: 'str', key: 'desc', description: 'Inferred descriptor for the output' },
    { type: 'str_hex', key: 'hex', description: 'The raw output script bytes, hex-encoded' },
    { type: 'str', key: 'address', optional: true, description: 'The Bitcoin address (only if a well-defined address exists)' },
    { type: 'str', key: 'type', description: `The type (one of: ${ALL_OUTPUT_TYPES})` },
  ];
}

/** Core's DecodeTxDoc(txid_field_doc): the fields of TxToUniv without hex. */
export function decodeTxDoc(txidFieldDoc: string): RpcResultSpec[] {
  return [
    { type: 'str_hex', key: 'txid', description: txidFieldDoc },
    { type: 'str_hex', key: 'hash', description: 'The transaction hash (differs from txid for witness transactions)' },
    { type: 'num', key: 'size', description: 'The serialized transaction size' },
    { type: 'num', key: 'vsize', description: 'The virtual transaction size (differs from size for witness transactions)' },
    { type: 'num', key: 'weight', description: "The transaction's weight (between vsize*4-3 and vsize*4)" },
    { type: 'num', key: 'version', description: 'The version' },
    { type: 'num_time', key: 'locktime', description: 'The lock time' },
    {
      type: 'arr',
      key: 'vin',
      description: '',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            { type: 'str_hex', key: 'coinbase', optional: true, description: 'The coinbase value (only if coinbase transaction)' },
            { type: 'str_hex', key: 'txid', optional: true, description: 'The transaction id (if not coinbase transaction)' },
            { type: 'num', key: 'vout', optional: true, description: 'The output number (if not coinbase transaction)' },
            {
              type: 'obj',
              key: 'scriptSig',
              optional: true,
              description: 'The script (if not coinbase transaction)',
              inner: [
                { type: 'str', key: 'asm', description: 'Disassembly of the signature script' },
                { type: 'str_hex', key: 'hex', description: 'The raw signature script bytes, hex-encoded' },
              ],
            },
            {
              type: 'arr',
              key: 'txinwitness',
              optional: true,
              description: '',
              inner: [{ type: 'str_hex', key: 'hex', description: 'hex-encoded witness data (if any)' }],
            },
            { type: 'num', key: 'sequence', description: 'The script sequence number' },
          ],
        },
      ],
    },
    {
      type: 'arr',
      key: 'vout',
      description: '',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            { type: 'str_amount', key: 'value', description: 'The value in BTC' },
            { type: 'num', key: 'n', description: 'index' },
            { type: 'obj', key: 'scriptPubKey', description: '', inner: scriptPubKeyDoc() },
          ],
        },
      ],
    },
  ];
}

/** The spent output TxToUniv adds to an input when undo data is at hand. */
export function prevoutDoc(description: string, optional: boolean): RpcResultSpec {
  return {
    type: 'obj',
    key: 'prevout',
    optional,
    description,
    inner: [
      { type: 'bool', key: 'generated', description: 'Coinbase or not' },
      { type: 'num', key: 'height', description: 'The height of the prevout' },
      { type: 'str_amount', key: 'value', description: 'The value in BTC' },
      { type: 'obj', key: 'scriptPubKey', inner: scriptPubKeyDoc() },
    ],
  };
}

/** getrawtransaction's results for verbosity 1 and 2. */
export function verboseRawTransactionDocs(): RpcResultSpec[] {
  return [
    {
      type: 'obj',
      cond: 'if verbosity is set to 1',
      inner: [
        {
          type: 'bool',
          key: 'in_active_chain',
          optional: true,
          description: 'Whether specified block is in the active chain or not (only present with explicit "blockhash" argument)',
        },
        { type: 'str_hex', key: 'blockhash', optional: true, description: 'the block hash' },
        { type: 'num', key: 'confirmations', optional: true, description: 'The confirmations' },
        { type: 'num_time', key: 'blocktime', optional: true, description: 'The block time expressed in UNIX epoch time' },
        { type: 'num', key: 'time', optional: true, description: 'Same as "blocktime"' },
        { type: 'str_hex', key: 'hex', description: "The serialized, hex-encoded data for 'txid'" },
        ...decodeTxDoc('The transaction id (same as provided)'),
      ],
    },
    {
      type: 'obj',
      cond: 'for verbosity = 2',
      inner: [
        { type: 'elision', description: 'Same output as verbosity = 1' },
        { type: 'num', key: 'fee', optional: true, description: 'transaction fee in BTC, omitted if block undo data is not available' },
        {
          type: 'arr',
          key: 'vin',
          inner: [
            {
              type: 'obj',
              description: 'utxo being spent',
              inner: [
                { type: 'elision', description: 'Same output as verbosity = 1' },
                prevoutDoc('The previous output, omitted if block undo data is not available', true),
              ],
            },
          ],
        },
      ],
    },
  ];
}
