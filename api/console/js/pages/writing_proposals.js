// What agents proposed for the writing workspace's project (issue 28 item 2), as a small hook the workspace page
// uses: the pending proposals (`.../proposals?status=pending`) with their source run, kind, the proposed item and,
// for a change of a relationship, its before and after; accept or reject each. A 412 (the writer changed that
// relationship since) or a 409 is shown as the API's message; the list reloads after every decision.

import { apiJson } from '../api.js';
import { text } from '../forms.js';
import { registerStrings, t } from '../i18n.js';
import { h } from '../ui.js';

registerStrings({
  zh: {
    'proposals.title': '待确认的提议',
    'proposals.none': '没有待确认的提议。',
    'proposals.kind.world_note': '设定',
    'proposals.kind.character': '角色',
    'proposals.kind.relationship': '关系',
    'proposals.kind.plot_loop': '伏笔',
    'proposals.fromRun': '来自运行 {runId}',
    'proposals.before': '原来',
    'proposals.after': '提议',
    'proposals.accept': '采纳',
    'proposals.reject': '拒绝',
  },
  en: {
    'proposals.title': 'Proposals to review',
    'proposals.none': 'No pending proposals.',
    'proposals.kind.world_note': 'World note',
    'proposals.kind.character': 'Character',
    'proposals.kind.relationship': 'Relationship',
    'proposals.kind.plot_loop': 'Plot loop',
    'proposals.fromRun': 'from run {runId}',
    'proposals.before': 'Before',
    'proposals.after': 'Proposed',
    'proposals.accept': 'Accept',
    'proposals.reject': 'Reject',
  },
});

/** One item as a line: a relationship as `source — kind — target: description`, others by title or name. */
function describe(kind, item) {
  if (kind === 'relationship') {
    return `${item.source} — ${item.kind} — ${item.target}${item.description ? `：${item.description}` : ''}`;
  }
  const head = kind === 'character' ? item.name : item.title;
  const body = kind === 'world_note' ? item.content : item.description;
  return body ? `${head}：${body}` : head;
}

/** The pending proposals of the current project; `decided` runs after an accept (the project changed). */
export function proposalsPanel(report, decided) {
  const list = h('ul', { class: 'ws-proposals' });
  const element = h('section', { class: 'stack', hidden: true }, text('h3', 'proposals.title'), list);
  let base = null;

  async function decide(proposal, action) {
    try {
      await apiJson(`${base}/proposals/${encodeURIComponent(proposal.proposalId)}/${action}`, { method: 'POST' });
      if (action === 'accept') await decided();
    } catch (err) {
      report(err);
    }
    await load(base);
  }

  function row(proposal) {
    const lines = proposal.before
      ? [
          h('p', { class: 'muted' }, `${t('proposals.before')}：${describe(proposal.kind, proposal.before)}`),
          h('p', {}, `${t('proposals.after')}：${describe(proposal.kind, proposal.item)}`),
        ]
      : [h('p', {}, describe(proposal.kind, proposal.item))];
    return h(
      'li',
      { class: 'stack', dataset: { id: proposal.proposalId, kind: proposal.kind } },
      h(
        'div',
        { class: 'row' },
        h('strong', {}, t(`proposals.kind.${proposal.kind}`)),
        h('span', { class: 'muted' }, t('proposals.fromRun', { runId: proposal.runId })),
      ),
      ...lines,
      h(
        'div',
        { class: 'row' },
        text('button', 'proposals.accept', {
          type: 'button',
          class: 'primary',
          onClick: () => decide(proposal, 'accept'),
        }),
        text('button', 'proposals.reject', {
          type: 'button',
          class: 'secondary',
          onClick: () => decide(proposal, 'reject'),
        }),
      ),
    );
  }

  async function load(projectBase) {
    base = projectBase;
    const pending = await apiJson(`${base}/proposals?status=pending`);
    list.replaceChildren(...(pending.length ? pending.map(row) : [text('li', 'proposals.none', { class: 'muted' })]));
    element.hidden = false;
  }

  return { element, load, reload: () => (base ? load(base).catch(report) : null) };
}
