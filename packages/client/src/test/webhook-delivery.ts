import { randomBytes } from 'node:crypto';

/** A fresh signing secret in the `whsec_` form the server hands out. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The verifying receiver's clock: one second after {@link DELIVERY} was signed. */
export const NOW = Date.UTC(2026, 0, 31, 12, 0, 0);

/** A `page.version.created` delivery as the server sends it. */
export const DELIVERY = {
  timestamp: '2026-01-31T11:59:59.000Z',
  eventId: 'evt_01jd4x3k5n8q2r6t9v0w1y2z3a',
  payload: {
    type: 'page.version.created',
    pageId: 'page_1',
    audienceId: 'audience_1',
    versionId: 'version_1',
    status: 'draft',
    createdAt: '2026-01-31T11:59:59.000Z',
  },
};

/** {@link DELIVERY}'s body as sent. */
export const BODY = JSON.stringify(DELIVERY);
