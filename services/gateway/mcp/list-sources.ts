import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { SourcesResponse } from '../../core/schemas/index.ts';
import { listSources } from '../../core/use-cases/collection.ts';
import { listedOutput } from './tool-arguments.ts';
import { READ_ONLY, type ToolDeps } from './tool-deps.ts';
import { runTool, toolResult } from './tool-result.ts';

const OUTPUT = listedOutput(z.object(SourcesResponse.shape));

const DESCRIPTION =
  'List the main domains (registrable domains such as "example.org") whose documents are in the Fundus index, ' +
  'with the number of documents of each, most documents first. A domain from this list is a valid `source` filter for search_index.';

function renderSources(result: SourcesResponse): string {
  if (result.sources.length === 0) return 'The index holds no documents yet.';
  const lines = result.sources.map((source) => `- ${source.domain}: ${source.documents} ${source.documents === 1 ? 'document' : 'documents'}`);
  return [`${result.sources.length} main domains, most documents first (each one a valid source filter of search_index):`, ...lines].join('\n');
}

export function registerListSourcesTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'list_sources',
    { title: 'List main domains', description: DESCRIPTION, outputSchema: OUTPUT, annotations: READ_ONLY },
    () =>
      runTool({ name: 'list_sources', log: deps.log }, async () => {
        const result = await listSources(deps.index);
        return toolResult(result, renderSources(result));
      }),
  );
}
