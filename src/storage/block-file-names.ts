/**
 * Names of Core's flat block files: `blk` + the file number in at least five digits
 * (printf "%05u", so 100000 and up simply grow) + `.dat`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const BLOCK_FILE_PATTERN = /^blk(\d{5,})\.dat$/;

export function blockFileName(file: number): string {
  return `blk${String(file).padStart(5, '0')}.dat`;
}

export function blockFilePath(blocksDir: string, file: number): string {
  return join(blocksDir, blockFileName(file));
}

/** The file number a blk file name stands for, or undefined for any other name. */
export function parseBlockFileName(name: string): number | undefined {
  const match = BLOCK_FILE_PATTERN.exec(name);
  if (!match) return undefined;
  const file = Number(match[1]);
  // "blk000001.dat" is not a name Core would write for file 1; refuse the alias.
  return blockFileName(file) === name ? file : undefined;
}

/** Numbers of the blk files present in `blocksDir`, ascending; empty if the directory is missing. */
export function listBlockFiles(blocksDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(blocksDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files: number[] = [];
  for (const name of names) {
    const file = parseBlockFileName(name);
    if (file !== undefined) files.push(file);
  }
  return files.sort((a, b) => a - b);
}
