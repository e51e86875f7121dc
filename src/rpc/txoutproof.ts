/**
 * gettxoutproof and verifytxoutproof (Core's rpc/txoutproof.cpp): BIP37 merkle blocks
 * proving transactions are in a block, read from one chain snapshot, so front-ends answer
 * them. Without a blockhash the block is found as Core finds it: through an unspent
 * output of one of the transactions, else through -txindex.
 */
import { BlockDataUnavailable, type SnapshotChainView, type ViewEntry } from '../chain/index.js';
import { compareBytes, hashToHex, toHex, type ParsedBlock } from '../primitives/index.js';
import { buildMerkleBlock, extractMatches, MerkleBlockReadError, parseMerkleBlock, serializeMerkleBlock } from '../primitives/merkle-block.js';
import { view } from './blockchain-read.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import type { Json } from './json.js';
import { defineRpcMethod } from './registry.js';
import type { RpcMethod } from './spec.js';
import { getStr, parseHexV } from './value-parse.js';
import { parseHash } from './values.js';

/** Core's CheckBlockDataAvailability(check_for_undo=false) and ReadBlock. */
function readBlockChecked(snapshot: SnapshotChainView, entry: ViewEntry): ParsedBlock {
  try {
    return snapshot.readBlock(entry);
  } catch (err) {
    if (err instanceof BlockDataUnavailable) {
      if (err.why === 'missing-on-disk') throw new RpcError(RPC_INTERNAL_ERROR, "Can't read block from disk");
      throw new RpcError(RPC_MISC_ERROR, err.message);
    }
    throw err;
  }
}

/** The block holding the transaction, through -txindex (Core's GetTransaction without mempool). */
function blockFromTxIndex(snapshot: SnapshotChainView, txid: Uint8Array): ViewEntry {
  const position = snapshot.txindex?.lookup(txid);
  if (!position) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not yet in block');
  const header = snapshot.readBlockHeaderAt(position);
  const entry = snapshot.entry(header.hash);
  if (!entry) throw new RpcError(RPC_INTERNAL_ERROR, 'Transaction index corrupt');
  return entry;
}

/** gettxoutproof's result for parsed arguments. */
export function txOutProof(snapshot: SnapshotChainView, txidArgs: readonly Json[], blockhash: string | undefined): string {
  if (txidArgs.length === 0) throw new RpcError(RPC_INVALID_PARAMETER, "Parameter 'txids' cannot be empty");
  const wanted = new Map<string, Uint8Array>();
  for (const arg of txidArgs) {
    const text = getStr(arg);
    const txid = parseHash(text, 'txid');
    const key = toHex(txid);
    if (wanted.has(key)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated txid: ${text}`);
    wanted.set(key, txid);
  }
  // Core keeps them in a std::set: ascending by their internal bytes.
  const ordered = [...wanted.values()].sort(compareBytes);
  let entry: ViewEntry | undefined;
  if (blockhash !== undefined) {
    entry = snapshot.entry(parseHash(blockhash, 'blockhash'));
    if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  } else {
    for (const txid of ordered) {
      // AccessByTxid: the first unspent output of the transaction.
      const found = snapshot.reader.coinsOf(txid).next();
      if (!found.done) {
        entry = snapshot.activeEntry(found.value.coin.height);
        break;
      }
    }
    entry ??= blockFromTxIndex(snapshot, ordered[0]!);
  }
  const block = readBlockChecked(snapshot, entry);
  const found = block.transactions.filter((tx) => wanted.has(toHex(tx.txid))).length;
  if (found !== wanted.size) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Not all transactions found in specified or retrieved block');
  const merkleBlock = buildMerkleBlock(
    block.header,
    block.transactions.map((tx) => tx.txid),
    (txid) => wanted.has(toHex(txid)),
  );
  return toHex(serializeMerkleBlock(merkleBlock));
}

/** verifytxoutproof's result for the proof's bytes. */
export function verifyTxOutProof(snapshot: SnapshotChainView, bytes: Uint8Array): string[] {
  let merkleBlock;
  try {
    merkleBlock = parseMerkleBlock(bytes);
  } catch (err) {
    // A std::ios_base::failure; libstdc++'s what() appends ": iostream error".
    if (err instanceof MerkleBlockReadError) throw new RpcError(RPC_MISC_ERROR, `${err.message}: iostream error`);
    throw err;
  }
  const extracted = extractMatches(merkleBlock.tree);
  const root = extracted.root ?? new Uint8Array(32);
  if (compareBytes(root, merkleBlock.header.merkleRoot) !== 0) return [];
  const entry = snapshot.entry(merkleBlock.header.hash);
  if (!entry || !snapshot.isActive(entry) || entry.txCount === 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found in chain');
  if (entry.txCount !== merkleBlock.tree.transactions) return [];
  return extracted.matches.map(hashToHex);
}

export function txOutProofMethods(): RpcMethod[] {
  const gettxoutproof = defineRpcMethod({
    name: 'gettxoutproof',
    category: 'blockchain',
    description:
      'Returns a hex-encoded proof that "txid" was included in a block.\n' +
      '\nNOTE: By default this function only works sometimes. This is when there is an\n' +
      'unspent output in the utxo for this transaction. To make it always work,\n' +
      'you need to maintain a transaction index, using the -txindex command line option or\n' +
      'specify the block in which the transaction is included manually (by blockhash).\n',
    args: [
      {
        name: 'txids',
        type: 'arr',
        description: 'The txids to filter',
        inner: [{ name: 'txid', type: 'hex', optional: true, description: 'A transaction hash' }],
      },
      { name: 'blockhash', type: 'hex', optional: true, description: 'If specified, looks for txid in the block with this hash' },
    ],
    results: [{ type: 'str', key: 'data', description: 'A string that is a serialized, hex-encoded data for the proof.' }],
    examples: '',
    readsSnapshot: true,
    handler: (args, ctx) => txOutProof(view(ctx), args.array('txids'), args.optString('blockhash')),
  });

  const verifytxoutproof = defineRpcMethod({
    name: 'verifytxoutproof',
    category: 'blockchain',
    description:
      'Verifies that a proof points to a transaction in a block, returning the transaction it commits to\n' +
      'and throwing an RPC error if the block is not in our best chain\n',
    args: [{ name: 'proof', type: 'hex', description: 'The hex-encoded proof generated by gettxoutproof' }],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [{ type: 'str_hex', key: 'txid', description: 'The txid(s) which the proof commits to, or empty array if the proof cannot be validated.' }],
      },
    ],
    examples: '',
    readsSnapshot: true,
    handler: (args, ctx) => verifyTxOutProof(view(ctx), parseHexV(args.string('proof'), 'proof')),
  });

  return [gettxoutproof, verifytxoutproof];
}
