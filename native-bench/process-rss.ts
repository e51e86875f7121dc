/**
 * Resident memory of a daemon from /proc: VmRSS now (`make soak` samples it), and VmHWM
 * (the kernel's high-water mark of RSS) of one process, and of that process with all its
 * descendants (tsbtcd's coordinator
 * spawns its HTTP front-ends as processes; its script-check workers are threads, already
 * inside the coordinator's figure). The tree figure is a sum of per-process peaks, which
 * may have happened at different instants: an upper bound of the tree's peak.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A memory line (VmHWM, VmRSS, RssAnon, RssFile) of /proc/`pid`/status in bytes, or undefined when the process is gone. */
function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS' | 'RssAnon' | 'RssFile'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** VmHWM of `pid` in bytes, or undefined when the process is gone. */
export function peakRss(pid: number): number | undefined {
  return statusBytes(pid, 'VmHWM');
}

/** VmRSS (resident memory now) of `pid` in bytes, or undefined when the process is gone. */
export function currentRss(pid: number): number | undefined {
  return statusBytes(pid, 'VmRSS');
}

/**
 * VmRSS split as the kernel counts it: `anon` is memory the process allocated (V8's heap,
 * native buffers: where a leak shows), `file` the pages of mapped files it has touched
 * (LMDB's map, which grows with the database as blocks are added, and code), page cache
 * the kernel can drop at any time. undefined when the process is gone.
 */
export function currentRssParts(pid: number): { anon: number; file: number } | undefined {
  const anon = statusBytes(pid, 'RssAnon');
  const file = statusBytes(pid, 'RssFile');
  return anon === undefined || file === undefined ? undefined : { anon, file };
}

/** The parent pid of `pid` (field 4 of /proc/<pid>/stat, after the parenthesised name). */
function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `pid` and every process descending from it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = Number(name);
    const parent = parentPid(child);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(child);
    children.set(parent, list);
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

export interface TreePeakRss {
  /** VmHWM of the process itself. */
  main: number;
  /** The sum of VmHWM over the process and its descendants. */
  tree: number;
  processes: number;
}

export function treePeakRss(pid: number): TreePeakRss {
  const main = peakRss(pid);
  if (main === undefined) throw new Error(`process ${pid} is gone: no peak RSS to read`);
  const pids = processTree(pid);
  const tree = pids.reduce((sum, p) => sum + (peakRss(p) ?? 0), 0);
  return { main, tree, processes: pids.length };
}
