/** decodepsbt's result description (Core v31 rpc/rawtransaction.cpp), for help. */
import type { RpcResultSpec } from './spec.js';

/** An optional array of objects with these fields. */
const listOf = (key: string, inner: RpcResultSpec[], description = ''): RpcResultSpec => ({
  type: 'arr',
  key,
  optional: true,
  description,
  inner: [{ type: 'obj', description: '', inner }],
});

const proprietaryDoc = (description: string): RpcResultSpec => ({
  type: 'arr',
  key: 'proprietary',
  optional: description !== 'The global proprietary map',
  description,
  inner: [
    {
      type: 'obj',
      description: '',
      inner: [
        { type: 'str_hex', key: 'identifier', description: 'The hex string for the proprietary identifier' },
        { type: 'num', key: 'subtype', description: 'The number for the subtype' },
        { type: 'str_hex', key: 'key', description: 'The hex for the key' },
        { type: 'str_hex', key: 'value', description: 'The hex for the value' },
      ],
    },
  ],
});

const unknownDoc = (description: string, optional: boolean): RpcResultSpec => ({
  type: 'obj_dyn',
  key: 'unknown',
  optional,
  description,
  inner: [{ type: 'str_hex', key: 'key', description: '(key-value pair) An unknown key-value pair' }],
});

const scriptDoc = (key: string, what: string): RpcResultSpec => ({
  type: 'obj',
  key,
  optional: true,
  description: '',
  inner: [
    { type: 'str', key: 'asm', description: `Disassembly of the ${what} script` },
    { type: 'str_hex', key: 'hex', description: `The raw ${what} script bytes, hex-encoded` },
    { type: 'str', key: 'type', description: "The type, eg 'pubkeyhash'" },
  ],
});

/** A list of key derivations: pubkey, master fingerprint, path, and any further fields. */
const derivationsDoc = (key: string, pubkeyDescription: string, more: RpcResultSpec[] = []): RpcResultSpec =>
  listOf(key, [
    { type: 'str', key: 'pubkey', description: pubkeyDescription },
    { type: 'str', key: 'master_fingerprint', description: 'The fingerprint of the master key' },
    { type: 'str', key: 'path', description: 'The path' },
    ...more,
  ]);

const bip32Doc = (pubkeyDescription: string) => derivationsDoc('bip32_derivs', pubkeyDescription);

const tapBip32Doc = derivationsDoc('taproot_bip32_derivs', 'The x-only public key this path corresponds to', [
  { type: 'arr', key: 'leaf_hashes', description: 'The hashes of the leaves this pubkey appears in', inner: [{ type: 'str_hex', key: 'hash', description: 'The hash of a leaf this pubkey appears in' }] },
]);

const musigParticipantsDoc = listOf('musig2_participant_pubkeys', [
  { type: 'str_hex', key: 'aggregate_pubkey', description: 'The compressed aggregate public key for which the participants create.' },
  {
    type: 'arr',
    key: 'participant_pubkeys',
    description: '',
    inner: [{ type: 'str_hex', key: 'pubkey', description: 'The compressed public keys that are aggregated for aggregate_pubkey.' }],
  },
]);

const musigValueDoc = (key: string, valueKey: string, what: string, valueDescription: string) =>
  listOf(key, [
    { type: 'str_hex', key: 'participant_pubkey', description: `The compressed public key of the participant that created this ${what}.` },
    { type: 'str_hex', key: 'aggregate_pubkey', description: `The compressed aggregate public key for which this ${what} is for.` },
    {
      type: 'str_hex',
      key: 'leaf_hash',
      optional: true,
      description: 'The hash of the leaf script that contains the aggregate pubkey being signed for. Omitted when signing for the internal key.',
    },
    { type: 'str_hex', key: valueKey, description: valueDescription },
  ]);

const preimagesDoc = (key: string): RpcResultSpec => ({
  type: 'obj_dyn',
  key,
  optional: true,
  description: '',
  inner: [{ type: 'str', key: 'hash', description: 'The hash and preimage that corresponds to it.' }],
});

