// The editor: edit a copy of a stored level (/ui/edit?level=HASH, or
// ?job=ID for that job's level) with the kind's editor (kinds/<kind>.js),
// re-checked as you edit. Each change is validated at once by the kind's
// parser and linter (POST /v1/levels/validate: errors and warnings are
// named before any solve), then solved as an interactive job labelled
// draft_of:<parent hash>, whose verdict, plan length and difficulty show
// with what changed since the last check. Changes made while a check runs
// are coalesced: the next check takes the newest level, none is queued
// behind another. Save submits the level as a job labelled parent:<parent
// hash> and opens it.
import {canonical, getJSON, postJSON, waitJob} from './api.js';
import {button, el, errorBox, isFinal, markReady, show} from './dom.js';
import {rendererOf} from './draw.js';

// timings are the edit-to-verdict times of this page, in ms, and phases
// the times of each step of each check (validate, submit, wait), for the
// benchmark (web/edit_bench_test.go) and anyone curious.
window.puzzledEditTimings = [];
window.puzzledEditPhases = [];

export async function editPage() {
  const q = new URLSearchParams(location.search);
  let parent = q.get('level');
  if (!parent && q.get('job')) parent = (await getJSON('/v1/jobs/' + Number(q.get('job')))).level_hash;
  if (!parent || !/^[0-9a-f]{64}$/.test(parent)) throw new Error('open the editor from a level: /ui/edit?level=<hash>');
  const lr = await getJSON('/v1/levels/' + parent);
  lr.level = await canonical(lr.level);
  const renderer = await rendererOf(lr.kind);
  if (!renderer.editor) throw new Error('no editor for kind ' + lr.kind);

  const validation = el('div', {id: 'validation', 'aria-live': 'polite'});
  const check = el('div', {id: 'check', 'aria-live': 'polite', dataset: {state: 'idle'}});
  const changes = el('div', {id: 'changes'});
  const jsonBox = el('textarea', {id: 'edit-json', rows: 6, spellcheck: 'false', 'aria-label': 'level JSON'});
  const jsonNote = el('p', {class: 'muted', id: 'edit-json-note'});
  let current = structuredClone(lr.level);
  let lastChecked = {level: lr.level, verdict: lr.result ? lr.result.verdict : null, hash: parent};
  const checker = newChecker({parent, validation, check, changes, jsonBox, fieldChanges: renderer.fieldChanges || {}});
  const editor = renderer.editor(structuredClone(lr.level), (level) => {
    current = level;
    jsonBox.value = JSON.stringify(level);
    checker.edited(level);
  });
  checker.editor = editor;
  checker.last = () => lastChecked;
  checker.setLast = (x) => { lastChecked = x; };
  let typing = null;
  jsonBox.value = JSON.stringify(current);
  jsonBox.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      let level;
      try {
        level = JSON.parse(jsonBox.value);
      } catch (err) {
        jsonNote.textContent = 'Not JSON yet: ' + err.message;
        return;
      }
      jsonNote.textContent = '';
      current = level;
      editor.set(level);
      checker.edited(level);
    }, 250);
  });
  const save = button('Save as a new job', async () => {
    const job = await postJSON('/v1/jobs', {level: current, labels: {parent}});
    location.href = '/ui/jobs/' + job.id;
  }, {id: 'save'});
  show(
    el('h1', {}, 'Edit a copy'),
    el('p', {}, 'Of level ', el('a', {href: '/ui/levels/' + parent, id: 'edit-parent'}, parent.slice(0, 16) + '…'),
      lr.result ? [' (', el('span', {class: 'verdict-' + lr.result.verdict}, lr.result.verdict), ')'] : '',
      '. Every change is checked by the server: first its rules, then its solver.'),
    el('div', {class: 'edit-layout'},
      el('div', {class: 'edit-main'}, editor.element),
      el('aside', {class: 'edit-side'}, el('h2', {}, 'Check'), validation, check, changes,
        el('div', {class: 'controls'}, save))),
    el('h2', {}, 'Level JSON'),
    el('p', {class: 'muted'}, 'What Submit takes back; edit it here too.'),
    jsonBox, jsonNote);
  check.replaceChildren(el('p', {class: 'muted'}, 'Make a change to check it.'));
  markReady();
}

