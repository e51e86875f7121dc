/**
 * A hardware wallet for -signer tests, speaking HWI's command line as Core's ExternalSigner
 * calls it: `enumerate`, `--fingerprint F --chain C getdescriptors --account N`,
 * `--fingerprint F --chain C displayaddress --desc D` and `--stdin --fingerprint F --chain C`
 * with `signtx <base64 psbt>` on stdin. Its keys are a wallet's private descriptors, kept in
 * a JSON file; it signs and derives through the reference bitcoind's RPC
 * (descriptorprocesspsbt, deriveaddresses), so tsbtcd and bitcoind talk to the same device.
 * Every call is appended to the file's `log` so tests can compare what each node asked.
 *
 * Usage: node mock-hardware-signer.js <device.json> <HWI arguments...>
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

export interface MockDevice {
  readonly fingerprint: string;
  /** Public descriptors getdescriptors returns. */
  readonly receive: readonly string[];
  readonly internal: readonly string[];
  /** The private descriptors signtx signs with. */
  readonly privateDescriptors: readonly string[];
  /** The reference bitcoind's RPC port and cookie file. */
  readonly rpcPort: number;
  readonly cookieFile: string;
  /** A file each call's arguments are appended to. */
  readonly log: string;
  /** Set: every call answers {"error": <this>}. */
  readonly failWith?: string;
}

function rpc(device: MockDevice, method: string, params: unknown[]): Promise<any> {
  const body = JSON.stringify({ jsonrpc: '1.0', id: 1, method, params });
  const auth = Buffer.from(readFileSync(device.cookieFile, 'utf8').trim()).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: device.rpcPort, method: 'POST', path: '/', headers: { Authorization: `Basic ${auth}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const reply = JSON.parse(text) as { result: unknown; error: { message: string } | null };
        if (reply.error) reject(new Error(reply.error.message));
        else resolve(reply.result);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (d: Buffer) => (text += d.toString()));
    process.stdin.on('end', () => resolve(text));
  });
}

function option(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function answer(device: MockDevice, args: readonly string[]): Promise<unknown> {
  if (args.includes('enumerate')) return [{ fingerprint: device.fingerprint, model: 'mock' }];
  if (device.failWith !== undefined) return { error: device.failWith };
  if (option(args, '--fingerprint') !== device.fingerprint) return { error: 'wrong fingerprint' };
  if (args.includes('getdescriptors')) return { receive: device.receive, internal: device.internal };
  if (args.includes('displayaddress')) {
    const [address] = (await rpc(device, 'deriveaddresses', [option(args, '--desc')])) as string[];
    return { address };
  }
  if (args.includes('--stdin')) {
    const [command, psbt] = (await readStdin()).trim().split(' ');
    if (command !== 'signtx') return { error: `unknown command ${command}` };
    const signed = (await rpc(device, 'descriptorprocesspsbt', [psbt, device.privateDescriptors, 'DEFAULT', true, false])) as { psbt: string };
    return { psbt: signed.psbt };
  }
  return { error: `unknown command ${args.join(' ')}` };
}

const [deviceFile, ...args] = process.argv.slice(2);
if (deviceFile !== undefined) {
  const device = JSON.parse(readFileSync(deviceFile, 'utf8')) as MockDevice;
  appendFileSync(device.log, `${args.join(' ')}\n`);
  answer(device, args).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (err: Error) => {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    },
  );
}
