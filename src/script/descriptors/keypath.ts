/**
 * BIP32 paths inside key expressions: Core's ParseKeyPathNum, ParseKeyPath (with BIP389
 * multipath `<a;b;...>` elements), ParseDeriveType and FormatHDKeypath. Core threads one
 * "apostrophe" flag through the origin, the path and the wildcard of a key expression:
 * every hardened element overwrites it, and printing uses it for every hardened marker.
 */
import { BIP32_HARDENED } from '../bip32.js';
import { DescriptorError } from './errors.js';
import { parseUint32, split } from '../parsing.js';

export type DeriveType = 'none' | 'unhardened' | 'hardened';

/** The marker state Core passes around by reference while it parses one key expression. */
export interface MarkerState {
  /** True when the hardened element seen last was written with ' rather than h. */
  apostrophe: boolean;
}

const MAX_INDEX = 0x7fffffff;

function parseKeyPathNum(elem: string, marker: MarkerState): { value: number; hardened: boolean } {
  let text = elem;
  let hardened = false;
  const last = text[text.length - 1];
  if (last === "'" || last === 'h') {
    text = text.slice(0, -1);
    hardened = true;
    marker.apostrophe = last === "'";
  }
  const value = parseUint32(text);
  if (value === null) throw new DescriptorError(`Key path value '${text}' is not a valid uint32`);
  if (value > MAX_INDEX) throw new DescriptorError(`Key path value ${value} is out of range`);
  return { value: hardened ? (value | BIP32_HARDENED) >>> 0 : value, hardened };
}

export interface ParsedKeyPath {
  /** One path, or one per multipath alternative in the order written. */
  readonly paths: number[][];
  readonly hasHardened: boolean;
}

/**
 * Parses `split[1..]` (split[0] is the key or fingerprint). Throws DescriptorError with
 * Core's message for a bad element, a multipath where none is allowed, a second multipath
 * element, fewer than two alternatives or a repeated alternative.
 */
export function parseKeyPath(elements: readonly string[], marker: MarkerState, allowMultipath: boolean): ParsedKeyPath {
  const path: number[] = [];
  let hasHardened = false;
  let multipath: { index: number; values: number[] } | null = null;
  for (let i = 1; i < elements.length; i++) {
    const elem = elements[i]!;
    if (elem.length > 0 && elem.startsWith('<') && elem.endsWith('>')) {
      if (!allowMultipath) {
        throw new DescriptorError(`Key path value '${elem}' specifies multipath in a section where multipath is not allowed`);
      }
      if (multipath) throw new DescriptorError('Multiple multipath key path specifiers found');
      const alternatives = split(elem.slice(1, -1), ';');
      if (alternatives.length < 2) throw new DescriptorError('Multipath key path specifiers must have at least two items');
      const values: number[] = [];
      for (const alternative of alternatives) {
        const parsed = parseKeyPathNum(alternative, marker);
        hasHardened ||= parsed.hardened;
        if (values.includes(parsed.value)) {
          throw new DescriptorError(`Duplicated key path value ${parsed.value} in multipath specifier`);
        }
        values.push(parsed.value);
      }
      multipath = { index: path.length, values };
      path.push(0);
    } else {
      const parsed = parseKeyPathNum(elem, marker);
      hasHardened ||= parsed.hardened;
      path.push(parsed.value);
    }
  }
  if (!multipath) return { paths: [path], hasHardened };
  const { index, values } = multipath;
  return {
    paths: values.map((value) => path.map((step, i) => (i === index ? value : step))),
    hasHardened,
  };
}

/** Core's ParseDeriveType: removes a trailing `*`, `*'` or `*h` element and says which it was. */
export function parseDeriveType(elements: string[], marker: MarkerState): DeriveType {
  const last = elements[elements.length - 1];
  if (last === '*') {
    elements.pop();
    return 'unhardened';
  }
  if (last === "*'" || last === '*h') {
    marker.apostrophe = last === "*'";
    elements.pop();
    return 'hardened';
  }
  return 'none';
}

/** Core's FormatHDKeypath: `/n` per element, hardened ones marked with ' or h. */
export function formatKeyPath(path: readonly number[], apostrophe: boolean): string {
  let out = '';
  for (const step of path) {
    const hardened = step >= BIP32_HARDENED;
    out += `/${hardened ? step - BIP32_HARDENED : step}${hardened ? (apostrophe ? "'" : 'h') : ''}`;
  }
  return out;
}

export function hasHardenedStep(path: readonly number[]): boolean {
  return path.some((step) => step >= BIP32_HARDENED);
}
