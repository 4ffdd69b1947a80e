import type { Step } from '@botfleet/sdk';

type Selector = Extract<Step, { action: 'click' }>['selector'];

/** The first alternative of a selector, with a count of the others: the rest is noise on one line. */
export function selectorText(selector: Selector | undefined): string {
  if (selector === undefined) return '';
  if (typeof selector === 'string') return selector;
  const first = selector[0];
  const text = first === undefined ? '' : typeof first === 'string' ? first : first.join(' >> ');
  return selector.length > 1 ? `${text} (+${selector.length - 1} alternatives)` : text;
}

const quote = (text: string) => JSON.stringify(text);

/** One readable line per step, the way the step reads in the generated script. */
export function describeStep(step: Step): string {
  const tail = step.optional ? ' (optional)' : '';
  return describeAction(step) + tail;
}

function describeAction(step: Step): string {
  switch (step.action) {
    case 'goto':
      return `go to ${step.url}`;
    case 'click':
      return `${step.clickCount === 2 ? 'double-click' : 'click'} ${quote(selectorText(step.selector))}`;
    case 'hover':
      return `hover ${quote(selectorText(step.selector))}`;
    case 'check':
      return `check ${quote(selectorText(step.selector))}`;
    case 'uncheck':
      return `uncheck ${quote(selectorText(step.selector))}`;
    case 'fill':
      return `fill ${quote(selectorText(step.selector))} with ${quote(step.value)}`;
    case 'select':
      return `select ${quote(step.value)} in ${quote(selectorText(step.selector))}`;
    case 'press':
      return step.selector ? `press ${step.key} in ${quote(step.selector)}` : `press ${step.key}`;
    case 'waitFor':
      if (step.selector !== undefined) {
        const count = step.count === undefined ? '' : ` (${step.operator ?? '=='} ${step.count})`;
        return `wait for ${quote(selectorText(step.selector))}${count}`;
      }
      if (step.ms !== undefined) return `wait ${step.ms} ms`;
      return `wait until ${step.expression ?? 'true'}`;
    case 'scroll':
      return step.selector !== undefined
        ? `scroll to ${quote(selectorText(step.selector))}`
        : `scroll to x ${step.x ?? 0}, y ${step.y ?? 0}`;
    case 'extract': {
      const what = step.multiple ? 'every' : 'the first';
      const attribute = step.attribute ? ` attribute ${step.attribute}` : '';
      return `extract ${step.name}: ${what} ${quote(step.selector)}${attribute}`;
    }
    case 'screenshot':
      return step.fullPage ? 'take a full-page screenshot' : 'take a screenshot';
    case 'setViewport':
      return `set the viewport to ${step.width} × ${step.height}`;
  }
}
