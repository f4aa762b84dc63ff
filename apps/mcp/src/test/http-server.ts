import { afterAll, beforeAll, inject } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../transports/http.js';

/**
 * An MCP server over Streamable HTTP on a free loopback port, in front of the test API, for the
 * tests of the file or `describe` block that calls this: started before them, closed after.
 */
export function useHttpServer(): { readonly url: string } {
  let http: RunningHttpServer | undefined;
  beforeAll(async () => {
    http = await startHttpServer({ baseUrl: inject('api').baseUrl, port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await http?.close();
  });
  return {
    get url() {
      if (!http) throw new Error('the MCP HTTP server is started before the tests');
      return http.url;
    },
  };
}
