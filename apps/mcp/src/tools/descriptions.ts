/**
 * Descriptions of tool arguments the contract leaves undescribed or describes for HTTP callers,
 * keyed by `tool.argument`. A model reads these to decide what to pass.
 */
export const ARGUMENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'create_account_log.idempotencyKey':
    'Optional key of this event (1-255 characters). Calls with the same key and the same arguments record one entry and return it again; without a key every call records a new entry.',
};
