// Small DOM helpers shared by every page: `h` builds elements, `eventTimeline` lists a run's events (with a
// progress bar fed by `progress` events, and `eventText` a short line for each), `agentTexts` shows what each agent
// is writing (`content` events), `errorBanner` shows a failure.

import { registerStrings, t } from './i18n.js';

registerStrings({
  zh: {
    'ui.progress': '进度',
    'ui.events': '事件',
    'ui.error': '出错了',
    'ui.dismiss': '关闭',
    'ui.noEvents': '还没有事件',
    'ui.ev.issues': '{count} 个问题',
    'ui.ev.plan': '{tasks} 个任务，{waves} 个波次',
    'ui.ev.merged': '已合并',
    'ui.ev.kept': '保留 {task} 的版本',
    'ui.ev.quality': '第 {round} 轮：检查了 {files} 个文件',
    'ui.ev.repair': '修复 {round}/{max}：{findings} 个问题',
    'ui.ev.app': '{files} 个文件，{size}',
    'ui.agentTexts': '智能体正在写',
  },
  en: {
    'ui.progress': 'Progress',
    'ui.events': 'Events',
    'ui.error': 'Something went wrong',
    'ui.dismiss': 'Dismiss',
    'ui.noEvents': 'No events yet',
    'ui.ev.issues': '{count} issues',
    'ui.ev.plan': '{tasks} tasks in {waves} waves',
    'ui.ev.merged': 'merged',
    'ui.ev.kept': 'kept the version of {task}',
    'ui.ev.quality': 'round {round}: {files} files checked',
    'ui.ev.repair': 'repair {round}/{max}: {findings} findings',
    'ui.ev.app': '{files} files, {size}',
    'ui.agentTexts': 'What the agents are writing',
  },
});

const PROPERTIES = new Set(['value', 'checked', 'selected', 'indeterminate', 'muted']);

/**
 * `h('button', {class: 'primary', onClick: fn, 'aria-label': '...'}, 'text', child, [more])`: attributes by name
 * (`on<Event>` functions become listeners, `class` may be an array, `style` an object, `dataset` an object,
 * `value`/`checked` are set as properties); `null`/`undefined` skip an attribute, `false` too except for `aria-*`.
 * Children are nodes or text; arrays are flattened; `null`/`false` are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value == null) continue;
    if (value === false && !name.startsWith('aria-')) continue;
    if (/^on[A-Z]/.test(name) && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'class') {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    } else if (name === 'style' && typeof value === 'object') {
      Object.assign(el.style, value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (PROPERTIES.has(name)) {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A run event's payload: the envelope's `data` for the run's own events, the whole `data` for the gateway's. */
export function payloadOf(evt) {
  const data = evt.data;
  return data && typeof data === 'object' && 'seq' in data && 'data' in data ? data.data : data;
}

/** The node an event belongs to ('' for the gateway's own events). */
export function nodeOf(evt) {
  const data = evt.data || {};
  return data.node || payloadOf(evt)?.node || '';
}

function clip(text, length = 160) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

