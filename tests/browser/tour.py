"""Every page of the built site, seen once per reader in a test run: what the page-by-page browser
tests (test_site, test_palettes, test_reading) assert on.

A page costs its load (Material, KaTeX, Mermaid: about a second of a core), the checks on it cost
milliseconds: so each page is loaded once per reader, and every check reads what that one visit
saw (``Tour.page``). The visit waits for the page to settle (its Mermaid diagrams drawn, its fonts
loaded, course.js's pass over them done), looks (colours, sizes, widths, errors), then uses the
widgets as a reader does, looking again at each state. What it saw is written as JSON in the
run's shared folder, so that the xdist workers share the work: ``Tour.pages`` takes first the
pages no other worker is seeing.

Two readers see every page: each palette and each width is seen by one of them (a page's palette
does not change its layout, nor its width its colours), and each loads every page without a
console error or a request that leaves the machine.
"""

from __future__ import annotations

import fcntl
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

READERS = {
    "light desktop": {"color_scheme": "light", "viewport": {"width": 1366, "height": 900}},
    "dark phone": {"color_scheme": "dark", "viewport": {"width": 360, "height": 740}, "is_mobile": True,
                   "has_touch": True},
}
#: The reader who sees each palette, and each width.
PALETTES = {"light": "light desktop", "dark": "dark phone"}
WIDTHS = {"desktop": "light desktop", "phone": "dark phone"}

# Material draws each diagram into a closed shadow root; open it so the tests can look inside.
OPEN_SHADOW_ROOTS = (
    "const attach = Element.prototype.attachShadow;"
    "Element.prototype.attachShadow = function (init) { return attach.call(this, { ...init, mode: 'open' }); };"
)
# The tour's tabs, and the tabs of the tests that do not search (conftest's ``page``), do not start
# Material's search worker: a page view would otherwise index the whole language's search index
# for a search nobody makes. The worker is the same script and index on every page of a language;
# the search tests (test_site, test_dist: ``search_page``) start it, search, follow the results in
# both languages, and see no console error.
QUIET_SEARCH_WORKER = (
    "const NativeWorker = window.Worker;"
    "window.Worker = function (url, options) {"
    "  if (String(url).includes('/workers/search.')) {"
    "    const quiet = new EventTarget(); quiet.postMessage = () => {}; quiet.terminate = () => {}; return quiet; }"
    "  return new NativeWorker(url, options); };"
)
#: How long a page may take to draw its diagrams.
SETTLE_MS = 20_000


class PageWatch:
    """Console errors, page errors and requests to anything but 127.0.0.1 (or local files), seen by one page.

    Requests are watched, not intercepted: Playwright's interception turns the browser's cache off
    (every page would compile Mermaid again). CHROMIUM_FLAGS keep them from leaving the machine.
    """

    def __init__(self, page):
        self.errors: list[str] = []
        self.remote_requests: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("request", self._request)

    def _request(self, request):
        url = request.url
        if not (urlsplit(url).hostname == "127.0.0.1" or url.startswith(("data:", "blob:", "about:", "file:"))):
            self.remote_requests.append(url)


def watched_tab(context, search: bool = False):
    """A new tab of ``context``, watched (``tab.watch``: PageWatch); unless ``search``, its pages do
    not start Material's search worker (QUIET_SEARCH_WORKER)."""
    tab = context.new_page()
    if not search:
        tab.add_init_script(QUIET_SEARCH_WORKER)
    tab.watch = PageWatch(tab)
    return tab


#: Sets window.resultsChanged once Material has changed the list of results: what the next query
#: shows, not the last one's.
WATCH_RESULTS_JS = """() => { window.resultsChanged = false; new MutationObserver((_, watch) => {
  watch.disconnect(); window.resultsChanged = true; }).observe(document.querySelector('.md-search-result__list'),
  {childList: true}); }"""


def search(page, query: str) -> list[str]:
    """The links Material's search lists for ``query``, typed into the page's search field (which
    may hold an earlier query): waits for the list to change, then for its first result."""
    page.evaluate(WATCH_RESULTS_JS)
    page.click("input.md-search__input")
    page.fill("input.md-search__input", "")
    page.keyboard.insert_text(query)
    page.keyboard.press("ArrowRight")  # Material searches on keyboard events
    page.wait_for_function("() => window.resultsChanged", timeout=15_000)
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=15_000)
    return results.evaluate_all("links => links.map(a => a.href)")


