import { requireAuth } from '../../http/auth.js';
import { deleteLog } from '../accounts/activity.service.js';
import { defineModule } from '../types.js';
import { createPersonLog } from './person-logs.service.js';

/** Person logs: events about a person, shown in its account's activity. */
export const personLogsModule = defineModule('person-logs', (deps) => ({
  createPersonLog: async ({ body, request }) => ({
    status: 201,
    body: await createPersonLog(deps, requireAuth(request).tenantId, body),
  }),
  deletePersonLog: async ({ params, request }) => ({
    status: 200,
    body: await deleteLog(deps, requireAuth(request).tenantId, 'person', params.person_log_id),
  }),
}));
