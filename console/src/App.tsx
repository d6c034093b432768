// The console's frame: sign-in when there is no platform key, otherwise the navigation and the
// page of the current route. Focus moves to the page heading on navigation, for keyboard and
// screen-reader users.

import { Suspense, lazy, useEffect, useSyncExternalStore } from 'react';
import { onSessionChange, platformKey, signOut } from './api/session';
import { Link } from './components/Link';
import { Loading } from './components/ErrorBox';
import { AppsPage } from './pages/AppsPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { TokensPage } from './pages/TokensPage';
import { hrefOf, parseRoute, useLocation } from './router';
import type { AppPage, Route } from './router';

// The two pages with Monaco load it on demand, so signing in and the apps list stay light.
const SchemaPage = lazy(() => import('./pages/SchemaPage').then((m) => ({ default: m.SchemaPage })));
const DataPage = lazy(() => import('./pages/DataPage').then((m) => ({ default: m.DataPage })));
const ExplorerPage = lazy(() => import('./pages/ExplorerPage').then((m) => ({ default: m.ExplorerPage })));
const UsersPage = lazy(() => import('./pages/UsersPage').then((m) => ({ default: m.UsersPage })));
const TrafficPage = lazy(() => import('./pages/TrafficPage').then((m) => ({ default: m.TrafficPage })));
const FunctionsPage = lazy(() => import('./pages/FunctionsPage').then((m) => ({ default: m.FunctionsPage })));
const UserPage = lazy(() => import('./pages/UserPage').then((m) => ({ default: m.UserPage })));

const APP_PAGES: readonly { page: AppPage; label: string }[] = [
  { page: 'schema', label: 'Schema' },
  { page: 'data', label: 'Data' },
  { page: 'users', label: 'Users' },
  { page: 'explorer', label: 'Explorer' },
  { page: 'traffic', label: 'Traffic' },
  { page: 'functions', label: 'Functions' },
  { page: 'tokens', label: 'Tokens' },
  { page: 'settings', label: 'Settings' },
];

export function App() {
  const key = useSyncExternalStore(onSessionChange, platformKey);
  const { pathname } = useLocation();
  const route = parseRoute(pathname);

  useEffect(() => {
    document.title = `${titleOf(route)} · Tessera console`;
    // After a navigation, put focus on the new page's heading (not on the first load).
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading && document.activeElement && document.activeElement !== document.body) heading.focus();
    // Once per path (and on sign-in).
  }, [pathname, key]);

  if (!key) return <SignInPage />;
  const appId = 'appId' in route ? route.appId : undefined;
  return (
    <div className={`shell${route.page === 'explorer' ? ' wide' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href={hrefOf({ page: 'apps' })} className="brand">
          Tessera console
        </Link>
        <nav aria-label="Main" className="topnav">
          <Link href={hrefOf({ page: 'apps' })} aria-current={route.page === 'apps' ? 'page' : undefined}>
            Apps
          </Link>
        </nav>
        <button type="button" className="button small" onClick={signOut}>
          Sign out
        </button>
      </header>
      {appId && (
        <nav aria-label="App" className="appnav">
          <span className="appnav-id" title="App id">
            {appId}
          </span>
          {APP_PAGES.map(({ page, label }) => (
            <Link key={page} href={hrefOf({ page, appId })} aria-current={route.page === page ? 'page' : undefined}>
              {label}
            </Link>
          ))}
        </nav>
      )}
      <main id="main" className="main">
        <Suspense fallback={<Loading label="Loading the page…" />}>
          <Page route={route} />
        </Suspense>
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'apps':
      return <AppsPage />;
    case 'schema':
      return <SchemaPage key={route.appId} appId={route.appId} />;
    case 'data':
      return <DataPage key={route.appId} appId={route.appId} type={route.type} />;
    case 'explorer':
      return <ExplorerPage key={route.appId} appId={route.appId} />;
    case 'tokens':
      return <TokensPage key={route.appId} appId={route.appId} />;
    case 'users':
      return route.userId ? (
        <UserPage key={`${route.appId}/${route.userId}`} appId={route.appId} userId={route.userId} />
      ) : (
        <UsersPage key={route.appId} appId={route.appId} />
      );
    case 'traffic':
      return <TrafficPage key={route.appId} appId={route.appId} />;
    case 'functions':
      return <FunctionsPage key={route.appId} appId={route.appId} />;
    case 'settings':
      return <SettingsPage key={route.appId} appId={route.appId} />;
    case 'notFound':
      return (
        <>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <Link href={hrefOf({ page: 'apps' })}>Go to the apps</Link>.
          </p>
        </>
      );
    default: {
      const never: never = route;
      return never;
    }
  }
}

function titleOf(route: Route): string {
  switch (route.page) {
    case 'apps':
      return 'Apps';
    case 'notFound':
      return 'Not found';
    default:
      return `${route.page[0]?.toUpperCase()}${route.page.slice(1)} · ${route.appId}`;
  }
}
