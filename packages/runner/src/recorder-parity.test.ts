import { AppError, importRecording, indexSteps } from '@botfleet/core';
import { RUNNABLE_RECORDINGS, startRecordingSite, type RecordedRequest } from '@botfleet/testkit';
import type { Browser } from 'puppeteer-core';
import { resolveChromiumPath } from './chromium-path';
import { generateScript } from './codegen';
import { runSandboxedScript } from './sandbox';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture } from './testing';
import {
  PARITY_HOST_RULES,
  parityRecordingNames,
  SETTLE_PAGE_EXPRESSION,
  startParitySite,
  type PageLogEntry,
  type ParitySite,
} from './testing/recorder-parity/parity-site';
import {
  launchReferenceBrowser,
  replayWithPuppeteer,
  type EvaluateInPage,
  type ReplayOutcome,
} from './testing/recorder-parity/reference-replay';

/*
 * Recorder parity: every recording in test/fixtures/recorder-parity/recordings is replayed
 * against the same loopback pages three times: by @puppeteer/replay (Chrome's own replay, the
 * reference), by botfleet's step interpreter, and by the script botfleet generates from the same
 * steps. What the pages logged (clicks, inputs, keys, submits, loads, hovers, scrolls) must be
 * equal. The recordings in test/fixtures/recordings are replayed the same way against their
 * loopback sites, where what the server received and what the last page shows must be equal.
 * Where botfleet differs by design, a test below names the difference and pins it.
 */

/** How long a step may wait (ms), every way: generous for a busy machine. */
const STEP_TIMEOUT_MS = 15_000;

type Runner = 'reference' | 'interpreter' | 'script';
const BOTFLEET_RUNNERS = ['interpreter', 'script'] as const;

/**
 * What counts of a page log: typing fires an input event per character, filling one, so only
 * the value an input ends with counts; likewise where a scroll ends. The pointer entering an
 * element it was last over again (the page moved under it) is not a new hover. Frames loading
 * side by side finish in the network's order, not the replay's (CI saw frames-attach-order's two
 * frames swap): a run of consecutive loads counts by frame, each frame's own loads kept in order.
 */
function normalize(entries: readonly PageLogEntry[]): PageLogEntry[] {
  const out: PageLogEntry[] = [];
  const lastOver = new Map<string, unknown>();
  for (const entry of entries) {
    if (entry.type === 'pointerover') {
      if (lastOver.get(entry.frame) === entry.target) continue;
      lastOver.set(entry.frame, entry.target);
    }
    const last = out.at(-1);
    const collapses = entry.type === 'input' || entry.type === 'scroll';
    if (collapses && last && last.type === entry.type && last.frame === entry.frame && last.target === entry.target) {
      out[out.length - 1] = entry;
    } else out.push(entry);
  }
  return orderSideBySideLoads(out);
}

function orderSideBySideLoads(entries: PageLogEntry[]): PageLogEntry[] {
  const out: PageLogEntry[] = [];
  let loads: PageLogEntry[] = [];
  const flush = () => {
    // Array.prototype.sort is stable: one frame's loads keep their order.
    out.push(...loads.sort((a, b) => (a.frame < b.frame ? -1 : a.frame > b.frame ? 1 : 0)));
    loads = [];
  };
  for (const entry of entries) {
    if (entry.type === 'load') loads.push(entry);
    else {
      flush();
      out.push(entry);
    }
  }
  flush();
  return out;
}

/** A failed replay's outcome: the error's message. */
const outcomeOf = (error: unknown): ReplayOutcome => ({
  ok: false,
  message: error instanceof Error ? error.message : String(error),
});

type SiteReplay = { outcome: ReplayOutcome; log: PageLogEntry[] };

/** The elements a replay clicked, in order. */
const clickedTargets = (run: SiteReplay) =>
  run.log.filter((entry) => entry.type === 'click').map((entry) => entry.target);

/**
 * Recordings botfleet replays otherwise than @puppeteer/replay, on purpose; `pin` states how.
 */
