import { describe, expect, it } from 'vitest';
import { fitResult, selectFields } from './result.js';

const page = (n: number, size: number) => ({
  items: Array.from({ length: n }, (_, i) => ({ id: `item_${i}`, text: 'x'.repeat(size) })),
  hasMore: true,
  nextCursor: 'c1',
  totalCount: 50,
});

describe('selectFields', () => {
  it('picks fields of each item of a page, keeping the envelope', () => {
    expect(selectFields(page(2, 3), { target: 'items', names: ['id', 'text'] }, ['id'])).toEqual({
      items: [{ id: 'item_0' }, { id: 'item_1' }],
      hasMore: true,
      nextCursor: 'c1',
      totalCount: 50,
    });
  });

  it('picks fields of the result itself', () => {
    expect(
      selectFields({ a: 1, b: 2, c: 3 }, { target: 'root', names: ['a', 'b', 'c'] }, ['a', 'c']),
    ).toEqual({ a: 1, c: 3 });
  });
});

function fit(data: unknown, maxBytes: number, listKey?: string) {
  const result = fitResult(data, maxBytes, listKey);
  if (!result) throw new Error('did not fit');
  return result;
}

describe('fitResult', () => {
  it('returns small results untouched', () => {
    const data = page(2, 10);
    expect(fitResult(data, 10_000)).toEqual({ data });
  });

  it('drops trailing items of a page of results until the JSON fits', () => {
    const fitted = fit(page(10, 100), 700, 'items');
    const items = (fitted.data as { items: { id: string }[] }).items;
    expect(Buffer.byteLength(JSON.stringify(fitted.data))).toBeLessThanOrEqual(700);
    expect(items.map((i) => i.id)).toEqual(items.map((_, i) => `item_${i}`));
    expect(fitted.truncation).toEqual({
      arrays: [{ path: 'items', kept: items.length, total: 10, from: 'end' }],
      strings: 0,
    });
  });

  it('keeps the latest elements of other arrays (histories are oldest first)', () => {
    const history = { messages: Array.from({ length: 10 }, (_, i) => ({ n: i, text: 'y'.repeat(100) })) };
    const fitted = fit(history, 600);
    const kept = (fitted.data as typeof history).messages.map((m) => m.n);
    expect(kept.at(-1)).toBe(9);
    expect(kept).toEqual(kept.map((_, i) => 10 - kept.length + i));
    expect(fitted.truncation?.arrays).toEqual([
      { path: 'messages', kept: kept.length, total: 10, from: 'start' },
    ]);
  });

  it('shortens long strings before giving up the last item', () => {
    const fitted = fit(page(1, 5_000), 1_000);
    const [item] = (fitted.data as { items: { text: string }[] }).items;
    expect(item?.text).toBe(`${'x'.repeat(200)}…`);
    expect(fitted.truncation?.strings).toBe(1);
  });

  it('cuts the main list only at whole items, even when a nested array is larger', () => {
    const nested = {
      items: Array.from({ length: 4 }, (_, i) => ({
        id: i,
        parts: Array.from({ length: 20 }, () => 'p'.repeat(20)),
      })),
    };
    const fitted = fit(nested, 1_500, 'items');
    const items = (fitted.data as typeof nested).items;
    expect(items.length).toBeLessThan(4);
    for (const item of items) expect(item.parts).toHaveLength(20);
  });

  it('gives up when nothing more can be cut', () => {
    expect(fitResult({ id: 'x'.repeat(150) }, 100)).toBeUndefined();
  });

  it('never changes the caller’s value', () => {
    const data = page(10, 100);
    fitResult(data, 500);
    expect(data.items).toHaveLength(10);
  });
});
