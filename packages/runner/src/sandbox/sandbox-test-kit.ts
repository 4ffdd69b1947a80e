import { chromium, type Browser, type Page } from 'playwright-core';
import { startFixtureServer, type FixtureRoute, type FixtureServer } from '../testing';

/** Chromium as the brief's test environment launches it (Debian's package, no network). */
export function launchTestChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A shop-like page with a list, a form and a result line; every script test drives it. */
export const SHOP_PAGE = `<!doctype html>
<html><head><title>Fixture shop</title></head><body>
<h1 id="title">  Products  </h1>
<ul id="products">
  <li class="product" data-sku="a1"><span class="name"> Apple </span><span class="price">1.00</span><a href="/apple">more</a></li>
  <li class="product" data-sku="b2"><span class="name">Banana</span><span class="price">0.50</span></li>
  <li class="product" data-sku="c3"><span class="name">Cherry</span><a href="/cherry">more</a></li>
</ul>
<form onsubmit="return false">
  <input id="q" name="q">
  <select id="size"><option value="s">Small</option><option value="l">Large</option></select>
  <label><input type="checkbox" id="agree"> agree</label>
  <button id="go" type="button" onclick="document.getElementById('out').textContent =
    'Searched: ' + document.getElementById('q').value + ' / ' + document.getElementById('size').value + ' / ' + document.getElementById('agree').checked">Go</button>
</form>
<p id="out"></p>
<div style="height: 3000px"></div>
<p id="footer">bottom</p>
</body></html>`;

export interface ScriptTestBed {
  browser: Browser;
  server: FixtureServer;
  /** A fresh page in a fresh context, already showing `path`. */
  openPage(path?: string): Promise<Page>;
  close(): Promise<void>;
}

export async function startScriptTestBed(routes: Record<string, FixtureRoute> = {}): Promise<ScriptTestBed> {
  const server = await startFixtureServer({ '/shop': SHOP_PAGE, ...routes });
  const browser = await launchTestChromium();
  return {
    browser,
    server,
    async openPage(path = '/shop') {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(server.url(path));
      return page;
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
