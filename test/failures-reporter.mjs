// A node:test reporter that prints nothing while tests run and, at the end, one block per
// failed test (its file, name and error), so that the last lines of a long CI log say what
// failed. It runs beside the TAP reporter (Makefile's test target).
export default async function* failuresReporter(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, nesting, details } = event.data;
    const error = details?.error;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? 'failed').split('\n').slice(0, 12).join('\n#   ');
    failed.push(`# FAILED ${file ?? ''} › ${'  '.repeat(nesting ?? 0)}${name}\n#   ${message}`);
  }
  if (failed.length > 0) yield `\n# ${failed.length} failed test(s):\n${failed.join('\n')}\n`;
}
