import { getSchedule, listExecutions, type BotSummary } from '@botfleet/sdk';
import { useSession } from '../console-session';
import { formatInterval, formatTime } from '../format';
import { hrefOf } from '../routes';
import { useLoad } from '../use-load';
import { Link } from './link';
import { StatusBadge } from './status-badge';
import { TagList } from './tag-list';

/** One bot in the list, with its schedule and its last run (the list endpoint carries neither). */
export function BotRow({ bot }: { bot: BotSummary }) {
  const { client } = useSession();
  const extras = useLoad(async () => {
    const [schedule, runs] = await Promise.all([
      getSchedule({ client, path: { botId: bot.id }, throwOnError: true }),
      // The newest run as a list of one: a bot that never ran answers an empty page, not a 404.
      listExecutions({ client, path: { botId: bot.id }, query: { limit: 1 }, throwOnError: true }),
    ]);
    return { schedule: schedule.data, lastRun: runs.data.data[0] ?? null };
  }, [bot.id]);
  const schedule = extras.data?.schedule;
  const lastRun = extras.data?.lastRun;

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
          <dd>
            {!schedule
              ? '…'
              : !schedule.active
                ? 'none'
                : schedule.cron
                  ? `${schedule.cron} (${schedule.timezone})`
                  : schedule.interval
                    ? formatInterval(schedule.interval)
                    : 'none'}
          </dd>
        </div>
        <div>
          <dt>Last run</dt>
          <dd>
            {extras.data === undefined ? (
              '…'
            ) : lastRun ? (
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
