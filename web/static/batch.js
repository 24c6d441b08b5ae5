// The batch page: live progress, then the report — unsolvable levels with
// their proofs, unknown ones with the best partial line, failures, the
// slowest, a histogram of solve times, and the difficulty scores (a
// histogram and the hardest levels; docs/difficulty.md).
import {download, getJSON, request} from './api.js';
import {deliveriesSection} from './deliveries.js';
import {button, el, fmtLabels, markReady, scrollBox, show, sleep} from './dom.js';

// histogramLimit caps the results read for the histogram.
const histogramLimit = 20000;

export async function batchPage(id) {
  const head = el('section', {'aria-live': 'polite'});
  const report = el('section');
  show(el('h1', {}, 'Batch #' + id), head, report, deliveriesSection(id));
  let b = await getJSON('/v1/batches/' + id);
  for (;;) {
    head.replaceChildren(summary(b));
    if (b.finished_at || b.done >= 1) break;
    await sleep(700);
    b = await getJSON('/v1/batches/' + id);
  }
  const rep = await getJSON('/v1/batches/' + id + '/report');
  const times = await solveTimes(id);
  report.replaceChildren(
    figures(rep),
    histogram(times),
    scores(rep.difficulty, b.priority),
    levelTable('Hardest (difficulty score)', rep.difficulty && rep.difficulty.hardest, ['score'], (l) => [l.difficulty_score]),
    levelTable('Unsolvable', rep.unsolvable, ['proof'], (l) => [el('a', {href: '/ui/jobs/' + l.job_id}, l.proof + ' — why')]),
    levelTable('Unknown: the budget ran out', rep.unknown, ['best partial line'], (l) => [partial(l)]),
    levelTable('Failed', rep.failed, ['error'], (l) => [l.error]),
    levelTable('Slowest', rep.slowest, ['solve ms', 'nodes'], (l) => [fmtMS(l.elapsed_ms), Math.round(l.nodes)]),
    // replaceChildren writes null as the text "null": leave it out instead.
    ...(rep.truncated ? [el('p', {class: 'muted'}, 'Lists are cut at ' + rep.list_limit + ' levels.')] : []),
  );
  report.dataset.ready = 'true';
  markReady();
}

function summary(b) {
  const pct = Math.floor((b.done || 0) * 100);
  const dl = el('dl', {class: 'facts'});
  const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, v));
  add('levels', b.total);
  add('progress', el('span', {}, el('progress', {max: 100, value: pct, 'aria-label': 'done'}), ' ' + pct + '%'));
  add('state', b.finished_at ? 'finished' : (b.canceled_at ? 'canceled' : 'running'));
  add('verdicts', Object.entries(b.verdicts || {}).map(([k, n]) => k + ' ' + n).join(', ') || '—');
  add('jobs', Object.entries(b.states || {}).map(([k, n]) => k + ' ' + n).join(', '));
  add('kinds', Object.entries(b.kinds || {}).map(([k, n]) => k + ' ' + n).join(', '));
  add('labels', fmtLabels(b.labels) || '—');
  add('priority', b.priority);
  add('cached', b.cached);
  return el('div', {id: 'batch-summary', dataset: {done: b.finished_at ? 'true' : 'false'}}, dl,
    el('div', {class: 'controls'},
      el('a', {class: 'button', href: '/ui/jobs?batch=' + b.id, id: 'batch-jobs'}, `All ${b.total} jobs of this batch`),
      // Downloads go through fetch: a plain link would carry no token.
      button('NDJSON results', () => download('/v1/batches/' + b.id + '/results', `batch-${b.id}-results.ndjson`)),
      button('Report JSON', () => download('/v1/batches/' + b.id + '/report', `batch-${b.id}-report.json`))));
}

