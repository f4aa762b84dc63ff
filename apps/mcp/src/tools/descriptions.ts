/** HTTP wording of the contract's texts, and what a model calling a tool reads instead. */
const REWORDINGS: readonly [RegExp, string][] = [
  [
    /200 returns the earlier entry, 409 means the key was used with a different body\./,
    'a repeated call returns the earlier entry; the same key with other arguments is a CONFLICT error.',
  ],
  [/ ?Send an empty object\./g, ''],
  [/Pass back as the cursor query parameter for the next page/g, 'Pass as cursor to get the next page'],
  [/\b409 CONFLICT\b/g, 'a CONFLICT error'],
  [/\b404 NOT_FOUND\b/g, 'a NOT_FOUND error'],
  [/\b409\b/g, 'CONFLICT'],
  [/\b404\b/g, 'NOT_FOUND'],
  [/\b400\b/g, 'VALIDATION_ERROR'],
];

/** A contract text as a tool's user reads it: error codes, not HTTP statuses or request parts. */
export function reword(text: string): string {
  return REWORDINGS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

/** Rewrites every `description` of a JSON Schema with `rewrite` (default {@link reword}). */
export function rewordSchema<T>(node: T, rewrite: (text: string) => string = reword): T {
  if (Array.isArray(node)) return node.map((child) => rewordSchema(child, rewrite)) as T;
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => [
      key,
      key === 'description' && typeof child === 'string' ? rewrite(child) : rewordSchema(child, rewrite),
    ]),
  ) as T;
}
