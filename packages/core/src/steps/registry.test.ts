import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { StepSchema } from '../schemas/steps';
import { STEP_ACTIONS } from './registry';

type Registered = (typeof STEP_ACTIONS)[number];

const isDefinition = (value: unknown): value is Registered =>
  typeof value === 'object' && value !== null && 'action' in value && 'schema' in value && 'perform' in value;

describe('the step action registry', () => {
  it('gives every action a schema, perform, describe and toScript, under its own name', () => {
    const names = STEP_ACTIONS.map((definition) => definition.action);
    expect(new Set(names).size).toBe(names.length);
    for (const definition of STEP_ACTIONS) {
      const { action, schema, perform, describe: describeStep, toScript } = definition;
      expect([action, typeof perform, typeof describeStep, typeof toScript]).toEqual([
        action,
        'function',
        'function',
        'function',
      ]);
      expect([action, schema.shape.action.value]).toEqual([action, action]);
    }
  });

  it('lists every action defined under actions/', async () => {
    const dir = join(__dirname, 'actions');
    const defined: Registered[] = [];
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
      const exports = (await import(join(dir, file))) as Record<string, unknown>;
      defined.push(...Object.values(exports).filter(isDefinition));
    }
    expect(
      defined.filter((definition) => !STEP_ACTIONS.includes(definition)).map((definition) => definition.action),
    ).toEqual([]);
    expect(defined).toHaveLength(STEP_ACTIONS.length);
  });

  it('makes StepSchema the union of the action schemas, in order', () => {
    expect(StepSchema.options).toEqual(STEP_ACTIONS.map((definition) => definition.schema));
  });

  it('gives every action the fields all steps share, and refuses unknown ones', () => {
    for (const { action } of STEP_ACTIONS) {
      const result = StepSchema.safeParse({ action, index: 0, timeout: 500, optional: true, bogus: 1 });
      const issues = result.success ? [] : result.error.issues;
      // Whatever else the action requires, the shared fields are accepted and `bogus` is not.
      expect([
        action,
        issues.filter((issue) => ['index', 'timeout', 'optional'].includes(String(issue.path[0]))),
      ]).toEqual([action, []]);
      expect([action, issues.find((issue) => issue.code === 'unrecognized_keys')?.message]).toEqual([
        action,
        'Unrecognized key: "bogus"',
      ]);
    }
  });
});
