/** A start-up failure: each message printed as `Error: <message>` on stderr, exit code 1. */
export class InitError extends Error {
  override readonly name = 'InitError';
  readonly messages: readonly string[];
  constructor(messages: string | readonly string[]) {
    const list = typeof messages === 'string' ? [messages] : messages;
    super(list.join('\n'));
    this.messages = list;
  }
}
