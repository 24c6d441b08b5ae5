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
