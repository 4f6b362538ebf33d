// The app builder (seed 003): start an `AppBuilderWorkflow` run from a description, follow its layers and waves
// with every task's state, the conflicts and the quality results as they stream, then browse the workspace's file
// tree with a file viewer (`/v1/apps/runs/{id}/files`) and download the project as a zip. `#/apps/<runId>` joins
// a run's events. Work an offline agent did (no model) is tagged `offline`, and the run says it ran offline. Its
// built app shows in the preview panel (`app_preview.js`).
// An ended run shows its rounds and a box for a follow-up change (`app_rounds.js`).

import { apiFetch, apiJson, errorFrom, streamSse } from '../api.js';
import { field, hinted, showRunId, text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { agentTexts, errorBanner, eventTimeline, h, payloadOf } from '../ui.js';
import { previewView } from './app_preview.js';
import { downloadZip, roundsPanel } from './app_rounds.js';

registerStrings({
  zh: {
    'apps.title': '应用构建',
    'apps.message': '想做一个什么应用？',
    'apps.messageHint': '例如：做一个待办事项应用：可以添加、完成和删除待办，并按状态筛选',
    'apps.techStack': '技术栈（逗号分隔）',
    'apps.platform': '平台（可选，如 web）',
    'apps.start': '开始构建',
    'apps.running': '构建中…',
    'apps.runId': '运行 {id}',
    'apps.progress': '进度',
    'apps.layer.analysis': '分析',
    'apps.layer.planning': '规划',
    'apps.layer.execution': '执行',
    'apps.documents': '分析文档',
    'apps.wave': '第 {n} 波',
    'apps.otherTasks': '其他任务',
    'apps.conflicts': '冲突',
    'apps.merged': '已三方合并',
    'apps.kept': '保留了 {task} 的版本',
    'apps.quality': '质量检查',
    'apps.qualityRound': '第 {round} 轮：{verdict}',
    'apps.passed': '通过',
    'apps.notPassed': '未通过',
    'apps.repair': '修复第 {round}/{max} 轮：{findings} 个问题交给 {task}',
    'apps.ready': '完成：{files} 个文件，{bytes} 字节',
    'apps.unresolved': '未解决的问题',
    'apps.none': '暂无',
    'apps.workspace': '工作区',
    'apps.noWorkspace': '运行写出文件后，这里显示文件树。',
    'apps.files': '文件',
    'apps.viewer': '文件内容',
    'apps.pickFile': '选择左侧的文件查看内容。',
    'apps.download': '下载 zip',
    'apps.events': '运行事件',
    'apps.offline': '离线',
    'apps.offlineRun':
      '离线构建（未配置模型）：只会生成待办清单、购物清单、笔记、计数器；要生成其他应用，请配置模型（LLM_PROVIDER）。',
  },
  en: {
    'apps.title': 'App builder',
    'apps.message': 'What app shall we build?',
    'apps.messageHint': 'e.g. a todo app: add, complete and delete todos, filter by status',
    'apps.techStack': 'Tech stack (comma separated)',
    'apps.platform': 'Platform (optional, e.g. web)',
    'apps.start': 'Build',
    'apps.running': 'Building…',
    'apps.runId': 'Run {id}',
    'apps.progress': 'Progress',
    'apps.layer.analysis': 'Analysis',
    'apps.layer.planning': 'Planning',
    'apps.layer.execution': 'Execution',
    'apps.documents': 'Analysis documents',
    'apps.wave': 'Wave {n}',
    'apps.otherTasks': 'Other tasks',
    'apps.conflicts': 'Conflicts',
    'apps.merged': 'merged three-way',
    'apps.kept': "kept {task}'s version",
    'apps.quality': 'Quality checks',
    'apps.qualityRound': 'Round {round}: {verdict}',
    'apps.passed': 'passed',
    'apps.notPassed': 'not passed',
    'apps.repair': 'Repair round {round}/{max}: {findings} findings for {task}',
    'apps.ready': 'Done: {files} files, {bytes} bytes',
    'apps.unresolved': 'Unresolved issues',
    'apps.none': 'None yet',
    'apps.workspace': 'Workspace',
    'apps.noWorkspace': 'The file tree shows here once the run has written files.',
    'apps.files': 'Files',
    'apps.viewer': 'File content',
    'apps.pickFile': 'Pick a file to see its content.',
    'apps.download': 'Download zip',
    'apps.events': 'Run events',
    'apps.offline': 'offline',
    'apps.offlineRun':
      'Built offline (no model configured): only a todo list, shopping list, notes or counter; configure a model (LLM_PROVIDER) for anything else.',
  },
});

const LAYERS = ['analysis', 'planning', 'execution'];

/** `{dirs: {name: tree}, files: [{name, path, size}]}` of a flat list of workspace paths. */
function fileTree(files) {
  const tree = { dirs: {}, files: [] };
  for (const file of files) {
    const parts = file.path.split('/');
    let at = tree;
    for (const dir of parts.slice(0, -1)) at = at.dirs[dir] ??= { dirs: {}, files: [] };
    at.files.push({ name: parts.at(-1), path: file.path, size: file.size });
  }
  return tree;
}

/** The progress view: the layers, the analysis documents, each wave's tasks, conflicts, quality and the result. */
function progressView() {
  const layers = new Map(
    LAYERS.map((layer) => [
      layer,
      text('li', `apps.layer.${layer}`, { class: 'ab-layer', dataset: { layer, state: 'pending' } }),
    ]),
  );
  const documents = h('ul', { class: 'ab-documents' });
  const waves = h('div', { class: 'ab-waves' });
  const tasks = new Map();
  const conflicts = h('ul', { class: 'ab-conflicts' }, text('li', 'apps.none', { class: 'muted' }));
  const quality = h('ul', { class: 'ab-quality' }, text('li', 'apps.none', { class: 'muted' }));
  const result = h('div', { class: 'ab-result', 'aria-live': 'polite' });
  const offlineRun = text('p', 'apps.offlineRun', { class: 'ab-offline-run', hidden: true });
  const element = h(
    'section',
    { class: 'card stack ab-progress' },
    text('h2', 'apps.progress'),
    h('ol', { class: 'ab-layers' }, [...layers.values()]),
    offlineRun,
    h('details', { open: true }, text('summary', 'apps.documents'), documents),
    waves,
    h(
      'div',
      { class: 'ab-checks' },
      h('section', {}, text('h3', 'apps.conflicts'), conflicts),
      h('section', {}, text('h3', 'apps.quality'), quality),
    ),
    result,
  );

  function layer(name) {
    let reached = false;
    for (const [id, el] of [...layers].reverse()) {
      if (id === name) reached = true;
      el.dataset.state = id === name ? 'active' : reached ? 'done' : 'pending';
    }
  }

  function taskItem(id, agentId = '', goal = '') {
    const item = h(
      'li',
      { class: 'ab-task', dataset: { task: id, status: 'pending' }, title: goal },
      h('span', { class: 'ab-task-id' }, id),
      h('span', { class: 'muted ab-agent' }, agentId),
      h('span', { class: 'tag ab-status' }, 'pending'),
      h('span', { class: 'ab-summary' }),
    );
    tasks.set(id, item);
    return item;
  }

  function wave(title, ids, planned) {
    const list = h(
      'ul',
      { class: 'ab-tasks' },
      ids.map((id) => taskItem(id, planned.get(id)?.agentId, planned.get(id)?.goal)),
    );
    waves.append(h('section', { class: 'ab-wave' }, h('h3', {}, title), list));
    return list;
  }

  let others = null;
  function task(id, status, agentId, summary, offline = null) {
    if (!tasks.has(id)) {
      others ??= wave(t('apps.otherTasks'), [], new Map());
      others.append(taskItem(id, agentId));
    }
    const item = tasks.get(id);
    item.dataset.status = status;
    const tag = item.querySelector('.ab-status');
    tag.textContent = status;
    tag.className = `tag ab-status status-${status}`;
    if (summary) item.querySelector('.ab-summary').textContent = summary;
    if (offline && !item.querySelector('.ab-offline')) tag.after(offline);
  }

  /** An `offline` tag for the work of an offline agent (and the run's banner says so), else nothing. */
  function offlineTag(p) {
    if (!p.offline) return null;
    offlineRun.hidden = false;
    return text('span', 'apps.offline', { class: 'tag ab-offline' });
  }

  function listItem(list, item) {
    list.querySelector('li.muted')?.remove();
    list.append(item);
  }

  function add(evt) {
    const p = payloadOf(evt) || {};
    switch (evt.event) {
      case 'layer_started':
        layer(p.layer);
        break;
      case 'document_ready':
        documents.append(h('li', {}, h('strong', {}, p.agentId), ' ', offlineTag(p), ` · ${p.summary}`));
        break;
      case 'plan_ready': {
        const planned = new Map(p.tasks.map((item) => [item.id, item]));
        offlineTag(p);
        waves.replaceChildren();
        tasks.clear();
        others = null;
        p.waves.forEach((ids, index) => wave(t('apps.wave', { n: index + 1 }), ids, planned));
        break;
      }
      case 'wave_started':
        waves.children[p.wave - 1]?.classList.add('started');
        break;
      case 'task_started':
        task(p.taskId, 'running', p.agentId);
        break;
      case 'task_finished':
        task(p.taskId, p.status, p.agentId, p.error || p.summary, offlineTag(p));
        break;
      case 'conflict':
        listItem(
          conflicts,
          h(
            'li',
            { dataset: { merged: String(p.merged) } },
            h('code', {}, p.path),
            ` ${p.taskIds.join(' + ')} · `,
            p.merged ? t('apps.merged') : t('apps.kept', { task: p.keptTaskId }),
          ),
        );
        break;
      case 'quality_result':
        listItem(
          quality,
          h(
            'li',
            {
              class: p.passed ? 'status-completed' : 'status-failed',
              dataset: { round: p.round, passed: String(p.passed) },
            },
            t('apps.qualityRound', { round: p.round, verdict: p.passed ? t('apps.passed') : t('apps.notPassed') }),
            ` · ${p.checksRun.join(', ')} · `,
            Object.entries(p.counts)
              .map(([check, count]) => `${check}: ${count}`)
              .join(', '),
            p.findings.length
              ? h(
                  'ul',
                  {},
                  p.findings.map((f) =>
                    h('li', {}, `${f.path ? `${f.path}${f.line ? `:${f.line}` : ''} ` : ''}${f.message}`),
                  ),
                )
              : null,
            p.notes.length
              ? h(
                  'ul',
                  { class: 'muted' },
                  p.notes.map((note) => h('li', {}, note)),
                )
              : null,
          ),
        );
        break;
      case 'repair_round':
        listItem(
          quality,
          h('li', {}, t('apps.repair', { round: p.round, max: p.maxRounds, findings: p.findings, task: p.taskId })),
        );
        break;
      case 'app_ready':
        for (const el of layers.values()) el.dataset.state = 'done';
        offlineTag(p);
        result.replaceChildren(
          h(
            'p',
            { class: p.success ? 'status-completed' : 'status-failed' },
            t('apps.ready', { files: p.files, bytes: p.bytes }),
          ),
          h(
            'details',
            { hidden: !p.unresolvedIssues.length },
            text('summary', 'apps.unresolved'),
            h(
              'ul',
              {},
              p.unresolvedIssues.map((issue) => h('li', {}, issue)),
            ),
          ),
        );
        break;
      default:
    }
  }

  return { element, add };
}

/** The workspace: its file tree, a viewer for one file, and the zip download. */
function workspaceView(report) {
  const tree = h('nav', { class: 'ab-tree', 'aria-label': t('apps.files'), 'data-i18n-label': 'apps.files' });
  const viewerPath = text('h3', 'apps.viewer', { class: 'ab-viewer-path' });
  const code = h('code', {});
  const viewer = h(
    'pre',
    { class: 'ab-viewer', tabindex: 0, 'aria-label': t('apps.viewer'), 'data-i18n-label': 'apps.viewer' },
    code,
  );
  const download = text('button', 'apps.download', { type: 'button', class: 'primary ab-download', disabled: true });
  const empty = text('p', 'apps.noWorkspace', { class: 'muted' });
  const body = h(
    'div',
    { class: 'ab-workspace-body', hidden: true },
    tree,
    h('div', { class: 'ab-viewer-wrap' }, viewerPath, text('p', 'apps.pickFile', { class: 'muted ab-pick' }), viewer),
  );
  const element = h(
    'section',
    { class: 'card stack ab-workspace' },
    h('div', { class: 'row' }, text('h2', 'apps.workspace'), download),
    empty,
    body,
  );
  let runId = null;
  let selected = null;

  async function open(path, button) {
    selected?.setAttribute('aria-current', 'false');
    selected = button;
    button.setAttribute('aria-current', 'true');
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    try {
      const response = await apiFetch(`/v1/apps/runs/${encodeURIComponent(runId)}/files/${encoded}`);
      if (!response.ok) throw await errorFrom(response);
      code.textContent = await response.text();
      viewerPath.removeAttribute('data-i18n');
      viewerPath.textContent = path;
      element.querySelector('.ab-pick').hidden = true;
    } catch (err) {
      report(err);
    }
  }

  function renderTree(node) {
    const dirs = Object.entries(node.dirs).sort(([a], [b]) => a.localeCompare(b));
    return h(
      'ul',
      {},
      dirs.map(([name, sub]) =>
        h('li', {}, h('details', { open: true }, h('summary', {}, `${name}/`), renderTree(sub))),
      ),
      node.files.map((file) => {
        const button = h('button', { type: 'button', class: 'link ab-file', dataset: { path: file.path } }, file.name);
        button.addEventListener('click', () => open(file.path, button));
        return h('li', {}, button, h('span', { class: 'muted' }, ` ${file.size} B`));
      }),
    );
  }

  async function load(id) {
    runId = id;
    try {
      const listing = await apiJson(`/v1/apps/runs/${encodeURIComponent(id)}/files`);
      if (!listing.files.length) return;
      tree.replaceChildren(renderTree(fileTree(listing.files)));
      empty.hidden = true;
      body.hidden = false;
      download.disabled = false;
    } catch (err) {
      report(err);
    }
  }

  download.addEventListener('click', () => downloadZip(runId, report));

  return { element, load };
}

export async function mount(root, ctx) {
  const abort = new AbortController();
  const errors = h('div');
  const report = (err) => errors.append(errorBanner(err));

  const message = hinted('textarea', 'apps.messageHint', { rows: 3, required: true, maxlength: 4000 });
  const techStack = h('input', { type: 'text', value: 'react, typescript' });
  const platform = h('input', { type: 'text', maxlength: 40 });
  const startButton = text('button', 'apps.start', { type: 'submit', class: 'primary' });
  const status = h('p', { class: 'muted ab-run-id', role: 'status' });
  const form = h(
    'form',
    { class: 'card stack ab-form', onSubmit: start },
    field('ab-message', 'apps.message', message),
    h(
      'div',
      { class: 'row' },
      field('ab-tech', 'apps.techStack', techStack),
      field('ab-platform', 'apps.platform', platform),
    ),
    h('div', { class: 'row' }, startButton),
    status,
  );
  const timeline = eventTimeline();
  const texts = agentTexts();
  const slot = h('div', { class: 'ab-run' });

  root.append(
    text('h1', 'apps.title'),
    errors,
    h(
      'div',
      { class: 'app-builder' },
      h(
        'div',
        { class: 'stack' },
        form,
        texts.element,
        h('section', { class: 'card' }, text('h2', 'apps.events'), timeline.element),
      ),
      slot,
    ),
  );

  async function follow(path, init, joined = null) {
    let runId = joined;
    const progress = progressView();
    const workspace = workspaceView(report);
    const preview = previewView(report);
    const rounds = roundsPanel({ report, change: (body) => follow('/v1/apps/runs', { method: 'POST', body }) });
    slot.replaceChildren(
      h('div', { class: 'stack' }, progress.element, preview.element, workspace.element, rounds.element),
    );
    timeline.clear();
    texts.clear();
    startButton.disabled = true;
    let ended = false;
    try {
      await streamSse(path, {
        ...init,
        signal: abort.signal,
        onOpen: (response) => {
          runId = showRunId(response, runId, { page: 'apps', status, key: 'apps.runId' });
        },
        onEvent: (evt) => {
          const p = payloadOf(evt) || {};
          if (evt.event === 'admitted') runId = p.runId;
          if (evt.event === 'content' || evt.event === 'content_live') return texts.add(evt); // text, not rows
          timeline.add(evt);
          progress.add(evt);
          rounds.add(evt);
          if (evt.event === 'error') report(p);
          ended ||= Boolean(evt.data?.terminal);
        },
      });
    } catch (err) {
      if (!abort.signal.aborted) report(err);
    } finally {
      startButton.disabled = false;
    }
    if (ended && runId) await Promise.all([workspace.load(runId), preview.load(runId), rounds.load(runId)]);
  }

  function start(e) {
    e.preventDefault();
    errors.replaceChildren();
    const body = {
      message: message.value.trim(),
      techStack: techStack.value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    };
    if (platform.value.trim()) body.platform = platform.value.trim();
    follow('/v1/apps/runs', { method: 'POST', body });
  }

  if (ctx.params[0]) follow(`/v1/runs/${encodeURIComponent(ctx.params[0])}/events`, {}, ctx.params[0]);

  return () => abort.abort();
}
