// Fastify makes its default schema compilers (Ajv for request validation, fast-json-stringify
// for response serialisation) as each server is constructed, so every server loaded Ajv and its
// vocabularies, though no Tessera route declares a schema. These factories load the same
// default compilers, from Fastify's own dependencies, when the first route with a schema asks
// for one; a server without such a route starts without them (docs/performance.md, "Start-up").
//
// One difference a schema-bearing route would see: Fastify takes any given factory for a custom
// one, and compiles a `headers` schema as written instead of lower-casing its property names
// first. A header schema here must name headers in lower case, as Node delivers them.

import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<Factories['buildValidator']>;
type SerializerFactory = NonNullable<Factories['buildSerializer']>;

/** Requires a module as Fastify itself would, whichever copy of it Fastify depends on. */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

type Factory = (...args: unknown[]) => unknown;

/** A factory that loads Fastify's default one (`compiler`) the first time it is called. */
function onFirstUse(compiler: string): Factory {
  let factory: Factory | undefined;
  return (...args) => {
    factory ??= (fromFastify(compiler) as () => Factory)();
    return factory(...args);
  };
}

/** Fastify's `schemaController` option: its default compilers, loaded on first use. */
export const lazySchemaCompilers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildValidator: onFirstUse('@fastify/ajv-compiler') as ValidatorFactory,
    buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler') as SerializerFactory,
  },
};
