import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are secrets when someone sends one in a URL by mistake. */
const SECRET_PARAM = /key|token|secret|signature|password|passwd|auth|credential/i;

/**
 * The URL with the values of secret-looking query parameters replaced by `[redacted]`
 * (`?api_key=…` sent by mistake, signed download links): logs keep the shape of the request,
 * never a credential.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // an undecodable name is checked as sent
      }
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

/** Fastify's request log fields, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
