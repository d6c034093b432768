// Members of the app's built-in `admin` role read everything, and a user who joins or leaves
// it (enrolled or removed by an admin token, leaving on their own, the role renamed away and
// back) reads accordingly from the very next request, on both stores — although each instance
// remembers for a while which users are not app admins, to run their queries without the
// admin arm of the rules. On a second instance sharing the PostgreSQL database, leaving the
// role is seen on its very next request too (an app admin's statements check the role
// themselves), joining it within moments (the change's notification).

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { createServer } from '../../src/server/index.js';
import { openStore } from '../../src/store/index.js';
import type { TestServer } from '../server/harness.js';
import { sleep } from '../helpers/wait.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { Json, TestApp } from './harness.js';

const SCHEMA = `
type User @model
  @permission(scope: EVERYONE, create: true)
  @permission(scope: SELF, read: true, update: true) {
  docs: [Doc] @relation(name: "DocOwner")
  team: Team @relation(name: "TeamMembers")
}
type Doc @model @permission(scope: RELATION, userFields: ["owner"], read: true)
  @permission(scope: RELATION, userFields: ["owner"], read: true, fields: ["note"]) {
  title: String!
  note: String
  owner: User @relation(name: "DocOwner")
}
type Team @model @permission(scope: RELATION, userFields: ["members"], read: true) {
  name: String!
  members: [User] @relation(name: "TeamMembers")
}
type Secret @model { text: String }
`;

/** One query over every kind of rule: RELATION (one step and through a relation), SELF, none (admins only), a field rule. */
const EVERYTHING = `{ viewer {
  allDocs(orderBy: { field: title }) { edges { node { title note owner { id } } } aggregations { count } }
  allTeams { edges { node { name } } }
  allUsers { aggregations { count } }
  allSecrets { edges { node { text } } }
} }`;