const DIFFERENCES: Record<string, { pin: (reference: SiteReplay, botfleet: SiteReplay) => void }> = {
  /*
   * Offsets: the Recorder writes where in the element the user clicked (offsetX/offsetY);
   * @puppeteer/replay clicks that point, botfleet clicks the element's centre (Playwright's
   * actionability: visible, stable, enabled, not covered). A recorded point belongs to the
   * recording's layout and viewport; here the point (1, 1) of an SVG path's box lies outside the
   * path's shape, so the reference's click lands on the <svg> and botfleet's on the <path> the
   * recording names.
   */
  'replay-svg-click': {
    pin(reference, botfleet) {
      expect(reference.outcome).toEqual({ ok: true });
      expect(botfleet.outcome).toEqual({ ok: true });
      expect(clickedTargets(reference)).toEqual(['html:0 body:1 svg:0', 'html:0 body:1 svg:0']);
      expect(clickedTargets(botfleet)).toEqual(['html:0 body:1 svg:0 path:0', 'html:0 body:1 svg:0 path:0']);
    },
  },
  /*
   * Actionability: a button under a loading overlay (gone when clicked, or 4 s after load).
   * @puppeteer/replay clicks the button's point at once and hits the overlay; botfleet
   * (Playwright) waits until nothing covers the button, then clicks it.
   */
  'own-covered-element': {
    pin(reference, botfleet) {
      expect(reference.outcome).toEqual({ ok: true });
      expect(botfleet.outcome).toEqual({ ok: true });
      expect(clickedTargets(reference)).toEqual([expect.stringContaining('div#overlay')]);
      expect(clickedTargets(botfleet)).toEqual([expect.stringContaining('button#target')]);
    },
  },
  /*
   * Scrolling into view inside a scrolling list: both scroll the list to the same place and click
   * the same item, but @puppeteer/replay waits for a stable box over two frames, so the page sees
   * the scroll before the pointer arrives; Playwright scrolls and clicks within one frame, so the
   * page sees the scroll after the click. The same entries, in another order.
   */
  'own-scroll-container': {
    pin(reference, botfleet) {
      const sorted = (run: SiteReplay) => run.log.map((entry) => JSON.stringify(entry)).sort();
      expect(reference.outcome).toEqual({ ok: true });
      expect(botfleet.outcome).toEqual({ ok: true });
      expect(sorted(botfleet)).toEqual(sorted(reference));
    },
  },
  /*
   * waitForElement without an `operator`: the format documents `==` as the default, and
   * botfleet's API contract follows it; @puppeteer/replay's runner uses `>=`. With two matches
   * and the default count of 1 the reference goes on and botfleet waits until its timeout.
   */
  'differs-operator-default': {
    pin(reference, botfleet) {
      expect(reference.outcome).toEqual({ ok: true });
      expect(botfleet.outcome).toMatchObject({
        ok: false,
        message: expect.stringContaining('No selector alternative matched == 1 element within 1000 ms'),
      });
    },
  },
};

type FixtureReplay = { runner: Runner; outcome: ReplayOutcome; received: unknown[]; shown: unknown };

/** Recording fixtures botfleet replays otherwise than @puppeteer/replay, on purpose. */
const FIXTURE_DIFFERENCES: Partial<
  Record<string, { pin: (reference: FixtureReplay, botfleet: readonly FixtureReplay[]) => void }>
> = {
  /*
   * A navigation asserted on a keyUp (Enter submits the search form on its keyDown): botfleet
   * makes the keyDown and keyUp one press step and starts waiting for the navigation before the
   * key goes down, so it sees it; @puppeteer/replay starts waiting at the keyUp, after the
   * navigation began, and times out. Botfleet goes on to the results page's last steps.
   */
  'search-with-select': {
    pin(reference, botfleet) {
      expect(reference.outcome).toMatchObject({ ok: false, message: expect.stringContaining('Navigation timeout') });
      for (const run of botfleet) {
        expect(run.outcome).toEqual({ ok: true });
        expect(run.received).toEqual(reference.received);
      }
    },
  },
};

