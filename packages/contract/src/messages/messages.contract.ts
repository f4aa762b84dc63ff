import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { operation } from '../common/operations.js';
import { EmptyBodySchema, PathIdSchema } from '../common/primitives.js';
import {
  CreateMessageBodySchema,
  GetMessageSchema,
  MessageSchema,
  RestoreMessageResultSchema,
} from './messages.schemas.js';

const c = initContract();

const AudiencePathSchema = z.object({ page_id: PathIdSchema, audience_id: PathIdSchema });

/** Audience message operations. */
export const messagesContract = c.router({
  getAudienceMessages: {
    method: 'GET',
    path: '/pages/:page_id/audiences/:audience_id/messages',
    pathParams: AudiencePathSchema,
    responses: { 200: GetMessageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: "Get an audience's messages",
    description:
      "Reads an audience's conversation: messages oldest first, the audience's current context and pending changes. Needs pageId and audienceId (from listAudiences). The history is bounded (see createAudienceMessage): at most 1,000 messages, which with the pending changes take at most 4 MiB of JSON, so one read stays within about 5 MiB with the context.",
    metadata: operation('Audience Messages', 'read'),
  },
  createAudienceMessage: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/messages',
    pathParams: AudiencePathSchema,
    body: CreateMessageBodySchema,
    responses: { 201: MessageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409) },
    summary: 'Post an audience message',
    description:
      "Adds a message to an audience's conversation. Changes with status applied update the audience and store a snapshot. Limits: a message may take at most 256 KiB (262,144 bytes of JSON as returned, changes included; larger: 400 VALIDATION_ERROR), and an audience's history at most 1,000 messages and 4 MiB (4,194,304 bytes, saved changes counted twice as they are also listed as pending); a message that would go past either: 409 CONFLICT. Nothing is stored when a limit is exceeded.",
    metadata: operation('Audience Messages', 'create', { destructive: true }),
  },
  restoreAudienceMessage: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/messages/:message_id/restore',
    pathParams: AudiencePathSchema.extend({ message_id: PathIdSchema }),
    body: EmptyBodySchema,
    responses: { 200: RestoreMessageResultSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409) },
    summary: 'Restore a message snapshot',
    description:
      'Rolls the audience back to the snapshot stored with a message (hasSnapshot true) and marks later applied changes reverted. Send an empty object. 409 when the message has no snapshot.',
    metadata: operation('Audience Messages', 'restore'),
  },
});
