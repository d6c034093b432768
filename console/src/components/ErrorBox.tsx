// Shows what the server said went wrong: each error's code and message, as given.

import { asApiError } from '../api/graphql';

export function ErrorBox({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  const api = asApiError(error);
  return (
    <div className="error-box" role="alert">
      <strong>{title}</strong>
      <ul>
        {api.errors.map((e, i) => (
          <li key={i}>
            <code className="error-code">{e.extensions?.code ?? 'ERROR'}</code> {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}
