// Refusals on a JSON-RPC endpoint (/mcp) as JSON-RPC 2.0 error objects (issue 21 point 5): the HTTP
// status and headers (WWW-Authenticate, Retry-After) stay as on REST, and the body is something an
// MCP client can parse. Codes of the implementation-defined server range (-32000 to -32099) carry
// the HTTP status in their last digits where one fits; `data` holds the stable code of the REST body.

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: null;
  error: { code: number; message: string; data: { code: string; status: number; retry_after?: number } };
}

const CODE_BY_STATUS: Record<number, number> = {
  400: -32600, // Invalid Request
  401: -32001,
  403: -32003,
  404: -32004,
  405: -32005,
  413: -32600,
  422: -32602, // Invalid params
  429: -32029,
};

export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;

export function jsonRpcError(code: number, message: string, data: JsonRpcErrorBody['error']['data']): JsonRpcErrorBody {
  return { jsonrpc: '2.0', id: null, error: { code, message, data } };
}

/** The JSON-RPC body of an HTTP refusal or failure with the given status. */
export function jsonRpcErrorOf(error: { status: number; code: string; message: string; headers: Record<string, string> }): JsonRpcErrorBody {
  const code = CODE_BY_STATUS[error.status] ?? (error.status >= 500 ? -32603 : JSON_RPC_INVALID_REQUEST);
  const data: JsonRpcErrorBody['error']['data'] = { code: error.code, status: error.status };
  if (error.headers['retry-after']) data.retry_after = Number(error.headers['retry-after']);
  return jsonRpcError(code, error.message, data);
}
