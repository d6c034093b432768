// The built-in defaults table of docs/security.md, run row by row on both stores through the
// real server: every built-in type and operation × every kind of caller, each against fresh
// objects, compared with the cell the table gives. The table is read from the document, so the
// document cannot say something the server does not do.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';

const CALLERS = ['anonymous', 'user', 'owner', 'roleAdmin', 'appAdmin', 'adminToken', 'platformKey', 'otherApp'] as const;
type Caller = (typeof CALLERS)[number];

/** The table's rows: operation label → the cell per caller, in CALLERS order. */
function readTable(): Map<string, string[]> {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/security.md'), 'utf8');
  const start = doc.indexOf('<!-- defaults table');
  if (start < 0) throw new Error('docs/security.md has no defaults table');
  const rows = new Map<string, string[]>();
  for (const line of doc.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim().replace(/^`([^`]*)`$/, '$1'));
    if (cells[0] === 'operation' || /^-+$/.test(cells[0] ?? '')) continue;
    rows.set(cells[0] as string, cells.slice(1));
  }
  return rows;
}

const SCHEMA = `
type User @model {
  notes: [Note] @relation(name: "NoteOwner")
  likes: [Note] @relation(name: "NoteLikes")
}
type Note @model
  @permission(scope: RELATION, userFields: ["owner"], read: true, update: true, delete: true)
  @permission(scope: AUTHENTICATED, create: true) {
  text: String
  owner: User @relation(name: "NoteOwner")
  likedBy: [User] @relation(name: "NoteLikes")
}
type Secret @model { text: String }
`;

const OWNER_PASSWORD = 'owner-pw-1';

/** Fresh objects for one run of a row: the owner, a role the owner is a readonly member of, the owner's note, a secret. */
interface Fixture {
  owner: { id: string; token: string; username: string };
  role: string;
  note: string;
  secret: string;
  n: number;
}

interface Reply {
  status: number;
  body: Json;
}

type Send = (query: string, variables?: Record<string, unknown>) => Promise<Reply>;

interface Row {
  /** Sends the operation as the caller; `self` is the caller's own user id (the plain user's for callers without one). */
  run(send: Send, fx: Fixture, self: string): Promise<Reply>;
  /** Whether the operation took effect, from `data` (false: answered as if the object did not exist). */
  done(data: Json, fx: Fixture): boolean;
  /** Extra set-up with the admin token before the row runs. */
  prepare?(fx: Fixture): Promise<void>;
  /** Undoes what a successful run changed outside its own fixture. */
  undo?(): Promise<void>;
  /** Runs its callers one at a time (it changes what other runs rely on). */
  serial?: boolean;
  /** Sends to the management API instead of the app. */
  management?: boolean;
}

describe.each(STORE_KINDS)('built-in defaults table (%s)', (kind) => {
  const table = readTable();
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  let adminRole = '';
  const shared: Record<'user' | 'roleAdmin' | 'appAdmin', { id: string; token: string }> = {} as never;
  let counter = 0;

  const enrol = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }';
  const idOfRole = async (name: string) => (await app.data(`{ viewer { allRoles(where: { name: { eq: "${name}" } }) { edges { node { id } } } } }`)).viewer.allRoles.edges[0].node.id as string;

  async function signUp(username: string, password = 'pw-123456'): Promise<{ id: string; token: string }> {
    const data = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username, password } });
    return { id: data.createUser.changedUser.id, token: data.createUser.token };
  }

  async function fixture(): Promise<Fixture> {
    const n = ++counter;
    const username = `owner-${n}`;
    const made = await app.data(
      `mutation($u: CreateUserInput!, $r: CreateRoleInput!) {
        u: createUser(input: $u) { changedUser { id } token }
        r: createRole(input: $r) { changedRole { id } }
        s: createSecret(input: { text: "s" }) { changedSecret { id } }
      }`,
      { u: { username, password: OWNER_PASSWORD }, r: { name: `Editors-${n}` } },
    );
    const owner = { id: made.u.changedUser.id as string, token: made.u.token as string, username };
    const role = made.r.changedRole.id as string;
    const note = await app.data(
      `mutation($a: AddToUserRolesConnectionInput!, $b: AddToUserRolesConnectionInput!, $n: CreateNoteInput!) {
        a: addToUserRolesConnection(input: $a) { clientMutationId }
        b: addToUserRolesConnection(input: $b) { clientMutationId }
        n: createNote(input: $n) { changedNote { id } }
      }`,
      {
        a: { userId: shared.roleAdmin.id, roleId: role, accessLevel: 'admin' },
        b: { userId: owner.id, roleId: role, accessLevel: 'readonly' },
        n: { text: 'mine', ownerId: owner.id },
      },
    );
    return { owner, role, note: note.n.changedNote.id, secret: made.s.changedSecret.id, n };
  }

  function credential(caller: Caller, fx: Fixture): string | undefined {
    switch (caller) {
      case 'anonymous':
        return undefined;
      case 'user':
      case 'roleAdmin':
      case 'appAdmin':
        return shared[caller].token;
      case 'owner':
        return fx.owner.token;
      case 'adminToken':
        return app.token;
      case 'platformKey':
        return server.key;
      case 'otherApp':
        return other.token;
      default: {
        const never: never = caller;
        throw new Error(`unknown caller ${String(never)}`);
      }
    }
  }

  const selfOf = (caller: Caller, fx: Fixture): string =>
    caller === 'owner' ? fx.owner.id : caller === 'roleAdmin' || caller === 'appAdmin' ? shared[caller].id : shared.user.id;

  const rows: Record<string, Row> = {
    'sign up (`createUser`)': {
      run: (send, fx) => send('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', { i: { username: `new-${fx.n}`, password: 'pw-123456' } }),
      done: (d) => typeof d.createUser?.token === 'string' && d.createUser.changedUser?.id !== undefined,
    },
    'log in (`loginUser`) as the owner': {
      run: (send, fx) => send('mutation($i: LoginUserInput!) { loginUser(input: $i) { token user { id } } }', { i: { username: fx.owner.username, password: OWNER_PASSWORD } }),
      done: (d, fx) => typeof d.loginUser?.token === 'string' && d.loginUser.user?.id === fx.owner.id,
    },
    "read the owner's `User`": {
      run: (send, fx) => send('query($id: ID!) { getUser(id: $id) { id username } }', { id: fx.owner.id }),
      done: (d, fx) => d.getUser?.username === fx.owner.username,
    },
    'list users (`allUsers`) sees the owner': {
      run: (send, fx) => send('query($id: ID!) { viewer { allUsers(where: { id: { eq: $id } }) { edges { node { id } } aggregations { count } } } }', { id: fx.owner.id }),
      done: (d, fx) => {
        const found = d.viewer.allUsers.edges.some((e: Json) => e.node.id === fx.owner.id);
        expect(d.viewer.allUsers.aggregations.count).toBe(found ? 1 : 0);
        return found;
      },
    },
    "change the owner's `username`": {
      run: (send, fx) => send('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { username } } }', { i: { id: fx.owner.id, username: `renamed-${fx.n}` } }),
      done: (d, fx) => d.updateUser?.changedUser?.username === `renamed-${fx.n}`,
    },
    "reset the owner's password (`updateUser`)": {
      run: (send, fx) => send('mutation($i: UpdateUserInput!) { updateUser(input: $i) { changedUser { id } } }', { i: { id: fx.owner.id, password: 'taken-over-1' } }),
      done: (d, fx) => d.updateUser?.changedUser?.id === fx.owner.id,
    },
    '`changeUserPassword` of the owner, old password right': {
      run: (send, fx) => send('mutation($i: ChangeUserPasswordInput!) { changeUserPassword(input: $i) { changedUser { id } } }', { i: { id: fx.owner.id, oldPassword: OWNER_PASSWORD, newPassword: 'changed-pw-1' } }),
      done: (d, fx) => d.changeUserPassword?.changedUser?.id === fx.owner.id,
    },
    "delete the owner's `User`": {
      run: (send, fx) => send('mutation($i: DeleteUserInput!) { deleteUser(input: $i) { changedUser { id } } }', { i: { id: fx.owner.id } }),
      done: (d, fx) => d.deleteUser?.changedUser?.id === fx.owner.id,
    },
    'create a role': {
      run: (send, fx) => send('mutation($i: CreateRoleInput!) { createRole(input: $i) { changedRole { id } } }', { i: { name: `Created-${fx.n}` } }),
      done: (d) => d.createRole?.changedRole?.id !== undefined,
    },
    'create a role in a nested create (`createUser { roles }`)': {
      run: (send, fx) =>
        send('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { username: `nest-${fx.n}`, password: 'pw-123456', roles: [{ name: `Nested-${fx.n}` }] } }),
      done: (d) => d.createUser?.changedUser?.id !== undefined,
    },
    'read a role': {
      run: (send, fx) => send('query($id: ID!) { getRole(id: $id) { name } }', { id: fx.role }),
      done: (d, fx) => d.getRole?.name === `Editors-${fx.n}`,
    },
    'rename a role': {
      run: (send, fx) => send('mutation($i: UpdateRoleInput!) { updateRole(input: $i) { changedRole { name } } }', { i: { id: fx.role, name: `Renamed-${fx.n}` } }),
      done: (d, fx) => d.updateRole?.changedRole?.name === `Renamed-${fx.n}`,
    },
    'rename the built-in `admin` role': {
      serial: true,
      run: (send) => send('mutation($i: UpdateRoleInput!) { updateRole(input: $i) { changedRole { name } } }', { i: { id: adminRole, name: 'not-admin' } }),
      done: (d) => d.updateRole?.changedRole?.name === 'not-admin',
      undo: async () => void (await app.data('mutation($i: UpdateRoleInput!) { updateRole(input: $i) { changedRole { name } } }', { i: { id: adminRole, name: 'admin' } })),
    },
    'delete a role': {
      run: (send, fx) => send('mutation($i: DeleteRoleInput!) { deleteRole(input: $i) { changedRole { id } } }', { i: { id: fx.role } }),
      done: (d, fx) => d.deleteRole?.changedRole?.id === fx.role,
    },
    'enrol the plain user in a role (for *user*: enrolling oneself)': {
      run: (send, fx) => send(enrol, { i: { userId: shared.user.id, roleId: fx.role, accessLevel: 'readonly' } }),
      done: (d) => d.addToUserRolesConnection?.changedUserRoles?.accessLevel === 'readonly',
    },
    "raise a member's `accessLevel` to `admin`": {
      run: (send, fx) =>
        send('mutation($i: UpdateUserRolesConnectionInput!) { updateUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }', { i: { userId: fx.owner.id, roleId: fx.role, accessLevel: 'admin' } }),
      done: (d) => d.updateUserRolesConnection?.changedUserRoles?.accessLevel === 'admin',
    },
    'remove a member from a role': {
      run: (send, fx) => send('mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }', { i: { userId: fx.owner.id, roleId: fx.role } }),
      done: (d) => d.removeFromUserRolesConnection?.changedUserRoles?.accessLevel === 'readonly',
    },
    'enrol a user in the built-in `admin` role': {
      run: (send, fx) => send(enrol, { i: { userId: fx.owner.id, roleId: adminRole, accessLevel: 'admin' } }),
      done: (d) => d.addToUserRolesConnection?.changedUserRoles?.accessLevel === 'admin',
    },
    'remove a member of the built-in `admin` role': {
      prepare: async (fx) => void (await app.data(enrol, { i: { userId: fx.owner.id, roleId: adminRole, accessLevel: 'readonly' } })),
      run: (send, fx) => send('mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { changedUserRoles { accessLevel } } }', { i: { userId: fx.owner.id, roleId: adminRole } }),
      done: (d) => d.removeFromUserRolesConnection?.changedUserRoles?.accessLevel === 'readonly',
    },
    'read an object of a type without rules': {
      run: (send, fx) => send('query($id: ID!) { getSecret(id: $id) { text } }', { id: fx.secret }),
      done: (d) => d.getSecret?.text === 's',
    },
    "edge between the owner and the owner's note": {
      run: (send, fx) => send('mutation($i: AddToNoteLikesConnectionInput!) { addToNoteLikesConnection(input: $i) { changedNoteLikes { user { id } } } }', { i: { userId: fx.owner.id, noteId: fx.note } }),
      done: (d) => d.addToNoteLikesConnection?.changedNoteLikes !== undefined,
    },
    "edge between oneself (the plain user for callers without one) and the owner's note": {
      run: (send, fx, self) => send('mutation($i: AddToNoteLikesConnectionInput!) { addToNoteLikesConnection(input: $i) { changedNoteLikes { user { id } } } }', { i: { userId: self, noteId: fx.note } }),
      done: (d) => d.addToNoteLikesConnection?.changedNoteLikes !== undefined,
    },
    'management API (`apps`)': {
      management: true,
      run: (send) => send('{ apps { id } }'),
      done: (d) => Array.isArray(d.apps) && d.apps.some((a: Json) => a.id === app.id),
    },
  };

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    other = await createTestApp(server, SCHEMA);
    adminRole = await idOfRole('admin');
    shared.user = await signUp('plain-user');
    shared.roleAdmin = await signUp('role-admin');
    shared.appAdmin = await signUp('app-admin');
    await app.data(enrol, { i: { userId: shared.appAdmin.id, roleId: adminRole, accessLevel: 'readonly' } });
  });
  afterAll(async () => server?.close());

  it('covers every row of the table and no other', () => {
    expect([...table.keys()].sort()).toEqual(Object.keys(rows).sort());
    for (const cells of table.values()) expect(cells).toHaveLength(CALLERS.length);
  });

  /** What the server did for `caller`, in the table's vocabulary. */
  async function observe(row: Row, caller: Caller): Promise<string> {
    const fx = await fixture();
    await row.prepare?.(fx);
    const token = credential(caller, fx);
    const url = row.management ? `${server.base}/admin/graphql` : app.endpoint;
    const send: Send = async (query, variables = {}) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    const reply = await row.run(send, fx, selfOf(caller, fx));
    if (reply.status === 401) {
      expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      return '401';
    }
    expect(reply.status).toBeLessThan(500);
    const errors: Json[] = reply.body.errors ?? [];
    if (errors.length > 0) return String(errors[0].extensions?.code);
    const done = row.done(reply.body.data, fx);
    if (done) await row.undo?.();
    return done ? '✓' : 'null';
  }

  it.each([...table.keys()])('%s', async (label) => {
    const row = rows[label];
    const expected = table.get(label);
    if (!row || !expected) throw new Error(`no test for the row "${label}"`);
    const observed: Record<string, string> = {};
    if (row.serial) for (const caller of CALLERS) observed[caller] = await observe(row, caller);
    else {
      const results = await Promise.all(CALLERS.map((caller) => observe(row, caller)));
      CALLERS.forEach((caller, i) => (observed[caller] = results[i] as string));
    }
    expect(observed).toEqual(Object.fromEntries(CALLERS.map((caller, i) => [caller, expected[i]])));
  });
});
