import { requireAuth } from '../../http/auth.js';
import { admitLargeRead } from '../../http/large-responses.js';
import { defineModule, pathParam } from '../types.js';
import * as service from './messages.service.js';

/** An audience's conversation: read, post, restore a snapshot, publish. */
export const messagesModule = defineModule(
  'messages',
  (deps) => ({
    getAudienceMessages: async ({ params, request, db }) => ({
      status: 200,
      body: await service.getAudienceMessages(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        // A long history takes its tenant's place in line before the database reads it (refused at
        // once while the line is full).
        admitLargeRead(request),
      ),
    }),
    createAudienceMessage: async ({ params, body, request, db }) => ({
      status: 201,
      body: await service.createAudienceMessage(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        body,
      ),
    }),
    restoreAudienceMessage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.restoreAudienceMessage(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        params.message_id,
      ),
    }),
    publishAudienceMessage: async ({ params, request, db }) => ({
      status: 200,
      body: await service.publishAudienceMessage(
        { ...deps, db },
        requireAuth(request).tenantId,
        params.page_id,
        params.audience_id,
        params.message_id,
        // It answers with the history: read (and streamed) as getAudienceMessages reads it, and
        // refused before its write while the line is full.
        admitLargeRead(request),
      ),
    }),
  }),
  {
    audienceMessages: {
      lock: ({ db }, tenantId, params) =>
        service.lockConversation(
          db,
          tenantId,
          pathParam(params, 'page_id'),
          pathParam(params, 'audience_id'),
        ),
      read: (deps, tenantId, params) =>
        service.getAudienceMessages(
          deps,
          tenantId,
          pathParam(params, 'page_id'),
          pathParam(params, 'audience_id'),
        ),
    },
  },
);
