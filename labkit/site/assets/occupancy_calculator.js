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

  // A refusal: Python's one-line message (English, equal to labkit's), with what it is about
  // (`key` and `values`) so that the widget can say it in the page's language.
  function refusal(message, key, values) {
    const error = new Error(message);
    error.key = key;
    error.values = values;
    return error;
  }

  // labkit.occupancy.check: the same refusals, the same one-line messages.
  function check(launch, arch) {
    const cc = label(arch);
    const threads = launch.threads_per_block;
    if (threads < 1) throw refusal(`threads per block: ${threads} requested, at least 1 is needed`, "threads_min", { threads });
    if (threads > arch.max_threads_per_block) {
      throw refusal(`threads per block: ${threads} requested, compute capability ${cc} allows at most ${arch.max_threads_per_block}`,
        "threads_max", { threads, cc, most: arch.max_threads_per_block });
    }
    const registers = launch.registers_per_thread;
    if (!(registers >= 0 && registers <= arch.max_registers_per_thread)) {
      throw refusal(`registers per thread: ${registers} requested, compute capability ${cc} allows 0 to ${arch.max_registers_per_thread}`,
        "registers", { registers, cc, most: arch.max_registers_per_thread });
    }
    for (const [what, bytes] of [["static", launch.static_shared_bytes], ["dynamic", launch.dynamic_shared_bytes]]) {
      if (bytes < 0) {
        throw refusal(`${what} shared memory per block: ${bytes} bytes requested, cannot be negative`, "shared_negative",
          { what, bytes });
      }
    }
    if (launch.static_shared_bytes > arch.max_shared_bytes_per_block) {
      throw refusal(`static shared memory per block: ${kib(launch.static_shared_bytes)} requested, at most ` +
        `${kib(arch.max_shared_bytes_per_block)} can be static (use dynamic shared memory beyond)`,
        "static_max", { bytes: launch.static_shared_bytes, most: arch.max_shared_bytes_per_block });
    }
    const total = launch.static_shared_bytes + launch.dynamic_shared_bytes;
    if (total > arch.max_shared_bytes_per_block_optin) {
      throw refusal(`shared memory per block: ${kib(total)} requested (static + dynamic), compute capability ${cc} ` +
        `allows at most ${kib(arch.max_shared_bytes_per_block_optin)} (opt-in)`,
        "shared_max", { bytes: total, cc, most: arch.max_shared_bytes_per_block_optin });
    }
    const attribute = launch.max_dynamic_shared_bytes;
    const attributeLimit = arch.max_shared_bytes_per_block_optin - launch.static_shared_bytes;
    if (attribute !== null && !(attribute >= 0 && attribute <= attributeLimit)) {
      throw refusal(`max dynamic shared memory attribute: ${attribute} bytes requested, compute capability ${cc} ` +
        `allows 0 to ${attributeLimit} bytes (opt-in minus ${launch.static_shared_bytes} static)`,
        "attribute", { bytes: attribute, cc, most: attributeLimit, static: launch.static_shared_bytes });
    }
    const carveout = launch.carveout_percent;
    if (carveout !== null && !(carveout >= 0 && carveout <= 100)) {
      throw refusal(`shared memory carve-out: ${carveout} % requested, a percentage from 0 to 100 (or None: no preference)`,
        "carveout", { carveout });
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

  // Every word the widget shows, in both languages (same keys). French strings follow French
  // typography (no-break spaces before ":" and "%", ’); the course says "occupancy" in French.
  const WORDS = {
    fr: {
      title: "Calculateur d’occupancy", architecture: "Architecture (capacité de calcul)",
      threads: "Threads par bloc", registers: "Registres par thread",
      static: "Mémoire partagée statique (octets)", dynamic: "Mémoire partagée dynamique (octets)",
      blocks: "Blocs résidents par SM", warps: "Warps actifs par SM", occupancy: "Occupancy",
      limiter: "Limité par", limit: "Blocs permis par chaque ressource", impossible: "Lancement impossible",
      current: "configuration actuelle",
      chart_threads: "Occupancy selon les threads par bloc", chart_registers: "Occupancy selon les registres par thread",
      chart_shared: "Occupancy selon la mémoire partagée par bloc",
      axis_threads: "threads par bloc", axis_registers: "registres par thread",
      axis_shared: "mémoire partagée par bloc (Kio)", axis_occupancy: "occupancy",
      warps_limit: "warps par SM", registers_limit: "registres", shared_memory_limit: "mémoire partagée",
      blocks_limit: "blocs par SM", none: "aucune limite", and: ", ",
      empty: "Entrez un nombre.", whole: "Un nombre entier positif ou nul est attendu, écrit en chiffres.",
      fix: "Corrigez la valeur en rouge pour voir le résultat.",
    },
    zh: {
      title: "占用率计算器", architecture: "架构（计算能力）",
      threads: "每个 block 的线程数", registers: "每个线程的寄存器数",
      static: "静态 shared memory（字节）", dynamic: "动态 shared memory（字节）",
      blocks: "每个 SM 驻留的 block 数", warps: "每个 SM 的活跃 warp 数", occupancy: "占用率",
      limiter: "限制因素", limit: "各资源允许的 block 数", impossible: "无法启动",
      current: "当前配置",
      chart_threads: "占用率与每个 block 的线程数", chart_registers: "占用率与每个线程的寄存器数",
      chart_shared: "占用率与每个 block 的 shared memory",
      axis_threads: "每个 block 的线程数", axis_registers: "每个线程的寄存器数",
      axis_shared: "每个 block 的 shared memory（KiB）", axis_occupancy: "占用率",
      warps_limit: "每个 SM 的 warp 数", registers_limit: "寄存器", shared_memory_limit: "shared memory",
      blocks_limit: "每个 SM 的 block 数", none: "无限制", and: "、",
      empty: "请输入一个数。", whole: "请输入非负整数，只用数字。",
      fix: "请先改正红色的值，再看结果。",
    },
  };

  // Numbers as each language writes them (labkit.report.numbers): 65 536 and 48,8 in French,
  // 65,536 and 48.8 in Chinese.
  function formatNumber(value, decimals, lang) {
    const text = value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return lang === "fr" ? text.replace(/,/g, "\u202f").replace(".", ",") : text;
  }

  function kibIn(bytes, lang) {
    const tenths = kib(bytes).match(/\((\d+)\.(\d) KiB\)/);   // Python's rounding, as in the English message
    const size = formatNumber(Number(`${tenths[1]}.${tenths[2]}`), 1, lang);
    return lang === "fr" ? `${formatNumber(bytes, 0, lang)}\u202foctets (${size}\u202fKio)`
      : `${formatNumber(bytes, 0, lang)} 字节（${size} KiB）`;
  }

  // labkit.occupancy's refusals in the page's language, same meaning; and the launch no SM can hold.
  const REFUSALS = {
    fr: {
      threads_min: (v) => `threads par bloc\u00a0: ${v.threads} demandés, il en faut au moins 1`,
      threads_max: (v) => `threads par bloc\u00a0: ${formatNumber(v.threads, 0, "fr")} demandés, la capacité de calcul ` +
        `${v.cc} en permet au plus ${formatNumber(v.most, 0, "fr")}`,
      registers: (v) => `registres par thread\u00a0: ${v.registers} demandés, la capacité de calcul ${v.cc} en permet ` +
        `de 0 à ${v.most}`,
      shared_negative: (v) => `mémoire partagée ${v.what === "static" ? "statique" : "dynamique"} par bloc\u00a0: ` +
        `${v.bytes}\u202foctets demandés, une taille ne peut être négative`,
      static_max: (v) => `mémoire partagée statique par bloc\u00a0: ${kibIn(v.bytes, "fr")} demandés, au plus ` +
        `${kibIn(v.most, "fr")} peuvent être statiques (au-delà, utilisez la mémoire partagée dynamique)`,
      shared_max: (v) => `mémoire partagée par bloc\u00a0: ${kibIn(v.bytes, "fr")} demandés (statique + dynamique), ` +
        `la capacité de calcul ${v.cc} en permet au plus ${kibIn(v.most, "fr")} (sur demande explicite, opt-in)`,
      attribute: (v) => `attribut de mémoire partagée dynamique maximale\u00a0: ${formatNumber(v.bytes, 0, "fr")}\u202foctets ` +
        `demandés, la capacité de calcul ${v.cc} permet de 0 à ${formatNumber(v.most, 0, "fr")}\u202foctets ` +
        `(l’opt-in moins ${formatNumber(v.static, 0, "fr")}\u202foctets statiques)`,
      carveout: (v) => `répartition de la mémoire partagée\u00a0: ${v.carveout}\u202f% demandés, un pourcentage de 0 à 100 est attendu`,
      no_block: (v) => `un bloc de ${formatNumber(v.threads, 0, "fr")}\u202fthreads à ${v.registers}\u202fregistres en demande ` +
        `${formatNumber(v.needed, 0, "fr")} (${formatNumber(v.perWarp, 0, "fr")} par warp, arrondis à l’unité d’allocation` +
        `${v.warps % v.partitions ? `, ${v.warps}\u202fwarps comptés comme ${v.warps + v.partitions - v.warps % v.partitions}` : ""}` +
        `), un bloc peut en avoir au plus ` +
        `${formatNumber(v.most, 0, "fr")}\u00a0: aucun bloc ne tient sur un SM`,
      no_block_shared: () => "la mémoire partagée dynamique dépasse l’attribut maximal du noyau\u00a0: aucun bloc ne tient sur un SM",
    },
    zh: {
      threads_min: (v) => `每个 block 的线程数：请求 ${v.threads} 个，至少需要 1 个`,
      threads_max: (v) => `每个 block 的线程数：请求 ${formatNumber(v.threads, 0, "zh")} 个，计算能力 ${v.cc} ` +
        `最多允许 ${formatNumber(v.most, 0, "zh")} 个`,
      registers: (v) => `每个线程的寄存器数：请求 ${v.registers} 个，计算能力 ${v.cc} 允许 0 到 ${v.most} 个`,
      shared_negative: (v) => `每个 block 的${v.what === "static" ? "静态" : "动态"} shared memory：请求 ${v.bytes} 字节，` +
        "大小不能为负",
      static_max: (v) => `每个 block 的静态 shared memory：请求 ${kibIn(v.bytes, "zh")}，静态最多 ${kibIn(v.most, "zh")}` +
        "（超出部分请用动态 shared memory）",
      shared_max: (v) => `每个 block 的 shared memory：请求 ${kibIn(v.bytes, "zh")}（静态 + 动态），计算能力 ${v.cc} ` +
        `最多允许 ${kibIn(v.most, "zh")}（需显式申请，即 opt-in）`,
      attribute: (v) => `动态 shared memory 上限属性：请求 ${formatNumber(v.bytes, 0, "zh")} 字节，计算能力 ${v.cc} 允许 0 到 ` +
        `${formatNumber(v.most, 0, "zh")} 字节（opt-in 上限减去 ${formatNumber(v.static, 0, "zh")} 字节静态）`,
      carveout: (v) => `shared memory 划分比例：请求 ${v.carveout}%，应为 0 到 100 的百分比`,
      no_block: (v) => `一个 ${formatNumber(v.threads, 0, "zh")} 线程、每线程 ${v.registers} 个寄存器的 block 需要 ` +
        `${formatNumber(v.needed, 0, "zh")} 个寄存器（按分配单位取整后每个 warp ${formatNumber(v.perWarp, 0, "zh")} 个` +
        `${v.warps % v.partitions ? `，${v.warps} 个 warp 按 ${v.warps + v.partitions - v.warps % v.partitions} 个计` : ""}` +
        `），而一个 block 最多只能有 ${formatNumber(v.most, 0, "zh")} 个：` +
        "一个 SM 连一个 block 也放不下",
      no_block_shared: () => "动态 shared memory 超过了 kernel 的上限属性：一个 SM 连一个 block 也放不下",
    },
  };

  const SVG_NS = "http://www.w3.org/2000/svg"; // the SVG namespace name, not a resource
  const STYLE = `
.occupancy-calculator form { display: grid; grid-template-columns: max-content minmax(0, max-content); gap: 0.3em 0.8em; align-items: center; }
.occupancy-calculator .occ-message { grid-column: 2; color: var(--lab-wrong, #c62828); font-weight: 700; }
.occupancy-calculator .occ-message:empty { display: none; }
@media (max-width: 40em) {
  .occupancy-calculator form { grid-template-columns: minmax(0, 1fr); gap: 0.1em; }
  .occupancy-calculator form label { margin-top: 0.4em; }
  .occupancy-calculator .occ-message { grid-column: 1; }
}
.occupancy-calculator select { max-width: 100%; }
.occupancy-calculator .occ-result { margin: 0.8em 0; }
.occupancy-calculator .occ-numbers th { text-align: left; font-weight: 400; padding: 0.1em 1em 0.1em 0; vertical-align: top; min-width: 8em; }
.occupancy-calculator .occ-numbers td { font-weight: 700; vertical-align: top; }
.occupancy-calculator .occ-stale { font-style: italic; }
.occupancy-calculator .occ-error { color: var(--lab-wrong, #c62828); font-weight: 700; }
.occupancy-calculator .occ-charts { display: flex; flex-wrap: wrap; gap: 0.8em; }
.occupancy-calculator figure { margin: 0; width: 320px; max-width: 100%; }
.occupancy-calculator figcaption { font-size: 0.85em; max-width: none; margin: 0 0 0.2em; font-style: normal; text-align: left; }
.occupancy-calculator svg { width: 100%; height: auto; }
.occupancy-calculator .occ-axis { stroke: currentColor; fill: none; }
.occupancy-calculator .occ-grid { stroke: currentColor; stroke-opacity: 0.25; fill: none; }
.occupancy-calculator .occ-line { stroke: var(--lab-series-0, #0072b2); stroke-width: 2.5; fill: none; }
.occupancy-calculator .occ-current { fill: var(--lab-wrong, #c62828); }
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

  // Ticks of an x axis from low to high: both ends and the round steps between them.
  function xTicks(low, high) {
    const raw = (high - low) / 4;
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((m) => m >= raw);
    const ticks = [low];
    for (let x = Math.ceil(low / step) * step; x < high; x += step) {
      if (x - low >= step / 2 && high - x >= step / 2) ticks.push(x);
    }
    return [...ticks, high];
  }

  // A step chart of occupancy (0 to 100 %) against x, the current point marked, under its title,
  // with both axes titled and ticked. Drawn for a 320 px figure: text at 13 px.
  function drawChart(data, title, xTitle, words, lang, scale) {
    const width = 340, height = 214, left = 58, right = 16, top = 10, bottom = 50;
    const xs = data.points.map((p) => p[0]);
    const xMin = Math.min(...xs, data.current[0]), xMax = Math.max(...xs, data.current[0]);
    const px = (x) => left + ((x - xMin) / (xMax - xMin || 1)) * (width - left - right);
    const py = (y) => height - bottom - y * (height - top - bottom);
    const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "data-x": data.x_name, "font-size": 14 });
    svg.appendChild(svgElement("title", {}, title));
    for (const y of [0, 0.25, 0.5, 0.75, 1]) {
      if (y > 0) svg.appendChild(svgElement("path", { class: "occ-grid", d: `M${left},${py(y)} H${width - right}` }));
      svg.appendChild(svgElement("text", { x: left - 5, y: py(y) + 4, "text-anchor": "end" }, percent(y, lang)));
    }
    svg.appendChild(svgElement("path", { class: "occ-axis", d: `M${left},${top} V${py(0)} H${width - right}` }));
    for (const x of xTicks(scale(xMin), scale(xMax))) {
      const at = px(xMin + ((x - scale(xMin)) / (scale(xMax) - scale(xMin) || 1)) * (xMax - xMin));
      svg.appendChild(svgElement("path", { class: "occ-axis", d: `M${at},${py(0)} v4` }));
      svg.appendChild(svgElement("text", { x: at, y: py(0) + 17, "text-anchor": "middle" }, formatNumber(x, 0, lang)));
    }
    svg.appendChild(svgElement("text", { x: left + (width - left - right) / 2, y: height - 6, "text-anchor": "middle" }, xTitle));
    const middle = top + (height - top - bottom) / 2;
    svg.appendChild(svgElement("text", { x: 13, y: middle, "text-anchor": "middle", transform: `rotate(-90 13 ${middle})` },
      words.axis_occupancy));
    let d = "";
    data.points.forEach(([x, y], i) => { d += i === 0 ? `M${px(x)},${py(y)}` : ` H${px(x)} V${py(y)}`; });
    svg.appendChild(svgElement("path", { class: "occ-line", d: d }));
    const [cx, cy] = data.current;
    const marker = svgElement("circle", { class: "occ-current", cx: px(cx), cy: py(cy), r: 5 });
    marker.appendChild(svgElement("title", {}, `${words.current}${lang === "fr" ? "\u00a0: " : "："}${scale(cx)} → ${percent(cy, lang)}`));
    svg.appendChild(marker);
    const figure = element("figure", { class: "occ-chart" });
    figure.append(element("figcaption", {}, title), svg);
    return figure;
  }

  function mount(container) {
    const lang = WORDS[container.dataset.lang] ? container.dataset.lang : "fr";
    const words = WORDS[lang];
    const colon = lang === "fr" ? "\u00a0: " : "：";
    const refusals = REFUSALS[lang];
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
    const messages = {};
    for (const [name, text, value] of fields) {
      // A text field: what is typed stays as typed ("1e3" is not 1000, "12abc" is not 12).
      const id = `occ-${mounted}-${name}`;
      messages[name] = element("span", { class: "occ-message", id: `${id}-message`, role: "alert" });
      form.append(element("label", { for: id }, text),
        element("input", { name: name, id: id, type: "text", inputmode: "numeric", autocomplete: "off", size: 8,
          value: value, "aria-describedby": `${id}-message` }),
        messages[name]);
    }
    mounted += 1;
    const result = element("div", { class: "occ-result", "aria-live": "polite" });
    const charts = element("div", { class: "occ-charts" });
    container.append(form, result, charts);

    function refuse(reason) {
      result.replaceChildren(element("p", { class: "occ-error", role: "alert" }, `${words.impossible}${colon}${reason}`));
      charts.replaceChildren();
    }

    function update() {
      const input = { compute_capability: select.value };
      let typedWrong = false;
      for (const [name] of fields) {
        const field = form.elements[name];
        const text = field.value.trim();
        const problem = text === "" ? words.empty : /^\d+$/.test(text) ? "" : words.whole;
        messages[name].textContent = problem;
        if (problem) field.setAttribute("aria-invalid", "true");
        else field.removeAttribute("aria-invalid");
        typedWrong = typedWrong || Boolean(problem);
        input[name] = Number(text);
      }
      if (typedWrong) {   // no result for a value the field does not show
        result.replaceChildren(element("p", { class: "occ-stale" }, words.fix));
        charts.replaceChildren();
        return;
      }
      let answer;
      try {
        answer = calculate(input);
      } catch (error) {
        // labkit's refusal, naming the limit, in the page's language
        return refuse(error.key ? refusals[error.key](error.values) : error.message);
      }
      if (answer.blocks_per_sm === 0) {   // a launch no SM can hold: impossible, not "0 %"
        const arch = ARCHITECTURES[select.value];
        if (answer.limits.registers === 0) {
          const perWarp = answer.registers_per_block / answer.warps_per_block;
          return refuse(refusals.no_block({
            threads: input.threads_per_block, registers: input.registers_per_thread, perWarp,
            warps: answer.warps_per_block, partitions: arch.sm_sub_partitions,
            needed: perWarp * roundUp(answer.warps_per_block, arch.sm_sub_partitions), most: arch.max_registers_per_block,
          }));
        }
        return refuse(refusals.no_block_shared());
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
      row("limiters", words.limiter, answer.limiters.map((name) => words[`${name}_limit`]).join(words.and));
      row("limits", words.limit, LIMITERS.map((name) =>
        `${words[`${name}_limit`]}${colon}${answer.limits[name] === null ? words.none : answer.limits[name]}`).join(" · "));
      result.replaceChildren(table);
      charts.replaceChildren(
        drawChart(blockSizeChart(input), words.chart_threads, words.axis_threads, words, lang, (x) => x),
        drawChart(registersChart(input), words.chart_registers, words.axis_registers, words, lang, (x) => x),
        drawChart(sharedMemoryChart(input), words.chart_shared, words.axis_shared, words, lang, (x) => Math.round(x / KIB)));
    }
    form.addEventListener("input", update);
    update();
  }

  let mounted = 0;

  function mountAll() {
    document.querySelectorAll("div.occupancy-calculator").forEach((container) => {
      if (container.dataset.ready) return;
      container.dataset.ready = "1";
      mount(container);
    });
  }

  window.labkitOccupancy = {
    ARCHITECTURES, WORDS, REFUSALS, calculate, blockSizeChart, registersChart, sharedMemoryChart, mountAll,
  };
  if (typeof document$ !== "undefined") {
    document$.subscribe(mountAll); // Material for MkDocs: every page view
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})();
