// `npm start`: set up what is missing, then run every role (or those in ROLES) in one process.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';
import { ROOT, setup } from './setup.mjs';

const roles = (process.env.ROLES ?? 'api,worker,delivery,scheduler').split(',');
setup({ chromium: roles.includes('worker'), dev: false });

const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/launcher/src/main.ts')], {
  cwd: ROOT,
  stdio: 'inherit',
});
// Every stop signal is passed on, copies included: a supervisor that signals only its main
// process (npm, or this script) must still reach the launcher, and the launcher counts the
// copies a signal to the whole process group makes (its own, npm's and this script's) as one
// stop. This process listens for as long as the launcher runs, so no copy meets Node's default
// action (exit at once) here, and it exits only when the launcher has, with its status.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on('error', (err) => {
  process.stderr.write(`botfleet could not start the launcher: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
