import {
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

type EmscriptenLoader = Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>;

/**
 * The published variants load Emscripten's glue with a dynamic import(), which Jest's
 * CommonJS sandbox refuses; loading the same file with require works in every CommonJS host.
 */
export function requireVariant(base: QuickJSSyncVariant, packageName: string): QuickJSSyncVariant {
  return {
    ...base,
    importModuleLoader: async () =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above: import() fails under Jest
      (require(`${packageName}/emscripten-module`) as { default: EmscriptenLoader }).default,
  };
}

const RELEASE_SYNC_REQUIRED = requireVariant(RELEASE_SYNC, '@jitl/quickjs-wasmfile-release-sync');

/** The release build's INITIAL_MEMORY (16 MiB) and its memory import's maximum (2 GiB), in 64 KiB pages. */
const INITIAL_PAGES = 256;
const MAX_PAGES = 32_768;

/**
 * A new, completely separate QuickJS Wasm instance (its own linear memory); a few ms.
 *
 * With `maxGrowthBytes`, its memory cannot grow by more than that: past it QuickJS's malloc
 * fails and QuickJS throws "out of memory", even inside one long built-in call that never
 * reaches the interrupt handler (without a maximum, such a call grows the memory to 2 GiB).
 */
export function newQuickJSInstance(maxGrowthBytes?: number): Promise<QuickJSWASMModule> {
  if (maxGrowthBytes === undefined) return newQuickJSWASMModule(RELEASE_SYNC_REQUIRED);
  const maximum = Math.min(MAX_PAGES, INITIAL_PAGES + Math.ceil(maxGrowthBytes / 65_536));
  return newQuickJSWASMModule(
    newVariant(RELEASE_SYNC_REQUIRED, { wasmMemory: new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum }) }),
  );
}
