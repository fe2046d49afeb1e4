"""`labkit diagnose` as text: one kernel per block, in English, French or Chinese, wrapped to fit an
80-column terminal (labkit.report.columns: Chinese characters count as two columns, as terminals
draw them).

Numbers are written the language's way (labkit.report.numbers); a placeholder's name says its kind:
``_pct`` a percentage, ``_us`` microseconds, ``_ms`` milliseconds, ``_x`` a ratio, ``_mb`` megabytes, ``waves`` ncu's Waves
Per SM (two decimals, as ncu prints it), anything else a plain number (no decimals when whole).
"""

from __future__ import annotations

from labkit.profiling.checklist import THRESHOLDS, Assessment, Fired, Reading, item
from labkit.profiling.diagnosis import Diagnosis, InstructionMix, MemoryWorkload, optional_value
from labkit.profiling.ncu import KernelProfile
from labkit.profiling.units import UNITS
from labkit.report.columns import columns, cut_to_columns, wrap
from labkit.report.labels import label
from labkit.report.numbers import format_number, format_percent

WIDTH = 80
#: Between a number and its unit, so that a line never breaks there.
NO_BREAK = "\u00a0"
#: Display columns of the left-hand labels ("Speed of Light", "Occupancy"...).
LABEL_COLUMNS = 16
#: A theoretical occupancy this high has no limiter worth naming.
FULL_PCT = 100.0
#: How many units "Busiest units" names.
BUSIEST_SHOWN = 3


def format_value(name: str, value: float, lang: str) -> str:
    """One placeholder's value, by the kind its name says (see the module docstring)."""
    decimals = 0 if float(value).is_integer() else 1
    if name.endswith("_pct"):
        return format_percent(value, decimals, lang)
    if name.endswith("_us"):
        return format_number(value, decimals, lang) + NO_BREAK + "µs"
    if name.endswith("_ms"):
        return format_number(value, 0 if value >= 100 else 1, lang) + NO_BREAK + "ms"
    if name.endswith("_x"):
        return format_number(value, decimals, lang) + "×"
    if name.endswith("_mb"):
        return format_number(value, 0, lang) + NO_BREAK + ("Mo" if lang == "fr" else "MB")
    if name == "waves":
        return format_number(value, 0 if decimals == 0 else 2, lang)
    return format_number(value, decimals, lang)


def words(lang: str, key: str, values: dict[str, float] | None = None, **texts: str) -> str:
    """The label ``key`` with its numeric placeholders formatted and its text placeholders as given."""
    filled = {name: format_value(name, value, lang) for name, value in (values or {}).items()}
    return label(lang, key).format(**filled, **texts)


def item_words(lang: str, item_id: str, part: str) -> str:
    """An item's title, symptom or lever, thresholds filled in."""
    return words(lang, f"checklist.{item_id}.{part}", THRESHOLDS)


def reading_words(lang: str, reading: Reading) -> str:
    return label(lang, reading.key)


def _field(lang: str, key: str, text: str, width: int) -> list[str]:
    name = label(lang, key)
    pad = " " * max(1, LABEL_COLUMNS - columns(name))
    return wrap(text, width, first=name + pad, rest=" " * LABEL_COLUMNS)


def heading(kernel: str, launch_id: int | None, width: int = WIDTH) -> str:
    """``━━ name · ID n ━━━...`` across the width; a name too long for it (a cuBLAS kernel's runs to
    120 characters) is cut, with an ellipsis."""
    suffix = f" · ID {launch_id} " if launch_id is not None else " "
    room = width - 3 - columns("━━ " + suffix)
    if columns(kernel) > room:
        kernel = cut_to_columns(kernel, room - 1) + "…"
    title = f"━━ {kernel}{suffix}"
    return title + "━" * max(3, width - columns(title))


