import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { DocumentIndex } from '../../core/index-port.ts';
import type { ToolLog } from './tool-result.ts';

/** What the tools need: the index and the search settings of the gateway, and the request's logger. */
export interface ToolDeps {
  index: DocumentIndex;
  countBudgetMs: number;
  now?: () => Date;
  log: ToolLog;
}

// Every tool only reads the stored collection (spec 1, 4.2): nothing changes, nothing reaches out
// to the web, and the same call gives the same answer while the collection is unchanged.
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
