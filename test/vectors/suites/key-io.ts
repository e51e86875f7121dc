/**
 * key_io_valid.json and key_io_invalid.json, checked as Core's key_io_tests does:
 * valid strings decode to their payload and re-encode to themselves, addresses are
 * never private keys and vice versa, case-flipping keeps exactly the flagged ones
 * valid, and every invalid string is refused as both on every chain.
 */
import { bytesEqual, fromHex, toHex } from '../../../src/primitives/index.js';
import {
  CHAIN_NAMES,
  decodeAddress,
  decodeSecret,
  encodeAddress,
  encodeSecret,
  isChainName,
  type ChainName,
} from '../../../src/script/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

const VALID_FILE = 'key_io_valid.json';
const INVALID_FILE = 'key_io_invalid.json';

interface ValidMeta {
  chain: string;
  isPrivkey: boolean;
  isCompressed?: boolean;
  tryCaseFlip?: boolean;
}

function flipCase(text: string): string {
  return text.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

/** Problems with one private-key row; empty when it passes. */
function checkPrivkey(text: string, payload: Uint8Array, compressed: boolean, chain: ChainName): string[] {
  const problems: string[] = [];
  const decoded = decodeSecret(text, chain);
  if (!decoded) problems.push('does not decode as a private key');
  else if (!bytesEqual(decoded.secret, payload) || decoded.compressed !== compressed) problems.push(`decodes to ${toHex(decoded.secret)} compressed=${decoded.compressed}`);
  if (decodeAddress(text, chain).ok) problems.push('decodes as an address');
  const encoded = encodeSecret(payload, compressed, chain);
  if (encoded !== text) problems.push(`re-encodes as ${encoded}`);
  return problems;
}

/** Problems with one address row; empty when it passes. */
function checkAddress(text: string, payload: Uint8Array, tryCaseFlip: boolean, chain: ChainName): string[] {
  const problems: string[] = [];
  const decoded = decodeAddress(text, chain);
  if (!decoded.ok) problems.push(`does not decode: ${decoded.error}`);
  else if (!bytesEqual(decoded.scriptPubKey, payload)) problems.push(`decodes to ${toHex(decoded.scriptPubKey)}`);
  if (decodeSecret(text, chain)) problems.push('decodes as a private key');
  const encoded = encodeAddress(payload, chain);
  if (encoded !== text) problems.push(`re-encodes as ${encoded}`);
  const flipped = decodeAddress(flipCase(text), chain);
  if (flipped.ok !== tryCaseFlip) problems.push(`case-flipped form ${flipped.ok ? 'decodes' : 'does not decode'}`);
  if (flipped.ok && !bytesEqual(flipped.scriptPubKey, payload)) problems.push('case-flipped form decodes to another script');
  return problems;
}

const validSuite: VectorSuite = {
  file: VALID_FILE,
  run() {
    const tally = new Tally();
    for (const [text, payloadHex, meta] of readVectorJson<[string, string, ValidMeta][]>(VALID_FILE)) {
      let problems: string[] = [];
      tally.run(
        () => `${text} (${meta.chain}): ${problems.join('; ')}`,
        () => {
          if (!isChainName(meta.chain)) throw new Error(`unknown chain ${meta.chain}`);
          const payload = fromHex(payloadHex);
          problems = meta.isPrivkey
            ? checkPrivkey(text, payload, meta.isCompressed === true, meta.chain)
            : checkAddress(text, payload, meta.tryCaseFlip === true, meta.chain);
          return problems.length === 0;
        },
      );
    }
    return tally;
  },
};

const invalidSuite: VectorSuite = {
  file: INVALID_FILE,
  run() {
    const tally = new Tally();
    for (const [text] of readVectorJson<[string][]>(INVALID_FILE)) {
      let accepted: string[] = [];
      tally.run(
        () => `${JSON.stringify(text)} accepted: ${accepted.join(', ')}`,
        () => {
          accepted = [];
          for (const chain of CHAIN_NAMES) {
            if (decodeAddress(text, chain).ok) accepted.push(`address on ${chain}`);
            if (decodeSecret(text, chain)) accepted.push(`private key on ${chain}`);
          }
          return accepted.length === 0;
        },
      );
    }
    return tally;
  },
};

export const suites: VectorSuite[] = [validSuite, invalidSuite];
