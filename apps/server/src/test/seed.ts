import type {
  Audience,
  AudienceVersion,
  CreateAudienceBody,
  CreatePageBody,
  Page,
} from '@customer-api/contract';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/port.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { createApiKey, ensureTenant, type Scope } from '../tenants/tenants.service.js';

/** A tenant made for one test, with a read+write key. */
export interface TestTenant {
  tenantId: string;
  apiKey: string;
  /** Headers authenticating as this tenant (read+write key unless another key is given). */
  auth(apiKey?: string): Record<string, string>;
  /** Creates another key of this tenant. */
  key(scopes: Scope[], options?: { multiTenant?: boolean }): Promise<string>;
}

let tenantCounter = 0;

/** Creates data through the real routes (or services for tenants and keys). */
export function createSeeder(app: FastifyInstance, db: Db) {
  const deps = { db, clock: systemClock, ids: newId };
  const call = async <T>(tenant: TestTenant, method: 'POST', url: string, payload: unknown): Promise<T> => {
    const res = await app.inject({ method, url, payload: payload as object, headers: tenant.auth() });
    if (res.statusCode >= 300) throw new Error(`seed ${method} ${url} failed: ${res.statusCode} ${res.body}`);
    return res.json() as T;
  };
  return {
    /** A new tenant with a read+write key. */
    async tenant(name = `tenant-${process.pid}-${Date.now()}-${tenantCounter++}`): Promise<TestTenant> {
      const { tenantId } = await ensureTenant(deps, name);
      const { apiKey } = await createApiKey(deps, { tenantId, scopes: ['read', 'write'] });
      const tenant: TestTenant = {
        tenantId,
        apiKey,
        auth: (key = apiKey) => ({ 'x-api-key': key }),
        key: async (scopes, options) =>
          (await createApiKey(deps, { tenantId, scopes, multiTenant: options?.multiTenant ?? false })).apiKey,
      };
      return tenant;
    },
    /** A draft page of the tenant. */
    page: (tenant: TestTenant, body: Partial<CreatePageBody> = {}) =>
      call<Page>(tenant, 'POST', '/v0/pages', {
        name: 'Landing',
        title: 'Welcome',
        pageContext: 'Context of the page',
        brandId: 'brand_1',
        pageType: 'inbound',
        ...body,
      }),
    /** An audience under a page. */
    audience: (tenant: TestTenant, pageId: string, body: CreateAudienceBody = {}) =>
      call<Audience>(tenant, 'POST', `/v0/pages/${pageId}/audiences`, body),
    /** A draft version of an audience. */
    version: (
      tenant: TestTenant,
      pageId: string,
      audienceId: string,
      body: { supplementaryContext?: string } = {},
    ) => call<AudienceVersion>(tenant, 'POST', `/v0/pages/${pageId}/audiences/${audienceId}/versions`, body),
  };
}

/** The seeding helpers of a test app. */
export type Seeder = ReturnType<typeof createSeeder>;