def verdict_line(a: Assessment, lang: str, d: Diagnosis | None = None) -> str:
    """At the roof (and the lever left, ``Assessment.lever``), what limits the kernel where no item
    covers it, the item to act on first, or nothing fired."""
    if a.at_roof:
        return words(lang, "diag.verdict.at-roof", {"roof_pct": a.roof_pct}, unit=label(lang, f"diag.roof.{a.roof}"),
                     lever=item_words(lang, a.lever, "lever"))
    if a.unlisted is not None:
        if a.unlisted.limit == "l2_atomics":
            average = d.atomics.average_slice_pct if d is not None and d.atomics is not None else 0.0
            return words(lang, "diag.verdict.atomics", {"hot_pct": a.unlisted.pct, "average_pct": average},
                         hint=label(lang, "diag.unlisted.l2_atomics"))
        return words(lang, "diag.verdict.unlisted", {"roof_pct": a.unlisted.pct},
                     unit=label(lang, f"diag.roof.{a.unlisted.limit}"), hint=label(lang, f"diag.unlisted.{a.unlisted.limit}"))
    if a.first is not None:
        return words(lang, "diag.verdict.first", title=item_words(lang, a.first.item, "title"))
    return label(lang, "diag.verdict.none")


def gain_words(fired: Fired, lang: str) -> str:
    """The expected gain and where it comes from; when a roof bounds it, the estimate and the roof."""
    if fired.gain_pct is None:
        return label(lang, "diag.gain_unknown")
    source = (words(lang, "diag.gain_from_rule", rule=fired.rule) if fired.rule
              else label(lang, "diag.gain_from_labkit"))
    if fired.cap is not None:
        estimate = source + " " + format_value("gain_pct", fired.cap.estimate_pct, lang)
        return words(lang, "diag.gain_capped", {"gain_pct": fired.gain_pct, "roof_pct": fired.cap.pct},
                     estimate=estimate, unit=label(lang, f"diag.roof.{fired.cap.unit}"))
    if fired.discount is not None:
        estimate = source + " " + format_value("gain_pct", fired.discount.estimate_pct, lang)
        return words(lang, "diag.gain_discounted", {"gain_pct": fired.gain_pct, "waste_pct": fired.discount.waste_pct},
                     estimate=estimate, title=item_words(lang, fired.discount.item, "title"))
    return words(lang, "diag.gain", {"gain_pct": fired.gain_pct}) + (f"（{source}）" if lang == "zh" else f" ({source})")


def item_lines(position: int, fired: Fired, lang: str, width: int) -> list[str]:
    entry = item(fired.item)
    number = f"{position:>2}. "
    indent = " " * len(number)
    separator = " — " if lang != "zh" else "——"
    lines = wrap(item_words(lang, fired.item, "title") + separator + gain_words(fired, lang), width,
                 first=number, rest=indent)
    evidence = words(lang, fired.evidence.key, fired.evidence.values)
    lines += wrap(evidence, width, first=indent, rest=indent)
    if fired.first_because_short:
        lines += wrap(label(lang, "diag.ranked_first_short"), width, first=indent, rest=indent)
    colon = " : " if lang == "fr" else ("：" if lang == "zh" else ": ")
    lines += wrap(label(lang, "diag.lever") + colon + item_words(lang, fired.item, "lever"), width,
                  first=indent, rest=indent + "  ")
    reads = [reading_words(lang, r) for r in entry.readings] + [
        f"{label(lang, 'read.05-checklist')} #{entry.section.anchor}"]
    joiner = {"zh": "；", "fr": " ; "}.get(lang, "; ")
    lines += wrap(label(lang, "diag.read") + colon + joiner.join(reads), width, first=indent, rest=indent + "  ")
    return lines


def busiest_units(d: Diagnosis, lang: str) -> str:
    """The busiest of DRAM, L2, L1 (Speed of Light) and the SM's units (Diagnosis.busiest_loads)."""
    return " · ".join(f"{label(lang, f'value.unit.{unit}')} {format_value('unit_pct', pct, lang)}"
                      for unit, pct in d.busiest_loads(BUSIEST_SHOWN))