// newChecker runs the checks: validate at once, then solve the newest
// level; edits during a check wait for it and only the newest runs next.
function newChecker({parent, validation, check, changes, jsonBox, fieldChanges}) {
  let pending = null;
  let running = false;
  const self = {};
  const pump = async () => {
    if (running || !pending) return;
    running = true;
    const p = pending;
    pending = null;
    try {
      await run(p);
    } catch (err) {
      check.dataset.state = 'error';
      check.replaceChildren(errorBox(err));
    } finally {
      running = false;
      pump();
    }
  };
  const run = async ({level, t0}) => {
    check.dataset.state = 'validating';
    const phases = {queued: performance.now() - t0};
    let mark = performance.now();
    const lap = (name) => {
      const now = performance.now();
      phases[name] = now - mark;
      mark = now;
    };
    const v = await postJSON('/v1/levels/validate', level);
    lap('validate');
    if (pending) return; // a newer edit: check that one instead
    self.editor.mark(v.valid ? (v.warnings || []).flatMap((w) => w.marks || []) : [], v.valid ? '' : v.field);
    if (!v.valid) {
      validation.replaceChildren(el('p', {class: 'error', role: 'alert', id: 'edit-error', dataset: {field: v.field || ''}}, v.error));
      check.dataset.state = 'invalid';
      check.dataset.ms = String(Math.round(performance.now() - t0));
      check.replaceChildren(el('p', {class: 'muted'}, 'Not solved: fix the error first.'));
      return;
    }
    jsonBox.value = JSON.stringify(v.level);
    validation.replaceChildren(...(v.warnings || []).map((w) => el('p', {class: 'warning', dataset: {marks: (w.marks || []).join(' ')}}, '⚠ ' + w.message)));
    if (!v.warnings || !v.warnings.length) validation.append(el('p', {class: 'muted', id: 'edit-ok'}, 'Valid.'));
    check.dataset.state = 'solving';
    const out = await solveDraft(v, parent, lap);
    if (pending) return;
    const ms = performance.now() - t0;
    const before = self.last();
    changes.replaceChildren(el('div', {}, el('h3', {}, 'Since the last check'),
      el('ul', {}, describeChanges(before.level, v.level, fieldChanges).map((c) => el('li', {}, c))),
      before.verdict && before.verdict !== out.verdict ? el('p', {id: 'verdict-change'}, `verdict: ${before.verdict} → ${out.verdict}`) : null));
    self.setLast({level: v.level, verdict: out.verdict, hash: v.hash});
    check.replaceChildren(resultView(out, ms));
    check.dataset.verdict = out.verdict;
    check.dataset.hash = v.hash;
    check.dataset.ms = String(Math.round(ms));
    window.puzzledEditTimings.push(ms);
    lap('render');
    window.puzzledEditPhases.push(phases);
    // The verdict is up; the plan's length follows (one more request).
    if (out.verdict === 'solved') {
      const sol = await getJSON('/v1/jobs/' + out.job.id + '/solution');
      const n = Array.isArray(sol.plan) ? sol.plan.length : (typeof sol.plan === 'string' ? sol.plan.length : undefined);
      const dd = check.querySelector('#plan-length');
      if (dd && n !== undefined) dd.textContent = `${n} moves`;
    }
    check.dataset.state = 'done';
  };
  self.edited = (level) => {
    pending = {level, t0: performance.now()};
    check.dataset.state = 'pending';
    pump();
  };
  return self;
}

// solveDraft solves a validated level as an interactive job and waits for
// its result; a level solved before comes back at once (cached).
async function solveDraft(v, parent, lap) {
  let job = await postJSON('/v1/jobs', {level: v.level, priority: 'interactive', labels: {draft_of: parent}});
  lap('submit');
  while (!isFinal(job.state)) job = await waitJob(job.id, 30);
  lap('wait');
  const r = job.result;
  return {job, verdict: r ? r.verdict : job.state, result: r};
}

function resultView(out, ms) {
  const r = out.result || {};
  const dl = el('dl', {class: 'facts'});
  const add = (k, v, id) => v !== undefined && v !== null && dl.append(el('dt', {}, k), el('dd', {id}, v));
  add('verdict', el('strong', {class: 'verdict-' + out.verdict, id: 'verdict', dataset: {verdict: out.verdict}}, out.verdict));
  add('plan', out.verdict === 'solved' ? '…' : undefined, 'plan-length');
  add('value', r.value);
  add('proof', r.proof);
  const d = r.difficulty;
  add('difficulty', d && d.score !== undefined ? `${d.score} / 10` : (out.verdict === 'solved' ? 'not rated' : undefined), 'difficulty-score');
  add('checked in', `${Math.round(ms)} ms${out.job.cached ? ' (solved before)' : ''}`);
  return el('div', {}, dl, el('p', {}, el('a', {href: '/ui/jobs/' + out.job.id, id: 'draft-job'}, 'this check: job #' + out.job.id)));
}

// describeChanges lists what changed between two levels of a kind, field
// by field; fieldChanges (the kind's module) words the change of a field
// of its own, such as sheep's tiles by id.
export function describeChanges(a, b, fieldChanges = {}) {
  const out = [];
  if (!a || !b) return out;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[k]);
    const y = JSON.stringify(b[k]);
    if (x === y) continue;
    if (fieldChanges[k]) out.push(...fieldChanges[k](a[k], b[k]));
    else out.push(`${k}: ${short(x)} → ${short(y)}`);
  }
  return out.length ? out : ['nothing (the same level)'];
}

function short(s) {
  if (s === undefined) return '—';
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}
