/**
 * getblocktemplate (BIP22/23/9/145) as Core v31 answers it: template mode with the
 * segwit (and on signet the signet) rule required, the not-connected / initial-sync
 * refusals off test chains, BIP22 long polling, and proposal mode (BIP23) checking a
 * block against the tip without proof of work.
 */
import { ChainSystemError, type BlockIndexEntry, type Chainstate } from '../chain/index.js';
import { deploymentActiveAfter } from '../consensus/index.js';
import { createBlockTemplate, gbtVersionBits, minimumBlockTime, UnsupportedRuleError, updateBlockTime } from '../mining/index.js';
import { BlockHeader, type Block } from '../primitives/index.js';
import { OP } from '../script/index.js';
import type { ChainAccess } from './chain-access.js';
import {
  RPC_CLIENT_IN_INITIAL_DOWNLOAD,
  RPC_CLIENT_NOT_CONNECTED,
  RPC_DESERIALIZATION_ERROR,
  RPC_INVALID_PARAMETER,
  RPC_TYPE_ERROR,
  RPC_VERIFY_ERROR,
  RpcError,
} from './errors.js';
import { gbtTemplateResult, type GbtTransaction } from './gbt-result.js';
import { parseLongPollId, waitForLongPoll } from './gbt-longpoll.js';
import { typeMismatchMessage, type Json, type JsonObject } from './json.js';
import { decodeHexBlock, mempoolSelector } from './mining.js';
import { DEFAULT_NODE_FACTS } from './node-facts.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';

const UNIX_EPOCH_TIME = 'UNIX epoch time';

/** The payout of the node's own template: clients build their own coinbase, only its value and commitment are shown. */
const TEMPLATE_PAYOUT = Uint8Array.of(OP.OP_1);
/** Core rebuilds a template for new mempool transactions only after this many seconds. */
const TEMPLATE_REFRESH_SECONDS = 5;

interface CachedTemplate {
  readonly prev: BlockIndexEntry;
  readonly block: Block;
  readonly height: number;
  readonly transactions: readonly GbtTransaction[];
  /** The mempool's transactions-updated counter and the node time when it was built. */
  readonly updated: number;
  readonly built: number;
}

// Core keeps the last template in statics and reuses it while the tip (and the mempool) stay.
const templates = new WeakMap<Chainstate, CachedTemplate>();

/** The mempool's transactions-updated counter (CTxMemPool::GetTransactionsUpdated), 0 without a mempool. */
function transactionsUpdatedOf(access: ChainAccess): () => number {
  return () => access.mempool?.()?.pool.transactionsUpdated ?? 0;
}

async function templateOn(access: ChainAccess, chain: Chainstate, prev: BlockIndexEntry): Promise<CachedTemplate> {
  const cached = templates.get(chain);
  const updated = transactionsUpdatedOf(access)();
  const fresh = cached && cached.prev.hashHex === prev.hashHex && (cached.updated === updated || chain.now() - cached.built <= TEMPLATE_REFRESH_SECONDS);
  if (cached && fresh) return cached;
  const select = mempoolSelector(access);
  const built = await chain.exclusive(() => {
    const selection = select?.();
    const template = createBlockTemplate(chain, TEMPLATE_PAYOUT, selection?.transactions ?? [], selection ? { selection } : {});
    const transactions = (selection?.transactions ?? []).map((t) => ({ tx: t.tx, fee: t.fee, sigopsCost: t.sigopsCost ?? 0 }));
    return { prev: chain.tip!, block: template.block, height: template.height, transactions, updated, built: chain.now() };
  });
  templates.set(chain, built);
  return built;
}

/** Core's BIP22ValidationResult over TestBlockValidity: null, or the reject reason ("rejected" when empty). */
async function proposal(chain: Chainstate, data: Json | undefined): Promise<string | null> {
  if (typeof data !== 'string') throw new RpcError(RPC_TYPE_ERROR, 'Missing data String key for proposal');
  const block = decodeHexBlock(data);
  if (!block) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block decode failed');
  const known = chain.tree.getByHash(block.header.hash);
  if (known) {
    if (known.isValid(5)) return 'duplicate';
    if (known.failed) return 'duplicate-invalid';
    return 'duplicate-inconclusive';
  }
  let verdict;
  try {
    verdict = await chain.testBlockValidity(block, true);
  } catch (err) {
    // Core's state.IsError(): not a verdict on the block.
    if (err instanceof ChainSystemError) throw new RpcError(RPC_VERIFY_ERROR, err.message);
    throw err;
  }
  if (verdict.ok) return null;
  return verdict.reason === '' ? 'rejected' : verdict.reason;
}

function clientRules(rules: Json | undefined): Set<string> {
  const set = new Set<string>();
  if (!Array.isArray(rules)) return set;
  for (const rule of rules) {
    if (typeof rule !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(rule, 'string'));
    set.add(rule);
  }
  return set;
}

