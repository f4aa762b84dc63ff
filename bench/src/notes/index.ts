// The prose beside each table of docs/benchmarks.md, generated from a run's results so that every
// figure it prints is that run's. Past runs and their reasoning live in docs/benchmarks-history.md.
import { citusNote } from './citus.js';
import type { NotesInput } from './input.js';
import { isolationNote } from './isolation.js';
import { assetContentNote, mcpNote, memoryNote, replicasNote } from './others.js';
import { ingestionNote, introNote, overheadNote, scaleNote } from './reads.js';
import { webhookPeersNote } from './webhook-peers.js';
import { webhooksNote } from './webhooks.js';

export type { NotesInput } from './input.js';

/** The notes of the report, one Markdown string per section. */
export interface Notes {
  intro: string;
  overhead: string;
  scale: string;
  ingestion: string;
  webhooks: string;
  webhookPeers: string;
  mcp: string;
  isolation: string;
  assetContent: string;
  memory: string;
  citus: string;
  replicas: string;
}

/** Renders every note from a run's results (docs/benchmarks.json). */
export function renderNotes(results: NotesInput): Notes {
  return {
    intro: introNote(results),
    overhead: overheadNote(results),
    scale: scaleNote(results),
    ingestion: ingestionNote(results),
    webhooks: webhooksNote(results),
    webhookPeers: webhookPeersNote(results),
    mcp: mcpNote(results),
    isolation: isolationNote(results),
    assetContent: assetContentNote(results),
    memory: memoryNote(results),
    citus: citusNote(results),
    replicas: replicasNote(results),
  };
}
