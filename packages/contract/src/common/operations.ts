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
  /** Resource group (OpenAPI tag). */
  readonly group: ResourceGroup;
  /** What the operation does. */
  readonly kind: OperationKind;
  /** True when repeating the call with the same input has no further effect. */
  readonly idempotent: boolean;
  /**
   * True when the call can overwrite or remove existing data or state (MCP's `destructiveHint`):
   * deletes, restores, updates and state transitions; creates only when they also change
   * existing data (a message with applied changes rewrites its audience's fields).
   */
  readonly destructive: boolean;
  /** True when the operation answers with the pagination envelope. */
  readonly paginated: boolean;
  /** Set when the operation is deprecated: since when, until when, and what replaces it. */
  readonly deprecated?: Deprecation;
}

/** Builds an operation's metadata with safety hints derived from its kind. */
export function operation(
  group: ResourceGroup,
  kind: OperationKind,
  options: {
    paginated?: boolean;
    idempotent?: boolean;
    destructive?: boolean;
    deprecated?: Deprecation;
  } = {},
): OperationMeta {
  const idempotent = options.idempotent ?? kind !== 'create';
  const destructive = options.destructive ?? (kind !== 'read' && kind !== 'create');
  const meta = { group, kind, idempotent, destructive, paginated: options.paginated ?? false };
  return options.deprecated ? { ...meta, deprecated: options.deprecated } : meta;
}
