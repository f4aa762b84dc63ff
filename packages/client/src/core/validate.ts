import type { Contract } from '@customer-api/contract';

/** Checks a success body against the contract: the parsed value, or `undefined` when it fails. */
export type Validator = (operation: string, status: number, body: unknown) => { data: unknown } | undefined;

interface SafeParser {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}

/**
 * A validator over a contract's response schemas. It is handed the contract object and imports
 * nothing from it, so a client that does not validate bundles none of its Zod schemas. A status
 * without a schema passes.
 */
export function contractValidator(contract: Contract): Validator {
  const routes = contract as unknown as Record<string, { responses: Record<number, unknown> } | undefined>;
  return (operation, status, body) => {
    const schema = routes[operation]?.responses?.[status] as SafeParser | undefined;
    if (typeof schema?.safeParse !== 'function') return { data: body };
    const result = schema.safeParse(body);
    return result.success ? { data: result.data } : undefined;
  };
}
