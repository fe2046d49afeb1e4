// The course's page behaviour that is not a widget: every Mermaid diagram readable at its
// default size, and wide tables and drawings that say there is more to the right.
(function () {
  "use strict";

  // --- Mermaid: drawn at its natural size (16 px text), never shrunk below the body's small size.
  // Material initialises Mermaid itself (with its theme); every diagram it draws here keeps its
  // natural width (useMaxWidth: false) instead of being shrunk to the column. A diagram a little
  // wider than its column is zoomed down to fit, to no less than SMALLEST (16 px x 0.8 = 12.8 px,
  // Material's small text); a wider one keeps that size and scrolls sideways in its own box.
  const SMALLEST = 0.8;
  if (window.mermaid && typeof window.mermaid.initialize === "function") {
    const initialize = window.mermaid.initialize.bind(window.mermaid);
    window.mermaid.initialize = (config) => initialize({
      ...config, flowchart: { ...(config && config.flowchart), useMaxWidth: false },
    });
  }

  function fitDiagram(host) {
    host.style.zoom = "";
    const natural = host.scrollWidth;
    const room = host.parentElement ? host.parentElement.clientWidth : host.clientWidth;
    if (!natural || !room) return;
    const zoom = Math.max(SMALLEST, Math.min(1, Math.floor((room / natural) * 1000) / 1000));
    if (zoom < 1) host.style.zoom = String(zoom);
    markOverflow(host);
  }

  // --- Anything that scrolls sideways says so: a line above it in the page's language, and its
  // edge fades on the side that has more (classes scrolls, scrolls--more-left, scrolls--more-right).
  const HINTS = {
    fr: "Plus large que la page\u00a0: faites défiler vers la droite \u2192",
    zh: "内容比页面宽：请向右滚动 \u2192",
  };

  // Where a box's hint goes: above it; above its whole code block for a code box (inside the
  // <pre>, the line would not wrap and would widen the page).
  function hintPlace(box) {
    return box.tagName === "CODE" ? box.closest(".highlight") || box.parentElement : box;
  }

  function hintFor(box) {
    const place = hintPlace(box);
    const previous = place.previousElementSibling;
    if (previous && previous.classList.contains("scroll-hint")) return previous;
    const hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.setAttribute("aria-hidden", "true");
    hint.textContent = HINTS[document.documentElement.lang === "zh" ? "zh" : "fr"];
    place.before(hint);
    return hint;
  }

  function markOverflow(box) {
    const more = box.scrollWidth - box.clientWidth > 1;
    box.classList.toggle("scrolls", more);
    box.classList.toggle("scrolls--more-left", more && box.scrollLeft > 1);
    box.classList.toggle("scrolls--more-right", more && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
    if (more || hintPlace(box).previousElementSibling?.classList.contains("scroll-hint")) hintFor(box).hidden = !more;
  }

  const SCROLLERS = ".md-typeset__scrollwrap, .access-explorer__drawing, div.mermaid, figure.lab-figure, " +
    ".exercise pre > code";

  function watch(root) {
    root.querySelectorAll(SCROLLERS).forEach((box) => {
      // Material wraps every table again, inside the wrapper the build wrote: the outer one scrolls
      if (box.dataset.scrollWatched || box.parentElement.closest(".md-typeset__scrollwrap")) return;
      box.dataset.scrollWatched = "1";
      box.addEventListener("scroll", () => markOverflow(box), { passive: true });
      markOverflow(box);
    });
    root.querySelectorAll("div.mermaid").forEach(fitDiagram);
  }

  function refresh() { watch(document); }

  // Mermaid diagrams arrive after the page (Material draws them asynchronously), and the widgets
  // redraw: look again whenever the article changes, and when the window is resized.
  let pending = false;
  const observer = new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; refresh(); });
  });

  function start() {
    const article = document.querySelector("article") || document.body;
    observer.observe(article, { childList: true, subtree: true });
    refresh();
  }

  // A fold opened shows what it holds (a solution's code): measure it then.
  document.addEventListener("toggle", () => requestAnimationFrame(() => {
    document.querySelectorAll(SCROLLERS).forEach((box) => box.dataset.scrollWatched && markOverflow(box));
  }), true);
  window.addEventListener("resize", () => {
    document.querySelectorAll(SCROLLERS).forEach((box) => box.dataset.scrollWatched && markOverflow(box));
    document.querySelectorAll("div.mermaid").forEach(fitDiagram);
  });
  if (typeof document$ !== "undefined") document$.subscribe(start);   // Material: every page view
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  window.labkitCourse = { refresh };
})();
