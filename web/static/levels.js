// The levels page: every distinct level (GET /v1/levels) with its newest
// definitive result, filtered by kind, verdict and label; the filters live
// in the address and pages follow the API's cursor.
import {getJSON, kindNames} from './api.js';
import {el, errorBox, fmtTime, labelFilters, markReady, scrollBox, show} from './dom.js';

export async function levelsPage() {
  const q = new URLSearchParams(location.search);
  const kind = el('select', {id: 'f-kind', 'aria-label': 'kind'}, el('option', {value: ''}, 'any kind'),
    (await kindNames()).map((k) => el('option', {value: k}, k)));
  const verdict = el('select', {id: 'f-verdict', 'aria-label': 'verdict'}, el('option', {value: ''}, 'any verdict'),
    ['solved', 'unsolvable'].map((v) => el('option', {value: v}, v)));
  const labels = el('input', {type: 'text', id: 'f-label', placeholder: 'chapter:3', 'aria-label': 'labels (key:value, comma-separated)'});
  kind.value = q.get('kind') || '';
  verdict.value = q.get('verdict') || '';
  labels.value = q.getAll('label').join(', ');
  const form = el('form', {class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const n = new URLSearchParams();
    if (kind.value) n.set('kind', kind.value);
    if (verdict.value) n.set('verdict', verdict.value);
    for (const l of labelFilters(labels.value)) n.append('label', l);
    location.href = '/ui/levels' + (n.toString() ? '?' + n : '');
  }}, kind, verdict, el('label', {}, 'Labels ', labels), el('button', {type: 'submit'}, 'Filter'),
  el('a', {href: '/ui/levels', class: 'button'}, 'Clear'));
  const body = el('tbody');
  const pager = el('nav', {class: 'pager', 'aria-label': 'pages'});
  show(el('h1', {}, 'Levels'),
    el('p', {class: 'muted'}, 'Each level once, with its newest definitive result (solved or unsolvable). Open one to see every run, play it or edit a copy.'),
    form,
    scrollBox(el('table', {id: 'levels'}, el('thead', {}, el('tr', {},
      ['level', 'kind', 'verdict', 'value', 'solver', 'solved', 'job'].map((h) => el('th', {scope: 'col'}, h)))), body)),
    pager);
  const api = new URLSearchParams();
  for (const n of ['kind', 'verdict', 'cursor']) if (q.get(n)) api.set(n, q.get(n));
  for (const l of q.getAll('label')) api.append('label', l);
  api.set('limit', '50');
  let page;
  try {
    page = await getJSON('/v1/levels?' + api);
  } catch (err) {
    body.replaceChildren(el('tr', {}, el('td', {colspan: 7}, errorBox(err))));
    return markReady();
  }
  body.replaceChildren(...page.items.map((l) => el('tr', {dataset: {level: l.hash}},
    el('td', {class: 'hash'}, el('a', {href: '/ui/levels/' + l.hash}, l.hash.slice(0, 12) + '…')),
    el('td', {}, l.kind),
    el('td', {class: l.verdict ? 'verdict-' + l.verdict : 'muted'}, l.verdict || 'no definitive result'),
    el('td', {class: 'num'}, l.value ?? ''),
    el('td', {}, l.solver_version || ''),
    el('td', {}, fmtTime(l.solved_at)),
    el('td', {}, l.job_id ? el('a', {href: '/ui/jobs/' + l.job_id}, '#' + l.job_id) : ''))));
  if (page.items.length === 0) {
    const filtered = [...q.keys()].some((k) => k !== 'cursor');
    body.append(el('tr', {}, el('td', {colspan: 7, class: 'muted'}, filtered ? 'No level matches these filters.' : 'No levels yet.')));
  }
  const links = [];
  if (q.get('cursor')) {
    const f = new URLSearchParams(location.search);
    f.delete('cursor');
    links.push(el('a', {href: '/ui/levels' + (f.toString() ? '?' + f : '')}, '← First page'));
  }
  if (page.next_cursor) {
    const n = new URLSearchParams(location.search);
    n.set('cursor', page.next_cursor);
    links.push(el('a', {href: '/ui/levels?' + n, rel: 'next'}, 'Next page →'));
  }
  pager.replaceChildren(...links);
  markReady();
}
