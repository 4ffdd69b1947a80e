import type { Step } from '@botfleet/sdk';
import { describeStep, failureText } from './step-line';

/*
 * How the console words steps and failures: selectors named by core's describeSelector (its cases
 * are in core's selector-text.test.ts), and steps counted from 1 as people count them.
 */

describe('describeStep', () => {
  it('names the selector as the runner does: the first alternative quoted, the others counted', () => {
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