async function templateMode(access: ChainAccess, request: JsonObject, rules: Set<string>): Promise<unknown> {
  const chain = access.chain();
  const params = chain.params;
  const node = access.node ?? DEFAULT_NODE_FACTS;
  if (!params.isTestChain) {
    if (node.peerCount() === 0) throw new RpcError(RPC_CLIENT_NOT_CONNECTED, `${node.productName} is not connected!`);
    if (chain.isInitialBlockDownload()) {
      throw new RpcError(RPC_CLIENT_IN_INITIAL_DOWNLOAD, `${node.productName} is in initial sync and waiting for blocks...`);
    }
  }
  const lpval = request['longpollid'];
  if (lpval !== undefined && lpval !== null) {
    const transactionsUpdated = transactionsUpdatedOf(access);
    const target = parseLongPollId(lpval, chain.tip!.hashHex, transactionsUpdated());
    await waitForLongPoll(chain, target, transactionsUpdated, () => node.shuttingDown());
  }
  if (params.signetBlocks && !rules.has('signet')) {
    throw new RpcError(RPC_INVALID_PARAMETER, 'getblocktemplate must be called with the signet rule set (call with {"rules": ["segwit", "signet"]})');
  }
  if (!rules.has('segwit')) {
    throw new RpcError(RPC_INVALID_PARAMETER, 'getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})');
  }

  const counter = transactionsUpdatedOf(access)();
  const cached = await templateOn(access, chain, chain.tip!);
  const prev = cached.prev;
  const header = cached.block.header;
  const timing = updateBlockTime(prev, params, chain.now(), { time: header.time, bits: header.bits });
  const segwitActive = deploymentActiveAfter(prev, params, 'segwit');
  let versionBits;
  try {
    versionBits = gbtVersionBits(prev, params, chain.versionBits, header.version, rules, segwitActive);
  } catch (err) {
    if (err instanceof UnsupportedRuleError) throw new RpcError(RPC_INVALID_PARAMETER, err.message);
    throw err;
  }
  const block: Block = {
    header: new BlockHeader({ ...header, time: timing.time, bits: timing.bits, nonce: 0 }),
    transactions: cached.block.transactions,
  };
  return gbtTemplateResult({
    params,
    block,
    height: cached.height,
    transactions: cached.transactions,
    versionBits,
    segwitActive,
    longpollid: prev.hashHex + String(counter),
    mintime: minimumBlockTime(prev, params.difficultyAdjustmentInterval),
  });
}

const TEMPLATE_RESULT: RpcResultSpec = {
  type: 'obj',
  cond: 'Otherwise',
  inner: [
    { type: 'num', key: 'version', description: 'The preferred block version' },
    {
      type: 'arr',
      key: 'rules',
      description: 'specific block rules that are to be enforced',
      inner: [{ type: 'str', description: 'name of a rule the client must understand to some extent; see BIP 9 for format' }],
    },
    {
      type: 'obj_dyn',
      key: 'vbavailable',
      description: 'set of pending, supported versionbit (BIP 9) softfork deployments',
      inner: [{ type: 'num', key: 'rulename', description: 'identifies the bit number as indicating acceptance and readiness for the named softfork rule' }],
    },
    { type: 'arr', key: 'capabilities', description: '', inner: [{ type: 'str', key: 'value', description: "A supported feature, for example 'proposal'" }] },
    { type: 'num', key: 'vbrequired', description: 'bit mask of versionbits the server requires set in submissions' },
    { type: 'str', key: 'previousblockhash', description: 'The hash of current highest block' },
    {
      type: 'arr',
      key: 'transactions',
      description: 'contents of non-coinbase transactions that should be included in the next block',
      inner: [
        {
          type: 'obj',
          description: '',
          inner: [
            { type: 'str_hex', key: 'data', description: 'transaction data encoded in hexadecimal (byte-for-byte)' },
            { type: 'str_hex', key: 'txid', description: 'transaction hash excluding witness data, shown in byte-reversed hex' },
            { type: 'str_hex', key: 'hash', description: 'transaction hash including witness data, shown in byte-reversed hex' },
            {
              type: 'arr',
              key: 'depends',
              description: 'array of numbers',
              inner: [
                {
                  type: 'num',
                  description: "transactions before this one (by 1-based index in 'transactions' list) that must be present in the final block if this one is",
                },
              ],
            },
            {
              type: 'num',
              key: 'fee',
              description:
                "difference in value between transaction inputs and outputs (in satoshis); for coinbase transactions, this is a negative Number of the total collected block fees (ie, not including the block subsidy); if key is not present, fee is unknown and clients MUST NOT assume there isn't one",
            },
            {
              type: 'num',
              key: 'sigops',
              description:
                'total SigOps cost, as counted for purposes of block limits; if key is not present, sigop cost is unknown and clients MUST NOT assume it is zero',
            },
            { type: 'num', key: 'weight', description: 'total transaction weight, as counted for purposes of block limits' },
          ],
        },
      ],
    },
    {
      type: 'obj_dyn',
      key: 'coinbaseaux',
      description: "data that should be included in the coinbase's scriptSig content",
      inner: [{ type: 'str_hex', key: 'key', description: 'values must be in the coinbase (keys may be ignored)' }],
    },
    {
      type: 'num',
      key: 'coinbasevalue',
      description: 'maximum allowable input to coinbase transaction, including the generation award and transaction fees (in satoshis)',
    },
    { type: 'str', key: 'longpollid', description: 'an id to include with a request to longpoll on an update to this template' },
    { type: 'str', key: 'target', description: 'The hash target' },
    {
      type: 'num_time',
      key: 'mintime',
      description: `The minimum timestamp appropriate for the next block time, expressed in ${UNIX_EPOCH_TIME}. Adjusted for the proposed BIP94 timewarp rule.`,
    },
    {
      type: 'arr',
      key: 'mutable',
      description: 'list of ways the block template may be changed',
      inner: [{ type: 'str', key: 'value', description: "A way the block template may be changed, e.g. 'time', 'transactions', 'prevblock'" }],
    },
    { type: 'str_hex', key: 'noncerange', description: 'A range of valid nonces' },
    { type: 'num', key: 'sigoplimit', description: 'limit of sigops in blocks' },
    { type: 'num', key: 'sizelimit', description: 'limit of block size' },
    { type: 'num', key: 'weightlimit', optional: true, description: 'limit of block weight' },
    {
      type: 'num_time',
      key: 'curtime',
      description: `current timestamp in ${UNIX_EPOCH_TIME}. Adjusted for the proposed BIP94 timewarp rule.`,
    },
    { type: 'str', key: 'bits', description: 'compressed target of next block' },
    { type: 'num', key: 'height', description: 'The height of the next block' },
    { type: 'str_hex', key: 'signet_challenge', optional: true, description: 'Only on signet' },
    { type: 'str_hex', key: 'default_witness_commitment', optional: true, description: 'a valid witness commitment for the unmodified block template' },
  ],
};

