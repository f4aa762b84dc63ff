import { describe, expect, it } from 'vitest';
import { deriveTools } from './derive.js';
import { DEFAULT_TOOLSET, SelectionError, selectTools, TOOLSETS } from './select.js';

const all = deriveTools();
const names = (selection: Parameters<typeof selectTools>[1]) =>
  selectTools(all, selection).map((t) => t.name);

describe('selectTools', () => {
  it('keeps every tool without switches', () => {
    expect(names({})).toHaveLength(all.length);
  });

  it('keeps only tools that change nothing in read-only mode', () => {
    const readOnly = selectTools(all, { readOnly: true });
    expect(readOnly.length).toBeGreaterThan(10);
    expect(readOnly.every((t) => t.annotations.readOnlyHint === true)).toBe(true);
    expect(readOnly.map((t) => t.name)).not.toContain('create_account_log');
  });

  it('selects by toolset slug of the resource group', () => {
    expect(TOOLSETS).toEqual(
      expect.arrayContaining(['pages', 'audience-messages', 'account-logs', 'webhook-subscriptions']),
    );
    expect(names({ toolsets: ['account-logs'] })).toEqual(['create_account_log', 'delete_account_log']);
    expect(names({ toolsets: ['pages', 'accounts'] })).toEqual(
      expect.arrayContaining(['list_pages', 'delete_page', 'list_accounts', 'get_account']),
    );
  });

  it('offers only toolsets that select a tool', () => {
    for (const slug of TOOLSETS) expect(names({ toolsets: [slug] }).length, slug).toBeGreaterThan(0);
    expect(TOOLSETS).not.toContain('page-links');
    expect(TOOLSETS).not.toContain('topic-entries');
    expect(() => selectTools(all, { toolsets: ['page-links'] })).toThrow(/Unknown toolset page-links/);
  });

  it('intersects the switches: each one only narrows', () => {
    expect(names({ toolsets: ['pages'], readOnly: true })).toEqual(['list_pages', 'get_page']);
    expect(names({ tools: ['list_pages', 'create_page'], readOnly: true })).toEqual(['list_pages']);
    expect(names({ tools: ['list_pages', 'get_account'], toolsets: ['pages'] })).toEqual(['list_pages']);
  });

  it('offers a default toolset of 12 tools, reads and everyday writes, and all', () => {
    expect(names({ toolsets: ['default'] })).toEqual(DEFAULT_TOOLSET);
    expect(DEFAULT_TOOLSET).toEqual([
      'list_pages',
      'get_page',
      'list_audiences',
      'get_audience',
      'get_audience_messages',
      'create_audience_message',
      'list_accounts',
      'get_account',
      'list_account_activity',
      'create_account_log',
      'list_topics',
      'get_topic',
    ]);
    expect(DEFAULT_TOOLSET.every((name) => all.some((tool) => tool.name === name))).toBe(true);
    expect(
      names({ toolsets: ['default'] }).filter((n) => !n.startsWith('list_') && !n.startsWith('get_')),
    ).toEqual(['create_audience_message', 'create_account_log']);
    expect(names({ toolsets: ['all'] })).toHaveLength(all.length);
    expect(names({ toolsets: ['default', 'webhook-subscriptions'] })).toEqual(
      expect.arrayContaining([...DEFAULT_TOOLSET, 'list_webhook_deliveries']),
    );
    expect(names({ toolsets: ['default'], readOnly: true })).not.toContain('create_page');
  });

  it('rejects unknown toolsets and tools, and empty selections', () => {
    expect(() => selectTools(all, { toolsets: ['page'] })).toThrow(SelectionError);
    expect(() => selectTools(all, { toolsets: ['page'] })).toThrow(
      /Unknown toolset page; toolsets: default, all, pages,/,
    );
    expect(() => selectTools(all, { tools: ['listPages'] })).toThrow(/Unknown tool listPages/);
    expect(() => selectTools(all, { tools: ['create_page'], readOnly: true })).toThrow(/leaves no tools/);
  });
});