def profile_rows(d: Diagnosis, lang: str, readings: bool = True) -> list[tuple[str, str]]:
    """What the report shows of a kernel, as (label key, text): launch statistics, Speed of Light,
    (with ``readings``: the quadrant), the busiest units, occupancy, the top stalls; without
    ``readings`` (a profile card), also the symptoms the checklist reads: bytes used per sector,
    shared wavefronts against the ideal, local memory, threads per instruction, the FP64 pipe."""
    sol, launch, memory = d.speed_of_light, d.launch, d.memory
    grid = {"blocks": launch.grid_blocks, "threads": launch.threads_per_block, "sms": launch.sm_count,
            "per_sm": round(launch.blocks_per_sm, 1), "duration_us": sol.duration_seconds * 1e6}
    if launch.waves_per_sm is None:
        launch_text = words(lang, "diag.launch_line", grid)
    else:
        launch_text = words(lang, "diag.launch_line_waves", {**grid, "waves": launch.waves_per_sm})
    rows = [("diag.launch", launch_text),
        ("diag.sol", words(lang, "diag.sol_line", {
            "compute_pct": sol.compute_pct, "memory_pct": sol.memory_pct, "dram_pct": sol.dram_pct,
            "l2_pct": sol.l2_pct, "l1_pct": sol.l1_pct}))]
    if readings:
        rows.append(("diag.quadrant", label(lang, f"value.{d.quadrant.value}")))
    rows.append(("diag.busiest", busiest_units(d, lang)))
    if d.occupancy is not None:
        occupancy = d.occupancy
        values = {"theoretical_pct": occupancy.theoretical_pct, "achieved_pct": occupancy.achieved_pct,
                  "registers": occupancy.registers_per_thread}
        if occupancy.theoretical_pct < FULL_PCT:
            limiter = " + ".join(label(lang, f"diag.limiter.{name}") for name in occupancy.limiters)
            rows.append(("diag.occupancy", words(lang, "diag.occupancy_limited", values, limiter=limiter)))
        else:
            rows.append(("diag.occupancy", words(lang, "diag.occupancy_line", values)))
    if not readings:
        used = {name: value for name, value in (("load_bytes", memory.global_load_bytes_per_sector),
                                                 ("store_bytes", memory.global_store_bytes_per_sector))
                if value is not None}
        if memory.global_sectors and len(used) == 2:
            rows.append(("diag.sectors", words(lang, "diag.sectors_line", used)))
        if memory.shared_wavefronts:
            rows.append(("diag.shared", words(lang, "diag.shared_line", {
                "wavefronts": memory.shared_wavefronts, "ideal": memory.shared_wavefronts_ideal or 0})))
        rows.append(("diag.local", words(lang, "diag.local_line", {"local_mb": memory.local_memory_bytes / 1e6})))
        if d.instructions is not None:
            mix = d.instructions
            rows.append(("diag.threads", words(lang, "diag.threads_line", {"threads": mix.active_threads})))
            if mix.fp64_pipe_pct is not None:
                rows.append(("diag.fp64", words(lang, "diag.fp64_line", {"fp64_pipe_pct": mix.fp64_pipe_pct})))
    rows.append(("diag.stalls", " · ".join(f"{s.name} {format_value('stall_pct', s.pct, lang)}"
                                            for s in d.top_stalls)))
    return rows


#: The symptom rows of a profile card under their raw ncu names: (metric, kind of value). The
#: card shows every one for every kernel (zero where the kernel has none), so that neither a row's
#: presence nor its name gives the answer away: the reader must know what each metric measures.
RAW_SYMPTOMS: tuple[tuple[str, str], ...] = (
    (MemoryWorkload.OPTIONAL_METRICS["global_load_bytes_per_sector"], "decimal"),
    (MemoryWorkload.OPTIONAL_METRICS["global_store_bytes_per_sector"], "decimal"),
    (MemoryWorkload.OPTIONAL_METRICS["shared_wavefronts"], "count"),
    (MemoryWorkload.OPTIONAL_METRICS["shared_wavefronts_ideal"], "count"),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "count"),
    ("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "count"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "decimal"),
    (InstructionMix.FP64_PIPE[0], "pct"),
)
#: A unit's metric, by unit id (labkit.profiling.units).
_UNIT_METRIC = {unit: names[0] for unit, _, names in UNITS}


