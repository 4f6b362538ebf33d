// The gateway's public HTTP API from the browser: fetch with the tab's API key (asked for in a dialog on a 401 until
// the gateway accepts one, kept in sessionStorage), JSON with the gateway's error body, SSE over fetch (POST bodies
// and the Authorization header work) that resumes with Last-Event-ID, uploads, and links into the Temporal Web UI.

import { registerStrings, t } from './i18n.js';
import { h } from './ui.js';

registerStrings({
  zh: {
    'api.keyTitle': '需要 API key',
    'api.keyHelp': '网关要求 API key。它只保存在这个标签页中（sessionStorage），' +
      '关闭标签页即清除。',
    'api.keyRefused': '这个 key 没有被接受，请重新输入。',
    'api.keyLabel': 'API key',
    'api.keySave': '使用',
    'api.keyCancel': '取消',
    'api.streamLost': '事件流中断，且无法得知运行 id，无法继续',
    'api.streamGaveUp': '事件流多次中断，已停止重连',
  },
  en: {
    'api.keyTitle': 'API key needed',
    'api.keyHelp':
      'The gateway requires an API key. It is kept in this tab only (sessionStorage) and gone when the tab closes.',
    'api.keyRefused': 'That key was not accepted; enter it again.',
    'api.keyLabel': 'API key',
    'api.keySave': 'Use key',
    'api.keyCancel': 'Cancel',
    'api.streamLost': 'The event stream broke before the run id was known; cannot resume',
    'api.streamGaveUp': 'The event stream kept breaking; stopped reconnecting',
  },
});

const KEY_STORE = 'console.apiKey';
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000];
const MAX_IDLE_RECONNECTS = 8;
const STREAM_INTERRUPTED = 'STREAM_INTERRUPTED';

/** A refused request: HTTP status, the gateway's error code and message (and request id). */
export class ApiError extends Error {
  constructor(status, code, message, requestId = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.requestId = requestId;
  }
}

