import type { Step } from '@botfleet/sdk';
import { describeStep, failureText, selectorText } from './step-line';

/*
 * How the console words steps and failures: the selector quoted alone with the count of its
 * other alternatives outside the quotes, and steps counted from 1 as people count them.
 */

describe('selectorText', () => {
  it('quotes a single selector, and the first of several with the others counted after the quotes', () => {
    expect(selectorText('#continue')).toBe('"#continue"');
    expect(selectorText(['aria/Show more'])).toBe('"aria/Show more"');
    expect(selectorText(['aria/Show more', '#more'])).toBe('"aria/Show more" (+1 alternative)');
    expect(selectorText(['aria/Show more', '#more', '.more', 'text/Show more'])).toBe(
      '"aria/Show more" (+3 alternatives)',
    );
  });

  it('joins a chained alternative as one selector', () => {
    expect(selectorText([['iframe#pay', '#card'], '#card'])).toBe('"iframe#pay >> #card" (+1 alternative)');
  });

  it('reads the same in a step line', () => {
    const click: Step = { index: 0, action: 'click', selector: ['aria/Show more', '#a', '#b', '#c'] };
    expect(describeStep(click)).toBe('click "aria/Show more" (+3 alternatives)');
  });
});

describe('failureText', () => {
  it('keeps the runner’s message, which names its step from 1 already', () => {
    expect(failureText({ stepIndex: 0, error: 'Step 1 (click "#continue") failed: Timeout 500ms exceeded' })).toBe(
      'Step 1 (click "#continue") failed: Timeout 500ms exceeded',
    );
  });

  it('puts the step, counted from 1, before a message that does not name it', () => {
    expect(failureText({ stepIndex: 2, error: 'output_too_large: the output is too big' })).toBe(
      'Step 3: output_too_large: the output is too big',
    );
    // "Step 10 …" does not name step 1.
    expect(failureText({ stepIndex: 0, error: 'Step 10 (goto x) failed' })).toBe('Step 1: Step 10 (goto x) failed');
  });

  it('shows a failure outside any step as it is', () => {
    expect(failureText({ stepIndex: null, error: 'navigation_blocked: blocked' })).toBe('navigation_blocked: blocked');
  });
});
