import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { type ApiFixture, startApiServer } from './api-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    api: ApiFixture;
  }
}

/** Starts one real API server for the whole run; each test file works in data it creates. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { fixture, stop } = await startApiServer();
  project.provide('api', fixture);
  return stop;
}
