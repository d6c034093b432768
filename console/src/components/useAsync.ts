// Loads something when its inputs change and exposes the three states every page shows:
// loading, error, data. A stale answer (inputs changed meanwhile) is dropped. `useAction` is
// the same for what a form does when submitted: busy while it runs, its error if it failed.

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

export interface ActionState {
  busy: boolean;
  error: unknown;
  /** Runs `action`: busy meanwhile, the previous error cleared, a failure kept as `error`. */
  run: (action: () => Promise<void>) => Promise<void>;
}

export function useAction(): ActionState {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
