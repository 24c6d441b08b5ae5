// The level page: the job's facts, then its level drawn as the player sees
// it and its plan replayed — play, pause, step, scrub, arrow keys — from
// the states the kind's simulator computed (GET /v1/jobs/{id}/replay).
// The board element alone carries data-state, the canonical state text.
import {getJSON} from './api.js';
import {el, errorBox, isFinal, show, sleep} from './dom.js';
import {drawState, describeMove} from './draw.js';

export async function jobPage(id) {
  const facts = el('section', {'aria-live': 'polite'});
  show(el('h1', {}, 'Job #' + id), facts);
  let job = await getJSON('/v1/jobs/' + id);
  for (;;) {
    facts.replaceChildren(jobFacts(job));
    if (isFinal(job.state)) break;
    await sleep(500);
    job = await getJSON('/v1/jobs/' + id);
  }
  if (!job.result) return;
  const main = document.getElementById('main');
  try {
    main.append(player(await getJSON('/v1/jobs/' + id + '/replay')));
  } catch (err) {
    main.append(errorBox(err)); // e.g. a twoends row too long to list every state
  }
}

function jobFacts(job) {
  const dl = el('dl', {class: 'facts wide'});
  const add = (k, v) => v !== undefined && v !== null && v !== '' && dl.append(el('dt', {}, k), el('dd', {}, v));
  const r = job.result || {};
  add('kind', job.kind);
  add('state', job.state);
  add('verdict', r.verdict ? el('span', {class: 'verdict-' + r.verdict}, r.verdict) : undefined);
  add('value', r.value);
  add('optimal', r.verdict ? (r.optimal ? 'yes (proven)' : 'not proven') : undefined);
  add('proof', r.proof);
  add('solve', r.stats ? `${r.stats.elapsed_ms} ms, ${r.stats.nodes} nodes` : undefined);
  add('cached', job.cached ? 'yes' : undefined);
  add('error', job.error);
  add('batch', job.batch_id ? el('a', {href: '/ui/batches/' + job.batch_id}, '#' + job.batch_id) : undefined);
  add('level', el('a', {href: '/v1/levels/' + job.level_hash}, job.level_hash.slice(0, 16) + '…'));
  if (job.progress) add('progress', `${job.progress.nodes} nodes`);
  return dl;
}

// player is the board and its replay controls.
function player(rp) {
  const states = rp.states;
  const last = states.length - 1;
  let step = clamp(Number(new URLSearchParams(location.search).get('step') ?? 0), last);
  let timer = null;

  const board = el('div', {id: 'board', class: 'board board-' + rp.kind, role: 'img'});
  const moveInfo = el('p', {id: 'move-info', 'aria-live': 'polite'});
  const counter = el('output', {id: 'step-counter'});
  const scrub = el('input', {type: 'range', id: 'scrub', min: 0, max: last, value: step, 'aria-label': 'step'});
  const btn = (label, title, fn) => el('button', {type: 'button', title, 'aria-label': title, onclick: fn}, label);
  const playBtn = btn('▶ Play', 'play or pause (space)', () => toggle());
  const controls = el('div', {class: 'controls', role: 'toolbar', 'aria-label': 'replay'},
    btn('First', 'first step (Home)', () => go(0)),
    btn('◀ Back', 'step back (←)', () => go(step - 1)),
    playBtn,
    btn('Next ▶', 'step forward (→)', () => go(step + 1)),
    btn('Last', 'last step (End)', () => go(last)),
    scrub, counter);

  const render = () => {
    const st = states[step];
    board.dataset.state = st.text;
    board.setAttribute('aria-label', st.text);
    board.replaceChildren(drawState(rp.kind, st, states));
    moveInfo.textContent = describeMove(rp.kind, st);
    counter.textContent = `step ${step} / ${last}`;
    scrub.value = step;
    const url = new URL(location.href);
    url.searchParams.set('step', step);
    history.replaceState(null, '', url);
  };
  const go = (k) => {
    step = clamp(k, last);
    render();
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    playBtn.textContent = '▶ Play';
  };
  const toggle = () => {
    if (timer) return stop();
    if (step === last) step = 0;
    playBtn.textContent = '⏸ Pause';
    timer = setInterval(() => {
      if (step >= last) return stop();
      go(step + 1);
    }, 700);
  };
  scrub.addEventListener('input', () => go(Number(scrub.value)));
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('input, textarea, select')) return; // they handle their own keys
    const keys = {ArrowLeft: () => go(step - 1), ArrowRight: () => go(step + 1), Home: () => go(0), End: () => go(last), ' ': toggle};
    if (keys[e.key] && !(e.target.matches('button') && e.key === ' ')) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  render();
  const heading = rp.verdict === 'unknown' ? 'Best partial line' : (rp.verdict === 'unsolvable' ? 'Level (unsolvable)' : 'Solution');
  return el('section', {class: 'replay'},
    el('h2', {}, heading + ` — ${last} move${last === 1 ? '' : 's'}`),
    controls, moveInfo, board,
    el('p', {class: 'muted'}, 'Keys: ← → step, Home/End, space plays or pauses. Letters name colors and tile types.'));
}

function clamp(k, last) {
  if (!Number.isFinite(k)) return 0;
  return Math.max(0, Math.min(last, Math.trunc(k)));
}
