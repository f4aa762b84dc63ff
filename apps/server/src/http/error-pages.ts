import { ERROR_CATALOG, type ErrorCode, ErrorCodeSchema } from '@customer-api/contract';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../lib/errors.js';

/** What the page of one error code says, as JSON (`Accept: application/json`). */
export interface ErrorPage {
  type: string;
  code: ErrorCode;
  status: number;
  title: string;
  meaning: string;
  action: string;
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'";
const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');

function html(page: ErrorPage): string {
  const others = ErrorCodeSchema.options
    .map((code) => `<a href="${code.toLowerCase()}">${code}</a>`)
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${page.code}: ${page.status} ${page.title}, Customer API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f2f2f2;padding:0 .2em}footer{margin-top:2rem;font-size:.9em;color:#555}</style>
</head><body>
<h1>${page.code}</h1>
<p><strong>HTTP ${page.status} ${page.title}.</strong> ${escapeHtml(page.meaning)}</p>
<h2>What to do</h2>
<p>${escapeHtml(page.action)}</p>
<p>Every error response is a JSON object with this page's address as <code>type</code>, the code, a <code>detail</code> for this occurrence and the <code>requestId</code> to quote when reporting it.</p>
<footer>Other codes: ${others}. The <a href="../docs">API reference</a>.</footer>
</body></html>
`;
}

/** The quality `accept` gives a media type: its most specific matching range (exact, type, any). */
function quality(accept: string, media: string): number {
  const [type] = media.split('/');
  let best = { specificity: -1, q: 0 };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const specificity = range === media ? 2 : range === `${type}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best.q;
}

/** True when the client would rather have JSON than HTML (a tie, or no `Accept`, is HTML). */
export const prefersJson = (accept: string | undefined): boolean =>
  accept !== undefined && quality(accept, 'application/json') > quality(accept, 'text/html');

/**
 * `GET /errors/{code}`: the page each error object's `type` URI names (RFC 9457), made from the
 * contract's one error catalogue. HTML for people; JSON when the client asks for it.
 */
export function registerErrorPages(app: FastifyInstance, baseUrl: string): void {
  app.get<{ Params: { code: string } }>('/errors/:code', async (request, reply) => {
    const parsed = ErrorCodeSchema.safeParse(request.params.code.toUpperCase());
    if (!parsed.success || parsed.data.toLowerCase() !== request.params.code) {
      throw new NotFoundError(
        `No page for that error code; the codes are ${ErrorCodeSchema.options.map((c) => c.toLowerCase()).join(', ')}.`,
      );
    }
    const code = parsed.data;
    const page: ErrorPage = { type: `${baseUrl}/errors/${code.toLowerCase()}`, code, ...ERROR_CATALOG[code] };
    reply.header('cache-control', 'public, max-age=3600').header('vary', 'accept');
    if (prefersJson(request.headers.accept)) return page;
    return reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(html(page));
  });
}
