// Response media type negotiation for GraphQL over HTTP: the official
// `application/graphql-response+json` when the client asks for it, else `application/json`.

export type MediaType = 'application/graphql-response+json' | 'application/json';

/** Picks the response media type from an Accept header; undefined when nothing acceptable is offered. */
export function negotiateMediaType(accept: string | string[] | undefined): MediaType | undefined {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  // No Accept header: treat as application/json, as the spec asks for legacy clients.
  if (header === undefined || header.trim() === '') return 'application/json';
  let json = false;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) continue;
    if (range === 'application/graphql-response+json') return 'application/graphql-response+json';
    if (range === 'application/json' || range === 'application/*' || range === '*/*') json = true;
  }
  return json ? 'application/json' : undefined;
}
