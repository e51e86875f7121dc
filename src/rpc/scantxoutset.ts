/**
 * scantxoutset (Core's rpc/blockchain.cpp): "start" scans the whole UTXO set once, in one
 * chain snapshot taken after the coins cache is flushed (Core's ForceFlushStateToDisk),
 * for the scripts the scan objects expand to; "status" and "abort" act on a scan in
 * progress. One scan at a time, node-wide, as Core's g_scan_in_progress: the method
 * therefore runs in the coordinator only (a front-end's status call could not see a scan
 * another process runs). The scan yields to the event loop every 8192 coins, where Core
 * checks for abort and shutdown, and every 256 positions while expanding ranged scan
 * objects, so status and abort calls are answered meanwhile. As in Core, the abort flag
 * is cleared once the expansion is done: an abort during expansion has no effect.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { compareBytes, hashToHex, toHex, type OutPoint } from '../primitives/index.js';
import type { Coin } from '../consensus/index.js';
import type { ChainName } from '../script/index.js';
import { RPC_CLIENT_NOT_CONNECTED, RPC_MISC_ERROR, RpcError } from './errors.js';
import type { NodeFacts } from './node-facts.js';
import { defineRpcMethod } from './registry.js';
import { SCAN_ACTION_ARG, SCAN_OBJECTS_ARG, SCAN_RESULT_ABORT, SCAN_RESULT_STATUS_NONE, runScanAction, yieldToEventLoop } from './scan-args.js';
import { scanObjectPositions, type ScanNeedle } from './scan-descriptors.js';
import type { SnapshotSource } from './server.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { checkJsonType } from './value-parse.js';
import { amountJson } from './values.js';

export interface ScanTxOutSetDeps {
  readonly chain: ChainName;
  /** Writes the coins cache to the store, so a snapshot holds the current tip. */
  flush(): Promise<void>;
  /** The coordinator's snapshots of the stored chain (undefined before the chainstate loads). */
  snapshots(): SnapshotSource | undefined;
  readonly node: NodeFacts;
}

/** Core's g_scan_in_progress, g_scan_progress and g_should_abort_scan. */
class ScanState {
  inProgress = false;
  progress = 0;
  shouldAbort = false;
}

interface ScanResult {
  success: boolean;
  count: number;
  found: { outpoint: OutPoint; coin: Coin }[];
}

/** Core's FindScriptPubKey over the snapshot's coins. */
async function findScriptPubKeys(view: SnapshotChainView, needles: ReadonlyMap<string, ScanNeedle>, state: ScanState, node: NodeFacts): Promise<ScanResult> {
  state.progress = 0;
  let count = 0;
  const found: ScanResult['found'] = [];
  for (const { outpoint, coin } of view.reader.allCoins()) {
    if (++count % 8192 === 0) {
      if (node.shuttingDown()) throw new RpcError(RPC_CLIENT_NOT_CONNECTED, 'Shutting down');
      await yieldToEventLoop();
      if (state.shouldAbort) return { success: false, count, found };
    }
    if (count % 256 === 0) {
      // The first two bytes of the txid (internal order): coins are visited in that order.
      const high = 0x100 * outpoint.txid[0]! + outpoint.txid[1]!;
      state.progress = Math.floor((high * 100.0) / 65536.0 + 0.5);
    }
    if (needles.has(toHex(coin.output.scriptPubKey))) found.push({ outpoint, coin });
  }
  state.progress = 100;
  return { success: true, count, found };
}

