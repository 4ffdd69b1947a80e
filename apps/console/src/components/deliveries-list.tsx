import { redeliverDelivery, type Delivery } from '@botfleet/sdk';
import { useState } from 'preact/hooks';
import { useSession } from '../console-session';
import { formatTime } from '../format';
import { ErrorAlert } from './error-alert';
import { StatusBadge } from './status-badge';
import { UrlText } from './url-text';

/** The run's webhook deliveries with every attempt, and redelivery for write keys. */
export function DeliveriesList({ deliveries, onRedelivered }: { deliveries: Delivery[]; onRedelivered(): void }) {
  const { client, canWrite } = useSession();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Webhook deliveries</h2>
      <ErrorAlert error={error} />
      {deliveries.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul class="cards" data-testid="deliveries">
          {deliveries.map((delivery) => (
            <li class="card" key={delivery.id}>
              <div class="card-title">
                <code>{delivery.event}</code> <StatusBadge status={delivery.status} />
              </div>
              <p>
                <UrlText url={delivery.url} /> <span class="hint">({delivery.auth})</span>
              </p>
              <ol class="attempts" aria-label="Attempts">
                {delivery.attempts.map((attempt) => (
                  <li key={attempt.number}>
                    #{attempt.number} {formatTime(attempt.startedAt)}: {attempt.statusCode ?? 'no response'}{' '}
                    <span class="hint">{attempt.durationMs} ms</span>
                    {attempt.error && <span class="error-text"> {attempt.error}</span>}
                  </li>
                ))}
              </ol>
              {delivery.nextAttemptAt && <p class="hint">Next attempt {formatTime(delivery.nextAttemptAt)}</p>}
              {canWrite && delivery.status !== 'pending' && (
                <button
                  type="button"
                  class="secondary"
                  disabled={busy === delivery.id}
                  onClick={() => {
                    setBusy(delivery.id);
                    setError(null);
                    redeliverDelivery({ client, path: { deliveryId: delivery.id }, throwOnError: true })
                      .then(() => onRedelivered())
                      .catch((caught: unknown) => setError(caught))
                      .finally(() => setBusy(null));
                  }}
                >
                  Redeliver
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
