import { describe, expect, it } from 'vitest';
import { deriveTools } from './derive.js';
import { isSummaryField, summaryFields } from './summary.js';

const tool = (name: string) => {
  const found = deriveTools().find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });

describe('isSummaryField', () => {
  it('keeps ids, names, statuses, flags, counts, timestamps and lists of plain values', () => {
    expect(isSummaryField('pageId', { type: 'string' })).toBe(true);
    expect(isSummaryField('name', nullable({ type: 'string' }))).toBe(true);
    expect(isSummaryField('status', { type: 'string', enum: ['draft', 'live'] })).toBe(true);
    expect(isSummaryField('hidden', { type: 'boolean' })).toBe(true);
    expect(isSummaryField('audiencesCount', { type: 'integer' })).toBe(true);
    expect(isSummaryField('archivedAt', nullable({ type: 'string', format: 'date-time' }))).toBe(true);
    expect(isSummaryField('tags', { type: 'array', items: { type: 'string' } })).toBe(true);
  });

  it('leaves out nested objects, lists of objects and free text', () => {
    expect(isSummaryField('metadata', { type: 'object' })).toBe(false);
    expect(isSummaryField('latestVersion', nullable({ type: 'object' }))).toBe(false);
    expect(isSummaryField('actions', { type: 'array', items: { type: 'object' } })).toBe(false);
    expect(isSummaryField('pageContext', { type: 'string' })).toBe(false);
    expect(isSummaryField('supplementaryContext', nullable({ type: 'string' }))).toBe(false);
    expect(isSummaryField('actionFormInstructionsOverride', nullable({ type: 'string' }))).toBe(false);
    expect(isSummaryField('content', { type: 'string' })).toBe(false);
    expect(isSummaryField('aiDescription', { type: 'string' })).toBe(false);
    // A word inside a name, not a part of one: `contextual` is no context.
    expect(isSummaryField('contextualName', { type: 'string' })).toBe(true);
  });

  it('picks the summary of an item schema in schema order', () => {
    const item = {
      type: 'object',
      properties: {
        pageId: { type: 'string' },
        pageContext: { type: 'string' },
        metadata: { type: 'object' },
        createdAt: { type: 'string', format: 'date-time' },
      },
    };
    expect(summaryFields(item)).toEqual(['pageId', 'createdAt']);
  });
});

describe('list tools', () => {
  it('return summaries of pages and audiences, naming the tool that reads one in full', () => {
    const pages = tool('list_pages').fields;
    expect(pages?.summary).toEqual(expect.arrayContaining(['pageId', 'name', 'status', 'audiencesCount']));
    expect(pages?.summary).not.toContain('pageContext');
    expect(pages?.summary).not.toContain('actions');
    expect(pages?.detail).toBe('get_page');
    expect(tool('list_audiences').fields?.summary).not.toContain('supplementaryContext');
    expect(tool('list_account_activity').fields?.summary).not.toContain('payload');
    expect(tool('list_topics').fields?.summary).not.toContain('entries');
  });

  it('return every field where every field is short, and say the default in the fields argument', () => {
    expect(tool('list_accounts').fields?.summary).toBeUndefined();
    const fieldsText = (name: string) =>
      (tool(name).inputSchema.properties as Record<string, { description: string }>).fields?.description;
    expect(fieldsText('list_accounts')).toContain('(default: all)');
    expect(fieldsText('list_pages')).toContain('Default: the summary (pageId, name, title,');
    expect(fieldsText('list_pages')).toContain('call get_page for one item in full');
  });

  it('advertise item schemas that a summary item satisfies (no required list at the item level)', () => {
    for (const t of deriveTools().filter((t) => t.fields?.summary)) {
      const items = (t.outputSchema.properties as Record<string, { items: Record<string, unknown> }>).items;
      expect(items?.items.required, t.name).toBeUndefined();
    }
  });
});
