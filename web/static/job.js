// The job page: the job's facts (labels, budget, file, the level it was
// edited from, its other runs), live progress with Cancel while it runs,
// then the difficulty figures, why it is not solved (explain.js), its
// level drawn as the player sees it and its plan replayed — play, pause,
// step, scrub, arrow keys — from the states the kind's simulator computed
// (GET /v1/jobs/{id}/replay), and "play from this step" (play.js).
// The board element alone carries data-state, the canonical state text.
import {getJSON, postJSON} from './api.js';
import {button, el, errorBox, fmtDuration, fmtLabels, fmtTime, isFinal, markReady, scrollBox, show, sleep} from './dom.js';
import {describeMove, rendererOf} from './draw.js';
import {explainSection} from './explain.js';
import {decodeMoves, playPanel} from './play.js';
import {repairButton} from './generate.js';

export async function jobPage(id) {
  const facts = el('section', {id: 'job-facts', 'aria-live': 'polite'});
  const live = el('section', {id: 'live', 'aria-label': 'progress'});
  show(el('h1', {}, 'Job #' + id), facts, live);
  let job = await getJSON('/v1/jobs/' + id);
  while (!isFinal(job.state)) {
    facts.replaceChildren(jobFacts(job));
    live.replaceChildren(liveProgress(job));
    await sleep(500);
    job = await getJSON('/v1/jobs/' + id);
  }
  live.remove();
  facts.replaceChildren(jobFacts(job));
  const main = document.getElementById('main');
  main.append(relations(job));
  if (!job.result) return markReady();
  if (job.result.verdict === 'unsolvable') main.append(repairButton(job));
  let rp;
  try {
    rp = await getJSON('/v1/jobs/' + id + '/replay');
  } catch (err) {
    main.append(difficultySection(job), errorBox(err)); // e.g. a twoends row too long to list every state
    return markReady();
  }
  const renderer = await rendererOf(rp.kind);
  const view = el('div', {id: 'view'});
  const p = player(rp, renderer, {onPlay: (step) => openPlay(step, [])});
  const openPlay = (step, played) => {
    const states = rp.states;
    const prefix = states.slice(1, step + 1).map((s) => s.move);
    const url = new URL(location.href);
    url.searchParams.set('step', step);
    const panel = playPanel({level: rp.level, kind: rp.kind, renderer, prefix, played, onChange: (moves) => {
      const u = new URL(location.href);
      u.searchParams.set('play', JSON.stringify(moves));
      history.replaceState(null, '', u);
    }});
    url.searchParams.set('play', JSON.stringify(played));
    history.replaceState(null, '', url);
    const back = button('Back to the replay', async () => {
      const u = new URL(location.href);
      u.searchParams.delete('play');
      history.replaceState(null, '', u);
      view.replaceChildren(p.element);
      p.go(step);
    }, {id: 'play-leave'});
    view.replaceChildren(el('div', {class: 'controls'}, back), panel);
  };
  const why = explainSection(rp, job, renderer, {
    goTo: (step, marks) => {
      if (!p.element.isConnected) view.replaceChildren(p.element);
      p.go(step, marks);
      p.element.scrollIntoView({block: 'nearest'});
    },
    playLine: (line) => openPlay(0, decodeMoves(line)),
  });
  if (why) main.append(why);
  main.append(difficultySection(job), view);
  view.append(p.element);
  const q = new URLSearchParams(location.search);
  if (q.has('play')) {
    let played = [];
    try {
      played = decodeMoves(JSON.parse(q.get('play')));
    } catch (_) { /* a damaged address: start without moves */ }
    openPlay(p.step(), played);
  }
  markReady();
}

