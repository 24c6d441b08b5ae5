// Play it yourself: a designer makes moves by clicking (tiles, insertion
// points, columns, ends) from a level's start or from any step of a stored
// plan, and after each move the server (POST /v1/play, the kind's
// simulator and solver) says where the move led, which moves are legal
// and whether the position can still be won. The page implements no rule:
// it offers exactly the moves the server lists, with the controls of the
// kind's module (kinds/<kind>.js: playControls).
import {postJSON} from './api.js';
import {button, el, errorBox} from './dom.js';
import {describeMove} from './draw.js';

// decodeMoves reads a plan (or a played line from an address) as a list.
export function decodeMoves(plan) {
  if (typeof plan === 'string') return [...plan];
  return Array.isArray(plan) ? plan : [];
}

// playPanel plays level from the moves prefix (a stored plan's first K
// moves) followed by played (moves already made, from the address);
// renderer is the kind's module (draw.js: rendererOf). onChange(played) is
// told the moves made after the prefix, for the address.
export function playPanel({level, kind, renderer, prefix = [], played = [], onChange = () => {}}) {
  const board = el('div', {id: 'play-board', class: 'board board-' + kind, role: 'group', 'aria-label': 'board: click a move'});
  const boardBox = el('div', {class: 'scroll-x'}, board);
  const verdict = el('p', {id: 'play-verdict', 'aria-live': 'polite'});
  const info = el('p', {id: 'play-info', class: 'muted'});
  const pick = el('div', {id: 'play-controls', class: 'controls'});
  const line = el('p', {id: 'play-line', class: 'muted'});
  const errors = el('div');
  let moves = [...prefix, ...played];
  let history = []; // states 0..moves.length
  let answers = []; // the server's answer after each length of moves
  let busy = false;

  // A plan is an array of moves unless the kind writes it otherwise.
  const encode = renderer.encodeMoves || ((ms) => ms);
  const ask = (ms, withHistory) => postJSON('/v1/play', {level, moves: encode(ms), history: withHistory || undefined});
  const current = () => answers[answers.length - 1];
  const render = () => {
    const a = current();
    board.dataset.state = a.state.text;
    board.dataset.step = String(moves.length);
    board.replaceChildren(renderer.draw(a.state, history, new Set()));
    info.textContent = describeMove(renderer, a.state) + ` (${moves.length - prefix.length} played by hand` +
      (prefix.length ? `, from step ${prefix.length} of the plan)` : ')');
    verdict.replaceChildren(...verdictText(a));
    verdict.dataset.winnable = a.winnable === undefined ? 'unknown' : String(a.winnable);
    verdict.dataset.step = String(moves.length);
    verdict.dataset.ready = 'true';
    line.textContent = moves.length ? 'Moves: ' + moves.map((m) => typeof m === 'string' ? m : JSON.stringify(m)).join(' ') : '';
    // The kind's controls offer exactly the moves the server listed.
    const legal = new Map(a.moves.map((m) => [JSON.stringify(m), m]));
    pick.replaceChildren(...renderer.playControls(a, legal, board, move));
    undo.disabled = moves.length <= prefix.length;
    hint.disabled = a.over || !a.line || decodeMoves(a.line).length === 0;
  };
  const move = async (m) => {
    if (busy) return;
    busy = true;
    verdict.dataset.ready = 'false';
    errors.replaceChildren();
    try {
      const a = await ask([...moves, m], false);
      moves.push(m);
      answers.push(a);
      history.push(a.state);
      onChange(moves.slice(prefix.length));
      render();
    } catch (err) {
      errors.replaceChildren(errorBox(err));
      verdict.dataset.ready = 'true';
    } finally {
      busy = false;
    }
  };
  const undo = button('Undo', async () => {
    if (moves.length <= prefix.length || busy) return;
    moves.pop();
    history.pop();
    answers.pop();
    if (answers.length === 0) answers.push(await ask(moves, false));
    onChange(moves.slice(prefix.length));
    render();
  }, {id: 'play-undo'});
  const hint = button('Play the solver’s move', async () => {
    const next = decodeMoves(current().line)[0];
    if (next !== undefined) await move(next);
  }, {id: 'play-hint'});
  const restart = button('Restart', async () => {
    moves = [...prefix];
    history = history.slice(0, prefix.length + 1);
    answers = [await ask(moves, false)];
    onChange([]);
    render();
  }, {id: 'play-restart'});

  const section = el('section', {id: 'play', class: 'play'},
    el('h2', {}, 'Play it yourself'),
    el('p', {class: 'muted'}, 'Click a move. After each one the server’s solver says whether the position can still be won.'),
    el('div', {class: 'controls'}, undo, restart, hint),
    verdict, pick, info, boardBox, line, errors);
  section.ready = (async () => {
    const a = await ask(moves, true);
    history = a.history;
    answers = [a];
    render();
  })().catch((err) => errors.replaceChildren(errorBox(err)));
  return section;
}

// verdictText says what the server's answer means for the designer.
function verdictText(a) {
  const n = decodeMoves(a.line).length;
  if (a.over) {
    if (a.won) return [el('strong', {class: 'verdict-solved'}, 'Won.')];
    if (a.lost) return [el('strong', {class: 'verdict-unsolvable'}, 'Lost: no move is left.')];
    return [el('strong', {}, 'Game over'), a.value !== undefined ? `: value ${a.value}.` : '.'];
  }
  if (!a.goal) {
    return [el('strong', {}, 'Best from here: '), `value ${a.value ?? '?'}` + (a.optimal ? ' (proven)' : ' (not proven optimal)') +
      ` — the solver’s line has ${n} more move${n === 1 ? '' : 's'}.`];
  }
  if (a.winnable === true) {
    return [el('strong', {class: 'verdict-solved'}, 'Still winnable'), ` — the solver wins in ${n} more move${n === 1 ? '' : 's'}.`];
  }
  if (a.winnable === false) {
    return [el('strong', {class: 'verdict-unsolvable'}, 'Cannot be won any more'), ` (proof: ${a.proof || 'search'}).`];
  }
  return [el('strong', {class: 'verdict-unknown'}, 'Not decided'), ` within the budget (${a.nodes} nodes, ${a.elapsed_ms} ms).`];
}
