// zuma: the chain, the hand or ammo, and the last shot with what vanished.
import {el} from '../dom.js';
import {color} from '../paint.js';

function ball(c, extra = {}) {
  return el('span', {class: 'ball ' + (extra.class || ''), style: `background:${color(c)}`, title: extra.title || c}, c);
}

export function draw(st) {
  const v = st.view;
  const parts = [];
  parts.push(el('div', {class: 'label'}, 'chain'),
    el('div', {class: 'chain'}, v.board ? [...v.board].map((c) => ball(c)) : el('span', {class: 'muted'}, 'empty — cleared!')));
  if (v.mode === 'hand') parts.push(el('div', {class: 'label'}, 'hand'), el('div', {class: 'chain hand'}, [...(v.hand || '')].map((c) => ball(c))));
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
