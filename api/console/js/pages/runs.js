// Runs (`#/runs`, `#/runs/<id>`): the caller's runs from `GET /v1/runs`, filtered by workflow (grouped by family),
// status and session; one run's state, the question it waits on (a question card), its event timeline
// (`/v1/runs/{id}/events`), cancel and a link to the Temporal Web UI. The events shown are kept per run in
// sessionStorage, so a reload shows them again and resumes the stream after the last one (`Last-Event-ID`): every
// event once, none missed.

import { apiJson, isTerminal, streamSse, temporalUiUrl } from '../api.js';
import { field, questionCard } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { errorBanner, eventTimeline, h, payloadOf } from '../ui.js';

registerStrings({
  zh: {
    'runs.title': '运行记录',
    'runs.filters': '筛选',
    'runs.workflow': '工作流',
    'runs.status': '状态',
    'runs.session': '会话 id',
    'runs.any': '全部',
    'runs.apply': '筛选',
    'runs.reset': '重置',
    'runs.refresh': '刷新',
    'runs.more': '加载更多',
    'runs.none': '没有符合条件的运行。',
    'runs.runId': '运行 id',
    'runs.started': '开始',
    'runs.closed': '结束',
    'runs.back': '← 全部运行',
    'runs.cancel': '取消运行',
    'runs.cancelled': '已请求取消',
    'runs.temporal': '在 Temporal Web UI 中查看',
    'runs.events': '事件',
    'runs.waiting': '等待回答',
    'runs.count': '{count} 个事件',
  },
  en: {
    'runs.title': 'Runs',
    'runs.filters': 'Filters',
    'runs.workflow': 'Workflow',
    'runs.status': 'Status',
    'runs.session': 'Session id',
    'runs.any': 'Any',
    'runs.apply': 'Filter',
    'runs.reset': 'Reset',
    'runs.refresh': 'Refresh',
    'runs.more': 'Load more',
    'runs.none': 'No runs match.',
    'runs.runId': 'Run id',
    'runs.started': 'Started',
    'runs.closed': 'Closed',
    'runs.back': '← All runs',
    'runs.cancel': 'Cancel run',
    'runs.cancelled': 'Cancel requested',
    'runs.temporal': 'Open in the Temporal Web UI',
    'runs.events': 'Events',
    'runs.waiting': 'Waiting for an answer',
    'runs.count': '{count} events',
  },
});

const STATUSES = ['running', 'waiting', 'completed', 'failed', 'timeout', 'cancelled', 'terminated'];
const FILTER_KEY = 'console.runs.filters';
const EVENTS_KEY = (runId) => `console.runs.events.${runId}`;
const PAGE_SIZE = 20;
const SESSION_PATTERN = '[A-Za-z0-9_-]{1,64}';

const when = (value) => (value ? new Date(value).toLocaleString() : '');

export async function mount(root, ctx) {
  const controller = new AbortController();
  if (ctx.params[0]) await runDetail(root, ctx.params[0], controller.signal);
  else await runList(root, controller.signal);
  return () => controller.abort();
}

