// The self-contained documentation page served at /docs: the OpenAPI document embedded in the
// page and rendered by a few lines of script — no CDN, no external file — with the problem
// codes and the public event names beside it.
import { problemCodes, problemStatuses, problemTitles } from '../../api/problem/api-errors';
import type { OpenApiDocument } from '../../api/openapi/openapi-document';

export interface EventNameDoc {
  readonly name: string;
  readonly storeEvents: readonly string[];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** JSON that can sit inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const style = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d232a;background:#fafbfc}
main{max-width:1040px;margin:0 auto;padding:24px}
h1{margin:0 0 4px}h2{margin-top:40px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
code,pre{font:13px/1.45 ui-monospace,Menlo,monospace}
pre{background:#f3f5f7;border:1px solid #e1e4e8;border-radius:6px;padding:10px;overflow:auto;max-height:420px}
details.op{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:8px 0}
details.op>summary{cursor:pointer;padding:8px 12px;list-style:none}
details.op>div{padding:0 12px 12px}
.method{display:inline-block;min-width:52px;font-weight:700;text-transform:uppercase;font-size:12px;padding:2px 6px;border-radius:4px;color:#fff;margin-right:8px;text-align:center}
.get{background:#1f6feb}.post{background:#2da44e}.put{background:#bf8700}.delete{background:#cf222e}
table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid #e1e4e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f7}.muted{color:#57606a}a{color:#0969da}
`;

const script = `
const doc = JSON.parse(document.getElementById('openapi').textContent);
const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
};
const schemaLink = (schema) => {
  if (!schema) return el('span', { class: 'muted' }, 'none');
  if (schema.$ref) { const id = schema.$ref.split('/').pop(); return el('a', { href: '#schema-' + id }, id); }
  return el('pre', {}, JSON.stringify(schema, null, 2));
};
const container = document.getElementById('operations');
const byTag = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    const tag = (op.tags && op.tags[0]) || 'other';
    if (!byTag.has(tag)) byTag.set(tag, []);
    byTag.get(tag).push({ path, method, op });
  }
}
for (const tag of doc.tags) {
  const ops = byTag.get(tag.name) || [];
  container.append(el('h3', {}, tag.name), el('p', { class: 'muted' }, tag.description));
  for (const { path, method, op } of ops) {
    const body = el('div', {});
    if (op.description) body.append(el('p', {}, op.description));
    if (op.security && op.security.length === 0) body.append(el('p', { class: 'muted' }, 'No API key needed.'));
    if (op.parameters && op.parameters.length) {
      const table = el('table', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'in'), el('th', {}, 'schema'), el('th', {}, 'description')));
      for (const p of op.parameters) table.append(el('tr', {}, el('td', {}, el('code', {}, p.name + (p.required ? ' *' : ''))), el('td', {}, p.in), el('td', {}, schemaLink(p.schema)), el('td', {}, p.description || '')));
      body.append(table);
    }
    if (op.requestBody) {
      for (const [type, media] of Object.entries(op.requestBody.content)) body.append(el('p', {}, 'Body (', el('code', {}, type), '): ', schemaLink(media.schema)));
    }
    const responses = el('table', {}, el('tr', {}, el('th', {}, 'status'), el('th', {}, 'description'), el('th', {}, 'content')));
    for (const [status, response] of Object.entries(op.responses)) {
      const content = el('td', {});
      for (const [type, media] of Object.entries(response.content || {})) content.append(el('code', {}, type), ' ', schemaLink(media.schema), ' ');
      responses.append(el('tr', {}, el('td', {}, status), el('td', {}, response.description), content));
    }
    body.append(responses);
    container.append(el('details', { class: 'op', id: 'op-' + op.operationId }, el('summary', {}, el('span', { class: 'method ' + method }, method), el('code', {}, path), ' — ', op.summary), body));
  }
}
const schemas = document.getElementById('schemas');
for (const [id, schema] of Object.entries(doc.components.schemas)) {
  schemas.append(el('details', { class: 'op', id: 'schema-' + id }, el('summary', {}, el('code', {}, id), schema.description ? ' — ' + schema.description : ''), el('div', {}, el('pre', {}, JSON.stringify(schema, null, 2)))));
}
if (location.hash) { const target = document.getElementById(location.hash.slice(1)); if (target) { target.open = true; target.scrollIntoView(); } }
`;

export function renderDocsPage(document: OpenApiDocument, eventNames: readonly EventNameDoc[]): string {
  const problems = problemCodes
    .map(
      (code) =>
        `<tr id="problem-${code}"><td><code>${code}</code></td><td>${problemStatuses[code]}</td><td>${escapeHtml(problemTitles[code])}</td></tr>`,
    )
    .join('');
  const events = eventNames
    .map(
      (event) =>
        `<tr><td><code>${escapeHtml(event.name)}</code></td><td>${event.storeEvents.map((type) => escapeHtml(type)).join('<br>')}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Strata API ${escapeHtml(document.info.version)}</title><style>${style}</style></head>
<body><main>
<h1>Strata API</h1><p class="muted">version ${escapeHtml(document.info.version)} · OpenAPI ${document.openapi} · <a href="/docs/openapi.json">openapi.json</a></p>
<p>${escapeHtml(document.info.description)}</p>
<p>Authenticate with <code>Authorization: Bearer &lt;key&gt;</code> or <code>x-api-key: &lt;key&gt;</code> (not needed when the engine runs single-tenant).</p>
<h2>Endpoints</h2><div id="operations"></div>
<h2 id="events">Event stream names</h2>
<p>Events of <code>GET /events</code> carry these names; their <code>id</code> is the global position (with <code>.1</code> for the automatic-attempt event of the same store event). Resume with <code>Last-Event-ID</code>.</p>
<table><tr><th>name</th><th>store events</th></tr>${events}</table>
<h2 id="problems">Problems</h2>
<p>Every error is <code>application/problem+json</code> with one of these codes.</p>
<table><tr><th>code</th><th>status</th><th>title</th></tr>${problems}</table>
<h2>Schemas</h2><div id="schemas"></div>
</main>
<script type="application/json" id="openapi">${scriptJson(document)}</script>
<script>${script}</script>
</body></html>
`;
}
