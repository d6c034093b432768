// The heading of an app's pages: the page and the app's name once known; or that there is no such app.

export function AppHeading({ app, appId, page }: { app: { name: string } | null | undefined; appId: string; page: string }) {
  return (
    <h1 tabIndex={-1}>
      {page} <span className="heading-app">· {app?.name ?? appId}</span>
    </h1>
  );
}

export function NoSuchApp({ appId }: { appId: string }) {
  return (
    <>
      <h1 tabIndex={-1}>No such app</h1>
      <p role="alert">There is no app with id <code>{appId}</code>. It may have been deleted.</p>
    </>
  );
}
