// Node (bundled), Bun and Deno entry of the runtime check:
// `<runtime> cli.mjs <baseUrl> <apiKey> <refusedUrl>` prints the subset's result as one JSON line.
import { runSubset } from './subset.mjs';

const [baseUrl, apiKey, refusedUrl] = process.argv.slice(2);
runSubset({ baseUrl, apiKey, refusedUrl }).then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
