import { accountsModule } from './accounts/accounts.router.js';
import { assetsModule } from './assets/assets.router.js';
import { audiencesModule } from './audiences/audiences.router.js';
import { messagesModule } from './messages/messages.router.js';
import { pagesModule } from './pages/pages.router.js';
import { personLogsModule } from './person-logs/person-logs.router.js';
import { personsModule } from './persons/persons.router.js';
import { sessionsModule } from './sessions/sessions.router.js';
import { topicsModule } from './topics/topics.router.js';
import type { ApiModule } from './types.js';
import { webhooksModule } from './webhooks/webhooks.router.js';

/** Every module of the API. Adding one is one line here plus its tables in `db/schema/index.ts`. */
export const modules: readonly ApiModule[] = [
  pagesModule,
  audiencesModule,
  messagesModule,
  webhooksModule,
  accountsModule,
  personsModule,
  personLogsModule,
  assetsModule,
  topicsModule,
  sessionsModule,
];
