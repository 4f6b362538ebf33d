// The app builder's live preview (issue 27 item 3): the run's built app in a sandboxed frame
// (`sandbox="allow-scripts allow-forms"`, never `allow-same-origin`: the app gets an opaque origin, so it cannot
// read the console's API key in localStorage, its cookies or call the gateway as the user; `allow-forms` only lets a
// form's submit event reach the app, the preview's CSP lets no form send anywhere), loaded from the capability URL
// `GET /v1/apps/runs/{id}/preview` gives; with no preview, the note that says why (no toolchain on the worker, the
// build skipped or failed, too big).

import { apiJson } from '../api.js';
import { text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { h } from '../ui.js';

registerStrings({
  zh: {
    'apps.preview': '预览',
    'apps.preview.waiting': '运行结束后，这里显示构建出的应用。',
    'apps.preview.none': '此运行没有预览：{note}',
    'apps.preview.reload': '重新加载',
    'apps.preview.frame': '应用预览（沙箱）',
    'apps.preview.size': '{files} 个文件，{bytes} 字节',
  },
  en: {
    'apps.preview': 'Preview',
    'apps.preview.waiting': 'The built app shows here once the run has ended.',
    'apps.preview.none': 'No preview for this run: {note}',
    'apps.preview.reload': 'Reload',
    'apps.preview.frame': 'App preview (sandboxed)',
    'apps.preview.size': '{files} files, {bytes} bytes',
  },
});

/** The preview panel: `load(runId)` asks for the run's preview and shows it, or the note. */
export function previewView(report) {
  const status = text('p', 'apps.preview.waiting', { class: 'muted ab-preview-note', role: 'status' });
  const reload = text('button', 'apps.preview.reload', { type: 'button', class: 'ab-preview-reload', hidden: true });
  const slot = h('div', { class: 'ab-preview-slot' });
  const element = h(
    'section',
    { class: 'card stack ab-preview' },
    h('div', { class: 'row' }, text('h2', 'apps.preview'), reload),
    status,
    slot,
  );
  let runId = null;

  async function load(id) {
    runId = id;
    try {
      const preview = await apiJson(`/v1/apps/runs/${encodeURIComponent(id)}/preview`);
      status.removeAttribute('data-i18n');
      if (!preview.available) {
        status.textContent = t('apps.preview.none', { note: preview.note || '' });
        slot.replaceChildren();
        return;
      }
      status.textContent = t('apps.preview.size', { files: preview.files, bytes: preview.bytes });
      const frame = h('iframe', {
        class: 'ab-preview-frame',
        sandbox: 'allow-scripts allow-forms',
        referrerpolicy: 'no-referrer',
        title: t('apps.preview.frame'),
        'data-i18n-title': 'apps.preview.frame',
        src: preview.url,
      });
      slot.replaceChildren(frame);
      reload.hidden = false;
    } catch (err) {
      report(err);
    }
  }

  reload.addEventListener('click', () => runId && load(runId));
  return { element, load };
}
