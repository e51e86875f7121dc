/**
 * The members of a JSON object in order, repeated keys included. JSON.parse keeps only
 * the last of a repeated key, but some of Core's methods see every member (UniValue keeps
 * them): createrawtransaction answers "duplicated address" for {"addr":1,"addr":2}. The
 * HTTP layer's strict parser records the members under JSON_ENTRIES on each object it
 * builds; objects from anywhere else report Object.entries.
 */
import type { Json, JsonObject } from './json.js';

export const JSON_ENTRIES: unique symbol = Symbol.for('tsbtcd.json.entries');

type WithEntries = { [JSON_ENTRIES]?: [string, Json][] };

export function objectEntries(obj: JsonObject): [string, Json][] {
  return (obj as WithEntries)[JSON_ENTRIES] ?? (Object.entries(obj) as [string, Json][]);
}
