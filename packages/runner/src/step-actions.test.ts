import { indexSteps, STEP_ACTIONS, type StepAction, type StepInput } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { generateScript } from './codegen';
import { runSandboxedScript } from './sandbox';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture, type MemorySession } from './testing';

/*
 * Each step action is performed two ways: by the step interpreter, and by the script generated
 * from the steps, run in the sandbox. Both must leave the same page, record the same step
 * outputs and return the same data. A new action adds its cases here (the type requires them).
 */

const ACTIONS_PAGE = `<!doctype html><title>Actions</title>
<h1 id="title">  Actions  </h1>
<input id="q" aria-label="Search query">
<select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<label><input type="checkbox" id="agree"> agree</label>
<label><input type="checkbox" id="news" checked> news</label>
<button id="go" onclick="note('clicked')">Go</button>
<div id="menu" onmouseenter="note('hovered')">Menu</div>
<ul>
  <li class="item" data-sku="a1"><span class="name"> Apple </span><span class="price">1.00</span><a href="/apple">more</a></li>
  <li class="item" data-sku="b2"><span class="name">Banana</span></li>
</ul>
<p id="late" hidden>late</p>
<div style="height: 3000px"></div>
<p id="footer">bottom</p>
<div style="height: 400px; overflow: hidden">
<button id="dbl" ondblclick="note('double-clicked')" oncontextmenu="note('right-clicked'); return false">Twice</button>
<a id="next" href="/next?from=link">next page</a>
<div id="host"></div>
<iframe id="frame" srcdoc="<button onclick='parent.note(&quot;framed&quot;)'>In the frame</button>"></iframe>
<div id="box" style="height: 50px; overflow: auto"><div style="height: 500px">tall</div></div>
</div>
<script>
  const shadow = document.getElementById('host').attachShadow({ mode: 'open' });
  shadow.innerHTML = '<button class="inner">Shadowed</button>';
  shadow.querySelector('button').addEventListener('click', () => note('shadowed'));
</script>
<script>
  window.events = [];
  function note(event) { window.events.push(event); }
  document.addEventListener('keydown', (e) => note('key ' + e.key));
  setTimeout(() => { document.getElementById('late').hidden = false; }, 150);
</script>`;
/** The same page with #late shown from the start: its height does not change after load. */
const SETTLED_ACTIONS_PAGE = ACTIONS_PAGE.replace('<p id="late" hidden>', '<p id="late">');

interface PageState {
  path: string;
  events: string[];
  q: string;
  size: string;
  agree: boolean;
  news: boolean;
  scrolledDown: boolean;
  width: number;
  boxScroll: number;
}

function readPageState(page: Page): Promise<PageState> {
  return page.evaluate(() => ({
    path: location.pathname + location.search,
    events: (window as unknown as { events: string[] }).events,
    q: (document.getElementById('q') as HTMLInputElement).value,
    size: (document.getElementById('size') as HTMLSelectElement).value,
    agree: (document.getElementById('agree') as HTMLInputElement).checked,
    news: (document.getElementById('news') as HTMLInputElement).checked,
    scrolledDown: window.scrollY > 1000,
    width: window.innerWidth,
    boxScroll: (document.getElementById('box') as HTMLElement).scrollTop,
  }));
}

interface AgreementCase {
  name: string;
  /** The fixture page the case starts on (default /actions). */
  path?: string;
  steps: readonly StepInput[];
  params?: Record<string, unknown>;
  /** What both ways must have done, so agreeing on nothing cannot pass. */
  expected: { page?: Partial<PageState>; data?: Record<string, unknown>; outputs?: unknown[] };
}

/** Every action needs cases, each made of steps of that action. */
type AgreementCases = {
  [A in StepAction]: ReadonlyArray<AgreementCase & { steps: ReadonlyArray<Extract<StepInput, { action: A }>> }>;
};

