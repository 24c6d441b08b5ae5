// The router: every /ui/ address loads this shell; the path picks the page.
import {setToken, token} from './api.js';
import {batchesPage} from './batches.js';
import {batchPage} from './batch.js';
import {generatePage, generationPage} from './generate.js';
import {jobPage} from './job.js';
import {submitPage} from './submit.js';
import {errorBox, show} from './dom.js';

const routes = [
  [/^\/ui\/$/, batchesPage],
  [/^\/ui\/batches\/(\d+)$/, batchPage],
  [/^\/ui\/jobs\/(\d+)$/, jobPage],
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
    if (a.getAttribute('href') === location.pathname) a.setAttribute('aria-current', 'page');
  }
  for (const [re, page] of routes) {
    const m = location.pathname.match(re);
    if (m) {
      page(...m.slice(1)).catch((err) => show(errorBox(err)));
      return;
    }
  }
  show(errorBox('no such page'));
}

start();
