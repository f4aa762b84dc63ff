import type { Handle } from '../db/port.js';
import type { TableFacts } from './distribution.js';
import { query } from './sql.js';

const CATALOG = `
  SELECT CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS name,
    (SELECT json_agg(json_build_object('name', a.attname, 'notNull', a.attnotnull) ORDER BY a.attnum)
       FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
    (SELECT json_agg(json_build_object('name', k.conname, 'type', k.contype,
         'columns', (SELECT json_agg(a.attname ORDER BY o.i) FROM unnest(k.conkey) WITH ORDINALITY o(n, i)
                       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = o.n),
         'references', CASE WHEN k.contype = 'f' THEN k.confrelid::regclass::text END,
         'referencedColumns', (SELECT json_agg(a.attname ORDER BY o.i) FROM unnest(k.confkey) WITH ORDINALITY o(n, i)
                       JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = o.n)) ORDER BY k.conname)
       FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u', 'f')) AS constraints,
    (SELECT json_agg(json_build_object('name', ic.relname,
         'columns', (SELECT json_agg(pg_get_indexdef(x.indexrelid, k, true) ORDER BY k)
                       FROM generate_series(1, x.indnkeyatts) k)) ORDER BY ic.relname)
       FROM pg_index x JOIN pg_class ic ON ic.oid = x.indexrelid
       WHERE x.indrelid = c.oid AND x.indisunique
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)) AS indexes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname NOT IN ('citus', 'citus_internal', 'columnar', 'columnar_internal')
  ORDER BY 1`;

interface CatalogRow {
  name: string;
  columns: TableFacts['columns'];
  constraints:
    | {
        name: string;
        type: 'p' | 'u' | 'f';
        columns: string[];
        references: string | null;
        referencedColumns: string[] | null;
      }[]
    | null;
  indexes: { name: string; columns: string[] }[] | null;
}

/** Every table of the migrated database as the catalog reports it. */
export async function readSchema(db: Handle): Promise<TableFacts[]> {
  const rows = await query<CatalogRow>(db, CATALOG);
  return rows.map((row) => {
    const constraints = row.constraints ?? [];
    const primary = constraints.find((k) => k.type === 'p');
    return {
      name: row.name,
      columns: row.columns,
      primaryKey: primary && { name: primary.name, columns: primary.columns },
      uniques: [
        ...constraints.filter((k) => k.type === 'u').map(({ name, columns }) => ({ name, columns })),
        ...(row.indexes ?? []),
      ],
      foreignKeys: constraints
        .filter((k) => k.type === 'f')
        .map((k) => ({
          name: k.name,
          columns: k.columns,
          references: (k.references ?? '').replace(/^public\./, ''),
          referencedColumns: k.referencedColumns ?? [],
        })),
    };
  });
}
