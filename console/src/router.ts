// A small history-API router: the console's pages are a handful of fixed path shapes under
// /console, so a pattern list is all that is needed.

import { useSyncExternalStore } from 'react';

export const BASE = '/console';

export type Route =
  | { page: 'apps' }
  | { page: 'schema'; appId: string }
  | { page: 'data'; appId: string; type?: string }
  | { page: 'explorer'; appId: string }
  | { page: 'tokens'; appId: string }
  | { page: 'users'; appId: string; userId?: string }
  | { page: 'traffic'; appId: string }
  | { page: 'functions'; appId: string }
  | { page: 'settings'; appId: string }
  | { page: 'notFound'; path: string };

export type AppPage = 'schema' | 'data' | 'users' | 'explorer' | 'traffic' | 'functions' | 'tokens' | 'settings';

export function parseRoute(pathname: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'apps')) return { page: 'apps' };
  const [first, appId, page, type, extra] = parts;
  if (first === 'apps' && appId && extra === undefined) {
    if (page === undefined || page === 'schema') return { page: 'schema', appId };
    if (page === 'data') return type ? { page: 'data', appId, type } : { page: 'data', appId };
    if (page === 'users') return type ? { page: 'users', appId, userId: type } : { page: 'users', appId };
    if ((page === 'explorer' || page === 'traffic' || page === 'functions' || page === 'tokens' || page === 'settings') && type === undefined) return { page, appId };
  }
  return { page: 'notFound', path };
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'apps':
      return `${BASE}/`;
    case 'schema':
    case 'explorer':
    case 'traffic':
    case 'functions':
    case 'tokens':
    case 'settings':
      return `${BASE}/apps/${encodeURIComponent(route.appId)}/${route.page}`;
    case 'users':
      return `${BASE}/apps/${encodeURIComponent(route.appId)}/users${route.userId ? `/${encodeURIComponent(route.userId)}` : ''}`;
    case 'data':
      return `${BASE}/apps/${encodeURIComponent(route.appId)}/data${route.type ? `/${encodeURIComponent(route.type)}` : ''}`;
    case 'notFound':
      return `${BASE}/`;
    default: {
      const never: never = route;
      return never;
    }
  }
}

/** A view of the data browser: a type's table with its URL parameters (filter, followed relation). */
export function dataViewHref(appId: string, type: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params).toString();
  return `${hrefOf({ page: 'data', appId, type })}${query ? `?${query}` : ''}`;
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLocation(): { pathname: string; search: string } {
  const href = useSyncExternalStore(subscribe, () => window.location.pathname + window.location.search);
  const url = new URL(href, window.location.origin);
  return { pathname: url.pathname, search: url.search };
}
