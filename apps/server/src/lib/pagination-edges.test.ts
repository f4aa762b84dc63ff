import { describe, expect, it } from 'vitest';
import { CursorCodec, type KeysetPosition, keysetPage, toPage } from './pagination.js';

// Cursors a client may send back that the codec must refuse with the same 400 the other bad cursors
// get, and the page walk that gives cursors out. Complements pagination.test.ts.

const codec = new CursorCodec('secret-a');
const binding = { tenantId: 'tenant_a', operation: 'listPages' };
const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: 'page_x' };

/** The 400 a client gets for a bad cursor: VALIDATION_ERROR naming the `cursor` query parameter. */
const INVALID_CURSOR = {
  code: 'VALIDATION_ERROR',
  message: "The cursor is not valid for this request; take it from the previous page's nextCursor.",
  details: [
    {
      field: 'query',
      issues: [
        {
          code: 'validation_failed',
          message: "The cursor is not valid for this request; take it from the previous page's nextCursor.",
          path: ['cursor'],
        },
      ],
    },
  ],
};

// Cursors signed with 'secret-a' for `binding` (tenant_a, listPages, no filters) around the given
// JSON payloads: the MAC is right, so only the payload can make the codec refuse them.
const SIGNED = {
  /** `[1, <position>, "page_x"]`: what this version issues for `position`. */
  current: 'WzEsMTc2NzMyMzA0NTY3OCwicGFnZV94Il0.x9mhy1A5jWDLscYT-ApHoVNfIsY102wdK7VlOzn9aQw',
  /** `[2, ...]`: a cursor format this version does not know. */
  futureVersion: 'WzIsMTc2NzMyMzA0NTY3OCwicGFnZV94Il0.VJ1bBVDqJUK2MgmmCtXPIUzGMoarf-58K3lG7szyc-Y',
  /** The time as a string. */
  textTime: 'WzEsIjE3NjczMjMwNDU2NzgiLCJwYWdlX3giXQ.zvjXiCq2MjCo1v8M-c99S0xkF3e-6t2iExwTMIOPdhE',
  /** The id as a number. */
  numericId: 'WzEsMTc2NzMyMzA0NTY3OCw3XQ.DG8iPYDVCUqsIyhvmZhIZlSivXsAwskZrqaDwFcGMwg',
  /** `not json`. */
  notJson: 'bm90IGpzb24.feJ01uJdaCqJgyurAHlFEoR7-Z5Du6kZaw3NL6nQFIs',
  /** `null`. */
  nullPayload: 'bnVsbA.KNyl5L9OpHH4XD2yTVdZz8IlW6EQ4mD8qhuKJU_zOfw',
};

describe('CursorCodec: what a client sends back', () => {
  it('accepts a cursor issued before a restart or by another process with the same secret', () => {
    expect(codec.encode(binding, position)).toBe(SIGNED.current);
    expect(new CursorCodec('secret-a').decode(binding, SIGNED.current)).toEqual(position);
  });

  it.each([
    ['of a future cursor version', SIGNED.futureVersion],
    ['whose time is not a number', SIGNED.textTime],
    ['whose id is not a string', SIGNED.numericId],
    ['whose payload is not JSON', SIGNED.notJson],
    ['whose payload is JSON null', SIGNED.nullPayload],
  ])('answers 400 for a correctly signed cursor %s', (_case, cursor) => {
    expect(() => codec.decode(binding, cursor)).toThrow(expect.objectContaining(INVALID_CURSOR));
  });

  it('answers 400, not 500, for a cursor whose MAC was cut short or padded', () => {
    const [payload, mac] = SIGNED.current.split('.');
    for (const altered of [`${payload}.${mac?.slice(0, -4)}`, `${payload}.${mac}AAAA`, `${payload}.AA`]) {
      expect(() => codec.decode(binding, altered), altered).toThrow(expect.objectContaining(INVALID_CURSOR));
    }
  });

  it('answers 400 for a valid cursor with anything appended after another dot', () => {
    expect(() => codec.decode(binding, `${SIGNED.current}.x`)).toThrow(
      expect.objectContaining(INVALID_CURSOR),
    );
    expect(() => codec.decode(binding, `${SIGNED.current}.`)).toThrow(
      expect.objectContaining(INVALID_CURSOR),
    );
  });

  it.each(['', '.', 'abc', 'abc.', `.${SIGNED.current.split('.')[1]}`])('answers 400 for %j', (cursor) => {
    expect(() => codec.decode(binding, cursor)).toThrow(expect.objectContaining(INVALID_CURSOR));
  });

  it('binds a cursor to the filters, whatever their order, ignoring filters left out', () => {
    const filters = { archived: true, pageId: 'page_1', search: undefined };
    const cursor = codec.encode({ ...binding, filters }, position);
    expect(codec.decode({ ...binding, filters: { pageId: 'page_1', archived: true } }, cursor)).toEqual(
      position,
    );
    expect(() =>
      codec.decode({ ...binding, filters: { pageId: 'page_1', archived: false } }, cursor),
    ).toThrow(expect.objectContaining(INVALID_CURSOR));
    const unfiltered = codec.encode({ ...binding, filters: { search: undefined } }, position);
    expect(codec.decode(binding, unfiltered)).toEqual(position);
  });
});

