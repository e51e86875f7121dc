/** getzmqnotifications (Core's zmq/zmqrpc.cpp): the active publishers, in Core's order. */
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

export interface ZmqNotification {
  readonly type: string;
  readonly address: string;
  readonly hwm: number;
}

/** `notifications` lists the node's publishers (none without -zmqpub options). */
export function zmqMethods(notifications: () => readonly ZmqNotification[] = () => []): RpcMethod[] {
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
    handler: () => notifications().map((n) => ({ type: n.type, address: n.address, hwm: n.hwm })),
  });
  return [getzmqnotifications];
}