const CASES: AgreementCases = {
  goto: [
    {
      name: 'a relative URL with a param',
      steps: [{ action: 'goto', url: '/next?q={{params.q}}' }],
      params: { q: 'a b' },
      expected: { page: { path: '/next?q=a%20b' } },
    },
  ],
  click: [
    { name: 'a button', steps: [{ action: 'click', selector: '#go' }], expected: { page: { events: ['clicked'] } } },
    {
      name: 'selector alternatives: the first that matches wins, and the output names it',
      steps: [
        { action: 'click', selector: [['#gone'], 'xpath//html/body/button[@id="go"]', '#go'], timeout: 5_000 },
        { action: 'click', selector: ['aria/TWICE[role="button"]'], clickCount: 2 },
        { action: 'click', selector: ['text/twice'], button: 'right' },
      ],
      expected: {
        page: { events: ['clicked', 'double-clicked', 'right-clicked'] },
        outputs: [
          { selector: 'xpath//html/body/button[@id="go"]' },
          { selector: 'aria/TWICE[role="button"]' },
          { selector: 'text/twice' },
        ],
      },
    },
    {
      name: 'chains through a shadow root, a frame path, a roleless aria name',
      steps: [
        { action: 'click', selector: [['#host', 'button.inner']] },
        { action: 'click', selector: [['aria/In the frame']], frame: [0] },
        { action: 'click', selector: [['#frame', 'button']] },
        { action: 'click', selector: ['pierce/#host button'] },
      ],
      expected: {
        page: { events: ['shadowed', 'framed', 'framed', 'shadowed'] },
        outputs: [
          { selector: ['#host', 'button.inner'] },
          { selector: ['aria/In the frame'] },
          { selector: ['#frame', 'button'] },
          { selector: 'pierce/#host button' },
        ],
      },
    },
    {
      name: 'a link, waiting for the navigation it starts',
      steps: [{ action: 'click', selector: ['#next'], waitForNavigation: {} }],
      expected: { page: { path: '/next?from=link' } },
    },
  ],
  hover: [
    {
      name: 'an element',
      steps: [{ action: 'hover', selector: '#menu' }],
      expected: { page: { events: ['hovered'] } },
    },
  ],
  check: [
    { name: 'a checkbox', steps: [{ action: 'check', selector: '#agree' }], expected: { page: { agree: true } } },
  ],
  uncheck: [
    { name: 'a checkbox', steps: [{ action: 'uncheck', selector: '#news' }], expected: { page: { news: false } } },
  ],
  fill: [
    {
      name: 'alternatives: an input by its aria name, then a <select> by its option label',
      steps: [
        { action: 'fill', selector: [['aria/Search query']], value: 'shoes' },
        { action: 'fill', selector: [['#size']], value: 'Large' },
      ],
      expected: {
        page: { q: 'shoes', size: 'l' },
        outputs: [{ selector: ['aria/Search query'] }, { selector: ['#size'] }],
      },
    },
    {
      name: 'templated text',
      steps: [{ action: 'fill', selector: '#q', value: '{{params.q}} size 42' }],
      params: { q: 'blue' },
      expected: { page: { q: 'blue size 42' } },
    },
    {
      name: 'keystrokes: typed after a prefix already there, a select by value, a checkbox toggled',
      steps: [
        { action: 'fill', selector: '#q', value: 'ab' },
        { action: 'fill', selector: [['#q']], value: 'abc', keystrokes: true },
        { action: 'fill', selector: [['#size']], value: 'l', keystrokes: true },
        { action: 'fill', selector: [['#agree']], value: 'on', keystrokes: true },
        { action: 'fill', selector: [['#news']], value: 'on', keystrokes: true },
      ],
      // Only 'c' was typed; #news was checked already, so it was left alone.
      expected: { page: { q: 'abc', size: 'l', agree: true, news: true, events: ['key c'] } },
    },
  ],
  select: [
    {
      name: 'by label',
      steps: [{ action: 'select', selector: '#size', value: 'Large' }],
      expected: { page: { size: 'l' } },
    },
  ],
  press: [
    {
      name: 'on an element, then on the page',
      steps: [
        { action: 'press', selector: '#q', key: 'KeyA' },
        { action: 'press', key: 'Enter' },
      ],
      expected: { page: { q: 'a', events: ['key a', 'key Enter'] } },
    },
  ],
  waitFor: [
    {
      name: 'an element that appears late, then a sleep',
      steps: [
        { action: 'waitFor', selector: '#late', timeout: 5_000 },
        { action: 'waitFor', ms: 50 },
      ],
      expected: {},
    },
    {
      name: 'counts, inverted waits, attributes, properties and an expression',
      steps: [
        { action: 'waitFor', selector: [['.nothing'], ['.item']], count: 2 },
        { action: 'waitFor', selector: ['.item'], count: 2, operator: '>=', attributes: { class: 'item' } },
        // Inverted: not every .item is b2, so "one .item, all b2" does not hold.
        { action: 'waitFor', selector: ['.item'], attributes: { 'data-sku': 'b2' }, visible: false },
        { action: 'waitFor', selector: '#late', visible: true, timeout: 5_000 },
        { action: 'waitFor', selector: ['#gone'], count: 0 },
        { action: 'waitFor', selector: ['#gone'], visible: false },
        { action: 'waitFor', selector: ['#q'], properties: { value: '', type: 'text' } },
        { action: 'waitFor', expression: 'document.getElementById("late").hidden === false', timeout: 5_000 },
        { action: 'waitFor', expression: 'document.body.textContent.includes("In the frame")', frame: [0] },
      ],
      expected: {
        outputs: [
          { selector: ['.item'] },
          { selector: '.item' },
          { selector: '.item' },
          { selector: '#late' },
          { selector: '#gone' },
          { selector: '#gone' },
          { selector: '#q' },
          null,
          null,
        ],
      },
    },
  ],
  scroll: [
    {
      name: 'an element into view',
      steps: [{ action: 'scroll', selector: '#footer' }],
      expected: { page: { scrolledDown: true } },
    },
    { name: 'the page to the bottom', steps: [{ action: 'scroll' }], expected: { page: { scrolledDown: true } } },
    {
      name: 'the page and an element to a point',
      steps: [
        { action: 'scroll', x: 0, y: 1500 },
        { action: 'scroll', selector: [['#box']], x: 0, y: 60 },
      ],
      expected: { page: { scrolledDown: true, boxScroll: 60 }, outputs: [null, { selector: ['#box'] }] },
    },
  ],
  setViewport: [
    {
      name: 'a smaller viewport',
      steps: [{ action: 'setViewport', width: 640, height: 480 }],
      expected: { page: { width: 640 } },
    },
  ],
  extract: [
    {
      name: 'single values, lists and records',
      steps: [
        { action: 'extract', name: 'title', selector: 'h1' },
        { action: 'extract', name: 'link', selector: 'a', attribute: 'href' },
        { action: 'extract', name: 'absent', selector: 'h1', attribute: 'data-nope' },
        { action: 'extract', name: 'names', selector: '.item .name', multiple: true },
        { action: 'extract', name: 'skus', selector: '.item', attribute: 'data-sku', multiple: true },
        { action: 'extract', name: 'none', selector: '.nothing', multiple: true },
        {
          action: 'extract',
          name: 'items',
          selector: '.item',
          multiple: true,
          fields: {
            name: { selector: '.name' },
            price: { selector: '.price' },
            more: { selector: 'text=more', attribute: 'href' },
          },
        },
      ],
      expected: {
        data: {
          title: 'Actions',
          link: '/apple',
          absent: null,
          names: ['Apple', 'Banana'],
          skus: ['a1', 'b2'],
          none: [],
          items: [
            { name: 'Apple', price: '1.00', more: '/apple' },
            { name: 'Banana', price: null, more: null },
          ],
        },
      },
    },
  ],
  screenshot: [
    {
      name: 'the viewport, then the full page',
      // On /actions the page grows when #late appears, 150 ms after load: the full page's height
      // would depend on which way got there first.
      path: '/settled',
      steps: [{ action: 'screenshot' }, { action: 'screenshot', fullPage: true }],
      expected: { outputs: [{ artifactId: 'artifact-1' }, { artifactId: 'artifact-2' }] },
    },
  ],
};

