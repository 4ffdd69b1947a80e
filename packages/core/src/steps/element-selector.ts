import { z } from 'zod';
import { SelectorSchema } from './step-fields';

/*
 * Selectors as Chrome's Recorder writes them. A step's `selector` is either one Playwright
 * selector (a string, as steps always had), or a list of alternatives tried in order. An
 * alternative is a string, or a chain of strings: each next one is looked up inside the element
 * the previous one found (inside its shadow root, or inside its document when it is an iframe).
 * Any string may use the Recorder's prefixes: `aria/Name[role="button"]`, `xpath//html/body/a`,
 * `text/Sign in`, `pierce/.item`; anything else is a Playwright selector (CSS by default).
 *
 * Every string becomes a Playwright selector string, so the interpreter and the generated
 * script (which can only hand strings to the sandbox's page facade) find the same elements.
 * The generated script translates at run time, because `{{params.x}}` is only filled then; its
 * copy of the translation is in locate-element.ts, and a test keeps the two equal.
 */

/** A selector that may use a Recorder prefix; any other `word/` prefix is refused (it would never match). */
const PrefixedSelectorSchema = SelectorSchema.refine((selector) => unknownSelectorPrefix(selector) === null, {
  message: 'unknown selector prefix (use aria/, xpath/, text/, pierce/ or a Playwright selector)',
});

/** One alternative: a selector, or a chain of selectors that pierce frames and shadow roots in turn. */
export const SelectorAlternativeSchema = z.union([
  PrefixedSelectorSchema,
  z.array(PrefixedSelectorSchema).min(1).max(10),
]);
export type SelectorAlternative = z.infer<typeof SelectorAlternativeSchema>;

/** A step's selector: one selector, or alternatives tried in order (the first that matches wins). */
export const ElementSelectorSchema = z
  .union([PrefixedSelectorSchema, z.array(SelectorAlternativeSchema).min(1).max(20)])
  .describe(
    'A Playwright selector, or alternatives tried in order: each a selector or a chain of selectors through ' +
      'frames and shadow roots. Recorder prefixes work: aria/, xpath/, text/, pierce/ (plain CSS otherwise).',
  );
export type ElementSelector = z.infer<typeof ElementSelectorSchema>;

/** The child-frame path a step runs in: `[1, 0]` is the first child frame of the main frame's second. */
export const FramePathSchema = z
  .array(z.number().int().min(0).max(1000))
  .min(1)
  .max(10)
  .describe('Child-frame indexes from the main frame down to the frame the step runs in');
export type FramePath = z.infer<typeof FramePathSchema>;

/** The Recorder prefixes; another `word/` prefix is a mistake, not CSS. */
export const SELECTOR_PREFIXES = ['aria', 'xpath', 'text', 'pierce'] as const;
const PREFIXED = /^(aria|xpath|text|pierce)\/([\s\S]*)$/;
const ANY_PREFIX = /^([a-z][a-z-]*)\//;

/** The prefix of a string that looks prefixed but uses none the Recorder knows (`foo/`); else null. */
export function unknownSelectorPrefix(selector: string): string | null {
  const prefix = ANY_PREFIX.exec(selector)?.[1];
  return prefix !== undefined && !(SELECTOR_PREFIXES as readonly string[]).includes(prefix) ? prefix : null;
}

/*
 * Roles an `aria/Name` without `[role=...]` may have. Playwright's role engine needs a role, so
 * the name is looked for under each role that can carry one (generic and presentational roles
 * cannot).
 */
export const NAMED_ROLES = [
  'button', 'link', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'combobox', 'listbox', 'option',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'heading', 'img', 'cell', 'gridcell',
  'columnheader', 'rowheader', 'row', 'slider', 'spinbutton', 'dialog', 'alertdialog', 'alert', 'status',
  'navigation', 'region', 'form', 'group', 'list', 'listitem', 'menu', 'menubar', 'tablist', 'tabpanel',
  'toolbar', 'tooltip', 'tree', 'grid', 'table', 'progressbar', 'meter', 'article', 'figure', 'main',
  'banner', 'complementary', 'contentinfo', 'search', 'document', 'application', 'radiogroup', 'note',
] as const; // prettier-ignore

