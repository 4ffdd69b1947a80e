import { z } from 'zod';
import { assertViewport, MAX_VIEWPORT } from '../../output-bounds';
import { defineStepAction } from '../define-step-action';

/** setViewport: resizes the page's viewport (a recording starts with the size it was recorded at). */
export const setViewportAction = defineStepAction({
  action: 'setViewport',
  fields: {
    width: z.number().int().min(100).max(MAX_VIEWPORT.width),
    height: z.number().int().min(100).max(MAX_VIEWPORT.height),
  },
  async perform(page, step) {
    // Checked again here: a step stored before the bound existed must not get past it.
    assertViewport(step);
    await page.setViewportSize({ width: step.width, height: step.height });
  },
  describe: (step) => `setViewport ${step.width}x${step.height}`,
  toScript: (step, script) => [
    `await page.setViewportSize({ width: ${script.number(step.width)}, height: ${script.number(step.height)} });`,
  ],
});