function figures(rep) {
  const p = rep.solve_ms || {};
  return el('p', {}, `${rep.jobs} jobs; solve time p50 ${fmtMS(p.p50)} ms, p95 ${fmtMS(p.p95)} ms, p99 ${fmtMS(p.p99)} ms (solved, not cached).`);
}

function fmtMS(x) {
  if (x === undefined || x === null) return '—';
  return x < 10 ? x.toFixed(2) : String(Math.round(x));
}

// solveTimes reads the batch's NDJSON results: the elapsed ms of each
// result that was computed (not cached).
async function solveTimes(id) {
  const text = await (await request('/v1/batches/' + id + '/results')).text();
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || out.length >= histogramLimit) continue;
    const r = JSON.parse(line);
    if (r.result && !r.cached) out.push(r.result.stats.elapsed_ms || 0);
  }
  return out;
}

// histogram buckets solve times by powers of two of milliseconds.
function histogram(times) {
  const bounds = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, Infinity];
  const counts = bounds.map(() => 0);
  for (const t of times) counts[bounds.findIndex((b) => t < b)]++;
  let last = counts.length - 1;
  while (last > 0 && counts[last] === 0) last--;
  const top = Math.max(1, ...counts);
  const rows = [];
  for (let i = 0; i <= last; i++) {
    const label = (i === 0 ? '< 1' : bounds[i - 1] + '–' + (bounds[i] === Infinity ? '' : bounds[i])) + ' ms';
    rows.push(el('div', {class: 'hbar'},
      el('span', {class: 'hlabel'}, label),
      el('span', {class: 'hfill', style: `width:${(counts[i] / top) * 100}%`}),
      el('span', {class: 'hcount'}, counts[i])));
  }
  return el('section', {id: 'histogram'}, el('h2', {}, 'Solve times'),
    times.length ? rows : el('p', {class: 'muted'}, 'No computed results (all cached or none yet).'));
}

// scores is the histogram of the difficulty scores 1..10 of the batch's
// rated levels.
function scores(d, priority) {
  const sec = el('section', {id: 'scores'}, el('h2', {}, 'Difficulty scores'));
  if (!d || !d.rated) {
    sec.append(el('p', {class: 'muted'}, priority === 'bulk'
      ? 'No level has a score: bulk batches get difficulty figures only when they set playouts.'
      : 'No level has a score (no solved level of a rated kind, or no figures).'));
    return sec;
  }
  const top = Math.max(1, ...d.histogram);
  sec.append(el('p', {}, `${d.rated} rated level${d.rated === 1 ? '' : 's'}, 1 trivial … 10 brutal.`));
  d.histogram.forEach((n, i) => sec.append(el('div', {class: 'hbar', dataset: {score: i + 1}},
    el('span', {class: 'hlabel'}, 'score ' + (i + 1)),
    el('span', {class: 'hfill', style: `width:${(n / top) * 100}%`}),
    el('span', {class: 'hcount'}, n))));
  return sec;
}

function partial(l) {
  const plan = l.best_partial_plan;
  const n = Array.isArray(plan) ? plan.length : (typeof plan === 'string' ? plan.length : 0);
  return el('a', {href: '/ui/jobs/' + l.job_id}, n ? n + ' moves — replay' : 'none');
}

function levelTable(title, levels, extra, cells) {
  const list = levels || [];
  return el('section', {},
    el('h2', {}, title + ' (' + list.length + ')'),
    list.length === 0 ? el('p', {class: 'muted'}, 'None.') :
      scrollBox(el('table', {},
        el('thead', {}, el('tr', {}, ['#', 'job', 'kind', ...extra].map((h) => el('th', {scope: 'col'}, h)))),
        el('tbody', {}, list.map((l) => el('tr', {},
          el('td', {class: 'num'}, l.seq ?? ''),
          el('td', {}, el('a', {href: '/ui/jobs/' + l.job_id}, 'job ' + l.job_id)),
          el('td', {}, l.kind),
          ...cells(l).map((c) => el('td', {}, c))))))));
}
