// The search page: reads the form, calls the public endpoints (same origin, POST bodies only) and
// renders the answer. The search state lives in the URL fragment, which browsers never send to a
// server, so back/forward and bookmarks work without the query reaching any log.
import { describeValidation, el, formatCount, socialResult, webResult } from './render.js';

const PAGE_SIZE = 10;
const TABS = ['web', 'news', 'fediverse'];
const TAB_NAMES = { web: 'Web', news: 'Nachrichten', fediverse: 'Fediverse' };
const $ = (id) => document.getElementById(id);

const ui = {
  form: $('search-form'),
  q: $('q'),
  source: $('source'),
  instance: $('instance'),
  topic: $('topic'),
  age: $('age'),
  order: $('order'),
  types: [...document.querySelectorAll('.doc-type')],
  tabs: [...document.querySelectorAll('[role="tab"]')],
  filterCount: $('filter-count'),
  panel: $('results-panel'),
  heading: $('results-heading'),
  status: $('status'),
  error: $('error'),
  retryRow: $('retry-row'),
  retry: $('retry'),
  empty: $('empty'),
  results: $('results'),
  pager: $('pager'),
  prev: $('prev'),
  next: $('next'),
  pageInfo: $('page-info'),
};

const DEFAULTS = { tab: 'web', q: '', source: '', instance: '', topic: '', age: '', order: 'relevance', types: [], offset: 0 };
let state = { ...DEFAULTS };
let inFlight = null;
let inFlightKey = '';
let countdown = null;

function readForm() {
  state.q = ui.q.value.trim();
  state.source = ui.source.value.trim();
  state.instance = ui.instance.value;
  state.topic = ui.topic.value;
  state.age = ui.age.value;
  state.order = ui.order.value;
  state.types = ui.types.filter((box) => box.checked).map((box) => box.value);
}

function writeForm() {
  ui.q.value = state.q;
  ui.source.value = state.source;
  ui.instance.value = state.instance;
  ui.topic.value = state.topic;
  ui.age.value = state.age;
  ui.order.value = state.order;
  for (const box of ui.types) box.checked = state.types.includes(box.value);
}

function toFragment() {
  const params = new URLSearchParams();
  for (const key of ['tab', 'q', 'source', 'instance', 'topic', 'age', 'order', 'offset']) {
    if (String(state[key]) !== String(DEFAULTS[key])) params.set(key, String(state[key]));
  }
  if (state.types.length) params.set('types', state.types.join(','));
  return params.toString() ? `#${params}` : location.pathname;
}

function fromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const offset = Number(params.get('offset'));
  state = {
    ...DEFAULTS,
    tab: TABS.includes(params.get('tab')) ? params.get('tab') : 'web',
    q: params.get('q') ?? '',
    source: params.get('source') ?? '',
    instance: params.get('instance') ?? '',
    topic: params.get('topic') ?? '',
    age: params.get('age') ?? '',
    order: params.get('order') === 'newest' ? 'newest' : 'relevance',
    types: (params.get('types') ?? '').split(',').filter(Boolean),
    offset: Number.isInteger(offset) && offset >= 0 && offset <= 1000 ? offset - (offset % PAGE_SIZE) : 0,
  };
}

function showTab(tab) {
  for (const button of ui.tabs) {
    const selected = button.dataset.tab === tab;
    button.setAttribute('aria-selected', String(selected));
    button.tabIndex = selected ? 0 : -1;
    if (selected) ui.panel.setAttribute('aria-labelledby', button.id);
  }
  for (const filter of document.querySelectorAll('[data-tabs]')) filter.hidden = !filter.dataset.tabs.split(' ').includes(tab);
  const active = [...document.querySelectorAll('[data-tabs]')].filter((f) => !f.hidden && [...f.querySelectorAll('input, select')].some((i) => (i.type === 'checkbox' ? i.checked : i.value && i.id !== 'order')));
  ui.filterCount.textContent = active.length ? `(${active.length} aktiv)` : '';
}

function endpoint() {
  if (state.tab === 'web') return '/api/search';
  if (state.tab === 'news') return '/api/news';
  return state.q && state.order === 'relevance' ? '/api/fediverse/search' : '/api/social';
}

function requestBody() {
  const body = { offset: state.offset };
  if (state.q) body.q = state.q;
  if (state.age) body.max_age_months = Number(state.age);
  if (state.tab === 'fediverse') {
    if (state.instance) body.source = state.instance;
  } else {
    if (state.source) body.source = state.source;
    if (state.topic) body.topic = state.topic;
    if (state.types.length) body.document_types = state.types;
  }
  return body;
}

function clearMessages() {
  ui.error.hidden = true;
  ui.error.replaceChildren();
  ui.retryRow.hidden = true;
  ui.empty.hidden = true;
  clearInterval(countdown);
}

function clearResults() {
  ui.results.replaceChildren();
  ui.pager.hidden = true;
}

function showError(title, lines) {
  clearResults();
  ui.status.textContent = '';
  ui.error.replaceChildren(el('p', { className: 'error-title' }, title), ...lines.map((line) => el('p', {}, line)));
  ui.error.hidden = false;
}

