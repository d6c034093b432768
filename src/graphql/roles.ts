// What each generated root or payload field does, recorded on the field where it is built (in
// its `extensions`), so the compiler asks a field what it is for instead of reading its name:
// `roleOf(Mutation.createPost)` is `{ kind: 'create', type: 'Post' }` whatever the field is called.

import type { GraphQLField, GraphQLFieldConfig } from 'graphql';

export type FieldRole =
  // Query
  | { kind: 'getById'; type: string }
  | { kind: 'node' }
  | { kind: 'viewer' }
  // Viewer
  | { kind: 'viewerId' }
  | { kind: 'viewerUser' }
  | { kind: 'viewerTwoFactor' }
  | { kind: 'allRows'; type: string }
  // Mutation
  | { kind: 'create' | 'update' | 'delete'; type: string }
  | { kind: 'login' }
  | { kind: 'changePassword' }
  | { kind: 'refresh' }
  | { kind: 'logout' }
  | { kind: 'requestEmailVerification' }
  | { kind: 'verifyEmail' }
  | { kind: 'requestPasswordReset' }
  | { kind: 'resetPassword' }
  | { kind: 'enrollTotp' }
  | { kind: 'confirmTotp' }
  | { kind: 'disableTotp' }
  | { kind: 'oidcLogin' }
  | { kind: 'linkIdentity' }
  | { kind: 'unlinkIdentity' }
  | { kind: 'addEdge' | 'updateEdge' | 'removeEdge'; relation: string }
  // Query or Mutation: a field of the app's own, answered by its function
  | { kind: 'custom'; root: 'Query' | 'Mutation'; field: string }
  // Subscription
  | { kind: 'subscribe'; type: string }
  // Payloads
  | { kind: 'changedRow'; type: string }
  | { kind: 'changedEdge'; type: string }
  | { kind: 'changedJoin'; relation: string }
  | { kind: 'edgeEnd'; relation: string; end: 0 | 1 }
  | { kind: 'payloadViewer' }
  | { kind: 'clientMutationId' }
  | { kind: 'token' }
  | { kind: 'refreshToken' }
  | { kind: 'endedSessions' }
  | { kind: 'totpSecret' }
  | { kind: 'otpauthUri' }
  | { kind: 'recoveryCodes' }
  | { kind: 'totpDisabled' }
  | { kind: 'loggedInUser' }
  | { kind: 'newUser' }
  | { kind: 'unlinkedIdentities' }
  // Subscription payloads
  | { kind: 'eventMutation' }
  | { kind: 'eventValue'; type: string }
  | { kind: 'eventEdge'; type: string };

export type RoleKind = FieldRole['kind'];

/** The field config with its role recorded. */
export function withRole<C extends GraphQLFieldConfig<unknown, unknown>>(config: C, role: FieldRole): C {
  return { ...config, extensions: { ...config.extensions, tessera: role } };
}

/** What a generated field does; throws for a field built without a role (a builder's bug). */
export function roleOf(field: GraphQLField<unknown, unknown>): FieldRole {
  const role = (field.extensions as { tessera?: FieldRole } | undefined)?.tessera;
  if (role === undefined) throw new Error(`The generated field ${field.name} has no role`);
  return role;
}
