// The jobs page: every job on the server (GET /v1/jobs), filtered by
// label, kind, verdict, state, batch and time. The filters live in the
// address, so a view can be shared; pages follow the API's cursor; the
// filtered list downloads as CSV or NDJSON (with the token); live jobs
// can be canceled.
import {getJSON, kindNames, listAll, postJSON, saveFile} from './api.js';
import {button, el, errorBox, fmtLabels, fmtTime, labelFilters, markReady, scrollBox, show, sleep} from './dom.js';

const verdicts = ['solved', 'unsolvable', 'unknown'];
const states = ['queued', 'running', 'done', 'failed', 'canceled'];
// filterNames are the API's filters the page keeps in its address.
const filterNames = ['kind', 'verdict', 'state', 'batch', 'level', 'since', 'until'];

export async function jobsPage() {
  const form = filterForm(await kindNames());
  const status = el('p', {id: 'jobs-status', class: 'muted', 'aria-live': 'polite'});
  const body = el('tbody');
  const pager = el('nav', {class: 'pager', 'aria-label': 'pages'});
  const downloads = el('div', {class: 'toolbar'},
    button('Download CSV', () => exportList('csv', status), {id: 'download-csv'}),
    button('Download NDJSON', () => exportList('ndjson', status), {id: 'download-ndjson'}));
  show(el('h1', {}, 'Jobs'), form.element, downloads, status,
    scrollBox(el('table', {id: 'jobs'},
      el('thead', {}, el('tr', {}, ['#', 'batch', 'kind', 'state', 'verdict', 'value', 'labels', 'created', ''].map((h) => el('th', {scope: 'col'}, h)))),
      body)),
    pager);
  let generation = 0;
  const load = async () => {
    const mine = ++generation;
    form.fill(new URLSearchParams(location.search));
    for (;;) {
      let page;
      try {
        page = await getJSON('/v1/jobs?' + apiQuery(new URLSearchParams(location.search)));
      } catch (err) {
        status.replaceChildren(errorBox(err));
        body.replaceChildren();
        markReady();
        return;
      }
      if (mine !== generation) return;
      render(page, body, pager, status, load);
      markReady();
      if (!page.items.some((j) => j.state === 'queued' || j.state === 'running')) return;
      await sleep(2000);
      if (mine !== generation) return;
    }
  };
  form.onApply = (q) => {
    history.pushState(null, '', '/ui/jobs' + (q.toString() ? '?' + q : ''));
    load();
  };
  window.addEventListener('popstate', load);
  await load();
}

// apiQuery is the address's query as the API takes it.
function apiQuery(q) {
  const out = new URLSearchParams();
  for (const l of q.getAll('label')) out.append('label', l);
  for (const n of [...filterNames, 'cursor', 'limit']) if (q.get(n)) out.set(n, q.get(n));
  if (!out.has('limit')) out.set('limit', '50');
  return out;
}

// filterForm is the filters' form; kinds are the server's.
function filterForm(kinds) {
  const sel = (name, values) => el('select', {id: 'f-' + name, name},
    el('option', {value: ''}, 'any ' + name), values.map((v) => el('option', {value: v}, v)));
  const labels = el('input', {type: 'text', id: 'f-label', placeholder: 'chapter:3, author:ana', 'aria-label': 'labels (key:value, comma-separated)'});
  const fields = {
    kind: sel('kind', kinds), verdict: sel('verdict', verdicts), state: sel('state', states),
    batch: el('input', {type: 'number', id: 'f-batch', min: 1, placeholder: 'batch #', 'aria-label': 'batch'}),
    level: el('input', {type: 'text', id: 'f-level', placeholder: 'level hash', 'aria-label': 'level hash', size: 12}),
    since: el('input', {type: 'date', id: 'f-since', 'aria-label': 'created since'}),
    until: el('input', {type: 'date', id: 'f-until', 'aria-label': 'created before'}),
  };
  const self = {onApply: () => {}};
  const f = el('form', {id: 'job-filters', class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const l of labelFilters(labels.value)) q.append('label', l);
    for (const [n, input] of Object.entries(fields)) if (input.value.trim()) q.set(n, input.value.trim());
    self.onApply(q);
  }},
  el('label', {}, 'Labels ', labels), fields.kind, fields.verdict, fields.state,
  el('label', {}, 'Batch ', fields.batch), el('label', {}, 'Level ', fields.level),
  el('label', {}, 'Since ', fields.since), el('label', {}, 'Before ', fields.until),
  el('button', {type: 'submit', id: 'apply-filters'}, 'Filter'),
  el('a', {href: '/ui/jobs', class: 'button'}, 'Clear'));
  self.element = f;
  self.fill = (q) => {
    labels.value = q.getAll('label').join(', ');
    for (const [n, input] of Object.entries(fields)) input.value = q.get(n) || '';
  };
  return self;
}

