// The content studio (seed 001): start a `ContentSupervisorWorkflow` run from a topic, a layout and tone in the
// user's words, a length, notes and reference images (uploaded through `/v1/blobs`), draw its declared graph (the
// Mermaid of `/v1/workflows/{name}/graph`, laid out here as SVG) with the node each event comes from highlighted,
// answer a clarification inline, and preview the finished post (`GET /v1/content/runs/{id}/post`) with its images,
// to copy as the platform's text or download as Markdown or a zip (`export.txt|md|zip`), to edit (rewrite a
// section, regenerate an image: `content_edits.js`) and to open any of its versions. `#/content/<runId>` joins a
// run's events (a post's run or an edit's).

import { apiFetch, apiJson, downloadFile, errorFrom, streamSse, uploadBlob } from '../api.js';
import { field, hinted, questionCard, showRunId, text } from '../forms.js';
import { onLangChange, registerStrings, t } from '../i18n.js';
import { agentTexts, errorBanner, eventTimeline, h, nodeOf, payloadOf } from '../ui.js';
import { editActions, restyleForm, versionsList } from './content_edits.js';

registerStrings({
  zh: {
    'content.title': '内容创作工作室',
    'content.start': '开始创作',
    'content.topic': '话题',
    'content.topicHint': '例如：打工人的咖啡续命指南',
    'content.platform': '发布平台',
    'content.platformAsk': '（不指定：由 Brief 编译询问）',
    'content.evidence': '资料与数据（每行一条，可选）',
    'content.references': '参考图片（可选）',
    'content.uploading': '上传参考图…',
    'content.starting': '运行中…',
    'content.graph': '流程图',
    'content.graphLabel': 'ContentSupervisorWorkflow 的声明图，当前节点高亮',
    'content.current': '当前节点：{node}',
    'content.idle': '还没有运行',
    'content.route': '经过的节点',
    'content.question': '需要你的回答',
    'content.events': '运行事件',
    'content.post': '成品预览',
    'content.noPost': '运行完成后，这里显示成品。',
    'content.incomplete': '成品不完整',
    'content.endReason': '结束原因：{reason}',
    'content.notApproved': '审核未通过：{why}',
    'content.scores': '质量评分',
    'content.runId': '运行 {id}',
    'content.layout': '版式（可选）',
    'content.layoutHint': '例如：图文交错、封面优先、九宫格',
    'content.tone': '语气（可选）',
    'content.toneHint': '例如：轻松幽默',
    'content.length': '篇幅',
    'content.lengthDefault': '（不指定：平台的常规篇幅）',
    'content.short': '短',
    'content.medium': '中',
    'content.long': '长',
    'content.export': '导出',
    'content.copy': '复制文案',
    'content.copied': '已复制：标题、正文和话题标签',
    'content.downloadMd': '下载 Markdown',
    'content.downloadZip': '下载 ZIP（文案和图片）',
  },
  en: {
    'content.title': 'Content studio',
    'content.start': 'Create',
    'content.topic': 'Topic',
    'content.topicHint': 'e.g. 打工人的咖啡续命指南',
    'content.platform': 'Platform',
    'content.platformAsk': '(not set: the brief compiler asks)',
    'content.evidence': 'Notes and figures (one per line, optional)',
    'content.references': 'Reference images (optional)',
    'content.uploading': 'Uploading references…',
    'content.starting': 'Running…',
    'content.graph': 'Graph',
    'content.graphLabel': 'The declared graph of ContentSupervisorWorkflow, the current node highlighted',
    'content.current': 'Current node: {node}',
    'content.idle': 'No run yet',
    'content.route': 'Nodes passed',
    'content.question': 'Your answer is needed',
    'content.events': 'Run events',
    'content.post': 'Post preview',
    'content.noPost': 'The finished post shows here when the run ends.',
    'content.incomplete': 'The post is incomplete',
    'content.endReason': 'Ended because: {reason}',
    'content.notApproved': 'Not approved by the review: {why}',
    'content.scores': 'Quality scores',
    'content.runId': 'Run {id}',
    'content.layout': 'Layout (optional)',
    'content.layoutHint': 'e.g. alternating, cover first, grid, 图文交错',
    'content.tone': 'Tone (optional)',
    'content.toneHint': 'e.g. warm and practical',
    'content.length': 'Length',
    'content.lengthDefault': "(not set: the platform's usual length)",
    'content.short': 'Short',
    'content.medium': 'Medium',
    'content.long': 'Long',
    'content.export': 'Export',
    'content.copy': 'Copy text',
    'content.copied': 'Copied: title, body and hashtags',
    'content.downloadMd': 'Download Markdown',
    'content.downloadZip': 'Download zip (text and images)',
  },
});

