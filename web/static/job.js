// The level page: the job's facts and difficulty figures, then its level
// drawn as the player sees it and its plan replayed — play, pause, step, scrub, arrow keys — from
// the states the kind's simulator computed (GET /v1/jobs/{id}/replay).
// The board element alone carries data-state, the canonical state text.
import {getJSON} from './api.js';
import {el, errorBox, isFinal, show, sleep} from './dom.js';
import {drawState, describeMove} from './draw.js';
import {repairButton} from './generate.js';

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
  if (job.result.verdict === 'unsolvable') main.append(repairButton(job));
  main.append(difficultySection(job));
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
    sec.append(el('p', {class: 'muted', 'data-fig': 'none'}, asked === 0
      ? 'No difficulty figures: the job asked for none (bulk jobs get none unless they set playouts).'
      : 'No difficulty figures for this level (its kind or mode is not rated, or rating ran out of time).'));
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