async function runList(root, signal) {
  const saved = JSON.parse(sessionStorage.getItem(FILTER_KEY) || '{}');
  const errors = h('div', { class: 'errors' });
  const workflow = h('select', { id: 'runs-workflow', name: 'workflow' }, h('option', { value: '' }, t('runs.any')));
  const status = h(
    'select',
    { id: 'runs-status', name: 'status' },
    h('option', { value: '' }, t('runs.any')),
    STATUSES.map((s) => h('option', { value: s }, s)),
  );
  const session = h('input', { id: 'runs-session', name: 'sessionId', pattern: SESSION_PATTERN, autocomplete: 'off' });
  const body = h('tbody');
  const more = h('button', { type: 'button', id: 'runs-more', hidden: true }, t('runs.more'));
  const table = h(
    'table',
    { class: 'runs', id: 'runs-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col', 'data-i18n': 'runs.runId' }, t('runs.runId')),
        h('th', { scope: 'col', 'data-i18n': 'runs.workflow' }, t('runs.workflow')),
        h('th', { scope: 'col', 'data-i18n': 'runs.status' }, t('runs.status')),
        h('th', { scope: 'col', class: 'optional', 'data-i18n': 'runs.session' }, t('runs.session')),
        h('th', { scope: 'col', class: 'optional', 'data-i18n': 'runs.started' }, t('runs.started')),
      ),
    ),
    body,
  );
  const form = h(
    'form',
    { class: 'filters card', 'aria-label': t('runs.filters') },
    field('runs-workflow', 'runs.workflow', workflow),
    field('runs-status', 'runs.status', status),
    field('runs-session', 'runs.session', session),
    h('button', { type: 'submit', class: 'primary', 'data-i18n': 'runs.apply' }, t('runs.apply')),
    h('button', { type: 'reset', 'data-i18n': 'runs.reset' }, t('runs.reset')),
  );
  root.append(
    h('div', { class: 'row' }, h('h1', { 'data-i18n': 'runs.title' }, t('runs.title'))),
    errors,
    h('div', { class: 'stack' }, form, h('div', { class: 'card table-wrap' }, table, more)),
  );

  let token = null;
  let generation = 0;

  function filters() {
    return { workflow: workflow.value, status: status.value, sessionId: session.value.trim() };
  }

  async function load(append = false) {
    const mine = ++generation;
    errors.replaceChildren();
    const query = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
    for (const [name, value] of Object.entries(filters())) if (value) query.set(name, value);
    if (append && token) query.set('pageToken', token);
    table.setAttribute('aria-busy', 'true');
    try {
      const page = await apiJson(`/v1/runs?${query}`, { signal });
      if (mine !== generation) return;
      token = page.nextPageToken;
      more.hidden = !token;
      const rows = page.runs.map((run) =>
        h(
          'tr',
          { dataset: { runId: run.runId, status: run.status, workflow: run.workflow, sessionId: run.sessionId || '' } },
          h('td', { class: 'id' }, h('a', { href: `#/runs/${encodeURIComponent(run.runId)}` }, run.runId)),
          h('td', {}, run.workflow),
          h('td', {}, h('span', { class: `status-${run.status}` }, run.status)),
          h('td', { class: 'optional' }, run.sessionId || ''),
          h('td', { class: 'optional' }, when(run.startTime)),
        ),
      );
      if (append) body.append(...rows);
      else body.replaceChildren(...rows);
      if (!body.children.length) {
        body.append(h('tr', { class: 'empty' }, h('td', { colspan: 5, class: 'muted' }, t('runs.none'))));
      }
    } catch (err) {
      if (!signal.aborted && mine === generation) errors.append(errorBanner(err));
    } finally {
      table.removeAttribute('aria-busy');
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    sessionStorage.setItem(FILTER_KEY, JSON.stringify(filters()));
    load();
  });
  form.addEventListener('reset', () => {
    sessionStorage.removeItem(FILTER_KEY);
    setTimeout(load); // after the form has cleared its fields
  });
  more.addEventListener('click', () => load(true));

  try {
    const workflows = await apiJson('/v1/workflows', { signal });
    const families = groupBy(workflows);
    for (const [family, members] of families) {
      workflow.append(h('optgroup', { label: family }, members.map((w) => h('option', { value: w.name }, w.name))));
    }
  } catch (err) {
    if (!signal.aborted) errors.append(errorBanner(err));
  }
  workflow.value = saved.workflow || '';
  status.value = saved.status || '';
  session.value = saved.sessionId || '';
  await load();
}

/** Workflows by family, in the order the gateway lists them. */
function groupBy(workflows) {
  const groups = new Map();
  for (const w of workflows) groups.set(w.family, [...(groups.get(w.family) || []), w]);
  return groups;
}

function loadCache(runId) {
  try {
    return JSON.parse(sessionStorage.getItem(EVENTS_KEY(runId)) || '[]');
  } catch {
    return [];
  }
}

