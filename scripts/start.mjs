// `npm start`: set up what is missing, then run every role (or those in ROLES) in one process.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, setup } from './setup.mjs';

const roles = (process.env.ROLES ?? 'api,worker,delivery,scheduler').split(',');
setup({ chromium: roles.includes('worker'), dev: false });

const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/launcher/src/main.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
});
// Forward stop signals so `npm start` under a supervisor drains gracefully instead of orphaning the service.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