const WORKFLOW = 'ContentSupervisorWorkflow';
const PLATFORMS = { xiaohongshu: '小红书', weibo: '微博', wechat: '微信公众号', douyin: '抖音' };
const LENGTHS = ['short', 'medium', 'long'];
const SVG = 'http://www.w3.org/2000/svg';
const NODE_W = 200;
const LINE_H = 16;
const NODE_PAD = 10;
const COL_GAP = 90;
const ROW_GAP = 14;
const MARGIN = 20;

/** `{nodes: [{id, label, shape}], edges: [{from, to, label}]}` of a `graph TD` Mermaid text. */
function parseMermaid(source) {
  const nodes = [];
  const edges = [];
  for (const line of source.split('\n')) {
    const edge = /^\s*(\w+)\s*-->(?:\|(.*)\|)?\s*(\w+)\s*$/.exec(line);
    if (edge) {
      edges.push({ from: edge[1], to: edge[3], label: edge[2] || '' });
      continue;
    }
    const node = /^\s*(\w+)(\(\[(.*)\]\)|\{(.*)\}|\[(.*)\])\s*$/.exec(line);
    if (node) {
      const shape = node[3] !== undefined ? 'terminal' : node[4] !== undefined ? 'decision' : 'step';
      const label = node[3] ?? node[4] ?? node[5];
      nodes.push({ id: node[1], label: label.split(/<br\s*\/?>/i), shape });
    }
  }
  return { nodes, edges };
}

/** Columns by distance from the first node; inside a column, nodes near their predecessors' places. */
function layout({ nodes, edges }) {
  const depth = new Map();
  const queue = nodes.length ? [nodes[0].id] : [];
  if (queue.length) depth.set(queue[0], 0);
  while (queue.length) {
    const id = queue.shift();
    for (const e of edges) {
      if (e.from === id && !depth.has(e.to)) {
        depth.set(e.to, depth.get(id) + 1);
        queue.push(e.to);
      }
    }
  }
  const deepest = Math.max(0, ...depth.values());
  for (const n of nodes) if (!depth.has(n.id)) depth.set(n.id, deepest + 1);
  const columns = [];
  for (const n of nodes) (columns[depth.get(n.id)] ??= []).push(n);
  const row = new Map();
  columns.forEach((column, index) => {
    if (index > 0) {
      const weight = (n) => {
        const from = edges.filter((e) => e.to === n.id && depth.get(e.from) < index).map((e) => row.get(e.from));
        return from.length ? from.reduce((a, b) => a + b, 0) / from.length : Infinity;
      };
      column.sort((a, b) => weight(a) - weight(b));
    }
    column.forEach((n, i) => row.set(n.id, i / Math.max(1, column.length - 1)));
  });
  const heightOf = (n) => n.label.length * LINE_H + 2 * NODE_PAD;
  const columnHeight = (column) => column.reduce((sum, n) => sum + heightOf(n) + ROW_GAP, -ROW_GAP);
  const tallest = Math.max(...columns.map(columnHeight));
  const boxes = new Map();
  columns.forEach((column, index) => {
    let y = MARGIN + (tallest - columnHeight(column)) / 2;
    for (const n of column) {
      const height = heightOf(n);
      boxes.set(n.id, { x: MARGIN + index * (NODE_W + COL_GAP), y, w: NODE_W, h: height, node: n });
      y += height + ROW_GAP;
    }
  });
  return { boxes, width: 2 * MARGIN + columns.length * (NODE_W + COL_GAP) - COL_GAP, height: tallest + 2 * MARGIN };
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  el.append(...children);
  return el;
}

/** Where the line from a box's centre towards (tx, ty) leaves the box. */
function exitPoint(box, tx, ty) {
  const cx = box.x + box.w / 2;
  const cy = box.y + box.h / 2;
  const dx = tx - cx;
  const dy = ty - cy;
  const scale = Math.min(dx ? box.w / 2 / Math.abs(dx) : Infinity, dy ? box.h / 2 / Math.abs(dy) : Infinity);
  return [cx + dx * scale, cy + dy * scale];
}

