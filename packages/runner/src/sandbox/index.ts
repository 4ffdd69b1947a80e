export { runSandboxedScript, type SandboxedScriptOptions } from './run-sandboxed-script';
export { ScriptError, type ScriptFailure } from './script-error';
export { SANDBOX_LIMITS } from './limits';