export function scanTxOutSetMethods(deps: ScanTxOutSetDeps): RpcMethod[] {
  const state = new ScanState();

  const start = async (scanObjectsArg: unknown, given: boolean) => {
    if (!given) throw new RpcError(RPC_MISC_ERROR, 'scanobjects argument is required for the start action');
    checkJsonType(scanObjectsArg as never, 'array');
    const needles = new Map<string, ScanNeedle>();
    let positions = 0;
    for (const scanObject of scanObjectsArg as never[]) {
      for (const needlesAtPosition of scanObjectPositions(scanObject, deps.chain)) {
        for (const needle of needlesAtPosition) {
          const key = toHex(needle.script);
          // std::map::emplace: the first scan object naming a script describes it.
          if (!needles.has(key)) needles.set(key, needle);
        }
        // Deriving a long range takes a while: let other calls (status, abort) run.
        if (++positions % 256 === 0) await yieldToEventLoop();
      }
    }
    state.shouldAbort = false;
    state.progress = 0;
    await deps.flush();
    const source = deps.snapshots();
    if (!source) throw new RpcError(RPC_MISC_ERROR, 'Chainstate not available');
    return source.withSnapshot(async (view) => {
      const tip = view.tip();
      const result = await findScriptPubKeys(view, needles, state, deps.node);
      result.found.sort((a, b) => compareBytes(a.outpoint.txid, b.outpoint.txid) || a.outpoint.vout - b.outpoint.vout);
      let total = 0n;
      const unspents = result.found.map(({ outpoint, coin }) => {
        total += coin.output.value;
        return {
          txid: hashToHex(outpoint.txid),
          vout: outpoint.vout,
          scriptPubKey: toHex(coin.output.scriptPubKey),
          desc: needles.get(toHex(coin.output.scriptPubKey))!.describe(),
          amount: amountJson(coin.output.value),
          coinbase: coin.coinbase,
          height: coin.height,
          blockhash: view.activeEntry(coin.height)!.hashHex,
          confirmations: tip.height - coin.height + 1,
        };
      });
      return {
        success: result.success,
        txouts: result.count,
        height: tip.height,
        bestblock: tip.hashHex,
        unspents,
        total_amount: amountJson(total),
      };
    });
  };

  const scantxoutset = defineRpcMethod({
    name: 'scantxoutset',
    category: 'blockchain',
    description:
      'Scans the unspent transaction output set for entries that match certain output descriptors.\n' +
      'Examples of output descriptors are:\n' +
      '    addr(<address>)                      Outputs whose output script corresponds to the specified address (does not include P2PK)\n' +
      '    raw(<hex script>)                    Outputs whose output script equals the specified hex-encoded bytes\n' +
      '    combo(<pubkey>)                      P2PK, P2PKH, P2WPKH, and P2SH-P2WPKH outputs for the given pubkey\n' +
      '    pkh(<pubkey>)                        P2PKH outputs for the given pubkey\n' +
      '    sh(multi(<n>,<pubkey>,<pubkey>,...)) P2SH-multisig outputs for the given threshold and pubkeys\n' +
      '    tr(<pubkey>)                         P2TR\n' +
      '    tr(<pubkey>,{pk(<pubkey>)})          P2TR with single fallback pubkey in tapscript\n' +
      '    rawtr(<pubkey>)                      P2TR with the specified key as output key rather than inner\n' +
      '    wsh(and_v(v:pk(<pubkey>),after(2)))  P2WSH miniscript with mandatory pubkey and a timelock\n' +
      '\nIn the above, <pubkey> either refers to a fixed public key in hexadecimal notation, or to an xpub/xprv optionally followed by one\n' +
      'or more path elements separated by "/", and optionally ending in "/*" (unhardened), or "/*\'" or "/*h" (hardened) to specify all\n' +
      'unhardened or hardened child keys.\n' +
      'In the latter case, a range needs to be specified by below if different from 1000.\n' +
      'For more information on output descriptors, see the documentation in the doc/descriptors.md file.\n',
    args: [SCAN_ACTION_ARG, SCAN_OBJECTS_ARG],
    results: [
      {
        type: 'obj',
        cond: "when action=='start'; only returns after scan completes",
        description: '',
        inner: [
          { type: 'bool', key: 'success', description: 'Whether the scan was completed' },
          { type: 'num', key: 'txouts', description: 'The number of unspent transaction outputs scanned' },
          { type: 'num', key: 'height', description: 'The block height at which the scan was done' },
          { type: 'str_hex', key: 'bestblock', description: 'The hash of the block at the tip of the chain' },
          {
            type: 'arr',
            key: 'unspents',
            description: '',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  { type: 'str_hex', key: 'txid', description: 'The transaction id' },
                  { type: 'num', key: 'vout', description: 'The vout value' },
                  { type: 'str_hex', key: 'scriptPubKey', description: 'The output script' },
                  { type: 'str', key: 'desc', description: 'A specialized descriptor for the matched output script' },
                  { type: 'str_amount', key: 'amount', description: 'The total amount in BTC of the unspent output' },
                  { type: 'bool', key: 'coinbase', description: 'Whether this is a coinbase output' },
                  { type: 'num', key: 'height', description: 'Height of the unspent transaction output' },
                  { type: 'str_hex', key: 'blockhash', description: 'Blockhash of the unspent transaction output' },
                  { type: 'num', key: 'confirmations', description: 'Number of confirmations of the unspent transaction output when the scan was done' },
                ],
              },
            ],
          },
          { type: 'str_amount', key: 'total_amount', description: 'The total amount of all found unspent outputs in BTC' },
        ],
      },
      SCAN_RESULT_ABORT,
      {
        type: 'obj',
        cond: "when action=='status' and a scan is currently in progress",
        description: '',
        inner: [{ type: 'num', key: 'progress', description: 'Approximate percent complete' }],
      },
      SCAN_RESULT_STATUS_NONE,
    ],
    examples:
      helpExampleCli('scantxoutset', 'start \'["raw(76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac)#fm24fxxy"]\'') +
      helpExampleCli('scantxoutset', 'status') +
      helpExampleCli('scantxoutset', 'abort') +
      helpExampleRpc('scantxoutset', '"start", ["raw(76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac)#fm24fxxy"]') +
      helpExampleRpc('scantxoutset', '"status"') +
      helpExampleRpc('scantxoutset', '"abort"'),
    handler: (args) => runScanAction(args.string('action'), state, () => ({ progress: state.progress }), () => start(args.raw[1], args.raw.length >= 2)),
  });

  return [scantxoutset];
}