const mark = (ok) => (ok ? '✓' : '✗');
const joined = (parts, separator = ': ') => parts.filter((part) => part || part === 0).join(separator);
const kilobytes = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Short text for the event types (of the families' catalogs and the gateway) whose payload has no message. */
const EVENT_TEXTS = {
  admitted: (p) => p.runId,
  progress: (p) => joined([`${p.percent}%`, p.message], ' '),
  intent_recognized: (p) => `${p.intent?.intent} → ${p.workflow}`,
  preprocessing_task: (p) =>
    joined([p.task, p.status, p.elapsedMs != null && `${Math.round(p.elapsedMs)} ms`, p.warning], ' · '),
  agent_started: (p) => joined([p.agent, p.guidance || p.workflow]),
  agent_finished: (p) => joined([p.agent, p.summary]),
  check_result: (p) => p.message || `${mark(p.passed)} ${t('ui.ev.issues', { count: (p.issues || []).length })}`,
  structure_update: (p) => (p.sections || []).map((section) => section.title).join(' · '),
  character_design: (p) => (p.characters || []).map((c) => joined([c.name, c.role], ' · ')).join(', '),
  chain_summary: (p) => `${mark(p.completed)} ${(p.steps || []).map((step) => step.agent).join(' → ')}`,
  user_input_received: (p) => (p.option ? `${p.option.id} · ${p.option.label}` : p.answer),
  supervisor_decision: (p) => joined([`→ ${p.routedTo} (${p.rule})`, p.reason]),
  tool_call: (p) => `${p.tool} ${JSON.stringify(p.arguments ?? {})}`,
  tool_result: (p) => joined([`${p.isError ? '✗ ' : ''}${p.tool}`, p.summary]),
  image_generated: (p) => joined([p.planId, p.imageUrl]),
  review_result: (p) =>
    joined([
      `${mark(p.qualityApproved)} ${p.feedback?.summary ?? ''}`.trim(),
      p.fallback && `→ ${p.fallback.agent} (${p.fallback.dimension} ${p.fallback.score})`,
    ]),
  layer_started: (p) => p.layer,
  document_ready: (p) => joined([p.agentId, p.summary]),
  plan_ready: (p) => t('ui.ev.plan', { tasks: (p.tasks || []).length, waves: (p.waves || []).length }),
  wave_started: (p) => joined([p.wave, (p.taskIds || []).join(', ')]),
  task_started: (p) => joined([p.taskId, p.goal]),
  task_finished: (p) => joined([`${p.taskId} ${p.status}`, p.error || p.summary]),
  conflict: (p) => joined([p.path, p.merged ? t('ui.ev.merged') : t('ui.ev.kept', { task: p.keptTaskId })]),
  quality_result: (p) => `${mark(p.passed)} ${t('ui.ev.quality', { round: p.round, files: p.filesChecked })}`,
  repair_round: (p) => t('ui.ev.repair', { round: p.round, max: p.maxRounds, findings: p.findings }),
  app_ready: (p) => `${mark(p.success)} ${t('ui.ev.app', { files: p.files, size: kilobytes(p.bytes) })}`,
};

/** A line of text saying what an event is about. */
export function eventText(evt) {
  const p = payloadOf(evt);
  if (p == null || typeof p !== 'object') return clip(p ?? '');
  const special = EVENT_TEXTS[evt.event]?.(p);
  if (special) return clip(special);
  if (p.widgetType) return `${p.widgetType}${p.props?.text ? `: ${p.props.text}` : ''}`;
  if (p.error?.message) return `${p.status ? `${p.status}: ` : ''}${p.error.message}`;
  for (const key of ['message', 'prompt', 'question', 'summary', 'text', 'content', 'title', 'status']) {
    if (typeof p[key] === 'string' && p[key]) return clip(p[key]);
  }
  return clip(JSON.stringify(p));
}

// What each agent has written, from its `content` events (the run's durable record, in batches; a piece with
// `restart` replaces its agent's text: a repair round, a retried attempt, the agent's next call) and its
// `content_live` pieces (as the model writes them, ahead of the record; pieces of one call, attempt and round come
// with their offsets, and one that does not follow on is dropped). An agent shows its live text until its first
// `content` event, then while that text begins with the recorded one of the same attempt and is longer; else its
// recorded text. `content(p)` and `live(p)`
// answer the agent's text to show (`live`: null when the piece changes nothing).
export function agentTextMerger() {
  const recorded = new Map();
  const written = new Map();

  function shown(agent) {
    const r = recorded.get(agent);
    const w = written.get(agent);
    if (!r) return w ? w.text : '';
    const ahead = w && r.text && w.attempt === r.attempt && w.text.length > r.text.length && w.text.startsWith(r.text);
    return ahead ? w.text : r.text;
  }

  function content(p) {
    const before = recorded.get(p.agent);
    const text = p.restart || !before ? (p.text ?? '') : before.text + (p.text ?? '');
    recorded.set(p.agent, { text, attempt: p.attempt ?? 1 });
    return shown(p.agent);
  }

  function live(p) {
    const key = `${p.call}/${p.attempt}/${p.round}`;
    const w = written.get(p.agent);
    if (w && w.key === key && p.offset === w.text.length) w.text += p.text;
    else if (p.offset === 0) written.set(p.agent, { key, attempt: p.attempt, text: p.text });
    else return null;
    return shown(p.agent);
  }

  return { content, live };
}

// A run's agent texts (`agentTextMerger`) as one block of text per agent, as the model writes it. Hidden until the
// first text; a run without a model streams none.
export function agentTexts() {
  const blocks = new Map();
  let merger = agentTextMerger();
  const list = h('div', { class: 'agent-texts' });
  const element = h(
    'section',
    { class: 'card', hidden: true, 'aria-live': 'polite' },
    h('h2', { 'data-i18n': 'ui.agentTexts' }, t('ui.agentTexts')),
    list,
  );

  function show(agent, text) {
    if (text === null) return;
    let body = blocks.get(agent);
    if (!body) {
      body = h('pre', { class: 'agent-text' });
      list.append(h('div', { class: 'agent-text-block' }, h('span', { class: 'tag node' }, agent), body));
      blocks.set(agent, body);
    }
    body.textContent = text;
    body.scrollTop = body.scrollHeight;
    element.hidden = false;
  }

  // `evt`: a `content` or `content_live` event
  function add(evt) {
    const p = payloadOf(evt) || {};
    show(p.agent, evt.event === 'content_live' ? merger.live(p) : merger.content(p));
  }

  function clear() {
    blocks.clear();
    merger = agentTextMerger();
    list.replaceChildren();
    element.hidden = true;
  }

  return { element, add, clear };
}

/** A list of events (node, type, text), newest last; `progress` events also move the progress bar. */
export function eventTimeline() {
  const bar = h('progress', { max: 100, value: 0, 'aria-label': t('ui.progress'), 'data-i18n-label': 'ui.progress' });
  const barText = h('span', { class: 'progress-text' });
  const progress = h('div', { class: 'timeline-progress', hidden: true }, bar, barText);
  const empty = h('p', { class: 'muted timeline-empty', 'data-i18n': 'ui.noEvents' }, t('ui.noEvents'));
  const list = h('ol', { class: 'timeline-list', 'aria-live': 'polite', 'aria-label': t('ui.events') });
  const element = h('section', { class: 'timeline' }, progress, empty, list);

  function add(evt) {
    const payload = payloadOf(evt) || {};
    const node = nodeOf(evt);
    if (evt.event === 'progress' && typeof payload.percent === 'number') {
      progress.hidden = false;
      bar.value = Math.max(0, Math.min(100, payload.percent));
      barText.textContent = `${node ? `${node} · ` : ''}${payload.percent}%`;
    }
    if (evt.data?.terminal && payload.status === 'completed') {
      bar.value = 100;
      barText.textContent = '100%';
    }
    empty.hidden = true;
    const failed = evt.data?.terminal && payload.status !== 'completed';
    const level = evt.event === 'error' || payload.level === 'warning' || failed;
    const item = h(
      'li',
      {
        class: ['timeline-item', level && 'timeline-warn', evt.data?.terminal && 'timeline-end'],
        dataset: { type: evt.event, seq: evt.id ?? '' },
      },
      node ? h('span', { class: 'tag node' }, node) : null,
      h('span', { class: 'tag type' }, evt.event),
      h('span', { class: 'timeline-text' }, eventText(evt)),
    );
    list.append(item);
    list.scrollTop = list.scrollHeight;
    return item;
  }

  function clear() {
    list.replaceChildren();
    empty.hidden = false;
    progress.hidden = true;
    bar.value = 0;
  }

  return { element, add, clear };
}

/** An alert for a failure (an ApiError's code and message, or any error's message), with a dismiss button. */
export function errorBanner(err) {
  const banner = h(
    'div',
    { class: 'error-banner', role: 'alert' },
    h('strong', {}, err?.code || t('ui.error')),
    ' ',
    h('span', {}, err?.message || String(err)),
  );
  banner.append(
    h('button', { type: 'button', class: 'link', onClick: () => banner.remove(), 'aria-label': t('ui.dismiss') }, '×'),
  );
  return banner;
}
