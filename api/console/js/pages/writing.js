// The writing workspace (seed 002): a project sidebar (create a project, add and edit its chapters and characters),
// a chat with the writing assistant whose text appears as it streams, a chain's `user_input_required` as option
// buttons answered through `POST /v1/runs/{id}/input`, and the draft's `check_result` issues beside the text.
// Each project's chat is a conversation (`sessionId`, kept for the tab): the turns it remembers show above the log,
// and a revision names the chapter it would become a new version of.
// Chapters as a book (versions, reorder, applying a draft, export) come from `writing_chapters.js`; every save
// sends the item's ETag as `If-Match`, and a save over someone else's change says so and keeps the text. What the
// agents proposed for the project (world notes, characters, relationships) is reviewed in `writing_proposals.js`.

import { apiFetch, apiJson, errorFrom, streamSse } from '../api.js';
import { field, hinted, questionCard, text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { agentTextMerger, errorBanner, eventTimeline, h, payloadOf } from '../ui.js';
import {
  conflictNotice,
  draftActions,
  exportButtons,
  ifMatch,
  moveButtons,
  versionsPanel,
} from './writing_chapters.js';
import { proposalsPanel } from './writing_proposals.js';

registerStrings({
  zh: {
    'writing.title': '写作工作台',
    'writing.projects': '项目',
    'writing.newProject': '新建项目',
    'writing.projectName': '项目名称',
    'writing.genre': '类型（可选）',
    'writing.create': '创建',
    'writing.noProjects': '还没有项目：先创建一个。',
    'writing.chapters': '章节',
    'writing.characters': '角色',
    'writing.chapterTitle': '章节标题',
    'writing.chapterContent': '章节正文',
    'writing.characterName': '角色名',
    'writing.characterDescription': '角色描述',
    'writing.add': '添加',
    'writing.save': '保存修改',
    'writing.newItem': '新建',
    'writing.empty': '暂无',
    'writing.saved': '已保存',
    'writing.chat': '对话',
    'writing.pickProject': '先在左侧选择或创建一个项目。',
    'writing.message': '你想写什么？',
    'writing.messageHint': '例如：先想三个结局方案，我选一个再写',
    'writing.send': '发送',
    'writing.sending': '写作中…',
    'writing.continueChain': '下一条消息会接着上一个未完成的链式流程（chainContext）。',
    'writing.checks': '一致性检查',
    'writing.noChecks': '草稿写完后，这里显示检查结果。',
    'writing.offlineDraft': '离线占位稿：未接入大模型',
    'writing.passed': '通过',
    'writing.failed': '发现问题',
    'writing.degraded': '检查未能运行',
    'writing.suggestion': '建议：{text}',
    'writing.events': '运行事件',
    'writing.runId': '运行 {id}',
    'writing.runEnded': '运行结束：{status}',
    'writing.memory': '这段对话已记住 {count} 轮（{session}）',
    'writing.memoryTurn': '{intent}：{text}',
    'writing.newSession': '开始新对话',
    'writing.revisionTarget': '改写稿：将成为第{position}章《{title}》的新版本（项目尚未改动）',
  },
  en: {
    'writing.title': 'Writing workspace',
    'writing.projects': 'Projects',
    'writing.newProject': 'New project',
    'writing.projectName': 'Project name',
    'writing.genre': 'Genre (optional)',
    'writing.create': 'Create',
    'writing.noProjects': 'No project yet: create one first.',
    'writing.chapters': 'Chapters',
    'writing.characters': 'Characters',
    'writing.chapterTitle': 'Chapter title',
    'writing.chapterContent': 'Chapter text',
    'writing.characterName': 'Name',
    'writing.characterDescription': 'Description',
    'writing.add': 'Add',
    'writing.save': 'Save changes',
    'writing.newItem': 'New',
    'writing.empty': 'None yet',
    'writing.saved': 'Saved',
    'writing.chat': 'Conversation',
    'writing.pickProject': 'Pick or create a project on the left first.',
    'writing.message': 'What shall we write?',
    'writing.messageHint': 'e.g. 先想三个结局方案，我选一个再写',
    'writing.send': 'Send',
    'writing.sending': 'Writing…',
    'writing.continueChain': 'Your next message continues the unfinished chain (chainContext).',
    'writing.checks': 'Consistency check',
    'writing.noChecks': 'The check of a finished draft shows here.',
    'writing.offlineDraft': 'offline placeholder: no model connected',
    'writing.passed': 'Passed',
    'writing.failed': 'Issues found',
    'writing.degraded': 'The check could not run',
    'writing.suggestion': 'Suggestion: {text}',
    'writing.events': 'Run events',
    'writing.runId': 'Run {id}',
    'writing.runEnded': 'Run ended: {status}',
    'writing.memory': 'This conversation remembers {count} turn(s) ({session})',
    'writing.memoryTurn': '{intent}: {text}',
    'writing.newSession': 'New conversation',
    'writing.revisionTarget': 'Revision: it would become a new version of chapter {position} “{title}” (the project is unchanged)',
  },
});

const COLLECTIONS = {
  chapters: {
    heading: 'writing.chapters',
    idKey: 'chapterId',
    fields: [
      { name: 'title', label: 'writing.chapterTitle', multiline: false, required: true },
      { name: 'content', label: 'writing.chapterContent', multiline: true, required: false },
    ],
    itemLabel: (item) => `${item.position}. ${item.title}`,
    itemNote: (item) => item.summary,
  },
  characters: {
    heading: 'writing.characters',
    idKey: 'characterId',
    fields: [
      { name: 'name', label: 'writing.characterName', multiline: false, required: true },
      { name: 'description', label: 'writing.characterDescription', multiline: true, required: false },
    ],
    itemLabel: (item) => item.name,
  },
};

/** The list at `url` with its ETag as `list.etag` (the chapters' is what a reorder names in `If-Match`). */
async function listed(url) {
  const response = await apiFetch(url);
  if (!response.ok) throw await errorFrom(response);
  const list = await response.json();
  list.etag = response.headers.get('ETag');
  return list;
}

/** A project's chapters or characters: the list (each opens in the form) and the form that adds or saves one.
 * Hooks: `tools(base, items, index, reload)` adds controls to an item's row, `opened(base, item)` follows the item
 * the form edits (null for a new one). */
function collectionEditor(kind, report, { tools = null, opened = null } = {}) {
  const spec = COLLECTIONS[kind];
  let base = null;
  let items = [];
  let editing = null;
  const list = h('ul', { class: 'ws-items' });
  const inputs = Object.fromEntries(
    spec.fields.map((f) => [
      f.name,
      f.multiline
        ? h('textarea', { rows: 3, name: f.name })
        : h('input', { type: 'text', name: f.name, required: f.required }),
    ]),
  );
  const submit = text('button', 'writing.add', { type: 'submit', class: 'primary' });
  const fresh = text('button', 'writing.newItem', { type: 'button', class: 'secondary', onClick: () => edit(null) });
  const status = h('span', { class: 'muted', role: 'status' });
  const conflict = h('div');
  const form = h(
    'form',
    { class: 'stack ws-form', dataset: { kind }, onSubmit: save },
    spec.fields.map((f) => field(`ws-${kind}-${f.name}`, f.label, inputs[f.name])),
    h('div', { class: 'row' }, submit, fresh, status),
    conflict,
  );
  const element = h('section', { class: 'ws-collection', dataset: { kind } }, text('h3', spec.heading), list, form);

  function edit(item) {
    editing = item;
    for (const f of spec.fields) inputs[f.name].value = item ? item[f.name] : '';
    submit.dataset.i18n = item ? 'writing.save' : 'writing.add';
    submit.textContent = t(submit.dataset.i18n);
    status.textContent = '';
    conflict.replaceChildren();
    opened?.(base, item);
    for (const button of list.querySelectorAll('button[data-id]')) {
      button.setAttribute('aria-pressed', String(item !== null && button.dataset.id === item[spec.idKey]));
    }
  }

  function render() {
    list.replaceChildren(
      ...(items.length
        ? items.map((item, index) =>
            h(
              'li',
              {},
              tools?.(base, items, index, reload),
              h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  'aria-pressed': 'false',
                  dataset: { id: item[spec.idKey] },
                  onClick: () => edit(item),
                },
                spec.itemLabel(item),
              ),
              spec.itemNote?.(item) ? h('p', { class: 'ws-item-note muted' }, spec.itemNote(item)) : null,
            ),
          )
        : [h('li', { class: 'muted', 'data-i18n': 'writing.empty' }, t('writing.empty'))]),
    );
  }

  async function load(projectBase) {
    base = projectBase;
    edit(null);
    items = await listed(`${base}/${kind}`);
    render();
  }

  /** The items again, the one in the form too (as stored now). */
  async function reload() {
    items = await listed(`${base}/${kind}`);
    render();
    if (editing) edit(items.find((item) => item[spec.idKey] === editing[spec.idKey]) ?? null);
  }

  /** The item in the form as stored now, which the next save names in `If-Match`; the form keeps its text. */
  async function latest() {
    const item = await apiJson(`${base}/${kind}/${encodeURIComponent(editing[spec.idKey])}`);
    editing = item;
    return item;
  }

  async function save(e) {
    e.preventDefault();
    const body = Object.fromEntries(spec.fields.map((f) => [f.name, inputs[f.name].value]));
    const path = editing ? `${base}/${kind}/${encodeURIComponent(editing[spec.idKey])}` : `${base}/${kind}`;
    conflict.replaceChildren();
    try {
      const headers = editing ? ifMatch(editing) : {};
      const saved = await apiJson(path, { method: editing ? 'PUT' : 'POST', body, headers });
      items = await listed(`${base}/${kind}`);
      render();
      edit(items.find((item) => item[spec.idKey] === saved[spec.idKey]) ?? null);
      status.textContent = t('writing.saved');
    } catch (err) {
      if (err.status === 412) conflict.replaceChildren(conflictNotice(latest, report));
      else report(err);
    }
  }

  return { element, load, reload, items: () => items };
}

