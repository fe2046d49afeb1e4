// Chapter 3's occupancy calculator: labkit/occupancy.py in JavaScript (same rules, same names,
// same messages; tests/browser/test_occupancy_calculator.py holds the two equal on a grid of
// cases), and a widget that mounts on <div class="occupancy-calculator" data-lang="fr|zh">.
// Pure page code: it asks nothing of the network. The rules and their sources (cuda_occupancy.h,
// the CUDA C++ Programming Guide) are documented in labkit/occupancy.py.
(function () {
  "use strict";

  const KIB = 1024;

  // Integer division of non-negative integers, exact (no floating-point quotient involved).
  function floorDiv(a, b) { return (a - (a % b)) / b; }
  function ceilDiv(a, b) { return floorDiv(a + b - 1, b); }
  function roundUp(value, unit) { return ceilDiv(value, unit) * unit; }

  // labkit.occupancy._architecture: what 7.0 to 9.0 share, with what differs passed in.
  function architecture(cc, name, d) {
    return {
      compute_capability: cc, name: name, warp_size: 32, max_threads_per_block: 1024,
      max_threads_per_sm: d.threadsPerSm, max_blocks_per_sm: d.blocksPerSm,
      registers_per_sm: 65536, max_registers_per_block: 65536, max_registers_per_thread: 255,
      register_allocation_unit: 256, sm_sub_partitions: 4,
      shared_bytes_per_sm: Math.max(...d.carveoutsKib) * KIB,
      shared_carveouts_bytes: d.carveoutsKib.map((kib) => kib * KIB),
      shared_allocation_unit_bytes: d.allocationUnitBytes, reserved_shared_bytes_per_block: d.reservedBytes,
      max_shared_bytes_per_block: 48 * KIB, max_shared_bytes_per_block_optin: d.optinKib * KIB,
    };
  }

  // labkit.occupancy.ARCHITECTURES, keyed by label ("9.0").
  const ARCHITECTURES = {
    "7.0": architecture([7, 0], "Volta (V100)", { threadsPerSm: 2048, blocksPerSm: 32,
      carveoutsKib: [0, 8, 16, 32, 64, 96], optinKib: 96, allocationUnitBytes: 256, reservedBytes: 0 }),
    "7.5": architecture([7, 5], "Turing (T4, RTX 20)", { threadsPerSm: 1024, blocksPerSm: 16,
      carveoutsKib: [32, 64], optinKib: 64, allocationUnitBytes: 256, reservedBytes: 0 }),
    "8.0": architecture([8, 0], "Ampere (A100)", { threadsPerSm: 2048, blocksPerSm: 32,
      carveoutsKib: [0, 8, 16, 32, 64, 100, 132, 164], optinKib: 163, allocationUnitBytes: 128, reservedBytes: KIB }),
    "8.6": architecture([8, 6], "Ampere (A10, RTX 30)", { threadsPerSm: 1536, blocksPerSm: 16,
      carveoutsKib: [0, 8, 16, 32, 64, 100], optinKib: 99, allocationUnitBytes: 128, reservedBytes: KIB }),
    "8.9": architecture([8, 9], "Ada (L4, L40S, RTX 40)", { threadsPerSm: 1536, blocksPerSm: 24,
      carveoutsKib: [0, 8, 16, 32, 64, 100], optinKib: 99, allocationUnitBytes: 128, reservedBytes: KIB }),
    "9.0": architecture([9, 0], "Hopper (H100, H200)", { threadsPerSm: 2048, blocksPerSm: 32,
      carveoutsKib: [0, 8, 16, 32, 64, 100, 132, 164, 196, 228], optinKib: 227, allocationUnitBytes: 128,
      reservedBytes: KIB }),
  };
  const DEFAULT_CC = "9.0";
  const LIMITERS = ["warps", "registers", "shared_memory", "blocks"];

  function label(arch) { return arch.compute_capability.join("."); }
  function maxWarpsPerSm(arch) { return floorDiv(arch.max_threads_per_sm, arch.warp_size); }

  // Python's f"{bytes_ / 1024:.1f}": tenths rounded half to even.
  function kib(bytes) {
    const scaled = bytes * 10;
    let tenths = floorDiv(scaled, KIB);
    const rest = scaled % KIB;
    if (2 * rest > KIB || (2 * rest === KIB && tenths % 2 === 1)) tenths += 1;
    return `${bytes} bytes (${floorDiv(tenths, 10)}.${tenths % 10} KiB)`;
  }

  function launchOf(input) {
    return {
      threads_per_block: input.threads_per_block,
      registers_per_thread: input.registers_per_thread,
      static_shared_bytes: input.static_shared_bytes ?? 0,
      dynamic_shared_bytes: input.dynamic_shared_bytes ?? 0,
      max_dynamic_shared_bytes: input.max_dynamic_shared_bytes ?? null,
      carveout_percent: input.carveout_percent ?? null,
    };
  }

  function architectureOf(input) {
    const cc = input.compute_capability ?? DEFAULT_CC;
    const arch = ARCHITECTURES[cc];
    if (!arch) {
      throw new Error(`compute capability ${cc}: the occupancy calculator knows ${Object.keys(ARCHITECTURES).join(", ")}`);
    }
    return arch;
  }

  // labkit.occupancy.check: the same refusals, the same one-line messages.
  function check(launch, arch) {
    const cc = label(arch);
    const threads = launch.threads_per_block;
    if (threads < 1) throw new Error(`threads per block: ${threads} requested, at least 1 is needed`);
    if (threads > arch.max_threads_per_block) {
      throw new Error(`threads per block: ${threads} requested, compute capability ${cc} allows at most ${arch.max_threads_per_block}`);
    }
    const registers = launch.registers_per_thread;
    if (!(registers >= 0 && registers <= arch.max_registers_per_thread)) {
      throw new Error(`registers per thread: ${registers} requested, compute capability ${cc} allows 0 to ${arch.max_registers_per_thread}`);
    }
    for (const [what, bytes] of [["static", launch.static_shared_bytes], ["dynamic", launch.dynamic_shared_bytes]]) {
      if (bytes < 0) throw new Error(`${what} shared memory per block: ${bytes} bytes requested, cannot be negative`);
    }
    if (launch.static_shared_bytes > arch.max_shared_bytes_per_block) {
      throw new Error(`static shared memory per block: ${kib(launch.static_shared_bytes)} requested, at most ` +
        `${kib(arch.max_shared_bytes_per_block)} can be static (use dynamic shared memory beyond)`);
    }
    const total = launch.static_shared_bytes + launch.dynamic_shared_bytes;
    if (total > arch.max_shared_bytes_per_block_optin) {
      throw new Error(`shared memory per block: ${kib(total)} requested (static + dynamic), compute capability ${cc} ` +
        `allows at most ${kib(arch.max_shared_bytes_per_block_optin)} (opt-in)`);
    }
    const attribute = launch.max_dynamic_shared_bytes;
    const attributeLimit = arch.max_shared_bytes_per_block_optin - launch.static_shared_bytes;
    if (attribute !== null && !(attribute >= 0 && attribute <= attributeLimit)) {
      throw new Error(`max dynamic shared memory attribute: ${attribute} bytes requested, compute capability ${cc} ` +
        `allows 0 to ${attributeLimit} bytes (opt-in minus ${launch.static_shared_bytes} static)`);
    }
    const carveout = launch.carveout_percent;
    if (carveout !== null && !(carveout >= 0 && carveout <= 100)) {
      throw new Error(`shared memory carve-out: ${carveout} % requested, a percentage from 0 to 100 (or None: no preference)`);
    }
  }

  function registersPerWarp(registers, arch) {
    return roundUp(registers * arch.warp_size, arch.register_allocation_unit);
  }

  function blocksByRegisters(warpsPerBlock, perWarp, arch) {
    if (perWarp === 0) return null;
    if (perWarp * roundUp(warpsPerBlock, arch.sm_sub_partitions) > arch.max_registers_per_block) return 0;
    const warpsPerSubPartition = floorDiv(floorDiv(arch.registers_per_sm, arch.sm_sub_partitions), perWarp);
    return floorDiv(warpsPerSubPartition * arch.sm_sub_partitions, warpsPerBlock);
  }

  function sharedBytesPerBlock(launch, arch) {
    const total = launch.static_shared_bytes + launch.dynamic_shared_bytes + arch.reserved_shared_bytes_per_block;
    return roundUp(total, arch.shared_allocation_unit_bytes);
  }

  function carveoutBytes(bytes, arch) {
    return Math.min(...arch.shared_carveouts_bytes.filter((c) => c >= bytes));
  }

  function sharedBytesPerSm(blockBytes, carveoutPercent, arch) {
    let preferred = carveoutPercent === null ? arch.shared_bytes_per_sm
      : floorDiv(carveoutPercent * arch.shared_bytes_per_sm, 100);
    preferred = carveoutBytes(preferred, arch);
    return preferred >= blockBytes ? preferred : carveoutBytes(blockBytes, arch);
  }

  function blocksBySharedMemory(launch, blockBytes, smBytes) {
    if (launch.max_dynamic_shared_bytes !== null && launch.dynamic_shared_bytes > launch.max_dynamic_shared_bytes) return 0;
    if (blockBytes === 0) return null;
    return floorDiv(smBytes, blockBytes);
  }

  // labkit.occupancy.calculate: input is a KernelLaunch's fields plus compute_capability ("9.0").
  function calculate(input) {
    const arch = architectureOf(input);
    const launch = launchOf(input);
    check(launch, arch);
    const warpsPerBlock = ceilDiv(launch.threads_per_block, arch.warp_size);
    const perWarp = registersPerWarp(launch.registers_per_thread, arch);
    const blockBytes = sharedBytesPerBlock(launch, arch);
    const smBytes = sharedBytesPerSm(blockBytes, launch.carveout_percent, arch);
    const maxWarps = maxWarpsPerSm(arch);
    const limits = {
      warps: floorDiv(maxWarps, warpsPerBlock),
      registers: blocksByRegisters(warpsPerBlock, perWarp, arch),
      shared_memory: blocksBySharedMemory(launch, blockBytes, smBytes),
      blocks: arch.max_blocks_per_sm,
    };
    const blocks = Math.min(...LIMITERS.map((name) => limits[name]).filter((n) => n !== null));
    const activeWarps = blocks * warpsPerBlock;
    return {
      blocks_per_sm: blocks,
      warps_per_block: warpsPerBlock,
      active_warps_per_sm: activeWarps,
      max_warps_per_sm: maxWarps,
      occupancy: activeWarps / maxWarps,
      limiters: LIMITERS.filter((name) => limits[name] === blocks),
      limits: limits,
      registers_per_block: perWarp * warpsPerBlock,
      shared_bytes_per_block: blockBytes,
      shared_bytes_per_sm: smBytes,
    };
  }

  function range(start, stop, step) {
    const values = [];
    for (let x = start; x < stop; x += step) values.push(x);
    return values;
  }

  function chart(input, xName, xs, vary, currentX) {
    return {
      x_name: xName,
      points: xs.map((x) => [x, calculate(vary(x)).occupancy]),
      current: [currentX, calculate(input).occupancy],
    };
  }

  // labkit.occupancy.block_size_chart, registers_chart and shared_memory_chart.
  function blockSizeChart(input) {
    const arch = architectureOf(input);
    return chart(input, "threads_per_block", range(arch.warp_size, arch.max_threads_per_block + 1, arch.warp_size),
      (x) => ({ ...input, threads_per_block: x }), input.threads_per_block);
  }

  function registersChart(input) {
    const arch = architectureOf(input);
    const step = floorDiv(arch.register_allocation_unit, arch.warp_size);
    const xs = [...range(step, arch.max_registers_per_thread, step), arch.max_registers_per_thread];
    return chart(input, "registers_per_thread", xs, (x) => ({ ...input, registers_per_thread: x }),
      input.registers_per_thread);
  }

  function sharedMemoryChart(input) {
    const arch = architectureOf(input);
    const launch = launchOf(input);
    return chart(input, "shared_bytes_per_block", range(0, arch.max_shared_bytes_per_block_optin + 1, KIB),
      (x) => ({ ...input, static_shared_bytes: 0, dynamic_shared_bytes: x, max_dynamic_shared_bytes: null }),
      launch.static_shared_bytes + launch.dynamic_shared_bytes);
  }

  // --- the widget -------------------------------------------------------------------------------

  // Every word the widget shows, in both languages (same keys).
  const WORDS = {
    fr: {
      title: "Calculateur d'occupation", architecture: "Architecture (capacité de calcul)",
      threads: "Threads par bloc", registers: "Registres par thread",
      static: "Mémoire partagée statique (octets)", dynamic: "Mémoire partagée dynamique (octets)",
      blocks: "Blocs résidents par SM", warps: "Warps actifs par SM", occupancy: "Occupation",
      limiter: "Limité par", limit: "Blocs permis par chaque ressource", impossible: "Lancement impossible",
      whole: "un nombre entier positif est attendu", current: "configuration actuelle",
      chart_threads: "Occupation selon les threads par bloc", chart_registers: "Occupation selon les registres par thread",
      chart_shared: "Occupation selon la mémoire partagée par bloc (Kio)",
      warps_limit: "warps par SM", registers_limit: "registres", shared_memory_limit: "mémoire partagée",
      blocks_limit: "blocs par SM", none: "aucune limite",
    },
    zh: {
      title: "占用率计算器", architecture: "架构（计算能力）",
      threads: "每个块的线程数", registers: "每个线程的寄存器数",
      static: "静态共享内存（字节）", dynamic: "动态共享内存（字节）",
      blocks: "每个 SM 驻留的块数", warps: "每个 SM 的活跃 warp 数", occupancy: "占用率",
      limiter: "限制因素", limit: "各资源允许的块数", impossible: "无法启动",
      whole: "请输入非负整数", current: "当前配置",
      chart_threads: "占用率与每块线程数", chart_registers: "占用率与每线程寄存器数",
      chart_shared: "占用率与每块共享内存（KiB）",
      warps_limit: "每个 SM 的 warp 数", registers_limit: "寄存器", shared_memory_limit: "共享内存",
      blocks_limit: "每个 SM 的块数", none: "无限制",
    },
  };
  const SVG_NS = "http://www.w3.org/2000/svg"; // the SVG namespace name, not a resource
  const STYLE = `
.occupancy-calculator form { display: grid; grid-template-columns: max-content minmax(9em, max-content); gap: 0.3em 0.8em; align-items: center; }
.occupancy-calculator input, .occupancy-calculator select { font: inherit; padding: 0.1em 0.3em; }
.occupancy-calculator .occ-result { margin: 0.8em 0; }
.occupancy-calculator .occ-error { color: #c62828; font-weight: 700; }
.occupancy-calculator .occ-charts { display: flex; flex-wrap: wrap; gap: 0.8em; }
.occupancy-calculator figure { margin: 0; width: 320px; max-width: 100%; }
.occupancy-calculator figcaption { font-size: 0.85em; }
.occupancy-calculator svg { width: 100%; height: auto; font-size: 11px; }
.occupancy-calculator .occ-axis { stroke: currentColor; stroke-opacity: 0.5; fill: none; }
.occupancy-calculator .occ-line { stroke: #1565c0; stroke-width: 2; fill: none; }
.occupancy-calculator .occ-current { fill: #c62828; }
.occupancy-calculator svg text { fill: currentColor; }`;

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgElement(tag, attributes, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function percent(fraction, lang) {
    const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(100 * fraction);
    return lang === "fr" ? `${number}\u202f%` : `${number}%`;
  }

  // A step chart of occupancy (0 to 100 %) against x, the current point marked, under its title.
  function drawChart(data, title, words, lang, scale) {
    const width = 320, height = 170, left = 40, right = 14, top = 8, bottom = 28;
    const xs = data.points.map((p) => p[0]);
    const xMin = Math.min(...xs, data.current[0]), xMax = Math.max(...xs, data.current[0]);
    const px = (x) => left + ((x - xMin) / (xMax - xMin || 1)) * (width - left - right);
    const py = (y) => height - bottom - y * (height - top - bottom);
    const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "data-x": data.x_name });
    svg.appendChild(svgElement("title", {}, title));
    svg.appendChild(svgElement("path", { class: "occ-axis", d: `M${left},${top} V${py(0)} H${width - right}` }));
    for (const y of [0, 0.5, 1]) {
      svg.appendChild(svgElement("text", { x: left - 4, y: py(y) + 4, "text-anchor": "end" }, percent(y, lang)));
    }
    for (const x of [xMin, xMax]) {
      svg.appendChild(svgElement("text", { x: px(x), y: height - 10, "text-anchor": "middle" }, String(scale(x))));
    }
    let d = "";
    data.points.forEach(([x, y], i) => { d += i === 0 ? `M${px(x)},${py(y)}` : ` H${px(x)} V${py(y)}`; });
    svg.appendChild(svgElement("path", { class: "occ-line", d: d }));
    const [cx, cy] = data.current;
    const marker = svgElement("circle", { class: "occ-current", cx: px(cx), cy: py(cy), r: 4.5 });
    marker.appendChild(svgElement("title", {}, `${words.current}: ${scale(cx)} → ${percent(cy, lang)}`));
    svg.appendChild(marker);
    const figure = element("figure", { class: "occ-chart" });
    figure.append(element("figcaption", {}, title), svg);
    return figure;
  }

  function mount(container) {
    const lang = WORDS[container.dataset.lang] ? container.dataset.lang : "fr";
    const words = WORDS[lang];
    const colon = lang === "fr" ? "\u00a0: " : "：";
    if (!document.getElementById("occupancy-calculator-style")) {
      document.head.appendChild(element("style", { id: "occupancy-calculator-style" }, STYLE));
    }
    container.replaceChildren();
    container.appendChild(element("p", { class: "occ-title" }, words.title));
    const form = element("form", { class: "occ-form" });
    form.addEventListener("submit", (event) => event.preventDefault());
    const select = element("select", { name: "compute_capability" });
    for (const [cc, arch] of Object.entries(ARCHITECTURES)) {
      const option = element("option", { value: cc }, `${cc} · ${arch.name}`);
      option.selected = cc === DEFAULT_CC;
      select.appendChild(option);
    }
    form.append(element("label", {}, words.architecture), select);
    const fields = [["threads_per_block", words.threads, 256], ["registers_per_thread", words.registers, 32],
      ["static_shared_bytes", words.static, 0], ["dynamic_shared_bytes", words.dynamic, 0]];
    for (const [name, text, value] of fields) {
      form.append(element("label", {}, text), element("input", { name: name, type: "number", min: 0, step: 1, value: value }));
    }
    const result = element("div", { class: "occ-result", "aria-live": "polite" });
    const charts = element("div", { class: "occ-charts" });
    container.append(form, result, charts);

    function refuse(reason) {
      result.replaceChildren(element("p", { class: "occ-error", role: "alert" }, `${words.impossible}${colon}${reason}`));
      charts.replaceChildren();
    }

    function update() {
      const input = { compute_capability: select.value };
      for (const [name] of fields) {
        const text = form.elements[name].value.trim();
        const value = Number(text);
        if (text === "" || !Number.isInteger(value) || value < 0) return refuse(words.whole);
        input[name] = value;
      }
      let answer;
      try {
        answer = calculate(input);
      } catch (error) {
        return refuse(error.message); // labkit's one-line message, naming the limit
      }
      const table = element("table", { class: "occ-numbers" });
      const row = (key, text, value) => {
        const tr = element("tr", { "data-key": key });
        tr.append(element("th", {}, text), element("td", {}, value));
        table.appendChild(tr);
      };
      row("blocks_per_sm", words.blocks, String(answer.blocks_per_sm));
      row("active_warps_per_sm", words.warps, `${answer.active_warps_per_sm} / ${answer.max_warps_per_sm}`);
      row("occupancy", words.occupancy, percent(answer.occupancy, lang));
      row("limiters", words.limiter, answer.limiters.map((name) => words[`${name}_limit`]).join(", "));
      row("limits", words.limit, LIMITERS.map((name) =>
        `${words[`${name}_limit`]}${colon}${answer.limits[name] === null ? words.none : answer.limits[name]}`).join(" · "));
      result.replaceChildren(table);
      charts.replaceChildren(
        drawChart(blockSizeChart(input), words.chart_threads, words, lang, (x) => x),
        drawChart(registersChart(input), words.chart_registers, words, lang, (x) => x),
        drawChart(sharedMemoryChart(input), words.chart_shared, words, lang, (x) => Math.round(x / KIB)));
    }
    form.addEventListener("input", update);
    update();
  }

  function mountAll() {
    document.querySelectorAll("div.occupancy-calculator").forEach((container) => {
      if (container.dataset.ready) return;
      container.dataset.ready = "1";
      mount(container);
    });
  }

  window.labkitOccupancy = {
    ARCHITECTURES, WORDS, calculate, blockSizeChart, registersChart, sharedMemoryChart, mountAll,
  };
  if (typeof document$ !== "undefined") {
    document$.subscribe(mountAll); // Material for MkDocs: every page view
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})();
