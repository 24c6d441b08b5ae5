// Drawing a level's states. Each kind draws itself in a module of its own,
// kinds/<kind>.js, found by the kind's name: a new kind adds one module
// and nothing here. A module exports draw(st, states), the board of state
// st (states are all the plan's states, for context), and describe(st),
// one line on the move that led to st (st.cleared is set).
import {el} from './dom.js';

// plain draws a kind whose module does not load: the canonical text.
const plain = {draw: (st) => el('pre', {}, st.text), describe: () => ''};

// rendererOf loads the renderer of kind, or, logging why, plain (every
// kind has a module: web's TestEveryKindHasARenderer).
export async function rendererOf(kind) {
  try {
    if (!/^[a-z][a-z0-9_]*$/.test(kind)) throw new Error('not a kind name');
    return await import(`./kinds/${kind}.js`);
  } catch (err) {
    console.error(`no renderer for kind ${kind}: ${err}`);
    return plain;
  }
}

// describeMove says what the move that led to st did.
export function describeMove(renderer, st) {
  return st.cleared ? renderer.describe(st) : 'The level as given.';
}
