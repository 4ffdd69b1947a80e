/** A promise that resolves with `value` after `ms`, and the function that cancels its timer. */
export function after<T>(ms: number, value: T): { promise: Promise<T>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(value), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Waits for `work` at most `ms`: true if it settled in time (a rejection counts as settled). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `work`'s result, or a rejection once `ms` passed (the work itself goes on): with an Error of
 * `message`, or with the error `message()` builds when the caller must tell timeouts apart.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, message: string | (() => Error)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(typeof message === 'string' ? new Error(message) : message()), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The first of `candidates` to settle, or `onDeadline` once `ms` passed, whichever comes first;
 * the timer is cleared either way, so a run that ends early leaves no timer behind.
 */
export async function firstOrDeadline<T>(candidates: Promise<T>[], ms: number, onDeadline: T): Promise<T> {
  const deadline = after(ms, onDeadline);
  try {
    return await Promise.race([...candidates, deadline.promise]);
  } finally {
    deadline.cancel();
  }
}
