// What the API's webhooks module (modules/webhooks) may ask of the delivery engine, and nothing
// else of it: close a subscription's queue when it is disabled, queue redeliveries, name the
// deliveries counter, and free the turns of a throttle that changed.
export {
  deliveriesCounter,
  disableSubscription,
  pendingAttempt,
  queueAttempts,
} from './attempts.repo.js';
export { releaseTurns } from './throttle.js';
export type { DeliveryRow, SubscriptionRow } from './types.js';