describe.each(STORE_KINDS)('the app admin role (%s)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startApiServer(kind);
    app = await createTestApp(server, SCHEMA);
    const seeded = await app.data(`mutation {
      red: createTeam(input: { name: "red" }) { changedTeam { id } }
      secret: createSecret(input: { text: "s" }) { changedSecret { id } }
    }`);
    ids.red = seeded.red.changedTeam.id;
    for (const name of ['ann', 'bob']) {
      const user = await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } token } }', {
        i: { username: name, password: 'pw-123456', ...(name === 'bob' ? { teamId: ids.red } : {}), docs: [{ title: `${name}-doc`, note: `${name}-note` }] },
      });
      ids[name] = user.createUser.changedUser.id;
      tokens[name] = user.createUser.token;
    }
    ids.adminRole = (await app.data('{ viewer { allRoles(where: { name: { eq: "admin" } }) { edges { node { id } } } } }')).viewer.allRoles.edges[0].node.id;
  });
  afterAll(async () => server?.close());

  const as = async (user: string, query: string, variables: Json = {}) => {
    const reply = await app.gql(query, variables, { authorization: `Bearer ${tokens[user]}` });
    expect(reply.status).toBe(200);
    return reply.body;
  };

  /** What ann reads of every kind of rule: as a plain user, or as an app admin. */
  const annSees = (admin: boolean) => {
    const doc = (name: string) => ({ node: { title: `${name}-doc`, note: `${name}-note`, owner: { id: ids[name] } } });
    return admin
      ? { allDocs: { edges: [doc('ann'), doc('bob')], aggregations: { count: 2 } }, allTeams: { edges: [{ node: { name: 'red' } }] }, allUsers: { aggregations: { count: 2 } }, allSecrets: { edges: [{ node: { text: 's' } }] } }
      : { allDocs: { edges: [doc('ann')], aggregations: { count: 1 } }, allTeams: { edges: [] }, allUsers: { aggregations: { count: 1 } }, allSecrets: { edges: [] } };
  };

  /** What ann reads, checked whole: as a plain user, or as an app admin. */
  const expectAnnReads = async (admin: boolean) => {
    const body = await as('ann', EVERYTHING);
    expect(body.errors).toBeUndefined();
    expect(body.data.viewer).toEqual(annSees(admin));
    const bobDoc = await as('ann', 'query($t: String!) { viewer { allDocs(where: { title: { eq: $t } }) { edges { node { title } } } } }', { t: 'bob-doc' });
    expect(bobDoc.data.viewer.allDocs.edges).toEqual(admin ? [{ node: { title: 'bob-doc' } }] : []);
    const bob = await as('ann', `{ getUser(id: "${ids.bob}") { id docs { edges { node { title } } } } }`);
    expect(bob.data.getUser).toEqual(admin ? { id: ids.bob, docs: { edges: [{ node: { title: 'bob-doc' } }] } } : null);
  };

  const enrol = 'mutation($i: AddToUserRolesConnectionInput!) { addToUserRolesConnection(input: $i) { clientMutationId } }';
  const remove = 'mutation($i: RemoveFromUserRolesConnectionInput!) { removeFromUserRolesConnection(input: $i) { clientMutationId } }';

  it('gives and takes full access from the next request on, however the membership changes', async () => {
    // Twice each time: the first request after a change and the one after it may start differently.
    await expectAnnReads(false);
    await expectAnnReads(false);
    await app.data(enrol, { i: { userId: ids.ann, roleId: ids.adminRole } });
    await expectAnnReads(true);
    await expectAnnReads(true);
    await app.data(remove, { i: { userId: ids.ann, roleId: ids.adminRole } });
    await expectAnnReads(false);
    await expectAnnReads(false);
    await app.data(enrol, { i: { userId: ids.ann, roleId: ids.adminRole } });
    await expectAnnReads(true);
    // Leaving the role on one's own.
    expect((await as('ann', remove, { i: { userId: ids.ann, roleId: ids.adminRole } })).errors).toBeUndefined();
    await expectAnnReads(false);
    await expectAnnReads(false);
    // The role renamed away by an admin token, then back.
    await app.data(enrol, { i: { userId: ids.ann, roleId: ids.adminRole } });
    await expectAnnReads(true);
    const rename = 'mutation($i: UpdateRoleInput!) { updateRole(input: $i) { changedRole { name } } }';
    await app.data(rename, { i: { id: ids.adminRole, name: 'former-admins' } });
    await expectAnnReads(false);
    await app.data(rename, { i: { id: ids.adminRole, name: 'admin' } });
    await expectAnnReads(true);
  });

  it('keeps one member from reading as another: a plain user next to an app admin', async () => {
    await app.data(enrol, { i: { userId: ids.ann, roleId: ids.adminRole } }).catch(() => undefined);
    const query = '{ viewer { allDocs(orderBy: { field: title }) { edges { node { title } } } } }';
    for (let i = 0; i < 3; i++) {
      const [ann, bob] = await Promise.all([as('ann', query), as('bob', query)]);
      expect(ann.data.viewer.allDocs.edges).toEqual([{ node: { title: 'ann-doc' } }, { node: { title: 'bob-doc' } }]);
      expect(bob.data.viewer.allDocs.edges).toEqual([{ node: { title: 'bob-doc' } }]);
    }
  });

  it('on a second instance: leaving the role counts from its next request, joining within moments', async () => {
    if (kind !== 'postgres') return;
    const store = await openStore({ databaseUrl: server.databaseUrl as string });
    const other: FastifyInstance = createServer({ store, admin: createAdminService(store), adminKey: server.key, logLevel: 'silent' as never });
    try {
      await other.listen({ port: 0, host: '127.0.0.1' });
      const address = other.server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      const readThere = async () => {
        const response = await fetch(`http://127.0.0.1:${address.port}/graphql/${app.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.ann}` },
          body: JSON.stringify({ query: EVERYTHING }),
        });
        const body = (await response.json()) as Json;
        expect(body.errors).toBeUndefined();
        return body.data.viewer;
      };
      await app.data(remove, { i: { userId: ids.ann, roleId: ids.adminRole } }).catch(() => undefined);
      // Known there not to be an app admin (read twice: the second time from what it remembers).
      expect(await readThere()).toEqual(annSees(false));
      expect(await readThere()).toEqual(annSees(false));
      await app.data(enrol, { i: { userId: ids.ann, roleId: ids.adminRole } });
      const deadline = Date.now() + 5_000;
      let seen = await readThere();
      while (seen.allDocs.aggregations.count !== 2 && Date.now() < deadline) {
        await sleep(20);
        seen = await readThere();
      }
      expect(seen).toEqual(annSees(true));
      expect(await readThere()).toEqual(annSees(true));
      // Removed here: the other instance's very next request reads as a plain user.
      await app.data(remove, { i: { userId: ids.ann, roleId: ids.adminRole } });
      expect(await readThere()).toEqual(annSees(false));
    } finally {
      await other.close();
      await store.close();
    }
  });
});
