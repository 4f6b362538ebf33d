// The writing workspace's chapters as a book (issue 28 items 1 and 6), as small hooks the workspace page uses:
// a chapter's versions with a diff against the one before and a restore (`.../chapters/{id}/versions`), the
// 412 notice of a save over someone else's change (the writer's text stays in the form), up/down buttons that
// reorder the chapters (`.../chapters/order`), "apply to chapter…" and "new chapter from this draft" on a finished
// run's draft (`.../apply`), and the manuscript's export as Markdown or EPUB.

import { apiJson, downloadFile } from '../api.js';
import { text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { h } from '../ui.js';

registerStrings({
  zh: {
    'chapters.versions': '版本',
    'chapters.version': '版本 {number}',
    'chapters.source.manual': '手动编辑',
    'chapters.source.draft': '草稿',
    'chapters.source.revision': '改写',
    'chapters.source.restore': '恢复',
    'chapters.restoredFrom': '（恢复自版本 {number}）',
    'chapters.chars': '{chars} 字',
    'chapters.diff': '与上一版比较',
    'chapters.noDiff': '两个版本的正文相同。',
    'chapters.restore': '恢复这一版',
    'chapters.restored': '已恢复为新版本 {number}',
    'chapters.conflict':
      '这一条已被别处修改，你的保存没有生效。你的文字仍在编辑框里：载入最新版本后再保存。',
    'chapters.reloadLatest': '载入最新版本（保留我的文字）',
    'chapters.latest': '最新版本的内容',
    'chapters.moveUp': '上移',
    'chapters.moveDown': '下移',
    'chapters.applyTo': '应用到章节…',
    'chapters.pickChapter': '选择章节',
    'chapters.apply': '应用',
    'chapters.applyNew': '作为新章节',
    'chapters.applied': '已成为《{title}》的版本 {number}',
    'chapters.addedFromDraft': '已添加为第 {position} 章《{title}》',
    'chapters.export': '导出',
    'chapters.exportMarkdown': '导出 Markdown',
    'chapters.exportEpub': '导出 EPUB',
  },
  en: {
    'chapters.versions': 'Versions',
    'chapters.version': 'Version {number}',
    'chapters.source.manual': 'edited',
    'chapters.source.draft': 'draft',
    'chapters.source.revision': 'revision',
    'chapters.source.restore': 'restore',
    'chapters.restoredFrom': ' (restored from version {number})',
    'chapters.chars': '{chars} characters',
    'chapters.diff': 'Compare with previous',
    'chapters.noDiff': 'Both versions have the same text.',
    'chapters.restore': 'Restore this version',
    'chapters.restored': 'Restored as new version {number}',
    'chapters.conflict':
      'This item was changed elsewhere: your save did not apply. Your text is still in the form: load the latest version, then save again.',
    'chapters.reloadLatest': 'Load the latest version (keep my text)',
    'chapters.latest': 'The latest version',
    'chapters.moveUp': 'Move up',
    'chapters.moveDown': 'Move down',
    'chapters.applyTo': 'Apply to chapter…',
    'chapters.pickChapter': 'Chapter',
    'chapters.apply': 'Apply',
    'chapters.applyNew': 'New chapter from this draft',
    'chapters.applied': 'Now version {number} of “{title}”',
    'chapters.addedFromDraft': 'Added as chapter {position}, “{title}”',
    'chapters.export': 'Export',
    'chapters.exportMarkdown': 'Export Markdown',
    'chapters.exportEpub': 'Export EPUB',
  },
});

/** The `If-Match` header for an item as last read. */
export const ifMatch = (item) => ({ 'If-Match': `"${item.version}"` });

/** The notice of a save refused with 412: says so, keeps the form as it is, and offers to load the latest version
 * (`reload` fetches it and makes it the one the next save names; its text is shown beside the writer's). */
export function conflictNotice(reload, report) {
  const latest = h('details', { class: 'ws-latest', hidden: true }, text('summary', 'chapters.latest'), h('pre'));
  return h(
    'div',
    { class: 'ws-conflict', role: 'alert' },
    text('p', 'chapters.conflict'),
    text('button', 'chapters.reloadLatest', {
      type: 'button',
      class: 'secondary',
      onClick: async () => {
        try {
          const item = await reload();
          latest.querySelector('pre').textContent = item.content ?? item.description ?? item.text ?? '';
          latest.hidden = false;
          latest.open = true;
        } catch (reloadErr) {
          report(reloadErr);
        }
      },
    }),
    latest,
  );
}

/** A chapter's versions (newest first), each with a diff against the one before and a restore. `onRestored`
 * gets the chapter as restored. */
export function versionsPanel(report, onRestored) {
  const list = h('ol', { class: 'ws-versions' });
  const status = h('p', { class: 'muted', role: 'status' });
  const element = h('section', { class: 'ws-history', hidden: true }, text('h4', 'chapters.versions'), list, status);
  let chapterUrl = null;
  let chapter = null;

  async function show(base, item) {
    chapter = item;
    chapterUrl = `${base}/chapters/${encodeURIComponent(item.chapterId)}`;
    status.textContent = '';
    try {
      const versions = await apiJson(`${chapterUrl}/versions`);
      list.replaceChildren(...versions.map((version, i) => versionRow(version, versions[i + 1])));
      element.hidden = false;
    } catch (err) {
      report(err);
    }
  }

  function versionRow(version, previous) {
    const diff = h('pre', { class: 'ws-diff', hidden: true });
    const source = t(`chapters.source.${version.source}`);
    const from = version.restoredFrom ? t('chapters.restoredFrom', { number: version.restoredFrom }) : '';
    return h(
      'li',
      { dataset: { number: version.number, source: version.source } },
      h('strong', {}, t('chapters.version', { number: version.number })),
      ` · ${source}${from} · ${t('chapters.chars', { chars: version.chars })} · `,
      h('time', { datetime: version.createdAt }, new Date(version.createdAt).toLocaleString()),
      h(
        'div',
        { class: 'row' },
        previous
          ? text('button', 'chapters.diff', {
              type: 'button',
              class: 'link',
              onClick: () => toggleDiff(diff, version.number, previous.number),
            })
          : null,
        version.number !== chapter.version
          ? text('button', 'chapters.restore', {
              type: 'button',
              class: 'secondary',
              onClick: () => restore(version.number),
            })
          : null,
      ),
      diff,
    );
  }

  async function toggleDiff(pre, number, against) {
    if (!pre.hidden) {
      pre.hidden = true;
      return;
    }
    try {
      const answer = await apiJson(`${chapterUrl}/versions/${number}/diff?against=${against}`);
      pre.replaceChildren(
        ...(answer.diff
          ? answer.diff.split('\n').map((line) => h('span', { class: diffClass(line) }, `${line}\n`))
          : [t('chapters.noDiff')]),
      );
      pre.hidden = false;
    } catch (err) {
      report(err);
    }
  }

  async function restore(number) {
    try {
      const restored = await apiJson(`${chapterUrl}/versions/${number}/restore`, {
        method: 'POST',
        headers: ifMatch(chapter),
      });
      await onRestored(restored);
      status.textContent = t('chapters.restored', { number: restored.version });
    } catch (err) {
      report(err);
    }
  }

  return { element, show, hide: () => (element.hidden = true) };
}

function diffClass(line) {
  if (line.startsWith('+') && !line.startsWith('+++')) return 'added';
  if (line.startsWith('-') && !line.startsWith('---')) return 'removed';
  return null;
}

/** Up and down buttons for chapter `index` of `items`: each sends the whole new order with the list's ETag as
 * `If-Match` (a list changed elsewhere meanwhile is refused: the notice says so and the list is loaded again),
 * then `reload`s. */
export function moveButtons(base, items, index, reload, report) {
  async function move(offset) {
    const ids = items.map((item) => item.chapterId);
    [ids[index], ids[index + offset]] = [ids[index + offset], ids[index]];
    const headers = items.etag ? { 'If-Match': items.etag } : {};
    try {
      await apiJson(`${base}/chapters/order`, { method: 'POST', body: { chapterIds: ids }, headers });
      await reload();
    } catch (err) {
      report(err);
      if (err.status === 412) await reload();
    }
  }
  const title = items[index].title;
  return h(
    'span',
    { class: 'ws-move' },
    h(
      'button',
      {
        type: 'button',
        class: 'link',
        disabled: index === 0,
        'aria-label': `${t('chapters.moveUp')}: ${title}`,
        onClick: () => move(-1),
      },
      '↑',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'link',
        disabled: index === items.length - 1,
        'aria-label': `${t('chapters.moveDown')}: ${title}`,
        onClick: () => move(1),
      },
      '↓',
    ),
  );
}

