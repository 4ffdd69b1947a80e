/**
 * Guest-side JavaScript, evaluated in the QuickJS context before the user's module. It builds
 * the `{ page, params, log, step }` argument out of two raw host functions that accept and
 * return JSON text only, so no host object or handle is ever reachable from the script. The
 * host functions are passed in as arguments, never set on globalThis.
 *
 * Evaluating it yields `(callHost, callHostAsync, paramsJson) => ({ run, describe })`:
 * - run(moduleNamespace) calls the default export and resolves to the returned data as JSON text;
 * - describe(error) turns anything thrown into a message, without letting it throw.
 * JSON and Promise are captured before the script runs; a script that replaces them only
 * breaks itself, since the host checks everything it receives.
 */
export function buildPrelude(pageMethods: readonly string[]): string {
  return `(function createSandboxApi(callHost, callHostAsync, paramsJson) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const resolved = Promise.resolve.bind(Promise);
  const freeze = Object.freeze;

  const show = (value) => {
    try {
      if (typeof value === 'string') return value;
      const json = stringify(value);
      return json === undefined ? String(value) : json;
    } catch {
      try { return String(value); } catch { return '[unprintable value]'; }
    }
  };
  const describe = (error) => {
    try {
      if (error !== null && typeof error === 'object' && typeof error.message === 'string') {
        const name = typeof error.name === 'string' ? error.name : '';
        return name === '' || name === 'Error' ? error.message : name + ': ' + error.message;
      }
      return show(error);
    } catch {
      return '[an error that cannot be described]';
    }
  };
  const decode = (text) => (text === '' ? undefined : parse(text));
  const call = (op, args) => decode(callHost(op, stringify(args)));
  const request = (op, args) =>
    callHostAsync(op, stringify(args.map((a) => (typeof a === 'function' ? String(a) : a)))).then(decode);

  const page = {};
  for (const name of ${JSON.stringify(pageMethods.filter((m) => !m.includes('.')))}) {
    page[name] = (...args) => request(name, args);
  }
  page.keyboard = freeze({
    press: (...args) => request('keyboard.press', args),
    type: (...args) => request('keyboard.type', args),
  });

  const text = (parts) => parts.map(show).join(' ');
  const log = (...parts) => { call('log', ['info', text(parts)]); };
  for (const level of ['debug', 'info', 'warn', 'error']) {
    log[level] = (...parts) => { call('log', [level, text(parts)]); };
  }

  const step = async (name, fn, options) => {
    if (typeof fn !== 'function') throw new TypeError('step(name, fn) needs a function');
    const index = call('step.start', [String(name)]);
    let value;
    try {
      value = await fn();
    } catch (error) {
      call('step.end', [index, options && options.optional ? 'skipped' : 'failed', null, describe(error)]);
      throw error;
    }
    try {
      call('step.end', [index, 'completed', value === undefined ? null : value, null]);
    } catch (error) {
      call('step.end', [index, 'failed', null, 'the step returned data that is not JSON-serialisable']);
      throw new TypeError('step ' + show(name) + ' returned data that is not JSON-serialisable: ' + describe(error));
    }
    return value;
  };

  const api = freeze({ page: freeze(page), params: parse(paramsJson), log: freeze(log), step });
  const run = (namespace) =>
    resolved(namespace)
      .then((ns) => {
        const main = ns.default;
        if (typeof main !== 'function') {
          throw new TypeError('the script must export a default function: export default async ({ page, params, log, step }) => { ... }');
        }
        return main(api);
      })
      .then((value) => {
        let json;
        try {
          json = value === undefined ? 'null' : stringify(value);
        } catch (error) {
          throw new TypeError('the returned data is not JSON-serialisable: ' + describe(error));
        }
        if (typeof json !== 'string') throw new TypeError('the returned data is not JSON-serialisable');
        return json;
      });
  return freeze({ run, describe });
})`;
}
