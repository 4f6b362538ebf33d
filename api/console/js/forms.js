// Form pieces the studio pages share: `text` (an element with translated text), `hinted` (a control with a
// translated placeholder), `field` (a labelled control), `showRunId` (a started run's id in the address and a status
// line) and `questionCard` (a run's `user_input_required` answered through `POST /v1/runs/{id}/input`), with their
// strings.

import { apiJson } from './api.js';
import { registerStrings, t } from './i18n.js';
import { errorBanner, h } from './ui.js';

registerStrings({
  zh: {
    'studio.answer': '回答',
    'studio.freeText': '自己的回答',
    'studio.answered': '已回答：{answer}',
    'studio.expired': '已过截止时间，无人回答',
  },
  en: {
    'studio.answer': 'Answer',
    'studio.freeText': 'Your own answer',
    'studio.answered': 'Answered: {answer}',
    'studio.expired': 'The deadline passed without an answer',
  },
});

/** An element whose text is the translation of `key`, re-translated when the language changes. */
export function text(tag, key, attrs = {}) {
  return h(tag, { ...attrs, 'data-i18n': key }, t(key));
}

/** A control (`input`, `textarea`) whose placeholder is the translation of `key`, re-translated with the language. */
export function hinted(tag, key, attrs = {}) {
  return h(tag, { ...attrs, placeholder: t(key), 'data-i18n-placeholder': key });
}

/** A label (translated) above its control; the control gets `id` so the label names it. */
export function field(id, key, control) {
  control.id = id;
  return h('div', { class: 'field' }, text('label', key, { for: id }), control);
}

/**
 * The run a page's form started, from its stream's first response (`X-Run-Id`, else `known`): its id replaces the
 * address's (`#/<page>/<runId>`, no new history entry) and shows in `status` as `key`'s text. Returns the run id.
 */
export function showRunId(response, known, { page, status, key }) {
  const runId = response.headers.get('X-Run-Id') || known;
  if (runId) {
    history.replaceState(null, '', `#/${page}/${encodeURIComponent(runId)}`);
    status.textContent = t(key, { id: runId });
  }
  return runId;
}

/**
 * A run's question (`user_input_required`) as a card: its prompt, one button per option and, where the question
 * allows it, a free-text answer; an answer goes to `POST /v1/runs/{runId}/input` with the question's id.
 * `resolve(received)` marks it answered (by this page or anyone else), `expire()` marks it expired.
 */
export function questionCard(runId, question) {
  const status = h('p', { class: 'question-status', role: 'status' });
  const controls = [];
  const card = h('div', { class: 'question-card', dataset: { questionId: question.questionId } });

  async function answer(value) {
    for (const control of controls) control.disabled = true;
    card.querySelector('.error-banner')?.remove();
    try {
      const received = await apiJson(`/v1/runs/${encodeURIComponent(runId)}/input`, {
        method: 'POST',
        body: { answer: value, questionId: question.questionId },
      });
      resolve(received);
    } catch (err) {
      for (const control of controls) control.disabled = false;
      card.append(errorBanner(err));
    }
  }

  const options = (question.options || []).map((option) => {
    const button = h(
      'button',
      {
        type: 'button',
        class: 'option',
        'aria-pressed': 'false',
        dataset: { option: option.id },
        onClick: () => answer(option.id),
      },
      h('strong', {}, option.id),
      h('span', {}, option.label),
    );
    controls.push(button);
    return button;
  });
  let freeForm = null;
  if (question.allowFreeText || !options.length) {
    const input = h('input', { type: 'text', required: true, maxlength: 4000 });
    const submit = text('button', 'studio.answer', { type: 'submit', class: 'primary' });
    controls.push(input, submit);
    freeForm = h(
      'form',
      {
        class: 'row',
        onSubmit: (e) => {
          e.preventDefault();
          if (input.value.trim()) answer(input.value.trim());
        },
      },
      field(`free-${question.questionId}`, 'studio.freeText', input),
      submit,
    );
  }
  card.append(h('p', { class: 'question-prompt' }, question.prompt), h('div', { class: 'options' }, options));
  if (freeForm) card.append(freeForm);
  card.append(status);

  function resolve(received) {
    for (const control of controls) control.disabled = true;
    const chosen = received.option?.id ?? received.answer;
    for (const button of options) button.setAttribute('aria-pressed', String(button.dataset.option === chosen));
    card.classList.add('answered');
    status.textContent = t('studio.answered', {
      answer: received.option ? `${chosen} · ${received.option.label}` : chosen,
    });
  }

  function expire() {
    for (const control of controls) control.disabled = true;
    card.classList.add('expired');
    status.textContent = t('studio.expired');
  }

  return { element: card, resolve, expire };
}
