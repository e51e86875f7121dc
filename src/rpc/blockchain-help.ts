/** Help texts shared by Blockchain methods. */
import type { RpcResultSpec } from './spec.js';
import { prevoutDoc } from './transaction-help.js';

export const CHAIN_TIP_STATUS_HELP =
  'status of the chain, "active" for the main chain\n' +
  'Possible values for status:\n' +
  '1.  "invalid"               This branch contains at least one invalid block\n' +
  '2.  "headers-only"          Not all blocks for this branch are available, but the headers are valid\n' +
  '3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated\n' +
  '4.  "valid-fork"            This branch is not part of the active chain, but is fully validated\n' +
  '5.  "active"                This is the tip of the active main chain, which is certainly valid';

/**
 * The fields of Core's blockheaderToJSON as getblockheader and getblock describe them:
 * getblock inserts the block's sizes and coinbase after confirmations and its txids after
 * the merkle root, and words chainwork differently.
 */
export function blockHeaderDoc(
  chainworkDescription: string,
  afterConfirmations: readonly RpcResultSpec[] = [],
  afterMerkleroot: readonly RpcResultSpec[] = [],
): RpcResultSpec[] {
  return [
    { type: 'str_hex', key: 'hash', description: 'the block hash (same as provided)' },
    { type: 'num', key: 'confirmations', description: 'The number of confirmations, or -1 if the block is not on the main chain' },
    ...afterConfirmations,
    { type: 'num', key: 'height', description: 'The block height or index' },
    { type: 'num', key: 'version', description: 'The block version' },
    { type: 'str_hex', key: 'versionHex', description: 'The block version formatted in hexadecimal' },
    { type: 'str_hex', key: 'merkleroot', description: 'The merkle root' },
    ...afterMerkleroot,
    { type: 'num_time', key: 'time', description: 'The block time expressed in UNIX epoch time' },
    { type: 'num_time', key: 'mediantime', description: 'The median block time expressed in UNIX epoch time' },
    { type: 'num', key: 'nonce', description: 'The nonce' },
    { type: 'str_hex', key: 'bits', description: 'nBits: compact representation of the block difficulty target' },
    { type: 'str_hex', key: 'target', description: 'The difficulty target' },
    { type: 'num', key: 'difficulty', description: 'The difficulty' },
    { type: 'str_hex', key: 'chainwork', description: chainworkDescription },
    { type: 'num', key: 'nTx', description: 'The number of transactions in the block' },
    { type: 'str_hex', key: 'previousblockhash', optional: true, description: 'The hash of the previous block (if available)' },
    { type: 'str_hex', key: 'nextblockhash', optional: true, description: 'The hash of the next block (if available)' },
  ];
}