/** A PNG's content type and size (from its IHDR chunk): what both ways must agree on. */
function artifactShapes(session: MemorySession) {
  return [...session.artifacts.values()].map(({ contentType, data }) => ({
    contentType,
    signature: data.subarray(0, 8).toString('hex'),
    width: data.readUInt32BE(16),
    height: data.readUInt32BE(20),
  }));
}

describe('step actions: the interpreter and the generated script agree', () => {
  const fixture = useBrowserFixture({
    routes: { '/actions': ACTIONS_PAGE, '/next': ACTIONS_PAGE, '/settled': SETTLED_ACTIONS_PAGE },
  });

  async function perform(
    how: 'interpreter' | 'script',
    { path = '/actions', steps: input, params = {} }: AgreementCase,
  ) {
    const steps = indexSteps(input);
    const page = await fixture.newPage(path);
    const session = createMemorySession({ params });
    const data =
      how === 'interpreter'
        ? await runSteps(page, steps, session)
        : await runSandboxedScript({ source: generateScript(steps), page, session, timeoutMs: 20_000 });
    return {
      data,
      outputs: session.steps.map((step) => ({ status: step.status, data: step.data })),
      page: await readPageState(page),
      artifacts: artifactShapes(session),
    };
  }

  it('has cases for every registered action', () => {
    expect(Object.keys(CASES).sort()).toEqual(STEP_ACTIONS.map((definition) => definition.action).sort());
  });

  const cases = Object.entries(CASES).flatMap(([action, list]: [string, readonly AgreementCase[]]) =>
    list.map((c) => [`${action}: ${c.name}`, c] as const),
  );
  it.each(cases)('%s', async (_name, agreementCase) => {
    const { steps, expected } = agreementCase;
    const interpreted = await perform('interpreter', agreementCase);
    const scripted = await perform('script', agreementCase);
    expect(scripted).toEqual(interpreted);
    expect(interpreted.outputs.map((output) => output.status)).toEqual(steps.map(() => 'completed'));
    expect(interpreted.page).toMatchObject(expected.page ?? {});
    expect(interpreted.data).toEqual(expected.data ?? {});
    if (expected.outputs) expect(interpreted.outputs.map((output) => output.data)).toEqual(expected.outputs);
  });
});
