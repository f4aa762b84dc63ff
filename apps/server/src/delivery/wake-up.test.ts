import { describe, expect, it, vi } from 'vitest';
import { WakeUp } from './wake-up.js';

describe('WakeUp', () => {
  it('ends a sleep at a signal, and keeps a signal received while awake for the next sleep', async () => {
    const wakeUp = new WakeUp();
    const sleeping = wakeUp.sleep(60_000);
    wakeUp.signal();
    await sleeping; // would take a minute without the signal
    wakeUp.signal();
    await wakeUp.sleep(60_000); // the kept signal: at once
  });

  it('forgets signals on clear, and sleeps its time out without one', async () => {
    vi.useFakeTimers();
    try {
      const wakeUp = new WakeUp();
      wakeUp.signal();
      wakeUp.clear();
      let woke = false;
      const sleeping = wakeUp.sleep(1_000).then(() => {
        woke = true;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await sleeping;
      expect(woke).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
