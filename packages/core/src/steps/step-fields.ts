import { z } from 'zod';

// Field schemas several step actions share.

/** A Playwright selector (CSS by default). */
export const SelectorSchema = z.string().min(1).max(2000);

/** Free text a step types or picks; may use {{params.<name>}}. */
export const TemplatedTextSchema = z.string().max(10_000);