/** getblock's results for verbosity 0 to 3. */
export function getblockResultDocs(): RpcResultSpec[] {
  return [
    { type: 'str_hex', cond: 'for verbosity = 0', description: "A string that is serialized, hex-encoded data for block 'hash'" },
    {
      type: 'obj',
      cond: 'for verbosity = 1',
      inner: blockHeaderDoc(
        'Expected number of hashes required to produce the chain up to this block (in hex)',
        [
          { type: 'num', key: 'size', description: 'The block size' },
          { type: 'num', key: 'strippedsize', description: 'The block size excluding witness data' },
          { type: 'num', key: 'weight', description: 'The block weight as defined in BIP 141' },
          {
            type: 'obj',
            key: 'coinbase_tx',
            description: 'Coinbase transaction metadata',
            inner: [
              { type: 'num', key: 'version', description: 'The coinbase transaction version' },
              { type: 'num', key: 'locktime', description: "The coinbase transaction's locktime (nLockTime)" },
              { type: 'num', key: 'sequence', description: "The coinbase input's sequence number (nSequence)" },
              { type: 'str_hex', key: 'coinbase', description: "The coinbase input's script" },
              { type: 'str_hex', key: 'witness', optional: true, description: "The coinbase input's first (and only) witness stack element, if present" },
            ],
          },
        ],
        [{ type: 'arr', key: 'tx', description: 'The transaction ids', inner: [{ type: 'str_hex', description: 'The transaction id' }] }],
      ),
    },
    {
      type: 'obj',
      cond: 'for verbosity = 2',
      inner: [
        { type: 'elision', description: 'Same output as verbosity = 1' },
        {
          type: 'arr',
          key: 'tx',
          inner: [
            {
              type: 'obj',
              inner: [
                { type: 'elision', description: 'The transactions in the format of the getrawtransaction RPC. Different from verbosity = 1 "tx" result' },
                { type: 'num', key: 'fee', optional: true, description: 'The transaction fee in BTC, omitted if block undo data is not available' },
              ],
            },
          ],
        },
      ],
    },
    {
      type: 'obj',
      cond: 'for verbosity = 3',
      inner: [
        { type: 'elision', description: 'Same output as verbosity = 2' },
        {
          type: 'arr',
          key: 'tx',
          inner: [
            {
              type: 'obj',
              inner: [
                {
                  type: 'arr',
                  key: 'vin',
                  inner: [
                    {
                      type: 'obj',
                      inner: [
                        { type: 'elision', description: 'The same output as verbosity = 2' },
                        prevoutDoc('(Only if undo information is available)', false),
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
  ];
}

/** One deployment of getdeploymentinfo (Core's RPCHelpForDeployment). */
export function deploymentDoc(): RpcResultSpec[] {
  return [
    { type: 'str', key: 'type', description: 'one of "buried", "bip9"' },
    {
      type: 'num',
      key: 'height',
      optional: true,
      description: 'height of the first block which the rules are or will be enforced (only for "buried" type, or "bip9" type with "active" status)',
    },
    { type: 'bool', key: 'active', description: 'true if the rules are enforced for the mempool and the next block' },
    {
      type: 'obj',
      key: 'bip9',
      optional: true,
      description: 'status of bip9 softforks (only for "bip9" type)',
      inner: [
        {
          type: 'num',
          key: 'bit',
          optional: true,
          description: 'the bit (0-28) in the block version field used to signal this softfork (only for "started" and "locked_in" status)',
        },
        { type: 'num_time', key: 'start_time', description: 'the minimum median time past of a block at which the bit gains its meaning' },
        {
          type: 'num_time',
          key: 'timeout',
          description: 'the median time past of a block at which the deployment is considered failed if not yet locked in',
        },
        { type: 'num', key: 'min_activation_height', description: 'minimum height of blocks for which the rules may be enforced' },
        {
          type: 'str',
          key: 'status',
          description: 'status of deployment at specified block (one of "defined", "started", "locked_in", "active", "failed")',
        },
        { type: 'num', key: 'since', description: 'height of the first block to which the status applies' },
        { type: 'str', key: 'status_next', description: 'status of deployment at the next block' },
        {
          type: 'obj',
          key: 'statistics',
          optional: true,
          description: 'numeric statistics about signalling for a softfork (only for "started" and "locked_in" status)',
          inner: [
            { type: 'num', key: 'period', description: 'the length in blocks of the signalling period' },
            {
              type: 'num',
              key: 'threshold',
              optional: true,
              description: 'the number of blocks with the version bit set required to activate the feature (only for "started" status)',
            },
            { type: 'num', key: 'elapsed', description: 'the number of blocks elapsed since the beginning of the current period' },
            { type: 'num', key: 'count', description: 'the number of blocks with the version bit set in the current period' },
            {
              type: 'bool',
              key: 'possible',
              optional: true,
              description:
                'returns false if there are not enough blocks left in this period to pass activation threshold (only for "started" status)',
            },
          ],
        },
        {
          type: 'str',
          key: 'signalling',
          optional: true,
          description: 'indicates blocks that signalled with a # and blocks that did not with a -',
        },
      ],
    },
  ];
}
