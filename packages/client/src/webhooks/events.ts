import {
  type WebhookDeliveryBody,
  type WebhookDeliveryBodyOf,
  WebhookDeliveryBodySchema,
  type WebhookEventType,
} from '@customer-api/contract';

/** Why a webhook was rejected. */
export type WebhookVerificationReason =
  | 'missing_signature'
  | 'missing_header'
  | 'invalid_signature'
  | 'invalid_timestamp'
  | 'stale_timestamp'
  | 'event_id_mismatch'
  | 'invalid_body'
  | 'unexpected_event_type';

/** A webhook delivery failed verification or parsing. Answer it with 400 and do no work. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  /** Machine-readable reason, e.g. `stale_timestamp`. */
  readonly reason: WebhookVerificationReason;

  /** @param reason machine-readable reason @param message human-readable explanation */
  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/**
 * Parses a delivery body (raw bytes, text, or already-parsed JSON) against the contract's
 * `WebhookDeliveryBodySchema`. It does not check signatures: use `verifyWebhook` on untrusted input.
 * @throws WebhookVerificationError (`invalid_body`) when the body is not a delivery.
 */
export function parseWebhookDelivery(body: unknown): WebhookDeliveryBody {
  let value = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new WebhookVerificationError('invalid_body', 'Webhook body is not JSON', { cause: error });
    }
  }
  const parsed = WebhookDeliveryBodySchema.safeParse(value);
  if (!parsed.success) {
    throw new WebhookVerificationError('invalid_body', 'Webhook body is not a delivery', {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * Narrows a delivery to one event kind:
 * `if (isWebhookEvent(delivery, 'page.version.published')) delivery.payload.versionId`.
 */
export function isWebhookEvent<T extends WebhookEventType>(
  delivery: WebhookDeliveryBody,
  type: T,
): delivery is WebhookDeliveryBody & WebhookDeliveryBodyOf<T> {
  return delivery.payload.type === type;
}

/**
 * Parses a delivery body and requires it to be of one event kind, typed accordingly.
 * @throws WebhookVerificationError (`invalid_body` or `unexpected_event_type`).
 */
export function parseWebhookEvent<T extends WebhookEventType>(
  type: T,
  body: unknown,
): WebhookDeliveryBodyOf<T> {
  const delivery = parseWebhookDelivery(body);
  if (!isWebhookEvent(delivery, type)) {
    throw new WebhookVerificationError(
      'unexpected_event_type',
      `Expected a ${type} event, got ${delivery.payload.type}`,
    );
  }
  return delivery;
}

/** One handler per event kind; kinds without a handler are ignored. */
export type WebhookHandlers<R> = {
  [T in WebhookEventType]?: (delivery: WebhookDeliveryBodyOf<T>) => R;
};

/**
 * Calls the handler registered for the delivery's event kind, with the delivery typed for it.
 * Returns the handler's result, or `undefined` when no handler matches (new kinds are ignored).
 */
export function dispatchWebhookEvent<R>(
  delivery: WebhookDeliveryBody,
  handlers: WebhookHandlers<R>,
): R | undefined {
  const handler = handlers[delivery.payload.type] as ((d: WebhookDeliveryBody) => R) | undefined;
  return handler?.(delivery);
}
