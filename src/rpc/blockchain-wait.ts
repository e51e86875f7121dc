/** The Blockchain family's long polls, answered wherever the call lands from that process's TipWaiters. */
import { RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';
import type { TipRef, TipWaiters } from './tip-waiters.js';
import { parseHash } from './values.js';

const TIMEOUT_ARG = { name: 'timeout', type: 'num', default: 0, description: 'Time in milliseconds to wait for a response. 0 indicates no timeout.' } as const;
const TIP_RESULT: readonly RpcResultSpec[] = [
  {
    type: 'obj',
    inner: [
      { type: 'str_hex', key: 'hash', description: 'The blockhash' },
      { type: 'num', key: 'height', description: 'Block height' },
    ],
  },
];
const NO_TIMEOUT_NOTE = '\nReturns the current block on timeout or exit.\n\nMake sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)';

function timeoutOf(value: number | undefined): number {
  const timeout = value ?? 0;
  if (timeout < 0) throw new RpcError(RPC_MISC_ERROR, 'Negative timeout');
  return timeout;
}

function reply(tip: TipRef | null): { hash: string; height: number } {
  if (!tip) throw new RpcError(RPC_MISC_ERROR, 'No chain tip yet');
  return { hash: tip.hash, height: tip.height };
}

export function waitMethods(waiters: () => TipWaiters): RpcMethod[] {
  const waitfornewblock = defineRpcMethod({
    name: 'waitfornewblock',
    category: 'blockchain',
    description: 'Waits for any new block and returns useful info about it.\n' + NO_TIMEOUT_NOTE,
    args: [TIMEOUT_ARG, { name: 'current_tip', type: 'str', optional: true, description: 'Method waits for the chain tip to differ from this.' }],
    results: TIP_RESULT,
    examples: helpExampleCli('waitfornewblock', '1000') + helpExampleRpc('waitfornewblock', '1000'),
    handler: async (args) => {
      const timeout = timeoutOf(args.optInt('timeout'));
      const w = waiters();
      let from = w.current()?.hash;
      if (args.has('current_tip')) {
        const text = args.string('current_tip');
        parseHash(text, 'current_tip');
        from = text.toLowerCase();
      }
      return reply(await w.waitUntil((tip) => tip.hash !== from, timeout));
    },
  });

  const waitforblock = defineRpcMethod({
    name: 'waitforblock',
    category: 'blockchain',
    description: 'Waits for a specific new block and returns useful info about it.\n' + NO_TIMEOUT_NOTE,
    args: [{ name: 'blockhash', type: 'hex', description: 'Block hash to wait for.' }, TIMEOUT_ARG],
    results: TIP_RESULT,
    examples:
      helpExampleCli('waitforblock', '"0000000000079f8ef3d2c688c244eb7a4570b24c9ed7b4a8c619eb02596f8862" 1000') +
      helpExampleRpc('waitforblock', '"0000000000079f8ef3d2c688c244eb7a4570b24c9ed7b4a8c619eb02596f8862", 1000'),
    handler: async (args) => {
      const text = args.string('blockhash');
      parseHash(text, 'blockhash');
      const timeout = timeoutOf(args.optInt('timeout'));
      const want = text.toLowerCase();
      return reply(await waiters().waitUntil((tip) => tip.hash === want, timeout));
    },
  });

  const waitforblockheight = defineRpcMethod({
    name: 'waitforblockheight',
    category: 'blockchain',
    description: 'Waits for (at least) block height and returns the height and hash\nof the current tip.\n' + NO_TIMEOUT_NOTE,
    args: [{ name: 'height', type: 'num', description: 'Block height to wait for.' }, TIMEOUT_ARG],
    results: TIP_RESULT,
    examples: helpExampleCli('waitforblockheight', '100 1000') + helpExampleRpc('waitforblockheight', '100, 1000'),
    handler: async (args) => {
      const height = args.int('height');
      const timeout = timeoutOf(args.optInt('timeout'));
      return reply(await waiters().waitUntil((tip) => tip.height >= height, timeout));
    },
  });

  return [waitforblock, waitforblockheight, waitfornewblock];
}
