/**
 * The methods every process answers by itself: the pure Util and Rawtransactions methods
 * (no chain at all), the always-empty private broadcast queue and ZeroMQ publisher list,
 * and the txout proofs (one chain snapshot). HTTP front-ends register
 * this list in their local registry, the coordinator registers it too, so a call gets the
 * same answer wherever it lands.
 */
import type { ChainName } from '../script/index.js';
import { messageMethods } from './message-methods.js';
import { multisigMethods } from './multisig-methods.js';
import { psbtMethods } from './psbt-methods.js';
import { privateBroadcastMethods } from './private-broadcast-methods.js';
import { rawTransactionMethods } from './rawtransaction-methods.js';
import type { RpcMethod } from './spec.js';
import { txOutProofMethods } from './txoutproof.js';
import { utilMethods } from './util-methods.js';

export function pureRpcMethods(chain: ChainName): RpcMethod[] {
  return [...utilMethods(chain), ...multisigMethods(chain), ...messageMethods(chain), ...rawTransactionMethods(chain), ...psbtMethods(chain), ...txOutProofMethods(), ...privateBroadcastMethods()];
}
