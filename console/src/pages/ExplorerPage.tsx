// GraphiQL against the app's endpoint, as one of three callers: admin (the platform key),
// anonymous (no Authorization header), or a user logged in through the app's loginUser.
// Subscriptions go over the WebSocket transport (graphql-ws) on the same path.

import { createGraphiQLFetcher } from '@graphiql/toolkit';
import type { Fetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { Kind, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { useEffect, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { appPath, appSocketUrl } from '../api/admin';
import { requestGraphQL } from '../api/graphql';
import { platformKey } from '../api/session';
import { ErrorBox } from '../components/ErrorBox';
import { useAction } from '../components/useAsync';

type Mode = 'admin' | 'anonymous' | 'user';

interface UserSession {
  username: string;
  token: string;
}

const DEFAULT_QUERY = `# Run with Ctrl+Enter. "Run as" above chooses who asks:
# admin (the platform key), anonymous, or a user of this app.
{
  viewer {
    user { id username }
  }
}
`;

/** GraphiQL's saved tabs and history, kept per app so two apps' queries do not mix. */
function appStorage(appId: string): Storage {
  const prefix = `tessera:${appId}:`;
  return {
    get length() {
      return Object.keys(localStorage).filter((k) => k.startsWith(prefix)).length;
    },
    clear: () => Object.keys(localStorage).filter((k) => k.startsWith(prefix)).forEach((k) => localStorage.removeItem(k)),
    getItem: (key) => localStorage.getItem(prefix + key),
    setItem: (key, value) => localStorage.setItem(prefix + key, value),
    removeItem: (key) => localStorage.removeItem(prefix + key),
    key: (index) => Object.keys(localStorage).filter((k) => k.startsWith(prefix))[index]?.slice(prefix.length) ?? null,
  };
}

/** Whether the operation GraphiQL runs (the named one, or the only one) is a subscription. */
function isSubscription(query: string, operationName: string | null | undefined): boolean {
  try {
    const operations = parse(query).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d] : []));
    const chosen = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
    return chosen?.operation === 'subscription';
  } catch {
    return false; // a syntax error: the server will say so over HTTP
  }
}

function storedUser(appId: string): UserSession | null {
  try {
    return JSON.parse(sessionStorage.getItem(`tessera.user.${appId}`) ?? 'null') as UserSession | null;
  } catch {
    return null;
  }
}

export function ExplorerPage({ appId }: { appId: string }) {
  const [mode, setMode] = useState<Mode>('admin');
  const [user, setUser] = useState<UserSession | null>(() => storedUser(appId));
  const token = mode === 'admin' ? platformKey() : mode === 'user' ? (user?.token ?? null) : null;

  const { fetcher, dispose } = useMemo(() => {
    const authorization = token ? `Bearer ${token}` : undefined;
    const wsClient = createClient({
      url: appSocketUrl(appId),
      lazy: true,
      connectionParams: authorization ? { Authorization: authorization } : {},
    });
    const http = createGraphiQLFetcher({ url: appPath(appId), headers: authorization ? { authorization } : {} });
    // Subscriptions go over the WebSocket; the toolkit's own detection misses anonymous
    // subscription operations, so the operation is looked up here.
    const fetcher: Fetcher = (params, options) =>
      isSubscription(params.query, params.operationName)
        ? // Results arrive as JSON (formatted errors, not GraphQLError objects), which is all GraphiQL shows.
          (wsClient.iterate({ query: params.query, variables: params.variables ?? {}, operationName: params.operationName ?? null }) as unknown as ReturnType<Fetcher>)
        : http(params, options);
    return { fetcher, dispose: () => void wsClient.dispose() };
  }, [appId, token]);
  useEffect(() => dispose, [dispose]);
  const storage = useMemo(() => appStorage(appId), [appId]);

  const logIn = (session: UserSession) => {
    sessionStorage.setItem(`tessera.user.${appId}`, JSON.stringify(session));
    setUser(session);
  };
  const logOut = () => {
    sessionStorage.removeItem(`tessera.user.${appId}`);
    setUser(null);
  };

  return (
    <div className="explorer">
      <div className="explorer-bar">
        <h1 tabIndex={-1}>Explorer</h1>
        <fieldset className="mode-switch">
          <legend>Run as</legend>
          {(
            [
              ['admin', 'Admin (platform key)'],
              ['anonymous', 'Anonymous'],
              ['user', user ? `User ${user.username}` : 'A user…'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="radio">
              <input type="radio" name="explorer-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        {mode === 'user' && (user ? <LoggedIn user={user} onLogOut={logOut} /> : <LoginForm appId={appId} onLoggedIn={logIn} />)}
      </div>
      <div className="graphiql-host" aria-label="GraphiQL">
        {mode === 'user' && !user ? (
          <p className="empty">Log in as a user of this app to run operations as them.</p>
        ) : (
          <GraphiQL key={`${mode}:${user?.token ?? ''}`} fetcher={fetcher} storage={storage} defaultQuery={DEFAULT_QUERY} shouldPersistHeaders={false} />
        )}
      </div>
    </div>
  );
}

function LoggedIn({ user, onLogOut }: { user: UserSession; onLogOut: () => void }) {
  return (
    <p className="logged-in" role="status">
      Requests carry the token of <strong>{user.username}</strong>.{' '}
      <button type="button" className="button small" onClick={onLogOut}>
        Log out
      </button>
    </p>
  );
}

function LoginForm({ appId, onLoggedIn }: { appId: string; onLoggedIn: (session: UserSession) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const query = 'mutation Login($input: LoginUserInput!) { loginUser(input: $input) { token } }';
      const data = await requestGraphQL<{ loginUser: { token: string | null } | null }>(appPath(appId), query, { input: { username, password } }, null);
      const token = data.loginUser?.token;
      if (!token) throw new Error('The app returned no token');
      onLoggedIn({ username, token });
    });
  };
  return (
    <form className="login-form" onSubmit={submit} aria-label="Log in as a user">
      <label htmlFor="login-username">Username</label>
      <input id="login-username" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" required />
      <label htmlFor="login-password">Password</label>
      <input id="login-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="off" required />
      <button type="submit" className="button small primary" disabled={busy}>
        {busy ? 'Logging in…' : 'Log in'}
      </button>
      <ErrorBox error={error} title="Login failed" />
    </form>
  );
}