function saveCache(runId, events) {
  try {
    sessionStorage.setItem(EVENTS_KEY(runId), JSON.stringify(events));
  } catch {
    // sessionStorage is full: forget the cache, so a reload streams the run from its first event instead
    sessionStorage.removeItem(EVENTS_KEY(runId));
  }
}

async function runDetail(root, runId, signal) {
  const errors = h('div', { class: 'errors' });
  const statusTag = h('span', { class: 'tag', id: 'run-status' });
  const workflowTag = h('span', { class: 'tag' });
  const times = h('span', { class: 'muted' });
  const waiting = h('div', { class: 'waiting stack', hidden: true });
  const cancel = h('button', { type: 'button', class: 'danger', id: 'run-cancel', hidden: true }, t('runs.cancel'));
  const count = h('span', { class: 'muted', id: 'run-event-count' });
  const timeline = eventTimeline();
  root.append(
    h('p', {}, h('a', { href: '#/runs', 'data-i18n': 'runs.back' }, t('runs.back'))),
    h('h1', { class: 'run-title' }, h('code', {}, runId)),
    errors,
    h(
      'div',
      { class: 'stack' },
      h(
        'section',
        { class: 'card stack' },
        h(
          'div',
          { class: 'run-head' },
          workflowTag,
          statusTag,
          times,
          cancel,
          h(
            'a',
            {
              href: temporalUiUrl(runId),
              target: '_blank',
              rel: 'noopener',
              id: 'run-temporal',
              'data-i18n': 'runs.temporal',
            },
            t('runs.temporal'),
          ),
        ),
        waiting,
      ),
      h(
        'section',
        { class: 'card stack', 'aria-labelledby': 'run-events-title' },
        h(
          'div',
          { class: 'row' },
          h('h2', { id: 'run-events-title', 'data-i18n': 'runs.events' }, t('runs.events')),
          count,
        ),
        timeline.element,
      ),
    ),
  );

  let shownQuestion = null; // the id of the question shown
  let ended = null; // how the run ended, as its terminal event says (seen before the next view)

  async function refresh() {
    try {
      const view = await apiJson(`/v1/runs/${encodeURIComponent(runId)}`, { signal });
      const status = ended || view.status;
      workflowTag.textContent = view.workflowType;
      statusTag.textContent = status;
      statusTag.className = `tag status-${status}`;
      times.textContent = [when(view.startTime), when(view.closeTime)].filter(Boolean).join(' → ');
      cancel.hidden = view.status !== 'running' && view.status !== 'waiting';
      showQuestion(view.awaitingInput);
    } catch (err) {
      if (!signal.aborted) errors.append(errorBanner(err));
    }
  }

  /** The question the run waits on, as a question card (kept while the run asks the same question). */
  function showQuestion(asked) {
    waiting.hidden = !asked;
    if (asked?.questionId === shownQuestion) return;
    shownQuestion = asked?.questionId ?? null;
    waiting.replaceChildren(
      ...(asked
        ? [h('h2', { 'data-i18n': 'runs.waiting' }, t('runs.waiting')), questionCard(runId, asked).element]
        : []),
    );
  }

  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await apiJson(`/v1/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST', signal });
      cancel.textContent = t('runs.cancelled');
    } catch (err) {
      errors.append(errorBanner(err));
      cancel.disabled = false;
    }
  });

  const events = loadCache(runId);
  const show = (evt) => {
    if (isTerminal(evt)) ended = payloadOf(evt)?.status || null;
    timeline.add(evt);
    count.textContent = t('runs.count', { count: events.length });
  };
  events.forEach(show);
  await refresh();
  const last = events.at(-1);
  if (last && isTerminal(last)) return;
  streamSse(`/v1/runs/${encodeURIComponent(runId)}/events`, {
    lastEventId: last ? last.id : null,
    signal,
    onEvent: (evt) => {
      if (evt.id === null) return; // not one of the run's events
      events.push(evt);
      saveCache(runId, events);
      show(evt);
      if (evt.event === 'user_input_required' || evt.event === 'user_input_received' || isTerminal(evt)) refresh();
    },
  }).catch((err) => {
    if (!signal.aborted) errors.append(errorBanner(err));
  });
}