def site_pages(built_site: Path) -> list[str]:
    """Every page of the site (both languages), relative to its root: "/", "zh/performance/"."""
    return sorted(
        p.parent.relative_to(built_site).as_posix().removeprefix(".") + "/"
        for p in built_site.rglob("index.html")
        if "assets" not in p.parts and "search" not in p.parts
    )


def diagrams_in(html: str) -> int:
    """How many Mermaid diagrams the page's HTML holds (Material draws each after the page)."""
    return html.count('<pre class="mermaid"')


DIAGRAMS_DRAWN_JS = """(expected) => {
  const drawn = [...document.querySelectorAll('div.mermaid')];
  return drawn.length >= expected && drawn.every(d => d.shadowRoot && d.shadowRoot.querySelector('svg'));
}"""
# Layout first (it starts the fonts' loading), then two frames: course.js fits the diagrams and marks
# what scrolls in the frame after the article changed.
SETTLE_JS = """async () => {
  document.body.offsetHeight;
  await document.fonts.ready;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


def settle(page, diagrams: int) -> None:
    """Wait until the page's ``diagrams`` Mermaid diagrams are drawn, its fonts loaded and course.js
    has measured them (raises Playwright's TimeoutError, naming what was missing)."""
    try:
        page.wait_for_function(DIAGRAMS_DRAWN_JS, arg=diagrams, timeout=SETTLE_MS)
    except PlaywrightTimeoutError:
        drawn = page.evaluate("() => document.querySelectorAll('div.mermaid').length")
        raise PlaywrightTimeoutError(f"{drawn} of its {diagrams} Mermaid diagrams drawn after {SETTLE_MS} ms") from None
    page.evaluate(SETTLE_JS)


MARKS = ".lab-figure .theoretical, .lab-figure .measured, .lab-figure .sweep, .lab-figure .kernel, " \
        ".lab-figure [class^='phase-'], .lab-figure .line, .lab-figure .mark, .lab-figure .frame, .lab-figure .axis"

#: What a settled page shows before anyone touches it. Colours: for each element of the lab figures
#: and tables, its colour (fill for text and filled marks, stroke for lines), and the page's
#: background. Width: how wide the page is, and the first elements of the article that stick out
#: (not inside something that scrolls on its own). Math and diagrams: KaTeX's renderings, and each
#: diagram's text and whether it has nodes.
LOOK_JS = """(marks) => {
  const colours = (selector) => [...document.querySelectorAll(selector)].map(el => {
    const style = getComputedStyle(el);
    const line = ['polyline', 'line', 'path'].includes(el.tagName) || el.getAttribute('class') === 'frame';
    return {tag: el.tagName, cls: el.getAttribute('class') || '',
            colour: el.tagName === 'TD' ? style.color : (line ? style.stroke : style.fill)};
  });
  const room = document.documentElement.clientWidth;
  const width = document.documentElement.scrollWidth;
  return {
    scheme: document.body.getAttribute('data-md-color-scheme'),
    background: getComputedStyle(document.body).backgroundColor,
    figure_texts: colours('.lab-figure svg text'),
    figure_marks: colours(marks),
    table_cells: colours('.lab-recorded td'),
    scroll_width: width,
    sticking_out: width <= room ? [] : [...document.querySelectorAll('article *')]
      .filter(e => e.getBoundingClientRect().right > room + 1)
      .filter(e => !e.parentElement.closest('[class*=scroll], pre, .highlight, .arithmatex, div.mermaid, figure'))
      .slice(0, 2).map(e => e.tagName + '.' + e.className),
    katex: document.querySelectorAll('.arithmatex .katex').length,
    // a drawing's labels: those inside a plot that overlap another, and any text cut by its drawing's edge
    overlapping_labels: [...document.querySelectorAll('.lab-figure svg')].flatMap(svg => {
      const boxes = [...svg.querySelectorAll('text.in-plot')].map(t => [t.textContent, t.getBoundingClientRect()]);
      // (boxes include the font's ascent and descent: two labels on adjacent lines touch; on each other, they share a tenth)
      const shared = (r, q) => Math.max(0, Math.min(r.right, q.right) - Math.max(r.left, q.left)) *
        Math.max(0, Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top));
      return boxes.flatMap(([a, r], i) => boxes.slice(i + 1)
        .filter(([, q]) => shared(r, q) > 0.1 * Math.min(r.width * r.height, q.width * q.height))
        .map(([b, q]) => a + ' / ' + b + ' ' + Math.round(100 * shared(r, q) / Math.min(r.width * r.height, q.width * q.height)) + ' %'));
    }),
    cut_texts: [...document.querySelectorAll('.lab-figure svg text, .occupancy-calculator svg text')].filter(t => {
      const r = t.getBoundingClientRect(), frame = t.ownerSVGElement.getBoundingClientRect();
      return r.width && (r.right > frame.right + 0.5 || r.left < frame.left - 0.5);
    }).map(t => t.textContent),
    // every coloured token of the code (blocks and inline, links set in code), on its code's background
    code_colours: Object.values(Object.fromEntries([...document.querySelectorAll(
        'article .highlight code span[class], article a code, article p code')].map(el => {
      const code = el.closest('code'), colour = getComputedStyle(el).color;
      const backdrop = getComputedStyle(code).backgroundColor;
      const what = (el.getAttribute('class') || el.parentElement.tagName) + ' ' + el.textContent.trim().slice(0, 16);
      return [colour + backdrop + (el.getAttribute('class') || 'a'), {what, colour, backdrop}];
    }))),
    // what a lab notebook page prints: the record's provenance lines, and its short outputs whole
    provenance_lines: [...document.querySelectorAll('article pre code, .lab-provenance code')]
      .flatMap(code => code.textContent.split('\\n')).filter(line => line.includes('commit')),
    short_outputs: [...document.querySelectorAll('p.notebook-output-label')]
      .map(p => p.nextElementSibling ? p.nextElementSibling.textContent.trim() : '').filter(text => text.length < 400),
    diagrams: [...document.querySelectorAll('div.mermaid')].map(d => ({
      nodes: Boolean(d.shadowRoot && d.shadowRoot.querySelector('svg .node')),
      text: d.shadowRoot ? d.shadowRoot.textContent : ''})),
  };
}"""

#: Every text and line of the widgets and diagrams, each with what it is drawn on: (what, kind,
#: colour, backdrop). Text on a coloured cell is measured against the cell.
WIDGET_COLOURS_JS = """() => {
  const page = getComputedStyle(document.body).backgroundColor;
  const out = [];
  const add = (el, kind, colour, backdrop) => out.push({
    what: el.tagName + '.' + (el.getAttribute('class') || '') + ' ' + (el.textContent || '').trim().slice(0, 20),
    kind, colour, backdrop: backdrop || page});
  const style = (el) => getComputedStyle(el);
  const all = (root, selector) => [...root.querySelectorAll(selector)];
  for (const el of all(document, '.access-explorer svg text')) {
    const cell = el.classList.contains('explorer-on-cell') ? el.previousElementSibling : null;
    add(el, 'text', style(el).fill, cell ? style(cell).fill : page);
  }
  for (const el of all(document, '.access-explorer .explorer-cell')) add(el, 'line', style(el).stroke);
  for (const el of all(document, '.access-explorer .explorer-shared-mark')) add(el, 'line', style(el).fill, style(el.previousElementSibling.previousElementSibling).fill);
  for (const el of all(document, '.access-explorer label, .access-explorer dt, .access-explorer dd, ' +
      '.access-explorer figcaption, .access-explorer__message, .occupancy-calculator p, .occupancy-calculator label, ' +
      '.occupancy-calculator th, .occupancy-calculator td, .occupancy-calculator figcaption, .occ-message, ' +
      '.quiz-feedback, .scroll-hint')) {
    if (el.textContent.trim()) add(el, 'text', style(el).color);
  }
  for (const el of all(document, '.occupancy-calculator svg text')) add(el, 'text', style(el).fill);
  for (const el of all(document, '.occupancy-calculator .occ-line, .occupancy-calculator .occ-axis')) add(el, 'line', style(el).stroke);
  for (const el of all(document, '.occupancy-calculator .occ-current')) add(el, 'line', style(el).fill);
  for (const el of all(document, '.access-explorer input, .access-explorer select, .occupancy-calculator input, ' +
      '.occupancy-calculator select, .quiz-numeric input')) {
    add(el, 'line', style(el).borderTopColor);
    add(el, 'text', style(el).color, style(el).backgroundColor);
  }
  for (const host of all(document, 'div.mermaid')) {
    const root = host.shadowRoot;
    for (const el of all(root, '.nodeLabel, .edgeLabel p, .edgeLabel span')) if (el.textContent.trim()) add(el, 'text', style(el).color);
    for (const el of all(root, '.node rect, .node polygon, .node path, .flowchart-link')) add(el, 'line', style(el).stroke);
  }
  return out;
}"""

#: The smallest text drawn on the page: (what, px), with each drawing's scale applied, and the
#: body's small size (Material's <small>).
TEXT_SIZES_JS = """() => {
  const small = document.createElement('small');
  small.textContent = 'x';
  document.querySelector('.md-typeset').appendChild(small);
  const floor = parseFloat(getComputedStyle(small).fontSize);
  small.remove();
  const sizes = [];
  const scaleOf = (svg) => {
    const box = svg.viewBox && svg.viewBox.baseVal;
    return box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
  };
  for (const host of document.querySelectorAll('div.mermaid')) {
    const svg = host.shadowRoot.querySelector('svg');
    for (const label of host.shadowRoot.querySelectorAll('.nodeLabel, .edgeLabel p, .edgeLabel span, text')) {
      if (label.textContent.trim()) sizes.push(['mermaid ' + label.textContent.trim().slice(0, 20),
                                               parseFloat(getComputedStyle(label).fontSize) * scaleOf(svg)]);
    }
  }
  for (const text of document.querySelectorAll('.lab-figure svg text, .access-explorer svg text, .occupancy-calculator svg text')) {
    const where = text.closest('.lab-figure, .access-explorer, .occupancy-calculator').className.split(' ')[0];
    sizes.push([where + ' ' + text.textContent.slice(0, 20), parseFloat(getComputedStyle(text).fontSize) * scaleOf(text.ownerSVGElement)]);
  }
  return {floor, sizes};
}"""


def use_widgets(page) -> dict:
    """Use the page's widgets as a reader does, looking at each state: the drawings' text sizes
    (the explorer on shared memory, which draws the banks), then the colours of the widgets and
    diagrams and the text the scripts write, in the widgets' error states too (the explorer's
    message, the calculator's refusals and field messages, a quiz's feedback)."""
    colours, texts = [], []

    def look(*shown):
        colours.extend(page.evaluate(WIDGET_COLOURS_JS))
        texts.extend(widget.inner_text() for widget in shown)

    look()
    explorer, calculator = page.locator("div.access-explorer"), page.locator("div.occupancy-calculator")
    if calculator.count():
        calculator.scroll_into_view_if_needed()
    if explorer.count():
        explorer.locator("select >> nth=1").select_option("shared")
    text_sizes = page.evaluate(TEXT_SIZES_JS)
    if explorer.count():
        explorer.locator("input >> nth=0").fill("2.5")
        look(explorer)
        explorer.locator("input >> nth=0").fill("8")
        explorer.locator("select >> nth=1").select_option("shared")
        look(explorer)
    if calculator.count():
        texts.append(calculator.inner_text())
        for typed in ("2000", "1e3", "x"):
            calculator.locator('input[name="threads_per_block"]').fill(typed)
            look(calculator)
        calculator.locator('input[name="threads_per_block"]').fill("1024")
        calculator.locator('input[name="registers_per_thread"]').fill("255")
        look(calculator)
    answered = []
    for quiz in page.locator(".quiz").all()[:3]:
        option = quiz.locator("button.quiz-option")
        if option.count():
            option.first.click()
            answered.append(quiz.get_attribute("id"))
            texts.append(quiz.locator(".quiz-feedback").inner_text())
    choice = page.locator(".quiz[data-quiz-kind='choice']").first
    if choice.count() and choice.get_attribute("id") not in answered:
        choice.locator("button.quiz-option").first.click()
    look()
    unique = list({json.dumps(item, sort_keys=True): item for item in colours}.values())
    return {"text_sizes": text_sizes, "widget_colours": unique, "widget_texts": texts}


WIDE_TABLES_JS = """() => [...document.querySelectorAll('.lab-recorded > .md-typeset__scrollwrap')]
  .filter(box => box.scrollWidth > box.clientWidth + 1)
  .map(box => {
    const shown = (el) => { const r = el.getBoundingClientRect();
                            return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
    const x = (el) => el.getBoundingClientRect().x;
    const [first, second] = box.querySelector('tbody tr').querySelectorAll('td');
    const scroll = (left) => { box.scrollLeft = left; box.dispatchEvent(new Event('scroll')); };
    const hint = box.previousElementSibling;
    const table = {hint: Boolean(hint && hint.classList.contains('scroll-hint') && shown(hint)),
                   more_right: box.classList.contains('scrolls--more-right'), first: x(first), second: x(second)};
    scroll(400);
    Object.assign(table, {left: x(box), first_scrolled: x(first), second_scrolled: x(second)});
    scroll(box.scrollWidth);
    table.more_right_at_end = box.classList.contains('scrolls--more-right');
    scroll(0);
    return table;
  })"""


#: The page with every fold opened (a solution, a hint, an answer), as a curious reader leaves it:
#: how wide it is then, and each exercise solution as shown (a code block: pre > code with its
#: copy button, scrolling in its own box inside its fold, its text as in the file).
FOLDS_OPEN_JS = """async () => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const room = document.documentElement.clientWidth;
  const width = document.documentElement.scrollWidth;
  return {
    scroll_width_folds_open: width,
    sticking_out_folds_open: width <= room ? [] : [...document.querySelectorAll('article *')]
      .filter(e => e.getBoundingClientRect().right > room + 1)
      .filter(e => !e.parentElement.closest('[class*=scroll], pre, .highlight, .arithmatex, div.mermaid, figure'))
      .slice(0, 2).map(e => e.tagName + '.' + e.className),
    solutions: [...document.querySelectorAll('details[data-solution]')].map(fold => {
      const code = fold.querySelector('.highlight pre > code');
      const box = code || fold.querySelector('.highlight pre');
      return {id: fold.dataset.solution, code_block: Boolean(code),
              copy_button: Boolean(fold.querySelector('.highlight pre > .md-clipboard, .highlight .md-code__button')),
              inner_code: code ? code.querySelectorAll('code').length : null,
              scrolls: getComputedStyle(box).overflowX, background: getComputedStyle(box).backgroundColor,
              right: box.getBoundingClientRect().right, fold_right: fold.getBoundingClientRect().right,
              text: box.textContent};
    }),
  };
}"""

#: Chapter 5's profile tables (a metric's name, then its value), each scrolled to its end: the
#: narrowest part of a value cell left in view beside the sticky first column, and that cell's width.
CASE_TABLES_JS = """() => [...document.querySelectorAll('table[data-case]')].map(table => {
  let box = table.closest('.md-typeset__scrollwrap');   // the wrapper that scrolls (Material adds one inside)
  while (getComputedStyle(box).overflowX === 'visible' && box.parentElement.closest('.md-typeset__scrollwrap')) {
    box = box.parentElement.closest('.md-typeset__scrollwrap');
  }
  box.scrollLeft = box.scrollWidth;
  const edge = box.getBoundingClientRect();
  const shown = [...table.querySelectorAll('tr')].map(row => {
    const name = row.cells[0].getBoundingClientRect(), value = row.cells[1].getBoundingClientRect();
    return [Math.min(value.right, edge.right) - Math.max(value.left, name.right, edge.left), value.width];
  });
  box.scrollLeft = 0;
  return {table: table.dataset.case, least_shown: Math.min(...shown.map(([s]) => s)),
          of_width: shown.reduce((least, [s, w]) => (s < least[0] ? [s, w] : least), [Infinity, 0])[1]};
})"""


def visit(tab, watch: PageWatch, url: str, html: str) -> dict:
    """Load one page in a reader's tab, let it settle, look, use its widgets, scroll its wide lab
    tables (each: its hint shown, its first column's and second column's x before and after
    scrolling 400 px, whether it says there is more to the right before and at the end) and its
    profile tables, then open every fold and look again (FOLDS_OPEN_JS).

    ``unsettled`` says why the page did not settle (then nothing is looked at); ``errors`` are the
    console and page errors of the load, ``errors_in_use`` those while the widgets were used.
    """
    watch.errors.clear()
    watch.remote_requests.clear()
    seen = {}
    try:
        tab.goto(url, wait_until="load")
        settle(tab, diagrams_in(html))
    except PlaywrightTimeoutError as error:
        seen["unsettled"] = str(error).splitlines()[0]
    seen["errors"] = list(watch.errors)
    if "unsettled" not in seen:
        seen.update(tab.evaluate(LOOK_JS, MARKS))
        seen.update(use_widgets(tab))
        seen["wide_tables"] = tab.evaluate(WIDE_TABLES_JS)
        seen["case_tables"] = tab.evaluate(CASE_TABLES_JS)
        seen.update(tab.evaluate(FOLDS_OPEN_JS))
    seen["errors_in_use"] = watch.errors[len(seen["errors"]):]
    seen["remote_requests"] = list(watch.remote_requests)
    return seen


class Tour:
    """What each reader saw on each page, computed once per test run whatever the number of workers
    (one JSON file per reader and page in the run's shared folder, written under a lock)."""

    def __init__(self, folder: Path, site: Path, site_url: str, contexts):
        self.folder, self.site, self.site_url, self.contexts = folder, site, site_url, contexts
        self.tabs = {}  # reader -> (its tab, the tab's watch): one tab goes from page to page

    def _tab(self, reader: str):
        if reader not in self.tabs:
            tab = watched_tab(self.contexts[reader])
            tab.set_default_timeout(10_000)
            self.tabs[reader] = tab, tab.watch
        return self.tabs[reader]

    def _file(self, reader: str, rel: str) -> Path:
        name = re.sub(r"[^A-Za-z0-9]+", "-", rel).strip("-") or "home"
        return self.folder / reader.replace(" ", "-") / f"{name}.json"

    def _see(self, reader: str, rel: str, file: Path) -> None:
        html = (self.site / rel.lstrip("/") / "index.html").read_text(encoding="utf-8")
        seen = visit(*self._tab(reader), self.site_url + rel.lstrip("/"), html)
        partial = file.with_suffix(".part")
        partial.write_text(json.dumps(seen))
        partial.replace(file)

    def _take(self, reader: str, rel: str, wait: bool) -> bool:
        """See the page unless someone has; False when another worker is seeing it and ``wait`` is False."""
        file = self._file(reader, rel)
        if file.exists():
            return True
        file.parent.mkdir(parents=True, exist_ok=True)
        with open(file.with_suffix(".lock"), "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return False
            if not file.exists():
                self._see(reader, rel, file)
        return True

    def page(self, reader: str, rel: str) -> dict:
        """What ``reader`` saw on the page ``rel`` ("/", "zh/performance/"). While another worker is
        seeing it, this one sees pages nobody has taken yet instead of waiting idle: in a whole run
        each reader sees every page (test_site, test_palettes), so the work is not lost."""
        if not self._take(reader, rel, wait=False):
            for other in site_pages(self.site):
                if self._file(reader, rel).exists():
                    break
                self._take(reader, other, wait=False)
            self._take(reader, rel, wait=True)
        return json.loads(self._file(reader, rel).read_text())

    def pages(self, reader: str, rels: list[str]) -> dict[str, dict]:
        """What ``reader`` saw on each page; pages another worker is seeing are waited for last."""
        for rel in [rel for rel in rels if not self._take(reader, rel, wait=False)]:
            self._take(reader, rel, wait=True)
        return {rel: self.page(reader, rel) for rel in rels}


def load_problems(seen: dict[str, dict]) -> list[str]:
    """What went wrong while the pages loaded, one line each, naming the page."""
    problems = []
    for rel, page in seen.items():
        if "unsettled" in page:
            problems.append(f"{rel}: did not settle: {page['unsettled']}")
        problems += [f"{rel}: console error: {error}" for error in page["errors"]]
        problems += [f"{rel}: request left 127.0.0.1: {url}" for url in page["remote_requests"]]
    return problems
