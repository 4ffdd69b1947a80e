import type { BotSummary } from '@botfleet/sdk';
import { formatInterval, formatTime } from '../format';
import { hrefOf } from '../routes';
import { Link } from './link';
import { StatusBadge } from './status-badge';
import { TagList } from './tag-list';

function describeSchedule(schedule: BotSummary['schedule']): string {
  if (!schedule?.active) return 'none';
  if (schedule.cron) return `${schedule.cron} (${schedule.timezone})`;
  return schedule.interval ? formatInterval(schedule.interval) : 'none';
}

/** One bot in the list, with its schedule and its last run as the list endpoint gives them. */
export function BotRow({ bot }: { bot: BotSummary }) {
  const lastRun = bot.lastExecution;
  return (
    <li class="card">
      <div class="card-title">
        <Link href={hrefOf({ page: 'bot', botId: bot.id })}>{bot.name}</Link>
        <StatusBadge status={bot.status} />
      </div>
      <dl class="facts">
        <div>
          <dt>Tags</dt>
          <dd>
            <TagList tags={bot.tags} />
          </dd>
        </div>
        <div>
          <dt>Schedule</dt>
          <dd>{describeSchedule(bot.schedule)}</dd>
        </div>
        <div>
          <dt>Last run</dt>
          <dd>
            {lastRun ? (
              <>
                <StatusBadge status={lastRun.status} />{' '}
                <Link href={hrefOf({ page: 'run', executionId: lastRun.id })}>{formatTime(lastRun.createdAt)}</Link>
              </>
            ) : (
              'never'
            )}
          </dd>
        </div>
      </dl>
    </li>
  );
}
