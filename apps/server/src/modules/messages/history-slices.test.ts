import { describe, expect, it } from 'vitest';
import { HISTORY_SLICE_BYTES, historySlices } from './history.repo.js';

const rows = (...sizes: (number | null)[]) => sizes.map((jsonBytes, i) => ({ seq: i + 1, jsonBytes }));

describe('historySlices', () => {
  it('reads a small history in one statement', () => {
    expect(historySlices(rows(300, 400, 500))).toEqual([[1, 3]]);
    expect(historySlices([])).toEqual([]);
  });

  it('cuts where the next message would pass the slice, each message in exactly one slice', () => {
    expect(historySlices(rows(60, 30, 20, 90, 10), 100)).toEqual([
      [1, 2],
      [3, 3],
      [4, 5],
    ]);
  });

  it('gives a message larger than a slice, or of unknown size, a slice of its own', () => {
    expect(historySlices(rows(10, 500, 10, null, 10), 100)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 5],
    ]);
  });

  it('keeps a full history of the largest messages to about 256 KiB per statement', () => {
    const sizes = Array.from({ length: 31 }, () => 135_000);
    const slices = historySlices(rows(...sizes));
    expect(slices).toHaveLength(31);
    expect(historySlices(rows(...Array.from({ length: 1000 }, () => 4_000)))).toHaveLength(
      Math.ceil(1000 / Math.floor(HISTORY_SLICE_BYTES / 4_000)),
    );
  });

  it('starts at the first sequence number asked for', () => {
    const tail = [
      { seq: 7, jsonBytes: 10 },
      { seq: 8, jsonBytes: 10 },
    ];
    expect(historySlices(tail)).toEqual([[7, 8]]);
  });
});
