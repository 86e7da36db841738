/** Warnings and progress go to stderr, so stdout stays clean for results and JSON. */
export function warn(message: string): void {
  process.stderr.write(`cairn: warning: ${message}\n`);
}

export function fail(message: string): never {
  process.stderr.write(`cairn: error: ${message}\n`);
  process.exit(1);
}
