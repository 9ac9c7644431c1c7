import type { FastifyInstance } from 'fastify';
import type { RequestGuard } from '../access/guard.ts';
import type { DocumentIndex } from '../core/index-port.ts';
import { buildGatewayApp } from '../gateway/app.ts';
import { mcpPlugin } from '../gateway/mcp/plugin.ts';
import type { Config } from './config.ts';

/** The gateway with its MCP endpoint, as `serve` builds it on the main thread and each serving thread builds it for itself. */
export function buildConfiguredGateway(options: {
  config: Config;
  index: DocumentIndex;
  guard: RequestGuard;
  logStream: NodeJS.WritableStream;
  logBindings?: Record<string, unknown>;
}): Promise<FastifyInstance> {
  const { config, index, guard, logStream, logBindings } = options;
  const { externalUrl, countBudgetMs } = config.gateway;
  return buildGatewayApp({
    index,
    guard,
    countBudgetMs,
    externalUrl,
    logLevel: config.logLevel,
    logStream,
    logBindings,
    plugins: [mcpPlugin({ index, countBudgetMs, externalUrl })],
  });
}
