// Loads something when its inputs change and exposes the three states every page shows:
// loading, error, data. A stale answer (inputs changed meanwhile) is dropped.

import { useCallback, useEffect, useRef, useState } from 'react';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const id = ++run.current;
    setState((s) => ({ data: s.data, error: undefined, loading: true }));
    load().then(
      (data) => id === run.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => id === run.current && setState({ data: undefined, error, loading: false }),
    );
    // Deliberately only the inputs the caller lists.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