def _raw_value(profile: KernelProfile, metric: str, kind: str, lang: str) -> str:
    value = optional_value(profile, metric)
    if value is None and metric == InstructionMix.FP64_PIPE[0]:
        value = next((v for v in (optional_value(profile, m) for m in InstructionMix.FP64_PIPE) if v is not None),
                     None)
    if value is None:
        return "—"
    if kind == "pct":
        return format_value("value_pct", value, lang)
    return format_number(value, 0 if kind == "count" or float(value).is_integer() else 1, lang)


def card_rows(profile: KernelProfile, d: Diagnosis, lang: str, raw: bool = False) -> list[tuple[str, str, bool]]:
    """A profile card (chapter 5's cases): what the report shows, as (heading, text, heading is a
    metric name). The launch, Speed of Light, the busiest units, occupancy, then every symptom the
    checklist reads, shown for every kernel whether or not it has the symptom, then the top stalls.
    ``raw``: the symptoms and the busiest units under their ncu metric names, as ``ncu --page raw``
    prints them, for the reader to interpret; otherwise in the page's words."""
    named = profile_rows(d, lang, readings=False)
    rows = [(label(lang, key), text, False) for key, text in named
            if key in ("diag.launch", "diag.sol", "diag.occupancy")]
    if raw:
        rows.insert(2, (label(lang, "diag.busiest"), " · ".join(
            f"{_UNIT_METRIC[unit].split('.')[0]} {format_value('unit_pct', pct, lang)}"
            for unit, pct in d.busiest_loads(BUSIEST_SHOWN, memory=False)), False))
        rows += [(metric, _raw_value(profile, metric, kind, lang), True) for metric, kind in RAW_SYMPTOMS]
    else:
        rows.insert(2, (label(lang, "diag.busiest"), busiest_units(d, lang), False))
        shown = dict(named)
        if "diag.sectors" in shown:
            rows.append((label(lang, "diag.sectors"), shown["diag.sectors"], False))
        rows.append((label(lang, "diag.shared"), shown.get("diag.shared", label(lang, "diag.shared_none")), False))
        rows.append((label(lang, "diag.local"), shown["diag.local"], False))
        for key in ("diag.threads", "diag.fp64"):
            if key in shown:
                rows.append((label(lang, key), shown[key], False))
    rows.append((label(lang, "diag.stalls"), dict(named)["diag.stalls"], False))
    return rows


def render_kernel(d: Diagnosis, a: Assessment, lang: str, launch_id: int | None = None,
                  has_rules: bool = True, width: int = WIDTH) -> str:
    """One kernel: verdict, what the report shows (profile_rows), then the checklist items by
    expected gain."""
    lines = [heading(d.kernel, launch_id, width)]
    lines += wrap(verdict_line(a, lang, d), width)
    for key, text in profile_rows(d, lang):
        lines += _field(lang, key, text, width)
    if a.items:
        lines.append(label(lang, "diag.items_below" if a.at_roof else "diag.items"))
        for position, fired in enumerate(a.items, start=1):
            lines += item_lines(position, fired, lang, width)
    if not has_rules:
        lines += wrap(label(lang, "diag.no_rules"), width)
    return "\n".join(lines)


def render(kernels: list[tuple[Diagnosis, Assessment, int | None]], lang: str, has_rules: bool = True,
           width: int = WIDTH) -> str:
    """Every kernel, then the reminder that the timeline comes before the microscope."""
    blocks = [render_kernel(d, a, lang, launch_id, has_rules, width) for d, a, launch_id in kernels]
    return "\n\n".join(blocks + ["\n".join(wrap(label(lang, "diag.timeline_note"), width))]) + "\n"
