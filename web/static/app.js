// The router: every /ui/ address loads this shell; the path picks the page.
import {setToken, token} from './api.js';
import {batchesPage} from './batches.js';
import {batchPage} from './batch.js';
import {editPage} from './edit.js';
import {generatePage, generationPage} from './generate.js';
import {jobPage} from './job.js';
import {jobsPage} from './jobs.js';
import {levelPage} from './level.js';
import {levelsPage} from './levels.js';
import {submitPage} from './submit.js';
import {errorBox, markReady, show} from './dom.js';

const routes = [
  [/^\/ui\/$/, batchesPage],
  [/^\/ui\/batches\/(\d+)$/, batchPage],
  [/^\/ui\/jobs$/, jobsPage],
  [/^\/ui\/jobs\/(\d+)$/, jobPage],
  [/^\/ui\/levels$/, levelsPage],
  [/^\/ui\/levels\/([0-9a-f]{64})$/, levelPage],
  [/^\/ui\/edit$/, editPage],
  [/^\/ui\/submit$/, submitPage],
  [/^\/ui\/generate$/, generatePage],
  [/^\/ui\/generations\/(\d+)$/, generationPage],
];

function start() {
  const input = document.getElementById('token');
  input.value = token();
  input.addEventListener('change', () => {
    setToken(input.value.trim());
    location.reload();
  });
  for (const a of document.querySelectorAll('header nav a')) {
    const here = a.getAttribute('href');
    if (here === location.pathname || (here !== '/ui/' && location.pathname.startsWith(here + '/'))) a.setAttribute('aria-current', 'page');
  }
  for (const [re, page] of routes) {
    const m = location.pathname.match(re);
    if (m) {
      page(...m.slice(1)).catch((err) => {
        show(errorBox(err));
        markReady();
      });
      return;
    }
  }
  show(errorBox('no such page'));
}

start();
