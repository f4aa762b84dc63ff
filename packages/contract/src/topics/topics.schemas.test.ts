import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SAFE_INTEGER } from '../common/primitives.js';
import { CreateTopicBodySchema, TopicSchema, UpdateTopicBodySchema } from './topics.schemas.js';

describe('topics', () => {
  it('create needs a non-empty title', () => {
    expect(CreateTopicBodySchema.safeParse({ title: 'T' }).success).toBe(true);
    expect(CreateTopicBodySchema.safeParse({ title: '' }).success).toBe(false);
    expect(CreateTopicBodySchema.safeParse({}).success).toBe(false);
  });

  it('sortOrder is an integer from 0 to 2^53-1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_SAFE_INTEGER }),
        (n) => CreateTopicBodySchema.safeParse({ title: 'T', sortOrder: n }).success,
      ),
    );
    for (const bad of [-1, 1.5, MAX_SAFE_INTEGER + 2, '1']) {
      expect(CreateTopicBodySchema.safeParse({ title: 'T', sortOrder: bad }).success, String(bad)).toBe(
        false,
      );
    }
  });

  it('update needs at least one field', () => {
    expect(UpdateTopicBodySchema.safeParse({}).success).toBe(false);
    expect(UpdateTopicBodySchema.safeParse({ title: 'New' }).success).toBe(true);
    expect(UpdateTopicBodySchema.safeParse({ title: '' }).success).toBe(false);
  });

  it('topics carry every field, entries included', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const topic = {
      topicId: 'topic_1',
      title: 'General',
      purpose: null,
      sortOrder: 0,
      isDefault: true,
      createdAt: at,
      updatedAt: at,
      entries: [
        {
          topicEntryId: 'e',
          topicId: 'topic_1',
          sortOrder: 0,
          content: { type: 'text', content: 'x' },
          createdAt: at,
          updatedAt: at,
        },
      ],
    };
    expect(TopicSchema.safeParse(topic).success).toBe(true);
    for (const key of Object.keys(topic)) {
      const { [key]: _dropped, ...rest } = topic as Record<string, unknown>;
      expect(TopicSchema.safeParse(rest).success, key).toBe(false);
    }
  });
});
