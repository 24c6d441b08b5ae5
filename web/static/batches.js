// The batches page: a table of batches with live progress, verdict counts,
// labels and filters. It uses the server's list of batches (GET
// /v1/batches) when the API has one, else the batches this browser
// submitted plus any batch opened by number.
import {getJSON, knownBatches} from './api.js';
import {el, fmtLabels, markReady, scrollBox, show, sleep} from './dom.js';

const verdicts = ['solved', 'unsolvable', 'unknown'];

// hasListAPI reads the API description: a GET on /v1/batches means the
// server lists batches.
async function hasListAPI() {
  try {
    const spec = await getJSON('/v1/openapi.json');
    return Boolean(spec.paths && spec.paths['/v1/batches'] && spec.paths['/v1/batches'].get);
  } catch (_) {
    return false;
  }
}

// listBatches returns the batches to show, newest first.
async function listBatches(useList) {
  if (useList) {
    const body = await getJSON('/v1/batches?limit=50');
    // A page object: its first list is the batches.
    const items = Array.isArray(body) ? body : Object.values(body || {}).find(Array.isArray) || [];
    // List items carry no progress counts (those are per batch): read each
    // batch's progress and keep the item's own fields (labels, created).
    return Promise.all(items.map(async (it) => ({...it, ...(await getJSON('/v1/batches/' + it.id))})));
  }
  const out = [];
  for (const id of knownBatches()) {
    try {
      out.push(await getJSON('/v1/batches/' + id));
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  return out;
}

export async function batchesPage() {
  const useList = await hasListAPI();
  const filterText = el('input', {type: 'search', id: 'filter', placeholder: 'label, kind or id', 'aria-label': 'filter batches'});
  const filterState = el('select', {id: 'filter-state', 'aria-label': 'show'},
    el('option', {value: ''}, 'all'), el('option', {value: 'live'}, 'running'), el('option', {value: 'finished'}, 'finished'));
  const openID = el('input', {type: 'number', min: 1, id: 'open-id', placeholder: 'batch #', 'aria-label': 'batch number'});
  const openForm = el('form', {class: 'inline', onsubmit: (e) => {
    e.preventDefault();
    if (openID.value) location.href = '/ui/batches/' + Number(openID.value);
  }}, openID, el('button', {type: 'submit'}, 'Open'));
  const body = el('tbody');
  const note = el('p', {class: 'muted'}, useList ? 'All batches on the server.' :
    'Batches submitted from this browser (the server has no list of batches); open any other by number.');
  const status = el('p', {class: 'error', role: 'alert', hidden: true});
  show(
    el('h1', {}, 'Batches'),
    el('div', {class: 'toolbar'}, filterText, filterState, openForm, el('a', {class: 'button', href: '/ui/submit'}, 'Submit levels')),
    note, status,
    scrollBox(el('table', {class: 'batches'},
      el('thead', {}, el('tr', {},
        ['#', 'labels', 'kinds', 'levels', 'progress', ...verdicts, 'created'].map((h) => el('th', {scope: 'col'}, h)))),
      body)),
  );
  let batches = [];
  const render = () => {
    const q = filterText.value.trim().toLowerCase();
    const which = filterState.value;
    const rows = batches.filter((b) => {
      const finished = Boolean(b.finished_at) || b.done >= 1;
      if (which === 'live' && finished) return false;
      if (which === 'finished' && !finished) return false;
      // Labels read "k=v" here and "k:v" in the API's filters: both match.
      const labels = fmtLabels(b.labels);
      const hay = [String(b.id), labels, labels.replace(/=/g, ':'), Object.keys(b.kinds || {}).join(' ')].join(' ').toLowerCase();
      return !q || q.split(/\s*,\s*/).filter(Boolean).every((part) => hay.includes(part));
    });
    body.replaceChildren(...rows.map(row));
    if (rows.length === 0) {
      const msg = batches.length === 0 ? 'No batches yet.' : `No batch matches the filter (${batches.length} hidden).`;
      body.append(el('tr', {}, el('td', {colspan: 10, class: 'muted'}, msg)));
    }
  };
  filterText.addEventListener('input', render);
  filterState.addEventListener('change', render);
  for (;;) {
    try {
      batches = await listBatches(useList);
      status.hidden = true;
    } catch (err) {
      status.textContent = err.message;
      status.hidden = false;
    }
    render();
    markReady();
    const live = batches.some((b) => !b.finished_at && b.done < 1);
    await sleep(live ? 1000 : 5000);
  }
}

function row(b) {
  const pct = Math.floor((b.done || 0) * 100);
  return el('tr', {dataset: {batch: b.id}},
    el('td', {}, el('a', {href: '/ui/batches/' + b.id}, '#' + b.id)),
    el('td', {}, fmtLabels(b.labels)),
    el('td', {}, Object.entries(b.kinds || {}).map(([k, n]) => k + ' ' + n).join(', ')),
    el('td', {class: 'num'}, b.total),
    el('td', {}, el('progress', {max: 100, value: pct, 'aria-label': 'batch ' + b.id + ' done'}), ' ', pct + '%'),
    ...verdicts.map((v) => el('td', {class: 'num verdict-' + v}, (b.verdicts || {})[v] || 0)),
    el('td', {}, new Date(b.created_at).toLocaleString()),
  );
}

