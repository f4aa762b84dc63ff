import { describe, expect, it } from 'vitest';
import { CreatePersonBodySchema, CreatePersonLogBodySchema } from './persons.schemas.js';

describe('persons', () => {
  it('create needs a name and a valid email', () => {
    expect(CreatePersonBodySchema.safeParse({ name: 'Ada', email: 'ada@example.com' }).success).toBe(true);
    expect(CreatePersonBodySchema.safeParse({ name: 'Ada', email: 'not-an-email' }).success).toBe(false);
    expect(CreatePersonBodySchema.safeParse({ email: 'ada@example.com' }).success).toBe(false);
  });

  it('person logs use the kebab-case source and type rules', () => {
    const log = { personId: 'person_1', source: 'crm', type: 'call-logged', payload: {} };
    expect(CreatePersonLogBodySchema.safeParse(log).success).toBe(true);
    expect(CreatePersonLogBodySchema.safeParse({ ...log, type: 'Call' }).success).toBe(false);
    expect(CreatePersonLogBodySchema.safeParse({ ...log, payload: [] }).success).toBe(false);
  });
});
