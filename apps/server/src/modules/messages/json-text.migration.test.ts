import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../db/migrate.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();
const MIGRATION = join(MIGRATIONS_FOLDER, '0012_message_json_text.sql');

describe('the migration keeping tool calls and content parts as JSON text', () => {
  it('keeps every stored value, which reads then send', async () => {
    // The columns as they were before it: jsonb.
    for (const column of ['tool_calls', 'content_parts'])
      await query(
        t.database.db,
        `ALTER TABLE messages ALTER COLUMN ${column} SET DATA TYPE jsonb USING ${column}::jsonb`,
      );
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const posted = {
      role: 'assistant',
      content: 'c',
      toolCalls: [
        { id: 'a', name: 'n', status: 'complete', arguments: { q: 'é "x" 🙂', n: [1, null] }, result: 'r' },
      ],
      contentParts: [{ type: 'text', text: 'part' }],
    };
    const write = await t.app.inject({ method: 'POST', url: path, headers: t.auth(), payload: posted });
    expect(write.statusCode, write.body).toBe(201);
    // No read before it: a server reads only after its migrations (a statement prepared on the old
    // column types would fail after them).

    for (const statement of (await readFile(MIGRATION, 'utf8')).split('--> statement-breakpoint'))
      await query(t.database.db, statement);

    const after = await t.app.inject({ url: path, headers: t.auth() });
    expect(after.statusCode).toBe(200);
    expect(after.json().messages[0]).toMatchObject({
      toolCalls: posted.toolCalls,
      contentParts: posted.contentParts,
    });
    const types = await query<{ data_type: string }>(
      t.database.db,
      `SELECT data_type FROM information_schema.columns
        WHERE table_name = 'messages' AND column_name IN ('tool_calls', 'content_parts')`,
    );
    expect(types.map((r) => r.data_type)).toEqual(['json', 'json']);
  });
});
