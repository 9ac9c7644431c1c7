import type { KeyRecord } from '../access/key-store.ts';
import type { Flash } from './sessions.ts';

// The admin panel's pages: server-rendered, German with English in parentheses, no scripts and no
// third-party assets (the CSP allows only our own stylesheet).

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} – Fundus Verwaltung</title>
<link rel="stylesheet" href="/admin.css">
</head>
<body>
<header><p class="brand">Fundus – Verwaltung <span lang="en">(Administration)</span></p></header>
<main>
${body}
</main>
</body>
</html>`;
}

function flashBox(flash: Flash | null): string {
  if (!flash) return '';
  return `<p class="flash ${flash.kind}" role="${flash.kind === 'error' ? 'alert' : 'status'}">${escapeHtml(flash.text)}</p>`;
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;

export function loginPage(options: { csrf: string; flash: Flash | null }): string {
  return layout(
    'Anmelden',
    `<h1>Anmelden <span lang="en">(Sign in)</span></h1>
${flashBox(options.flash)}
<form method="post" action="/login" class="card">
${csrfField(options.csrf)}
<label for="token">Admin-Token <span lang="en">(admin token)</span></label>
<input id="token" name="token" type="password" autocomplete="current-password" required minlength="16" maxlength="512">
<button type="submit">Anmelden <span lang="en">(Sign in)</span></button>
</form>
<p class="hint">Das Token steht in der Konfiguration (<code>FUNDUS_ADMIN_TOKEN</code>). <span lang="en">The token is set in the configuration.</span></p>`,
  );
}

function keyRow(record: KeyRecord, csrf: string): string {
  const active = !record.revokedAt;
  const actions = active
    ? `<form method="post" action="/keys/limit" class="inline">
${csrfField(csrf)}<input type="hidden" name="id" value="${escapeHtml(record.id)}">
<label class="visually-hidden" for="limit-${escapeHtml(record.id)}">Neues Limit für ${escapeHtml(record.name)} (new limit)</label>
<input id="limit-${escapeHtml(record.id)}" name="limit" value="${escapeHtml(record.limit)}" size="9" required maxlength="20">
<button type="submit">Limit ändern <span lang="en">(change limit)</span></button>
</form>
<form method="post" action="/keys/revoke" class="inline">
${csrfField(csrf)}<input type="hidden" name="id" value="${escapeHtml(record.id)}">
<button type="submit" class="danger" aria-label="${escapeHtml(`Schlüssel ${record.name} widerrufen (revoke)`)}">Widerrufen <span lang="en">(revoke)</span></button>
</form>`
    : '–';
  return `<tr data-key-id="${escapeHtml(record.id)}" class="${active ? 'active' : 'revoked'}">
<td><code>${escapeHtml(record.id)}…</code></td><td>${escapeHtml(record.name)}</td><td>${escapeHtml(record.limit)}</td>
<td>${escapeHtml(record.createdAt.slice(0, 16).replace('T', ' '))}</td><td>${record.revokedAt ? escapeHtml(record.revokedAt.slice(0, 16).replace('T', ' ')) : '–'}</td>
<td>${record.lastUsedDay ? escapeHtml(record.lastUsedDay) : '–'}</td><td>${actions}</td></tr>`;
}

export interface PanelView {
  csrf: string;
  keys: KeyRecord[];
  flash: Flash | null;
  /** A key just created: shown this once. */
  newKey?: { key: string; record: KeyRecord };
  form?: { name: string; limit: string };
}

export function panelPage(view: PanelView): string {
  const newKey = view.newKey
    ? `<section id="new-key" class="card new-key" aria-labelledby="new-key-title">
