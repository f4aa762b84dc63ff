import { describe, expect, it } from 'vitest';
import { CreateInteractionBodySchema, SessionInteractionsSchema } from './sessions.schemas.js';

describe('audience sessions', () => {
  it('interaction reads require found and interactions', () => {
    expect(SessionInteractionsSchema.safeParse({ found: false, interactions: [] }).success).toBe(true);
    expect(SessionInteractionsSchema.safeParse({ found: false }).success).toBe(false);
    expect(SessionInteractionsSchema.safeParse({ interactions: [] }).success).toBe(false);
  });

  it('interaction writes need componentId and label', () => {
    expect(CreateInteractionBodySchema.safeParse({ componentId: 'c', label: 'l' }).success).toBe(true);
    expect(CreateInteractionBodySchema.safeParse({ componentId: 'c' }).success).toBe(false);
    expect(CreateInteractionBodySchema.safeParse({ label: 'l' }).success).toBe(false);
  });
});
