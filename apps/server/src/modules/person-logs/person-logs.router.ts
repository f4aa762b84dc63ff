import { requireAuth } from '../../http/auth.js';
import { defineModule } from '../types.js';
import { createPersonLog, deletePersonLog } from './person-logs.service.js';

/** Person logs: events about a person, shown in its account's activity. */
export const personLogsModule = defineModule('person-logs', (deps) => ({
  createPersonLog: async ({ body, request }) => ({
    status: 201,
    body: await createPersonLog(deps, requireAuth(request).tenantId, body),
  }),
  deletePersonLog: async ({ params, request }) => ({
    status: 200,
    body: await deletePersonLog(deps, requireAuth(request).tenantId, params.person_log_id),
  }),
}));
