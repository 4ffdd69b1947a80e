import { parseAllDocuments } from 'yaml';

/** Every document of a YAML file (empty documents dropped); a syntax error throws. */
export function parseYamlDocuments(text: string): unknown[] {
  // Compose files use YAML 1.1 merge keys (<<: *common).
  return parseAllDocuments(text, { merge: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0];
      return doc.toJS() as unknown;
    })
    .filter((doc) => doc !== null && doc !== undefined);
}
