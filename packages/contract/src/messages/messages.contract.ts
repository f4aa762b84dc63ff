import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { EmptyBodySchema } from '../common/primitives.js';
import {
  CreateMessageBodySchema,
  GetMessageSchema,
  MessageSchema,
  RestoreMessageResultSchema,
} from './messages.schemas.js';

const c = initContract();

const AudiencePathSchema = z.object({ page_id: PATH_IDS.page_id, audience_id: PATH_IDS.audience_id });

/** Audience message operations. */
export const messagesContract = c.router({
  getAudienceMessages: {
    method: 'GET',
    path: '/pages/:page_id/audiences/:audience_id/messages',
    pathParams: AudiencePathSchema,
    responses: { 200: GetMessageSchema, ...notModified, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: "Get an audience's messages",
    description:
      "Reads an audience's conversation: messages oldest first, the audience's current context and pending changes. Needs pageId and audienceId (from listAudiences). A history holds at most 1,000 messages and 4 MiB (see createAudienceMessage).",
    metadata: operation('Audience Messages', 'read', {
      windowed: true,
      defaultTool: true,
      resource: 'audienceMessages',
    }),
  },
  createAudienceMessage: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/messages',
    pathParams: AudiencePathSchema,
    body: CreateMessageBodySchema,
    responses: { 201: MessageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Post an audience message',
    description:
      "Adds a message to an audience's conversation. Changes with status applied update the audience and store a snapshot. Limits: 256 KiB of JSON per message (larger: 400); 1,000 messages and 4 MiB per audience (past either: 400). Nothing is stored past a limit.",
    metadata: operation('Audience Messages', 'create', {
      destructive: true,
      defaultTool: true,
      resource: 'audienceMessages',
      ifMatch: true,
      sendsEtag: false,
    }),
  },
  restoreAudienceMessage: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/messages/:message_id/restore',
    pathParams: AudiencePathSchema.extend({ message_id: PATH_IDS.message_id }),
    body: EmptyBodySchema,
    responses: {
      200: RestoreMessageResultSchema,
      ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412),
    },
    summary: 'Restore a message snapshot',
    description:
      'Rolls the audience back to the snapshot stored with a message (hasSnapshot true) and marks later applied changes reverted. Send an empty object. 409 when the message has no snapshot.',
    metadata: operation('Audience Messages', 'restore', { resource: 'audienceMessages', sendsEtag: false }),
  },
  publishAudienceMessage: {
    method: 'POST',
    path: '/pages/:page_id/audiences/:audience_id/messages/:message_id/publish',
    pathParams: AudiencePathSchema.extend({ message_id: PATH_IDS.message_id }),
    body: EmptyBodySchema,
    responses: { 200: GetMessageSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 412) },
    summary: 'Publish a message',
    description:
      "Marks a message as the conversation's published one (conversation.publishedMessageId) and returns the history. Publishing another message replaces it; publishing the same one again changes nothing.",
    metadata: operation('Audience Messages', 'transition', {
      responseNotKept: true,
      resource: 'audienceMessages',
    }),
  },
});
