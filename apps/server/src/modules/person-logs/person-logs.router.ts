import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import { createPersonLog, deletePersonLog } from './person-logs.service.js';

/** Person logs: events about a person, shown in its account's activity. */
export const personLogsModule = defineModule('person-logs', (deps) => ({
  createPersonLog: async ({ body, request, db }) => ({
    status: 201,
    body: await createPersonLog({ ...deps, db }, requireAuth(request).tenantId, body),
  }),
  deletePersonLog: async ({ params, request, db }) => ({
    status: 200,
    body: await deletePersonLog({ ...deps, db }, requireAuth(request).tenantId, params.person_log_id),
  }),
}));