/**
 * Recordings @puppeteer/replay runs and botfleet refuses to import (400 invalid_recording), as
 * its API contract says: steps in another target (a popup, or an out-of-process frame recorded
 * as its own target), custom steps (the reference runs them as no-ops), and the mouse's back and
 * forward buttons.
 */
const REFUSED: Record<
  string,
  { steps: (origin: string, otherOrigin: string) => object[]; detail: { path: string; message: string } }
> = {
  'a step in a popup': {
    steps: (origin) => [
      { type: 'navigate', url: `${origin}/main.html` },
      { type: 'click', target: 'main', selectors: [['aria/Open Popup'], ['#popup']], offsetX: 1, offsetY: 1 },
      { type: 'click', target: `${origin}/popup.html`, selectors: [['body > button']], offsetX: 1, offsetY: 1 },
    ],
    detail: { path: 'steps.2.target', message: expect.stringContaining('is not supported: only the main page') },
  },
  'a step in an out-of-process frame recorded as its own target': {
    steps: (origin, otherOrigin) => [
      { type: 'navigate', url: `${origin}/oopif.html` },
      {
        type: 'click',
        target: `${otherOrigin}/iframe1.html`,
        selectors: [['aria/To iframe 2'], ['body > a']],
        offsetX: 1,
        offsetY: 1,
      },
    ],
    detail: { path: 'steps.1.target', message: expect.stringContaining('is not supported: only the main page') },
  },
  'a custom step': {
    steps: (origin) => [
      { type: 'navigate', url: `${origin}/main.html` },
      { type: 'customStep', name: 'log', parameters: {} },
      { type: 'click', target: 'main', selectors: [['#test']], offsetX: 1, offsetY: 1 },
    ],
    detail: { path: 'steps.1', message: "step type 'customStep' is not supported" },
  },
  'the back mouse button': {
    steps: (origin) => [
      { type: 'navigate', url: `${origin}/main.html` },
      { type: 'click', target: 'main', selectors: [['#test']], button: 'back', offsetX: 1, offsetY: 1 },
    ],
    detail: { path: 'steps.1.button', message: "mouse button 'back' is not supported" },
  },
};

