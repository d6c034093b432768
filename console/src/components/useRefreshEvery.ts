// Calls `refresh` every `ms` while `enabled` and the tab is visible: a hidden tab asks the
// server nothing, and one shown again refreshes at once rather than showing stale figures.

import { useEffect, useRef } from 'react';

export function useRefreshEvery(ms: number, enabled: boolean, refresh: () => void): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    if (!enabled) return;
    let timer: number | undefined;
    const start = () => {
      window.clearInterval(timer);
      timer = document.hidden ? undefined : window.setInterval(() => latest.current(), ms);
    };
    const onVisibility = () => {
      if (!document.hidden) latest.current();
      start();
    };
    start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [ms, enabled]);
}
