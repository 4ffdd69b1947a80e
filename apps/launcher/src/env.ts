import { ConfigError, parseEnv, type Env } from '@botfleet/core';

/** The only place that reads process.env: bad configuration stops start-up with a clear message. */
export function loadEnv(): Env {
  try {
    return parseEnv(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
