// The system's colour scheme (prefers-color-scheme), for the few things CSS cannot theme on its
// own: Monaco's editor theme is set from script.

import { useSyncExternalStore } from 'react';

const query = window.matchMedia('(prefers-color-scheme: dark)');

function subscribe(listener: () => void): () => void {
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribe, () => (query.matches ? 'dark' : 'light'));
}
