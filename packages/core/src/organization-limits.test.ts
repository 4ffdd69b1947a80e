import { effectiveLimits, organizationLimitDefaults, parseLimitValue } from './organization-limits';

describe('organization limits', () => {
  const defaults = organizationLimitDefaults({
    maxPendingExecutions: 10_000,
    maxApiKeys: 100,
    rateLimitPerMinute: 0,
  });

  it('turns the env settings into defaults: an unset running cap and a rate of 0 are no limit', () => {
    expect(defaults).toEqual({
      maxRunningExecutions: null,
      maxPendingExecutions: 10_000,
      maxApiKeys: 100,
      rateLimitPerMinute: null,
    });
  });

  it('uses the organization’s own value, else the default, and says which', () => {
    const own = { maxRunningExecutions: 2, maxPendingExecutions: null, maxApiKeys: null, rateLimitPerMinute: 50 };
    expect(effectiveLimits(own, defaults)).toEqual({
      maxRunningExecutions: { value: 2, source: 'organization' },
      maxPendingExecutions: { value: 10_000, source: 'default' },
      maxApiKeys: { value: 100, source: 'default' },
      rateLimitPerMinute: { value: 50, source: 'organization' },
    });
  });

  it('parses what the operator types: a whole number in bounds, or default', () => {
    expect(parseLimitValue('maxRunningExecutions', '3')).toEqual({ ok: true, value: 3 });
    expect(parseLimitValue('maxApiKeys', 'default')).toEqual({ ok: true, value: null });
    for (const bad of ['0', '-1', '1.5', '1e3', ' 3', '', 'Default', '100001', '99999999999999999999']) {
      expect(parseLimitValue('maxRunningExecutions', bad)).toEqual({
        ok: false,
        message: "--max-running must be a whole number from 1 to 100000, or 'default'",
      });
    }
  });
});
