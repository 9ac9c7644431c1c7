import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { StatsResponse } from '../../core/schemas/index.ts';
import { collectionStats } from '../../core/use-cases/collection.ts';
import { listedOutput } from './tool-arguments.ts';
import { READ_ONLY, type ToolDeps } from './tool-deps.ts';
import { runTool, toolResult } from './tool-result.ts';

const OUTPUT = listedOutput(z.object(StatsResponse.shape));

const DESCRIPTION =
  'Figures of the Fundus collection: number of documents and of main domains, the time of the last document change, ' +
  'and the API and document schema versions. Use it to see how large and how fresh the index is.';

function renderStats(stats: StatsResponse): string {
  return [
    `The index holds ${stats.documents} documents from ${stats.sources} main domains.`,
    `Last document change: ${stats.last_document_change ?? 'none yet'}.`,
    `API version ${stats.api_version}, document schema version ${stats.document_schema_version}.`,
  ].join('\n');
}

export function registerIndexStatsTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'index_stats',
    { title: 'Collection figures', description: DESCRIPTION, outputSchema: OUTPUT, annotations: READ_ONLY },
    () =>
      runTool({ name: 'index_stats', log: deps.log }, async () => {
        const stats = await collectionStats(deps.index);
        return toolResult(stats, renderStats(stats));
      }),
  );
}
