import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import { createPerson } from './persons.service.js';

/** Persons (contacts). */
export const personsModule = defineModule('persons', (deps) => ({
  createPerson: async ({ body, request, db }) => ({
    status: 201,
    body: await createPerson({ ...deps, db }, requireAuth(request).tenantId, body),
  }),
}));