describe('toPage', () => {
  it('puts the cursor after the last item shown, for any page size', () => {
    const rows = [1, 2, 3, 4, 5].map((n) => ({ id: `r${n}`, createdAt: new Date(n) }));
    for (const limit of [1, 3, 4]) {
      const page = toPage({
        rows: rows.slice(0, limit + 1),
        limit,
        totalCount: 5,
        position: (r) => r,
        map: (r) => r.id,
        encode: (p) => `after:${p.id}`,
      });
      expect(page.items).toHaveLength(limit);
      expect(page.nextCursor).toBe(`after:r${limit}`);
    }
  });
});

describe('keysetPage', () => {
  // Newest first, as the listings order them; two rows share a timestamp (the id breaks the tie).
  const ROWS: KeysetPosition[] = [
    { createdAt: new Date(5_000), id: 'page_e' },
    { createdAt: new Date(4_000), id: 'page_d' },
    { createdAt: new Date(4_000), id: 'page_c' },
    { createdAt: new Date(2_000), id: 'page_b' },
    { createdAt: new Date(1_000), id: 'page_a' },
  ];
  const after = (row: KeysetPosition, p: KeysetPosition) =>
    row.createdAt.getTime() < p.createdAt.getTime() ||
    (row.createdAt.getTime() === p.createdAt.getTime() && row.id < p.id);

  function listing(query: { cursor?: string; limit: number }, takes: number[] = []) {
    return {
      cursors: codec,
      binding,
      query,
      fetch: async (take: number, from: KeysetPosition | undefined) => {
        takes.push(take);
        return ROWS.filter((row) => from === undefined || after(row, from)).slice(0, take);
      },
      count: () => ROWS.length,
      map: (row: KeysetPosition) => row.id,
    };
  }

  it('walks every row once, in order, following nextCursor until hasMore is false', async () => {
    const seen: string[] = [];
    const takes: number[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await keysetPage(listing({ limit: 2, ...(cursor ? { cursor } : {}) }, takes));
      expect(page.totalCount).toBe(5);
      seen.push(...page.items);
      if (!page.hasMore) {
        expect(page.nextCursor).toBeNull();
        expect(pages).toBe(3);
        break;
      }
      expect(page.items).toHaveLength(2);
      cursor = page.nextCursor ?? undefined;
    }
    expect(seen).toEqual(['page_e', 'page_d', 'page_c', 'page_b', 'page_a']);
    // One row more than the page holds is what tells whether another page exists.
    expect(takes).toEqual([3, 3, 3]);
  });

  it('places the cursor with the listing’s own position when it has one', async () => {
    const byId = {
      ...listing({ limit: 1 }),
      position: (row: KeysetPosition) => ({ createdAt: new Date(0), id: row.id }),
    };
    const page = await keysetPage(byId);
    expect(codec.decode(binding, page.nextCursor ?? '')).toEqual({ createdAt: new Date(0), id: 'page_e' });
  });

  it('answers 400 for a cursor of another listing before fetching anything', async () => {
    const takes: number[] = [];
    const foreign = codec.encode({ ...binding, operation: 'listAudiences' }, position);
    await expect(keysetPage(listing({ limit: 2, cursor: foreign }, takes))).rejects.toMatchObject(
      INVALID_CURSOR,
    );
    expect(takes).toEqual([]);
  });
});
