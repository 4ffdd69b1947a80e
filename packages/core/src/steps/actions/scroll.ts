import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { ElementSelectorSchema, FramePathSchema, framePrefix } from '../element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from '../locate-element';
import { definePageFunction } from '../../page-function';
import { SCROLL_TO_HELPER, scrollToPointInPage } from '../page-functions';

const CoordinateSchema = z.number().min(0).max(10_000_000);

const scrollToBottomInPage = definePageFunction('scrollToBottom', () =>
  window.scrollTo(0, document.documentElement.scrollHeight),
);

/**
 * scroll: without `x`/`y`, scrolls `selector` into view, or the page to the bottom; with them,
 * scrolls the element (or the page) to that point (px), as a recording's `scroll` step does.
 * `frame` scrolls in that child frame.
 */
export const scrollAction = defineStepAction({
  action: 'scroll',
  fields: {
    selector: ElementSelectorSchema.optional(),
    frame: FramePathSchema.optional(),
    x: CoordinateSchema.optional(),
    y: CoordinateSchema.optional(),
  },
  async perform(page, step, { timeoutMs }) {
    const point = pointOf(step);
    if (step.selector === undefined) {
      if (point === null) await page.evaluate(scrollToBottomInPage);
      else await page.locator(`${framePrefix(step.frame)}:root`).evaluateAll(scrollToPointInPage, point);
      return undefined;
    }
    const startedAt = Date.now();
    const target = await locateElement(page, { ...step, selector: step.selector }, timeoutMs);
    const element = page.locator(target.selector).first();
    if (point === null) await element.scrollIntoViewIfNeeded({ timeout: timeLeft(startedAt, timeoutMs) });
    else await element.evaluateAll(scrollToPointInPage, point);
    return locatedOutput(target);
  },
  describe(step) {
    const point = step.x === undefined && step.y === undefined ? '' : ` to ${step.x ?? 0},${step.y ?? 0}`;
    if (step.selector !== undefined) return `scroll ${describeElement({ ...step, selector: step.selector })}${point}`;
    return point === '' && step.frame === undefined ? 'scroll to bottom' : `scroll page${point || ' to bottom'}`;
  },
  toScript(step, script) {
    const point = pointOf(step);
    const pointArgument = point === null ? '' : JSON.stringify(point);
    if (step.selector === undefined) {
      if (point === null)
        return ['await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));'];
      const root = JSON.stringify(`${framePrefix(step.frame)}:root`);
      return [`await page.$$eval(${root}, ${script.use(SCROLL_TO_HELPER)}, ${pointArgument});`];
    }
    const target = scriptTarget({ ...step, selector: step.selector }, script);
    const act =
      point === null
        ? `await page.scrollIntoViewIfNeeded(${target.selector}${script.options()});`
        : `await page.$$eval(${target.selector}, ${script.use(SCROLL_TO_HELPER)}, ${pointArgument});`;
    return [...target.setup, act, ...target.output];
  },
});

/**
 * The point to scroll to, as the page function's JSON argument; null to scroll into view, or to
 * the bottom. A frame without a point scrolls that frame to its bottom (browsers clamp).
 */
function pointOf(step: { selector?: unknown; frame?: number[]; x?: number; y?: number }): string | null {
  const page = step.selector === undefined;
  if (step.x === undefined && step.y === undefined && (!page || step.frame === undefined)) return null;
  const fallbackY = step.x === undefined && step.y === undefined ? 10_000_000 : 0;
  return JSON.stringify({ page, x: step.x ?? 0, y: step.y ?? fallbackY });
}
