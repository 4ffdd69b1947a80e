import { describeSelector } from '@botfleet/core/browser';
import type { CredentialValue, Failure, Step } from '@botfleet/sdk';

const quote = (text: string) => JSON.stringify(text);

/**
 * Why a run failed, naming its step counted from 1 as everywhere people read steps (the API's
 * `stepIndex` is 0-based data). The runner's messages name their step already ("Step 3 (click
 * …) failed: …"); others get the step put in front.
 */
export function failureText(failure: Pick<Failure, 'stepIndex' | 'error'>): string {
  if (failure.stepIndex === null) return failure.error;
  const step = `Step ${failure.stepIndex + 1}`;
  return failure.error.startsWith(`${step} `) ? failure.error : `${step}: ${failure.error}`;
}

/** A credential's name by id, when the page knows it (a read of the credentials may have failed). */
export type CredentialNames = (credentialId: string) => string | undefined;

/** A fill step's value: the text, or the credential field it is taken from (never the value itself). */
function describeFillValue(value: string | CredentialValue, credentialName: CredentialNames): string {
  if (typeof value === 'string') return ` with ${quote(value)}`;
  const name = credentialName(value.credential);
  return `: fills ${value.field} of credential ${name === undefined ? value.credential : quote(name)}`;
}

/** One readable line per step, the way the step reads in the generated script. */
export function describeStep(step: Step, credentialName: CredentialNames = () => undefined): string {
  const tail = step.optional ? ' (optional)' : '';
  return describeAction(step, credentialName) + tail;
}

function describeAction(step: Step, credentialName: CredentialNames): string {
  switch (step.action) {
    case 'goto':
      return `go to ${step.url}`;
    case 'click':
      return `${step.clickCount === 2 ? 'double-click' : 'click'} ${describeSelector(step.selector)}`;
    case 'hover':
      return `hover ${describeSelector(step.selector)}`;
    case 'check':
      return `check ${describeSelector(step.selector)}`;
    case 'uncheck':
      return `uncheck ${describeSelector(step.selector)}`;
    case 'fill':
      return `fill ${describeSelector(step.selector)}${describeFillValue(step.value, credentialName)}`;
    case 'select':
      return `select ${quote(step.value)} in ${describeSelector(step.selector)}`;
    case 'press':
      return step.selector ? `press ${step.key} in ${quote(step.selector)}` : `press ${step.key}`;
    case 'waitFor':
      if (step.selector !== undefined) {
        const count = step.count === undefined ? '' : ` (${step.operator ?? '=='} ${step.count})`;
        return `wait for ${describeSelector(step.selector)}${count}`;
      }
      if (step.ms !== undefined) return `wait ${step.ms} ms`;
      return `wait until ${step.expression ?? 'true'}`;
    case 'scroll':
      return step.selector !== undefined
        ? `scroll to ${describeSelector(step.selector)}`
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
