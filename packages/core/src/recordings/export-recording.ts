import type { Step } from '../steps/registry';
import type { ElementSelector, SelectorAlternative } from '../steps/element-selector';
import type { NavigationWait } from '../steps/navigation-wait';
import { chordKeys } from './key-chords';
import type { CredentialBinding } from './recording-schema';

type RecordingStep = Record<string, unknown> & { type: string };

/** A recording as Chrome DevTools' Recorder imports it. */
// A type, not an interface: it must fit RecordingSchema's open object (an index signature) as a response body.
export type ExportedRecording = {
  title: string;
  steps: RecordingStep[];
  /** Which exported `change` steps fill from a credential (their value is left empty); only when some do. */
  credentials?: CredentialBinding[];
};

/** The size a recording opens at, when the steps never set one (Recorder requires a value). */
const DEVICE_DEFAULTS = { deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: false };

/**
 * The bot's steps as a Chrome DevTools Recorder recording: a navigate to the bot's targetUrl
 * first (every run opens it), then each step. Importing the result gives the same steps back.
 * Steps with no Recorder counterpart are left out: extract and screenshot (botfleet's own),
 * a sleep becomes a waitForExpression; check and uncheck become clicks, select a change. A fill
 * from a credential becomes a change with an empty value, bound to the credential in `credentials`.
 */
export function exportRecording(steps: readonly Step[], bot: { name: string; targetUrl: string }): ExportedRecording {
  const out: RecordingStep[] = [{ type: 'navigate', url: bot.targetUrl }];
  const credentials: CredentialBinding[] = [];
  for (const step of steps) {
    const common = step.timeout === undefined ? {} : { timeout: step.timeout };
    // Bound as an import binds it, so importing the export fills from the same credential again.
    if (step.action === 'fill' && typeof step.value !== 'string') credentials.push({ step: out.length, ...step.value });
    for (const converted of exportStep(step, bot.targetUrl)) out.push({ ...converted, ...common });
  }
  return { title: bot.name, steps: out, ...(credentials.length > 0 ? { credentials } : {}) };
}

function exportStep(step: Step, targetUrl: string): RecordingStep[] {
  switch (step.action) {
    case 'goto':
      return [{ type: 'navigate', url: absoluteUrl(step.url, targetUrl) }];
    case 'setViewport':
      return [{ type: 'setViewport', width: step.width, height: step.height, ...DEVICE_DEFAULTS }];
    case 'click':
      return [
        {
          type: step.clickCount === 2 ? 'doubleClick' : 'click',
          ...element(step),
          // Botfleet clicks the element's centre; the Recorder requires an offset.
          offsetX: 1,
          offsetY: 1,
          ...(step.button === 'right'
            ? { button: 'secondary' }
            : step.button === 'middle'
              ? { button: 'auxiliary' }
              : {}),
          ...navigation(step.waitForNavigation),
        },
      ];
    case 'check':
    case 'uncheck':
      return [{ type: 'click', ...element(step), offsetX: 1, offsetY: 1 }];
    case 'hover':
      return [{ type: 'hover', ...element(step) }];
    case 'fill':
      return [
        {
          type: 'change',
          ...element(step),
          // A credential's value stays with the worker: the recording gets the field, empty, to fill in.
          value: typeof step.value === 'string' ? step.value : '',
          ...navigation(step.waitForNavigation),
        },
      ];
    case 'select':
      return [{ type: 'change', ...element(step), value: step.value }];
    case 'press': {
      const keys = chordKeys(step.key);
      const downs = keys.map((key) => ({ type: 'keyDown', target: 'main', key }));
      const ups = [...keys].reverse().map((key) => ({ type: 'keyUp', target: 'main', key }));
      // The navigation is asserted on the release of the last key, where the Recorder puts it.
      const lastUp = { ...ups[0]!, ...navigation(step.waitForNavigation) };
      return [...downs, lastUp, ...ups.slice(1)];
    }
    case 'scroll':
      return [
        {
          type: 'scroll',
          ...(step.selector === undefined ? {} : { selectors: selectors(step.selector) }),
          ...(step.frame ? { frame: step.frame } : {}),
          x: step.x ?? 0,
          // Without a point the step scrolls to the bottom; browsers clamp a large y to it.
          y: step.y ?? (step.x === undefined && step.selector === undefined ? 10_000_000 : 0),
        },
      ];
    case 'waitFor':
      if (step.expression !== undefined) {
        return [
          { type: 'waitForExpression', expression: step.expression, ...(step.frame ? { frame: step.frame } : {}) },
        ];
      }
      if (step.selector === undefined) {
        return [
          {
            type: 'waitForExpression',
            expression: `new Promise((resolve) => setTimeout(() => resolve(true), ${step.ms ?? 0}))`,
          },
        ];
      }
      return [
        {
          type: 'waitForElement',
          selectors: selectors(step.selector),
          ...(step.frame ? { frame: step.frame } : {}),
          ...definedOnly({
            count: step.count,
            operator: step.operator,
            visible: step.visible,
            properties: step.properties,
            attributes: step.attributes,
          }),
        },
      ];
    case 'extract':
    case 'screenshot':
      return [];
  }
}

function selectors(selector: ElementSelector): SelectorAlternative[] {
  return typeof selector === 'string' ? [[selector]] : selector;
}

function element(step: { selector: ElementSelector; frame?: number[] | undefined }): Record<string, unknown> {
  return { target: 'main', selectors: selectors(step.selector), ...(step.frame ? { frame: step.frame } : {}) };
}

function navigation(wait: NavigationWait | undefined): Record<string, unknown> {
  if (!wait) return {};
  return { assertedEvents: [{ type: 'navigation', ...(wait.url === undefined ? {} : { url: wait.url }) }] };
}

/** A relative URL against the targetUrl; an absolute one as it is (`{{params.x}}` stays unencoded). */
function absoluteUrl(url: string, base: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  try {
    // URL percent-encodes the braces of {{params.x}}; the placeholders must stay readable.
    return new URL(url, base).href.replaceAll('%7B%7B', '{{').replaceAll('%7D%7D', '}}');
  } catch {
    return url;
  }
}

function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
