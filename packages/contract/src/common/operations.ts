import type { Deprecation } from './deprecation.js';

/** The specification's resource groups; each operation belongs to one (OpenAPI tag, MCP toolset). */
export const RESOURCE_GROUPS = [
  'Pages',
  'Analytics',
  'Audiences',
  'Audience Versions',
  'Audience Messages',
  'Page Links',
  'Assets',
  'Persons',
  'Person Logs',
  'Accounts',
  'Account Activity',
  'Account Logs',
  'Topics',
  'Topic Entries',
  'Webhook Subscriptions',
] as const;
/** One-line descriptions of the resource groups (OpenAPI tag descriptions). */
export const RESOURCE_GROUP_DESCRIPTIONS: Record<ResourceGroup, string> = {
  Pages: 'Top-level customer experience containers.',
  Analytics: 'Audience sessions and their interactions.',
  Audiences: 'Targeted experiences that belong to one page.',
  'Audience Versions': 'Generated or editable audience states: drafts and published versions.',
  'Audience Messages': "An audience's conversation, with changes and restorable snapshots.",
  'Page Links': 'Links to pages (no operations in this version).',
  Assets: 'Stored media and component items, and the trash.',
  Persons: 'Individual contact records.',
  'Person Logs': 'Events recorded about a person.',
  Accounts: 'Company-level records identified by a domain.',
  'Account Activity': "An account's log of events.",
  'Account Logs': 'Events recorded on an account, with idempotency keys.',
  Topics: 'Knowledge topics holding entries.',
  'Topic Entries': 'Entries of a topic (no operations in this version).',
  'Webhook Subscriptions': 'Signed, at-least-once event deliveries to your endpoints.',
};

/**
 * The resources whose representations carry an `ETag`: what a single-resource GET reads, what a
 * write on a resource changes, or what a create answers with. A tag is the same whichever
 * operation sends it, so a tag from `createTopic` or `getTopic` is good for `updateTopic`'s
 * `If-Match`.
 */
export const TAGGED_RESOURCES = [
  'page',
  'audience',
  'audienceVersion',
  'audienceMessages',
  'audienceSession',
  'audienceSessionInteractions',
  'asset',
  'person',
  'account',
  'topic',
  'webhookSubscription',
] as const;

/** One of {@link TAGGED_RESOURCES}. */
export type TaggedResource = (typeof TAGGED_RESOURCES)[number];

/** One of {@link RESOURCE_GROUPS}. */
export type ResourceGroup = (typeof RESOURCE_GROUPS)[number];

/**
 * What an operation does, which decides retry safety in the client and MCP tool annotations:
 * - `read`: no side effects;
 * - `create`: makes a new resource (not idempotent unless it takes an idempotency key);
 * - `update`: changes fields to given values (idempotent);
 * - `transition`: moves a resource to another state (archive, publish, trash; idempotent in effect);
 * - `restore`: undoes an archive, delete or change (idempotent in effect, overwrites current state);
 * - `delete`: removes or soft-deletes a resource.
 */
export type OperationKind = 'read' | 'create' | 'update' | 'transition' | 'restore' | 'delete';

