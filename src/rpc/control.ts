/**
 * The Control family (help, stop, uptime, getrpcinfo, logging) and the hidden echo /
 * echojson test methods, with Core's help texts. They need a few coordinator facilities,
 * passed in as ControlDeps so this file stays free of process concerns.
 */
import { RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage, type Json } from './json.js';
import type { RpcRegistry } from './registry.js';
import type { RpcServer } from './server.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcArgSpec, type RpcMethod } from './spec.js';

export interface LogCategoryControl {
  /** Every category and whether it is debug-logged, in listing order. */
  categoryStatus(): Record<string, boolean>;
  enableCategory(name: string): boolean;
  disableCategory(name: string): boolean;
  /** "addrman, bench, ..." for the help text. */
  readonly categoriesString: string;
}

export interface ControlDeps {
  readonly registry: RpcRegistry;
  readonly server: RpcServer;
  /** The product name in `stop`'s reply and help: "tsbtcd". */
  readonly productName: string;
  /** Process start, seconds since the epoch. */
  readonly startTime: number;
  /** The node's clock in seconds (mock time honoured, as Core's GetTime in uptime). */
  now(): number;
  /** The complete path of debug.log. */
  readonly logPath: string;
  readonly logging: LogCategoryControl;
  /** Begins a clean shutdown once in-flight replies (this one included) are out. */
  requestShutdown(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function controlMethods(deps: ControlDeps): RpcMethod[] {
  const stopReply = `${deps.productName} stopping`;
  const help = defineRpcMethod({
    name: 'help',
    category: 'control',
    description: 'List all commands, or get help for a specified command.',
    args: [{ name: 'command', type: 'str', defaultHint: 'all commands', description: 'The command to get help on' }],
    results: [
      { type: 'str', description: 'The help text' },
      { type: 'any', description: '' },
    ],
    examples: '',
    handler: (args) => {
      const command = args.optString('command') ?? '';
      // Core's undocumented argument table for its tests.
      if (command === 'dump_all_command_conversions') return deps.registry.argMap();
      return deps.registry.help(command);
    },
  });

  const stop = defineRpcMethod({
    name: 'stop',
    category: 'control',
    description: `Request a graceful shutdown of ${deps.productName}.`,
    // Hidden `wait` (ms) delays the reply; Core keeps it for tests.
    args: [{ name: 'wait', type: 'num', optional: true, hidden: true, description: 'how long to wait in ms' }],
    results: [{ type: 'str', description: `A string with the content '${stopReply}'` }],
    examples: '',
    handler: async (args) => {
      deps.requestShutdown();
      const wait = args.optInt('wait');
      if (wait !== undefined && wait > 0) await sleep(wait);
      return stopReply;
    },
  });

  const uptime = defineRpcMethod({
    name: 'uptime',
    category: 'control',
    description: 'Returns the total uptime of the server.',
    args: [],
    results: [{ type: 'num', description: 'The number of seconds that the server has been running' }],
    examples: helpExampleCli('uptime', '') + helpExampleRpc('uptime', ''),
    handler: () => deps.now() - deps.startTime,
  });

  const getrpcinfo = defineRpcMethod({
    name: 'getrpcinfo',
    category: 'control',
    description: 'Returns details of the RPC server.',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          {
            type: 'arr',
            key: 'active_commands',
            description: 'All active commands',
            inner: [
              {
                type: 'obj',
                description: 'Information about an active command',
                inner: [
                  { type: 'str', key: 'method', description: 'The name of the RPC command' },
                  { type: 'num', key: 'duration', description: 'The running time in microseconds' },
                ],
              },
            ],
          },
          { type: 'str', key: 'logpath', description: 'The complete file path to the debug log' },
        ],
      },
    ],
    examples: helpExampleCli('getrpcinfo', '') + helpExampleRpc('getrpcinfo', ''),
    handler: () => ({ active_commands: deps.server.activeCommands(), logpath: deps.logPath }),
  });

  const categoryList = (name: string, description: string, element: string): RpcArgSpec => ({
    name,
    type: 'arr',
    optional: true,
    description,
    inner: [{ name: element, type: 'str', optional: true, description: 'the valid logging category' }],
  });
  const applyCategories = (list: Json[] | undefined, enable: boolean) => {
    for (const item of list ?? []) {
      if (typeof item !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(item, 'string'));
      const ok = enable ? deps.logging.enableCategory(item) : deps.logging.disableCategory(item);
      if (!ok) throw new RpcError(RPC_INVALID_PARAMETER, `unknown logging category ${item}`);
    }
  };
  const logging = defineRpcMethod({
    name: 'logging',
    category: 'control',
    description:
      'Gets and sets the logging configuration.\n' +
      'When called without an argument, returns the list of categories with status that are currently being debug logged or not.\n' +
      'When called with arguments, adds or removes categories from debug logging and return the lists above.\n' +
      'The arguments are evaluated in order "include", "exclude".\n' +
      'If an item is both included and excluded, it will thus end up being excluded.\n' +
      `The valid logging categories are: ${deps.logging.categoriesString}\n` +
      'In addition, the following are available as category names with special meanings:\n' +
      '  - "all",  "1" : represent all logging categories.\n',
    args: [
      categoryList('include', 'The categories to add to debug logging', 'include_category'),
      categoryList('exclude', 'The categories to remove from debug logging', 'exclude_category'),
    ],
    results: [
      {
        type: 'obj_dyn',
        description: 'keys are the logging categories, and values indicates its status',
        inner: [{ type: 'bool', key: 'category', description: 'if being debug logged or not. false:inactive, true:active' }],
      },
    ],
    examples: helpExampleCli('logging', '"[\\"all\\"]" "[\\"http\\"]"') + helpExampleRpc('logging', '["all"], ["libevent"]'),
    handler: (args) => {
      applyCategories(args.optArray('include'), true);
      applyCategories(args.optArray('exclude'), false);
      return deps.logging.categoryStatus();
    },
  });

  return [help, stop, uptime, getrpcinfo, logging, echoMethod('echo'), echoMethod('echojson'), echoipc];
}

