// The image studio (seeds 000/004): a chat with the image agent (`POST /api/agent/chat`, SSE), the run's per-node
// timeline with a progress bar, its GenUI components by `widgetType` (SmartCanvas, ActionPanel, AgentMessage), a
// brush that paints an inpainting mask over the shown image with the pointer or the keyboard (arrow keys move its
// cursor, Space or Enter paints; the mask is sent as a PNG in `maskData.base64`), the session's earlier turns
// (`GET /v1/runs?sessionId=...`) and a download of the current image. The session id is kept per tab.

import { apiJson, streamSse } from '../api.js';
import { hinted, text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { errorBanner, eventTimeline, h, payloadOf } from '../ui.js';

registerStrings({
  zh: {
    'image.title': '图像工作室',
    'image.chat': '对话',
    'image.session': '会话',
    'image.newSession': '新会话',
    'image.message': '消息',
    'image.placeholder': '例如：生成一只赛博朋克风格的猫（Enter 发送，Shift+Enter 换行）',
    'image.send': '发送',
    'image.sending': '运行中…',
    'image.canvas': '画布',
    'image.noImage': '还没有图片：发一条消息生成一张。',
    'image.brush': '画蒙版',
    'image.brushSize': '笔刷大小',
    'image.clearMask': '清除蒙版',
    'image.maskReady': '已画蒙版：下一条消息将重绘涂抹的区域。',
    'image.maskHint': '打开“画蒙版”后在图片上涂抹要重绘的区域。',
    'image.maskCanvas': '蒙版画布：方向键移动笔刷（按住 Shift 移动更多），空格或回车键涂抹',
    'image.maskKeys': '也可以用键盘：选中画布后，方向键移动笔刷（按住 Shift 步子更大），空格或回车键在笔刷处涂抹。',
    'image.download': '下载图片',
    'image.timeline': '运行时间线',
    'image.run': '运行',
    'image.history': '会话历史',
    'image.noHistory': '这个会话还没有历史。',
    'image.refresh': '刷新',
    'image.show': '在画布上显示',
    'image.score': '评分 {score}/100',
    'image.suggestions': '建议',
    'image.openRun': '查看运行',
  },
  en: {
    'image.title': 'Image studio',
    'image.chat': 'Chat',
    'image.session': 'Session',
    'image.newSession': 'New session',
    'image.message': 'Message',
    'image.placeholder': 'e.g. a cyberpunk cat (Enter sends, Shift+Enter for a new line)',
    'image.send': 'Send',
    'image.sending': 'Running…',
    'image.canvas': 'Canvas',
    'image.noImage': 'No image yet: send a message to make one.',
    'image.brush': 'Draw mask',
    'image.brushSize': 'Brush size',
    'image.clearMask': 'Clear mask',
    'image.maskReady': 'Mask drawn: the next message repaints the painted area.',
    'image.maskHint': 'Turn on “Draw mask” and paint over the area to repaint.',
    'image.maskCanvas': 'Mask canvas: arrow keys move the brush (Shift for bigger steps), Space or Enter paints',
    'image.maskKeys':
      'With the keyboard: focus the canvas, move the brush with the arrow keys (Shift for bigger steps) and paint ' +
      'under it with Space or Enter.',
    'image.download': 'Download image',
    'image.timeline': 'Run timeline',
    'image.run': 'Run',
    'image.history': 'Session history',
    'image.noHistory': 'No earlier turns in this session.',
    'image.refresh': 'Refresh',
    'image.show': 'Show on canvas',
    'image.score': 'Score {score}/100',
    'image.suggestions': 'Suggestions',
    'image.openRun': 'Open run',
  },
});

const SESSION_KEY = 'console.image.sessionId';
const WORKFLOW = 'ImageAgentWorkflow';
const HISTORY_SIZE = 20;

function newSessionId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Where the arrow keys move the keyboard brush, and how far (CSS pixels; Shift for the big step). */
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const STEP = 8;
const BIG_STEP = 40;

/** The brush: a canvas over the image, at the image's own resolution, whose strokes are the mask. Painted with the
 * pointer, or from the keyboard: with the canvas focused, arrow keys move a visible brush cursor and Space or Enter
 * paints a dab under it. */
function maskCanvas(image) {
  const canvas = h('canvas', {
    class: 'mask',
    role: 'application',
    'data-drawing': 'off',
    'aria-label': t('image.maskCanvas'),
    'data-i18n-label': 'image.maskCanvas',
    'aria-describedby': 'image-mask-keys',
  });
  const marker = h('div', { class: 'brush-cursor', hidden: true, 'aria-hidden': 'true' });
  const ctx = canvas.getContext('2d');
  let painted = false;
  let last = null;
  let size = 24;
  const cursor = { x: 0, y: 0 }; // the keyboard brush, in the canvas's own pixels
  const listeners = new Set();

  /** Canvas pixels per CSS pixel. */
  const scale = () => canvas.width / canvas.getBoundingClientRect().width;
  const drawing = () => canvas.dataset.drawing === 'on' && canvas.width > 0;

  function placeMarker() {
    marker.hidden = !drawing() || document.activeElement !== canvas;
    if (marker.hidden) return;
    const k = scale();
    Object.assign(marker.style, {
      width: `${size}px`,
      height: `${size}px`,
      left: `${canvas.offsetLeft + cursor.x / k - size / 2}px`,
      top: `${canvas.offsetTop + cursor.y / k - size / 2}px`,
    });
  }

  function fit() {
    canvas.style.width = `${image.clientWidth}px`;
    canvas.style.height = `${image.clientHeight}px`;
    placeMarker();
  }
  new ResizeObserver(fit).observe(image);

  function point(event) {
    const box = canvas.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) * canvas.width) / box.width,
      y: ((event.clientY - box.top) * canvas.height) / box.height,
    };
  }

  /** A line from `from` to `to`, or a dab at `to` without `from`, `size` CSS pixels wide. */
  function paint(from, to) {
    ctx.strokeStyle = '#ff2d55';
    ctx.fillStyle = '#ff2d55';
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.lineWidth = size * scale();
    ctx.beginPath();
    if (from) {
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(to.x, to.y);
      ctx.stroke();
    } else {
      ctx.arc(to.x, to.y, ctx.lineWidth / 2, 0, Math.PI * 2);
      ctx.fill();
    }
    if (!painted) {
      painted = true;
      listeners.forEach((fn) => fn(true));
    }
  }

  canvas.addEventListener('pointerdown', (event) => {
    if (!drawing() || event.button !== 0) return;
    canvas.setPointerCapture(event.pointerId);
    last = point(event);
    paint(null, last);
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!last || !canvas.hasPointerCapture(event.pointerId)) return;
    const to = point(event);
    paint(last, to);
    last = to;
  });
  const end = () => {
    last = null;
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);

  canvas.addEventListener('keydown', (event) => {
    if (!drawing()) return;
    const arrow = ARROWS[event.key];
    if (arrow) {
      const step = (event.shiftKey ? BIG_STEP : STEP) * scale();
      cursor.x = Math.min(Math.max(cursor.x + arrow[0] * step, 0), canvas.width);
      cursor.y = Math.min(Math.max(cursor.y + arrow[1] * step, 0), canvas.height);
      placeMarker();
    } else if (event.key === ' ' || event.key === 'Enter') {
      paint(null, cursor);
    } else {
      return;
    }
    event.preventDefault();
  });
  canvas.addEventListener('focus', placeMarker);
  canvas.addEventListener('blur', placeMarker);

  return {
    canvas,
    marker,
    fit,
    get painted() {
      return painted;
    },
    set drawing(on) {
      canvas.dataset.drawing = on ? 'on' : 'off';
      if (on) canvas.tabIndex = 0;
      else canvas.removeAttribute('tabindex');
      placeMarker();
    },
    set brush(value) {
      size = value;
      placeMarker();
    },
    onChange(fn) {
      listeners.add(fn);
    },
    reset(width, height) {
      canvas.width = width;
      canvas.height = height;
      painted = false;
      last = null;
      cursor.x = width / 2;
      cursor.y = height / 2;
      fit();
      listeners.forEach((fn) => fn(false));
    },
    clear() {
      this.reset(canvas.width, canvas.height);
    },
    /** The mask as a PNG data URL: the painted area opaque white, the rest transparent. */
    png() {
      const out = document.createElement('canvas');
      out.width = canvas.width;
      out.height = canvas.height;
      const octx = out.getContext('2d');
      octx.drawImage(canvas, 0, 0);
      octx.globalCompositeOperation = 'source-in';
      octx.fillStyle = '#ffffff';
      octx.fillRect(0, 0, out.width, out.height);
      return out.toDataURL('image/png');
    },
  };
}

