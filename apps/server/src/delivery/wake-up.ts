/**
 * A loop's sleep that a signal ends early. A signal while the loop is awake is kept: its next
 * sleep returns at once, so nothing that happened between two sleeps is missed.
 */
export class WakeUp {
  #wake: (() => void) | undefined;
  #woken = false;
  /** The pending {@link signalIn}, and when it fires (ms since the epoch, real time). */
  #timer: { handle: NodeJS.Timeout; at: number } | undefined;

  /** Ends the current sleep, or the next one at once. */
  signal(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /**
   * Signals in `ms` (at least 1), unless a signal is already set to come sooner; does not keep the
   * process alive. {@link cancel} drops it.
   */
  signalIn(ms: number, then?: () => void): void {
    const at = Date.now() + Math.max(1, ms);
    if (this.#timer && this.#timer.at <= at) return;
    this.cancel();
    const handle = setTimeout(
      () => {
        this.#timer = undefined;
        then?.();
        this.signal();
      },
      Math.max(1, ms),
    );
    handle.unref();
    this.#timer = { handle, at };
  }

  /** Drops the pending {@link signalIn}. */
  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer.handle);
    this.#timer = undefined;
  }

  /** Forgets signals received so far (the loop is about to look at everything anyway). */
  clear(): void {
    this.#woken = false;
  }

  /** Sleeps `ms`, or until {@link signal}; at once if signalled since the last sleep or clear. */
  async sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
    this.#woken = false;
  }
}
