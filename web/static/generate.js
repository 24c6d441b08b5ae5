// Levels to a target difficulty and the smallest fix of an unsolvable level
// (docs/generate.md): the generate form (/ui/generate), a generation's
// progress (/ui/generations/{id}) and the job page's repair button.
import {getJSON, postJSON, rememberBatch} from './api.js';
import {el, errorBox, show, sleep} from './dom.js';

export async function generatePage() {
  const template = el('textarea', {id: 'template', rows: 10, spellcheck: 'false',
    placeholder: 'a sheep layout, a zuma hand or ammo level, or a columns level'});
  const num = (id, attrs) => el('input', {type: 'number', id, ...attrs});
  const count = num('gen-count', {min: 1, max: 1000, value: 10});
  const lo = num('gen-min', {min: 1, max: 10, value: 4});
  const hi = num('gen-max', {min: 1, max: 10, value: 6});
  const seed = num('gen-seed', {min: 0, value: 1});
  const candidates = num('gen-candidates', {min: 0, placeholder: '50 per level'});
  const maxMS = num('gen-max-ms', {min: 0, placeholder: 'kind default'});
  const playouts = num('gen-playouts', {min: 1, max: 100000, placeholder: '1000'});
  const status = el('div', {id: 'generate-status', 'aria-live': 'polite'});
  const form = el('form', {id: 'generate-form', class: 'submit', onsubmit: async (e) => {
    e.preventDefault();
    status.replaceChildren(el('p', {}, 'Submitting…'));
    try {
      let tpl = JSON.parse(template.value);
      if (tpl && !('kind' in tpl) && 'levelData' in tpl) tpl = {kind: 'sheep', ...tpl};
      const req = {template: tpl, count: Number(count.value), score: {min: Number(lo.value), max: Number(hi.value)},
        seed: Number(seed.value || 0)};
      if (candidates.value) req.max_candidates = Number(candidates.value);
      if (maxMS.value) req.budget = {max_ms: Number(maxMS.value)};
      if (playouts.value) req.difficulty = {playouts: Number(playouts.value)};
      const g = await postJSON('/v1/generate', req);
      rememberBatch(g.batch_id);
      location.href = '/ui/generations/' + g.id;
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }},
  el('label', {for: 'template'}, 'Template: a sheep layout (types dealt anew), a zuma level (balls drawn anew), a columns level (pieces drawn anew)'),
  template,
  el('div', {class: 'grid2'},
    el('label', {}, 'Levels ', count),
    el('label', {}, 'Lowest score ', lo),
    el('label', {}, 'Highest score ', hi),
    el('label', {}, 'Seed ', seed),
    el('label', {}, 'Candidates at most ', candidates),
    el('label', {}, 'Solve budget per candidate, ms ', maxMS),
    el('label', {}, 'Difficulty playouts ', playouts)),
  el('button', {type: 'submit', id: 'generate'}, 'Generate and follow'),
  status);
  show(el('h1', {}, 'Generate levels'), form);
  template.focus();
}

// generationPage follows a generation or repair until it ends; its levels
// are the jobs of its batch.
export async function generationPage(id) {
  const facts = el('section', {id: 'generation', 'aria-live': 'polite'});
  const cancel = el('button', {type: 'button', id: 'cancel-generation', onclick: async () => {
    try {
      await postJSON('/v1/generations/' + id + '/cancel', {});
    } catch (err) {
      facts.append(errorBox(err));
    }
  }}, 'Cancel');
  show(el('h1', {}, 'Generation #' + id), facts, cancel);
  for (;;) {
    const g = await getJSON('/v1/generations/' + id);
    facts.replaceChildren(generationFacts(g));
    if (g.state !== 'running') {
      cancel.remove();
      return;
    }
    await sleep(1000);
  }
}

function generationFacts(g) {
  const dl = el('dl', {class: 'facts wide'});
  const add = (name, k, v) => v !== undefined && v !== null && v !== '' && dl.append(el('dt', {}, k), el('dd', {'data-gen': name}, v));
  add('mode', 'mode', g.mode === 'repair' ? 'repair (smallest fix)' : 'generate');
  add('state', 'state', g.state);
  add('kept', g.mode === 'repair' ? 'fixes' : 'levels kept', `${g.kept} of ${g.count}`);
  add('tried', 'candidates tried', g.tried);
  add('rejected', 'rejected', Object.entries(g.rejected || {}).map(([k, v]) => `${k.replace('_', ' ')} ${v}`).join(', '));
  if (g.score) add('band', 'score band', `${g.score.min}–${g.score.max}`);
  if (g.job_id) add('job', 'level of', el('a', {href: '/ui/jobs/' + g.job_id}, 'job #' + g.job_id));
  add('batch', 'levels', el('a', {href: '/ui/batches/' + g.batch_id}, 'batch #' + g.batch_id));
  add('note', 'note', g.note);
  return dl;
}

// repairButton asks for the smallest fix of an unsolvable job's level.
export function repairButton(job) {
  const status = el('span', {'aria-live': 'polite'});
  return el('p', {}, el('button', {type: 'button', id: 'repair', onclick: async () => {
    status.replaceChildren(' asking…');
    try {
      const g = await postJSON('/v1/jobs/' + job.id + '/repair', {});
      location.href = '/ui/generations/' + g.id;
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  }}, 'Find the smallest fix'), status);
}
