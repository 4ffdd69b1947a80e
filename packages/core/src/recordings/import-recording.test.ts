import { parse } from '@puppeteer/replay';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors';
import { indexSteps } from '../schemas/steps';
import { exportRecording } from './export-recording';
import { importRecording } from './import-recording';

// The repository's Recorder fixtures (real exports and real-style ones), shared with the e2e tests.
const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'recordings');
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Record<string, unknown>;
const FIXTURE_NAMES = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.replace(/\.json$/, ''));

/** The AppError importRecording throws, for assertions on its code and details. */
function refusal(recording: unknown, options = {}): AppError {
  try {
    importRecording(recording, options);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('the recording was accepted');
}

const click = (selectors: unknown, extra: object = {}) => ({
  type: 'click',
  target: 'main',
  selectors,
  offsetX: 1,
  offsetY: 1,
  ...extra,
});

describe('importRecording', () => {
  it('converts the real Online Boutique export: viewport, clicks with alternatives, navigation waits', () => {
    const imported = importRecording(fixture('online-boutique-checkout'));
    expect(imported.title).toBe('RWC - Online Boutique');
    // The first navigate becomes the targetUrl and is dropped: every run opens it.
    expect(imported.targetUrl).toBe('https://frontend-eu.o11ystore.com/');
    expect(imported.warnings).toEqual([]);
    expect(imported.steps).toEqual([
      { action: 'setViewport', width: 1430, height: 1016 },
      {
        action: 'click',
        selector: [
          ['div:nth-of-type(2) > div:nth-of-type(2) a > div'],
          ['xpath//html/body/main/div/div/div[2]/div[2]/div/a/div'],
          ['pierce/div:nth-of-type(2) > div:nth-of-type(2) a > div'],
        ],
        waitForNavigation: { url: 'https://frontend-eu.o11ystore.com/product/66VCHSJNUP' },
      },
      expect.objectContaining({
        action: 'click',
        waitForNavigation: { url: 'https://frontend-eu.o11ystore.com/cart' },
      }),
      expect.objectContaining({
        action: 'click',
        selector: expect.arrayContaining([['aria/PLACE ORDER'], ['text/Place order']]),
      }),
    ]);
  });

  it('keeps escaped CSS, text/ with slashes and an aria/ chain from the real Tableau export', () => {
    const { steps } = importRecording(fixture('tableau-crosstab-download'));
    expect(steps).toHaveLength(15);
    expect(steps.at(-1)).toMatchObject({
      action: 'click',
      selector: expect.arrayContaining([['aria/Download Crosstab', 'aria/Download']]),
    });
    expect(JSON.stringify(steps)).toContain('text/5/9/2023');
    expect(JSON.stringify(steps)).toContain('#FI_federated\\\\.00w687c1maup7s1dd4wh40d7d2b6');
  });

  it('turns change into fill, keyDown/keyUp into press, doubleClick into clickCount 2, and warns about what it skips', () => {
    const imported = importRecording(fixture('search-with-select'));
    expect(imported.steps.map((step) => step.action)).toEqual([
      'setViewport',
      'fill',
      'click',
      'fill',
      'press',
      'waitFor',
      'scroll',
      'click',
    ]);
    // The recording's timeout becomes each step's.
    expect(imported.steps.every((step) => step.timeout === 10_000)).toBe(true);
    expect(imported.steps[4]).toEqual({
      action: 'press',
      key: 'Enter',
      timeout: 10_000,
      waitForNavigation: { url: 'https://books.example.org/results?category=science-fiction&q=dune' },
    });
    expect(imported.steps[5]).toMatchObject({ action: 'waitFor', operator: '>=', count: 2 });
    expect(imported.steps[6]).toEqual({ action: 'scroll', x: 0, y: 400, timeout: 10_000 });
    expect(imported.steps[7]).toMatchObject({ action: 'click', clickCount: 2 });
    expect(imported.warnings).toEqual([
      { recordingStep: 1, message: "step type 'emulateNetworkConditions' is not supported and was skipped" },
    ]);
  });

  it('keeps frame paths and selector chains', () => {
    const iframes = importRecording(fixture('payment-iframes')).steps;
    expect(iframes.map((step) => ('frame' in step ? step.frame : undefined))).toEqual([
      undefined,
      [0],
      [0],
      [0, 0],
      [0],
      undefined,
    ]);
    const shadow = importRecording(fixture('shadow-dom-shop')).steps;
    expect(shadow[1]).toMatchObject({
      action: 'fill',
      value: '3',
      // Typed key by key, as Chrome's replay puts a change in.
      keystrokes: true,
      selector: [
        ['shop-app', 'product-card:nth-of-type(2)', 'input.qty'],
        ['pierce/product-card:nth-of-type(2) input.qty'],
        ['aria/Quantity of Lamp'],
      ],
    });
    expect(shadow[3]).toMatchObject({ action: 'waitFor', attributes: { 'data-count': '3' } });
  });

  it('turns a waitForExpression into waitFor, and skips close with a warning', () => {
    const imported = importRecording(fixture('relabelled-site'));
    expect(imported.steps[1]).toEqual({ action: 'waitFor', expression: "document.cookie.includes('consent=yes')" });
    expect(imported.warnings).toEqual([
      { recordingStep: 7, message: "step type 'close' is not supported and was skipped" },
    ]);
  });

  it('makes modifier chords, and keeps a navigate that is not to the targetUrl', () => {
    const { steps, warnings } = importRecording(
      {
        title: 't',
        steps: [
          { type: 'navigate', url: 'https://a.example/start' },
          { type: 'keyDown', key: 'Shift' },
          { type: 'keyDown', key: 'A' },
          { type: 'keyUp', key: 'A' },
          { type: 'keyUp', key: 'Shift' },
          { type: 'keyDown', key: 'Control' },
          { type: 'keyUp', key: 'Control' },
          { type: 'keyUp', key: 'Tab' },
        ],
      },
      { targetUrl: 'https://a.example/' },
    );
    expect(steps).toEqual([
      { action: 'goto', url: 'https://a.example/start' },
      { action: 'press', key: 'Shift+A' },
      { action: 'press', key: 'Control' },
    ]);
    expect(warnings).toEqual([{ recordingStep: 7, message: "keyUp 'Tab' without its keyDown was skipped" }]);
  });

  it('warns about unknown fields with the 0-based step index, and about device emulation', () => {
    const { warnings } = importRecording({
      title: 't',
      futureField: 1,
      steps: [
        {
          type: 'setViewport',
          width: 400,
          height: 800,
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          isLandscape: false,
        },
        click(['#a'], { newChromeThing: true, deviceType: 'touch', duration: 80 }),
      ],
    });
    expect(warnings).toEqual([
      { recordingStep: null, message: "field 'futureField' is not supported and was ignored" },
      {
        recordingStep: 0,
        message: 'deviceScaleFactor, isMobile and hasTouch are not emulated; only the viewport size is set',
      },
      { recordingStep: 1, message: "field 'newChromeThing' is not supported and was ignored" },
      { recordingStep: 1, message: "deviceType 'touch' is replayed with a mouse" },
      { recordingStep: 1, message: 'duration is ignored: the click is a plain click' },
    ]);
  });

  it.each([
    [
      'a custom step',
      { type: 'customStep', name: 'x', parameters: {} },
      'steps.0',
      "step type 'customStep' is not supported",
    ],
    ['an unknown type', { type: 'teleport' }, 'steps.0', "step type 'teleport' is not supported"],
    [
      'another target',
      click(['#a'], { target: 'popup-1' }),
      'steps.0.target',
      "target 'popup-1' is not supported: only the main page",
    ],
    [
      'an unknown selector prefix',
      click(['#a', 'shadow/b']),
      'steps.0.selectors.1',
      "selector prefix 'shadow/' is not supported (aria/, xpath/, text/, pierce/ or CSS)",
    ],
    [
      'an unknown prefix in a chain',
      click([['#a', 'frame/b']]),
      'steps.0.selectors.0.1',
      expect.stringContaining("'frame/'"),
    ],
    ['a back button', click(['#a'], { button: 'back' }), 'steps.0.button', "mouse button 'back' is not supported"],
    ['a step that is not an object', 'click', 'steps.0', 'a step must be an object'],
    [
      'a click without selectors',
      { type: 'click', offsetX: 1, offsetY: 1 },
      'steps.0',
      'Step does not have required selectors',
    ],
    ['a click without offsets', { type: 'click', selectors: ['#a'] }, 'steps.0', 'Step.offsetX is not a number'],
    [
      'a viewport too small',
      {
        type: 'setViewport',
        width: 10,
        height: 10,
        deviceScaleFactor: 1,
        isMobile: false,
        hasTouch: false,
        isLandscape: false,
      },
      'steps.0',
      expect.stringContaining('width'),
    ],
    ['an empty selector', click([['']]), 'steps.0', expect.stringContaining('selector')],
    [
      'properties nested 100000 levels deep',
      {
        type: 'waitForElement',
        selectors: ['#a'],
        properties: JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`) as object,
      },
      'steps.0',
      'properties: must not nest deeper than 10 levels',
    ],
  ])('refuses %s with invalid_recording naming the step', (_name, step, path, message) => {
    const error = refusal({ title: 't', steps: [step] });
    expect(error.code).toBe('invalid_recording');
    expect(error.details).toEqual([{ path, message }]);
  });

  it('names every step it refuses, and refuses recordings that are not recordings', () => {
    const error = refusal({ title: 't', steps: [click(['#a']), { type: 'customStep', name: 'x' }, { type: 'nope' }] });
    expect(error.details).toEqual([
      { path: 'steps.1', message: "step type 'customStep' is not supported" },
      { path: 'steps.2', message: "step type 'nope' is not supported" },
    ]);
    expect(error.message).toBe(
      "The recording cannot be run: steps.1: step type 'customStep' is not supported (and 1 more)",
    );
    expect(refusal([]).details).toEqual([{ path: '(root)', message: 'a recording must be a JSON object' }]);
    expect(refusal({ title: 1, steps: {} }).details).toEqual([
      { path: 'title', message: 'must be a string' },
      { path: 'steps', message: 'must be an array' },
    ]);
    expect(refusal({ title: 't', timeout: 0, steps: [] }).details).toEqual([
      { path: 'timeout', message: 'must be an integer number of ms from 1 to 600000' },
    ]);
    const many = Array.from({ length: 501 }, () => ({ type: 'keyDown', key: 'a' }));
    expect(refusal({ title: 't', steps: many }).details).toEqual([
      { path: 'steps', message: 'becomes 501 steps; a bot has at most 500' },
    ]);
  });
});

describe('exportRecording', () => {
  it.each(FIXTURE_NAMES)(
    'gives back %s as a recording the Recorder parses, and import-export-import is stable',
    (name) => {
      const first = importRecording(fixture(name));
      const bot = { name: first.title, targetUrl: first.targetUrl ?? 'https://a.example/' };
      const exported = exportRecording(indexSteps(first.steps), bot);
      // @puppeteer/replay's parser is what Chrome's Recorder format is defined by.
      expect(() => parse(exported)).not.toThrow();
      expect(exported.steps[0]).toEqual({ type: 'navigate', url: bot.targetUrl });
      const again = importRecording(JSON.parse(JSON.stringify(exported)), { targetUrl: bot.targetUrl });
      expect(again.steps).toEqual(first.steps);
      expect(again.warnings).toEqual([]);
    },
  );

  it('exports botfleet steps the Recorder has no step for as their nearest equivalent, or leaves them out', () => {
    const exported = exportRecording(
      indexSteps([
        { action: 'goto', url: '/next?q={{params.q}}' },
        { action: 'goto', url: 'https://b.example/{{params.q}}' },
        { action: 'check', selector: '#agree' },
        { action: 'select', selector: '#size', value: 'L' },
        { action: 'press', key: 'Control++', selector: '#q' },
        { action: 'waitFor', ms: 250 },
        { action: 'scroll' },
        { action: 'extract', name: 'x', selector: 'h1' },
        { action: 'screenshot' },
        { action: 'click', selector: '#menu', button: 'right', timeout: 500 },
      ]),
      { name: 'bot', targetUrl: 'https://a.example/start' },
    );
    expect(() => parse(exported)).not.toThrow();
    expect(exported.steps).toEqual([
      { type: 'navigate', url: 'https://a.example/start' },
      { type: 'navigate', url: 'https://a.example/next?q={{params.q}}' },
      { type: 'navigate', url: 'https://b.example/{{params.q}}' },
      { type: 'click', target: 'main', selectors: [['#agree']], offsetX: 1, offsetY: 1 },
      { type: 'change', target: 'main', selectors: [['#size']], value: 'L' },
      { type: 'keyDown', target: 'main', key: 'Control' },
      { type: 'keyDown', target: 'main', key: '+' },
      { type: 'keyUp', target: 'main', key: '+' },
      { type: 'keyUp', target: 'main', key: 'Control' },
      { type: 'waitForExpression', expression: 'new Promise((resolve) => setTimeout(() => resolve(true), 250))' },
      { type: 'scroll', x: 0, y: 10_000_000 },
      {
        type: 'click',
        target: 'main',
        selectors: [['#menu']],
        offsetX: 1,
        offsetY: 1,
        button: 'secondary',
        timeout: 500,
      },
    ]);
  });
});

describe('credential bindings', () => {
  const CREDENTIAL = 'crd_01kdvdna00q3v6n9r2t8w4y5z7';
  const login = (credentials: unknown) => ({
    title: 'Log in',
    steps: [
      { type: 'navigate', url: 'https://a.example/' },
      { type: 'change', selectors: [['#pass']], value: 'recorded-secret' },
      { type: 'click', selectors: [['#go']], offsetX: 1, offsetY: 1 },
    ],
    credentials,
  });

  it('fills a bound change step from the credential, drops the recorded text, and exports the binding back', () => {
    const imported = importRecording(login([{ step: 1, credential: CREDENTIAL, field: 'password' }]));
    expect(imported.steps[0]).toEqual({
      action: 'fill',
      selector: [['#pass']],
      value: { credential: CREDENTIAL, field: 'password' },
      keystrokes: true,
    });
    expect(JSON.stringify(imported)).not.toContain('recorded-secret');
    expect(imported.warnings).toEqual([]);

    const exported = exportRecording(indexSteps(imported.steps), { name: 'Log in', targetUrl: 'https://a.example/' });
    expect(() => parse(exported)).not.toThrow();
    expect(exported.steps[1]).toMatchObject({ type: 'change', value: '' });
    expect(exported.credentials).toEqual([{ step: 1, credential: CREDENTIAL, field: 'password' }]);
    expect(importRecording(JSON.parse(JSON.stringify(exported))).steps).toEqual(imported.steps);
    // Without credential fills, the export is the Recorder's format alone.
    expect(exportRecording([], { name: 'x', targetUrl: 'https://a.example/' })).not.toHaveProperty('credentials');
  });

  it.each([
    ['a click step', [{ step: 2, credential: CREDENTIAL, field: 'password' }], "a 'click' step"],
    ['a missing step', [{ step: 7, credential: CREDENTIAL, field: 'password' }], 'does not have'],
    [
      'a step twice',
      [
        { step: 1, credential: CREDENTIAL, field: 'password' },
        { step: 1, credential: CREDENTIAL, field: 'username' },
      ],
      'second time',
    ],
    ['an unknown field', [{ step: 1, credential: CREDENTIAL, field: 'pin' }], ''],
    ['not a list', { step: 1 }, ''],
  ])('refuses a binding of %s as invalid_recording, naming it', (_why, credentials, message) => {
    const error = refusal(login(credentials));
    expect(error.code).toBe('invalid_recording');
    const detail = (error.details as { path: string; message: string }[]).find((d) => d.path.startsWith('credentials'));
    expect(detail?.message).toContain(message);
  });
});
