import { indexSteps, type StepInput } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { StepFailedError } from './errors';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture } from './testing';

const CATALOG = `<!doctype html><title>Catalog</title>
<h1>  Products  </h1>
<a id="more" href="/more" data-id="42">More</a>
<ul>
  <li class="item"><span class="name">Apple</span><span class="price">1.00</span><a href="/apple">see</a></li>
  <li class="item"><span class="name">Banana</span><a href="/banana">see</a></li>
  <li class="item"><span class="name"> Cherry </span><span class="price">3.50</span><a href="/cherry">see</a></li>
</ul>`;

const FORM = `<!doctype html><title>Search</title>
<form method="post" action="/submit">
  <input id="q" name="q">
  <label><input type="checkbox" id="agree" name="agree"> agree</label>
  <label><input type="checkbox" id="news" name="news" checked> news</label>
  <select id="color" name="color"><option value="red">Red</option><option value="green">Green</option></select>
  <button type="submit">Go</button>
</form>
<div id="menu" style="height:40px">Menu</div>
<p id="status">idle</p>
<button id="reveal" onclick="setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'late content'; document.body.appendChild(d); }, 150)">Reveal</button>
<div style="height:3000px"></div>
<p id="bottom">end</p>
<script>document.getElementById('menu').addEventListener('mouseenter', () => { document.getElementById('status').textContent = 'hovered'; });</script>`;

