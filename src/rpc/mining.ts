/**
 * The Mining family and the regtest generators: submitblock, submitheader,
 * generatetoaddress, generatetodescriptor, generateblock and setmocktime, with Core's
 * arguments, results and error texts.
 */
import { BlockNotAcceptedError, generateBlocks, generateBlockWith, TemplateInvalidError, type SelectTransactions } from '../mining/index.js';
import { deploymentActiveAfter } from '../consensus/index.js';
import {
  DecodeError,
  fromHex,
  hashToHex,
  isHex,
  parseBlock,
  parseHeader,
  parseTransaction,
  serializeBlock,
  toHex,
  Transaction,
  witnessCommitmentIndex,
  type Block,
  type ParsedBlock,
} from '../primitives/index.js';
import { decodeAddress, DescriptorError, parseDescriptor } from '../script/index.js';
import type { ChainAccess } from './chain-access.js';
import {
  RPC_DESERIALIZATION_ERROR,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_METHOD_NOT_FOUND,
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  RPC_VERIFY_ERROR,
  RpcError,
} from './errors.js';
import { typeMismatchMessage } from './json.js';
import { defineRpcMethod } from './registry.js';
import { fullHelp } from './help.js';
import { miningInfoMethods } from './mining-info.js';
import { miningTemplateMethods } from './mining-template.js';
import { DEFAULT_NODE_FACTS } from './node-facts.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

/** Core's DEFAULT_MAX_TRIES for the generate calls. */
const DEFAULT_MAX_TRIES = 1_000_000;