export async function mount(root, ctx) {
  const controller = new AbortController();
  let sessionId = sessionStorage.getItem(SESSION_KEY) || newSessionId();
  sessionStorage.setItem(SESSION_KEY, sessionId);
  let current = null; // the image on the canvas: {url, width, height, runId}
  let busy = false;

  const errors = h('div', { class: 'errors' });
  const sessionCode = h('code', { class: 'session-id' }, sessionId);
  const chatLog = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': t('image.chat') });
  const actions = h('div', { class: 'actions', 'aria-label': 'ActionPanel' });
  const suggestions = h('ul', { class: 'suggestions muted' });
  const input = hinted('textarea', 'image.placeholder', { id: 'image-message', name: 'text', rows: 2, required: true });
  const sendButton = h('button', { type: 'submit', class: 'primary', id: 'image-send' }, text('span', 'image.send'));
  const composer = h(
    'form',
    { class: 'composer', onSubmit: (event) => (event.preventDefault(), send(input.value)) },
    h('label', { for: 'image-message', class: 'sr-only', 'data-i18n': 'image.message' }, t('image.message')),
    input,
    sendButton,
  );
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });

  const image = h('img', { class: 'canvas-image', alt: '', hidden: true });
  const mask = maskCanvas(image);
  const empty = h('p', { class: 'canvas-empty muted', 'data-i18n': 'image.noImage' }, t('image.noImage'));
  const brushToggle = h(
    'button',
    { type: 'button', id: 'image-brush', 'aria-pressed': false, disabled: true },
    text('span', 'image.brush'),
  );
  const brushSize = h('input', { id: 'image-brush-size', type: 'range', min: 4, max: 96, value: 24 });
  const clearMask = h(
    'button',
    { type: 'button', id: 'image-clear-mask', disabled: true },
    text('span', 'image.clearMask'),
  );
  const download = h(
    'a',
    { class: 'button', id: 'image-download', hidden: true, download: 'image.png' },
    text('span', 'image.download'),
  );
  const maskState = h('p', { class: 'muted mask-state', 'data-i18n': 'image.maskHint' }, t('image.maskHint'));
  const timeline = eventTimeline();
  const runLink = h('a', { class: 'run-link', hidden: true });
  const history = h('ol', { class: 'history', 'aria-label': t('image.history') });

  brushToggle.addEventListener('click', () => {
    const on = brushToggle.getAttribute('aria-pressed') !== 'true';
    brushToggle.setAttribute('aria-pressed', String(on));
    mask.drawing = on;
  });
  brushSize.addEventListener('input', () => {
    mask.brush = Number(brushSize.value);
  });
  clearMask.addEventListener('click', () => mask.clear());
  mask.onChange((painted) => {
    clearMask.disabled = !painted;
    const key = painted ? 'image.maskReady' : 'image.maskHint';
    maskState.dataset.i18n = key;
    maskState.textContent = t(key);
  });
  image.addEventListener('load', () => {
    if (mask.canvas.width !== image.naturalWidth || mask.canvas.height !== image.naturalHeight) {
      mask.reset(image.naturalWidth, image.naturalHeight);
    }
    mask.fit();
  });

  root.append(
    h('h1', { class: 'sr-only', 'data-i18n': 'image.title' }, t('image.title')),
    errors,
    h(
      'div',
      { class: 'studio' },
      h(
        'div',
        { class: 'stack' },
        h(
          'section',
          { class: 'card stack', 'aria-labelledby': 'image-chat-title' },
          h('h2', { id: 'image-chat-title', 'data-i18n': 'image.chat' }, t('image.chat')),
          h(
            'div',
            { class: 'row' },
            text('span', 'image.session', { class: 'muted' }),
            sessionCode,
            h(
              'button',
              { type: 'button', class: 'link', id: 'image-new-session', onClick: newSession },
              text('span', 'image.newSession'),
            ),
          ),
          chatLog,
          actions,
          suggestions,
          composer,
        ),
        h(
          'section',
          { class: 'card stack', 'aria-labelledby': 'image-timeline-title' },
          h(
            'div',
            { class: 'row' },
            h('h2', { id: 'image-timeline-title', 'data-i18n': 'image.timeline' }, t('image.timeline')),
            runLink,
          ),
          timeline.element,
        ),
      ),
      h(
        'div',
        { class: 'stack' },
        h(
          'section',
          { class: 'card stack', 'aria-labelledby': 'image-canvas-title' },
          h('h2', { id: 'image-canvas-title', 'data-i18n': 'image.canvas' }, t('image.canvas')),
          h(
            'div',
            { class: 'row' },
            brushToggle,
            h('label', { for: 'image-brush-size', 'data-i18n': 'image.brushSize' }, t('image.brushSize')),
            brushSize,
            clearMask,
            download,
          ),
          h('div', { class: 'canvas-wrap' }, empty, image, mask.canvas, mask.marker),
          maskState,
          h('p', { id: 'image-mask-keys', class: 'muted', 'data-i18n': 'image.maskKeys' }, t('image.maskKeys')),
        ),
        h(
          'section',
          { class: 'card stack', 'aria-labelledby': 'image-history-title' },
          h(
            'div',
            { class: 'row' },
            h('h2', { id: 'image-history-title', 'data-i18n': 'image.history' }, t('image.history')),
            h('button', { type: 'button', class: 'link', onClick: () => loadHistory() }, text('span', 'image.refresh')),
          ),
          history,
        ),
      ),
    ),
  );

  function bubble(role, text, extra = {}) {
    const item = h('div', { class: ['bubble', role, extra.failed && 'failed'], dataset: { role } }, text, extra.image);
    chatLog.append(item);
    chatLog.scrollTop = chatLog.scrollHeight;
    return item;
  }

  function showRun(runId) {
    runLink.hidden = !runId;
    runLink.href = runId ? `#/runs/${encodeURIComponent(runId)}` : '';
    runLink.textContent = runId ? `${t('image.run')} ${runId}` : '';
  }

  function showImage(url, runId) {
    if (!url) return;
    current = { url, runId };
    empty.hidden = true;
    image.hidden = false;
    image.alt = t('image.canvas');
    if (image.src !== url) image.src = url;
    download.hidden = false;
    download.href = url;
    download.download = `${runId || 'image'}.png`;
    brushToggle.disabled = false;
  }

  function showActions(props) {
    actions.replaceChildren(
      ...(props.actions || []).map((action) =>
        action.url
          ? h('a', { class: 'button', href: action.url, download: `${current?.runId || 'image'}.png` }, action.label)
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                dataset: { action: action.id || '' },
                onClick: () => send(action.message),
              },
              action.label,
            ),
      ),
      typeof props.score === 'number'
        ? h('span', { class: 'tag' }, t('image.score', { score: Math.round(props.score * 100) }))
        : null,
    );
    suggestions.replaceChildren(...(props.suggestions || []).map((text) => h('li', {}, text)));
  }

  function render(component, runId) {
    const props = component.props || {};
    if (component.widgetType === 'SmartCanvas') showImage(props.imageUrl, runId);
    else if (component.widgetType === 'ActionPanel') showActions(props);
    else if (component.widgetType === 'AgentMessage') {
      bubble('agent', props.text || '', { failed: props.state === 'failed' });
    }
  }

  async function follow(path, init, runId) {
    let run = runId;
    timeline.clear();
    showRun(run);
    await streamSse(path, {
      ...init,
      signal: controller.signal,
      onOpen: (response) => {
        run = response.headers.get('X-Run-Id') || run;
        showRun(run);
      },
      onEvent: (evt) => {
        if (evt.event === 'admitted') {
          run = evt.data.runId;
          showRun(run);
        }
        timeline.add(evt);
        if (evt.event === 'gen_ui_component') render(payloadOf(evt), run);
      },
    });
  }

  async function send(text) {
    text = (text || '').trim();
    if (busy || !text) return;
    busy = true;
    sendButton.disabled = true;
    sendButton.firstChild.textContent = t('image.sending');
    errors.replaceChildren();
    const body = { text, sessionId };
    const masked = mask.painted && current;
    if (masked) body.maskData = { base64: mask.png(), imageUrl: current.url };
    bubble('user', text, { image: masked ? h('img', { src: mask.png(), alt: t('image.maskReady') }) : null });
    input.value = '';
    actions.replaceChildren();
    suggestions.replaceChildren();
    try {
      await follow('/api/agent/chat', { method: 'POST', body }, null);
      if (masked) mask.clear();
    } catch (err) {
      if (!controller.signal.aborted) errors.append(errorBanner(err));
    } finally {
      busy = false;
      sendButton.disabled = false;
      sendButton.firstChild.textContent = t('image.send');
    }
    if (!controller.signal.aborted) await loadHistory();
  }

  function historyItem(summary, view) {
    const state = view?.state || {};
    const url = state.executionResult?.imageUrl;
    const reply = (state.uiComponents || []).filter((c) => c.widgetType === 'AgentMessage').map((c) => c.props?.text);
    return h(
      'li',
      { dataset: { runId: summary.runId } },
      url ? h('img', { src: url, alt: '' }) : null,
      h(
        'div',
        { class: 'stack', style: { gap: '2px', flex: '1', minWidth: '0' } },
        h('span', {}, state.userInput?.text || summary.runId),
        h(
          'span',
          { class: 'muted' },
          h('span', { class: `status-${summary.status}` }, summary.status),
          reply.length ? ` · ${reply.at(-1)}` : '',
        ),
      ),
      url &&
        h(
          'button',
          { type: 'button', class: 'link', onClick: () => showImage(url, summary.runId) },
          text('span', 'image.show'),
        ),
      h('a', { href: `#/runs/${encodeURIComponent(summary.runId)}` }, text('span', 'image.openRun')),
    );
  }

  /** The session's turns, oldest first, each with its state; on the first load they also refill the chat. */
  async function loadHistory(first = false) {
    try {
      const query = new URLSearchParams({ workflow: WORKFLOW, sessionId, pageSize: String(HISTORY_SIZE) });
      const page = await apiJson(`/v1/runs?${query}`, { signal: controller.signal });
      const runs = page.runs.slice().reverse();
      const views = await Promise.all(
        runs.map((run) =>
          apiJson(`/v1/runs/${encodeURIComponent(run.runId)}`, { signal: controller.signal }).catch(() => null),
        ),
      );
      history.replaceChildren(
        ...(runs.length
          ? runs.map((run, i) => historyItem(run, views[i]))
          : [h('li', { class: 'muted' }, t('image.noHistory'))]),
      );
      if (!first) return;
      runs.forEach((run, i) => {
        const state = views[i]?.state;
        if (!state) return;
        bubble('user', state.userInput?.text || '');
        for (const component of state.uiComponents || []) {
          if (component.widgetType === 'AgentMessage') render(component, run.runId);
        }
        if (state.executionResult?.imageUrl) showImage(state.executionResult.imageUrl, run.runId);
      });
      const latest = runs.at(-1);
      if (latest && (latest.status === 'running' || latest.status === 'waiting') && !busy) {
        await follow(`/v1/runs/${encodeURIComponent(latest.runId)}/events`, {}, latest.runId);
      }
    } catch (err) {
      if (!controller.signal.aborted) errors.append(errorBanner(err));
    }
  }

  function newSession() {
    if (busy) return;
    sessionId = newSessionId();
    sessionStorage.setItem(SESSION_KEY, sessionId);
    sessionCode.textContent = sessionId;
    current = null;
    chatLog.replaceChildren();
    actions.replaceChildren();
    suggestions.replaceChildren();
    timeline.clear();
    showRun(null);
    image.hidden = true;
    image.removeAttribute('src');
    empty.hidden = false;
    download.hidden = true;
    brushToggle.disabled = true;
    mask.reset(0, 0);
    history.replaceChildren(h('li', { class: 'muted' }, t('image.noHistory')));
    input.focus();
  }

  loadHistory(true);
  return () => controller.abort();
}