function jobFacts(job) {
  const dl = el('dl', {class: 'facts wide'});
  const add = (k, v, name) => v !== undefined && v !== null && v !== '' &&
    dl.append(el('dt', {}, k), el('dd', name ? {'data-fact': name} : {}, v));
  const r = job.result || {};
  const labels = job.labels || {};
  add('kind', job.kind);
  add('state', job.state, 'state');
  add('verdict', r.verdict ? el('span', {class: 'verdict-' + r.verdict}, r.verdict) : undefined, 'verdict');
  add('value', r.value);
  add('optimal', r.verdict ? (r.optimal ? 'yes (proven)' : 'not proven') : undefined);
  add('proof', r.proof);
  add('plan', r.verdict === 'solved' && r.stats ? planText(job) : undefined);
  add('progress', r.verdict && r.details && r.details.tiles !== undefined && r.details.cleared !== undefined ?
    `${r.details.cleared} of ${r.details.tiles} tiles cleared` : undefined, 'cleared');
  add('solve', r.stats ? `${r.stats.elapsed_ms} ms, ${r.stats.nodes} nodes` : undefined);
  add('cached', job.cached ? 'yes' : undefined);
  add('error', job.error);
  add('batch', job.batch_id ? el('a', {href: '/ui/batches/' + job.batch_id}, '#' + job.batch_id + (job.seq !== undefined ? ', level ' + job.seq : '')) : undefined);
  add('level', el('a', {href: '/ui/levels/' + job.level_hash, id: 'level-link'}, job.level_hash.slice(0, 16) + '…'));
  add('file', typeof labels.file === 'string' ? labels.file : undefined, 'file');
  add('labels', fmtLabels(labels) || '—', 'labels');
  add('priority', job.priority);
  add('budget', budgetText(job), 'budget');
  add('difficulty', job.difficulty ? `${job.difficulty.playouts} playouts per player` : undefined);
  add('attempts', `${job.attempts} of ${job.max_attempts}`);
  add('created', fmtTime(job.created_at));
  add('started', fmtTime(job.started_at));
  add('finished', fmtTime(job.finished_at));
  return dl;
}

function planText(job) {
  const d = job.result.stats.depth;
  return d !== undefined ? `${d} move${d === 1 ? '' : 's'}` : undefined;
}

function budgetText(job) {
  const b = job.budget || {};
  const parts = [];
  if (b.max_ms) parts.push(fmtDuration(b.max_ms));
  if (b.max_nodes) parts.push(b.max_nodes + ' nodes');
  return parts.length ? parts.join(' or ') : 'the kind’s default';
}

// liveProgress is what a queued or running job shows: elapsed time,
// nodes, checkpoints and best line so far of its last checkpoint, and
// Cancel.
function liveProgress(job) {
  const since = job.started_at || job.created_at;
  const elapsed = Date.now() - new Date(since).getTime();
  const dl = el('dl', {class: 'facts'});
  const add = (k, v, name) => dl.append(el('dt', {}, k), el('dd', {'data-live': name}, v));
  add(job.state === 'running' ? 'running for' : 'queued for', fmtDuration(Math.max(0, elapsed)), 'elapsed');
  const p = job.progress;
  add('nodes', p ? `${p.nodes.toLocaleString()} at the last checkpoint` : 'none yet (the first checkpoint comes after a few seconds)', 'nodes');
  add('checkpoints', p ? `${p.checkpoints}, the last at ${fmtTime(p.last_checkpoint)}` : '0', 'checkpoints');
  add('best line so far', bestText(p && p.best), 'best');
  add('budget', budgetText(job), 'budget');
  const line = p && p.best ?
    el('details', {id: 'best-line'}, el('summary', {}, 'the line'), el('code', {}, JSON.stringify(p.best.plan))) : '';
  return el('div', {class: 'live', dataset: {state: job.state}},
    el('h2', {}, job.state === 'running' ? 'Running' : 'Queued'), dl, line,
    button('Cancel this job', async () => { await postJSON('/v1/jobs/' + job.id + '/cancel', {}); }, {id: 'cancel-job'}));
}

// bestText says how far the search's best line so far gets: its moves and
// what the kind's details count (tiles cleared, score, balls vanished).
function bestText(best) {
  if (!best) return 'none yet (it comes with a checkpoint; a twoends search keeps none)';
  const d = best.details || {};
  let how = '';
  if (d.cleared !== undefined && d.tiles !== undefined) how = `, ${d.cleared} of ${d.tiles} tiles cleared`;
  else if (d.score !== undefined) how = `, score ${d.score}`;
  else if (d.vanished !== undefined) how = `, ${d.vanished} balls vanished in ${d.shots} shots`;
  return `${best.moves} move${best.moves === 1 ? '' : 's'}${how}`;
}

