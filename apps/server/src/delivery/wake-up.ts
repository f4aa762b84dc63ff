/**
 * A loop's sleep that a signal ends early. A signal while the loop is awake is kept: its next
 * sleep returns at once, so nothing that happened between two sleeps is missed.
 */
export class WakeUp {
  #wake: (() => void) | undefined;
  #woken = false;

  /** Ends the current sleep, or the next one at once. */
  signal(): void {
    this.#woken = true;
    this.#wake?.();
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
