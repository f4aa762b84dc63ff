import { domainToASCII, domainToUnicode } from 'node:url';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_DOMAIN_LENGTH = 253;

/**
 * The canonical form of an account domain, or `null` when the input names no usable domain.
 *
 * Accounts are keyed by this form, so `https://WWW.Example.com:8443/about`, `example.com.` and
 * `user@example.com` all resolve to the same account `example.com`. Steps: trim, drop the scheme,
 * path, query, fragment, user info and port, convert internationalised names to their ASCII
 * (punycode) form, drop one trailing dot and a leading `www.` (unless that would leave a bare
 * top-level domain, as in `www.com`). The result must be at least two valid DNS labels with a
 * non-numeric top-level label (IP addresses and `localhost` are not company domains).
 */
export function canonicalDomain(input: string): string | null {
  let host = input.trim().replace(SCHEME, '').replace(/^\/\//, '');
  host = host.split(/[/?#\\]/, 1)[0] ?? '';
  host = host.slice(host.lastIndexOf('@') + 1);
  host = host.replace(/:\d*$/, '');
  if (host === '' || /\s/.test(host)) return null;
  host = domainToASCII(host);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('www.') && host.split('.').length > 2) host = host.slice(4);
  return isValidHostName(host) ? host : null;
}

/** The canonical domain of an email address (its part after the last `@`), or `null`. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at < 0 ? null : canonicalDomain(email.slice(at + 1));
}

function isValidHostName(host: string): boolean {
  if (host.length === 0 || host.length > MAX_DOMAIN_LENGTH) return false;
  const labels = host.split('.');
  const tld = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || /^[0-9]+$/.test(tld)) return false;
  return labels.every((label) => LABEL.test(label) && (!label.startsWith('xn--') || isPunycode(label)));
}

/**
 * True when an `xn--` label decodes. Node 20's URL parser already rejects bad punycode, Node 24's
 * passes it through unchanged, so the label is checked by decoding it.
 */
function isPunycode(label: string): boolean {
  const decoded = domainToUnicode(label);
  return decoded !== '' && !decoded.startsWith('xn--');
}
