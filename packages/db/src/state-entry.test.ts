import * as main from './index';
import * as deliveries from './repositories/deliveries';
import * as eventDeliveries from './repositories/event-deliveries';
import * as lifecycle from './repositories/execution-lifecycle';
import * as executions from './repositories/executions';
import * as webhookHealth from './repositories/webhook-health';
import * as state from './state';

/*
 * The state changes of executions and deliveries are on '@botfleet/db/state' and nowhere else;
 * whatever else those repositories export is on '@botfleet/db'. Which entry a file imports then
 * says whether it may change a run's state (packages/engine/src/state-writes.test.ts).
 */

/** The repositories whose exports the two entries share between them. */
const SHARED = { deliveries, eventDeliveries, lifecycle, executions, webhookHealth };

it('the main entry exports none of the state changes', () => {
  const changes = Object.keys(state);
  expect(changes.length).toBeGreaterThanOrEqual(20);
  expect(changes.filter((name) => name in main)).toEqual([]);
});

it('each value those repositories export is on one entry or the other', () => {
  const unreachable = Object.entries(SHARED).flatMap(([file, exports]) =>
    Object.keys(exports)
      .filter((name) => !(name in main) && !(name in state))
      .map((name) => `${file}: ${name}`),
  );
  expect(unreachable).toEqual([]);
});
