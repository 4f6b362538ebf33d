// An app's rounds (issue 27 item 2), shown under an ended app run: a "change this app" box that starts a follow-up
// run from a round (`POST /v1/apps/runs` with `fromRun`, streamed like any run by the app page), and the rounds
// panel (`/v1/apps/runs/{id}/rounds`): each round's message, status and change counts, its per-file diff
// (`/v1/apps/runs/{id}/diff`), its zip and "use as base". Offline (the run was built without a model) the box
// explains that follow-up changes need a configured model instead of offering one.

import { apiJson, downloadFile } from '../api.js';
import { field, hinted, text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { h, payloadOf } from '../ui.js';

registerStrings({
  zh: {
    'rounds.change': '修改这个应用',
    'rounds.message': '要改什么？',
    'rounds.messageHint': '例如：加一个深色模式切换按钮',
    'rounds.apply': '应用修改',
    'rounds.base': '在第 {round} 轮（{id}）的基础上修改',
    'rounds.offline': '后续修改需要配置模型（LLM_PROVIDER）：离线构建器只能从零构建它认识的四类应用。',
    'rounds.title': '轮次',
    'rounds.round': '第 {round} 轮',
    'rounds.changes': '新增 {added} · 修改 {modified} · 删除 {removed}',
    'rounds.diff': '查看改动',
    'rounds.noDiff': '这一轮没有改动文件。',
    'rounds.download': '下载本轮 zip',
    'rounds.useAsBase': '以此为基础',
    'rounds.incomplete': '更早的轮次已不可用。',
  },
  en: {
    'rounds.change': 'Change this app',
    'rounds.message': 'What shall change?',
    'rounds.messageHint': 'e.g. add a dark mode toggle',
    'rounds.apply': 'Apply change',
    'rounds.base': 'Changes round {round} ({id})',
    'rounds.offline':
      'Follow-up changes need a configured model (LLM_PROVIDER): the offline builder builds its four kinds from scratch only.',
    'rounds.title': 'Rounds',
    'rounds.round': 'Round {round}',
    'rounds.changes': '{added} added · {modified} modified · {removed} removed',
    'rounds.diff': 'Show diff',
    'rounds.noDiff': 'This round changed no file.',
    'rounds.download': 'Download round zip',
    'rounds.useAsBase': 'Use as base',
    'rounds.incomplete': 'Earlier rounds are no longer available.',
  },
});

const runPath = (runId) => `/v1/apps/runs/${encodeURIComponent(runId)}`;

/** Download run `runId`'s project as `<runId>.zip` (its `workspace.zip`). */
export async function downloadZip(runId, report) {
  try {
    await downloadFile(`${runPath(runId)}/workspace.zip`, `${runId}.zip`);
  } catch (err) {
    report(err);
  }
}

/** One round's files as the diff answers them: a `<details>` per file with its unified diff. */
function diffView(answer) {
  if (!answer.files.length) return text('p', 'rounds.noDiff', { class: 'muted' });
  return h(
    'ul',
    { class: 'ab-diff' },
    answer.files.map((file) =>
      h(
        'li',
        { dataset: { path: file.path, status: file.status } },
        h(
          'details',
          {},
          h(
            'summary',
            {},
            h('code', {}, file.path),
            ' ',
            h('span', { class: `tag ab-diff-${file.status}` }, file.status),
            ` +${file.additions} −${file.deletions}`,
            file.note ? h('span', { class: 'muted' }, ` · ${file.note}`) : null,
          ),
          file.diff ? h('pre', { class: 'ab-viewer' }, h('code', {}, file.diff)) : null,
        ),
      ),
    ),
  );
}

/** The change box and the rounds panel; `change(body)` starts (and follows) a follow-up run. */
export function roundsPanel({ report, change }) {
  const message = hinted('textarea', 'rounds.messageHint', { rows: 2, required: true, maxlength: 4000 });
  const apply = text('button', 'rounds.apply', { type: 'submit', class: 'primary' });
  const base = h('p', { class: 'muted ab-base' });
  const offlineNote = text('p', 'rounds.offline', { class: 'ab-followup-offline', hidden: true });
  const form = h(
    'form',
    { class: 'stack ab-change', onSubmit: submit },
    field('ab-change-message', 'rounds.message', message),
    h('div', { class: 'row' }, apply),
    base,
  );
  const list = h('ol', { class: 'ab-rounds-list' });
  const element = h(
    'section',
    { class: 'card stack ab-rounds', hidden: true },
    text('h2', 'rounds.change'),
    offlineNote,
    form,
    text('h3', 'rounds.title'),
    list,
  );
  let baseId = null;
  let offline = false;

  function useAsBase(round) {
    baseId = round.runId;
    base.textContent = t('rounds.base', { round: round.round, id: round.runId });
    for (const item of list.children) item.dataset.base = String(item.dataset.run === baseId);
  }

  function submit(e) {
    e.preventDefault();
    if (!baseId || !message.value.trim()) return;
    change({ message: message.value.trim(), fromRun: baseId });
  }

  async function toggleDiff(round, slot, button) {
    if (slot.childElementCount) {
      slot.replaceChildren();
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    try {
      slot.replaceChildren(diffView(await apiJson(`${runPath(round.runId)}/diff`)));
      button.setAttribute('aria-expanded', 'true');
    } catch (err) {
      report(err);
    }
  }

  function roundItem(round) {
    const slot = h('div', { class: 'ab-diff-slot' });
    const diffButton = text('button', 'rounds.diff', { type: 'button', class: 'link', 'aria-expanded': 'false' });
    diffButton.addEventListener('click', () => toggleDiff(round, slot, diffButton));
    const changes = round.changes ? t('rounds.changes', round.changes) : '';
    return h(
      'li',
      { class: 'ab-round', dataset: { run: round.runId, round: round.round } },
      h(
        'div',
        { class: 'row' },
        h('strong', {}, t('rounds.round', { round: round.round })),
        h('span', { class: `tag status-${round.success ? 'completed' : 'failed'}` }, round.status),
        h('span', { class: 'muted ab-changes' }, changes),
      ),
      h('p', { class: 'ab-round-message' }, round.message),
      h(
        'div',
        { class: 'row' },
        diffButton,
        text('button', 'rounds.download', {
          type: 'button',
          class: 'link',
          onClick: () => downloadZip(round.runId, report),
        }),
        text('button', 'rounds.useAsBase', {
          type: 'button',
          class: 'link ab-use-base',
          hidden: offline,
          onClick: () => useAsBase(round),
        }),
      ),
      slot,
    );
  }

  /** Watch the run's events: an offline run gets the explanation instead of the change box. */
  function add(evt) {
    if (evt.event === 'app_ready' && payloadOf(evt)?.offline) offline = true;
  }

  async function load(runId) {
    try {
      const answer = await apiJson(`${runPath(runId)}/rounds`);
      list.replaceChildren(...answer.rounds.map(roundItem));
      if (!answer.complete) list.before(text('p', 'rounds.incomplete', { class: 'muted' }));
      form.hidden = offline;
      offlineNote.hidden = !offline;
      element.hidden = false;
      useAsBase(answer.rounds.at(-1));
    } catch (err) {
      report(err);
    }
  }

  return { element, add, load };
}
