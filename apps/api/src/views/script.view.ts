import type { ScriptView } from '../contracts/scripts.contract';
import type { Script } from '@botfleet/db';

export function toScriptView(script: Script): ScriptView {
  return {
    id: script.id,
    name: script.name,
    language: 'javascript',
    origin: script.origin,
    source: script.source,
    active: script.active,
    createdAt: script.createdAt.getTime(),
    updatedAt: script.updatedAt.getTime(),
  };
}