/** The consistency panel: the latest `check_result` (or `issue_report`) with every issue and its place. */
function checksPanel() {
  const body = h('div', { class: 'ws-check-body' }, text('p', 'writing.noChecks', { class: 'muted' }));
  const element = h('section', { class: 'card ws-checks', 'aria-live': 'polite' }, text('h2', 'writing.checks'), body);

  function show(result) {
    const passed = result.passed ?? result.errors === 0;
    const verdict = result.degraded ? 'writing.degraded' : passed ? 'writing.passed' : 'writing.failed';
    const issues = (result.issues || []).map((issue) =>
      h(
        'li',
        { class: ['ws-issue', `severity-${issue.severity}`], dataset: { kind: issue.kind } },
        h('span', { class: 'tag' }, issue.severity),
        ' ',
        h('span', {}, issue.message),
        issue.location ? h('blockquote', {}, issue.location.excerpt) : null,
        issue.suggestion ? h('p', { class: 'muted' }, t('writing.suggestion', { text: issue.suggestion })) : null,
      ),
    );
    body.replaceChildren(
      h('p', { class: ['ws-verdict', passed ? 'status-completed' : 'status-failed'] }, text('strong', verdict)),
      h('p', { class: 'muted' }, result.message || result.summary || ''),
      h('ul', { class: 'ws-issues', hidden: !issues.length }, issues),
    );
  }

  return { element, show };
}

