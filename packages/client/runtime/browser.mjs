// Browser entry of the runtime check: bundled into a page, it hands the subset to the test, which
// calls `runSubset` in the page with the server's address and key.
import { runSubset } from './subset.mjs';

globalThis.runSubset = runSubset;
