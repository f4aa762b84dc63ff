/**
 * Thrown inside a transaction when another request turned out to hold its idempotency key: the
 * transaction rolls back, and the caller replays that request's outcome or tries again.
 */
export class KeyTaken extends Error {
  constructor() {
    super('The idempotency key is held by another request.');
    this.name = 'KeyTaken';
  }
}
