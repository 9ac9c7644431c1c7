import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The assets of /docs, all served by the gateway itself (no CDN): Swagger UI's bundle and style
// sheet from the swagger-ui-dist package in node_modules, and our own start script and styles.
// Everything is read once at start-up; a missing package stops start-up, not the first reader.

export interface DocsAsset {
  body: Buffer;
  type: string;
  etag: string;
}

// Our start script: loads openapi.json, points "Try it out" at the origin the page came from (the
// page and the API are served by the same gateway, so the CSP's connect-src 'self' admits it, behind
// a proxy too), and never calls Swagger's online validator.
const START_SCRIPT = `'use strict';
window.addEventListener('DOMContentLoaded', async () => {
  const target = document.getElementById('swagger-ui');
  try {
    const response = await fetch('openapi.json', { headers: { accept: 'application/json' } });
    const spec = await response.json();
    spec.servers = [{ url: window.location.origin, description: 'This gateway' }];
    window.ui = window.SwaggerUIBundle({
      spec,
      domNode: target,
      deepLinking: true,
      validatorUrl: null,
      supportedSubmitMethods: ['get', 'post'],
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
    });
  } catch (error) {
    target.textContent = 'The interactive reference could not be loaded; the description is at openapi.json.';
  }
});
`;

const STYLES = `body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: #1b1b1b; }
.essentials { max-width: 1460px; margin: 0 auto; padding: 1rem 20px 0; }
.essentials h1 { margin: .5rem 0; font-size: 1.8rem; }
.essentials ul { padding-left: 1.2rem; }
.essentials code { background: #f4f4f4; padding: 0 .2rem; border-radius: 3px; }
.essentials table { border-collapse: collapse; width: 100%; font-size: .9rem; }
.essentials td, .essentials th { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
.essentials pre { background: #f4f4f4; padding: .75rem; overflow: auto; }
.essentials .method { background: #1b4d8c; color: #fff; padding: 0 .4rem; border-radius: 3px; font-size: .9rem; }
.essentials section { border-top: 1px solid #ddd; margin-top: 2rem; }
/* Title and description are in the header above; Swagger UI would repeat them. */
.swagger-ui .information-container { display: none; }
`;

function asset(body: Buffer | string, type: string): DocsAsset {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 16)}"` };
}

export function loadDocsAssets(): Map<string, DocsAsset> {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // A last line pointing at a source map we do not serve is dropped, so no browser asks for it.
  const read = (name: string) => readFileSync(join(dist, name), 'utf8').replace(/\n\/[/*]# sourceMappingURL=[^\n]*\s*$/, '\n');
  return new Map([
    ['swagger-ui-bundle.js', asset(read('swagger-ui-bundle.js'), 'text/javascript; charset=utf-8')],
    ['swagger-ui.css', asset(read('swagger-ui.css'), 'text/css; charset=utf-8')],
    ['docs.js', asset(START_SCRIPT, 'text/javascript; charset=utf-8')],
    ['docs.css', asset(STYLES, 'text/css; charset=utf-8')],
  ]);
}

/** The CSP of /docs and its assets: only our own origin; inline script and style stay forbidden. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
