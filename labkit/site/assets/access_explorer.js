// Chapter 2's access explorer: the analyzer of labkit/access.py, in the page, and a widget that
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

  // --- The analyzer (labkit.access.analyze) ------------------------------------------------

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

  const WORDS = {
    fr: {
      stride: "Pas (éléments)", width: "Largeur (octets)", offset: "Décalage (octets)", space: "Mémoire",
      op: "Accès", global: "globale", shared: "partagée", load: "lecture", store: "écriture",
      requests: "Requêtes", sectors: "Secteurs de 32 octets", sectorsPerRequest: "Secteurs par requête",
      lines: "Lignes de 128 octets", bytesUsed: "Octets utiles", bytesMoved: "Octets transférés",
      efficiency: "Efficacité", wavefronts: "Wavefronts", ideal: "Wavefronts sans conflit",
      conflicts: "Conflits de banc", lane: "lane", bank: "banc", line: "ligne", inactive: "inactive",
      lanesCaption: "Les 32 lanes du warp, colorées par le wavefront qui les sert",
      banksCaption: "Banc (colonne) servi à chaque wavefront (rangée) : le numéro de la lane servie",
      linesCaption: "Lignes de 128 octets touchées, 4 secteurs de 32 octets chacune : lanes par secteur",
    },
    zh: {
      stride: "步长（元素）", width: "宽度（字节）", offset: "偏移（字节）", space: "内存",
      op: "访问", global: "全局内存", shared: "共享内存", load: "读取", store: "写入",
      requests: "请求数", sectors: "32 字节扇区数", sectorsPerRequest: "每请求扇区数",
      lines: "128 字节缓存行数", bytesUsed: "有用字节", bytesMoved: "传输字节",
      efficiency: "效率", wavefronts: "wavefront 数", ideal: "无冲突时的 wavefront 数",
      conflicts: "bank 冲突", lane: "线程", bank: "bank", line: "缓存行", inactive: "未激活",
      lanesCaption: "warp 的 32 个线程，按服务它的 wavefront 着色",
      banksCaption: "每个 wavefront（行）中各 bank（列）服务的线程编号",
      linesCaption: "访问到的 128 字节缓存行，每行 4 个 32 字节扇区：各扇区中的线程数",
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

  function colour(index) {
    return index === null ? "#e0e0e0" : `hsl(${(index * 137.5) % 360}, 65%, 72%)`;
  }

  function svgElement(name, attributes, text) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function laneStrip(svg, colours, labelOf, top, t) {
    const size = 18;
    svg.appendChild(svgElement("text", { x: 0, y: top - 4, "font-size": 11 }, t.lanesCaption));
    for (let lane = 0; lane < WARP_LANES; lane++) {
      const cell = svgElement("rect", { x: lane * size, y: top, width: size - 2, height: size - 2, fill: colours[lane] });
      cell.appendChild(svgElement("title", {}, `${t.lane} ${lane}: ${labelOf(lane)}`));
      svg.appendChild(cell);
      svg.appendChild(svgElement("text", { x: lane * size + 8, y: top + 12, "font-size": 8, "text-anchor": "middle" }, lane));
    }
    return top + size + 8;
  }

  function drawShared(svg, access, counts, t) {
    const size = 18;
    let top = laneStrip(svg, counts.laneWavefronts.map(colour), (lane) =>
      counts.laneWavefronts[lane] === null ? t.inactive : `wavefront ${counts.laneWavefronts[lane]}`, 14, t);
    svg.appendChild(svgElement("text", { x: 0, y: top + 10, "font-size": 11 }, t.banksCaption));
    top += 16;
    for (let bank = 0; bank < BANKS; bank += 4) {
      svg.appendChild(svgElement("text", { x: bank * size + 8, y: top + 10, "font-size": 9, "text-anchor": "middle" }, bank));
    }
    top += 14;
    const served = new Map();
    access.addresses.forEach((address, lane) => {
      if (address === null) return;
      for (const word of wordsOf(address, access.widthBytes)) {
        const key = `${counts.laneWavefronts[lane]}:${word % BANKS}`;
        if (!served.has(key)) served.set(key, []);
        served.get(key).push(lane);
      }
    });
    for (let wavefront = 0; wavefront < counts.wavefronts; wavefront++) {
      for (let bank = 0; bank < BANKS; bank++) {
        const lanes = served.get(`${wavefront}:${bank}`);
        const cell = svgElement("rect", {
          x: bank * size, y: top + wavefront * size, width: size - 2, height: size - 2,
          fill: lanes ? colour(wavefront) : "none", stroke: "#bdbdbd", "stroke-width": 0.5,
        });
        if (lanes) cell.appendChild(svgElement("title", {}, `${t.bank} ${bank}, wavefront ${wavefront}: ${t.lane} ${lanes.join(", ")}`));
        svg.appendChild(cell);
        if (lanes) {
          svg.appendChild(svgElement("text", {
            x: bank * size + 8, y: top + wavefront * size + 12, "font-size": 8, "text-anchor": "middle",
          }, lanes.length > 1 ? `${lanes[0]}+` : lanes[0]));
        }
      }
    }
    return top + counts.wavefronts * size + 4;
  }

  function drawGlobal(svg, access, t) {
    const lineOf = (address) => Math.floor(address / LINE_BYTES);
    const lines = [...new Set(access.addresses.filter((a) => a !== null).map(lineOf))].sort((a, b) => a - b);
    const rowOfLine = new Map(lines.map((line, row) => [line, row]));
    let top = laneStrip(svg, access.addresses.map((a) => (a === null ? colour(null) : colour(rowOfLine.get(lineOf(a))))),
      (lane) => (access.addresses[lane] === null ? t.inactive : `${t.line} ${lineOf(access.addresses[lane])}`), 14, t);
    svg.appendChild(svgElement("text", { x: 0, y: top + 10, "font-size": 11 }, t.linesCaption));
    top += 18;
    const sectorWidth = 128;
    lines.forEach((line, row) => {
      const y = top + row * 20;
      svg.appendChild(svgElement("text", { x: 0, y: y + 13, "font-size": 9 }, `${t.line} ${line}`));
      for (let sector = 0; sector < LINE_BYTES / SECTOR_BYTES; sector++) {
        const first = line * LINE_BYTES + sector * SECTOR_BYTES;
        const lanes = access.addresses.filter((a) => a !== null && a >= first && a < first + SECTOR_BYTES).length;
        const x = 64 + sector * sectorWidth;
        svg.appendChild(svgElement("rect", {
          x, y, width: sectorWidth - 4, height: 16, fill: lanes ? colour(row) : "none", stroke: "#9e9e9e", "stroke-width": 0.5,
        }));
        if (lanes) svg.appendChild(svgElement("text", { x: x + sectorWidth / 2, y: y + 12, "font-size": 9, "text-anchor": "middle" }, lanes));
      }
    });
    return top + lines.length * 20 + 4;
  }


  function field(form, label, control) {
    const wrapper = document.createElement("label");
    wrapper.style.marginRight = "1em";
    wrapper.append(label + " ", control);
    form.appendChild(wrapper);
    return control;
  }

  function select(options, value) {
    const control = document.createElement("select");
    for (const [optionValue, text] of options) control.add(new Option(text, optionValue, false, optionValue === value));
    return control;
  }

  function number(value, min, max) {
    const control = document.createElement("input");
    Object.assign(control, { type: "number", value, min, max, step: 1 });
    control.style.width = "5em";
    return control;
  }

  function mount(root) {
    const lang = root.dataset.lang === "zh" ? "zh" : "fr";
    const t = WORDS[lang];
    root.textContent = "";
    const form = document.createElement("form");
    form.className = "access-explorer__controls";
    const stride = field(form, t.stride, number(1, 0, 64));
    const width = field(form, t.width, select([["4", "4"], ["8", "8"], ["16", "16"]], "4"));
    const offset = field(form, t.offset, number(0, 0, 4096));
    const space = field(form, t.space, select([["global", t.global], ["shared", t.shared]], "global"));
    const op = field(form, t.op, select([["load", t.load], ["store", t.store]], "load"));
    const figures = document.createElement("dl");
    figures.className = "access-explorer__figures";
    figures.style.cssText = "display: grid; grid-template-columns: max-content max-content; gap: 0.1em 1em;";
    const picture = document.createElement("div");
    picture.className = "access-explorer__picture";
    root.append(form, figures, picture);

    function update() {
      const widthBytes = Number(width.value);
      const strideElements = Math.max(0, Math.min(64, Math.floor(Number(stride.value) || 0)));
      const offsetBytes = Math.max(0, Math.floor((Number(offset.value) || 0) / widthBytes) * widthBytes);
      offset.step = widthBytes;
      stride.value = strideElements;
      offset.value = offsetBytes;
      const access = { addresses: strided(strideElements, widthBytes, offsetBytes), widthBytes, op: op.value, space: space.value };
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
      figures.textContent = "";
      for (const [name, value] of rows) {
        const term = document.createElement("dt");
        term.textContent = name;
        const definition = document.createElement("dd");
        definition.textContent = value;
        definition.style.cssText = "margin: 0; font-variant-numeric: tabular-nums;";
        figures.append(term, definition);
      }
      const svg = svgElement("svg", {
        role: "img", "font-family": "sans-serif", "aria-label": access.space === "global" ? t.linesCaption : t.banksCaption,
      });
      const height = access.space === "global" ? drawGlobal(svg, access, t) : drawShared(svg, access, counts, t);
      svg.setAttribute("viewBox", `0 0 ${Math.max(WARP_LANES * 18, 64 + 4 * 128)} ${height}`);
      svg.setAttribute("width", "100%");
      picture.textContent = "";
      picture.appendChild(svg);
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", (event) => event.preventDefault());
    update();
  }

  function mountAll() {
    document.querySelectorAll("div.access-explorer").forEach((root) => {
      if (root.dataset.ready) return;
      root.dataset.ready = "1";
      mount(root);
    });
  }

  window.labkitAccess = { analyze, strided, pairsShareAddresses, mount, WORDS };
  if (typeof document$ !== "undefined") document$.subscribe(mountAll);  // Material's page-load stream
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
