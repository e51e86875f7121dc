/**
 * The REST endpoints under Core v31's URL prefixes, in Core's registration order (the
 * first prefix the raw request target starts with wins).
 */
import type { Reply, RestRequest, RestRouter } from '../http/index.js';
import { restBlockExtended, restBlockHashByHeight, restBlockNoTxDetails, restBlockPart, restHeaders, restSpentTxOuts } from './blocks.js';
import { restChainInfo, restDeploymentInfo, restMempool } from './chain.js';
import type { RestContext } from './context.js';
import { restBlockFilter, restBlockFilterHeaders } from './filters.js';
import { restGetUtxos, restTx } from './tx.js';

type Endpoint = (req: RestRequest, ctx: RestContext) => Reply;

export const REST_ENDPOINTS: readonly (readonly [string, Endpoint])[] = [
  ['/rest/tx/', restTx],
  ['/rest/block/notxdetails/', restBlockNoTxDetails],
  ['/rest/block/', restBlockExtended],
  ['/rest/blockpart/', restBlockPart],
  ['/rest/blockfilter/', restBlockFilter],
  ['/rest/blockfilterheaders/', restBlockFilterHeaders],
  ['/rest/chaininfo', restChainInfo],
  ['/rest/mempool/', restMempool],
  ['/rest/headers/', restHeaders],
  ['/rest/getutxos', restGetUtxos],
  ['/rest/deploymentinfo/', restDeploymentInfo],
  ['/rest/deploymentinfo', restDeploymentInfo],
  ['/rest/blockhashbyheight/', restBlockHashByHeight],
  ['/rest/spenttxouts/', restSpentTxOuts],
];

export function registerRestEndpoints(router: RestRouter, ctx: RestContext): void {
  for (const [prefix, endpoint] of REST_ENDPOINTS) router.register(prefix, (req) => endpoint(req, ctx));
}
