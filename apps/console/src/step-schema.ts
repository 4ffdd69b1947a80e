import { CredentialValueSchema, StepSchema } from '@botfleet/sdk';

/*
 * What the steps editor offers, read from the API's own Step schema: the JSON Schema of the step
 * registry's union (packages/core steps/registry.ts), as openapi.json documents it and the SDK
 * carries it (schemas.gen.ts). A new action or field in the registry reaches the editor with
 * `npm run openapi && npm run sdk:generate`, with no list of actions kept here.
 */

/** The part of JSON Schema the API's documents use for steps. */
interface JsonSchema {
  readonly type?: string;
  readonly const?: string;
  readonly enum?: readonly string[];
  readonly description?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly $ref?: string;
}

/** How a field is edited. */
export type FieldKind =
  | { kind: 'text' }
  | { kind: 'number'; integer: boolean; minimum?: number | undefined; maximum?: number | undefined }
  /** true, false, or not set (not set is not always false: waitFor's `visible`). */
  | { kind: 'boolean' }
  | { kind: 'choice'; options: readonly string[] }
  /** A selector, or alternatives tried in order, each a selector or a chain of them. */
  | { kind: 'selector' }
  /** A list of whole numbers (a frame path). */
  | { kind: 'numbers' }
  /** Text, or a credential's field to take it from (a fill step's value). */
  | { kind: 'textOrCredential'; credentialFields: readonly string[] }
  /** Anything else (objects, records), written as JSON. */
  | { kind: 'json' };

export type StepFieldSpec = FieldKind & {
  name: string;
  required: boolean;
  description: string | undefined;
};

export interface StepActionSpec {
  action: string;
  /** The action's own fields first, then those every step has (timeout, optional). */
  fields: readonly StepFieldSpec[];
}

const CREDENTIAL_VALUE_REF = '#/components/schemas/CredentialValue';
const credentialValueSchema: JsonSchema = CredentialValueSchema;

const isString = (schema: JsonSchema) => schema.type === 'string' && schema.enum === undefined;

/** string | (string | string[])[]: ElementSelectorSchema (core steps/element-selector.ts). */
function isSelector(schema: JsonSchema): boolean {
  const [single, list, ...rest] = schema.anyOf ?? [];
  if (!single || !list || rest.length > 0 || !isString(single) || list.type !== 'array') return false;
  const [one, chain, ...more] = list.items?.anyOf ?? [];
  return (
    !!one &&
    !!chain &&
    more.length === 0 &&
    isString(one) &&
    chain.type === 'array' &&
    !!chain.items &&
    isString(chain.items)
  );
}

function kindOf(schema: JsonSchema): FieldKind {
  if (schema.anyOf) {
    if (isSelector(schema)) return { kind: 'selector' };
    const [text, credential, ...rest] = schema.anyOf;
    if (text && credential && rest.length === 0 && isString(text) && credential.$ref === CREDENTIAL_VALUE_REF) {
      return { kind: 'textOrCredential', credentialFields: credentialValueSchema.properties?.field?.enum ?? [] };
    }
    return { kind: 'json' };
  }
  switch (schema.type) {
    case 'string':
      return schema.enum ? { kind: 'choice', options: schema.enum } : { kind: 'text' };
    case 'integer':
    case 'number':
      return { kind: 'number', integer: schema.type === 'integer', minimum: schema.minimum, maximum: schema.maximum };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return schema.items?.type === 'integer' ? { kind: 'numbers' } : { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

/** Fields the editor never shows: the action is chosen apart, and a step's index is its place in the list. */
const NOT_EDITED = new Set(['action', 'index']);

function actionsOf(union: JsonSchema): StepActionSpec[] {
  const branches = union.oneOf ?? [];
  const names = branches.map((branch) => Object.keys(branch.properties ?? {}));
  // The fields every action has (timeout, optional) go after the action's own.
  const common = new Set(names.reduce((shared, keys) => shared.filter((key) => keys.includes(key))));
  return branches.flatMap((branch) => {
    const action = branch.properties?.action?.const;
    if (action === undefined) return [];
    const entries = Object.entries(branch.properties ?? {}).filter(([name]) => !NOT_EDITED.has(name));
    const ordered = [...entries.filter(([name]) => !common.has(name)), ...entries.filter(([name]) => common.has(name))];
    const fields = ordered.map(([name, schema]): StepFieldSpec => ({
      ...kindOf(schema),
      name,
      required: branch.required?.includes(name) ?? false,
      description: schema.description,
    }));
    return [{ action, fields }];
  });
}

/** Every step action the API accepts, in the registry's order. */
export const STEP_ACTIONS: readonly StepActionSpec[] = actionsOf(StepSchema);

/** The action's fields, or undefined for an action this console does not know (a newer API's). */
export function actionSpecOf(action: string): StepActionSpec | undefined {
  return STEP_ACTIONS.find((spec) => spec.action === action);
}
