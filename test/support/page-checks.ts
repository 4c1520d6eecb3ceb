// Code the report tests run inside the page, as JavaScript source: the test runner's compiler would add helpers of its
// own to a function passed to `page.evaluate`, which do not exist in the page.

/** Facts of an HTML report page: landmarks, table headers, counts of drawn and listed records, its text. */
export const PAGE_FACTS = `(() => {
  const count = (selector) => document.querySelectorAll(selector).length;
  const rowsOf = (id) => document.querySelectorAll('#' + id + ' table tbody tr').length;
  const svg = document.querySelector('#graph svg');
  return {
    lang: document.documentElement.lang,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    scripts: count('script'),
    images: count('img'),
    bold: count('b'),
    landmarks: [count('body > header'), count('body > nav'), count('body > main')],
    sectionsWithoutHeading: [...document.querySelectorAll('main section')].filter((section) => !section.querySelector('h2')).length,
    headersWithoutScope: [...document.querySelectorAll('thead th')].filter((th) => th.getAttribute('scope') !== 'col').length,
    tasks: rowsOf('tasks'),
    effectArticles: count('#effects article.effect'),
    approvals: rowsOf('approvals'),
    artifacts: rowsOf('artifacts'),
    timelineRows: count('#timeline ol.tl > li'),
    waits: count('#timeline .tl-wait'),
    graphNodes: count('#graph svg g.node'),
    graphEdges: count('#graph svg path.edge'),
    graphLabel: svg && svg.getAttribute('role') === 'img' ? svg.querySelector('title').textContent : null,
    folds: count('#effects details'),
    text: document.body.innerText,
    title: document.title,
  };
})()`;

/** Texts whose colour has less than 4.5:1 contrast (WCAG AA) with the background they are drawn on. */
export const POOR_CONTRAST = `(() => {
  const rgb = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
  const channel = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = (color) => 0.2126 * channel(color[0]) + 0.7152 * channel(color[1]) + 0.0722 * channel(color[2]);
  const background = (element) => {
    for (let at = element; at; at = at.parentElement) {
      const color = rgb(getComputedStyle(at).backgroundColor);
      if (color.length === 3 || (color.length === 4 && color[3] > 0.5)) return color.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || element.closest('.sr, svg')) continue;
    const fg = luminance(rgb(getComputedStyle(element).color).slice(0, 3));
    const bg = luminance(background(element));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) found.push(node.textContent.trim().slice(0, 30) + ': ' + ratio.toFixed(2));
  }
  return found;
})()`;