describe('runSteps', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/catalog': CATALOG,
      '/form': FORM,
      '/submit': (_req, res, body) => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<p id="received">${new URLSearchParams(body).toString()}</p>`);
      },
    },
  });
  let page: Page;
  beforeEach(async () => {
    page = await fixture.newPage();
  });

  const steps = (...input: StepInput[]) => indexSteps(input);

  it('extracts single values, attributes, lists of objects and plain lists', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const session = createMemorySession();
    const data = await runSteps(
      page,
      steps(
        { action: 'extract', name: 'title', selector: 'h1' },
        { action: 'extract', name: 'moreLink', selector: '#more', attribute: 'href' },
        { action: 'extract', name: 'absent', selector: '#more', attribute: 'data-nope' },
        {
          action: 'extract',
          name: 'items',
          selector: 'li.item',
          multiple: true,
          fields: {
            name: { selector: '.name' },
            price: { selector: '.price' },
            url: { selector: 'a', attribute: 'href' },
          },
        },
        { action: 'extract', name: 'names', selector: 'li.item .name', multiple: true },
        { action: 'extract', name: 'links', selector: 'li.item a', attribute: 'href', multiple: true },
        { action: 'extract', name: 'nothing', selector: '.does-not-exist', multiple: true },
      ),
      session,
    );

    expect(data).toEqual({
      title: 'Products',
      moreLink: '/more',
      absent: null,
      items: [
        { name: 'Apple', price: '1.00', url: '/apple' },
        { name: 'Banana', price: null, url: '/banana' },
        { name: 'Cherry', price: '3.50', url: '/cherry' },
      ],
      names: ['Apple', 'Banana', 'Cherry'],
      links: ['/apple', '/banana', '/cherry'],
      nothing: [],
    });
    expect(session.steps.map((s) => [s.index, s.action, s.status])).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => [i, 'extract', 'completed']),
    );
    expect(session.steps[0]!.data).toBe('Products');
    expect(session.steps[3]!.data).toEqual(data.items);
  });

  it('drives a form with params and reaches the server with the filled values', async () => {
    await page.goto(fixture.server.url('/form'));
    const session = createMemorySession({ params: { query: 'blue shoes', color: 'green' } });
    const data = await runSteps(
      page,
      steps(
        { action: 'fill', selector: '#q', value: '{{params.query}} size 42' },
        { action: 'check', selector: '#agree' },
        { action: 'uncheck', selector: '#news' },
        { action: 'select', selector: '#color', value: '{{ params.color }}' },
        { action: 'hover', selector: '#menu' },
        { action: 'extract', name: 'status', selector: '#status' },
        { action: 'click', selector: '#reveal' },
        { action: 'waitFor', selector: '#late' },
        { action: 'waitFor', ms: 50 },
        { action: 'scroll' },
        { action: 'press', selector: '#q', key: 'Enter' },
        { action: 'waitFor', selector: '#received' },
        { action: 'extract', name: 'received', selector: '#received' },
      ),
      session,
    );

    const submitted = await fixture.server.waitForRequest((r) => r.path === '/submit');
    expect(new URLSearchParams(submitted.body).toString()).toBe('q=blue+shoes+size+42&agree=on&color=green');
    expect(data).toEqual({ status: 'hovered', received: 'q=blue+shoes+size+42&agree=on&color=green' });
    expect(session.steps.every((s) => s.status === 'completed')).toBe(true);
    expect(session.steps.map((s) => s.index)).toEqual([...Array(13).keys()]);
    // The sleep really slept; the others recorded their own timing.
    expect(session.steps[8]!.durationMs).toBeGreaterThanOrEqual(45);
  });

  it('scrolls the page to the bottom and an element into view', async () => {
    await page.goto(fixture.server.url('/form'));
    await runSteps(page, steps({ action: 'scroll' }), createMemorySession());
    expect(
      await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1),
    ).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    await runSteps(page, steps({ action: 'scroll', selector: '#bottom' }), createMemorySession());
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
  });

  it('presses a key on the page without a selector, and goes to relative URLs', async () => {
    await page.goto(fixture.server.url('/form'));
    await page.focus('#q');
    const session = createMemorySession();
    await runSteps(
      page,
      steps(
        { action: 'press', key: 'KeyA' },
        { action: 'goto', url: '/catalog' },
        { action: 'extract', name: 'h', selector: 'h1' },
      ),
      session,
    );
    expect(page.url()).toBe(fixture.server.url('/catalog'));
    expect(session.steps[2]!.data).toBe('Products');
  });

  it('saves screenshots as artifacts and records their id', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const session = createMemorySession();
    await runSteps(page, steps({ action: 'screenshot' }, { action: 'screenshot', fullPage: true }), session);
    expect(session.steps.map((s) => s.data)).toEqual([{ artifactId: 'artifact-1' }, { artifactId: 'artifact-2' }]);
    const png = session.artifacts.get('artifact-1')!;
    expect(png.contentType).toBe('image/png');
    expect(png.data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('records failed optional steps as skipped and goes on', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const session = createMemorySession();
    const data = await runSteps(
      page,
      steps(
        { action: 'click', selector: '#cookie-banner', optional: true, timeout: 300 },
        { action: 'extract', name: 'title', selector: 'h1' },
        { action: 'extract', name: 'subtitle', selector: 'h2', optional: true, timeout: 200 },
      ),
      session,
    );
    expect(data).toEqual({ title: 'Products' });
    expect(session.steps.map((s) => [s.index, s.status, s.error])).toEqual([
      [0, 'skipped', 'Timeout 300ms exceeded waiting for selector "#cookie-banner"'],
      [1, 'completed', null],
      [2, 'skipped', 'Timeout 200ms exceeded waiting for selector "h2"'],
    ]);
    expect(session.logs.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('fails on a missing selector with the step index and a one-line message', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const session = createMemorySession();
    const run = runSteps(
      page,
      steps(
        { action: 'extract', name: 'title', selector: 'h1' },
        { action: 'click', selector: '#more', timeout: 2000 },
        { action: 'click', selector: '#missing', timeout: 500 },
        { action: 'extract', name: 'never', selector: 'h1' },
      ),
      session,
    );
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect((error as StepFailedError).stepIndex).toBe(2);
    expect((error as StepFailedError).message).toBe(
      'Step 3 (click "#missing") failed: Timeout 500ms exceeded waiting for selector "#missing"',
    );
    expect(session.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'failed']);
    expect(session.steps[2]!.error).not.toContain('Call log');
  });

  it('names the reason when the element exists but is not actionable', async () => {
    await page.setContent('<button id="hidden" style="display:none">x</button>');
    const error = await runSteps(
      page,
      steps({ action: 'click', selector: '#hidden', timeout: 2_000 }),
      createMemorySession(),
    ).catch((e: unknown) => e as Error);
    expect(error.message).toMatch(
      /^Step 1 \(click "#hidden"\) failed: Timeout 2000ms exceeded waiting for "#hidden" to be ready \(element is not visible\)$/,
    );
  });

  it('fails a single extract whose element is missing', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const error = await runSteps(
      page,
      steps({ action: 'extract', name: 'x', selector: '.nope', timeout: 300 }),
      createMemorySession(),
    ).catch((e: unknown) => e as Error);
    expect(error.message).toBe(
      'Step 1 (extract x ".nope") failed: Timeout 300ms exceeded waiting for selector ".nope"',
    );
  });

  it('never runs a step past the session deadline, even an optional one', async () => {
    await page.goto(fixture.server.url('/catalog'));
    const session = createMemorySession({ deadline: Date.now() + 400 });
    const started = Date.now();
    const error = await runSteps(
      page,
      steps(
        { action: 'waitFor', selector: '#never', optional: true },
        { action: 'extract', name: 'title', selector: 'h1' },
      ),
      session,
    ).catch((e: unknown) => e as StepFailedError);
    // Generous for a loaded machine; the step's own timeout (30 s) is what it rules out.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error.deadlineExceeded).toBe(true);
    expect(error.stepIndex).toBe(0);
  });

  it('reads a long list of records quickly', async () => {
    const rows = Array.from(
      { length: 200 },
      (_v, i) => `<tr><td class="n">row ${i}</td><td class="v">${i * 2}</td><td><a href="/r/${i}">r</a></td></tr>`,
    );
    await page.setContent(`<table>${rows.join('')}</table>`);
    const started = Date.now();
    const data = await runSteps(
      page,
      steps({
        action: 'extract',
        name: 'rows',
        selector: 'tr',
        multiple: true,
        fields: { n: { selector: '.n' }, v: { selector: '.v' }, href: { selector: 'a', attribute: 'href' } },
      }),
      createMemorySession(),
    );
    const elapsed = Date.now() - started;
    expect((data.rows as unknown[]).length).toBe(200);
    expect((data.rows as unknown[])[199]).toEqual({ n: 'row 199', v: '398', href: '/r/199' });
    // The locator path took ~2.5 s here; the single round trip ~0.1-0.4 s even on a busy machine.
    expect(elapsed).toBeLessThan(1_500);
  });

  it('reads fields with Playwright-only selectors through locators', async () => {
    await page.setContent(
      `<div class="card"><b>Name</b><span>Ada</span><i>x</i></div><div class="card"><b>Name</b><span>Bob</span></div>`,
    );
    const data = await runSteps(
      page,
      steps({
        action: 'extract',
        name: 'cards',
        selector: '.card',
        multiple: true,
        fields: { label: { selector: 'b:has-text("Name")' }, who: { selector: 'span' }, extra: { selector: 'text=x' } },
      }),
      createMemorySession(),
    );
    expect(data.cards).toEqual([
      { label: 'Name', who: 'Ada', extra: 'x' },
      { label: 'Name', who: 'Bob', extra: null },
    ]);
  });

  it('reads fields inside open shadow roots, as Playwright selectors do', async () => {
    await page.setContent(`<x-card id="a"></x-card><x-card id="b"></x-card>
      <script>for (const [id, name] of [['a', 'Ada'], ['b', 'Bob']]) {
        document.getElementById(id).attachShadow({ mode: 'open' }).innerHTML = '<span class="name">' + name + '</span>';
      }</script>`);
    const data = await runSteps(
      page,
      steps({
        action: 'extract',
        name: 'cards',
        selector: 'x-card',
        multiple: true,
        fields: { name: { selector: '.name' } },
      }),
      createMemorySession(),
    );
    expect(data.cards).toEqual([{ name: 'Ada' }, { name: 'Bob' }]);
  });
});