function render(page, body, pager, status, reload) {
  const q = new URLSearchParams(location.search);
  const filtered = q.getAll('label').length > 0 || filterNames.some((n) => q.get(n));
  body.replaceChildren(...page.items.map((j) => row(j, reload)));
  if (page.items.length === 0) {
    body.append(el('tr', {}, el('td', {colspan: 9, class: 'muted'}, filtered ? 'No job matches these filters.' : 'No jobs yet.')));
  }
  status.textContent = `${page.items.length} job${page.items.length === 1 ? '' : 's'} on this page` +
    (q.get('cursor') ? ' (not the first page)' : '') + '.';
  const links = [];
  if (q.get('cursor')) {
    q.delete('cursor');
    links.push(el('a', {href: '/ui/jobs' + (q.toString() ? '?' + q : ''), id: 'first-page'}, '← First page'));
  }
  if (page.next_cursor) {
    const n = new URLSearchParams(location.search);
    n.set('cursor', page.next_cursor);
    links.push(el('a', {href: '/ui/jobs?' + n, id: 'next-page', rel: 'next'}, 'Next page →'));
  }
  pager.replaceChildren(...links);
}

function row(j, reload) {
  const live = j.state === 'queued' || j.state === 'running';
  const cancel = live ? button('Cancel', async () => {
    await postJSON('/v1/jobs/' + j.id + '/cancel', {});
    await reload();
  }, {'aria-label': 'cancel job ' + j.id, class: 'cancel'}) : null;
  return el('tr', {dataset: {job: j.id, state: j.state, verdict: j.verdict || ''}},
    el('td', {}, el('a', {href: '/ui/jobs/' + j.id}, '#' + j.id)),
    el('td', {}, j.batch_id ? el('a', {href: '/ui/batches/' + j.batch_id}, '#' + j.batch_id + (j.seq !== undefined ? ' / ' + j.seq : '')) : '—'),
    el('td', {}, j.kind),
    el('td', {}, j.state),
    el('td', {class: j.verdict ? 'verdict-' + j.verdict : ''}, j.verdict || ''),
    el('td', {class: 'num'}, j.value ?? ''),
    el('td', {class: 'labels', title: fmtLabels(j.labels)}, shortLabels(j.labels)),
    el('td', {}, fmtTime(j.created_at)),
    el('td', {}, cancel));
}

// shortLabels writes labels with long values (level hashes) cut short;
// the cell's title has them whole.
function shortLabels(labels) {
  const cut = {};
  for (const [k, v] of Object.entries(labels || {})) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    cut[k] = s.length > 20 ? s.slice(0, 12) + '…' : s;
  }
  return fmtLabels(cut);
}

// exportList downloads every job of the filtered list.
async function exportList(format, status) {
  const q = apiQuery(new URLSearchParams(location.search));
  const items = await listAll('/v1/jobs', q, 100000, (n) => { status.textContent = `Reading jobs… ${n}`; });
  status.textContent = `${items.length} job${items.length === 1 ? '' : 's'} downloaded as ${format.toUpperCase()}.`;
  if (format === 'ndjson') {
    saveFile('jobs.ndjson', items.map((j) => JSON.stringify(j)).join('\n') + '\n', 'application/x-ndjson');
    return;
  }
  const cols = ['id', 'batch_id', 'seq', 'kind', 'state', 'verdict', 'value', 'optimal', 'cached', 'level_hash', 'labels', 'created_at', 'finished_at', 'error'];
  const cell = (v) => {
    if (v === undefined || v === null) return '';
    const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  saveFile('jobs.csv', [cols.join(','), ...items.map((j) => cols.map((c) => cell(j[c])).join(','))].join('\r\n') + '\r\n', 'text/csv');
}