export const DECODEPSBT_RESULT: RpcResultSpec = {
  type: 'obj',
  description: '',
  inner: [
    {
      type: 'obj',
      key: 'tx',
      description: 'The decoded network-serialized unsigned transaction.',
      inner: [{ type: 'elision', description: 'The layout is the same as the output of decoderawtransaction.' }],
    },
    {
      type: 'arr',
      key: 'global_xpubs',
      description: '',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            { type: 'str', key: 'xpub', description: 'The extended public key this path corresponds to' },
            { type: 'str_hex', key: 'master_fingerprint', description: 'The fingerprint of the master key' },
            { type: 'str', key: 'path', description: 'The path' },
          ],
        },
      ],
    },
    { type: 'num', key: 'psbt_version', description: 'The PSBT version number. Not to be confused with the unsigned transaction version' },
    proprietaryDoc('The global proprietary map'),
    unknownDoc('The unknown global fields', false),
    {
      type: 'arr',
      key: 'inputs',
      description: '',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            { type: 'obj', key: 'non_witness_utxo', optional: true, description: 'Decoded network transaction for non-witness UTXOs', inner: [{ type: 'elision', description: '' }] },
            {
              type: 'obj',
              key: 'witness_utxo',
              optional: true,
              description: 'Transaction output for witness UTXOs',
              inner: [
                { type: 'num', key: 'amount', description: 'The value in BTC' },
                {
                  type: 'obj',
                  key: 'scriptPubKey',
                  description: '',
                  inner: [
                    { type: 'str', key: 'asm', description: 'Disassembly of the output script' },
                    { type: 'str', key: 'desc', description: 'Inferred descriptor for the output' },
                    { type: 'str_hex', key: 'hex', description: 'The raw output script bytes, hex-encoded' },
                    { type: 'str', key: 'type', description: "The type, eg 'pubkeyhash'" },
                    { type: 'str', key: 'address', optional: true, description: 'The Bitcoin address (only if a well-defined address exists)' },
                  ],
                },
              ],
            },
            {
              type: 'obj_dyn',
              key: 'partial_signatures',
              optional: true,
              description: '',
              inner: [{ type: 'str', key: 'pubkey', description: 'The public key and signature that corresponds to it.' }],
            },
            { type: 'str', key: 'sighash', optional: true, description: 'The sighash type to be used' },
            scriptDoc('redeem_script', 'redeem'),
            scriptDoc('witness_script', 'witness'),
            bip32Doc('The public key with the derivation path as the value.'),
            {
              type: 'obj',
              key: 'final_scriptSig',
              optional: true,
              description: '',
              inner: [
                { type: 'str', key: 'asm', description: 'Disassembly of the final signature script' },
                { type: 'str_hex', key: 'hex', description: 'The raw final signature script bytes, hex-encoded' },
              ],
            },
            { type: 'arr', key: 'final_scriptwitness', optional: true, description: '', inner: [{ type: 'str_hex', key: '', description: 'hex-encoded witness data (if any)' }] },
            preimagesDoc('ripemd160_preimages'),
            preimagesDoc('sha256_preimages'),
            preimagesDoc('hash160_preimages'),
            preimagesDoc('hash256_preimages'),
            { type: 'str_hex', key: 'taproot_key_path_sig', optional: true, description: 'hex-encoded signature for the Taproot key path spend' },
            {
              type: 'arr',
              key: 'taproot_script_path_sigs',
              optional: true,
              description: '',
              inner: [
                {
                  type: 'obj',
                  optional: true,
                  description: 'The signature for the pubkey and leaf hash combination',
                  inner: [
                    { type: 'str', key: 'pubkey', description: 'The x-only pubkey for this signature' },
                    { type: 'str', key: 'leaf_hash', description: 'The leaf hash for this signature' },
                    { type: 'str', key: 'sig', description: 'The signature itself' },
                  ],
                },
              ],
            },
            listOf('taproot_scripts', [
              { type: 'str_hex', key: 'script', description: 'A leaf script' },
              { type: 'num', key: 'leaf_ver', description: 'The version number for the leaf script' },
              { type: 'arr', key: 'control_blocks', description: 'The control blocks for this script', inner: [{ type: 'str_hex', key: 'control_block', description: 'A hex-encoded control block for this script' }] },
            ]),
            tapBip32Doc,
            { type: 'str_hex', key: 'taproot_internal_key', optional: true, description: 'The hex-encoded Taproot x-only internal key' },
            { type: 'str_hex', key: 'taproot_merkle_root', optional: true, description: 'The hex-encoded Taproot merkle root' },
            musigParticipantsDoc,
            musigValueDoc('musig2_pubnonces', 'pubnonce', 'pubnonce', 'The public nonce itself.'),
            musigValueDoc('musig2_partial_sigs', 'partial_sig', 'partial signature', 'The partial signature itself.'),
            unknownDoc('The unknown input fields', true),
            proprietaryDoc('The input proprietary map'),
          ],
        },
      ],
    },
    {
      type: 'arr',
      key: 'outputs',
      description: '',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            scriptDoc('redeem_script', 'redeem'),
            scriptDoc('witness_script', 'witness'),
            bip32Doc('The public key this path corresponds to'),
            { type: 'str_hex', key: 'taproot_internal_key', optional: true, description: 'The hex-encoded Taproot x-only internal key' },
            {
              type: 'arr',
              key: 'taproot_tree',
              optional: true,
              description: 'The tuples that make up the Taproot tree, in depth first search order',
              inner: [
                {
                  type: 'obj',
                  optional: true,
                  description: 'A single leaf script in the taproot tree',
                  inner: [
                    { type: 'num', key: 'depth', description: 'The depth of this element in the tree' },
                    { type: 'num', key: 'leaf_ver', description: 'The version of this leaf' },
                    { type: 'str', key: 'script', description: 'The hex-encoded script itself' },
                  ],
                },
              ],
            },
            tapBip32Doc,
            musigParticipantsDoc,
            unknownDoc('The unknown output fields', true),
            proprietaryDoc('The output proprietary map'),
          ],
        },
      ],
    },
    { type: 'str_amount', key: 'fee', optional: true, description: 'The transaction fee paid if all UTXOs slots in the PSBT have been filled.' },
  ],
};
