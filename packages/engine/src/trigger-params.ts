import { AppError, stepUrlTemplates, urlTemplateProblems, validateParams } from '@botfleet/core';
import type { BotForTrigger } from '@botfleet/db';

/**
 * Everything a trigger's params must pass, for a single trigger, a rerun and each run of a batch:
 * the manifest's definitions (validateParams: unknown_parameter, invalid_parameter), then the
 * step URLs the params fill. A `goto` URL such as `{{params.target}}` can only be judged once its
 * params are known; a value that makes it open another scheme than http(s) (`file:///etc/passwd`,
 * `javascript:...`) is `400 validation_error` naming `params.<name>` (the run would refuse it too,
 * with url_not_allowed, but a trigger should not accept a run that can only fail).
 */
export function assertTriggerParams(bot: BotForTrigger, params: Record<string, unknown>): void {
  validateParams(bot.parameters, params);
  const problems = urlTemplateProblems(stepUrlTemplates(bot.templatedSteps), params);
  const [first] = problems;
  if (first) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new AppError('validation_error', `${first.path} ${first.message}${more}`, problems);
  }
}
