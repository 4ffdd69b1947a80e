/*
 * Run by page-functions.test.ts as `node --import tsx <this file>`: the loader `npm start` runs
 * the product with (esbuild with keepNames), which the tests' own transform (swc) is not. Loads
 * every module that declares a page function (the runner's entry point, which loads core's),
 * runs each declared function in Chromium as its case says, and prints one JSON report.
 */
import { declaredPageFunctions } from '@botfleet/core';
import { startFixtureServer } from '@botfleet/testkit';
import '../index';
import { createTestBrowserHost } from './browser';
import {
  PAGE_FUNCTION_CASES,
  type InPage,
  type PageFunctionReport,
  type PageFunctionResult,
} from './page-function-cases';

async function main(): Promise<void> {
  const server = await startFixtureServer();
  const host = createTestBrowserHost();
  const browser = await host.getBrowser();
  const report: PageFunctionReport = { declared: [...declaredPageFunctions().keys()], results: {} };
  try {
    for (const [name, fn] of declaredPageFunctions()) {
      const pageCase = PAGE_FUNCTION_CASES[name];
      if (!pageCase) continue;
      const context = await browser.newContext();
      const result: PageFunctionResult = { pageErrors: [] };
      let pages = 0;
      const open = async (html: string) => {
        const path = `/${name}/${++pages}`;
        server.setRoute(path, html);
        const page = await context.newPage();
        page.on('pageerror', (error) => result.pageErrors.push(error.message));
        await page.goto(server.url(path));
        return page;
      };
      try {
        result.value = await pageCase.run({ fn: fn as unknown as InPage, context, open });
      } catch (error) {
        result.error = error instanceof Error ? error.message : String(error);
      } finally {
        await context.close();
      }
      report.results[name] = result;
    }
  } finally {
    await host.close();
    await server.close();
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
