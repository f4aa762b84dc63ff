// workerd entry of the runtime check: `workerd test` calls `test`, which prints the subset's result
// as one JSON line; the bindings name the server.
import { runSubset } from './subset.mjs';

export default {
  async test(_controller, env) {
    const result = await runSubset({
      baseUrl: env.BASE_URL,
      apiKey: env.API_KEY,
      refusedUrl: env.REFUSED_URL,
    });
    console.log(`RESULT ${JSON.stringify(result)}`);
  },
};
