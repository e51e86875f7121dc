/**
 * blockfilters.json (BIP158's testnet-19.json, Core's src/test/data copy): for each testnet3
 * block, the basic filter built from the block and the scripts its inputs spent must be the
 * given bytes, and its header, chained from the given previous header, the given header.
 * Each element must also match the decoded filter, and consecutive rows must chain.
 */
import { basicBlockFilter, basicFilterElements, basicFilterMatchAny, basicFilterSize, blockFilterHash, blockFilterHeader } from '../../../src/chain/index.js';
import { fromHex, hashToHex, hexToHash, parseBlock, toHex } from '../../../src/primitives/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

const FILE = 'blockfilters.json';

type Row = [number, string, string, string[], string, string, string, string];

export const suite: VectorSuite = {
  file: FILE,
  run() {
    const tally = new Tally();
    let previous: Row | undefined;
    for (const raw of readVectorJson<unknown[][]>(FILE).slice(1)) {
      const row = raw as Row;
      const [height, hash, blockHex, prevScripts, prevHeader, filterHex, header, note] = row;
      const before = previous;
      previous = row;
      tally.run(
        () => `height ${height} ${hash}${note ? ` (${note})` : ''}`,
        () => {
          const block = parseBlock(fromHex(blockHex));
          if (block.header.hashHex !== hash) throw new Error(`block hashes to ${block.header.hashHex}`);
          const spent = prevScripts.map(fromHex);
          const filter = basicBlockFilter(block, spent);
          if (toHex(filter) !== filterHex) throw new Error(`filter ${toHex(filter)}`);
          const computed = hashToHex(blockFilterHeader(blockFilterHash(filter), hexToHash(prevHeader)));
          if (computed !== header) throw new Error(`header ${computed}`);
          if (before && before[0] === height - 1 && before[6] !== prevHeader) throw new Error('previous header is not the previous row’s header');
          const elements = basicFilterElements(block, spent);
          if (basicFilterSize(filter) !== elements.length) throw new Error('decoded element count differs');
          return elements.every((e) => basicFilterMatchAny(block.header.hash, filter, [e]));
        },
      );
    }
    return tally;
  },
};
