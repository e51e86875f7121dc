/**
 * getzmqnotifications (Core's zmq/zmqrpc.cpp). tsbtcd publishes no ZeroMQ notifications
 * yet, so the list of active publishers is empty, as a bitcoind's without -zmqpub options.
 */
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

export function zmqMethods(): RpcMethod[] {
  const getzmqnotifications = defineRpcMethod({
    name: 'getzmqnotifications',
    category: 'zmq',
    description: 'Returns information about the active ZeroMQ notifications.\n',
    args: [],
    results: [
      {
        type: 'arr',
        inner: [
          {
            type: 'obj',
            inner: [
              { type: 'str', key: 'type', description: 'Type of notification' },
              { type: 'str', key: 'address', description: 'Address of the publisher' },
              { type: 'num', key: 'hwm', description: 'Outbound message high water mark' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getzmqnotifications', '') + helpExampleRpc('getzmqnotifications', ''),
    handler: () => [],
  });
  return [getzmqnotifications];
}