// relations links what the job came from and its level's other runs.
function relations(job) {
  const labels = job.labels || {};
  const sec = el('section', {id: 'relations', 'aria-label': 'related'});
  const bits = [];
  if (typeof labels.parent === 'string') {
    bits.push(el('p', {id: 'parent'}, 'Edited from level ', el('a', {href: '/ui/levels/' + labels.parent, id: 'parent-link'}, labels.parent.slice(0, 16) + '…'), '.'));
  }
  if (typeof labels.draft_of === 'string') {
    bits.push(el('p', {}, 'A live check while editing a copy of level ', el('a', {href: '/ui/levels/' + labels.draft_of}, labels.draft_of.slice(0, 16) + '…'), '.'));
  }
  if (typeof labels.rerun_of === 'string') {
    bits.push(el('p', {}, 'Solved again with more time than ', el('a', {href: '/ui/jobs/' + labels.rerun_of}, 'job #' + labels.rerun_of), '.'));
  }
  bits.push(el('div', {class: 'controls'},
    el('a', {class: 'button', href: '/ui/edit?level=' + job.level_hash, id: 'edit-copy'}, 'Edit a copy'),
    el('a', {class: 'button', href: '/ui/levels/' + job.level_hash}, 'Level page')));
  const runs = el('div', {id: 'runs'}, el('p', {class: 'muted'}, 'Reading the level’s other runs…'));
  bits.push(el('h2', {}, 'Other runs of this level'), runs);
  sec.append(...bits);
  getJSON('/v1/levels/' + job.level_hash + '/results?limit=20').then((page) => {
    const others = page.items.filter((it) => it.job_id !== job.id);
    runs.replaceChildren(others.length === 0 ? el('p', {class: 'muted'}, 'None with a result.') : runsTable(others));
  }).catch((err) => runs.replaceChildren(errorBox(err)));
  return sec;
}

export function runsTable(items) {
  return scrollBox(el('table', {class: 'runs'},
    el('thead', {}, el('tr', {}, ['job', 'verdict', 'value', 'solver', 'budget spent', 'when'].map((h) => el('th', {scope: 'col'}, h)))),
    el('tbody', {}, items.map((it) => el('tr', {dataset: {job: it.job_id}},
      el('td', {}, el('a', {href: '/ui/jobs/' + it.job_id}, '#' + it.job_id)),
      el('td', {class: 'verdict-' + it.verdict}, it.verdict),
      el('td', {class: 'num'}, it.value ?? ''),
      el('td', {}, it.solver_version),
      el('td', {}, it.stats ? `${it.stats.elapsed_ms} ms, ${it.stats.nodes} nodes` : ''),
      el('td', {}, fmtTime(it.created_at)))))));
}

// difficultySection shows the result's difficulty figures
// (docs/difficulty.md): the score, both players' win rates with their 95%
// intervals, the share of first moves (and of the first K decisions) that
// still win, plan lengths and search effort. Each value carries
// data-fig=<name> for the browser tests.
function difficultySection(job) {
  const d = job.result.difficulty;
  const sec = el('section', {id: 'difficulty', 'aria-label': 'difficulty figures'}, el('h2', {}, 'Difficulty'));
  if (!d) {
    const asked = job.difficulty ? job.difficulty.playouts : undefined;
    let why = 'No difficulty figures for this level: its kind or mode is not rated, or rating ran out of time.';
    if (job.result.verdict === 'unknown') why = 'No difficulty figures: the search did not finish (unknown), and only decided levels are rated.';
    else if (job.result.verdict === 'unsolvable') why = 'No difficulty figures: an unsolvable level has no winning line to rate.';
    else if (asked === 0) why = 'No difficulty figures: the job asked for none (bulk jobs get none unless they set playouts).';
    sec.append(el('p', {class: 'muted', 'data-fig': 'none'}, why));
    return sec;
  }
  const dl = el('dl', {class: 'facts wide'});
  const add = (name, k, v) => v !== undefined && v !== null && dl.append(el('dt', {}, k), el('dd', {'data-fig': name}, v));
  const pct = (x) => (100 * x).toFixed(x > 0 && x < 0.01 ? 2 : 1) + '%';
  const rate = (r) => r && `${pct(r.rate)} (${r.wins} of ${r.games}; 95% interval ${pct(r.low)}–${pct(r.high)})`;
  const share = (s) => s && `${s.winning} of ${s.moves} (${pct(s.share)})`;
  add('score', 'score', d.score !== undefined ? el('strong', {}, `${d.score} / 10`) : undefined);
  add('ladder', 'players start to win at', d.ladder && ladderText(d.ladder));
  add('random', 'random player wins', rate(d.random));
  add('greedy', 'greedy player wins', rate(d.greedy));
  add('target', 'a win is', d.target);
  add('first-moves', 'winning first moves', share(d.first_moves));
  add('plies', 'winning moves, decisions 1–' + (d.plies ? d.plies.length : 0),
    d.plies && d.plies.length ? d.plies.map((s) => `${s.winning}/${s.moves}`).join(', ') : undefined);
  add('shortest', 'shortest win', d.shortest !== undefined ? `${d.shortest} moves` : undefined);
  add('median', 'median win', d.median !== undefined ? `${d.median} moves` : undefined);
  add('margin', 'margin (optimal play)', d.margin);
  add('effort', 'search effort', (d.nodes_first_solution !== undefined ? `${d.nodes_first_solution} nodes to the first win, ` : '') +
    `${d.nodes_proof} to the proof`);
  add('exact', 'exact search', d.exact_complete ? 'whole game tree' : 'over budget: some figures left out');
  if (d.random) add('playouts', 'playouts', `${d.playouts} per player, seed ${d.seed}`);
  sec.append(dl);
  return sec;
}

