// UI text in Chinese and English. Pages register their own strings; `t(key, vars)` looks a key up in the current
// language ({name} placeholders filled from `vars`). The choice is kept in localStorage.
//
// Elements built with `data-i18n="key"` (text), `data-i18n-placeholder`, `data-i18n-label` (aria-label) or
// `data-i18n-title` are re-translated in place when the language changes; anything else listens with onLangChange.

const STORE_KEY = 'console.lang';
const strings = { zh: {}, en: {} };
const listeners = new Set();

function initialLang() {
  const stored = localStorage.getItem(STORE_KEY);
  if (stored === 'zh' || stored === 'en') return stored;
  return (navigator.language || 'zh').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

let current = initialLang();
document.documentElement.lang = current === 'zh' ? 'zh-CN' : 'en';

export function registerStrings(table) {
  for (const [code, entries] of Object.entries(table)) {
    strings[code] = Object.assign(strings[code] || {}, entries);
  }
}

export function t(key, vars = {}) {
  const text = strings[current][key] ?? strings.en[key] ?? strings.zh[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

export function lang() {
  return current;
}

const ATTRIBUTES = [
  ['data-i18n-placeholder', 'placeholder'],
  ['data-i18n-label', 'aria-label'],
  ['data-i18n-title', 'title'],
];

/** Re-translate the marked elements under `root` (the whole document by default). */
export function translateTree(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const [marker, attribute] of ATTRIBUTES) {
    for (const el of root.querySelectorAll(`[${marker}]`)) el.setAttribute(attribute, t(el.getAttribute(marker)));
  }
}

export function setLang(code) {
  if (code !== 'zh' && code !== 'en') throw new Error(`unknown language ${code}`);
  if (code === current) return;
  current = code;
  localStorage.setItem(STORE_KEY, code);
  document.documentElement.lang = code === 'zh' ? 'zh-CN' : 'en';
  translateTree();
  for (const fn of [...listeners]) fn(code);
}

/** Call `fn(code)` after every language change; returns a function that stops it. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
