import { describe, expect, it } from 'vitest';
import { contract, JSON_OPERATION_NAMES, OPERATION_NAMES, operationMeta } from '../contract.js';
import { operation, requiredScope } from './operations.js';

// The metadata of an operation: the hints derived from its kind and resource, and the facts the
// server, the client, the MCP tools and the OpenAPI document read from it.

describe('operation safety hints', () => {
  it.each([
    ['read', { idempotent: true, destructive: false }],
    ['create', { idempotent: false, destructive: false }],
    ['update', { idempotent: true, destructive: true }],
    ['transition', { idempotent: true, destructive: true }],
    ['restore', { idempotent: true, destructive: true }],
    ['delete', { idempotent: true, destructive: true }],
  ] as const)('derive retry safety and destructiveness of a %s', (kind, hints) => {
    expect(operation('Pages', kind)).toEqual({
      group: 'Pages',
      kind,
      paginated: false,
      undo: false,
      openWorld: false,
      windowed: false,
      defaultTool: false,
      writingRead: false,
      responseNotKept: false,
      ifMatch: false,
      sendsEtag: false,
      ...hints,
    });
  });

  it('derive conditional requests from the resource: If-Match on writes but creates, a tag on answers but deletes', () => {
    expect(operation('Topics', 'read', { resource: 'topic' })).toMatchObject({
      resource: 'topic',
      ifMatch: false,
      sendsEtag: true,
    });
    expect(operation('Topics', 'create', { resource: 'topic' })).toMatchObject({
      ifMatch: false,
      sendsEtag: true,
    });
    expect(operation('Topics', 'update', { resource: 'topic' })).toMatchObject({
      ifMatch: true,
      sendsEtag: true,
    });
    expect(operation('Topics', 'delete', { resource: 'topic' })).toMatchObject({
      ifMatch: true,
      sendsEtag: false,
    });
    expect(
      operation('Topics', 'create', { resource: 'topic', ifMatch: true, sendsEtag: false }),
    ).toMatchObject({
      ifMatch: true,
      sendsEtag: false,
    });
    expect(operation('Assets', 'update', { bytes: 'upload', ifMatch: true, sendsEtag: true })).toMatchObject({
      ifMatch: true,
      sendsEtag: true,
    });
    expect(operation('Assets', 'update', { bytes: 'upload' })).toMatchObject({
      ifMatch: false,
      sendsEtag: false,
    });
  });

  it('count a restore that only undoes an archive or delete as not destructive', () => {
    expect(operation('Pages', 'restore', { undo: true })).toMatchObject({ undo: true, destructive: false });
    expect(() => operation('Pages', 'delete', { undo: true })).toThrow(/Only a restore/);
  });

  it('let an operation override the derived hints and say it is paginated', () => {
    const meta = operation('Accounts', 'create', { idempotent: true, destructive: true, paginated: true });
    expect(meta).toMatchObject({ idempotent: true, destructive: true, paginated: true });
    expect(meta).not.toHaveProperty('deprecated');
    const deprecated = { since: '2027-01-15', sunset: '2027-07-15' };
    expect(operation('Pages', 'read', { deprecated }).deprecated).toEqual(deprecated);
  });
});

describe('operation facts', () => {
  it('keep the first response of every write but publishing a message', () => {
    expect(OPERATION_NAMES.filter((name) => operationMeta(name).responseNotKept)).toEqual([
      'publishAudienceMessage',
    ]);
  });

  it('run every read on a standby but listTopics, which creates the default topic', () => {
    expect(OPERATION_NAMES.filter((name) => operationMeta(name).writingRead)).toEqual(['listTopics']);
  });

  it('carry raw bytes only in the asset uploads (PUT) and the signed downloads (GET)', () => {
    const bytes = OPERATION_NAMES.filter((name) => operationMeta(name).bytes);
    expect(bytes.map((name) => `${operationMeta(name).bytes} ${contract[name].method}`)).toEqual([
      'upload PUT',
      'upload PUT',
      'download GET',
      'download GET',
    ]);
    expect(bytes).toEqual([
      'putAssetContent',
      'putAssetPreview',
      'downloadAssetContent',
      'downloadAssetPreview',
    ]);
    expect(JSON_OPERATION_NAMES).toEqual(OPERATION_NAMES.filter((name) => !bytes.includes(name)));
    expect(
      bytes.filter((name) => operationMeta(name).writingRead || operationMeta(name).responseNotKept),
    ).toEqual([]);
  });

  it('ask the read scope of the safe methods, the write scope of every other', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'POST', 'PATCH', 'PUT', 'DELETE'].map(requiredScope)).toEqual([
      'read',
      'read',
      'read',
      'write',
      'write',
      'write',
      'write',
    ]);
  });
});
