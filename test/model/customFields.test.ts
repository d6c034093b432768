// Custom fields in the model: the RESOLVER names a push is checked against, models stored before
// custom fields existed (no `customFields` member), and the plan steps a change of them makes.
import { describe, expect, it } from 'vitest';
import { parseSchema, planMigration } from '../../src/model/index.js';
import type { AppModel } from '../../src/model/index.js';

const BASE = 'type Post @model { title: String! }\n';
const QUOTE = 'extend type Query {\n  quote(symbol: String!): Int @function(name: "quotes")\n}\n';

describe('custom fields in the model', () => {
  it('checks @function(name:) against the functions given, at the name', () => {
    expect(() => parseSchema(BASE + QUOTE, { functions: new Set(['quotes']) })).not.toThrow();
    let thrown: unknown;
    try {
      parseSchema(BASE + QUOTE, { functions: new Set(['other']) });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ extensions: { code: 'SCHEMA_INVALID', problems: [{ line: 3, column: 47, message: expect.stringMatching(/names no RESOLVER function/) }] } });
    // A schema read back from the catalog is not checked against functions.
    expect(parseSchema(BASE + QUOTE).customFields?.map((f) => f.function)).toEqual(['quotes']);
  });

  it('leaves customFields out of a model without any, as models stored before them', () => {
    const model = parseSchema(BASE);
    expect('customFields' in model).toBe(false);
  });

  it('plans custom fields as steps without DDL, never destructive', () => {
    const stored: AppModel = JSON.parse(JSON.stringify(parseSchema(BASE)));
    const withQuote = parseSchema(BASE + QUOTE);
    expect(planMigration(stored, parseSchema(BASE)).steps).toEqual([]);
    expect(planMigration(stored, withQuote).steps).toEqual([
      { step: { kind: 'addCustomField', root: 'Query', field: 'quote' }, description: 'Add field Query.quote (function quotes)', destructive: false },
    ]);
    const changed = parseSchema(BASE + QUOTE.replace('Int', '[Int]'));
    expect(planMigration(withQuote, changed).steps.map((s) => s.step)).toEqual([{ kind: 'alterCustomField', root: 'Query', field: 'quote' }]);
    expect(planMigration(withQuote, stored).steps).toEqual([
      { step: { kind: 'dropCustomField', root: 'Query', field: 'quote' }, description: 'Remove field Query.quote', destructive: false },
    ]);
    expect(planMigration(withQuote, parseSchema(BASE + QUOTE)).steps).toEqual([]);
  });
});