/** Metadata attached to every route of the contract. */
export interface OperationMeta {
  /** Resource group (OpenAPI tag, MCP toolset). */
  readonly group: ResourceGroup;
  /** What the operation does. */
  readonly kind: OperationKind;
  /** True when repeating the call with the same input has no further effect. */
  readonly idempotent: boolean;
  /**
   * True when the call can overwrite or remove existing data or state (MCP's `destructiveHint`):
   * deletes, updates, state transitions and restores that roll data back; creates only when they
   * also change existing data (a message with applied changes rewrites its audience's fields).
   * An {@link OperationMeta.undo} is not destructive.
   */
  readonly destructive: boolean;
  /**
   * True for a restore that only reverses an earlier archive or delete (`restorePage`,
   * `restoreAudience`): it brings a resource back to the status it had and overwrites no field,
   * so it is not {@link OperationMeta.destructive}.
   */
  readonly undo: boolean;
  /** True when the operation answers with the pagination envelope. */
  readonly paginated: boolean;
  /**
   * True when the call makes the server send requests to addresses the caller chose (webhook
   * endpoints): MCP's `openWorldHint`.
   */
  readonly openWorld: boolean;
  /**
   * True when the answer is a whole history that can be long (an audience's messages, up to
   * 4 MiB): an MCP tool shows it a window of messages at a time, newest first.
   */
  readonly windowed: boolean;
  /** True when the operation is in the MCP server's `default` toolset, what an assistant loads unless told otherwise. */
  readonly defaultTool: boolean;
  /**
   * True for a read (GET) that writes all the same, so the server runs it on the primary, never on
   * a standby: `listTopics` creates the tenant's default topic on first use.
   */
  readonly writingRead: boolean;
  /**
   * True for a write (POST, PATCH) whose first response the server does not keep for its
   * `Idempotency-Key`: publishing a message answers with the audience's whole history (up to
   * 4 MiB), which a key would otherwise hold for a day per request. The write is idempotent by
   * itself: a retry with the same key runs again, changes nothing more and answers the history as
   * it is then (no 409 on reuse, no `Idempotent-Replayed`). The key's format is still checked.
   */
  readonly responseNotKept: boolean;
  /**
   * The resource the operation reads, changes or answers with, when it has an `ETag`: a GET of it
   * honours `If-None-Match` (304), a write on it `If-Match` (412) when {@link OperationMeta.ifMatch}.
   */
  readonly resource?: TaggedResource;
  /**
   * True when the operation takes `If-Match`: the write happens only while the tag is the
   * resource's current one, checked atomically with the write. Writes on a resource that the path
   * names (updates, deletes, transitions, restores) take it; creates do not, unless they append
   * to a resource that has a tag (a message to an audience's history).
   */
  readonly ifMatch: boolean;
  /** True when a 2xx answer carries the resource's `ETag` (the resource it answers with is {@link OperationMeta.resource}). */
  readonly sendsEtag: boolean;
  /**
   * Set when the operation carries raw bytes instead of JSON: an `upload` takes them as its request
   * body (any media type, streamed); a `download` answers with them at the signed address an
   * Asset gives, which is its credential: it takes no API key, so no scope and no rate limit.
   * Such operations are neither generic client methods nor MCP tools.
   */
  readonly bytes?: 'upload' | 'download';
  /** Set when the operation is deprecated: since when, until when, and what replaces it. */
  readonly deprecated?: Deprecation;
}

/** Options of {@link operation}; hints not given are derived from the kind, flags default to false. */
export interface OperationOptions {
  readonly paginated?: boolean;
  readonly idempotent?: boolean;
  readonly destructive?: boolean;
  /** Only with kind `restore`: see {@link OperationMeta.undo}. */
  readonly undo?: boolean;
  readonly openWorld?: boolean;
  readonly windowed?: boolean;
  readonly defaultTool?: boolean;
  readonly writingRead?: boolean;
  readonly responseNotKept?: boolean;
  readonly resource?: TaggedResource;
  /**
   * Defaults to true for a write other than a create on a {@link OperationOptions.resource}; an
   * upload of bytes sets it (its tag is its content's, not a resource's).
   */
  readonly ifMatch?: boolean;
  /** Defaults to true with a resource, except for deletes. */
  readonly sendsEtag?: boolean;
  readonly bytes?: 'upload' | 'download';
  readonly deprecated?: Deprecation;
}

/**
 * Builds an operation's metadata with safety hints derived from its kind.
 * @throws Error when `undo` is given to an operation that is not a restore.
 */
export function operation(
  group: ResourceGroup,
  kind: OperationKind,
  options: OperationOptions = {},
): OperationMeta {
  const undo = options.undo ?? false;
  if (undo && kind !== 'restore') throw new Error(`Only a restore can be an undo, not a ${kind}`);
  const idempotent = options.idempotent ?? kind !== 'create';
  const destructive = options.destructive ?? (kind !== 'read' && kind !== 'create' && !undo);
  const meta: OperationMeta = {
    group,
    kind,
    idempotent,
    destructive,
    undo,
    paginated: options.paginated ?? false,
    openWorld: options.openWorld ?? false,
    windowed: options.windowed ?? false,
    defaultTool: options.defaultTool ?? false,
    writingRead: options.writingRead ?? false,
    responseNotKept: options.responseNotKept ?? false,
    ifMatch: options.ifMatch ?? (options.resource !== undefined && kind !== 'read' && kind !== 'create'),
    sendsEtag: options.sendsEtag ?? (options.resource !== undefined && kind !== 'delete'),
    ...(options.bytes ? { bytes: options.bytes } : {}),
  };
  const withResource = options.resource ? { ...meta, resource: options.resource } : meta;
  return options.deprecated ? { ...withResource, deprecated: options.deprecated } : withResource;
}

/**
 * What an API key needs for a request of this HTTP method: `read` for the safe methods (GET, HEAD,
 * OPTIONS), `write` for every other.
 */
export function requiredScope(method: string): 'read' | 'write' {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'write';
}