describe('recorder parity: botfleet replays recordings as @puppeteer/replay does', () => {
  const fixture = useBrowserFixture({ browserArgs: () => [PARITY_HOST_RULES] });
  let site: ParitySite;
  let reference: Browser;

  beforeAll(async () => {
    site = await startParitySite();
    const chromium = resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH });
    reference = await launchReferenceBrowser(chromium, [PARITY_HOST_RULES]);
  });
  afterAll(async () => {
    await reference?.close();
    await site?.close();
  });

  /**
   * Replays `recording` one way and reads its effects with `read` once the page settled (before
   * the page closes: closing blurs inputs, which pages see).
   */
  async function replay<T>(
    runner: Runner,
    recording: object,
    read: (evaluate: EvaluateInPage) => Promise<T>,
  ): Promise<{ outcome: ReplayOutcome; effects: T }> {
    let effects: T | undefined;
    if (runner === 'reference') {
      const outcome = await replayWithPuppeteer(reference, recording, STEP_TIMEOUT_MS, async (evaluate) => {
        effects = await read(evaluate);
      });
      return { outcome, effects: effects as T };
    }
    const { steps: input, targetUrl } = importRecording(recording);
    const steps = indexSteps(input.map((step) => ({ timeout: STEP_TIMEOUT_MS, ...step })));
    const page = await fixture.newPage();
    const session = createMemorySession();
    let outcome: ReplayOutcome = { ok: true };
    try {
      // As a run does: the bot's targetUrl first (the import dropped the navigate to it).
      await page.goto(targetUrl!, { waitUntil: 'load' });
      if (runner === 'interpreter') await runSteps(page, steps, session);
      else await runSandboxedScript({ source: generateScript(steps), page, session, timeoutMs: 120_000 });
    } catch (error) {
      outcome = outcomeOf(error);
    }
    await page.evaluate(SETTLE_PAGE_EXPRESSION).catch(() => undefined);
    const pageEffects = await read((expression) => page.evaluate(expression));
    // Closed before the next runner starts: a page left open still sees the pointer (CI saw the
    // interpreter's page log a hover while the script's replay ran).
    await page.context().close();
    return { outcome, effects: pageEffects };
  }

  /** Replays a corpus recording; its effects are what the pages logged. */
  async function replayOnSite(runner: Runner, recording: object) {
    site.reset();
    const { outcome, effects } = await replay(runner, recording, async () => normalize(site.log()));
    return { outcome, log: effects };
  }

  describe('the corpus', () => {
    const names = parityRecordingNames().filter((name) => !(name in DIFFERENCES));

    it('has at least 20 recordings replayed alike', () => {
      expect(names.length).toBeGreaterThanOrEqual(20);
    });

    it.each(names)('%s', async (name) => {
      const recording = site.recording(name);
      const expected = await replayOnSite('reference', recording);
      expect(expected.outcome).toEqual({ ok: true });
      // A recording whose replay the pages did not notice would prove nothing.
      expect(expected.log.filter((entry) => entry.type !== 'load').length).toBeGreaterThan(0);
      for (const runner of BOTFLEET_RUNNERS) {
        expect({ runner, ...(await replayOnSite(runner, recording)) }).toEqual({ runner, ...expected });
      }
    });
  });

  describe('differences by design', () => {
    it.each(Object.entries(DIFFERENCES))('%s', async (name, difference) => {
      const recording = site.recording(name);
      const expected = await replayOnSite('reference', recording);
      for (const runner of BOTFLEET_RUNNERS) difference.pin(expected, await replayOnSite(runner, recording));
    });

    it.each(Object.entries(REFUSED))('%s', async (_name, refused) => {
      const recording = { title: 'refused', steps: refused.steps(site.origin, site.otherOrigin) };
      const expected = await replayOnSite('reference', recording);
      expect(expected.outcome).toEqual({ ok: true });
      let refusal: unknown;
      try {
        importRecording(recording);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ code: 'invalid_recording', details: [refused.detail] });
    });
  });

  describe.each(RUNNABLE_RECORDINGS)('the recording fixture %s, on its loopback site', (name) => {
    /*
     * A last `close` step is left out every way: the reference closes the page, so nothing could
     * be read from it (botfleet skips the step with a warning; its run ends the page anyway).
     */
    const withoutClose = (recording: Record<string, unknown>) => {
      const steps = recording.steps as { type: string }[];
      return { ...recording, steps: steps.at(-1)?.type === 'close' ? steps.slice(0, -1) : steps };
    };
    /** What the site's server received (the favicon aside: Chromium asks for it when it likes). */
    const received = (requests: readonly RecordedRequest[]) =>
      requests
        .filter((request) => request.path !== '/favicon.ico')
        .map(({ method, path, body }) => ({ method, path, body }));

    it('has the same effects', async () => {
      const runs = [];
      for (const runner of ['reference', ...BOTFLEET_RUNNERS] as const) {
        // A fresh site each time: sites keep state (a cart, a sent form) on the server.
        const recordingSite = await startRecordingSite(name);
        try {
          const { outcome, effects } = await replay(
            runner,
            withoutClose(recordingSite.recording),
            async (evaluate) => ({
              received: received(recordingSite.server.requests),
              shown: await evaluate('document.body.innerText'),
            }),
          );
          runs.push({ runner, outcome, ...effects });
        } finally {
          await recordingSite.close();
        }
      }
      const [expected, ...actual] = runs;
      const difference = FIXTURE_DIFFERENCES[name];
      if (difference) return difference.pin(expected!, actual);
      expect(expected).toMatchObject({ outcome: { ok: true } });
      for (const run of actual) expect({ ...run, runner: expected!.runner }).toEqual(expected);
    });
  });
});
