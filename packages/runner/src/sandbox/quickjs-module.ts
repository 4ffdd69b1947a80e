import { newQuickJSWASMModule, RELEASE_SYNC, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten';

type EmscriptenLoader = Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>;

/**
 * The published variants load Emscripten's glue with a dynamic import(), which Jest's
 * CommonJS sandbox refuses; loading the same file with require works in every CommonJS host.
 */
export function requireVariant(base: QuickJSSyncVariant, packageName: string): QuickJSSyncVariant {
  return {
    ...base,
    importModuleLoader: async () => (require(`${packageName}/emscripten-module`) as { default: EmscriptenLoader }).default,
  };
}

const RELEASE_SYNC_REQUIRED = requireVariant(RELEASE_SYNC, '@jitl/quickjs-wasmfile-release-sync');

/** A new, completely separate QuickJS Wasm instance (its own linear memory); a few ms. */
export function newQuickJSInstance(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModule(RELEASE_SYNC_REQUIRED);
}