export async function mount(root, ctx) {
  const abort = new AbortController();
  let projects = [];
  let projectId = ctx.params[0] || null;
  let chainContext = null;
  let sessionId = null;
  const errors = h('div', { class: 'ws-errors' });
  const report = (err) => errors.append(errorBanner(err));

  // --- the sidebar: projects, chapters, characters
  const projectList = h('ul', { class: 'ws-projects' });
  const nameInput = h('input', { type: 'text', required: true, maxlength: 200 });
  const genreInput = h('input', { type: 'text', maxlength: 200 });
  const projectForm = h(
    'form',
    { class: 'stack', onSubmit: createProject },
    text('h3', 'writing.newProject'),
    field('ws-project-name', 'writing.projectName', nameInput),
    field('ws-project-genre', 'writing.genre', genreInput),
    h('div', { class: 'row' }, text('button', 'writing.create', { type: 'submit', class: 'primary' })),
  );
  const versions = versionsPanel(report, () => chapters.reload());
  const chapters = collectionEditor('chapters', report, {
    tools: (base, items, index, reload) => moveButtons(base, items, index, reload, report),
    opened: (base, item) => (item ? versions.show(base, item) : versions.hide()),
  });
  const characters = collectionEditor('characters', report);
  const proposals = proposalsPanel(report, () => characters.reload());
  const projectBase = () => `/v1/writing/projects/${encodeURIComponent(projectId)}`;
  const projectItems = h(
    'div',
    { class: 'stack', hidden: true },
    chapters.element,
    versions.element,
    characters.element,
    proposals.element,
    exportButtons(projectBase, report),
  );
  const sidebar = h(
    'aside',
    { class: 'card ws-sidebar stack', 'aria-labelledby': 'ws-projects-heading' },
    text('h2', 'writing.projects', { id: 'ws-projects-heading' }),
    projectList,
    projectForm,
    projectItems,
  );

  // --- the chat
  const log = h('div', { class: 'chat-log ws-log', 'aria-live': 'polite' });
  const message = hinted('textarea', 'writing.messageHint', { rows: 2, required: true, maxlength: 20000 });
  const sendButton = text('button', 'writing.send', { type: 'submit', class: 'primary' });
  const chainNote = text('p', 'writing.continueChain', { class: 'muted', hidden: true });
  const memorySummary = h('summary', {});
  const memoryList = h('ol', { class: 'ws-memory-turns' });
  const newSession = text('button', 'writing.newSession', { type: 'button', onClick: startSession });
  const memory = h(
    'details',
    { class: 'ws-memory muted', hidden: true },
    memorySummary,
    memoryList,
    h('div', { class: 'row' }, newSession),
  );
  const composer = h(
    'form',
    { class: 'composer', onSubmit: send },
    field('ws-message', 'writing.message', message),
    sendButton,
  );
  message.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) composer.requestSubmit();
  });
  const noProject = text('p', 'writing.pickProject', { class: 'muted' });
  const chat = h(
    'section',
    { class: 'card ws-chat stack' },
    text('h2', 'writing.chat'),
    noProject,
    memory,
    log,
    chainNote,
    composer,
  );

  const checks = checksPanel();
  const timeline = eventTimeline();
  const side = h(
    'div',
    { class: 'ws-side stack' },
    checks.element,
    h('section', { class: 'card' }, text('h2', 'writing.events'), timeline.element),
  );

  root.append(text('h1', 'writing.title'), errors, h('div', { class: 'writing-workspace' }, sidebar, chat, side));

  function renderProjects() {
    projectList.replaceChildren(
      ...(projects.length
        ? projects.map((p) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'ws-project',
                  'aria-pressed': String(p.projectId === projectId),
                  dataset: { id: p.projectId },
                  onClick: () => selectProject(p.projectId),
                },
                p.name,
                p.genre ? h('span', { class: 'muted' }, ` · ${p.genre}`) : null,
              ),
            ),
          )
        : [text('li', 'writing.noProjects', { class: 'muted' })]),
    );
  }

  async function selectProject(id) {
    projectId = id;
    history.replaceState(null, '', `#/writing/${encodeURIComponent(id)}`);
    renderProjects();
    const base = `/v1/writing/projects/${encodeURIComponent(id)}`;
    noProject.hidden = true;
    composer.hidden = false;
    chainContext = null;
    chainNote.hidden = true;
    sessionId = sessionStorage.getItem(`ws-session-${id}`);
    if (!sessionId) startSession();
    else await showMemory();
    try {
      await Promise.all([chapters.load(base), characters.load(base), proposals.load(base)]);
      projectItems.hidden = false;
    } catch (err) {
      report(err);
    }
  }

  /** A new conversation on the project: its own `sessionId`, kept for this tab, so its turns are remembered. */
  function startSession() {
    sessionId = `ws-${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;
    sessionStorage.setItem(`ws-session-${projectId}`, sessionId);
    memory.hidden = true;
    memoryList.replaceChildren();
  }

  /** What the conversation remembers: its kept turns (`GET .../sessions/{sessionId}/turns`). */
  async function showMemory() {
    const path = `/v1/writing/projects/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}/turns`;
    try {
      const { turns } = await apiJson(path);
      memory.hidden = turns.length === 0;
      memorySummary.textContent = t('writing.memory', { count: turns.length, session: sessionId });
      memoryList.replaceChildren(
        ...turns.map((turn) => h('li', {}, t('writing.memoryTurn', { intent: turn.intent || '—', text: turn.text }))),
      );
    } catch (err) {
      report(err);
    }
  }

  /** A revision names the chapter it would change; the run's state carries it. */
  async function showTarget(runId) {
    try {
      const view = await apiJson(`/v1/runs/${encodeURIComponent(runId)}`);
      const result = view.state?.result;
      if (result?.targetChapterId)
        log.append(
          h(
            'p',
            { class: 'ws-revision-target', dataset: { chapterId: result.targetChapterId } },
            t('writing.revisionTarget', { position: result.targetChapterPosition, title: result.targetChapterTitle }),
          ),
        );
    } catch (err) {
      report(err);
    }
  }

  async function createProject(e) {
    e.preventDefault();
    try {
      const project = await apiJson('/v1/writing/projects', {
        method: 'POST',
        body: { name: nameInput.value.trim(), genre: genreInput.value.trim() || null },
      });
      projects.push(project);
      projectForm.reset();
      await selectProject(project.projectId);
    } catch (err) {
      report(err);
    }
  }

  async function send(e) {
    e.preventDefault();
    const textValue = message.value.trim();
    if (!textValue || !projectId) return;
    const body = { text: textValue, sessionId };
    if (chainContext) body.chainContext = chainContext;
    chainContext = null;
    chainNote.hidden = true;
    message.value = '';
    sendButton.disabled = true;
    sendButton.dataset.i18n = 'writing.sending';
    sendButton.textContent = t('writing.sending');
    log.append(h('div', { class: 'bubble user' }, textValue));
    timeline.clear();
    let runId = null;
    const bubbles = new Map();
    const questions = new Map();

    function bubbleFor(agent) {
      if (!bubbles.has(agent)) {
        const body = h('div', { class: 'ws-text' });
        const bubble = h(
          'div',
          { class: 'bubble agent', dataset: { agent } },
          h('span', { class: 'tag node' }, agent),
          body,
        );
        log.append(bubble);
        bubbles.set(agent, body);
      }
      return bubbles.get(agent);
    }

    const texts = agentTextMerger();

    function onEvent(evt) {
      const p = payloadOf(evt) || {};
      if (evt.event === 'content_live') {
        const shown = texts.live(p); // the words as the model writes them: text, not timeline rows
        if (shown !== null) bubbleFor(p.agent).textContent = shown;
        return;
      }
      timeline.add(evt);
      if (evt.event === 'admitted') runId = p.runId;
      else if (evt.event === 'agent_started') bubbleFor(p.agent);
      else if (evt.event === 'content') {
        const target = bubbleFor(p.agent);
        if (p.offline && !target.parentElement.querySelector('.tag.offline'))
          target.before(h('span', { class: 'tag offline' }, t('writing.offlineDraft')));
        target.textContent = texts.content(p);
      } else if (evt.event === 'user_input_required') {
        const card = questionCard(runId, p);
        questions.set(p.questionId, card);
        log.append(card.element);
        card.element.querySelector('button')?.focus();
      } else if (evt.event === 'user_input_received') questions.get(p.questionId)?.resolve(p);
      else if (evt.event === 'user_input_expired') questions.get(p.questionId)?.expire();
      else if ((evt.event === 'check_result' && (p.check ?? 'consistency') === 'consistency') || evt.event === 'issue_report')
        checks.show(p);
      else if (evt.event === 'chain_summary' && !p.completed) {
        chainContext = p.chainContext;
        chainNote.hidden = false;
      } else if (evt.event === 'error') log.append(errorBanner(p));
      else if (evt.data?.terminal) {
        log.append(
          h('p', { class: ['muted', 'ws-run-end', `status-${p.status}`] }, t('writing.runEnded', { status: p.status })),
        );
        if (p.status === 'completed' && runId && bubbles.size) {
          log.append(draftActions(projectBase(), runId, chapters.items, chapters.reload, report));
        }
      }
      log.scrollTop = log.scrollHeight;
    }

    try {
      await streamSse(`/v1/writing/projects/${encodeURIComponent(projectId)}/chat`, {
        method: 'POST',
        body,
        signal: abort.signal,
        onOpen: (response) => {
          runId = response.headers.get('X-Run-Id');
          if (runId)
            log.append(h('p', { class: 'muted ws-run-id', dataset: { runId } }, t('writing.runId', { id: runId })));
        },
        onEvent,
      });
      if (runId) await showTarget(runId);
      await showMemory();
      await proposals.reload();
    } catch (err) {
      if (!abort.signal.aborted) log.append(errorBanner(err));
    } finally {
      sendButton.disabled = false;
      sendButton.dataset.i18n = 'writing.send';
      sendButton.textContent = t('writing.send');
    }
  }

  composer.hidden = true;
  try {
    projects = await apiJson('/v1/writing/projects');
  } catch (err) {
    report(err);
  }
  renderProjects();
  if (projectId && projects.some((p) => p.projectId === projectId)) await selectProject(projectId);
  else projectId = null;

  return () => abort.abort();
}
