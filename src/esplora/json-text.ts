/**
 * Esplora's JSON text: compact, keys in the order the values were built (electrs's
 * structs), integers for amounts, and floats printed as serde_json prints an f64 (an
 * integral value keeps its ".0"). Floats are marked with `f64` so that a fee rate of 1
 * reads 1.0, as Esplora's clients see it.
 */

export class F64 {
  constructor(readonly value: number) {}
}

export const f64 = (value: number): F64 => new F64(value);

export type EsploraJson = null | boolean | number | bigint | string | F64 | readonly EsploraJson[] | { readonly [key: string]: EsploraJson | undefined };

function floatText(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  return String(value).replace('e+', 'e');
}

/** Keys as JSON text with their colon, kept: a reply repeats the same few keys for every item. */
const keyTexts = new Map<string, string>();

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < 1024) keyTexts.set(key, text);
  }
  return text;
}

/** One pass that appends to a string (no part arrays, no entry lists): a 500-coin utxo reply is most of a request's time otherwise. */
export function esploraJson(value: EsploraJson): string {
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'string':
      return JSON.stringify(value);
  }
  if (value === null) return 'null';
  if (value instanceof F64) return floatText(value.value);
  if (Array.isArray(value)) {
    const items = value as readonly EsploraJson[];
    let text = '[';
    for (let i = 0; i < items.length; i++) text += (i === 0 ? '' : ',') + esploraJson(items[i]!);
    return `${text}]`;
  }
  const object = value as Record<string, EsploraJson | undefined>;
  let text = '{';
  let first = true;
  for (const key in object) {
    const field = object[key];
    // An absent field is one electrs skips (skip_serializing_if = "Option::is_none").
    if (field === undefined) continue;
    text += (first ? '' : ',') + keyText(key) + esploraJson(field);
    first = false;
  }
  return `${text}}`;
}
