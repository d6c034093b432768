// ShapedPlans: plans kept per shape of the variables and per the caller's prefix, counted into
// the app's plan count, let go when a new variable is depended on or the limit is reached.

import { describe, expect, it } from 'vitest';
import { ShapedPlans } from '../../src/compile/plans.js';

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
    plans.set({ where: { a: 1 }, n: 5 }, [{ name: 'where', kind: 'present' }], 'with where');
    plans.set({ n: 7 }, [{ name: 'where', kind: 'present' }], 'without where');
    // `n` is not a shape: any value of it finds the same plan.
    expect(plans.get({ where: { b: 2 }, n: 1 })).toBe('with where');
    expect(plans.get({ n: 100 })).toBe('without where');
    expect(plans.get({ n: 100 }, 'other')).toBeUndefined();
    plans.set({ n: 100 }, [], 'other field', 'other');
    expect(plans.get({ n: 3 }, 'other')).toBe('other field');
    expect(plans.get({ n: 3 })).toBe('without where');
    expect(count.n).toBe(3);
    // Setting the same key again replaces the plan without counting it twice.
    plans.set({ n: 9 }, [], 'again', 'other');
    expect(plans.get({}, 'other')).toBe('again');
    expect(count.n).toBe(3);
  });

  it('lets every plan go when a new variable decides the text, and when the limit is reached', () => {
    const { plans, count } = counted(2);
    plans.set({ a: 1 }, [{ name: 'a', kind: 'value' }], 'a=1');
    plans.set({ a: 2 }, [], 'a=2');
    expect(count.n).toBe(2);
    // A third plan: over the limit of two, the others go first.
    plans.set({ a: 3 }, [], 'a=3');
    expect(plans.get({ a: 1 })).toBeUndefined();
    expect(plans.get({ a: 3 })).toBe('a=3');
    expect(count.n).toBe(1);
    // A plan that depends on `b` too: plans keyed without `b` would be misused.
    plans.set({ a: 3, b: true }, [{ name: 'b', kind: 'present' }], 'a=3 with b');
    expect(plans.get({ a: 3 })).toBeUndefined();
    expect(plans.get({ a: 3, b: false })).toBe('a=3 with b');
    expect(count.n).toBe(1);
    plans.clear();
    expect(plans.size).toBe(0);
    expect(count.n).toBe(0);
  });
});
