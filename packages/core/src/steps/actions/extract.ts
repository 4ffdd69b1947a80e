import { z } from 'zod';
import { IdentifierSchema } from '../../schemas/common';
import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';
import { EXTRACT_RECORDS_HELPER, extractValue, READ_ALL_HELPER } from './extract-reading';

export const ExtractFieldSchema = z.strictObject({
  selector: SelectorSchema,
  attribute: z.string().min(1).max(200).optional(),
});

/**
 * extract: a single value is the first match's trimmed textContent, or its `attribute` (null
 * when absent); a missing element fails the step. With `multiple: true` the value is an array
 * with one entry per match (possibly empty): with `fields`, an object per match whose fields are
 * read the same way relative to the match (null when the field element is missing). The value
 * goes to the run's data under `name`.
 */
export const extractAction = defineStepAction({
  action: 'extract',
  fields: {
    name: IdentifierSchema,
    selector: SelectorSchema,
    attribute: z.string().min(1).max(200).optional(),
    fields: z.record(IdentifierSchema, ExtractFieldSchema).optional(),
    multiple: z.boolean().optional(),
  },
  check(step, ctx) {
    if (step.fields && step.multiple !== true) {
      ctx.addIssue({ code: 'custom', path: ['multiple'], message: 'fields require multiple: true' });
    }
    if (step.fields && step.attribute) {
      ctx.addIssue({ code: 'custom', path: ['attribute'], message: 'use attribute inside fields, not beside them' });
    }
    if (step.fields && Object.keys(step.fields).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['fields'], message: 'fields must name at least one field' });
    }
  },
  perform: (page, step, { timeoutMs, maxOutputBytes }) => extractValue(page, step, timeoutMs, maxOutputBytes),
  dataKey: (step) => step.name,
  describe: (step) => `extract ${step.name} "${step.selector}"`,
  toScript(step, script) {
    const attribute = step.attribute === undefined ? 'null' : script.text(step.attribute);
    if (step.multiple && step.fields) {
      const fields = Object.entries(step.fields).map(
        ([name, field]) =>
          `  ${JSON.stringify(name)}: { selector: ${script.text(field.selector)}, attribute: ${field.attribute === undefined ? 'null' : script.text(field.attribute)} },`,
      );
      return [`return ${script.use(EXTRACT_RECORDS_HELPER)}(page, ${script.text(step.selector)}, {`, ...fields, '});'];
    }
    if (step.multiple)
      return [`return page.$$eval(${script.text(step.selector)}, ${script.use(READ_ALL_HELPER)}, ${attribute});`];
    if (step.attribute !== undefined)
      return [`return page.getAttribute(${script.text(step.selector)}, ${attribute}${script.options()});`];
    return [
      `const content = await page.textContent(${script.text(step.selector)}${script.options()});`,
      'return content === null ? null : content.trim();',
    ];
  },
});
