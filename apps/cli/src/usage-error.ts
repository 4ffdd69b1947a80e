/** A command line botfleet cannot act on: the message is printed with a hint to `--help`. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
