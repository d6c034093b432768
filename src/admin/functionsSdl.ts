// The management API's types for an app's functions (docs/functions.md): the functions, their
// deliveries, and the inputs and payloads of the mutations that manage them. The root fields
// that use them are in sdl.ts, beside the rest of the API.

export const FUNCTIONS_SDL = /* GraphQL */ `
enum FunctionKind {
  "Called before the write of its operations, in order; may change the input or refuse the mutation."
  BEFORE
  "Told of its operations' writes after they commit, through a durable outbox (at least once)."
  EVENT
  "Resolves a field the app schema declares with @function(name:)."
  RESOLVER
}

enum FunctionDeliveryStatus {
  "Not delivered yet: due at nextAttemptAt."
  PENDING
  "The endpoint answered 2xx."
  DELIVERED
  "Not delivered within the retry window (24 hours from the event, or from its redelivery)."
  DEAD
}

"A function: an HTTP endpoint of the app's own that Tessera calls, each call signed with the function's secret (Tessera-Signature)."
type AppFunction {
  "Letters, digits, _ and -, starting with a letter."
  name: String!
  kind: FunctionKind!
  "Where calls are POSTed (http or https)."
  url: String!
  "BEFORE and EVENT: the app's mutations it is called for; empty for RESOLVER."
  operations: [String!]!
  "The headers sent with every call, by name (their values are never answered back)."
  headers: [FunctionHeader!]!
  "How long a call may take before it fails, in milliseconds."
  timeoutMs: Int!
  "A disabled function is not called; its EVENT deliveries wait (and die once their window is over)."
  enabled: Boolean!
  "BEFORE functions of one operation run by ascending order, then by name."
  order: Int!
  createdAt: DateTime!
  updatedAt: DateTime!
  "The function's latest event deliveries (1 to 100), newest first, of one status or any."
  deliveries(first: Int! = 20, status: FunctionDeliveryStatus): [FunctionDelivery!]!
}

type FunctionHeader {
  name: String!
}

"One event for one EVENT function. Its id is the body's id and the Tessera-Event-Id header, the same at every attempt."
type FunctionDelivery {
  id: ID!
  "The mutation the event tells of."
  operation: String!
  status: FunctionDeliveryStatus!
  "Attempts made so far."
  attempts: Int!
  "The HTTP status of the last attempt's answer; null when there was none (a timeout, a refused address, no connection)."
  lastStatusCode: Int
  "Why the last attempt failed; null once delivered."
  lastError: String
  "When it is tried next; null once delivered or dead."
  nextAttemptAt: DateTime
  createdAt: DateTime!
  deliveredAt: DateTime
}

input FunctionHeaderInput {
  name: String!
  "Stored sealed; never answered back."
  value: String!
}

input CreateFunctionInput {
  "The app's id or name."
  appId: ID!
  "1–64 letters, digits, _ and -, starting with a letter; unique in the app."
  name: String!
  kind: FunctionKind!
  "http or https; a literal private, loopback or link-local address is refused unless the server allows them (TESSERA_FUNCTIONS_ALLOW_PRIVATE)."
  url: String!
  "BEFORE and EVENT: the app's mutations it is called for (createPost, updatePost, addToUserEditsConnection, …); none for RESOLVER."
  operations: [String!] = []
  "Headers sent with every call (at most 20), e.g. an API key of the endpoint's own."
  headers: [FunctionHeaderInput!] = []
  "From 100 to 30000 milliseconds."
  timeoutMs: Int = 5000
  enabled: Boolean = true
  "From -10000 to 10000."
  order: Int = 0
}

type CreateFunctionPayload {
  function: AppFunction!
  "The signing secret: answered this once, stored sealed."
  secret: String!
}

input UpdateFunctionInput {
  "The app's id or name."
  appId: ID!
  name: String!
  url: String
  operations: [String!]
  "Replaces every header (values are never answered back: give them all again)."
  headers: [FunctionHeaderInput!]
  timeoutMs: Int
  enabled: Boolean
  order: Int
  "Generate a new signing secret (calls are signed with it from now on)."
  rotateSecret: Boolean = false
}

type UpdateFunctionPayload {
  function: AppFunction!
  "The new signing secret when rotateSecret was asked (answered this once); null otherwise."
  secret: String
}

input DeleteFunctionInput {
  "The app's id or name."
  appId: ID!
  name: String!
}

type DeleteFunctionPayload {
  "False when the app has no function of that name."
  deleted: Boolean!
}

input RedeliverInput {
  "The app's id or name."
  appId: ID!
  "A delivery's id (FunctionDelivery.id)."
  deliveryId: ID!
}

type RedeliverPayload {
  delivery: FunctionDelivery!
}
`;
