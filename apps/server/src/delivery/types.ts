import type { Logger } from 'pino';
import type {
  webhookDeliveries,
  webhookDeliveryQueue,
  webhookEvents,
  webhookSubscriptions,
} from '../db/schema/index.js';

// The delivery engine's shared types: its files import them from here, never from one another,
// so that no two of its modules depend on each other.

/** A delivery attempt as the log holds it. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** A pending attempt's row in the delivery queue. */
export type QueueRow = typeof webhookDeliveryQueue.$inferSelect;
/**
 * A claimed attempt: its log row, with when it is due, its lease and its throttle turn from its
 * queue row, and where the claim left that row (`queueAt`, its `ctid`).
 */
export type QueuedAttempt = Omit<DeliveryRow, 'nextAttemptAt'> &
  Pick<QueueRow, 'nextAttemptAt' | 'leaseToken' | 'leasedUntil' | 'turnAt'> & { queueAt: string | null };
/** A stored subscription (with its secrets: never log it, never return it). */
export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
/** A stored outbox event. */
export type EventRow = typeof webhookEvents.$inferSelect;

/** The columns of a subscription that sending an attempt reads (a claim loads only these). */
export const SENDING_SUBSCRIPTION_KEYS = [
  'id',
  'url',
  'status',
  'deletedAt',
  'secret',
  'previousSecret',
  'secretSealed',
  'previousSecretSealed',
  'previousSecretExpiresAt',
  'maxDeliveriesPerSecond',
] as const satisfies readonly (keyof SubscriptionRow)[];
/** A subscription as sending reads it. */
export type SendingSubscription = Pick<SubscriptionRow, (typeof SENDING_SUBSCRIPTION_KEYS)[number]>;

/** The columns of an event that sending an attempt reads (a claim loads only these). */
export const SENDING_EVENT_KEYS = [
  'id',
  'createdAt',
  'payload',
] as const satisfies readonly (keyof EventRow)[];
/** An event as sending reads it. */
export type SendingEvent = Pick<EventRow, (typeof SENDING_EVENT_KEYS)[number]>;

/** What a leased attempt is sent to and sends (absent: deleted meanwhile). */
export interface Target {
  subscription: SendingSubscription | undefined;
  event: SendingEvent | undefined;
}

/** Where the dispatcher logs. */
export type DispatcherLog = Pick<Logger, 'info' | 'warn' | 'error'>;

/** How an attempt ended, as far as the queue is concerned. */
export type Recorded = 'succeeded' | 'retrying' | 'failed' | 'disabled' | 'lease-lost';

/** Told what the dispatcher does (metrics); must not throw. */
export interface DeliveryObserver {
  /** Attempts leased by one claim. */
  claimed(count: number): void;
  /** A sent attempt's recorded outcome and how long the receiver took. */
  delivered(outcome: Recorded, durationS: number): void;
}

/** What a successful attempt writes onto its row. */
export type SuccessResult = Pick<
  DeliveryRow,
  'responseStatus' | 'responseBody' | 'durationMs' | 'attemptedAt'
>;

/** The tenant and subscription of a success being recorded: room a claim riding with it may use. */
export type Leaving = Pick<DeliveryRow, 'tenantId' | 'subscriptionId'>;

/**
 * Which attempt: its tenant (its shard on a cluster) and id, with where its claim left its queue
 * row when known (looked at first when it is recorded).
 */
export type AttemptKey = Pick<DeliveryRow, 'tenantId' | 'id'> & { queueAt?: string | null };

/** Records successes (the dispatcher's batching recorder, success-batch.ts). */
export interface SuccessRecording {
  /** Resolves to false when the attempt's lease was lost (another holder records it). */
  record(attempt: AttemptKey, token: string, result: SuccessResult, leaving?: Leaving): Promise<boolean>;
}
