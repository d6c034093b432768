// ShapedPlans: plans kept per shape of the variables and the app's settings and per the caller's
// prefix, counted into the app's plan count, let go when a new dependency appears or the limit
// is reached.

import { describe, expect, it } from 'vitest';
import { ShapedPlans } from '../../src/compile/plans.js';
import type { ShapeSource } from '../../src/compile/params.js';
import { DEFAULT_SETTINGS } from '../../src/model/index.js';

/** A request with these variables, and settings other than the defaults where given. */
function req(variables: Record<string, unknown>, settings: Partial<typeof DEFAULT_SETTINGS> = {}): ShapeSource {
  return { variables, settings: { ...DEFAULT_SETTINGS, ...settings } };
}

function counted(limit = 8) {
  const count = { n: 0 };
  const plans = new ShapedPlans<string>(limit, (delta) => {
    count.n += delta;
  });
  return { plans, count };
}

describe('ShapedPlans', () => {
  it('keeps a plan per shape of the variables it depends on, and per prefix', () => {
    const { plans, count } = counted();
    plans.set(req({ where: { a: 1 }, n: 5 }), [{ name: 'where', kind: 'present' }], 'with where');
    plans.set(req({ n: 7 }), [{ name: 'where', kind: 'present' }], 'without where');
    // `n` is not a shape: any value of it finds the same plan.
    expect(plans.get(req({ where: { b: 2 }, n: 1 }))).toBe('with where');
    expect(plans.get(req({ n: 100 }))).toBe('without where');
    expect(plans.get(req({ n: 100 }), 'other')).toBeUndefined();
    plans.set(req({ n: 100 }), [], 'other field', 'other');
    expect(plans.get(req({ n: 3 }), 'other')).toBe('other field');
    expect(plans.get(req({ n: 3 }))).toBe('without where');
    expect(count.n).toBe(3);
    // Setting the same key again replaces the plan without counting it twice.
    plans.set(req({ n: 9 }), [], 'again', 'other');
    expect(plans.get(req({}), 'other')).toBe('again');
    expect(count.n).toBe(3);
  });

  it('lets every plan go when a new variable decides the text, and when the limit is reached', () => {
    const { plans, count } = counted(2);
    plans.set(req({ a: 1 }), [{ name: 'a', kind: 'value' }], 'a=1');
    plans.set(req({ a: 2 }), [], 'a=2');
    expect(count.n).toBe(2);
    // A third plan: over the limit of two, the others go first.
    plans.set(req({ a: 3 }), [], 'a=3');
    expect(plans.get(req({ a: 1 }))).toBeUndefined();
    expect(plans.get(req({ a: 3 }))).toBe('a=3');
    expect(count.n).toBe(1);
    // A plan that depends on `b` too: plans keyed without `b` would be misused.
    plans.set(req({ a: 3, b: true }), [{ name: 'b', kind: 'present' }], 'a=3 with b');
    expect(plans.get(req({ a: 3 }))).toBeUndefined();
    expect(plans.get(req({ a: 3, b: false }))).toBe('a=3 with b');
    expect(count.n).toBe(1);
    plans.clear();
    expect(plans.size).toBe(0);
    expect(count.n).toBe(0);
  });

  it('keeps a plan per value of a setting it depends on, apart from a variable of the same name', () => {
    const { plans, count } = counted();
    plans.set(req({}, { defaultPageSize: 2 }), [{ name: 'defaultPageSize', kind: 'setting' }], 'pages of 2');
    expect(plans.get(req({}, { defaultPageSize: 2 }))).toBe('pages of 2');
    // Another app of the model, with another default: not the statement written for 2.
    expect(plans.get(req({}, { defaultPageSize: 100 }))).toBeUndefined();
    plans.set(req({}, { defaultPageSize: 100 }), [{ name: 'defaultPageSize', kind: 'setting' }], 'pages of 100');
    expect(plans.get(req({ defaultPageSize: 2 }, { defaultPageSize: 100 }))).toBe('pages of 100');
    // A setting the plans do not depend on finds the same plan.
    expect(plans.get(req({}, { defaultPageSize: 2, maxPageSize: 7 }))).toBe('pages of 2');
    expect(count.n).toBe(2);
    // A variable named like the setting is a dependency of its own.
    plans.set(req({ defaultPageSize: 5 }, { defaultPageSize: 2 }), [{ name: 'defaultPageSize', kind: 'value' }], 'variable 5');
    expect(plans.get(req({ defaultPageSize: 5 }, { defaultPageSize: 100 }))).toBeUndefined();
    expect(plans.get(req({ defaultPageSize: 5 }, { defaultPageSize: 2 }))).toBe('variable 5');
    expect(count.n).toBe(1);
  });
});
