// The API client of the pages: same origin, the token from session storage.

const tokenKey = 'puzzled-token';

export function token() {
  return sessionStorage.getItem(tokenKey) || '';
}

export function setToken(t) {
  if (t) sessionStorage.setItem(tokenKey, t);
  else sessionStorage.removeItem(tokenKey);
}

// request fetches an API path and returns the Response; a non-2xx status
// throws an Error carrying the API's message and the status.
export async function request(path, opts = {}) {
  const headers = new Headers(opts.headers || {});
  if (token()) headers.set('Authorization', 'Bearer ' + token());
  const res = await fetch(path, {...opts, headers});
  if (!res.ok) {
    let msg = res.status + ' ' + res.statusText;
    try {
      const body = await res.json();
      if (body.error) msg = body.error;
    } catch (_) { /* not JSON */ }
    if (res.status === 401) msg += ' — enter an API token at the top right';
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return res;
}

// getJSON fetches an API path as JSON.
export async function getJSON(path) {
  return (await request(path)).json();
}

// postJSON posts a JSON body and returns the JSON answer.
export async function postJSON(path, body) {
  const res = await request(path, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(body),
  });
  return res.json();
}

// The batches this browser submitted, newest first, for the batches page
// when the server has no list of batches.
const batchesKey = 'puzzled-batches';

export function knownBatches() {
  try {
    return JSON.parse(localStorage.getItem(batchesKey) || '[]');
  } catch (_) {
    return [];
  }
}

export function rememberBatch(id) {
  const ids = knownBatches().filter((x) => x !== id);
  ids.unshift(id);
  localStorage.setItem(batchesKey, JSON.stringify(ids.slice(0, 200)));
}

// canonical is a level in its kind's canonical form (POST
// /v1/levels/validate): "kind" first and fields in the kind's order, as
// Submit takes it back. Stored levels come back with their keys in the
// database's order.
export async function canonical(level) {
  const v = await postJSON('/v1/levels/validate', level);
  return v.valid ? v.level : level;
}

// waitJob long-polls a job until it is final (or the wait ends) and
// returns it.
export async function waitJob(id, seconds = 30) {
  return getJSON('/v1/jobs/' + id + '?wait=' + seconds + 's');
}

// listPage reads one page of a list route: {items, next_cursor}.
export async function listPage(path, params) {
  const q = new URLSearchParams(params);
  return getJSON(path + (q.toString() ? '?' + q : ''));
}

// listAll reads every page of a list route (1,000 items a request), up
// to max items, calling onProgress with the count so far.
export async function listAll(path, params, max = 100000, onProgress = () => {}) {
  const q = new URLSearchParams(params);
  q.delete('cursor');
  q.set('limit', '1000');
  const items = [];
  for (;;) {
    const page = await getJSON(path + '?' + q);
    items.push(...page.items);
    onProgress(items.length);
    if (!page.next_cursor || items.length >= max) return items.slice(0, max);
    q.set('cursor', page.next_cursor);
  }
}

// saveFile hands text to the browser as a download named name.
export function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], {type}));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// download fetches an API path with the token (a plain link carries none)
// and saves the answer as a file.
export async function download(path, name) {
  const res = await request(path);
  saveFile(name, await res.text(), res.headers.get('Content-Type') || 'application/octet-stream');
}

// kindNames lists the server's kinds: the Kind enum of its OpenAPI
// document, which the server fills from its registry. None when the
// document cannot be read (a filter then offers only "any kind").
let kindsOnce = null;
export function kindNames() {
  kindsOnce ??= getJSON('/v1/openapi.json')
    .then((doc) => doc.components.schemas.Kind.enum || [])
    .catch(() => []);
  return kindsOnce;
}