function edgePath(a, b) {
  if (a === b) {
    const x = a.x + a.w / 2;
    return `M ${x - 20} ${a.y} C ${x - 30} ${a.y - 34}, ${x + 30} ${a.y - 34}, ${x + 20} ${a.y}`;
  }
  const [ax, ay] = [a.x + a.w / 2, a.y + a.h / 2];
  const [bx, by] = [b.x + b.w / 2, b.y + b.h / 2];
  const length = Math.hypot(bx - ax, by - ay) || 1;
  // a bend to the left of the direction of travel keeps the two edges of a pair apart
  const cx = (ax + bx) / 2 + ((by - ay) / length) * 16;
  const cy = (ay + by) / 2 - ((bx - ax) / length) * 16;
  const [sx, sy] = exitPoint(a, cx, cy);
  const [ex, ey] = exitPoint(b, cx, cy);
  return `M ${sx} ${sy} Q ${cx} ${cy} ${ex} ${ey}`;
}

/** The declared graph as SVG; `show(node)` highlights the node a run is at (and marks where it has been). */
function graphView(graph) {
  const { boxes, width, height } = layout(graph);
  const marker = svg(
    'marker',
    {
      id: 'cs-arrow',
      viewBox: '0 0 10 10',
      refX: 9,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: 'auto-start-reverse',
    },
    svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'cs-arrow' }),
  );
  const edgeEls = graph.edges.map((e) => {
    const path = svg('path', {
      d: edgePath(boxes.get(e.from), boxes.get(e.to)),
      class: 'cs-edge',
      'marker-end': 'url(#cs-arrow)',
    });
    path.dataset.from = e.from;
    path.dataset.to = e.to;
    path.append(svg('title', {}, `${e.from} → ${e.to}${e.label ? `: ${e.label}` : ''}`));
    return path;
  });
  const nodeEls = new Map();
  for (const [id, box] of boxes) {
    const rx = box.node.shape === 'terminal' ? box.h / 2 : box.node.shape === 'decision' ? 14 : 6;
    const label = svg('text', { x: box.x + box.w / 2, y: box.y + NODE_PAD + LINE_H - 4, 'text-anchor': 'middle' });
    box.node.label.forEach((line, i) => label.append(svg('tspan', { x: box.x + box.w / 2, dy: i ? LINE_H : 0 }, line)));
    const group = svg(
      'g',
      { class: `cs-node cs-${box.node.shape}` },
      svg('title', {}, box.node.label.join(' ')),
      svg('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx }),
      label,
    );
    group.dataset.node = id;
    nodeEls.set(id, group);
  }
  const element = svg(
    'svg',
    {
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: 'img',
      class: 'cs-graph',
      'aria-label': t('content.graphLabel'),
      'data-i18n-label': 'content.graphLabel',
    },
    svg('defs', {}, marker),
    ...edgeEls,
    ...nodeEls.values(),
  );
  let current = null;

  function show(node) {
    if (!nodeEls.has(node) || node === current) return false;
    for (const edge of edgeEls)
      if (edge.dataset.from === current && edge.dataset.to === node) edge.classList.add('taken');
    if (current) {
      nodeEls.get(current).classList.remove('active');
      nodeEls.get(current).classList.add('visited');
    }
    nodeEls.get(node).classList.add('active');
    element.dataset.current = node;
    current = node;
    return true;
  }

  function reset() {
    current = null;
    delete element.dataset.current;
    for (const el of [...edgeEls, ...nodeEls.values()]) el.classList.remove('active', 'visited', 'taken');
  }

  return { element, show, reset };
}

/**
 * The finished post: title, its sections in layout order (text and images), hashtags and quality scores; with
 * `actions` (`editActions`), an edit action under each text section and image, numbered as the post shows them.
 */
function postView(post, actions = null) {
  let texts = 0;
  let images = 0;
  const sections = post.sections.map((section) =>
    section.kind === 'image' && section.imageUrl
      ? h(
          'figure',
          { class: 'cs-figure' },
          h('img', { src: section.imageUrl, alt: section.heading || section.slot || '', loading: 'lazy' }),
          actions?.forImage(++images),
        )
      : h(
          'div',
          { class: 'cs-block' },
          section.heading ? h('h4', {}, section.heading) : null,
          section.text ? h('p', {}, section.text) : null,
          actions?.forText(++texts, section),
        ),
  );
  const scores = post.qualityScores
    ? h(
        'dl',
        { class: 'cs-scores' },
        Object.entries(post.qualityScores).flatMap(([name, value]) => [
          h('dt', {}, name),
          h('dd', {}, Number(value).toFixed(2)),
        ]),
      )
    : null;
  return h(
    'article',
    { class: 'cs-post' },
    h('h3', {}, post.title),
    post.complete ? null : text('p', 'content.incomplete', { class: 'status-failed' }),
    post.endReason ? h('p', { class: 'muted' }, t('content.endReason', { reason: post.endReason })) : null,
    post.complete && !post.approved
      ? h(
          'p',
          { class: 'status-warning', role: 'note' },
          t('content.notApproved', { why: post.endMessage || post.endReason || '' }),
        )
      : null,
    post.opening ? h('p', { class: 'cs-opening' }, post.opening) : null,
    sections,
    post.closing ? h('p', { class: 'cs-closing' }, post.closing) : null,
    post.hashtags?.length
      ? h(
          'p',
          { class: 'cs-hashtags' },
          post.hashtags.map((tag) => h('span', { class: 'tag' }, tag)),
        )
      : null,
    scores ? h('section', {}, text('h4', 'content.scores'), scores) : null,
  );
}

