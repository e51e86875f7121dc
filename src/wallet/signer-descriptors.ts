/**
 * A new external signer wallet's descriptors (the external-signer branch of Core's
 * SetupDescriptorScriptPubKeyMans): the device's `getdescriptors` answer gives receiving and
 * change descriptors; each with an output type becomes the active one of its type and role,
 * topped up to the keypool, with no private key anywhere. The texts of its failures are
 * Core's (thrown as runtime errors there).
 */
import { parseDescriptor } from '../script/index.js';
import { descriptorOutputType } from './descriptor-output-type.js';
import type { ImportedDescriptor, Wallet } from './wallet.js';

const UNEXPECTED = 'SetupDescriptorScriptPubKeyMans: Unexpected result';

/** UniValue::getValStr: a string's text, a number's digits, '' for anything else. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '';
}

export function setupSignerDescriptors(wallet: Wallet, answer: unknown, creationTime: number): void {
  const added: ImportedDescriptor[] = [];
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error(UNEXPECTED);
  for (const internal of [false, true]) {
    const list = (answer as Record<string, unknown>)[internal ? 'internal' : 'receive'];
    if (!Array.isArray(list)) throw new Error(UNEXPECTED);
    for (const value of list) {
      const text = valueText(value);
      let descriptor;
      try {
        descriptor = parseDescriptor(text, wallet.chainName).descriptors[0]!;
      } catch (err) {
        throw new Error(`SetupDescriptorScriptPubKeyMans: Invalid descriptor "${text}" (${(err as Error).message})`);
      }
      const outputType = descriptorOutputType(descriptor);
      if (!outputType) continue;
      added.push({
        text: descriptor.toString(),
        keys: [],
        creationTime,
        rangeStart: 0,
        rangeEnd: 0,
        nextIndex: 0,
        isRange: descriptor.isRange(),
        label: undefined,
        internal,
        active: true,
        outputType,
      });
    }
  }
  const error = wallet.importDescriptors(added).find((e) => e !== null);
  if (error) throw new Error(error);
}
