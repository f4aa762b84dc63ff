import type { CreateMessageBodySchema, Metadata } from '@customer-api/contract';
import type { z } from 'zod';
import { ConflictError } from '../../lib/errors.js';
import type { ServiceDeps } from '../types.js';
import { type AudienceState, applyField, readField } from './audience-state.js';
import type { ChangeRow } from './messages.repo.js';

type NewChanges = NonNullable<z.output<typeof CreateMessageBodySchema>['changes']>;

/**
 * Gives posted changes ids and previous values, applying the `applied` ones in order; returns
 * the rows and the audience state after them.
 */
export function applyChanges(
  deps: Pick<ServiceDeps, 'ids'>,
  start: AudienceState,
  pageMetadata: Metadata | null,
  posted: NewChanges,
  base: Pick<ChangeRow, 'tenantId' | 'messageId' | 'audienceId' | 'messageSeq'>,
): { rows: ChangeRow[]; state: AudienceState } {
  let state = start;
  const rows = posted.map((change, position) => {
    const previousValue = readField(state, pageMetadata, change.field);
    if (change.previousValue !== undefined && change.previousValue !== previousValue) {
      throw new ConflictError(
        `Change ${position} expects ${change.field} to be ${preview(change.previousValue)}, but it is ${preview(previousValue)}; read the audience's messages again and resend.`,
      );
    }
    if (change.status === 'applied') state = applyField(state, change.field, change.newValue);
    return {
      ...base,
      id: deps.ids('change'),
      position,
      field: change.field,
      previousValue,
      newValue: change.newValue,
      status: change.status,
    };
  });
  return { rows, state };
}

/** A value as a short JSON text for an error message. */
const preview = (value: string | null) =>
  value !== null && value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
