// The console's shell: translates the page chrome, switches language, and routes `#/<page>/<rest...>` to
// `./pages/<page>.js`, whose `mount(root, {params, navigate})` may return an unmount function (called on leaving).

import { temporalUiUrl } from './api.js';
import { lang, onLangChange, registerStrings, setLang, t, translateTree } from './i18n.js';
import { errorBanner, h } from './ui.js';

registerStrings({
  zh: {
    'app.title': 'Durable agents 控制台',
    'app.skip': '跳到主要内容',
    'app.nav': '主导航',
    'app.loading': '加载中…',
    'nav.image': '图像工作室',
    'nav.writing': '写作',
    'nav.content': '内容创作',
    'nav.apps': '应用构建',
    'nav.runs': '运行记录',
    'nav.temporal': 'Temporal Web UI',
    'app.switchLang': 'Switch to English',
  },
  en: {
    'app.title': 'Durable agents console',
    'app.skip': 'Skip to main content',
    'app.nav': 'Main navigation',
    'app.loading': 'Loading…',
    'nav.image': 'Image studio',
    'nav.writing': 'Writing',
    'nav.content': 'Content',
    'nav.apps': 'App builder',
    'nav.runs': 'Runs',
    'nav.temporal': 'Temporal Web UI',
    'app.switchLang': '切换到中文',
  },
});

const PAGES = ['image', 'writing', 'content', 'apps', 'runs'];
const DEFAULT_ROUTE = '#/image';
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

toggle.addEventListener('click', () => setLang(lang() === 'zh' ? 'en' : 'zh'));
onLangChange(showLanguage);
document.getElementById('temporal-ui-link').href = temporalUiUrl();
translateTree();
showLanguage();
window.addEventListener('hashchange', route);
window.addEventListener('pagehide', leave);
route();
