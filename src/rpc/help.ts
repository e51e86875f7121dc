/**
 * Help text in Core's layout (RPCHelpMan::ToString): the one-line synopsis, description,
 * "Arguments:", "Result:" and "Examples:" sections, with the column padding and nesting
 * Core prints. `help` lists first lines; `help <cmd>` and wrong argument counts use the
 * full text.
 */
import { firstArgName, isOptionalArg, type RpcArgSpec, type RpcMethod, type RpcResultSpec } from './spec.js';

interface Section {
  left: string;
  right: string;
}

/** Two columns: left padded to the widest left part + 4, continuation lines indented. */
class Sections {
  readonly rows: Section[] = [];
  private maxPad = 0;

  push(left: string, right: string): void {
    this.rows.push({ left, right });
    this.maxPad = Math.max(this.maxPad, left.length);
  }

  toString(): string {
    const pad = this.maxPad + 4;
    let out = '';
    for (const { left, right } of this.rows) {
      if (right === '') {
        out += `${left}\n`;
        continue;
      }
      out += left.padEnd(pad, ' ') + indentContinuation(right, pad) + '\n';
    }
    return out;
  }
}

/**
 * Core's padding after newlines in the right column: each continuation starts at the
 * column, leading spaces dropped; a blank line keeps its newline (Core's scan looks for
 * the next newline from one past the start of the line).
 */
function indentContinuation(text: string, pad: number): string {
  let out = '';
  let begin = 0;
  let nl = text.indexOf('\n');
  for (;;) {
    out += nl < 0 ? text.slice(begin) : text.slice(begin, nl);
    if (nl < 0) break;
    out += '\n' + ' '.repeat(pad);
    let next = nl + 1;
    while (next < text.length && text[next] === ' ') next++;
    if (next >= text.length) break;
    begin = next;
    nl = text.indexOf('\n', begin + 1);
  }
  return out;
}

function typeWord(arg: RpcArgSpec): string {
  if (arg.typeStr) return arg.typeStr[1];
  switch (arg.type) {
    case 'str':
    case 'hex':
      return 'string';
    case 'num':
      return 'numeric';
    case 'amount':
      return 'numeric or string';
    case 'range':
      return 'numeric or array';
    case 'bool':
      return 'boolean';
    case 'obj':
    case 'obj_named':
    case 'obj_user_keys':
      return 'json object';
    case 'arr':
      return 'json array';
  }
}

function argDescription(arg: RpcArgSpec, isNamed: boolean): string {
  let s = `(${typeWord(arg)}`;
  if (arg.defaultHint !== undefined) s += `, optional, default=${arg.defaultHint}`;
  else if (arg.default !== undefined) s += `, optional, default=${JSON.stringify(arg.default)}`;
  else if (arg.optional) s += isNamed ? ', optional' : '';
  else s += ', required';
  s += ')';
  if (arg.type === 'obj_named') s += ' Options object that can be used to pass named arguments, listed below.';
  return arg.description === '' ? s : `${s} ${arg.description}`;
}

/** An object member as `"name":type` (oneline) or `"name": type`. */
function argToStringObj(arg: RpcArgSpec, oneline: boolean): string {
  const head = `"${firstArgName(arg)}"${oneline ? ':' : ': '}`;
  switch (arg.type) {
    case 'str':
      return `${head}"str"`;
    case 'hex':
      return `${head}"hex"`;
    case 'num':
      return `${head}n`;
    case 'range':
      return `${head}n or [n,n]`;
    case 'amount':
      return `${head}amount`;
    case 'bool':
      return `${head}bool`;
    case 'arr':
      return `${head}[${(arg.inner ?? []).map((i) => `${argToString(i, oneline)},`).join('')}...]`;
    default:
      throw new Error(`nested object argument ${arg.name} cannot be printed as a member`);
  }
}

/** An argument as the synopsis shows it: `"name"`, `name`, `[...]`, `{...}`. */
function argToString(arg: RpcArgSpec, oneline: boolean): string {
  if (oneline && arg.onelineDescription) return arg.onelineDescription;
  switch (arg.type) {
    case 'str':
    case 'hex':
      return `"${firstArgName(arg)}"`;
    case 'num':
    case 'range':
    case 'amount':
    case 'bool':
      return firstArgName(arg);
    case 'obj':
    case 'obj_named':
    case 'obj_user_keys': {
      const members = (arg.inner ?? []).map((i) => argToStringObj(i, oneline)).join(',');
      return arg.type === 'obj' ? `{${members}}` : `{${members},...}`;
    }
    case 'arr':
      return `[${(arg.inner ?? []).map((i) => `${argToString(i, oneline)},`).join('')}...]`;
  }
}

type Outer = 'none' | 'obj' | 'arr';

/** The nested listing of an argument's members under "Arguments:". */
function pushArg(sections: Sections, arg: RpcArgSpec, indentWidth = 5, outer: Outer = 'none'): void {
  const indent = ' '.repeat(indentWidth);
  const indentNext = ' '.repeat(indentWidth + 2);
  const pushName = outer === 'obj';
  const topLevel = outer === 'none';
  switch (arg.type) {
    case 'obj':
    case 'obj_user_keys': {
      const right = topLevel ? '' : argDescription(arg, pushName);
      sections.push(`${indent}${pushName ? `"${firstArgName(arg)}": ` : ''}{`, right);
      for (const inner of arg.inner ?? []) pushArg(sections, inner, indentWidth + 2, 'obj');
      if (arg.type !== 'obj') sections.push(`${indentNext}...`, '');
      sections.push(`${indent}}${topLevel ? '' : ','}`, '');
      return;
    }
    case 'arr': {
      const right = topLevel ? '' : argDescription(arg, pushName);
      sections.push(`${indent}${pushName ? `"${firstArgName(arg)}": ` : ''}[`, right);
      for (const inner of arg.inner ?? []) pushArg(sections, inner, indentWidth + 2, 'arr');
      sections.push(`${indentNext}...`, '');
      sections.push(`${indent}]${topLevel ? '' : ','}`, '');
      return;
    }
    default: {
      if (topLevel) return;
      let left = indent;
      if (arg.typeStr && pushName) left += `"${firstArgName(arg)}": ${arg.typeStr[0]}`;
      else left += pushName ? argToStringObj(arg, false) : argToString(arg, false);
      sections.push(`${left},`, argDescription(arg, pushName));
    }
  }
}

