/** getchaintips over a stored snapshot (Core's tip set, branch lengths and statuses). */
import { tipStatus, type ChainTipStatus } from './block-tree.js';
import type { SnapshotChainView, ViewEntry } from './snapshot-view.js';

export interface SnapshotChainTip {
  height: number;
  hash: string;
  branchlen: number;
  status: ChainTipStatus;
}

export function snapshotChainTips(view: SnapshotChainView): SnapshotChainTip[] {
  const entries = [...view.allEntries()];
  const parents = new Set<string>();
  for (const e of entries) if (e.height > 0) parents.add(e.header.prevHash.join(','));
  const tip = view.tip();
  const tips: ViewEntry[] = entries.filter((e) => !parents.has(e.hash.join(',')));
  if (!tips.some((t) => t.hashHex === tip.hashHex)) tips.push(tip);
  return tips
    .sort((a, b) => b.height - a.height)
    .map((e) => {
      const active = e.hashHex === tip.hashHex;
      let fork: ViewEntry | undefined = e;
      while (fork && !view.isActive(fork)) fork = fork.prev;
      return {
        height: e.height,
        hash: e.hashHex,
        branchlen: active ? 0 : e.height - (fork ? fork.height : -1),
        status: tipStatus(e, active),
      };
    });
}
