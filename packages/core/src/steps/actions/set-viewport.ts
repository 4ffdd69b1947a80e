import { z } from 'zod';
import { defineStepAction } from '../define-step-action';

/** setViewport: resizes the page's viewport (a recording starts with the size it was recorded at). */
export const setViewportAction = defineStepAction({
  action: 'setViewport',
  fields: { width: z.number().int().min(100).max(7680), height: z.number().int().min(100).max(4320) },
  async perform(page, step) {
    await page.setViewportSize({ width: step.width, height: step.height });
  },
  describe: (step) => `setViewport ${step.width}x${step.height}`,
  toScript: (step, script) => [
    `await page.setViewportSize({ width: ${script.number(step.width)}, height: ${script.number(step.height)} });`,
  ],
});
