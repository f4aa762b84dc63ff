import { DISTRIBUTION_COLUMN, type Placement } from './distribution.js';

/**
 * How Citus would run a statement: on one shard (every distributed table it touches is pinned to
 * the same tenant parameter), on many (a multi-shard query: fanned out to every shard), or without
 * touching a distributed table (reference, local or no tables).
 */
export type StatementRoute = 'single-shard' | 'multi-shard' | 'no-distributed-table';

/** What {@link classifyStatement} found in a statement's text. */
export interface StatementClass {
  route: StatementRoute;
  /** The planned tables the statement reads or writes, sorted. */
  tables: string[];
  /** Why the statement is multi-shard (empty otherwise), sorted. */
  reasons: string[];
  /** Takes effect on the node that runs it only (advisory locks, NOTIFY): needs the coordinator. */
  nodeLocal: boolean;
}

/** A FROM/JOIN/UPDATE/INTO item: a planned table, or anything else (a CTE, a function, a subquery). */
interface Source {
  table: string | undefined;
  alias: string;
  group: number;
  position: number;
  insertTarget: boolean;
}

const NOT_ALIASES = new Set(
  'as on where set join left right inner outer full cross natural lateral using order group limit offset having window returning for values select default union except intersect with skip of nowait do'.split(
    ' ',
  ),
);
const NAME = '[a-z_][a-z0-9_]*';

/** Lower case, without comments and string contents, identifiers unquoted. */
function normalize(text: string): string {
  return text
    .replace(/--[^\n]*/g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"([A-Za-z_][A-Za-z0-9_]*)"/g, '$1')
    .toLowerCase();
}

/** For each position, the index of the innermost open parenthesis around it (-1: none). */
function parenGroups(text: string): { at: Int32Array; parent: Map<number, number> } {
  const at = new Int32Array(text.length);
  const parent = new Map<number, number>();
  const stack = [-1];
  for (let i = 0; i < text.length; i++) {
    const top = stack[stack.length - 1] ?? -1;
    if (text[i] === '(') {
      parent.set(i, top);
      stack.push(i);
      at[i] = i;
    } else {
      at[i] = top;
      if (text[i] === ')' && stack.length > 1) stack.pop();
    }
  }
  return { at, parent };
}

function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** Splits at the commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

function aliasAt(text: string, from: number): string | undefined {
  const match = new RegExp(`^\\s+(?:as\\s+)?(${NAME})`).exec(text.slice(from));
  const alias = match?.[1];
  return alias && !NOT_ALIASES.has(alias) ? alias : undefined;
}

