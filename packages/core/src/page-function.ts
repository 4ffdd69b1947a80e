/*
 * Code that runs inside the web page: functions handed to page.evaluate, locator.evaluate(All),
 * page.$$eval or context.addInitScript. Playwright ships such a function to the page as its
 * source text (`String(fn)`), so whatever the TypeScript loader wrote into that text runs in the
 * page, outside Node's module scope. tsx (what `npm start` runs) compiles with esbuild's
 * `keepNames`, which wraps every named inner function in a call of a module-level `__name`
 * helper; the page has no such helper, and the function dies with a ReferenceError. tsc (the
 * image) and swc (the tests) write no such call, so only the mode users start with broke.
 *
 * Every page function is declared here, through `definePageFunction` (a TypeScript function) or
 * `pageFunctionFromSource` (a helper written as text for generated scripts too). The text sent to
 * the page defines `__name` as esbuild does before the function, so the page runs exactly the
 * code Node would run, whichever loader compiled it. That needs no parsing of compiled code (a
 * rewrite that strips the calls would have to match parentheses through strings and regular
 * expressions) and no build step (a prebuilt string module would lose the type checking of the
 * page code). Each declaration is kept in one registry, which page-functions.test.ts (in the
 * runner) walks: every page function, loaded through tsx, runs in Chromium.
 */

declare const runsInPage: unique symbol;

/**
 * A function that only runs inside the web page. The brand is what the structural page types
 * (StepPage) ask for, so an inline arrow function cannot reach the page without the shim.
 */
export type PageFunction<F extends (...args: never[]) => unknown> = F & { readonly [runsInPage]: true };

/** esbuild's own `__name`, as keepNames defines it at the top of every module. */
const NAME_HELPER =
  'const __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });';

const registry = new Map<string, PageFunction<(...args: never[]) => unknown>>();

function register<F extends (...args: never[]) => unknown>(name: string, source: string): PageFunction<F> {
  if (registry.has(name)) throw new Error(`a page function named ${name} is already declared`);
  const stub = (): never => {
    throw new Error(`${name} runs in the page only`);
  };
  Object.defineProperty(stub, 'toString', { value: () => source });
  Object.defineProperty(stub, 'name', { value: name });
  const declared = stub as unknown as PageFunction<F>;
  registry.set(name, declared);
  return declared;
}

/**
 * Declares `fn` as a page function under a unique `name` (what page-functions.test.ts reports).
 * The result is what to hand to Playwright; calling it in Node throws.
 */
export function definePageFunction<F extends (...args: never[]) => unknown>(name: string, fn: F): PageFunction<F> {
  // An expression whose value is the function: Playwright evaluates it and then calls it (evaluate),
  // or calls it in place (addInitScript wraps it as `(text)(arg)`).
  return register<F>(name, `(() => {\n${NAME_HELPER}\nreturn (${fn.toString()});\n})()`);
}

/**
 * Declares a page function written as JavaScript text: one function expression, leading comment
 * lines allowed (they are dropped, as Playwright reads the text as one expression).
 */
export function pageFunctionFromSource<F extends (...args: never[]) => unknown>(
  name: string,
  source: string,
): PageFunction<F> {
  return register<F>(name, source.replace(/^(\s*\/\/[^\n]*\n)+/, ''));
}

/** Every declared page function by name, for the test that runs each of them in Chromium. */
export function declaredPageFunctions(): ReadonlyMap<string, PageFunction<(...args: never[]) => unknown>> {
  return registry;
}
