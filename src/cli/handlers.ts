/**
 * The small request handlers of bitcoin-cli v31.0: -generate (getnewaddress, then
 * generatetoaddress to it) and -addrinfo (getaddrmaninfo's totals per network).
 */
import { CliError, rpcConvertValues } from './convert.js';
import { DEFAULT_NBLOCKS } from './options.js';
import { jsonRpcReply, jsonRpcRequest, type RequestHandler } from './rpc-call.js';
import { findValue, getInt, getKeys, getObj, getValues, isNull, NULL, pushKV, uvObj, uvStr, type UniValue } from './univalue.js';

/** Core's RPC_METHOD_NOT_FOUND. */
const RPC_METHOD_NOT_FOUND = -32601;

/** SetGenerateToAddressArgs: [nblocks, address, maxtries?] from the words after -generate. */
export function generateToAddressArgs(address: string, words: readonly string[]): string[] {
  if (words.length > 2) throw new CliError('too many arguments (maximum 2 for nblocks and maxtries)');
  const args = [...words];
  if (args.length === 0) args.push(DEFAULT_NBLOCKS);
  else if (args[0] === '0') {
    throw new CliError(`the first argument (number of blocks to generate, default: ${DEFAULT_NBLOCKS}) must be an integer value greater than zero`);
  }
  args.splice(1, 0, address);
  return args;
}

/** GenerateToAddressRequestHandler: the reply is {address, blocks} (a failed call's error is dropped, as in Core). */
export class GenerateToAddressRequestHandler implements RequestHandler {
  private address = '';

  prepareRequest(_method: string, words: readonly string[]): UniValue {
    this.address = words[1] ?? '';
    return jsonRpcRequest('generatetoaddress', rpcConvertValues('generatetoaddress', words), 1);
  }

  processReply(reply: UniValue): UniValue {
    const result = uvObj([
      ['address', uvStr(this.address)],
      ['blocks', findValue(getObj(reply), 'result')],
    ]);
    return jsonRpcReply(result, NULL, 1);
  }
}

/** AddrinfoRequestHandler: getaddrmaninfo's per-network totals as `addresses_known`. */
export class AddrinfoRequestHandler implements RequestHandler {
  prepareRequest(_method: string, words: readonly string[]): UniValue {
    if (words.length > 0) throw new CliError('-addrinfo takes no arguments');
    return jsonRpcRequest('getaddrmaninfo', NULL, 1);
  }

  processReply(reply: UniValue): UniValue {
    const error = findValue(reply, 'error');
    if (!isNull(error)) {
      if (getInt(findValue(error, 'code')) === RPC_METHOD_NOT_FOUND) {
        throw new CliError(
          '-addrinfo requires bitcoind v26.0 or later which supports getaddrmaninfo RPC. Please upgrade your node or use bitcoin-cli from the same version.',
        );
      }
      return reply;
    }
    const result = findValue(reply, 'result');
    const networks = getKeys(result);
    const counts = getValues(result);
    const addresses = uvObj();
    networks.forEach((network, i) => {
      const total = findValue(counts[i]!, 'total');
      getInt(total);
      pushKV(addresses, network === 'all_networks' ? 'total' : network, total);
    });
    return jsonRpcReply(uvObj([['addresses_known', addresses]]), NULL, 1);
  }
}
