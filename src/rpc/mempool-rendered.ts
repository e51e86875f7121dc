/**
 * getrawmempool's answer rendered once per pool version in each process: the verbose
 * listing of a large pool takes tens of milliseconds to build (every entry's ancestors,
 * descendants and chunk), and the pool changes far less often than it is asked for. The
 * key is the chainstate's mempoolVersion, which every batch changing the mempool tables
 * moves, read from the same snapshot as the pool, so a kept text is exactly what that
 * snapshot would render. One text per form (plain, with sequence, verbose) is kept.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { CHAINSTATE_META } from '../storage/index.js';
import { JsonText, writeJson } from './json.js';

interface Rendered {
  readonly version: bigint;
  readonly text: JsonText;
}

/** By form: 0 plain, 1 with mempool_sequence, 2 verbose. */
const rendered: (Rendered | undefined)[] = [undefined, undefined, undefined];

/** `render`'s result as text, rendered again only when `snapshot`'s pool is not the one last rendered in this form. */
export function mempoolRenderedOnce(snapshot: SnapshotChainView, verbose: boolean, withSequence: boolean, render: () => unknown): JsonText {
  const form = verbose ? 2 : withSequence ? 1 : 0;
  const version = snapshot.reader.meta(CHAINSTATE_META.mempoolVersion) ?? 0n;
  const kept = rendered[form];
  if (kept && kept.version === version) return kept.text;
  const text = new JsonText(writeJson(render()));
  rendered[form] = { version, text };
  return text;
}
