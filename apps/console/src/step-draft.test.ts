import { STEP_ACTIONS as REGISTRY } from '@botfleet/core';
import type { Step } from '@botfleet/sdk';
import { draftOf, stepErrorsOf, stepOf, withAction, type SelectorDraft } from './step-draft';
import { actionSpecOf, STEP_ACTIONS } from './step-schema';

/*
 * The steps editor's forms come from the API's Step schema (the SDK's StepSchema): every action of
 * core's registry, each field edited as its schema says, and a step read into a form and sent back
 * unchanged is the step it was.
 */

it('offers every action of the step registry, in its order, with its fields', () => {
  expect(STEP_ACTIONS.map((spec) => spec.action)).toEqual(REGISTRY.map((action) => action.action));
  const kinds = (action: string) =>
    Object.fromEntries(actionSpecOf(action)!.fields.map((field) => [field.name, [field.kind, field.required]]));
  expect(kinds('fill')).toEqual({
    selector: ['selector', true],
    frame: ['numbers', false],
    value: ['textOrCredential', true],
    keystrokes: ['boolean', false],
    waitForNavigation: ['json', false],
    timeout: ['number', false],
    optional: ['boolean', false],
  });
  expect(kinds('click')).toMatchObject({ button: ['choice', false], clickCount: ['number', false] });
  expect(actionSpecOf('fill')!.fields.find((field) => field.name === 'value')).toMatchObject({
    credentialFields: ['username', 'password', 'totp'],
  });
});

it('sends a step it read unchanged, whatever shape its fields have', () => {
  const steps: Step[] = [
    { index: 0, action: 'click', selector: [['aria/Buy'], '#buy', ['iframe', '#inner']], frame: [1, 0], clickCount: 2 },
    { index: 1, action: 'fill', selector: '#pw', value: { credential: 'crd_1', field: 'password' }, timeout: 500 },
    {
      index: 2,
      action: 'waitFor',
      selector: [['.result']],
      count: 1,
      operator: '>=',
      visible: false,
      properties: { value: 'x' },
    },
    { index: 3, action: 'extract', name: 'rows', selector: 'tr', fields: { a: { selector: 'td' } }, multiple: true },
    { index: 4, action: 'fill', selector: '#q', value: '' },
  ];
  for (const { index: _index, ...step } of steps) {
    expect(stepOf(draftOf(step as Step))).toEqual({ step, errors: {} });
  }
});

it('leaves out what is not set, and refuses what is no number or no JSON before sending', () => {
  const draft = draftOf({ action: 'scroll' });
  expect(stepOf(draft)).toEqual({ step: { action: 'scroll' }, errors: {} });
  const typed = { ...draft, fields: { ...draft.fields, x: '12', y: 'twelve', frame: '1, x' } };
  expect(stepOf(typed).errors).toEqual({ y: 'must be a number', frame: 'must be whole numbers separated by commas' });
  const extract = draftOf({ action: 'extract' });
  expect(stepOf({ ...extract, fields: { ...extract.fields, fields: '{' } }).errors).toEqual({ fields: 'must be JSON' });
});

it('keeps the fields both actions have when the action changes', () => {
  const click = draftOf({ action: 'click', selector: ['#a', '#b'], timeout: 100, button: 'right' } as Step);
  const hover = withAction(click, 'hover');
  expect((hover.fields.selector as SelectorDraft).alternatives).toHaveLength(2);
  expect(stepOf(hover).step).toEqual({ action: 'hover', selector: ['#a', '#b'], timeout: 100 });
});

it('finds the API’s messages about a step by its position', () => {
  const errors = { 'steps.3.selector.1': 'unknown selector prefix', 'steps.3': 'bad step', 'steps.13.url': 'no' };
  expect(stepErrorsOf(errors, 3)).toEqual({ 'selector.1': 'unknown selector prefix', '': 'bad step' });
});
