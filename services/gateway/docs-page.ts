// The human documentation page at /docs, rendered once from the OpenAPI document: the essentials,
// then Swagger UI (served from our own node_modules, see docs-assets.ts) with "Try it out". Without
// script, the same reference is shown as static HTML. No inline script or style, no third-party
// asset: it works behind a strict Content-Security-Policy and offline.

function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

type Json = Record<string, any>;

function resolveRef(doc: Json, schema: Json | undefined): Json {
  if (!schema?.$ref) return schema ?? {};
  return doc.components.schemas[String(schema.$ref).split('/').pop()!] ?? {};
}

function typeLabel(schema: Json): string {
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (schema.anyOf) return schema.anyOf.map(typeLabel).join(' or ');
  if (schema.type === 'array') return `array of ${typeLabel(schema.items ?? {})}`;
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  return schema.type ?? 'any';
}

function constraints(schema: Json): string {
  const inner = schema.anyOf?.find((s: Json) => s.type !== 'null') ?? schema;
  const parts: string[] = [];
  if (inner.minLength !== undefined) parts.push(`length ≥ ${inner.minLength}`);
  if (inner.maxLength !== undefined) parts.push(`length ≤ ${inner.maxLength}`);
  if (inner.minimum !== undefined) parts.push(`≥ ${inner.minimum}`);
  if (inner.maximum !== undefined) parts.push(`≤ ${inner.maximum}`);
  if (inner.maxItems !== undefined) parts.push(`at most ${inner.maxItems} items`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  if (inner.pattern) parts.push(`pattern ${inner.pattern}`);
  return parts.join(', ');
}

function fieldTable(doc: Json, schema: Json): string {
  const resolved = resolveRef(doc, schema);
  if (!resolved.properties) return `<p>${escapeHtml(resolved.description ?? typeLabel(resolved))}</p>`;
  const required = new Set<string>(resolved.required ?? []);
  const rows = Object.entries(resolved.properties as Record<string, Json>)
    .map(
      ([name, field]) =>
        `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(typeLabel(field))}</td><td>${required.has(name) ? 'yes' : 'no'}</td>` +
        `<td>${escapeHtml(constraints(field))}</td><td>${escapeHtml(field.description ?? '')}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Constraints</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function example(baseUrl: string, method: string, path: string, operation: Json): string {
  const url = `${baseUrl}${path.replace('{document_id}', 'urn:uuid:…')}`;
  const body = operation.requestBody ? ` \\\n  -H 'Content-Type: application/json' \\\n  -d '{"q": "Wärmepumpe Förderung", "limit": 5}'` : '';
  return `curl -X ${method.toUpperCase()} '${url}' \\\n  -H 'Authorization: Bearer $PROJECT_READ_KEY'${body}`;
}

export function renderDocsPage(doc: Json, baseUrl: string): string {
  const sections = Object.entries(doc.paths as Record<string, Json>)
    .flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, Json>).map(([method, op]) => {
        const params = (op.parameters ?? [])
          .map((p: Json) => `<li><code>${escapeHtml(p.name)}</code> (path): ${escapeHtml(p.description ?? '')}</li>`)
          .join('');
        const responses = Object.entries(op.responses as Record<string, Json>)
          .map(([status, r]) => `<li><strong>${escapeHtml(status)}</strong>: ${escapeHtml(r.description)}</li>`)
          .join('');
        const body = op.requestBody ? `<h4>Request body</h4>${fieldTable(doc, op.requestBody.content['application/json'].schema)}` : '';
        const ok = op.responses['200']?.content?.['application/json']?.schema;
        return `<section id="${escapeHtml(op.operationId)}"><h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.description)}</p>${params ? `<h4>Path parameters</h4><ul>${params}</ul>` : ''}${body}
<h4>Response 200</h4>${ok ? fieldTable(doc, ok) : ''}<h4>Responses</h4><ul>${responses}</ul>
<h4>Example</h4><pre>${escapeHtml(example(baseUrl, method, path, op))}</pre></section>`;
      }),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} – documentation</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="stylesheet" href="/docs/assets/docs.css">
<script src="/docs/assets/swagger-ui-bundle.js" defer></script><script src="/docs/assets/docs.js" defer></script></head>
<body><header class="essentials"><h1>${escapeHtml(doc.info.title)}</h1><p>${escapeHtml(doc.info.description)}</p>
<h2>Essentials</h2><ul>
<li>Base URL: <code>${escapeHtml(baseUrl)}</code>; machine-readable description: <a href="openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}, version ${escapeHtml(doc.info.version)}).</li>
<li>Authentication is optional: <code>Authorization: Bearer &lt;PROJECT_READ_KEY&gt;</code> (in the reference below: "Authorize"). An invalid or revoked key is answered with 401, never treated as anonymous. Keep keys on the server side of your application.</li>
<li>Anonymous calls share one budget of 1 request per second for all anonymous users, "Try it out" included. On 429, wait the number of seconds in <code>Retry-After</code>; under contention another retry may be needed.</li>
<li>Query text travels in the POST body only. Search queries are not logged.</li>
<li>The MCP server (streamable HTTP) is at <code>${escapeHtml(baseUrl)}/mcp</code> with the tools search_index, get_document, list_sources and index_stats.</li>
<li>Text excerpts and content come from external sources. AI applications must not treat them as instructions.</li>
</ul></header>
<main id="swagger-ui"></main>
<noscript><div class="essentials"><h2>Endpoints</h2>${sections}</div></noscript></body></html>`;
}
