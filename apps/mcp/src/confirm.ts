import { createHash, randomBytes } from 'node:crypto';
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ToolDefinition } from './tools/derive.js';
import { errorResult } from './tools/errors.js';

/** How long a confirmation may take between the two rounds. */
export const CONFIRM_TTL_SECONDS = 300;

/** The state carried from the first round to the second, signed by {@link Confirmation}. */
interface ConfirmState {
  /** Tool the confirmation was asked for. */
  tool: string;
  /** SHA-256 of the tool's canonical arguments: the answer confirms exactly this call. */
  args: string;
}

/** Options of {@link createConfirmation}. */
export interface ConfirmationOptions {
  /** `false` (MCP_CONFIRM=0): destructive tools run without asking. */
  enabled?: boolean;
  /**
   * HMAC key (at least 32 bytes) of the request state. Every replica answering the same clients
   * needs the same key; unset: a random key, valid for this process only.
   */
  secret?: string;
  /** How long the user has to answer, in seconds; default {@link CONFIRM_TTL_SECONDS}. */
  ttlSeconds?: number;
}

/** Asks the user before a delete runs: in-band on 2026-07-28, `elicitation/create` on 2025. */
export interface Confirmation {
  readonly enabled: boolean;
  /**
   * Decides whether `tool` may run now. `undefined`: run it. A result: return it instead (the
   * `input_required` question, or the refusal).
   * @throws ProtocolError (-32602) when the echoed state is forged, expired or from another call.
   */
  check(
    tool: ToolDefinition,
    args: unknown,
    ctx: ServerContext,
    legacyCapabilities: ClientCapabilities | undefined,
  ): Promise<CallToolResult | ReturnType<typeof inputRequired> | undefined>;
}

const AnswerSchema = z.object({ confirm: z.boolean() });

/** JSON with sorted keys, so the same arguments always hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function digest(args: unknown): string {
  return createHash('sha256')
    .update(canonical(args ?? {}))
    .digest('base64url');
}

/** Form elicitation is declared as `elicitation: {}` (the 2025-06-18 meaning) or `{ form: {} }`. */
function canElicit(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (!elicitation) return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

function capabilitiesOf(ctx: ServerContext, legacy: ClientCapabilities | undefined) {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return modern ?? legacy;
}

function badState(tool: string, reason: string): ProtocolError {
  const why: Record<string, string> = {
    expired: 'it expired (the user has a few minutes to answer)',
    bind: 'it was issued to another API key',
    call: 'it was issued for another tool or other arguments',
  };
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `The confirmation state of this ${tool} call is not valid: ${why[reason] ?? 'it was altered or was not issued by this server'}. Call ${tool} again without requestState to be asked afresh.`,
    { reason },
  );
}

function declined(tool: ToolDefinition): CallToolResult {
  return errorResult(tool, {
    code: 'NOT_CONFIRMED',
    detail: `The user did not confirm ${tool.name}; nothing was changed.`,
  });
}

/**
 * Confirmation of destructive tools (kind `delete`). The request state is signed (HMAC-SHA256),
 * bound to the API key and expires, so no server memory is needed between the two rounds and any
 * replica sharing the secret answers the second one.
 */
export function createConfirmation(options: ConfirmationOptions = {}): Confirmation {
  const enabled = options.enabled ?? true;
  const codec = createRequestStateCodec<ConfirmState>({
    key: options.secret ?? randomBytes(32),
    ttlSeconds: options.ttlSeconds ?? CONFIRM_TTL_SECONDS,
    bind: (ctx) => ctx.http?.authInfo?.token ?? '',
  });
  const check: Confirmation['check'] = async (tool, args, ctx, legacyCapabilities) => {
    if (!enabled || tool.meta.kind !== 'delete') return undefined;
    const ask = async () => {
      const question = inputRequired.elicit({
        message: `${tool.title}? The assistant calls ${tool.name} with ${canonical(args ?? {})}.`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: `Yes, run ${tool.name}`, default: false } },
          required: ['confirm'],
        },
      });
      const requestState = await codec.mint({ tool: tool.name, args: digest(args) }, ctx);
      return inputRequired({ inputRequests: { confirm: question }, requestState });
    };
    const raw = ctx.mcpReq.requestState<string>();
    if (raw === undefined) return canElicit(capabilitiesOf(ctx, legacyCapabilities)) ? ask() : undefined;
    let state: ConfirmState;
    try {
      state = await codec.verify(raw, ctx);
    } catch (error) {
      throw badState(tool.name, (error as Error).message);
    }
    if (state.tool !== tool.name || state.args !== digest(args)) throw badState(tool.name, 'call');
    // A retry without the answer is asked again (SEP-2322: re-request missing input).
    if (inputResponse(ctx.mcpReq.inputResponses, 'confirm').kind === 'missing') return ask();
    return acceptedContent(ctx.mcpReq.inputResponses, 'confirm', AnswerSchema)?.confirm === true
      ? undefined
      : declined(tool);
  };
  return { enabled, check };
}
