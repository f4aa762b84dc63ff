import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.js';
import { CursorCodec, toPage } from './pagination.js';

const codec = new CursorCodec('secret-a');
const binding = { tenantId: 'tenant_a', operation: 'listPages' };
const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: 'page_x' };

describe('CursorCodec', () => {
  it('round-trips positions', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date('9999-01-01'), noInvalidDate: true }),
        fc.string(),
        (d, id) => {
          const decoded = codec.decode(binding, codec.encode(binding, { createdAt: d, id }));
          return decoded.createdAt.getTime() === d.getTime() && decoded.id === id;
        },
      ),
    );
  });

  it('rejects cursors of another tenant, operation, filter set or secret', () => {
    const cursor = codec.encode({ ...binding, filters: { pageId: 'p1' } }, position);
    const reject = (fn: () => unknown) => expect(fn).toThrow(ValidationError);
    reject(() => codec.decode({ ...binding, tenantId: 'tenant_b', filters: { pageId: 'p1' } }, cursor));
    reject(() => codec.decode({ ...binding, operation: 'listAudiences', filters: { pageId: 'p1' } }, cursor));
    reject(() => codec.decode({ ...binding, filters: { pageId: 'p2' } }, cursor));
    reject(() => new CursorCodec('secret-b').decode({ ...binding, filters: { pageId: 'p1' } }, cursor));
    expect(codec.decode({ ...binding, filters: { pageId: 'p1' } }, cursor)).toEqual(position);
  });

  it('rejects any altered cursor', () => {
    const cursor = codec.encode(binding, position);
    fc.assert(
      fc.property(
        fc.nat({ max: cursor.length - 1 }),
        fc.constantFrom(...'abcdefABCDEF0123456789-_.'),
        (i, ch) => {
          const altered = cursor.slice(0, i) + ch + cursor.slice(i + 1);
          if (altered === cursor) return true;
          try {
            const decoded = codec.decode(binding, altered);
            // Base64url can encode the same bytes two ways in its last character.
            return decoded.id === position.id && decoded.createdAt.getTime() === position.createdAt.getTime();
          } catch (err) {
            return err instanceof ValidationError;
          }
        },
      ),
    );
  });
});

describe('toPage', () => {
  it('uses the extra row to decide hasMore and the cursor', () => {
    const rows = [1, 2, 3].map((n) => ({ id: `r${n}`, createdAt: new Date(n) }));
    const encode = (p: { id: string }) => `after:${p.id}`;
    const page = toPage({ rows, limit: 2, totalCount: 9, position: (r) => r, map: (r) => r.id, encode });
    expect(page).toEqual({ items: ['r1', 'r2'], hasMore: true, nextCursor: 'after:r2', totalCount: 9 });
    const last = toPage({
      rows: rows.slice(0, 2),
      limit: 2,
      totalCount: 2,
      position: (r) => r,
      map: (r) => r.id,
      encode,
    });
    expect(last).toEqual({ items: ['r1', 'r2'], hasMore: false, nextCursor: null, totalCount: 2 });
  });
});
