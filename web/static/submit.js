// The submit page: paste JSON or NDJSON, or drop files (levels, arrays,
// NDJSON, community sheep files), set priority, budget, difficulty
// playouts and labels, then
// follow the job (one level) or the batch (several).
import {postJSON, rememberBatch} from './api.js';
import {el, errorBox, markReady, show} from './dom.js';

// parseLevels reads one text: a level, an array of levels, a batch object
// {"levels": […]}, or NDJSON. A community sheep file (no "kind", has
// "levelData") gets "kind": "sheep", as puzzlectl does.
export function parseLevels(text, name = 'input') {
  const t = text.trim();
  if (!t) return [];
  let values;
  try {
    const v = JSON.parse(t);
    values = Array.isArray(v) ? v : (v && Array.isArray(v.levels) ? v.levels : [v]);
  } catch (_) {
    values = t.split('\n').filter((l) => l.trim()).map((l, i) => {
      try {
        return JSON.parse(l);
      } catch (err) {
        throw new Error(`${name}, line ${i + 1}: not JSON (${err.message})`);
      }
    });
  }
  return values.map((v) => (v && typeof v === 'object' && !('kind' in v) && 'levelData' in v) ? {kind: 'sheep', ...v} : v);
}

// parseLabels reads "k=v, k=v" or a JSON object.
function parseLabels(text) {
  const t = text.trim();
  if (!t) return undefined;
  if (t.startsWith('{')) return JSON.parse(t);
  const out = {};
  for (const part of t.split(',')) {
    const [k, ...rest] = part.split('=');
    if (!k.trim() || rest.length === 0) throw new Error(`labels: "${part.trim()}" is not key=value`);
    out[k.trim()] = rest.join('=').trim();
  }
  return out;
}

export async function submitPage() {
  const text = el('textarea', {id: 'levels', rows: 12, spellcheck: 'false',
    placeholder: '{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}\n— or NDJSON, a JSON array, or drop files here'});
  const files = el('input', {type: 'file', id: 'files', multiple: true, accept: '.json,.ndjson,.txt,application/json'});
  const fileList = el('ul', {id: 'file-list', class: 'files'});
  const fileErrors = el('div', {id: 'file-errors', 'aria-live': 'polite'});
  let dropped = [];
  const renderFiles = () => fileList.replaceChildren(...dropped.map((f, i) => el('li', {},
    f.name, ' ', el('button', {type: 'button', class: 'remove', 'aria-label': 'remove ' + f.name,
      onclick: () => { dropped.splice(i, 1); renderFiles(); }}, 'Remove'))));
  // addFiles reads the files; one that cannot be read is named, the others
  // are kept.
  const addFiles = async (list) => {
    const problems = [];
    for (const f of [...list]) {
      try {
        dropped.push({name: f.name, text: await f.text()});
      } catch (err) {
        problems.push(errorBox(`${f.name}: cannot be read (${err.message || err})`));
      }
    }
    fileErrors.replaceChildren(...problems);
    renderFiles();
    files.value = '';
  };
  files.addEventListener('change', () => addFiles(files.files));
  const drop = el('div', {class: 'drop', id: 'drop', tabindex: 0, role: 'button', 'aria-label': 'drop level files here or press Enter to choose',
    onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); files.click(); } },
    ondragover: (e) => { e.preventDefault(); drop.classList.add('over'); },
    ondragleave: () => drop.classList.remove('over'),
    ondrop: (e) => { e.preventDefault(); drop.classList.remove('over'); addFiles(e.dataTransfer.files); },
  }, 'Drop .json / .ndjson files (community sheep files too), or ', files);
  const dropBox = el('div', {}, drop, fileErrors);
  const priority = el('select', {id: 'priority'},
    el('option', {value: ''}, 'default (one level: interactive, a batch: bulk)'),
    el('option', {value: 'interactive'}, 'interactive'), el('option', {value: 'bulk'}, 'bulk'));
  const maxMS = el('input', {type: 'number', id: 'max-ms', min: 0, placeholder: 'kind default'});
  const maxNodes = el('input', {type: 'number', id: 'max-nodes', min: 0, placeholder: 'no limit'});
  const labels = el('input', {type: 'text', id: 'labels', placeholder: 'season=3, author=ana'});
  const playouts = el('input', {type: 'number', id: 'playouts', min: 0, max: 100000,
    placeholder: 'default (interactive: 1000, bulk: none)'});
  const status = el('div', {id: 'submit-status', 'aria-live': 'polite'});
  const form = el('form', {id: 'submit-form', class: 'submit', onsubmit: async (e) => {
    e.preventDefault();
    status.replaceChildren(el('p', {}, 'Submitting…'));
    try {
      // Each level of a file carries label file:<name>, as puzzlectl's do.
      const levels = parseLevels(text.value, 'pasted text').map((level) => ({level}));
      for (const f of dropped) levels.push(...parseLevels(f.text, f.name).map((level) => ({level, labels: {file: f.name}})));
      if (levels.length === 0) throw new Error('no levels: paste some or drop files');
      const opts = {};
      if (priority.value) opts.priority = priority.value;
      const budget = {};
      if (maxMS.value) budget.max_ms = Number(maxMS.value);
      if (maxNodes.value) budget.max_nodes = Number(maxNodes.value);
      if (Object.keys(budget).length) opts.budget = budget;
      if (playouts.value !== '') opts.difficulty = {playouts: Number(playouts.value)};
      const lab = parseLabels(labels.value);
      if (lab) opts.labels = lab;
      if (levels.length === 1) {
        const one = levels[0];
        if (one.labels) opts.labels = {...one.labels, ...(opts.labels || {})};
        const job = await postJSON('/v1/jobs', {level: one.level, ...opts});
        location.href = '/ui/jobs/' + job.id;
      } else {
        const items = levels.map((x) => (x.labels ? x : x.level));
        const b = await postJSON('/v1/batches', {levels: items, ...opts});
        const id = b.id ?? b.batch_id;
        rememberBatch(id);
        location.href = '/ui/batches/' + id;
      }
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }},
  el('label', {for: 'levels'}, 'Levels: one JSON level, a JSON array, or NDJSON'), text,
  dropBox, fileList,
  el('div', {class: 'grid2'},
    el('label', {}, 'Priority ', priority),
    el('label', {}, 'Budget, ms ', maxMS),
    el('label', {}, 'Budget, nodes ', maxNodes),
    el('label', {}, 'Labels ', labels),
    el('label', {}, 'Difficulty playouts (0: none) ', playouts)),
  el('button', {type: 'submit', id: 'submit'}, 'Submit and follow'),
  status);
  show(el('h1', {}, 'Submit levels'), form);
  text.focus();
  markReady();
}
