// The API key lives in sessionStorage only: it is gone when the tab closes, is never written to
// localStorage or a cookie, and so never leaves this tab except as the Authorization header.
const STORAGE_KEY = 'botfleet.console.apiKey';

export function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be refused (privacy modes); the console then asks for the key on every load.
    return null;
  }
}

export function storeKey(key: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // See readStoredKey: the key still works for this page's life.
  }
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored, nothing to forget.
  }
}