/** Core's getScriptFromDescriptor: one script from a non-ranged, single-path descriptor (combo picks P2PKH or P2WPKH as Core). */
function scriptFromDescriptor(access: ChainAccess, text: string): Uint8Array | string {
  let parsed;
  try {
    parsed = parseDescriptor(text, access.network.name, { requireChecksum: false });
  } catch (err) {
    if (err instanceof DescriptorError) return err.message;
    throw err;
  }
  if (parsed.descriptors.length > 1) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Multipath descriptor not accepted');
  const descriptor = parsed.descriptors[0]!;
  if (descriptor.isRange()) throw new RpcError(RPC_INVALID_PARAMETER, 'Ranged descriptor not accepted. Maybe pass through deriveaddresses first?');
  const scripts = descriptor.expand(0, parsed.keys);
  if (!scripts || scripts.length === 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Cannot derive script without private keys');
  if (scripts.length === 1) return scripts[0]!;
  // Combo: 4 scripts for a compressed key (take P2WPKH, the third), else 2 (take P2PKH, the second).
  return scripts.length === 4 ? scripts[2]! : scripts[1]!;
}

/** Core's DecodeHexTx: with witness first, then without; the transaction must have an input. */
export function decodeHexTx(hex: string): Transaction | undefined {
  if (!isHex(hex)) return undefined;
  const bytes = fromHex(hex);
  for (const allowWitness of [true, false]) {
    try {
      const tx = parseTransaction(bytes, { allowWitness });
      if (tx.inputs.length > 0) return tx;
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
    }
  }
  return undefined;
}

/** Core's DecodeHexBlk: the whole string must be one block. */
export function decodeHexBlock(hex: string): ParsedBlock | undefined {
  if (!isHex(hex)) return undefined;
  try {
    return parseBlock(fromHex(hex));
  } catch (err) {
    if (err instanceof DecodeError) return undefined;
    throw err;
  }
}

/** Core's UpdateUncommittedBlockStructures: a committed block missing its coinbase witness nonce gets the all-zero one. */
function withCoinbaseNonce(access: ChainAccess, block: Block): Block {
  const prev = access.chain().tree.getByHash(block.header.prevHash);
  const coinbase = block.transactions[0]!;
  if (!prev || coinbase.inputs[0]!.witness.length > 0 || witnessCommitmentIndex(block) < 0) return block;
  if (!deploymentActiveAfter(prev, access.network, 'segwit')) return block;
  const fixed = new Transaction({
    version: coinbase.version,
    locktime: coinbase.locktime,
    inputs: coinbase.inputs.map((input, i) => (i === 0 ? { ...input, witness: [new Uint8Array(32)] } : input)),
    outputs: coinbase.outputs,
  });
  return { header: block.header, transactions: [fixed, ...block.transactions.slice(1)] };
}

function checkGenerateCount(nblocks: number): void {
  if (nblocks < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid nblocks. Must be non-negative.');
}

/** BlockAssembler's choice from the mempool for the next block, when the node has a mempool. */
export function mempoolSelector(access: ChainAccess): SelectTransactions | undefined {
  const mempool = access.mempool?.();
  if (!mempool) return undefined;
  const facts = access.node ?? DEFAULT_NODE_FACTS;
  return () => mempool.selectForBlockLocked(facts.blockMinTxFee, facts.blockWeights);
}

async function generate(access: ChainAccess, script: Uint8Array, nblocks: number, maxTries: number): Promise<string[]> {
  try {
    return await generateBlocks(access.chain(), script, nblocks, maxTries, mempoolSelector(access));
  } catch (err) {
    if (err instanceof BlockNotAcceptedError) throw new RpcError(RPC_INTERNAL_ERROR, err.message);
    throw err;
  }
}

export function miningMethods(access: ChainAccess): RpcMethod[] {
  const submitblock = defineRpcMethod({
    name: 'submitblock',
    category: 'mining',
    description: 'Attempts to submit new block to network.\nSee https://en.bitcoin.it/wiki/BIP_0022 for full specification.\n',
    args: [
      { name: 'hexdata', type: 'str', description: 'the hex-encoded block data to submit' },
      { name: 'dummy', type: 'str', defaultHint: 'ignored', description: 'dummy value, for compatibility with BIP22. This value is ignored.' },
    ],
    results: [
      { type: 'none', description: '', cond: 'If the block was accepted' },
      { type: 'str', description: 'According to BIP22', cond: 'Otherwise' },
    ],
    examples: helpExampleCli('submitblock', '"mydata"') + helpExampleRpc('submitblock', '"mydata"'),
    handler: async (args) => {
      const parsed = decodeHexBlock(args.string('hexdata'));
      if (!parsed) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block decode failed');
      if (parsed.transactions.length === 0 || !parsed.transactions[0]!.isCoinbase()) {
        throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block does not start with a coinbase');
      }
      const chain = access.chain();
      const known = chain.tree.getByHash(parsed.header.hash);
      if (known?.isValid(5)) return 'duplicate';
      if (known?.failed) return 'duplicate-invalid';
      const block = withCoinbaseNonce(access, parsed);
      const result = await chain.processBlock(block, block === parsed ? fromHex(args.string('hexdata')) : undefined);
      if (!result.newBlock && result.accepted) return 'duplicate';
      if (!result.checked) return 'inconclusive';
      if (result.checked.ok) return null;
      return result.checked.reason || 'rejected';
    },
  });

  const submitheader = defineRpcMethod({
    name: 'submitheader',
    category: 'mining',
    description: 'Decode the given hexdata as a header and submit it as a candidate chain tip if valid.\nThrows when the header is invalid.\n',
    args: [{ name: 'hexdata', type: 'str', description: 'the hex-encoded block header data' }],
    results: [{ type: 'none', description: 'None' }],
    examples: helpExampleCli('submitheader', '"aabbcc"') + helpExampleRpc('submitheader', '"aabbcc"'),
    handler: async (args) => {
      const hex = args.string('hexdata');
      let header;
      try {
        header = isHex(hex) ? parseHeader(fromHex(hex)) : undefined;
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
      }
      if (!header) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block header decode failed');
      const chain = access.chain();
      if (!chain.tree.getByHash(header.prevHash)) {
        throw new RpcError(RPC_VERIFY_ERROR, `Must submit previous header (${hashToHex(header.prevHash)}) first`);
      }
      const result = await chain.processHeader(header);
      if ('entry' in result) return null;
      throw new RpcError(RPC_VERIFY_ERROR, result.reason);
    },
  });

  const generatetoaddress = defineRpcMethod({
    name: 'generatetoaddress',
    category: 'hidden',
    description: 'Mine to a specified address and return the block hashes.',
    args: [
      { name: 'nblocks', type: 'num', description: 'How many blocks are generated.' },
      { name: 'address', type: 'str', description: 'The address to send the newly generated bitcoin to.' },
      { name: 'maxtries', type: 'num', default: DEFAULT_MAX_TRIES, description: 'How many iterations to try.' },
    ],
    results: [{ type: 'arr', description: 'hashes of blocks generated', inner: [{ type: 'str_hex', description: 'blockhash' }] }],
    examples:
      '\nGenerate 11 blocks to myaddress\n' +
      helpExampleCli('generatetoaddress', '11 "myaddress"') +
      'If you are using the Bitcoin Core wallet, you can get a new address to send the newly generated bitcoin to with:\n' +
      helpExampleCli('getnewaddress', ''),
    handler: async (args) => {
      const nblocks = args.int('nblocks');
      const decoded = decodeAddress(args.string('address'), access.network.name);
      if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Error: Invalid address');
      checkGenerateCount(nblocks);
      return generate(access, decoded.scriptPubKey, nblocks, args.int('maxtries'));
    },
  });

  const generatetodescriptor = defineRpcMethod({
    name: 'generatetodescriptor',
    category: 'hidden',
    description: 'Mine to a specified descriptor and return the block hashes.',
    args: [
      { name: 'num_blocks', type: 'num', description: 'How many blocks are generated.' },
      { name: 'descriptor', type: 'str', description: 'The descriptor to send the newly generated bitcoin to.' },
      { name: 'maxtries', type: 'num', default: DEFAULT_MAX_TRIES, description: 'How many iterations to try.' },
    ],
    results: [{ type: 'arr', description: 'hashes of blocks generated', inner: [{ type: 'str_hex', description: 'blockhash' }] }],
    examples: '\nGenerate 11 blocks to mydesc\n' + helpExampleCli('generatetodescriptor', '11 "mydesc"'),
    handler: async (args) => {
      const nblocks = args.int('num_blocks');
      const script = scriptFromDescriptor(access, args.string('descriptor'));
      if (typeof script === 'string') throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, script);
      checkGenerateCount(nblocks);
      return generate(access, script, nblocks, args.int('maxtries'));
    },
  });

  const generateblock = defineRpcMethod({
    name: 'generateblock',
    category: 'hidden',
    description: 'Mine a set of ordered transactions to a specified address or descriptor and return the block hash.',
    args: [
      { name: 'output', type: 'str', description: 'The address or descriptor to send the newly generated bitcoin to.' },
      {
        name: 'transactions',
        type: 'arr',
        description:
          'An array of hex strings which are either txids or raw transactions.\nTxids must reference transactions currently in the mempool.\nAll transactions must be valid and in valid order, otherwise the block will be rejected.',
        inner: [{ name: 'rawtx/txid', type: 'str', optional: true, description: '' }],
      },
      {
        name: 'submit',
        type: 'bool',
        default: true,
        description: 'Whether to submit the block before the RPC call returns or to return it as hex.',
      },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'str_hex', key: 'hash', description: 'hash of generated block' },
          { type: 'str_hex', key: 'hex', optional: true, description: 'hex of generated block, only present when submit=false' },
        ],
      },
    ],
    examples:
      '\nGenerate a block to myaddress, with txs rawtx and mempool_txid\n' +
      helpExampleCli('generateblock', '"myaddress" \'["rawtx", "mempool_txid"]\''),
    handler: async (args) => {
      const output = args.string('output');
      let script = scriptFromDescriptor(access, output);
      if (typeof script === 'string') {
        const decoded = decodeAddress(output, access.network.name);
        if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Error: Invalid address or descriptor');
        script = decoded.scriptPubKey;
      }
      const txs = args.array('transactions').map((item) => {
        if (typeof item !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(item, 'string'));
        if (item.length === 64 && isHex(item)) {
          const pooled = access.mempool?.()?.pool.get(item.toLowerCase());
          if (!pooled) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Transaction ${item} not in mempool.`);
          return { tx: pooled.tx, fee: pooled.fee };
        }
        const tx = decodeHexTx(item);
        if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, `Transaction decode failed for ${item}. Make sure the tx has at least one input.`);
        return { tx, fee: 0n };
      });
      const submit = args.boolean('submit');
      let block;
      try {
        block = await generateBlockWith(access.chain(), script, txs, submit, DEFAULT_MAX_TRIES);
      } catch (err) {
        if (err instanceof TemplateInvalidError) throw new RpcError(RPC_VERIFY_ERROR, err.message);
        if (err instanceof BlockNotAcceptedError) throw new RpcError(RPC_INTERNAL_ERROR, err.message);
        throw err;
      }
      if (!block) throw new RpcError(RPC_MISC_ERROR, 'Failed to make block.');
      return submit ? { hash: block.header.hashHex } : { hash: block.header.hashHex, hex: toHex(serializeBlock(block)) };
    },
  });

  const setmocktime = defineRpcMethod({
    name: 'setmocktime',
    category: 'hidden',
    description: 'Set the local time to given timestamp (-regtest only)\n',
    args: [
      {
        name: 'timestamp',
        type: 'num',
        description: 'UNIX epoch time\nPass 0 to go back to using the system time.',
      },
    ],
    results: [{ type: 'none', description: '' }],
    examples: '',
    handler: (args) => {
      if (!access.network.isMockableChain) throw new RpcError(RPC_MISC_ERROR, 'setmocktime is for regression testing (-regtest mode) only');
      const time = args.int('timestamp');
      const max = 9223372036;
      if (time < 0 || time > max) throw new RpcError(RPC_INVALID_PARAMETER, `Mocktime must be in the range [0, ${max}], not ${time}.`);
      access.clock().setMockTime(time);
      return null;
    },
  });

  return [
    submitblock,
    submitheader,
    generateRemoved,
    generatetoaddress,
    generatetodescriptor,
    generateblock,
    setmocktime,
    ...miningTemplateMethods(access),
    ...miningInfoMethods(access),
  ];
}

/** generate: gone from the server since v0.19; Core keeps the name to answer with its help, as "method not found". */
const generateRemoved: RpcMethod = defineRpcMethod({
  name: 'generate',
  category: 'hidden',
  description: 'has been replaced by the -generate cli option. Refer to -help for more information.',
  args: [],
  results: [],
  examples: '',
  handler: () => {
    throw new RpcError(RPC_METHOD_NOT_FOUND, fullHelp(generateRemoved));
  },
});
