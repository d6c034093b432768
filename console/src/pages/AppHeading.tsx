// The heading of an app's pages: the page and the app's name once known.

import type { AppSummary } from '../api/admin';

export function AppHeading({ app, appId, page }: { app: AppSummary | null | undefined; appId: string; page: string }) {
  return (
    <h1 tabIndex={-1}>
      {page} <span className="heading-app">· {app?.name ?? appId}</span>
    </h1>
  );
}
