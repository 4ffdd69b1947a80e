import { useState } from 'preact/hooks';
import { errorMessage } from '../api-errors';
import { useAction } from '../use-action';

interface SignInPageProps {
  /** Checks the key with the API; rejects with what to tell the user. */
  onSignIn(key: string): Promise<void>;
  notice: string | null;
}

export function SignInPage({ onSignIn, notice }: SignInPageProps) {
  const [key, setKey] = useState('');
  const signIn = useAction();
  // onSignIn rejects with the sentence to show.
  const problem = signIn.error === null ? null : errorMessage(signIn.error);
  return (
    <main id="main" class="sign-in">
      <h1>botfleet console</h1>
      {notice && <p class="notice">{notice}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.run(() => onSignIn(key.trim()));
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          pattern="bf_[0-9A-Za-z]{43}"
          title="A botfleet API key: bf_ followed by 43 letters and digits"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p class="hint">
          Kept in this tab only (sessionStorage) and sent to this server only. A read key shows everything and changes
          nothing.
        </p>
        <button type="submit" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
      </form>
    </main>
  );
}
