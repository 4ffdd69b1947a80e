import { buildTestEventBody, planExecutionEvents, type ExecutionEnd } from './webhook-events';

const facts = { executionId: 'exe_1', botId: 'bot_1', endedAt: new Date('2026-11-23T15:00:00.000Z') };
const data = { items: [{ name: 'Widget', price: '9.99' }] };
const completed = (changed: boolean | null): ExecutionEnd => ({
  status: 'completed',
  data,
  change: changed === null ? null : { changed, previousExecutionId: changed ? 'exe_0' : 'exe_0' },
});

describe('planExecutionEvents', () => {
  it('sends the plain narrowed data for execution.completed by default', () => {
    expect(planExecutionEvents({ dataPath: 'items.0' }, facts, completed(true))).toEqual([
      { event: 'execution.completed', body: '{"name":"Widget","price":"9.99"}' },
    ]);
  });

  it('wraps execution.completed in the envelope when asked', () => {
    const [planned] = planExecutionEvents({ envelope: true, dataPath: 'items.0.name' }, facts, completed(false));
    expect(JSON.parse(planned!.body)).toEqual({
      type: 'execution.completed',
      timestamp: '2026-11-23T15:00:00.000Z',
      data: { executionId: 'exe_1', botId: 'bot_1', status: 'completed', data: 'Widget' },
    });
  });

  it('sends data.changed only when the data changed, with the previous execution', () => {
    const settings = { events: ['data.changed' as const] };
    expect(planExecutionEvents(settings, facts, completed(false))).toEqual([]);
    const [planned] = planExecutionEvents(settings, facts, completed(true));
    expect(planned!.event).toBe('data.changed');
    expect(JSON.parse(planned!.body).data).toEqual({
      executionId: 'exe_1',
      botId: 'bot_1',
      status: 'completed',
      data,
      previousExecutionId: 'exe_0',
    });
  });

  it('holds back an unchanged completion with onlyOnChange', () => {
    const settings = { events: ['execution.completed' as const, 'data.changed' as const], onlyOnChange: true };
    expect(planExecutionEvents(settings, facts, completed(false))).toEqual([]);
    expect(planExecutionEvents(settings, facts, completed(true)).map((p) => p.event)).toEqual([
      'execution.completed',
      'data.changed',
    ]);
  });

  it('sends nothing for a completion without data', () => {
    const end: ExecutionEnd = { status: 'completed', data: null, change: null };
    expect(planExecutionEvents({ events: ['execution.completed', 'data.changed'] }, facts, end)).toEqual([]);
  });

  it('sends failures with the error and screenshot URL, and cancellations, only when subscribed', () => {
    const failed: ExecutionEnd = { status: 'failed', error: 'Step 2 failed', screenshotUrl: 'https://x/a.png' };
    expect(planExecutionEvents({}, facts, failed)).toEqual([]);
    const [planned] = planExecutionEvents({ events: ['execution.failed'] }, facts, failed);
    expect(JSON.parse(planned!.body)).toEqual({
      type: 'execution.failed',
      timestamp: '2026-11-23T15:00:00.000Z',
      data: {
        executionId: 'exe_1',
        botId: 'bot_1',
        status: 'failed',
        error: 'Step 2 failed',
        screenshotUrl: 'https://x/a.png',
      },
    });
    const cancelled = planExecutionEvents({ events: ['execution.cancelled'] }, facts, { status: 'cancelled' });
    expect(cancelled.map((p) => [p.event, JSON.parse(p.body).data.status])).toEqual([
      ['execution.cancelled', 'cancelled'],
    ]);
  });
});

it('builds the webhook.test envelope', () => {
  expect(JSON.parse(buildTestEventBody('bot_1', facts.endedAt))).toEqual({
    type: 'webhook.test',
    timestamp: '2026-11-23T15:00:00.000Z',
    data: { botId: 'bot_1' },
  });
});
