import { WEBHOOK_EXAMPLES } from './openapi-examples.js';
import { toSchema } from './openapi-schemas.js';
import type { Json, JsonObject } from './openapi-types.js';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WebhookDeliveryBodySchema,
} from './webhooks/events.schemas.js';

/** Every header of a webhook delivery request: name, meaning, example. */
const WEBHOOK_DELIVERY_HEADERS: Array<[string, string, string]> = [
  [
    WEBHOOK_HEADERS.signature,
    '`sha256=` + hex HMAC-SHA256 of the raw body, keyed by the whole signing secret as UTF-8 (GitHub style). During a rotation overlap it is made with the previous secret.',
    'sha256=3f1c…',
  ],
  [
    WEBHOOK_HEADERS.timestamp,
    'Signing time, Unix milliseconds. Refuse deliveries far from your clock.',
    '1764000000000',
  ],
  [WEBHOOK_HEADERS.eventId, "The event id, equal to the body's eventId: deduplicate on it.", 'evt_01jb…'],
  [WEBHOOK_HEADERS.standardId, 'Standard Webhooks message id (the event id).', 'evt_01jb…'],
  [WEBHOOK_HEADERS.standardTimestamp, 'Standard Webhooks signing time, Unix seconds.', '1764000000'],
  [
    WEBHOOK_HEADERS.standardSignature,
    'Standard Webhooks signatures: space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one per live secret (two during a rotation overlap), keyed by the base64-decoded part of the secret after `whsec_`.',
    'v1,K5oZfz…',
  ],
];

/** A webhook's operationId, camelCase like the API's: `page.version.created` -> `webhookPageVersionCreated`. */
const webhookOperationId = (type: string) =>
  `webhook${type.replace(/(?:^|[._])([a-z])/g, (_match, letter: string) => letter.toUpperCase())}`;

/**
 * The document's `webhooks`: one delivery request per event type, with its signature headers and
 * recorded example. `inputOnly` names the components with a separate request form.
 */
export function webhookOperations(inputOnly: Set<string>): Record<string, JsonObject> {
  const webhooks: Record<string, JsonObject> = {};
  for (const type of WEBHOOK_EVENT_TYPES) {
    webhooks[type] = {
      post: {
        operationId: webhookOperationId(type),
        summary: `${type} event delivery`,
        description:
          'Delivered to subscribed URLs. Verify X-Webhook-Signature-256 (sha256= HMAC of the raw body) or the Standard Webhooks headers, and deduplicate on eventId.',
        tags: ['Webhook Subscriptions'],
        security: [],
        parameters: WEBHOOK_DELIVERY_HEADERS.map(([name, description, example]) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string', examples: [example] },
        })),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: toSchema(WebhookDeliveryBodySchema, 'output', inputOnly),
              example: WEBHOOK_EXAMPLES[type] as Json,
            },
          },
        },
        responses: { '200': { description: 'Any 2xx acknowledges the delivery.' } },
      },
    };
  }
  return webhooks;
}