/** Copy the post's copy-ready text (`export.txt`) to the clipboard, or download its Markdown or zip. */
function exportBar(runId, report) {
  const base = `/v1/content/runs/${encodeURIComponent(runId)}`;
  const done = h('span', { class: 'muted', role: 'status' });
  async function copy() {
    try {
      const response = await apiFetch(`${base}/export.txt`);
      if (!response.ok) throw await errorFrom(response);
      await navigator.clipboard.writeText(await response.text());
      done.dataset.i18n = 'content.copied';
      done.textContent = t('content.copied');
    } catch (err) {
      report(err);
    }
  }
  const download = (extension) => () =>
    downloadFile(`${base}/export.${extension}`, `${runId}.${extension}`).catch(report);
  return h(
    'section',
    { class: 'row cs-export' },
    text('h4', 'content.export'),
    text('button', 'content.copy', { type: 'button', class: 'primary', onClick: copy }),
    text('button', 'content.downloadMd', { type: 'button', class: 'secondary', onClick: download('md') }),
    text('button', 'content.downloadZip', { type: 'button', class: 'secondary', onClick: download('zip') }),
    done,
  );
}

export async function mount(root, ctx) {
  const abort = new AbortController();
  const errors = h('div');

  const topic = hinted('input', 'content.topicHint', { type: 'text', required: true, maxlength: 500 });
  const platform = h(
    'select',
    {},
    text('option', 'content.platformAsk', { value: '' }),
    Object.entries(PLATFORMS).map(([id, name]) => h('option', { value: id }, `${name} (${id})`)),
  );
  const layoutWords = hinted('input', 'content.layoutHint', { type: 'text', maxlength: 40 });
  const tone = hinted('input', 'content.toneHint', { type: 'text', maxlength: 40 });
  const length = h(
    'select',
    {},
    text('option', 'content.lengthDefault', { value: '' }),
    LENGTHS.map((id) => text('option', `content.${id}`, { value: id })),
  );
  const evidence = h('textarea', { rows: 3 });
  const references = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp', multiple: true });
  const thumbs = h('div', { class: 'cs-thumbs' });
  const startButton = text('button', 'content.start', { type: 'submit', class: 'primary' });
  const status = h('p', { class: 'muted', role: 'status' });
  const form = h(
    'form',
    { class: 'card stack cs-form', onSubmit: start },
    field('cs-topic', 'content.topic', topic),
    field('cs-platform', 'content.platform', platform),
    field('cs-layout', 'content.layout', layoutWords),
    field('cs-tone', 'content.tone', tone),
    field('cs-length', 'content.length', length),
    field('cs-evidence', 'content.evidence', evidence),
    field('cs-references', 'content.references', references),
    thumbs,
    h('div', { class: 'row' }, startButton),
    status,
  );

  const graphBox = h('div', { class: 'cs-graph-wrap' });
  const current = text('p', 'content.idle', { class: 'cs-current', 'aria-live': 'polite' });
  const route = h('ol', { class: 'cs-route', 'aria-label': t('content.route'), 'data-i18n-label': 'content.route' });
  const questionBox = h('div', { class: 'cs-questions' });
  const timeline = eventTimeline();
  const texts = agentTexts();
  let postBody = text('p', 'content.noPost', { class: 'muted' });
  const postCard = h(
    'section',
    { class: 'card cs-post-card', 'aria-live': 'polite' },
    text('h2', 'content.post'),
    postBody,
  );

  root.append(
    text('h1', 'content.title'),
    errors,
    h(
      'div',
      { class: 'content-studio' },
      h('div', { class: 'stack' }, form, questionBox, texts.element, postCard),
      h(
        'div',
        { class: 'stack' },
        h('section', { class: 'card stack cs-graph-card' }, text('h2', 'content.graph'), current, graphBox, route),
        h('section', { class: 'card' }, text('h2', 'content.events'), timeline.element),
      ),
    ),
  );

  let graph = null;
  try {
    const source = await apiFetch(`/v1/workflows/${WORKFLOW}/graph`);
    if (!source.ok) throw new Error(`graph: HTTP ${source.status}`);
    graph = graphView(parseMermaid(await source.text()));
    graphBox.append(graph.element);
  } catch (err) {
    errors.append(errorBanner(err));
  }

  async function follow(path, init, joined = null) {
    let runId = joined;
    const questions = new Map();
    timeline.clear();
    texts.clear();
    graph?.reset();
    delete current.dataset.node;
    current.dataset.i18n = 'content.idle';
    current.textContent = t('content.idle');
    route.replaceChildren();
    questionBox.replaceChildren();
    postBody.replaceWith((postBody = text('p', 'content.noPost', { class: 'muted' })));

    function onEvent(evt) {
      const p = payloadOf(evt) || {};
      if (evt.event === 'content' || evt.event === 'content_live') return texts.add(evt); // text, not timeline rows
      timeline.add(evt);
      const node = nodeOf(evt);
      if (evt.id !== null && graph?.show(node)) {
        current.removeAttribute('data-i18n');
        current.dataset.node = node;
        current.textContent = t('content.current', { node });
        route.append(h('li', { class: 'tag node' }, node));
      }
      if (evt.event === 'admitted') runId = p.runId;
      else if (evt.event === 'user_input_required') {
        const card = questionCard(runId, p);
        questions.set(p.questionId, card);
        questionBox.replaceChildren(h('section', { class: 'card' }, text('h2', 'content.question'), card.element));
        card.element.querySelector('button, input')?.focus();
      } else if (evt.event === 'user_input_received') questions.get(p.questionId)?.resolve(p);
      else if (evt.event === 'user_input_expired') questions.get(p.questionId)?.expire();
      else if (evt.event === 'error') errors.append(errorBanner(p));
      else if (evt.data?.terminal && runId) showPost(runId);
    }

    startButton.disabled = true;
    try {
      await streamSse(path, {
        ...init,
        signal: abort.signal,
        onOpen: (response) => {
          runId = showRunId(response, runId, { page: 'content', status, key: 'content.runId' });
        },
        onEvent,
      });
    } catch (err) {
      if (!abort.signal.aborted) errors.append(errorBanner(err));
    } finally {
      startButton.disabled = false;
    }
  }

  async function showPost(runId) {
    try {
      const post = await apiJson(`/v1/content/runs/${encodeURIComponent(runId)}/post`);
      const report = (err) => errors.append(errorBanner(err));
      const hasText = post.sections.some((section) => section.kind === 'text');
      const edit = (body) => {
        errors.replaceChildren();
        follow(`/v1/content/runs/${encodeURIComponent(runId)}/edits`, { method: 'POST', body });
      };
      const view = postView(post, hasText ? editActions(edit) : null);
      if (hasText) {
        view.append(exportBar(runId, report), restyleForm(edit));
        view.append(
          await versionsList(runId, (other) => {
            history.replaceState(null, '', `#/content/${encodeURIComponent(other)}`);
            showPost(other);
          }),
        );
      }
      postBody.replaceWith(view);
      postBody = view;
    } catch (err) {
      if (err.code !== 'POST_NOT_READY') errors.append(errorBanner(err));
    }
  }

  async function start(e) {
    e.preventDefault();
    errors.replaceChildren();
    startButton.disabled = true;
    let urls = [];
    try {
      if (references.files.length) {
        status.textContent = t('content.uploading');
        const uploaded = await Promise.all([...references.files].map((file) => uploadBlob(file)));
        urls = uploaded.map((blob) => blob.url);
        thumbs.replaceChildren(...urls.map((url) => h('img', { src: url, alt: '' })));
      }
    } catch (err) {
      errors.append(errorBanner(err));
      startButton.disabled = false;
      return;
    }
    status.textContent = t('content.starting');
    const body = {
      topic: topic.value.trim(),
      referenceImages: urls,
      evidence: evidence.value
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    };
    if (platform.value) body.platform = platform.value;
    if (layoutWords.value.trim()) body.layoutPreference = layoutWords.value.trim();
    if (tone.value.trim()) body.tone = tone.value.trim();
    if (length.value) body.length = length.value;
    await follow('/v1/content/runs', { method: 'POST', body });
  }

  if (ctx.params[0]) follow(`/v1/runs/${encodeURIComponent(ctx.params[0])}/events`, {}, ctx.params[0]);

  const stopTranslating = onLangChange(() => {
    if (current.dataset.node) current.textContent = t('content.current', { node: current.dataset.node });
  });

  return () => {
    abort.abort();
    stopTranslating();
  };
}