function pushResult(sections: Sections, r: RpcResultSpec, outer: Outer = 'none', indentWidth = 0): void {
  const indent = ' '.repeat(indentWidth);
  const indentNext = ' '.repeat(indentWidth + 2);
  const sep = outer !== 'none' ? ',' : '';
  const key = outer === 'obj' ? `"${r.key ?? ''}" : ` : '';
  const describe = (type: string) => `(${type}${r.optional ? ', optional' : ''})${r.description ? ` ${r.description}` : ''}`;
  const simple = (shape: string, type: string) => sections.push(indent + key + shape + sep, describe(type));
  switch (r.type) {
    case 'elision':
      sections.push(`${indent}...${sep}`, r.description ?? '');
      return;
    case 'any':
      return;
    case 'none':
      sections.push(`${indent}null${sep}`, describe('json null'));
      return;
    case 'str':
      return simple('"str"', 'string');
    case 'str_hex':
      return simple('"hex"', 'string');
    case 'str_amount':
    case 'num':
      return simple('n', 'numeric');
    case 'num_time':
      return simple('xxx', 'numeric');
    case 'bool':
      return simple('true|false', 'boolean');
    case 'arr':
    case 'arr_fixed': {
      const inner = r.inner ?? [];
      sections.push(`${indent}${key}[`, describe('json array'));
      for (const i of inner) pushResult(sections, i, 'arr', indentWidth + 2);
      if (r.type === 'arr' && inner.at(-1)?.type !== 'elision') sections.push(`${indentNext}...`, '');
      else dropTrailingComma(sections);
      sections.push(`${indent}]${sep}`, '');
      return;
    }
    case 'obj':
    case 'obj_dyn': {
      const inner = r.inner ?? [];
      if (inner.length === 0) {
        sections.push(`${indent}${key}{}`, describe('empty JSON object'));
        return;
      }
      sections.push(`${indent}${key}{`, describe('json object'));
      for (const i of inner) pushResult(sections, i, 'obj', indentWidth + 2);
      if (r.type === 'obj_dyn' && inner.at(-1)?.type !== 'elision') sections.push(`${indentNext}...`, '');
      else dropTrailingComma(sections);
      sections.push(`${indent}}${sep}`, '');
      return;
    }
  }
}

function dropTrailingComma(sections: Sections): void {
  const last = sections.rows.at(-1);
  if (last?.left.endsWith(',')) last.left = last.left.slice(0, -1);
}

/** The first line of help: name and visible arguments, optional runs in `( … )`. */
export function synopsis(method: RpcMethod): string {
  let out = method.name;
  let inOptional = false;
  for (const arg of method.args) {
    if (arg.hidden) break;
    const optional = isOptionalArg(arg);
    out += ' ';
    if (optional && !inOptional) out += '( ';
    if (!optional && inOptional) out += ') ';
    inOptional = optional;
    out += argToString(arg, true);
  }
  return inOptional ? `${out} )` : out;
}

export function fullHelp(method: RpcMethod): string {
  let out = `${synopsis(method)}\n\n${method.description.trim()}\n`;
  const args = new Sections();
  const namedOnly = new Sections();
  for (const [i, arg] of method.args.entries()) {
    if (arg.hidden) break;
    args.push(`${i + 1}. ${firstArgName(arg)}`, argDescription(arg, true));
    pushArg(args, arg);
    if (arg.type === 'obj_named') {
      for (const inner of arg.inner ?? []) {
        namedOnly.push(firstArgName(inner), argDescription(inner, true));
        pushArg(namedOnly, inner);
      }
    }
  }
  if (args.rows.length > 0) out += '\nArguments:\n' + args.toString();
  if (namedOnly.rows.length > 0) out += '\nNamed Arguments:\n' + namedOnly.toString();
  for (const r of method.results) {
    if (r.type === 'any') continue;
    out += r.cond ? `\nResult (${r.cond}):\n` : '\nResult:\n';
    const sections = new Sections();
    pushResult(sections, r);
    out += sections.toString();
  }
  if (method.examples !== '') out += `\nExamples:\n${method.examples}`;
  return out;
}

/**
 * `help` without a command: synopses of every non-hidden method grouped by category
 * (sorted by category + name), `== Category ==` headers, groups separated by a blank
 * line, no trailing newline. With a command: its full text, or Core's "unknown command".
 */
export function helpText(methods: Iterable<RpcMethod>, command: string): string {
  const sorted = [...methods].sort((a, b) => {
    const ka = a.category + a.name;
    const kb = b.category + b.name;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  let out = '';
  let category = '';
  for (const m of sorted) {
    if ((command !== '' || m.category === 'hidden') && m.name !== command) continue;
    if (command !== '') {
      out += fullHelp(m) + '\n';
      continue;
    }
    if (m.category !== category) {
      if (category !== '') out += '\n';
      category = m.category;
      out += `== ${category.charAt(0).toUpperCase()}${category.slice(1)} ==\n`;
    }
    out += synopsis(m) + '\n';
  }
  if (out === '') out = `help: unknown command: ${command}\n`;
  return out.slice(0, -1);
}
