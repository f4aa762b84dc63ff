import fc from 'fast-check';

/** A JSON Schema node, as `z.toJSONSchema` writes the contract's schemas. */
export interface Node {
  $ref?: string;
  type?: string | string[];
  anyOf?: Node[];
  enum?: unknown[];
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: boolean | Node;
  items?: Node;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  $defs?: Record<string, Node>;
}

/** Strings that have broken parsers, databases and logs before. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202egnp.exe',
  '\ufeff',
  'ｆｕｌｌｗｉｄｔｈ',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǫ̗',
  '🦄🏳️‍🌈👨‍👩‍👧‍👦',
  "' OR 1=1 --",
  '"; DROP TABLE pages; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00%ff%fe',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell probe, sent literally
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\r\nx-injected: 1',
  'null',
  'true',
  '-1',
  '1e400',
  'NaN',
  '__proto__',
  'constructor',
];

const NASTY_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  -1.5,
  2 ** 31,
  2 ** 32 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  1e308,
  -1e308,
  5e-324,
];

function deepNesting(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i += 1) value = i % 2 ? { a: value } : [value];
  return value;
}

/** Any JSON value of a type the schema may not expect, including nasty strings and numbers. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }, deepNesting(2000)),
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(...NASTY_NUMBERS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Values at and just past the node's own limits (lengths, ranges, patterns, enums). */
export function boundaryValues(node: Node): unknown[] {
  const out: unknown[] = [];
  if (node.maxLength !== undefined) {
    out.push('x'.repeat(node.maxLength), 'x'.repeat(node.maxLength + 1), '🦄'.repeat(node.maxLength));
    out.push('é'.repeat(node.maxLength), 'x'.repeat(Math.min(node.maxLength * 10, 200_000)));
  } else if (node.type === 'string') {
    out.push('x'.repeat(100_000), '€'.repeat(200_000));
  }
  if (node.minLength !== undefined && node.minLength > 0) out.push('x'.repeat(node.minLength - 1));
  if (node.minimum !== undefined) out.push(node.minimum, node.minimum - 1, node.minimum - 0.5);
  if (node.maximum !== undefined)
    out.push(node.maximum, node.maximum + 1, node.maximum + 2, node.maximum * 10);
  if (node.pattern) out.push('UPPER-Case', 'a--b', '-a', 'a-', 'a b', 'ａ', 'a_b', 'account_SHORT');
  if (node.enum) out.push(`${String(node.enum[0])} `, String(node.enum[0]).toUpperCase(), 'unknown');
  if (node.format === 'uri') out.push('not a url', 'javascript:alert(1)', 'http://[::1', 'ftp://x');
  if (node.format === 'date-time')
    out.push('2024-02-30T00:00:00Z', '2024-01-01', 'yesterday', '2024-01-01T00:00:00+01:00');
  if (node.format === 'email') out.push('a@b', '@example.com', 'a@@example.com', `${'a'.repeat(320)}@x.io`);
  if (node.maxItems !== undefined) out.push(Array.from({ length: node.maxItems + 1 }, () => 'x'));
  return out;
}
