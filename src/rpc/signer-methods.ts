/**
 * enumeratesigners (Core's rpc/external_signer.cpp): runs `<-signer> enumerate` and lists
 * the devices it reports, with ExternalSigner::Enumerate's checks and messages (the wallet's
 * ExternalSigner runs the command).
 */
import { ExternalSigner } from '../wallet/index.js';
import type { ChainName } from '../script/index.js';
import { RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

/** `signer` is -signer's value, '' when not given. */
export function signerMethods(signer: string, chain: ChainName): RpcMethod[] {
  const enumeratesigners = defineRpcMethod({
    name: 'enumeratesigners',
    category: 'signer',
    description: 'Returns a list of external signers from -signer.',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          {
            type: 'arr',
            key: 'signers',
            inner: [
              {
                type: 'obj',
                inner: [
                  { type: 'str_hex', key: 'fingerprint', description: 'Master key fingerprint' },
                  { type: 'str', key: 'name', description: 'Device name' },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('enumeratesigners', '') + helpExampleRpc('enumeratesigners', ''),
    handler: async () => {
      if (signer === '') throw new RpcError(RPC_MISC_ERROR, 'Error: restart bitcoind with -signer=<cmd>');
      try {
        return { signers: (await ExternalSigner.enumerate(signer, chain)).map((s) => ({ fingerprint: s.fingerprint, name: s.name })) };
      } catch (err) {
        throw new RpcError(RPC_MISC_ERROR, (err as Error).message);
      }
    },
  });
  return [enumeratesigners];
}
