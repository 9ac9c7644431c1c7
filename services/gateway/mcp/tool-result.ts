import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { AppError, type ValidationIssue } from '../../core/errors.ts';
import { boundedEcho } from '../../http/bounded-echo.ts';

// What a tool call returns (STYLE.md "Errors": in MCP a domain failure is an `isError` tool result).
// Bad arguments say what to fix; a server-side failure says it is not the caller's fault.

export interface ToolLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export function toolResult(structuredContent: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent };
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

const MAX_SHOWN_VALUE = 80;

function shownValue(value: unknown): string {
  // Bounded first: the caller chose the value, and 30,000 nested arrays overflow JSON.stringify.
  const text = JSON.stringify(boundedEcho(value)) ?? String(value);
  return text.length > MAX_SHOWN_VALUE ? `${text.slice(0, MAX_SHOWN_VALUE)}…` : text;
}

function fieldPath(loc: (string | number)[]): string {
  return loc.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || 'arguments';
}

/** One line per bad field, in the words of the REST 422, with the value sent and what the field takes. */
export function describeInvalidArguments(tool: string, issues: ValidationIssue[], input?: z.ZodObject): string {
  const lines = issues.map((issue) => {
    const field = issue.loc[0];
    const sent = issue.type === 'missing' ? '' : `; you sent ${shownValue(issue.input)}`;
    const about = typeof field === 'string' ? input?.shape[field]?.description : undefined;
    return `- ${fieldPath(issue.loc)}: ${issue.msg}${sent}.${about ? ` (${field}: ${about})` : ''}`;
  });
  return [`Invalid arguments for ${tool}; nothing was done. Fix these and call ${tool} again:`, ...lines].join('\n');
}

/** Runs a tool's work and turns failures into tool errors: the caller's, or plainly the server's. */
export async function runTool(tool: { name: string; input?: z.ZodObject; log: ToolLog }, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') return toolError(describeInvalidArguments(tool.name, error.issues, tool.input));
    if (error instanceof AppError && error.status < 500) return toolError(`${tool.name}: ${error.message}.`);
    if (error instanceof AppError && error.code === 'INDEX_UNAVAILABLE') {
      tool.log.warn({ tool: tool.name, code: error.code }, 'mcp tool failed');
      return toolError(`${tool.name} could not run: the search index is not available right now. This is a server-side problem, not caused by your arguments; try again in a little while.`);
    }
    tool.log.error({ err: error, tool: tool.name }, 'mcp tool failed');
    return toolError(`${tool.name} failed because of an internal server error, not because of your arguments. Try again later.`);
  }
}
