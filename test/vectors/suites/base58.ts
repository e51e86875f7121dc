/** base58_encode_decode.json: plain base58 (no checksum) both ways. */
import { bytesEqual, fromHex } from '../../../src/primitives/index.js';
import { decodeBase58, encodeBase58 } from '../../../src/script/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

const FILE = 'base58_encode_decode.json';
/** The decode limit Core's base58 test passes. */
const MAX_DECODED = 256;

export const suite: VectorSuite = {
  file: FILE,
  run() {
    const tally = new Tally();
    for (const [hex, text] of readVectorJson<[string, string][]>(FILE)) {
      tally.run(
        () => `${JSON.stringify(hex)} <-> ${JSON.stringify(text)}`,
        () => {
          // Compared as bytes: some rows spell their hex in upper case.
          const bytes = fromHex(hex);
          const decoded = decodeBase58(text, MAX_DECODED);
          return encodeBase58(bytes) === text && decoded !== null && bytesEqual(decoded, bytes);
        },
      );
    }
    return tally;
  },
};