/** Under a finished run's draft: apply it to a chapter of the project (a new version of it) or as a new chapter.
 * `chapters()` lists the project's chapters now; `onApplied` reloads them. */
export function draftActions(base, runId, chapters, onApplied, report) {
  const picker = h('select', { 'aria-label': t('chapters.pickChapter') });
  const status = h('span', { class: 'muted', role: 'status' });
  const fill = () => {
    const chosen = picker.value;
    picker.replaceChildren(
      ...chapters().map((c) => h('option', { value: c.chapterId }, `${c.position}. ${c.title}`)),
    );
    if (chosen) picker.value = chosen;
  };
  fill();

  async function applyTo() {
    const chapter = chapters().find((c) => c.chapterId === picker.value);
    if (!chapter) return;
    try {
      const applied = await apiJson(`${base}/chapters/${encodeURIComponent(chapter.chapterId)}/apply`, {
        method: 'POST',
        body: { runId },
        headers: ifMatch(chapter),
      });
      status.textContent = t('chapters.applied', { number: applied.version, title: applied.title });
      await onApplied();
      fill();
    } catch (err) {
      report(err);
    }
  }

  async function applyNew() {
    try {
      const added = await apiJson(`${base}/chapters/apply`, { method: 'POST', body: { runId } });
      status.textContent = t('chapters.addedFromDraft', { position: added.position, title: added.title });
      await onApplied();
      fill();
    } catch (err) {
      report(err);
    }
  }

  return h(
    'div',
    { class: 'row ws-draft-actions', dataset: { runId } },
    text('span', 'chapters.applyTo'),
    picker,
    text('button', 'chapters.apply', { type: 'button', class: 'secondary', onClick: applyTo }),
    text('button', 'chapters.applyNew', { type: 'button', class: 'secondary', onClick: applyNew }),
    status,
  );
}

/** Buttons that download the project's manuscript (`export.md`, `export.epub`) with the tab's key. */
export function exportButtons(currentBase, report) {
  async function download(extension) {
    try {
      const name = currentBase().split('/').pop();
      await downloadFile(`${currentBase()}/export.${extension}`, `${name}.${extension}`);
    } catch (err) {
      report(err);
    }
  }
  return h(
    'section',
    { class: 'ws-export row' },
    text('h3', 'chapters.export'),
    text('button', 'chapters.exportMarkdown', { type: 'button', class: 'secondary', onClick: () => download('md') }),
    text('button', 'chapters.exportEpub', { type: 'button', class: 'secondary', onClick: () => download('epub') }),
  );
}