function withKey(init = {}) {
  const headers = new Headers(init.headers || {});
  const key = sessionStorage.getItem(KEY_STORE);
  if (key && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${key}`);
  let body = init.body;
  const plain = body != null && Object.getPrototypeOf(body) === Object.prototype;
  if (plain || Array.isArray(body)) {
    body = JSON.stringify(body);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  return { ...init, headers, body };
}

let pendingKey = null;

/** Ask for a key in a labelled modal dialog; resolves to the key, or null when the person cancels. */
function askForKey(refused) {
  pendingKey ??= new Promise((resolve) => {
    const input = h('input', { id: 'api-key-input', type: 'password', autocomplete: 'off', required: true });
    const dialog = h(
      'dialog',
      { class: 'key-dialog', 'aria-labelledby': 'api-key-title', 'aria-describedby': 'api-key-message' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'api-key-title' }, t('api.keyTitle')),
        h(
          'p',
          { id: 'api-key-message', class: refused ? 'key-refused' : null, role: refused ? 'alert' : null },
          refused ? t('api.keyRefused') : t('api.keyHelp'),
        ),
        h('label', { for: 'api-key-input' }, t('api.keyLabel')),
        input,
        h(
          'div',
          { class: 'row end' },
          h('button', { type: 'button', class: 'secondary', onClick: () => dialog.close('') }, t('api.keyCancel')),
          h('button', { type: 'submit', value: 'ok', class: 'primary' }, t('api.keySave')),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      const key = dialog.returnValue === 'ok' ? input.value.trim() : '';
      dialog.remove();
      pendingKey = null;
      resolve(key || null);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return pendingKey;
}

/** `fetch` with the tab's API key; on a 401 asks for a key, keeps it for the tab and retries, asking again (saying
 * the key was refused) until the gateway takes one or the person cancels. */
export async function apiFetch(path, init = {}) {
  let refused = sessionStorage.getItem(KEY_STORE) !== null;
  let response = await fetch(path, withKey(init));
  while (response.status === 401) {
    const key = await askForKey(refused);
    if (!key) return response;
    sessionStorage.setItem(KEY_STORE, key);
    refused = true;
    response = await fetch(path, withKey(init));
  }
  return response;
}

/** An ApiError from a non-2xx response's `{"error": {"code", "message"}}` body (or its status text). */
export async function errorFrom(response) {
  let error = null;
  try {
    error = (await response.json())?.error;
  } catch {
    // not JSON: the status says it all
  }
  return new ApiError(
    response.status,
    error?.code || `HTTP_${response.status}`,
    error?.message || response.statusText || `HTTP ${response.status}`,
    error?.requestId || response.headers.get('X-Request-Id'),
  );
}

/** Save the answer of `path` (fetched with the tab's key) as the file `filename`; throws ApiError for a non-2xx. */
export async function downloadFile(path, filename) {
  const response = await apiFetch(path);
  if (!response.ok) throw await errorFrom(response);
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The parsed JSON of a 2xx answer (null for an empty one); throws ApiError otherwise. A plain-object `body` is
 * sent as JSON. */
export async function apiJson(path, init = {}) {
  const response = await apiFetch(path, init);
  if (!response.ok) throw await errorFrom(response);
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** Upload an image (PNG, JPG, WebP) to the blob store: `{key, url, contentType, size}`. */
export async function uploadBlob(file) {
  return apiJson('/v1/blobs', {
    method: 'POST',
    body: file,
    headers: { 'Content-Type': file.type || 'application/octet-stream' },
  });
}

/** The SSE messages of a response body: `{id, event, data}` each (comments and keep-alives skipped). */
async function* sseMessages(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let message = { id: null, event: 'message', data: [] };
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop();
      for (const line of lines) {
        if (line === '') {
          if (message.data.length) yield parsed(message);
          message = { id: null, event: 'message', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') message.data.push(value);
        else if (field === 'event') message.event = value;
        else if (field === 'id') message.id = value;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parsed(message) {
  const text = message.data.join('\n');
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { text };
  }
  const id = message.id !== null && /^\d+$/.test(message.id) ? Number(message.id) : null;
  return { id, event: message.event, data };
}

/** Whether an event ends its run's stream: the run's terminal event (its family's `stream_end` or `done`). */
export function isTerminal(evt) {
  return evt.id !== null && evt.data?.terminal === true;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Stream a run's events: `onEvent({id, event, data})` once per event, resolving after the run's terminal event
 * (or when `signal` aborts). A dropped connection (or the gateway's `STREAM_INTERRUPTED` error) reconnects to
 * `/v1/runs/{runId}/events` with `Last-Event-ID`; the run id comes from `X-Run-Id` or the `admitted` event.
 * `onOpen(response)` is called once, with the first response. Throws ApiError when the first request is refused.
 */
export async function streamSse(path, { method = 'GET', body, headers, lastEventId, onOpen, onEvent, signal } = {}) {
  let lastId = lastEventId ?? null;
  let runId = null;
  let request = { path, method, body };
  let opened = false;
  let idle = 0;
  const resuming = /^\/v1\/runs\/([^/?]+)\/events/.exec(path);
  if (resuming) runId = decodeURIComponent(resuming[1]);
  while (!signal?.aborted) {
    const sent = new Headers(headers || {});
    sent.set('Accept', 'text/event-stream');
    if (request.method === 'GET' && lastId !== null) sent.set('Last-Event-ID', String(lastId));
    let response = null;
    try {
      response = await apiFetch(request.path, { method: request.method, body: request.body, headers: sent, signal });
    } catch (err) {
      if (signal?.aborted) return;
      if (!opened) throw err;
    }
    if (response && !response.ok) throw await errorFrom(response);
    let progressed = false;
    if (response) {
      runId = response.headers.get('X-Run-Id') || runId;
      if (!opened) {
        opened = true;
        onOpen?.(response);
      }
      try {
        for await (const evt of sseMessages(response.body)) {
          if (evt.event === 'admitted' && evt.data?.runId) runId = evt.data.runId;
          if (evt.event === 'error' && evt.id === null && evt.data?.code === STREAM_INTERRUPTED) break;
          if (evt.id !== null) {
            if (lastId !== null && evt.id <= lastId) {
              if (isTerminal(evt)) return; // the gateway repeats the terminal event to a client that had it
              continue;
            }
            lastId = evt.id;
            progressed = true;
          }
          onEvent?.(evt);
          if (isTerminal(evt)) return;
        }
      } catch (err) {
        if (signal?.aborted) return;
        // the connection dropped: resume below
      }
    }
    if (signal?.aborted) return;
    if (!runId) throw new ApiError(0, STREAM_INTERRUPTED, t('api.streamLost'));
    idle = progressed ? 0 : idle + 1;
    if (idle > MAX_IDLE_RECONNECTS) throw new ApiError(0, STREAM_INTERRUPTED, t('api.streamGaveUp'));
    request = { path: `/v1/runs/${encodeURIComponent(runId)}/events`, method: 'GET' };
    await sleep(RECONNECT_DELAYS_MS[Math.min(idle, RECONNECT_DELAYS_MS.length - 1)], signal);
  }
}

let config = { temporalUi: { host: null, port: 8233, namespace: 'default' }, pages: [] };
try {
  const response = await fetch('/console/config.json');
  if (response.ok) config = await response.json();
} catch {
  // the defaults above: the dev server's Web UI on this host
}

/** Each family's console page as the gateway serves it: `{page, label: {zh, en}}`, in the families' order. */
export function familyPages() {
  return config.pages || [];
}

/** The Temporal Web UI: a run's page, or the namespace's workflow list without `runId`. */
export function temporalUiUrl(runId) {
  const { host, port, namespace } = config.temporalUi;
  const origin = `${location.protocol}//${host || location.hostname}:${port}`;
  const base = `${origin}/namespaces/${encodeURIComponent(namespace)}/workflows`;
  return runId ? `${base}/${encodeURIComponent(runId)}` : base;
}
