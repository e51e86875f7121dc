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

export function esploraJson(value: EsploraJson): string {
  if (value === null) return 'null';
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
  if (value instanceof F64) return floatText(value.value);
  if (Array.isArray(value)) return `[${(value as readonly EsploraJson[]).map(esploraJson).join(',')}]`;
  const parts: string[] = [];
  for (const [key, field] of Object.entries(value as Record<string, EsploraJson | undefined>)) {
    // An absent field is one electrs skips (skip_serializing_if = "Option::is_none").
    if (field !== undefined) parts.push(`${JSON.stringify(key)}:${esploraJson(field)}`);
  }
  return `{${parts.join(',')}}`;
}
