// The zuma editor: the chain, and the hand (a multiset), the ammo (in
// shot order) or neither (unlimited). Colors are letters; what is a color
// and what is a legal board is the server's to say.
import {el} from './dom.js';
import {ball} from './draw.js';

export function zumaEditor(level, onEdit) {
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
