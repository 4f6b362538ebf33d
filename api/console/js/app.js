// The console's shell: translates the page chrome, switches language, and routes `#/<page>/<rest...>` to
// `./pages/<page>.js`, whose `mount(root, {params, navigate})` may return an unmount function (called on leaving).

import { familyPages, temporalUiUrl } from './api.js';
import { lang, onLangChange, registerStrings, setLang, t, translateTree } from './i18n.js';
import { errorBanner, h } from './ui.js';

registerStrings({
  zh: {
    'app.title': 'Durable agents 控制台',
    'app.skip': '跳到主要内容',
    'app.nav': '主导航',
    'app.loading': '加载中…',
    'nav.runs': '运行记录',
    'nav.temporal': 'Temporal Web UI',
    'app.switchLang': 'Switch to English',
  },
  en: {
    'app.title': 'Durable agents console',
    'app.skip': 'Skip to main content',
    'app.nav': 'Main navigation',
    'app.loading': 'Loading…',
    'nav.runs': 'Runs',
    'nav.temporal': 'Temporal Web UI',
    'app.switchLang': '切换到中文',
  },
});

const FAMILY_PAGES = familyPages();
registerStrings({
  zh: Object.fromEntries(FAMILY_PAGES.map(({ page, label }) => [`nav.${page}`, label.zh])),
  en: Object.fromEntries(FAMILY_PAGES.map(({ page, label }) => [`nav.${page}`, label.en])),
});
const PAGES = [...FAMILY_PAGES.map(({ page }) => page), 'runs'];
const DEFAULT_ROUTE = `#/${PAGES[0]}`;
const main = document.getElementById('main');
const toggle = document.getElementById('lang-toggle');
let unmount = null;
let mounting = 0;
let firstRoute = true;

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function parse(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { page: parts[0], params: parts.slice(1) };
}

function leave() {
  const previous = unmount;
  unmount = null;
  try {
    previous?.();
  } catch (err) {
    console.error('unmount failed', err);
  }
}

async function route() {
  const { page, params } = parse(location.hash);
  if (!PAGES.includes(page)) {
    history.replaceState(null, '', DEFAULT_ROUTE);
    route();
    return;
  }
  leave();
  const token = ++mounting;
  for (const link of document.querySelectorAll('.nav-links a')) {
    if (link.dataset.page === page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const root = h('div', { class: `page page-${page}`, 'aria-busy': 'true' });
  main.replaceChildren(root);
  if (!firstRoute) main.focus({ preventScroll: true });
  firstRoute = false;
  try {
    const module = await import(`./pages/${page}.js`);
    if (token !== mounting) return;
    const cleanup = await module.mount(root, { params, navigate });
    if (token !== mounting) {
      if (typeof cleanup === 'function') cleanup();
      return;
    }
    unmount = typeof cleanup === 'function' ? cleanup : null;
  } catch (err) {
    if (token === mounting) root.replaceChildren(errorBanner(err));
  } finally {
    root.removeAttribute('aria-busy');
  }
}

function showLanguage() {
  toggle.textContent = lang() === 'zh' ? 'English' : '中文';
  toggle.lang = lang() === 'zh' ? 'en' : 'zh-CN';
  toggle.setAttribute('aria-label', t('app.switchLang'));
  document.title = t('app.title');
}

/** A navigation link for each family's page, before the runs page. */
function familyLinks() {
  const runs = document.querySelector('.nav-links a[data-page="runs"]').parentElement;
  for (const { page } of FAMILY_PAGES) {
    const link = h('a', { href: `#/${page}`, 'data-page': page, 'data-i18n': `nav.${page}` }, t(`nav.${page}`));
    runs.before(h('li', {}, link));
  }
}

familyLinks();
toggle.addEventListener('click', () => setLang(lang() === 'zh' ? 'en' : 'zh'));
onLangChange(showLanguage);
document.getElementById('temporal-ui-link').href = temporalUiUrl();
translateTree();
showLanguage();
window.addEventListener('hashchange', route);
window.addEventListener('pagehide', leave);
route();
