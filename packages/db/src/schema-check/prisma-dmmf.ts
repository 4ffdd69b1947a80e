import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Prisma's own schema parser, without `@prisma/internals` (not installed): the Prisma CLI ships
 * it as a wasm-bindgen module, prisma_schema_build_bg.wasm, whose JS glue is bundled inside
 * prisma/build/cli.js. The module imports only four small helpers, re-implemented below the way
 * that glue does; `get_dmmf` takes `{ prismaSchema: [[fileName, text]] }` as JSON and returns
 * the DMMF as JSON, or throws Prisma's validation errors.
 */

/** The parts of the DMMF the schema check reads (a subset of Prisma's `DMMF.Datamodel`). */
export interface DmmfDatamodel {
  models: DmmfModel[];
  enums: DmmfEnum[];
  indexes: DmmfIndex[];
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

export type DmmfDefault = string | number | boolean | DmmfDefault[] | { name: string; args: Array<string | number> };

export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  default?: DmmfDefault;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

export interface DmmfEnum {
  name: string;
  dbName: string | null;
  values: Array<{ name: string; dbName: string | null }>;
}

export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: Array<{ name: string; sortOrder?: 'asc' | 'desc' }>;
}

interface SchemaWasmExports {
  memory: WebAssembly.Memory;
  __wbindgen_externrefs: WebAssembly.Table;
  __wbindgen_start(): void;
  __wbindgen_malloc(size: number, align: number): number;
  __wbindgen_free(ptr: number, size: number, align: number): void;
  __externref_table_dealloc(index: number): void;
  /** Returns [resultPtr, resultLen, errorIndex, isError]. */
  get_dmmf(ptr: number, len: number): [number, number, number, number];
}

let instance: SchemaWasmExports | undefined;

function schemaWasm(): SchemaWasmExports {
  if (instance !== undefined) return instance;
  const wasmFile = path.join(
    path.dirname(require.resolve('prisma/package.json')),
    'build',
    'prisma_schema_build_bg.wasm',
  );
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const text = (ptr: number, len: number): string =>
    decoder.decode(new Uint8Array(exports().memory.buffer, ptr >>> 0, len >>> 0));
  const exports = (): SchemaWasmExports => {
    if (instance === undefined) throw new Error('schema wasm not initialised');
    return instance;
  };
  // Import names carry a hash of the Prisma build; if Prisma is upgraded and they change,
  // instantiation fails loudly here rather than the check passing silently.
  const imports = {
    __wbindgen_placeholder__: {
      __wbg_set_message_f22ac4a6869ee695: (ptr: number, len: number) => {
        panicMessage = text(ptr, len);
      },
      __wbg_Error_e83987f665cf5504: (ptr: number, len: number) => new Error(text(ptr, len)),
      __wbg___wbindgen_throw_b855445ff6a94295: (ptr: number, len: number) => {
        throw new Error(text(ptr, len));
      },
      __wbindgen_init_externref_table: () => {
        const table = exports().__wbindgen_externrefs;
        const base = table.grow(4);
        table.set(0, undefined);
        table.set(base, undefined);
        table.set(base + 1, null);
        table.set(base + 2, true);
        table.set(base + 3, false);
      },
    },
  };
  const wasmModule = new WebAssembly.Module(readFileSync(wasmFile));
  instance = new WebAssembly.Instance(wasmModule, imports).exports as unknown as SchemaWasmExports;
  instance.__wbindgen_start();
  return instance;
}

let panicMessage: string | undefined;

/** Parses and validates a Prisma schema with Prisma's parser; throws its errors verbatim. */
export function getDmmf(schemaText: string, fileName = 'schema.prisma'): DmmfDatamodel {
  const wasm = schemaWasm();
  const input = new TextEncoder().encode(JSON.stringify({ prismaSchema: [[fileName, schemaText]], noColor: true }));
  const inputPtr = wasm.__wbindgen_malloc(input.length, 1) >>> 0;
  new Uint8Array(wasm.memory.buffer).set(input, inputPtr);
  let result: [number, number, number, number];
  try {
    // The wasm function takes ownership of (and frees) the input buffer.
    result = wasm.get_dmmf(inputPtr, input.length);
  } catch (error) {
    throw new Error(`Prisma schema parser panicked: ${panicMessage ?? String(error)}`, { cause: error });
  }
  const [ptr, len, errorIndex, isError] = result;
  if (isError) {
    const error: unknown = wasm.__wbindgen_externrefs.get(errorIndex);
    wasm.__externref_table_dealloc(errorIndex);
    throw error instanceof Error ? error : new Error(String(error));
  }
  const json = new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, ptr >>> 0, len >>> 0));
  wasm.__wbindgen_free(ptr, len, 1);
  return (JSON.parse(json) as { datamodel: DmmfDatamodel }).datamodel;
}
