// zuma: the chain, the hand or ammo, and the last shot with what vanished;
// the editor of a copy; the ball to shoot and where, in play.
import {el} from '../dom.js';
import {color} from '../paint.js';

// ball is one ball of color c.
function ball(c, extra = {}) {
  return el('span', {class: 'ball ' + (extra.class || ''), style: `background:${color(c)}`, title: extra.title || c}, c);
}

// draw draws state st; marks are colors to highlight.
export function draw(st, states, marks = new Set()) {
  const v = st.view;
  const parts = [];
  const mark = (c) => ball(c, {class: marks.has(c) ? 'marked' : ''});
  parts.push(el('div', {class: 'label'}, 'chain'),
    el('div', {class: 'chain'}, v.board ? [...v.board].map(mark) : el('span', {class: 'muted'}, 'empty — cleared!')));
  if (v.mode === 'hand') parts.push(el('div', {class: 'label'}, 'hand'), el('div', {class: 'chain hand'}, [...(v.hand || '')].map(mark)));
  if (v.mode === 'ammo') parts.push(el('div', {class: 'label'}, 'ammo (next first)'), el('div', {class: 'chain hand'}, [...(v.ammo || '')].map((c) => ball(c))));
  if (v.mode === 'unlimited') parts.push(el('div', {class: 'label'}, 'hand'), el('div', {class: 'muted'}, 'any color, any number'));
  const c = st.cleared;
  if (c) {
    parts.push(el('div', {class: 'label'}, 'last move'),
      el('div', {class: 'chain lastmove'}, [...c.inserted].map((b, i) => ball(b, {
        class: (i === c.at ? 'inserted ' : '') + (i >= c.from && i < c.to ? 'cleared' : ''),
        title: b + (i === c.at ? ' (shot)' : '') + (i >= c.from && i < c.to ? ' (vanishes)' : ''),
      }))));
  }
  return el('div', {class: 'zuma'}, parts);
}

// describe says what the move that led to st did (st.cleared is set).
export function describe(st) {
  const c = st.cleared;
  const mv = st.move;
  const n = c.to - c.from;
  return `Move ${st.step}: ${mv.ball} at ${mv.at}` + (n ? ` — ${n} balls vanish.` : ' — nothing vanishes.');
}

// editor edits a copy of a level: the chain, and the hand (a multiset),
// the ammo (in shot order) or neither (unlimited). Colors are letters;
// what is a color and what is a legal board is the server's to say.
export function editor(level, onEdit) {
  let lv = level;
  let badBoard = -1;
  const board = el('input', {type: 'text', id: 'edit-board', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'board, left to right'});
  const mode = el('select', {id: 'edit-mode', 'aria-label': 'mode'},
    el('option', {value: 'hand'}, 'hand (any order)'), el('option', {value: 'ammo'}, 'ammo (in order)'), el('option', {value: 'unlimited'}, 'unlimited'));
  const balls = el('input', {type: 'text', id: 'edit-balls', spellcheck: 'false', autocomplete: 'off', 'aria-label': 'hand or ammo balls'});
  const preview = el('div', {class: 'zuma-preview'});
  const modeOf = (l) => ('hand' in l ? 'hand' : ('ammo' in l ? 'ammo' : 'unlimited'));
  const render = () => {
    board.value = lv.board || '';
    mode.value = modeOf(lv);
    balls.value = lv.hand ?? lv.ammo ?? '';
    balls.disabled = mode.value === 'unlimited';
    preview.replaceChildren(el('div', {}, el('div', {class: 'label'}, 'chain'),
      el('div', {class: 'chain'}, [...(lv.board || '')].map((c, i) => ball(c, {class: i === badBoard ? 'invalid' : ''}))),
      mode.value === 'unlimited' ? null : el('div', {class: 'label'}, mode.value),
      mode.value === 'unlimited' ? null : el('div', {class: 'chain hand'}, [...balls.value].map((c) => ball(c)))));
  };
  const read = () => {
    const next = {kind: 'zuma', board: board.value.trim()};
    if (mode.value !== 'unlimited') next[mode.value] = balls.value.trim();
    lv = next;
    render();
    onEdit(structuredClone(lv));
  };
  for (const i of [board, balls]) i.addEventListener('input', read);
  mode.addEventListener('change', read);
  render();
  return {
    element: el('div', {class: 'zuma-editor'},
      el('div', {class: 'grid2'},
        el('label', {}, 'Board ', board),
        el('label', {}, 'Mode ', mode),
        el('label', {}, 'Balls ', balls)),
      el('p', {class: 'muted'}, 'Colors are letters A–Z; R, G, B, Y, W … get their colors.'),
      preview),
    set(level) {
      lv = structuredClone(level);
      render();
    },
    mark(_, errField) {
      const m = /^board\[(\d+)\]/.exec(errField || '');
      badBoard = m ? Number(m[1]) : -1;
      render();
    },
  };
}

// playControls offers the legal shots: pick a ball, then click the gap it
// goes into.
export function playControls(a, legal, board, move) {
  const balls = [...new Set(a.moves.map((m) => m.ball))];
  let chosen = balls[0];
  const gaps = el('div', {class: 'chain gaps', role: 'group', 'aria-label': 'insert the ball at'});
  const drawGaps = () => {
    const b = a.state.view.board || '';
    const parts = [];
    for (let i = 0; i <= b.length; i++) {
      const key = JSON.stringify({at: i, ball: chosen});
      parts.push(el('button', {type: 'button', class: 'gap', dataset: {at: i}, disabled: !legal.has(key),
        'aria-label': `insert ${chosen} at ${i}`, title: `insert ${chosen} at ${i}`, onclick: () => move(legal.get(key))}, '+'));
      if (i < b.length) parts.push(ball(b[i]));
    }
    gaps.replaceChildren(...parts);
  };
  const picker = el('div', {class: 'chain', role: 'radiogroup', 'aria-label': 'ball to shoot'}, balls.map((c) => {
    const b = el('button', {type: 'button', class: 'pick', role: 'radio', 'aria-checked': String(c === chosen), dataset: {ball: c}}, ball(c));
    b.addEventListener('click', () => {
      chosen = c;
      for (const o of picker.children) o.setAttribute('aria-checked', String(o.dataset.ball === c));
      drawGaps();
    });
    return b;
  }));
  drawGaps();
  return [el('div', {class: 'label'}, 'ball to shoot'), picker, el('div', {class: 'label'}, 'then click where it goes'), gaps];
}
