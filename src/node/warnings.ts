/**
 * The node's warnings (Core's node::Warnings): kept by kind, listed in Core's order of the
 * kinds, shown by getblockchaininfo, getnetworkinfo and getmininginfo. A warning newly set
 * is given to -alertnotify (Core's AlertNotify): its text stripped to the safe characters
 * and single-quoted in place of %s, the command left to run free.
 */
import { runCommand } from './run-command.js';

/** Core's kernel::Warning and node::Warning kinds tsbtcd raises, in Core's order. */
export const WARNING_KINDS = ['unknown-new-rules-activated', 'large-work-invalid-chain'] as const;
export type WarningKind = (typeof WARNING_KINDS)[number];

/** Core's SAFE_CHARS_DEFAULT (SanitizeString). */
const UNSAFE = /[^A-Za-z0-9 .,;\-_/:?@()]/g;

export class NodeWarnings {
  readonly #messages = new Map<WarningKind, string>();

  constructor(
    private readonly alertNotify: string | undefined,
    private readonly log: (message: string) => void,
    private readonly changed: () => void,
  ) {}

  /** Core's Warnings::Set: only a kind not set before alerts. */
  set(kind: WarningKind, message: string): void {
    const before = this.#messages.get(kind);
    if (before === message) return;
    this.#messages.set(kind, message);
    if (before === undefined && this.alertNotify) void runCommand(this.alertNotify.replaceAll('%s', `'${message.replace(UNSAFE, '')}'`), this.log);
    this.changed();
  }

  unset(kind: WarningKind): void {
    if (this.#messages.delete(kind)) this.changed();
  }

  /** The texts, in Core's order of their kinds. */
  messages(): string[] {
    return WARNING_KINDS.flatMap((kind) => this.#messages.get(kind) ?? []);
  }
}
