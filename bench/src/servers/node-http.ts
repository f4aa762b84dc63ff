// (b) The limit: plain node:http answering with pre-serialised bytes (BODY_FILE), no database.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { env, onTerm } from './common.js';

const { port } = env();
const body = readFileSync(process.env.BODY_FILE ?? '');
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
const server = createServer((req, res) => {
  if (req.url === '/healthz') return res.writeHead(200).end('{"status":"ok"}');
  res.writeHead(200, headers).end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1');
onTerm(() => new Promise((resolve) => server.close(() => resolve(undefined))));
