// Edits of a finished post (issue 29 item 3), shown in the content studio's post preview: a "Rewrite" action under
// each text section (an instruction, or your own text) and a "Regenerate" action under each image (an optional
// instruction) and a "Restyle" form for the whole text (a new tone and/or length), each starting an edit run (`POST /v1/content/runs/{id}/edits`, streamed by the content page), and
// the post's versions (`/v1/content/runs/{id}/versions`), any of which opens. Sections and images are numbered
// as the post shows them, from 1, counted separately.

import { apiJson } from '../api.js';
import { field, hinted, text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { h } from '../ui.js';

registerStrings({
  zh: {
    'edits.rewrite': '改写',
    'edits.regenerate': '重新生成',
    'edits.instruction': '按要求改写',
    'edits.ownText': '换成我的文字',
    'edits.instructionHint': '例如：更口语一点、精简一点',
    'edits.imageHint': '可选：例如 换成俯拍',
    'edits.apply': '开始',
    'edits.cancel': '取消',
    'edits.versions': '版本',
    'edits.version': '第 {version} 版',
    'edits.latest': '最新',
    'edits.open': '打开',
    'edits.shown': '当前显示',
    'edits.restyle': '换个风格重写全文',
    'edits.tone': '新的语气',
    'edits.toneHint': '例如：轻松幽默',
    'edits.length': '新的篇幅',
    'edits.keepLength': '（不变）',
    'edits.short': '短',
    'edits.medium': '中',
    'edits.long': '长',
  },
  en: {
    'edits.rewrite': 'Rewrite',
    'edits.regenerate': 'Regenerate',
    'edits.instruction': 'By an instruction',
    'edits.ownText': 'With my own text',
    'edits.instructionHint': 'e.g. more casual, shorter',
    'edits.imageHint': 'optional, e.g. from above',
    'edits.apply': 'Start',
    'edits.cancel': 'Cancel',
    'edits.versions': 'Versions',
    'edits.version': 'Version {version}',
    'edits.latest': 'latest',
    'edits.open': 'Open',
    'edits.shown': 'shown',
    'edits.restyle': 'Restyle the whole text',
    'edits.tone': 'New tone',
    'edits.toneHint': 'e.g. warm and practical',
    'edits.length': 'New length',
    'edits.keepLength': '(keep)',
    'edits.short': 'Short',
    'edits.medium': 'Medium',
    'edits.long': 'Long',
  },
});

/**
 * The edit actions of a post: `forText(n, section)` and `forImage(n)` give the action under text section `n` and
 * image `n`; `edit(body)` starts the edit run (the content page streams it).
 */
export function editActions(edit) {
  function box(button, controls, body) {
    const form = h('form', { class: 'stack cs-edit-form', hidden: true });
    const cancel = text('button', 'edits.cancel', { type: 'button', class: 'secondary' });
    form.append(...controls, h('div', { class: 'row' }, text('button', 'edits.apply', { type: 'submit' }), cancel));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const request = body();
      if (request) edit(request);
    });
    cancel.addEventListener('click', () => {
      form.hidden = true;
    });
    button.addEventListener('click', () => {
      form.hidden = !form.hidden;
      form.querySelector('textarea, input')?.focus();
    });
    return h('div', { class: 'cs-edit' }, button, form);
  }

  function forText(n, section) {
    const button = text('button', 'edits.rewrite', { type: 'button', class: 'secondary', 'data-section': n });
    const mode = h(
      'select',
      { 'aria-label': t('edits.rewrite') },
      text('option', 'edits.instruction', { value: 'instruction' }),
      text('option', 'edits.ownText', { value: 'text' }),
    );
    const words = hinted('textarea', 'edits.instructionHint', { rows: 3, maxlength: 4000 });
    mode.addEventListener('change', () => {
      if (mode.value === 'text' && !words.value) words.value = section.text || '';
    });
    return box(button, [mode, words], () => {
      const value = words.value.trim();
      if (!value) return null;
      return { action: 'rewrite_section', section: n, [mode.value]: value };
    });
  }

  function forImage(n) {
    const button = text('button', 'edits.regenerate', { type: 'button', class: 'secondary', 'data-image': n });
    const words = hinted('input', 'edits.imageHint', { type: 'text', maxlength: 500 });
    return box(button, [words], () => {
      const body = { action: 'regenerate_image', image: n };
      if (words.value.trim()) body.instruction = words.value.trim();
      return body;
    });
  }

  return { forText, forImage };
}

/** The whole text written again in a new tone and/or length (`restyle`), as `edit(body)` starts it. */
export function restyleForm(edit) {
  const tone = hinted('input', 'edits.toneHint', { type: 'text', maxlength: 40 });
  const length = h(
    'select',
    {},
    text('option', 'edits.keepLength', { value: '' }),
    ['short', 'medium', 'long'].map((id) => text('option', `edits.${id}`, { value: id })),
  );
  const form = h(
    'form',
    { class: 'stack cs-restyle' },
    text('h4', 'edits.restyle'),
    field('cs-restyle-tone', 'edits.tone', tone),
    field('cs-restyle-length', 'edits.length', length),
    h('div', { class: 'row' }, text('button', 'edits.apply', { type: 'submit', class: 'secondary' })),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body = { action: 'restyle' };
    if (tone.value.trim()) body.tone = tone.value.trim();
    if (length.value) body.length = length.value;
    if (body.tone || body.length) edit(body);
  });
  return form;
}

/** The post's versions, from any version's run id: each with what changed and an "Open" button (`open(runId)`). */
export async function versionsList(runId, open) {
  const listed = await apiJson(`/v1/content/runs/${encodeURIComponent(runId)}/versions`);
  const items = listed.versions.map((version) =>
    h(
      'li',
      { class: 'cs-version', 'data-run-id': version.runId },
      h('strong', {}, t('edits.version', { version: version.version })),
      ' ',
      version.runId === listed.latest ? text('span', 'edits.latest', { class: 'tag' }) : null,
      ' ',
      h('span', { class: version.applied ? 'muted' : 'status-warning' }, version.change),
      ' ',
      version.runId === runId
        ? text('span', 'edits.shown', { class: 'muted' })
        : text('button', 'edits.open', { type: 'button', class: 'secondary', onClick: () => open(version.runId) }),
    ),
  );
  return h('section', { class: 'cs-versions' }, text('h4', 'edits.versions'), h('ol', {}, items));
}
