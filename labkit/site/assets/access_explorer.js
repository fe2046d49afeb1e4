// Chapter 2's access explorer: the analyzer of labkit/models/access.py, in the page, and a widget that
// mounts on every <div class="access-explorer" data-lang="fr|zh">. Same rules as the Python
// (its docstring gives them with their sources); tests/browser/test_access_explorer.py holds
// window.labkitAccess.analyze equal to it on a grid of cases. No build step, no request.
(function () {
  "use strict";

  const WARP_LANES = 32;
  const SECTOR_BYTES = 32;
  const LINE_BYTES = 128;
  const BANKS = 32;
  const BANK_BYTES = 4;
  const PHASE_BYTES = BANKS * BANK_BYTES;
  const WIDTHS_BYTES = [1, 2, 4, 8, 16];
  const SVG = "http://www.w3.org/2000/svg";

  // --- The analyzer (labkit.models.access.analyze) ------------------------------------------------

  function check(input) {
    const op = input.op === undefined ? "load" : input.op;
    const space = input.space === undefined ? "global" : input.space;
    const width = input.widthBytes;
    if (op !== "load" && op !== "store") throw new Error(`op must be 'load' or 'store', got '${op}'`);
    if (space !== "global" && space !== "shared") throw new Error(`space must be 'global' or 'shared', got '${space}'`);
    if (!WIDTHS_BYTES.includes(width)) throw new Error(`width_bytes must be one of 1, 2, 4, 8, 16, got ${width}`);
    if (!Array.isArray(input.addresses) || input.addresses.length !== WARP_LANES) {
      throw new Error(`a warp access needs ${WARP_LANES} lane addresses`);
    }
    input.addresses.forEach((address, lane) => {
      if (address === null) return;
      if (!Number.isInteger(address)) throw new Error(`lane ${lane} address must be an integer or None, got ${address}`);
      if (address < 0) throw new Error(`lane ${lane} address ${address} is negative`);
      if (address % width) throw new Error(`lane ${lane} address ${address} is not aligned to its ${width}-byte width`);
    });
    return { addresses: input.addresses, widthBytes: width, op, space };
  }

  // Lane n has lane n^1's address for all n, or lane n^2's, wherever both lanes are active.
  function pairsShareAddresses(addresses) {
    return [1, 2].some((k) => addresses.every((a, n) => a === null || addresses[n ^ k] === null || a === addresses[n ^ k]));
  }

  // The lane groups served together: 128 bytes of lane data each, doubled for paired loads.
  function sharedPhases(access) {
    let lanes = access.widthBytes <= BANK_BYTES ? WARP_LANES : PHASE_BYTES / access.widthBytes;
    if (lanes < WARP_LANES && access.op === "load" && pairsShareAddresses(access.addresses)) lanes *= 2;
    const phases = [];
    for (let start = 0; start < WARP_LANES; start += lanes) phases.push([start, start + lanes]);
    return phases;
  }

  function wordsOf(address, width) {
    const first = Math.floor(address / BANK_BYTES);
    const last = Math.floor((address + width - 1) / BANK_BYTES);
    const list = [];
    for (let word = first; word <= last; word++) list.push(word);
    return list;
  }

  // Wavefronts of one phase: the most distinct words one bank holds; a bank's k-th distinct
  // word (in lane order) goes out in the phase's k-th wavefront.
  function servePhase(access, [start, end], firstWavefront, laneWavefronts) {
    const wordsOfBank = new Map();
    for (let lane = start; lane < end; lane++) {
      const address = access.addresses[lane];
      if (address === null) continue;
      for (const word of wordsOf(address, access.widthBytes)) {
        const bank = word % BANKS;
        if (!wordsOfBank.has(bank)) wordsOfBank.set(bank, []);
        if (!wordsOfBank.get(bank).includes(word)) wordsOfBank.get(bank).push(word);
      }
    }
    for (let lane = start; lane < end; lane++) {
      const address = access.addresses[lane];
      if (address === null) continue;
      const word = Math.floor(address / BANK_BYTES);
      laneWavefronts[lane] = firstWavefront + wordsOfBank.get(word % BANKS).indexOf(word);
    }
    let depth = 0;
    for (const list of wordsOfBank.values()) depth = Math.max(depth, list.length);
    return depth;
  }

  function analyze(input) {
    const access = check(input);
    const active = access.addresses.filter((a) => a !== null);
    const bytes = new Set();
    for (const a of active) for (let k = 0; k < access.widthBytes; k++) bytes.add(a + k);
    const counts = {
      activeLanes: active.length, uniqueBytes: bytes.size, requests: 0, sectors: 0, lines: 0,
      wavefronts: 0, bankConflicts: 0, idealWavefronts: 0, laneWavefronts: new Array(WARP_LANES).fill(null),
    };
    if (access.space === "global") {
      counts.requests = active.length ? 1 : 0;
      counts.sectors = new Set(active.map((a) => Math.floor(a / SECTOR_BYTES))).size;
      counts.lines = new Set(active.map((a) => Math.floor(a / LINE_BYTES))).size;
      return counts;
    }
    for (const phase of sharedPhases(access)) {
      const depth = servePhase(access, phase, counts.wavefronts, counts.laneWavefronts);
      counts.wavefronts += depth;
      if (depth > 0) counts.idealWavefronts += 1;
    }
    counts.bankConflicts = counts.wavefronts - counts.idealWavefronts;
    return counts;
  }

  // Lane i at offset + i * stride * elementBytes; lanes from activeLanes on inactive.
  function strided(strideElements, elementBytes, offsetBytes = 0, activeLanes = WARP_LANES) {
    return Array.from({ length: WARP_LANES }, (_, lane) =>
      lane < activeLanes ? offsetBytes + lane * strideElements * elementBytes : null);
  }

  // --- The widget ---------------------------------------------------------------------------

  // French strings follow French typography (no-break space before ":" and "?", ’).
  const WORDS = {
    fr: {
      stride: "Pas (éléments)", width: "Largeur (octets)", offset: "Décalage (octets)", space: "Mémoire",
      op: "Accès", global: "globale", shared: "partagée", load: "lecture", store: "écriture",
      requests: "Requêtes", sectors: "Secteurs de 32\u202foctets", sectorsPerRequest: "Secteurs par requête",
      lines: "Lignes de 128\u202foctets", bytesUsed: "Octets utiles", bytesMoved: "Octets transférés",
      efficiency: "Efficacité", wavefronts: "Wavefronts", ideal: "Wavefronts sans conflit",
      conflicts: "Conflits de banc", lane: "lane", bank: "banc", line: "ligne", inactive: "inactive",
      lanesCaptionShared: "Les 32\u202flanes du warp, colorées par la wavefront qui les sert.",
      lanesCaptionGlobal: "Les 32\u202flanes du warp, colorées par la ligne de 128\u202foctets qu’elles touchent.",
      banksCaption: "Banc (colonne) servi à chaque wavefront (rangée)\u00a0: le numéro de la lane servie\u00a0; " +
        "un coin noirci\u00a0: plusieurs lanes lisent ce mot.",
      linesCaption: "Lignes de 128\u202foctets touchées, 4\u202fsecteurs de 32\u202foctets chacune\u00a0: lanes par secteur.",
      empty: "Entrez un nombre.", whole: "Un nombre entier est attendu, écrit en chiffres.",
      range: (min, max) => `Entre ${formatNumber(min, 0, "fr")} et ${formatNumber(max, 0, "fr")}.`,
      aligned: (width) => `Un multiple de ${width} est attendu (la largeur d’un accès).`,
      stale: "Corrigez la valeur en rouge pour voir les chiffres.",
    },
    zh: {
      stride: "步长（元素）", width: "宽度（字节）", offset: "偏移（字节）", space: "内存",
      op: "访问", global: "全局内存", shared: "shared memory", load: "读取", store: "写入",
      requests: "请求数", sectors: "32 字节 sector 数", sectorsPerRequest: "每请求 sector 数",
      lines: "128 字节缓存行数", bytesUsed: "有用字节", bytesMoved: "传输字节",
      efficiency: "效率", wavefronts: "wavefront 数", ideal: "无冲突时的 wavefront 数",
      conflicts: "bank 冲突", lane: "lane", bank: "bank", line: "缓存行", inactive: "未激活",
      lanesCaptionShared: "warp 的 32 个 lane，按服务它的 wavefront 着色。",
      lanesCaptionGlobal: "warp 的 32 个 lane，按它访问的 128 字节缓存行着色。",
      banksCaption: "每个 wavefront（行）中各 bank（列）服务的 lane 编号；涂黑的角：多个 lane 读同一个字。",
      linesCaption: "访问到的 128 字节缓存行，每行 4 个 32 字节 sector：各 sector 中的 lane 数。",
      empty: "请输入一个数。", whole: "请输入整数，只用数字。",
      range: (min, max) => `应在 ${min} 到 ${max} 之间。`,
      aligned: (width) => `应为 ${width} 的倍数（一次访问的宽度）。`,
      stale: "请先改正红色的值，再看结果。",
    },
  };

  // French: decimal comma, narrow no-break space between thousands and before %; Chinese: 2,900.
  function formatNumber(value, decimals, lang) {
    const text = value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return lang === "fr" ? text.replace(/,/g, "\u202f").replace(".", ",") : text;
  }

  function formatPercent(value, lang) {
    return formatNumber(value, 0, lang) + (lang === "fr" ? "\u202f%" : "%");
  }

  // A whole number typed in a field, as typed: {value} or {problem} (the message's key). Only
  // digits are a number: "2.5", "1e1", "-8", "12abc" are refused, never rounded or cut; digits
  // grouped as the page prints them (4 096, Chinese 4,096) and full-width digits are read
  // (labkitTypedNumbers.wholeDigits, typed_numbers.js).
  function readWhole(text, min, max, t, lang) {
    const typed = window.labkitTypedNumbers.wholeDigits(text, lang);
    if (typed === "") return { problem: t.empty };
    if (/^[-\u2212]\d+$/.test(typed)) return { problem: t.range(min, max) };
    if (!/^\d+$/.test(typed)) return { problem: t.whole };
    const value = Number(typed);
    if (value < min || value > max) return { problem: t.range(min, max) };
    return { value };
  }

  // Cell fills: one hue per wavefront (or line); text on a cell is dark on every palette.
  function colour(index) {
    return index === null ? "#d6d6d6" : `hsl(${(index * 137.5) % 360}, 65%, 72%)`;
  }

  function svgElement(name, attributes, text) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    return element;
  }

  // Sizes of the drawing, in CSS pixels (it is drawn at its natural size, never shrunk): text at
  // the body's small size (0.8rem of Material's 16 px body) in cells wide enough for two digits.
  const CELL = 20;
  const FONT = 13;
  const LINE_LABEL = 78;

  function cell(svg, x, y, fill, label, title) {
    const rect = svgElement("rect", { x, y, width: CELL - 2, height: CELL - 2, fill, class: "explorer-cell" });
    if (title) rect.appendChild(svgElement("title", {}, title));
    svg.appendChild(rect);
    if (label !== undefined) {
      svg.appendChild(svgElement("text", {
        x: x + (CELL - 2) / 2, y: y + CELL - 6, "font-size": FONT, "text-anchor": "middle", class: "explorer-on-cell",
      }, label));
    }
  }

  // The 32 lanes in rows of `columns`; returns the height used.
  function laneStrip(svg, colours, labelOf, columns, t) {
    for (let lane = 0; lane < WARP_LANES; lane++) {
      const x = (lane % columns) * CELL, y = Math.floor(lane / columns) * CELL;
      cell(svg, x, y, colours[lane], lane, `${t.lane} ${lane}: ${labelOf(lane)}`);
    }
    return (WARP_LANES / columns) * CELL;
  }

  function bankGrid(svg, access, counts, columns, t) {
    const served = new Map();
    access.addresses.forEach((address, lane) => {
      if (address === null) return;
      for (const word of wordsOf(address, access.widthBytes)) {
        const key = `${counts.laneWavefronts[lane]}:${word % BANKS}`;
        if (!served.has(key)) served.set(key, []);
        served.get(key).push(lane);
      }
    });
    let top = 0;
    for (let first = 0; first < BANKS; first += columns) {   // banks in groups of `columns`
      for (let bank = first; bank < first + columns; bank += 4) {
        svg.appendChild(svgElement("text", {
          x: (bank - first) * CELL + (CELL - 2) / 2, y: top + FONT, "font-size": FONT, "text-anchor": "middle",
          class: "explorer-text",
        }, bank));
      }
      top += FONT + 6;
      for (let wavefront = 0; wavefront < counts.wavefronts; wavefront++) {
        for (let bank = first; bank < first + columns; bank++) {
          const lanes = served.get(`${wavefront}:${bank}`);
          const x = (bank - first) * CELL, y = top + wavefront * CELL;
          if (!lanes) {
            svg.appendChild(svgElement("rect", { x, y, width: CELL - 2, height: CELL - 2, fill: "none", class: "explorer-cell" }));
            continue;
          }
          cell(svg, x, y, colour(wavefront), lanes[0],
            `${t.bank} ${bank}, wavefront ${wavefront}: ${t.lane} ${lanes.join(", ")}`);
          if (lanes.length > 1) {   // several lanes read this word: the corner is darkened
            svg.appendChild(svgElement("path", { d: `M${x + CELL - 8},${y} h6 v6 z`, class: "explorer-shared-mark" }));
          }
        }
      }
      top += counts.wavefronts * CELL + 8;
    }
    return top;
  }

  function linesDrawing(svg, access, width, t) {
    const lineOf = (address) => Math.floor(address / LINE_BYTES);
    const lines = [...new Set(access.addresses.filter((a) => a !== null).map(lineOf))].sort((a, b) => a - b);
    const sectorWidth = Math.max(CELL * 2, Math.min(128, Math.floor((width - LINE_LABEL) / 4)));
    lines.forEach((line, row) => {
      const y = row * (CELL + 4);
      svg.appendChild(svgElement("text", { x: 0, y: y + CELL - 6, "font-size": FONT, class: "explorer-text" },
        `${t.line} ${line}`));
      for (let sector = 0; sector < LINE_BYTES / SECTOR_BYTES; sector++) {
        const first = line * LINE_BYTES + sector * SECTOR_BYTES;
        const lanes = access.addresses.filter((a) => a !== null && a >= first && a < first + SECTOR_BYTES).length;
        const x = LINE_LABEL + sector * sectorWidth;
        svg.appendChild(svgElement("rect", {
          x, y, width: sectorWidth - 4, height: CELL - 2, fill: lanes ? colour(row) : "none", class: "explorer-cell",
        }));
        if (lanes) {
          svg.appendChild(svgElement("text", {
            x: x + (sectorWidth - 4) / 2, y: y + CELL - 6, "font-size": FONT, "text-anchor": "middle",
            class: "explorer-on-cell",
          }, lanes));
        }
      }
    });
    return { width: LINE_LABEL + 4 * sectorWidth, height: lines.length * (CELL + 4) };
  }

  // One picture: its caption (HTML, so that it wraps) above an SVG drawn at its natural size.
  function picture(caption, draw) {
    const figure = document.createElement("figure");
    figure.className = "access-explorer__drawing";
    const text = document.createElement("figcaption");
    text.textContent = caption;
    const svg = svgElement("svg", { role: "img", "aria-label": caption, "font-family": "sans-serif" });
    const { width, height } = draw(svg);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    figure.append(text, svg);
    return figure;
  }

  function field(form, label, control, messageId) {
    const wrapper = document.createElement("label");
    wrapper.className = "access-explorer__field";
    const message = document.createElement("span");
    message.className = "access-explorer__message";
    message.id = messageId;
    message.setAttribute("role", "alert");
    wrapper.append(label + " ", control, message);
    control.setAttribute("aria-describedby", messageId);
    form.appendChild(wrapper);
    return control;
  }

  function select(options, value) {
    const control = document.createElement("select");
    for (const [optionValue, text] of options) control.add(new Option(text, optionValue, false, optionValue === value));
    return control;
  }

  // A text field for a whole number: what is typed stays as typed (a number input would let the
  // browser drop or reinterpret characters such as "1e1" or "2.").
  function number(value) {
    const control = document.createElement("input");
    Object.assign(control, { type: "text", value: String(value), inputMode: "numeric", autocomplete: "off",
      spellcheck: false });
    control.size = 5;
    return control;
  }

  let mounted = 0;

  function mount(root) {
    const lang = root.dataset.lang === "zh" ? "zh" : "fr";
    const t = WORDS[lang];
    const id = `access-explorer-${mounted++}`;
    root.textContent = "";
    const form = document.createElement("form");
    form.className = "access-explorer__controls";
    const stride = field(form, t.stride, number(1), `${id}-stride`);
    const width = field(form, t.width, select([["4", "4"], ["8", "8"], ["16", "16"]], "4"), `${id}-width`);
    const offset = field(form, t.offset, number(0), `${id}-offset`);
    const space = field(form, t.space, select([["global", t.global], ["shared", t.shared]], "global"), `${id}-space`);
    const op = field(form, t.op, select([["load", t.load], ["store", t.store]], "load"), `${id}-op`);
    const figures = document.createElement("dl");
    figures.className = "access-explorer__figures";
    const pictures = document.createElement("div");
    pictures.className = "access-explorer__picture";
    root.append(form, figures, pictures);

    function show(control, problem) {
      const message = document.getElementById(control.getAttribute("aria-describedby"));
      message.textContent = problem || "";
      if (problem) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }

    function update() {
      const widthBytes = Number(width.value);
      const strideRead = readWhole(stride.value, 0, 64, t, lang);
      let offsetRead = readWhole(offset.value, 0, 4096, t, lang);
      if (offsetRead.problem === undefined && offsetRead.value % widthBytes) offsetRead = { problem: t.aligned(widthBytes) };
      show(stride, strideRead.problem);
      show(offset, offsetRead.problem);
      figures.textContent = "";
      pictures.textContent = "";
      if (strideRead.problem || offsetRead.problem) {   // no figures for a value the field does not show
        const stale = document.createElement("p");
        stale.className = "access-explorer__stale";
        stale.textContent = t.stale;
        pictures.appendChild(stale);
        return;
      }
      const access = { addresses: strided(strideRead.value, widthBytes, offsetRead.value), widthBytes,
        op: op.value, space: space.value };
      const counts = analyze(access);
      const rows = access.space === "global" ? [
        [t.requests, formatNumber(counts.requests, 0, lang)],
        [t.sectors, formatNumber(counts.sectors, 0, lang)],
        [t.sectorsPerRequest, formatNumber(counts.sectors / counts.requests, 1, lang)],
        [t.lines, formatNumber(counts.lines, 0, lang)],
        [t.bytesUsed, formatNumber(counts.uniqueBytes, 0, lang)],
        [t.bytesMoved, formatNumber(counts.sectors * SECTOR_BYTES, 0, lang)],
        [t.efficiency, formatPercent(100 * counts.uniqueBytes / (counts.sectors * SECTOR_BYTES), lang)],
      ] : [
        [t.wavefronts, formatNumber(counts.wavefronts, 0, lang)],
        [t.ideal, formatNumber(counts.idealWavefronts, 0, lang)],
        [t.conflicts, formatNumber(counts.bankConflicts, 0, lang)],
        [t.bytesUsed, formatNumber(counts.uniqueBytes, 0, lang)],
      ];
      for (const [name, value] of rows) {
        const term = document.createElement("dt");
        term.textContent = name;
        const definition = document.createElement("dd");
        definition.textContent = value;
        figures.append(term, definition);
      }
      // As many cells in a row as the column holds: 32, or 16 (or 8) on a phone.
      const room = pictures.clientWidth || root.clientWidth || 640;
      const columns = [32, 16, 8].find((n) => n * CELL <= room) || 8;
      if (access.space === "global") {
        const lineOf = (address) => Math.floor(address / LINE_BYTES);
        const lines = [...new Set(access.addresses.filter((a) => a !== null).map(lineOf))].sort((a, b) => a - b);
        const rowOfLine = new Map(lines.map((line, row) => [line, row]));
        pictures.append(
          picture(t.lanesCaptionGlobal, (svg) => ({
            width: columns * CELL,
            height: laneStrip(svg, access.addresses.map((a) => (a === null ? colour(null) : colour(rowOfLine.get(lineOf(a))))),
              (lane) => (access.addresses[lane] === null ? t.inactive : `${t.line} ${lineOf(access.addresses[lane])}`), columns, t),
          })),
          picture(t.linesCaption, (svg) => linesDrawing(svg, access, room, t)));
      } else {
        pictures.append(
          picture(t.lanesCaptionShared, (svg) => ({
            width: columns * CELL,
            height: laneStrip(svg, counts.laneWavefronts.map(colour), (lane) =>
              counts.laneWavefronts[lane] === null ? t.inactive : `wavefront ${counts.laneWavefronts[lane]}`, columns, t),
          })),
          picture(t.banksCaption, (svg) => ({ width: columns * CELL, height: bankGrid(svg, access, counts, columns, t) })));
      }
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", (event) => event.preventDefault());
    let columnWidth = root.clientWidth;
    window.addEventListener("resize", () => {   // a phone turned sideways: redraw for the new width
      if (root.clientWidth !== columnWidth) { columnWidth = root.clientWidth; update(); }
    });
    update();
  }

  function mountAll() {
    document.querySelectorAll("div.access-explorer").forEach((root) => {
      if (root.dataset.ready) return;
      root.dataset.ready = "1";
      mount(root);
    });
  }

  window.labkitAccess = { analyze, strided, pairsShareAddresses, mount, readWhole, WORDS };
  if (typeof document$ !== "undefined") document$.subscribe(mountAll);  // Material's page-load stream
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
