// The level page: one stored level (GET /v1/levels/{hash}) — its JSON
// exactly as Submit takes it back, its newest definitive result, every run
// it has had, the copies edited from it, and the level to play by hand.
import {canonical, getJSON, listPage, saveFile} from './api.js';
import {button, el, errorBox, markReady, show} from './dom.js';
import {rendererOf} from './draw.js';
import {runsTable} from './job.js';
import {decodeMoves, playPanel} from './play.js';

export async function levelPage(hash) {
  const lr = await getJSON('/v1/levels/' + hash);
  lr.level = await canonical(lr.level);
  const json = JSON.stringify(lr.level);
  const r = lr.result;
  const dl = el('dl', {class: 'facts'});
  const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, v));
  add('kind', lr.kind);
  add('hash', el('code', {class: 'hash'}, hash));
  add('newest result', r ? el('span', {class: 'verdict-' + r.verdict}, r.verdict + (r.value !== undefined ? ', value ' + r.value : '') +
    (r.proof ? ', proof ' + r.proof : '') + ' (' + r.solver_version + ')') : 'none definitive yet');
  const pre = el('pre', {id: 'level-json', class: 'level-json', tabindex: 0}, json);
  const runs = el('div', {id: 'runs'}, el('p', {class: 'muted'}, 'Reading…'));
  const copies = el('div', {id: 'copies'});
  const q = new URLSearchParams(location.search);
  let played = [];
  try {
    played = q.has('play') ? decodeMoves(JSON.parse(q.get('play'))) : [];
  } catch (_) { /* a damaged address: start without moves */ }
  const renderer = await rendererOf(lr.kind);
  const play = playPanel({level: lr.level, kind: lr.kind, renderer, played, onChange: (moves) => {
    const u = new URL(location.href);
    u.searchParams.set('play', JSON.stringify(moves));
    history.replaceState(null, '', u);
  }});
  show(el('h1', {}, 'Level ' + hash.slice(0, 12) + '…'), dl,
    el('div', {class: 'controls'},
      el('a', {class: 'button', href: '/ui/edit?level=' + hash, id: 'edit-copy'}, 'Edit a copy'),
      button('Download .json', async () => saveFile('level-' + hash.slice(0, 12) + '.json', json + '\n', 'application/json')),
      button('Select the JSON', async () => {
        const range = document.createRange();
        range.selectNodeContents(pre);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
      })),
    el('h2', {}, 'Level JSON'),
    el('p', {class: 'muted'}, 'Exactly what Submit takes back: paste it there, or into puzzlectl.'),
    pre,
    el('h2', {}, 'Runs'), runs,
    el('h2', {}, 'Copies edited from it'), copies,
    play);
  listPage('/v1/levels/' + hash + '/results', {limit: 50}).then((page) => {
    runs.replaceChildren(page.items.length ? runsTable(page.items) : el('p', {class: 'muted'}, 'No run has a result yet.'),
      el('p', {}, el('a', {href: '/ui/jobs?level=' + hash}, 'Every job of this level, with queued and failed ones')));
  }).catch((err) => runs.replaceChildren(errorBox(err)));
  listPage('/v1/jobs', {label: 'parent:' + hash, limit: 20}).then((page) => {
    copies.replaceChildren(page.items.length === 0 ? el('p', {class: 'muted'}, 'None yet.') :
      el('ul', {id: 'copies-list'}, page.items.map((j) => el('li', {},
        el('a', {href: '/ui/jobs/' + j.id}, 'job #' + j.id), ' — ', j.verdict || j.state, ', level ',
        el('a', {href: '/ui/levels/' + j.level_hash}, j.level_hash.slice(0, 12) + '…')))),
    el('p', {}, el('a', {href: '/ui/jobs?label=' + encodeURIComponent('parent:' + hash)}, 'All copies on the jobs page')));
  }).catch((err) => copies.replaceChildren(errorBox(err)));
  await play.ready;
  markReady();
}
