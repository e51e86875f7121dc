/**
 * The values the builders return: JSON plus RawJsonNumber (amounts with 8 decimals,
 * doubles with Core's digits) and bigint, which writeJson prints as Core does. Object
 * members that are undefined are left out by writeJson.
 */
import type { RawJsonNumber } from '../json.js';

export type ResultJson = null | boolean | number | bigint | string | RawJsonNumber | ResultJson[] | ResultObject;

export interface ResultObject {
  [key: string]: ResultJson | undefined;
}