function showRateLimit(seconds) {
  showError('Bitte kurz warten', [
    'Die Suche wird gerade von vielen Menschen genutzt; alle zusammen haben 60 Anfragen pro Minute.',
    `Ein neuer Versuch ist in ${seconds} Sekunden möglich.`,
  ]);
  // The countdown is outside the alert, so screen readers hear the message once, not every second.
  let left = seconds;
  ui.retry.disabled = true;
  ui.retry.textContent = `Erneut suchen (in ${left} s)`;
  ui.retryRow.hidden = false;
  countdown = setInterval(() => {
    left -= 1;
    if (left > 0) {
      ui.retry.textContent = `Erneut suchen (in ${left} s)`;
      return;
    }
    clearInterval(countdown);
    ui.retry.disabled = false;
    ui.retry.textContent = 'Erneut suchen';
  }, 1000);
}

function showIntro() {
  clearMessages();
  clearResults();
  ui.status.textContent = 'Geben Sie einen Suchbegriff ein.';
}

function render(data) {
  const items = data.results.map((hit, i) => (state.tab === 'fediverse' ? socialResult(hit, state.offset + i + 1) : webResult(hit, state.offset + i + 1)));
  ui.results.replaceChildren(...items);
  ui.results.start = state.offset + 1;
  const page = state.offset / PAGE_SIZE + 1;
  const where = state.q ? ` für „${state.q}“` : '';
  if (items.length === 0) {
    ui.status.textContent = state.offset > 0 ? `Keine weiteren Treffer${where}.` : `Keine Treffer${where} (${TAB_NAMES[state.tab]}).`;
    ui.empty.hidden = state.offset > 0;
  } else {
    ui.status.textContent = `${formatCount(data.total, data.total_relation)}${where}${page > 1 ? `, Seite ${page}` : ''}.`;
  }
  ui.pager.hidden = state.offset === 0 && !data.has_more;
  ui.prev.disabled = state.offset === 0;
  ui.next.disabled = !data.has_more;
  ui.pageInfo.textContent = `Seite ${page}`;
}

async function search() {
  clearMessages();
  if (state.tab === 'web' && !state.q) return showIntro();
  // Enter in a filter field fires both "change" and "submit": ask once, every request costs budget.
  const key = `${endpoint()} ${JSON.stringify(requestBody())}`;
  if (inFlight && key === inFlightKey) return;
  inFlight?.abort();
  const controller = new AbortController();
  inFlight = controller;
  inFlightKey = key;
  ui.panel.setAttribute('aria-busy', 'true');
  ui.status.textContent = 'Suche läuft …';
  try {
    const response = await fetch(endpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(requestBody()),
      signal: controller.signal,
      cache: 'no-store',
    });
    const body = await response.json().catch(() => null);
    if (controller !== inFlight) return;
    if (response.status === 429) {
      const seconds = Number.parseInt(response.headers.get('retry-after') ?? '', 10) || body?.retry_after || 60;
      return showRateLimit(seconds);
    }
    if (response.status === 422) return showError('Die Eingabe passt nicht', describeValidation(body));
    if (!response.ok || !body) return showError('Die Suche hat nicht geklappt', [`Der Server antwortete mit HTTP ${response.status}. Bitte später erneut versuchen.`]);
    render(body);
  } catch (error) {
    if (error?.name === 'AbortError') return;
    showError('Die Suche ist nicht erreichbar', ['Bitte prüfen Sie die Verbindung und versuchen Sie es erneut.']);
  } finally {
    if (controller === inFlight) {
      ui.panel.removeAttribute('aria-busy');
      inFlight = null;
    }
  }
}

function commit({ offset = 0, focusResults = false } = {}) {
  state.offset = offset;
  history.pushState(null, '', toFragment());
  showTab(state.tab);
  search().then(() => {
    if (focusResults) ui.heading.focus();
  });
}

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  readForm();
  commit();
});

ui.tabs.forEach((button, index) => {
  button.addEventListener('click', () => {
    readForm();
    state.tab = button.dataset.tab;
    commit();
  });
  button.addEventListener('keydown', (event) => {
    const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: ui.tabs.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const target = ui.tabs[(moves[event.key] + ui.tabs.length) % ui.tabs.length];
    target.focus();
    target.click();
  });
});

for (const input of [ui.instance, ui.topic, ui.age, ui.order, ui.source, ...ui.types]) {
  input.addEventListener('change', () => {
    readForm();
    commit();
  });
}

$('reset-filters').addEventListener('click', () => {
  Object.assign(state, { source: '', instance: '', topic: '', age: '', order: 'relevance', types: [] });
  state.q = ui.q.value.trim();
  writeForm();
  commit();
});

ui.prev.addEventListener('click', () => commit({ offset: Math.max(0, state.offset - PAGE_SIZE), focusResults: true }));
ui.next.addEventListener('click', () => commit({ offset: state.offset + PAGE_SIZE, focusResults: true }));
ui.retry.addEventListener('click', () => search());

window.addEventListener('popstate', () => {
  fromFragment();
  writeForm();
  showTab(state.tab);
  search();
});

fromFragment();
writeForm();
showTab(state.tab);
search();