/**
 * The Playwright selector for one string. `aria/` matches the accessible name whole, ignoring
 * case and spacing (Chrome records names as rendered, e.g. upper-cased by CSS), under any role
 * that carries a name or as an element's aria-label; `text/` matches
 * the smallest element containing the text, ignoring case; `pierce/` is CSS, which in Playwright
 * already looks into open shadow roots.
 */
export function toPlaywrightSelector(selector: string): string {
  const match = PREFIXED.exec(selector);
  if (!match) return selector;
  const body = match[2]!;
  switch (match[1]) {
    case 'xpath':
      return `xpath=${body}`;
    case 'pierce':
      return `css=${body}`;
    case 'text':
      return `internal:text=${JSON.stringify(body)}i`;
    default:
      return ariaSelector(body);
  }
}

function ariaSelector(body: string): string {
  const roleMatch = /\[role="([^"]*)"\]\s*$/.exec(body);
  const name = (roleMatch ? body.slice(0, roleMatch.index) : body).trim();
  const nameFilter = name === '' ? '' : `[name=${nameRegex(name)}]`;
  if (roleMatch) return `internal:role=${roleMatch[1]}${nameFilter}`;
  const roles = NAMED_ROLES.map((role, i) => {
    const one = `internal:role=${role}${nameFilter}`;
    return i === 0 ? one : `internal:or=${JSON.stringify(one)}`;
  });
  // Chrome also names a generic element by its aria-label (`<div aria-label="Close">`), which
  // Playwright's role engine leaves unnamed.
  if (name !== '') roles.push(`internal:or=${JSON.stringify(`internal:attr=[aria-label=${nameRegex(name)}]`)}`);
  return roles.join(' >> ');
}

/**
 * `/^\s*Add\s+to\s+cart\s*$/i` as Playwright's selector parser reads a regular expression: the
 * name whole, any spacing, any case. Quotes and `>>` are escaped as Playwright escapes them.
 */
function nameRegex(name: string): string {
  const words = name.split(/\s+/).map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  const source = `^\\s*${words.join('\\s+')}\\s*$`.replace(/(["'`])/g, '\\$1').replace(/>>/g, '\\>\\>');
  return `/${source}/i`;
}

/**
 * The selector engine (the runner registers it with Playwright) that finds the element of a
 * frame's child frame by its index as Chrome numbers child frames: in the order they were
 * attached, which is what a recording's `frame` path counts (and @puppeteer/replay's
 * `childFrames()[i]`), not the order of the iframes in the document.
 */
export const CHILD_FRAME_ENGINE = 'botfleet_child_frame';

/** The selector prefix that enters the frame a step's `frame` path names ('' for the main frame). */
export function framePrefix(frame: readonly number[] | undefined): string {
  return (frame ?? []).map((i) => `${CHILD_FRAME_ENGINE}=${i} >> internal:control=enter-frame >> `).join('');
}

/** The alternatives of a selector, each as a chain of strings. */
export function alternativesOf(selector: readonly SelectorAlternative[]): string[][] {
  return selector.map((alternative) => (typeof alternative === 'string' ? [alternative] : [...alternative]));
}

/** True when the selector is what steps always had: one Playwright selector, no frame, no Recorder prefix. */
export function isPlainSelector(selector: ElementSelector, frame?: readonly number[]): selector is string {
  return typeof selector === 'string' && frame === undefined && !PREFIXED.test(selector);
}

/** The fields of a step that acts on an element. */
export const ELEMENT_FIELDS = { selector: ElementSelectorSchema, frame: FramePathSchema.optional() };
