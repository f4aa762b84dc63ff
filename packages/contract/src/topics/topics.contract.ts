import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { notModified } from '../common/conditional.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { PaginationQuerySchema, paginated } from '../common/pagination.js';
import { CreateTopicBodySchema, TopicSchema, UpdateTopicBodySchema } from './topics.schemas.js';

const c = initContract();

const TopicPathSchema = z.object({ topic_id: PATH_IDS.topic_id });

/** Topic operations. */
export const topicsContract = c.router({
  listTopics: {
    method: 'GET',
    path: '/topics',
    query: PaginationQuerySchema,
    responses: { 200: paginated(TopicSchema), ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'List topics',
    description: 'Lists knowledge topics with their entries, the default topic included.',
    metadata: operation('Topics', 'read', { paginated: true, defaultTool: true, writingRead: true }),
  },
  createTopic: {
    method: 'POST',
    path: '/topics',
    body: CreateTopicBodySchema,
    responses: { 201: TopicSchema, ...errorResponses(...COMMON_ERROR_STATUSES) },
    summary: 'Create a topic',
    description: 'Creates a knowledge topic with a title and an optional sortOrder.',
    metadata: operation('Topics', 'create', { resource: 'topic' }),
  },
  getTopic: {
    method: 'GET',
    path: '/topics/:topic_id',
    pathParams: TopicPathSchema,
    responses: { 200: TopicSchema, ...notModified, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Get a topic',
    description: 'Reads one topic (topicId from listTopics) with its entries.',
    metadata: operation('Topics', 'read', { defaultTool: true, resource: 'topic' }),
  },
  updateTopic: {
    method: 'PATCH',
    path: '/topics/:topic_id',
    pathParams: TopicPathSchema,
    body: UpdateTopicBodySchema,
    responses: { 200: TopicSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404, 409, 412) },
    summary: 'Update a topic',
    description: 'Changes the title, sortOrder or purpose of a topic. 409 when renaming the default topic.',
    metadata: operation('Topics', 'update', { resource: 'topic' }),
  },
});