// ladderText is where on the ladder of players (docs/difficulty.md) the
// win rate reaches one half, and each rung's wins.
function ladderText(l) {
  const rungs = l.rungs.map((r) => `${r.player}${r.width ? ' ' + r.width : ''} ${r.wins}/${r.games}`).join(', ');
  return `rung ${l.position.toFixed(2)} of ${l.top + 1}${l.complete ? '' : ' at least'} (${rungs})`;
}

// player is the board, drawn by the kind's renderer, and its replay
// controls; go(step, marks) shows a step with marks highlighted,
// onPlay(step) starts playing by hand there.
function player(rp, renderer, {onPlay}) {
  const states = rp.states;
  const last = states.length - 1;
  let step = clamp(Number(new URLSearchParams(location.search).get('step') ?? 0), last);
  let marks = [];
  let timer = null;

  const board = el('div', {id: 'board', class: 'board board-' + rp.kind, role: 'img'});
  const moveInfo = el('p', {id: 'move-info', 'aria-live': 'polite'});
  const counter = el('output', {id: 'step-counter'});
  const scrub = el('input', {type: 'range', id: 'scrub', min: 0, max: last, value: step, 'aria-label': 'step'});
  const btn = (label, title, fn, id) => el('button', {type: 'button', title, 'aria-label': title, onclick: fn, id}, label);
  const playBtn = btn('▶ Play', 'play or pause (space)', () => toggle());
  const controls = el('div', {class: 'controls', role: 'toolbar', 'aria-label': 'replay'},
    btn('First', 'first step (Home)', () => go(0)),
    btn('◀ Back', 'step back (←)', () => go(step - 1)),
    playBtn,
    btn('Next ▶', 'step forward (→)', () => go(step + 1)),
    btn('Last', 'last step (End)', () => go(last)),
    scrub, counter);
  const playHere = el('button', {type: 'button', id: 'play-here', onclick: () => { stop(); onPlay(step); }}, 'Play from this step');

  const render = () => {
    const st = states[step];
    board.dataset.state = st.text;
    board.setAttribute('aria-label', st.text);
    board.replaceChildren(renderer.draw(st, states, new Set(marks)));
    moveInfo.textContent = describeMove(renderer, st);
    counter.textContent = `step ${step} / ${last}`;
    playHere.textContent = `Play from step ${step}`;
    scrub.value = step;
    const url = new URL(location.href);
    url.searchParams.set('step', step);
    history.replaceState(null, '', url);
  };
  const go = (k, m) => {
    step = clamp(k, last);
    marks = m || [];
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
  const moves = ` — ${last} move${last === 1 ? '' : 's'}`;
  const heading = rp.verdict === 'solved' ? 'Solution' + moves :
    (last === 0 ? (rp.verdict === 'unknown' ? 'The level (no line found yet)' : 'The level (it cannot be won)') :
      (rp.verdict === 'unknown' ? 'Best partial line' : 'Best partial line (the level cannot be won)') + moves);
  const element = el('section', {class: 'replay', id: 'replay'},
    el('h2', {}, heading),
    controls, el('div', {class: 'controls'}, playHere), moveInfo, scrollBox(board),
    el('p', {class: 'muted'}, 'Keys: ← → step, Home/End, space plays or pauses. Letters name colors and tile types.'));
  document.addEventListener('keydown', (e) => {
    if (!element.isConnected) return; // playing by hand instead
    if (e.target.closest('input, textarea, select')) return; // they handle their own keys
    const keys = {ArrowLeft: () => go(step - 1), ArrowRight: () => go(step + 1), Home: () => go(0), End: () => go(last), ' ': toggle};
    if (keys[e.key] && !(e.target.matches('button') && e.key === ' ')) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  render();
  return {element, go, step: () => step};
}

function clamp(k, last) {
  if (!Number.isFinite(k)) return 0;
  return Math.max(0, Math.min(last, Math.trunc(k)));
}