export function miningTemplateMethods(access: ChainAccess): RpcMethod[] {
  const getblocktemplate = defineRpcMethod({
    name: 'getblocktemplate',
    category: 'mining',
    description:
      "If the request parameters include a 'mode' key, that is used to explicitly select between the default 'template' request or a 'proposal'.\n" +
      'It returns data needed to construct a block to work on.\n' +
      'For full specification, see BIPs 22, 23, 9, and 145:\n' +
      '    https://github.com/bitcoin/bips/blob/master/bip-0022.mediawiki\n' +
      '    https://github.com/bitcoin/bips/blob/master/bip-0023.mediawiki\n' +
      '    https://github.com/bitcoin/bips/blob/master/bip-0009.mediawiki#getblocktemplate_changes\n' +
      '    https://github.com/bitcoin/bips/blob/master/bip-0145.mediawiki\n',
    args: [
      {
        name: 'template_request',
        type: 'obj',
        description: 'Format of the template',
        inner: [
          { name: 'mode', type: 'str', optional: true, description: 'This must be set to "template", "proposal" (see BIP 23), or omitted' },
          {
            name: 'capabilities',
            type: 'arr',
            optional: true,
            description: 'A list of strings',
            inner: [
              {
                name: 'str',
                type: 'str',
                optional: true,
                description: "client side supported feature, 'longpoll', 'coinbasevalue', 'proposal', 'serverlist', 'workid'",
              },
            ],
          },
          {
            name: 'rules',
            type: 'arr',
            description: 'A list of strings',
            inner: [
              { name: 'segwit', type: 'str', description: '(literal) indicates client side segwit support' },
              { name: 'str', type: 'str', optional: true, description: 'other client side supported softfork deployment' },
            ],
          },
          {
            name: 'longpollid',
            type: 'str',
            optional: true,
            description: 'delay processing request until the result would vary significantly from the "longpollid" of a prior template',
          },
          {
            name: 'data',
            type: 'hex',
            optional: true,
            description: 'proposed block data to check, encoded in hexadecimal; valid only for mode="proposal"',
          },
        ],
      },
    ],
    results: [
      { type: 'none', description: '', cond: "If the proposal was accepted with mode=='proposal'" },
      { type: 'str', description: 'According to BIP22', cond: "If the proposal was not accepted with mode=='proposal'" },
      TEMPLATE_RESULT,
    ],
    examples: helpExampleCli('getblocktemplate', '\'{"rules": ["segwit"]}\'') + helpExampleRpc('getblocktemplate', '{"rules": ["segwit"]}'),
    handler: async (args) => {
      const request = args.object('template_request');
      const modeval = request['mode'];
      let mode = 'template';
      if (typeof modeval === 'string') mode = modeval;
      else if (modeval !== undefined && modeval !== null) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid mode');
      if (mode === 'proposal') return proposal(access.chain(), request['data']);
      const rules = clientRules(request['rules']);
      if (mode !== 'template') throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid mode');
      return templateMode(access, request, rules);
    },
  });
  return [getblocktemplate];
}
