/**
 * The two fsync moves crash safety needs beyond fsyncing a file's data: syncing a
 * directory so that a created, renamed or deleted entry survives power loss, and writing
 * a small file so that it is either absent or complete (never a torn prefix).
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Makes entries created, renamed or removed in `dir` durable. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `bytes` to `path` via a synced temporary file and a rename: all or nothing. The
 * temporary name is hidden (leading dot), so a crash before the rename leaves nothing
 * that Core's "only hidden files means a new directory" test would count.
 */
export function writeFileAtomic(path: string, bytes: Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDirectory(dirname(path));
}