function findSources(text: string, at: Int32Array, plan: Readonly<Record<string, Placement>>): Source[] {
  const ctes = new Set(
    [...text.matchAll(new RegExp(`\\b(${NAME})\\s+as\\s+(?:not\\s+)?(?:materialized\\s+)?\\(`, 'g'))].map(
      (m) => m[1],
    ),
  );
  const sources: Source[] = [];
  const pattern = new RegExp(
    `\\b(from|join|update|into|table|analyze|vacuum)\\s+(?:only\\s+|lateral\\s+)?(${NAME}(?:\\.${NAME})?|\\()`,
    'g',
  );
  for (const match of text.matchAll(pattern)) {
    const [whole, keyword, target] = match as unknown as [string, string, string];
    const position = match.index;
    const end = position + whole.length;
    if (NOT_ALIASES.has(target)) continue;
    const name = target.replace(/^public\./, '');
    const call =
      target === '(' || text[end] === '(' || (/^\s+\(/.test(text.slice(end)) && keyword !== 'into');
    const afterCall =
      target === '('
        ? closingParen(text, end - 1) + 1
        : call
          ? closingParen(text, text.indexOf('(', end)) + 1
          : end;
    const table = !call && !ctes.has(name) && name in plan ? name : undefined;
    const alias = aliasAt(text, afterCall) ?? name;
    sources.push({ table, alias, group: at[position] ?? -1, position, insertTarget: keyword === 'into' });
  }
  return sources;
}

/** The statement's sources and how to find which one a column reference means. */
class Scope {
  readonly sources: Source[];
  private readonly at: Int32Array;
  private readonly parent: Map<number, number>;

  constructor(
    private readonly text: string,
    plan: Readonly<Record<string, Placement>>,
  ) {
    const groups = parenGroups(text);
    this.at = groups.at;
    this.parent = groups.parent;
    this.sources = findSources(text, groups.at, plan);
  }

  /** The groups a column at `position` can see, innermost first. */
  private *visible(position: number): Generator<number> {
    let group = this.at[position] ?? -1;
    for (;;) {
      yield group;
      if (group === -1) return;
      group = this.parent.get(group) ?? -1;
    }
  }

  /** Whether `position` is inside `NOT (…)`: a predicate there excludes rows, it does not select them. */
  negated(position: number): boolean {
    const group = this.at[position] ?? -1;
    return group >= 0 && /\bnot\s*$/.test(this.text.slice(0, group));
  }

  /**
   * The sources `qualifier.tenant_id` (or an unqualified `tenant_id`: every source of the
   * innermost query with any) at `position` means; insert targets are named by column lists only.
   */
  resolve(qualifier: string | undefined, position: number): Source[] {
    for (const group of this.visible(position)) {
      const here = this.sources.filter((s) => s.group === group && !s.insertTarget);
      const found = qualifier === undefined ? here : here.filter((s) => s.alias === qualifier);
      if (found.length > 0) return found;
    }
    return [];
  }
}

/** Sets of sources and tenant parameters known to share one `tenant_id` value. */
class Pins {
  private readonly parent = new Map<unknown, unknown>();

  private root(node: unknown): unknown {
    let current = node;
    for (let next = this.parent.get(current); next !== undefined; next = this.parent.get(current))
      current = next;
    return current;
  }

  join(a: unknown, b: unknown): void {
    const [ra, rb] = [this.root(a), this.root(b)];
    if (ra !== rb) this.parent.set(ra, rb);
  }

  /** The tenant parameters (`$n`) `source` is pinned to. */
  params(source: Source, all: readonly string[]): string[] {
    return all.filter((param) => this.root(param) === this.root(source));
  }
}

const TENANT = DISTRIBUTION_COLUMN;
const QUALIFIED = `(?:\\b(${NAME})\\.)?\\b${TENANT}\\b`;
const PARAM = '(\\$\\d+)(?:::[a-z_][a-z0-9_]*)?';

function pinPredicates(text: string, scope: Scope, pins: Pins, params: Set<string>): void {
  const left = new RegExp(`${QUALIFIED}\\s*=\\s*${PARAM}`, 'g');
  for (const m of text.matchAll(left)) {
    if (scope.negated(m.index)) continue;
    params.add(m[2] as string);
    for (const s of scope.resolve(m[1], m.index)) pins.join(s, m[2]);
  }
  const right = new RegExp(`${PARAM}\\s*=\\s*${QUALIFIED}`, 'g');
  for (const m of text.matchAll(right)) {
    if (scope.negated(m.index)) continue;
    params.add(m[1] as string);
    for (const s of scope.resolve(m[2], m.index)) pins.join(s, m[1]);
  }
  const equal = new RegExp(`${QUALIFIED}\\s*=\\s*${QUALIFIED}`, 'g');
  for (const m of text.matchAll(equal)) {
    const [a] = scope.resolve(m[1], m.index);
    const [b] = scope.resolve(m[2], m.index);
    if (a && b) pins.join(a, b);
  }
}

/** Pins an INSERT's target through the value its `tenant_id` column takes (a parameter or a column). */
function pinInsert(text: string, target: Source, scope: Scope, pins: Pins, params: Set<string>): void {
  const open = text.indexOf('(', target.position);
  const close = closingParen(text, open);
  const index = splitTopLevel(text.slice(open + 1, close)).indexOf(TENANT);
  if (index < 0) return;
  const rest = text.slice(close + 1);
  const values = /^\s*values\s*\(/.exec(rest);
  const select = /^\s*select\s+(?:distinct\s+)?/.exec(rest);
  let expression: string | undefined;
  if (values) {
    const start = close + 1 + values[0].length - 1;
    expression = splitTopLevel(text.slice(start + 1, closingParen(text, start)))[index];
  } else if (select) {
    const body = rest.slice(select[0].length);
    const fromAt = /\bfrom\b/.exec(body)?.index ?? body.length;
    expression = splitTopLevel(body.slice(0, fromAt))[index];
  }
  const param = expression && new RegExp(`^${PARAM}$`).exec(expression);
  if (param) {
    params.add(param[1] as string);
    pins.join(target, param[1]);
    return;
  }
  const column = expression && new RegExp(`^${QUALIFIED}$`).exec(expression);
  if (column)
    for (const s of scope.resolve(column[1], close + 1 + (select?.[0].length ?? 0))) pins.join(target, s);
}

/**
 * Reads a statement's SQL the way Citus's router would decide on it: single-shard when every
 * reference to a distributed table is pinned, directly (`tenant_id = $n`, an INSERT's `tenant_id`
 * value) or through `a.tenant_id = b.tenant_id` with a pinned one, to the same parameter. It reads
 * the text, not a plan: a `tenant_id = $n` under OR counts as a filter.
 */
export function classifyStatement(
  sqlText: string,
  plan: Readonly<Record<string, Placement>>,
): StatementClass {
  const text = normalize(sqlText);
  const scope = new Scope(text, plan);
  const pins = new Pins();
  const params = new Set<string>();
  pinPredicates(text, scope, pins, params);
  for (const target of scope.sources.filter((s) => s.insertTarget && s.table)) {
    pinInsert(text, target, scope, pins, params);
  }
  const tables = [...new Set(scope.sources.flatMap((s) => (s.table ? [s.table] : [])))].sort();
  const distributed = scope.sources.filter((s) => s.table && plan[s.table] === 'distributed');
  const nodeLocal = /\bpg_(?:try_)?advisory_|\bpg_notify\b|\b(?:listen|notify)\s/.test(text);
  if (distributed.length === 0) return { route: 'no-distributed-table', tables, reasons: [], nodeLocal };
  const reasons = new Set<string>();
  const used = new Set<string>();
  for (const source of distributed) {
    const pinned = pins.params(source, [...params]);
    if (pinned.length === 0) reasons.add(`${source.table} not filtered by ${TENANT} = $n`);
    for (const param of pinned) used.add(param);
  }
  if (used.size > 1)
    reasons.add(`filtered by more than one tenant parameter (${[...used].sort().join(', ')})`);
  return {
    route: reasons.size > 0 ? 'multi-shard' : 'single-shard',
    tables,
    reasons: [...reasons].sort(),
    nodeLocal,
  };
}
