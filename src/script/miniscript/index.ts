/**
 * miniscript: Core's miniscript (script/miniscript.h): the fragments and their type
 * system, validity and sanity checks with Core's resource limits per context, script
 * generation, canonical printing, parsing from text and recognition in scripts. Keys are
 * indexes; the owner (a descriptor) supplies how they parse, print and serialize.
 */
export type { Fragment, MiniscriptContext } from './fragment.js';
export { Node, type KeyPrinter, type ScriptContext } from './node.js';
export { miniscriptFromString, type KeyReader } from './parse-text.js';
export { miniscriptFromScript, type KeyInferrer } from './decode-script.js';
export { mst, has, typeLetters, type Type } from './type.js';
export { maxScriptSize } from './limits.js';
export { satisfy, type Availability, type SatisfierContext } from './satisfy.js';
