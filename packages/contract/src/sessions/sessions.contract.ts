import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import {
  AudienceSessionSchema,
  CreateAudienceSessionBodySchema,
  CreateInteractionBodySchema,
  InteractionSchema,
  SessionInteractionsSchema,
} from './sessions.schemas.js';

const c = initContract();

const SessionPathSchema = z.object({ audience_session_id: PATH_IDS.audience_session_id });

/** Audience session operations (resource group Analytics). */
export const sessionsContract = c.router({
  createAudienceSession: {
    method: 'POST',
    path: '/audience_sessions',
    body: CreateAudienceSessionBodySchema,
    responses: { 201: AudienceSessionSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Start an audience session',
    description: "Starts a session on an audience's experience (audienceId from listAudiences).",
    metadata: operation('Analytics', 'create', { resource: 'audienceSession' }),
  },
  createAudienceSessionInteraction: {
    method: 'POST',
    path: '/audience_sessions/:audience_session_id/interactions',
    pathParams: SessionPathSchema,
    body: CreateInteractionBodySchema,
    responses: { 201: InteractionSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Record a session interaction',
    description: 'Records an interaction (componentId, label) in an audience session.',
    metadata: operation('Analytics', 'create'),
  },
  getAudienceSessionInteractions: {
    method: 'GET',
    path: '/audience_sessions/:audience_session_id/interactions',
    pathParams: SessionPathSchema,
    responses: {
      200: SessionInteractionsSchema,
      ...notModified,
      ...errorResponses(...COMMON_ERROR_STATUSES),
    },
    summary: "Get a session's interactions",
    description:
      'Reads the interactions of an audience session, oldest first. An unknown session answers found false with no interactions.',
    metadata: operation('Analytics', 'read', { resource: 'audienceSessionInteractions' }),
  },
});
