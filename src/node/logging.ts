/**
 * debug.log in Core's line format: `2026-11-22T09:43:15Z ` (or with microseconds under
 * -logtimemicros, plus ` (mocktime: …)` while mocked), optional `[thread] `, then the
 * level/category prefix (`[warning] `, `[net] `, `[net:trace] `, `[all:info] ` with
 * -loglevelalways), then the message. Lines go to the file and, with -printtoconsole, to
 * stdout; never to stderr. Writes are synchronous so a crash never loses an ordered line.
 */
import * as fs from 'node:fs';
import { LOG_CATEGORIES, LOG_LEVEL_RANK, resolveLogCategory, type LogLevel } from './log-categories.js';

export interface LoggerOptions {
  /** debug.log path; undefined with -nodebuglogfile. */
  readonly filePath: string | undefined;
  readonly printToConsole: boolean;
  readonly timestamps: boolean;
  readonly timeMicros: boolean;
  readonly threadNames: boolean;
  readonly alwaysPrintCategoryLevel: boolean;
  /** Shrink the file to its last 10 MB when it has grown past 11 MB (Core's -shrinkdebugfile). */
  readonly shrink: boolean;
  /** Mock time in seconds (0 = none), shown beside the real timestamp. */
  readonly mocktime: () => number;
}

const RECENT_DEBUG_HISTORY_SIZE = 10 * 1_000_000;

/** Control characters other than newline are escaped, as Core's LogEscapeMessage does. */
function escapeMessage(msg: string): string {
  // eslint-disable-next-line no-control-regex
  return msg.replace(/[\x00-\x09\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function iso8601(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class Logger {
  private fd: number | undefined;
  private readonly debugCategories = new Set<string>();
  private globalLevel: LogLevel = 'debug';
  private readonly categoryLevels = new Map<string, LogLevel>();

  constructor(private readonly opts: LoggerOptions) {}

  get filePath(): string | undefined {
    return this.opts.filePath;
  }

  /** Opens debug.log (shrinking it first if asked) and marks the new run with blank lines. */
  open(): void {
    const path = this.opts.filePath;
    if (path === undefined) return;
    if (this.opts.shrink) shrinkFile(path);
    this.fd = fs.openSync(path, 'a');
    fs.writeSync(this.fd, '\n\n\n\n\n');
  }

  /** Reopens debug.log after it was moved away (SIGHUP, for log rotation, as Core does). */
  reopen(): void {
    if (this.fd === undefined || this.opts.filePath === undefined) return;
    const fd = fs.openSync(this.opts.filePath, 'a');
    fs.closeSync(this.fd);
    this.fd = fd;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** Enables a category (or all); false for an unknown name. */
  enableCategory(name: string): boolean {
    const cats = resolveLogCategory(name);
    if (!cats) return false;
    for (const c of cats) this.debugCategories.add(c);
    return true;
  }

  disableCategory(name: string): boolean {
    const cats = resolveLogCategory(name);
    if (!cats) return false;
    for (const c of cats) this.debugCategories.delete(c);
    return true;
  }

  /** Every category with whether it is debug-logged, in Core's (alphabetical) order. */
  categoryStatus(): Record<string, boolean> {
    return Object.fromEntries(LOG_CATEGORIES.map((c) => [c, this.debugCategories.has(c)]));
  }

  setLevel(level: LogLevel, category?: string): void {
    if (category === undefined) this.globalLevel = level;
    else this.categoryLevels.set(category, level);
  }

  /** Info, warning and error always log; debug and trace need the category enabled and the level. */
  willLog(category: string | undefined, level: LogLevel): boolean {
    if (LOG_LEVEL_RANK[level] >= LOG_LEVEL_RANK.info) return true;
    if (category === undefined || !this.debugCategories.has(category)) return false;
    return LOG_LEVEL_RANK[level] >= LOG_LEVEL_RANK[this.categoryLevels.get(category) ?? this.globalLevel];
  }

  info(msg: string, thread?: string): void {
    this.log(undefined, 'info', msg, thread);
  }
  warning(msg: string, thread?: string): void {
    this.log(undefined, 'warning', msg, thread);
  }
  error(msg: string, thread?: string): void {
    this.log(undefined, 'error', msg, thread);
  }
  debug(category: string, msg: string, thread?: string): void {
    this.log(category, 'debug', msg, thread);
  }
  trace(category: string, msg: string, thread?: string): void {
    this.log(category, 'trace', msg, thread);
  }

  log(category: string | undefined, level: LogLevel, msg: string, thread = 'init'): void {
    if (!this.willLog(category, level)) return;
    const line = this.format(category, level, msg, thread);
    if (this.opts.printToConsole) writeQuietly(1, line);
    if (this.fd !== undefined) fs.writeSync(this.fd, line);
  }

  private format(category: string | undefined, level: LogLevel, msg: string, thread: string): string {
    let out = '';
    if (this.opts.timestamps) {
      // Wall clock with sub-millisecond precision: the performance origin is wall-clock based.
      const nowUs = Math.floor((performance.timeOrigin + performance.now()) * 1000);
      let stamp = iso8601(Math.floor(nowUs / 1_000_000));
      if (this.opts.timeMicros) stamp = `${stamp.slice(0, -1)}.${String(nowUs % 1_000_000).padStart(6, '0')}Z`;
      const mock = this.opts.mocktime();
      if (mock > 0) stamp += ` (mocktime: ${iso8601(mock)})`;
      out += stamp + ' ';
    }
    if (this.opts.threadNames) out += `[${thread}] `;
    out += this.prefix(category, level);
    out += escapeMessage(msg);
    return out.endsWith('\n') ? out : out + '\n';
  }

  /** Core's GetLogPrefix. */
  private prefix(category: string | undefined, level: LogLevel): string {
    const hasCategory = this.opts.alwaysPrintCategoryLevel || category !== undefined;
    if (!hasCategory && level === 'info') return '';
    let s = '[';
    if (hasCategory) s += category ?? 'all';
    if (this.opts.alwaysPrintCategoryLevel || !hasCategory || level !== 'debug') {
      if (hasCategory) s += ':';
      s += level;
    }
    return s + '] ';
  }
}

/** Console output must never take the node down (closed or full pipe): drop the line. */
function writeQuietly(fd: number, text: string): void {
  try {
    fs.writeSync(fd, text);
  } catch {
    // stdout gone or would block: the file still has the line.
  }
}

function shrinkFile(path: string): void {
  let size: number;
  try {
    size = fs.statSync(path).size;
  } catch {
    return;
  }
  if (size <= (11 * RECENT_DEBUG_HISTORY_SIZE) / 10) return;
  const fd = fs.openSync(path, 'r');
  const buf = Buffer.alloc(RECENT_DEBUG_HISTORY_SIZE);
  const n = fs.readSync(fd, buf, 0, buf.length, size - buf.length);
  fs.closeSync(fd);
  fs.writeFileSync(path, buf.subarray(0, n));
}