/** echoipc: Core passes the string through a spawned process in a multiprocess build, and echoes it in place otherwise, as here. */
const echoipc = defineRpcMethod({
  name: 'echoipc',
  category: 'hidden',
  description: 'Echo back the input argument, passing it through a spawned process in a multiprocess build.\nThis command is for testing.\n',
  args: [{ name: 'arg', type: 'str', description: 'The string to echo' }],
  results: [{ type: 'str', description: 'The echoed string.' }],
  examples: helpExampleCli('echo', '"Hello world"') + helpExampleRpc('echo', '"Hello world"'),
  handler: (a) => a.string('arg'),
});

/** echo / echojson: return the (positional) arguments; arg9 "trigger_internal_bug" reports an internal bug. */
function echoMethod(name: string): RpcMethod {
  const args: RpcArgSpec[] = Array.from({ length: 10 }, (_, i) => ({
    name: `arg${i}`,
    type: 'str',
    optional: true,
    skipTypeCheck: true,
    description: '',
  }));
  return defineRpcMethod({
    name,
    category: 'hidden',
    description:
      'Simply echo back the input arguments. This command is for testing.\n' +
      "\nIt will return an internal bug report when arg9='trigger_internal_bug' is passed.\n" +
      '\nThe difference between echo and echojson is that echojson has argument conversion enabled in the client-side table in ' +
      'bitcoin-cli and the GUI. There is no server-side difference.',
    args,
    results: [{ type: 'any', description: 'Returns whatever was passed in' }],
    examples: '',
    handler: (a) => {
      if (a.raw[9] === 'trigger_internal_bug') {
        throw new Error(
          'Internal bug detected: request.params[9].get_str() != "trigger_internal_bug"\n' +
            `src/rpc/control.ts (${name})\nPlease report this issue to the tsbtcd maintainers.\n`,
        );
      }
      return a.raw;
    },
  });
}
