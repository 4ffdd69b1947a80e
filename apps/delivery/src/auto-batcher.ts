/**
 * Gathers calls into batches for `run`, so the attempts a consumer runs at once share one database
 * statement instead of one each. One batch runs at a time: calls made while it runs wait for it and
 * then go together as the next batch (at most `maxBatch`). An idle batcher adds no wait beyond the
 * current turn of the event loop, and under load the batches grow by themselves.
 *
 * `run` answers with one output per input, in order; when it throws, every call of its batch
 * rejects with its error.
 */
export function createAutoBatcher<Input, Output>(
  run: (inputs: Input[]) => Promise<Output[]>,
  maxBatch: number,
): (input: Input) => Promise<Output> {
  const waiting: Array<{ input: Input; resolve: (output: Output) => void; reject: (error: unknown) => void }> = [];
  let running = false;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (running || waiting.length === 0) return;
    const taken = waiting.splice(0, maxBatch);
    running = true;
    run(taken.map((call) => call.input))
      .then(
        (outputs) => taken.forEach((call, i) => call.resolve(outputs[i]!)),
        (error: unknown) => taken.forEach((call) => call.reject(error)),
      )
      .finally(() => {
        running = false;
        schedule();
      });
  };
  const schedule = () => {
    if (scheduled || running || waiting.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (input) =>
    new Promise<Output>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      schedule();
    });
}
