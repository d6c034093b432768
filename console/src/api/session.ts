// The platform key for this browser tab: kept in sessionStorage (gone when the tab closes),
// never in the URL, localStorage or a cookie.

const KEY = 'tessera.platformKey';
const listeners = new Set<() => void>();

export function platformKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function signIn(key: string): void {
  sessionStorage.setItem(KEY, key);
  listeners.forEach((l) => l());
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
  // User tokens from "log in as" in the explorer belong to this session too.
  for (let i = sessionStorage.length - 1; i >= 0; i -= 1) {
    const name = sessionStorage.key(i);
    if (name?.startsWith('tessera.')) sessionStorage.removeItem(name);
  }
  listeners.forEach((l) => l());
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
