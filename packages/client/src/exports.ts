// Everything both entry points export except `createClient`, which picks the runtime's transport.
import { API_VERSION } from './generated/routes.js';

// Contract types a client user names often, re-exported so one import suffices.
export type {
  ApiError,
  Asset,
  ErrorCode,
  OperationName,
  PaginatedOperationName,
  WebhookDeliveryBody,
  WebhookDeliveryBodyOf,
  WebhookEventType,
} from '@customer-api/contract';

export {
  type ClientOptions,
  type CustomerApiClient,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
} from './client-core.js';
export { getEtag } from './core/conditional.js';
export {
  ConflictError,
  ConnectionError,
  CustomerApiError,
  type ErrorResponseInit,
  ForbiddenError,
  InternalError,
  type NoResponseErrorCode,
  type NoResponseInit,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  ValidationError,
} from './core/errors.js';
export { DEFAULT_ETAG_CACHE, type EtagCacheOptions } from './core/etag-cache.js';
export type { RequestEvent, ResponseEvent } from './core/exchange.js';
export type { ClientLogger, LogLevel } from './core/logging.js';
export { getRequestId } from './core/request.js';
export { type Backoff, type BackoffOptions, DEFAULT_BACKOFF } from './core/retry.js';
export type { FetchInitLike, FetchLike, FetchResponseLike } from './core/transport.js';
export type {
  ApiResponse,
  ArgsTuple,
  CallOptions,
  ConditionalReadMethod,
  ConditionalReadMethodWithResponse,
  IfMatchOperationName,
  IfMatchOption,
  IfNoneMatchOperationName,
  IfNoneMatchOption,
  OperationArgs,
  OperationItem,
  OperationMethod,
  OperationMethods,
  OperationMethodsWithResponse,
  OperationMethodWithResponse,
  OperationResult,
  RequestOptions,
} from './core/types.js';
export type { AssetBody, UploadKind, UploadOptions } from './core/upload.js';
export { CLIENT_VERSION } from './version.js';
export {
  dispatchWebhookEvent,
  isWebhookEvent,
  parseWebhookDelivery,
  parseWebhookEvent,
  type WebhookHandlers,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks/events.js';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  verifyWebhook,
  verifyWebhookAsync,
  type WebhookHeaders,
} from './webhooks/verify.js';

/** Version of the API description this client speaks. */
export const SUPPORTED_API_VERSION: string = API_VERSION;