<h3 id="new-key-title">Neuer Schlüssel „${escapeHtml(view.newKey.record.name)}“ <span lang="en">(new key)</span></h3>
<p>Jetzt kopieren: Der Schlüssel wird nur dieses eine Mal angezeigt und nirgends im Klartext gespeichert. <span lang="en">Copy it now: it is shown only this once.</span></p>
<p><code id="new-key-value" class="secret">${escapeHtml(view.newKey.key)}</code></p>
<p class="hint">Verwendung <span lang="en">(use)</span>: <code>Authorization: Bearer &lt;Schlüssel&gt;</code> – nur serverseitig, nie in öffentlichen Webseiten oder URLs.</p>
</section>`
    : '';
  const rows = view.keys.length
    ? view.keys.map((record) => keyRow(record, view.csrf)).join('\n')
    : '<tr><td colspan="7">Noch keine Schlüssel <span lang="en">(no keys yet)</span></td></tr>';
  return layout(
    'Schnittstellen',
    `<div class="topbar"><h1>Verwaltung <span lang="en">(Administration)</span></h1>
<form method="post" action="/logout">${csrfField(view.csrf)}<button type="submit">Abmelden <span lang="en">(sign out)</span></button></form></div>
${flashBox(view.flash)}
<section aria-labelledby="interfaces">
<h2 id="interfaces">Schnittstellen <span lang="en">(Interfaces)</span></h2>
<p>Projektschlüssel <span lang="en">(project read keys)</span> für die REST-API v1 und MCP. Jeder Schlüssel hat ein eigenes Anfragelimit
und kann widerrufen werden. Ohne Schlüssel teilen sich alle anonymen Aufrufe 1 Anfrage pro Sekunde.</p>
${newKey}
<form method="post" action="/keys" class="card" id="create-key">
<h3>Schlüssel erstellen <span lang="en">(create key)</span></h3>
${csrfField(view.csrf)}
<label for="name">Name <span lang="en">(name)</span></label>
<input id="name" name="name" required maxlength="100" value="${escapeHtml(view.form?.name ?? '')}">
<label for="limit">Limit <span lang="en">(limit)</span>: <code>N/s</code>, <code>N/min</code>, <code>N/h</code> oder <code>unlimited</code></label>
<input id="limit" name="limit" required maxlength="20" value="${escapeHtml(view.form?.limit ?? '10/s')}">
<button type="submit">Erstellen <span lang="en">(create)</span></button>
</form>
<h3>Schlüssel <span lang="en">(keys)</span></h3>
<table>
<thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Limit</th><th scope="col">Erstellt <span lang="en">(created)</span></th>
<th scope="col">Widerrufen <span lang="en">(revoked)</span></th><th scope="col">Zuletzt genutzt <span lang="en">(last used)</span></th><th scope="col">Aktionen <span lang="en">(actions)</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p><p><a href="/">Zurück <span lang="en">(back)</span></a></p>`);
}

export const ADMIN_CSS = `:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fafafa;--muted:#555;--accent:#0b5cad;--danger:#a4161a;--card:#fff;--line:#ccc}
@media (prefers-color-scheme:dark){:root{--fg:#eee;--bg:#161616;--muted:#bbb;--accent:#7db7ff;--danger:#ff8a8a;--card:#202020;--line:#444}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:.5rem 1.5rem;border-bottom:1px solid var(--line)}.brand{margin:0;font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem 3rem}
.topbar{display:flex;justify-content:space-between;align-items:center;gap:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:1rem;margin:1rem 0;max-width:40rem}
label{display:block;margin:.5rem 0 .25rem}input{font:inherit;padding:.35rem .5rem;border:1px solid var(--muted);border-radius:4px;background:var(--bg);color:var(--fg)}
.card input{width:100%}button{font:inherit;margin-top:.5rem;padding:.35rem .8rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--bg);cursor:pointer}
button.danger{border-color:var(--danger);background:var(--danger)}form.inline{display:inline-flex;gap:.3rem;align-items:center;margin:.1rem .5rem .1rem 0}form.inline button{margin:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
tr.revoked{color:var(--muted)}.flash{padding:.6rem 1rem;border-radius:4px;border:1px solid var(--accent)}.flash.error{border-color:var(--danger)}
.new-key{border-color:var(--accent);max-width:none}.secret{font-size:1.05rem;word-break:break-all;user-select:all}
.hint{color:var(--muted)}:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}`;
