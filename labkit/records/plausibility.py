"""A results file's device facts held to what is known of its GPU, not to the file itself.

The labs' validators hold every rate in a record to the peaks written in the same record; these
checks hold those peaks, the SM count, the compute capability and the clocks to the GPU the
provenance names: its vendor datasheet where :mod:`labkit.specs.datasheets` has one, otherwise what its
compute capability allows (its largest die's SMs, its fastest DRAM, its lanes: labkit.specs.architectures). So a
forged peak, SM count, compute capability or clock is refused, and with it every rate it would
have let through.

:func:`impossible_device_fact` walks the record for the fields that carry device facts, whatever
lab wrote them (``sm_count``, ``max_sm_clock_mhz``, ``hbm_peak_gbps``, ``fp32_lanes_per_sm``,
``fp64_lanes_per_sm``, ``compute_capability``, and ``device/name``) and every clock read during the run
(``sm_clock_mhz``, ``mem_clock_mhz``, the provenance's ``clocks_mhz``), and returns the first that
cannot be, as ``(field path, what is wrong)``.
"""

from __future__ import annotations

from collections.abc import Iterator

from labkit.specs.architectures import COMPUTE_CAPABILITIES
from labkit.specs.datasheets import Datasheet, datasheet_for

#: A peak the record computes from the driver's bus width and memory clock may exceed the vendor's
#: rounded figure by this much (an H200: 4 814 GB/s computed, "4.8 TB/s" stated; a B200: 8 184, "8 TB/s").
PEAK_SLACK = 1.05
#: The maximum SM clock the driver reports may exceed the datasheet's boost clock by this much.
MAX_CLOCK_SLACK = 1.05
#: A clock read while a kernel runs may exceed the rated boost clock by this much on a GeForce part:
#: GPU Boost runs them above it when power and temperature allow (an RTX 4090 rated 2 520 MHz is
#: often read near 2 800 MHz); no NVIDIA part runs a quarter above its rating at stock. A data-centre
#: part's rated boost is its maximum clock (the H200 reads 1 980 MHz under load): 2 % for rounding.
READ_CLOCK_SLACK = 1.25
DATA_CENTRE_READ_CLOCK_SLACK = 1.02
#: Where no datasheet is known: no NVIDIA GPU's SM clock reaches 3.2 GHz, nor its DRAM clock 20 GHz
#: (GDDR7 as the driver reports it: 14 001 MHz on an RTX 5090).
ANY_SM_CLOCK_MHZ = 3_200.0
ANY_MEM_CLOCK_MHZ = 20_000.0
#: No NVIDIA GPU's SM or memory clock is read below this while it runs (idle clocks are 200-400 MHz):
#: a lower reading is a clock in GHz written as MHz (1.98 for 1 980), the audit's case 24.
MIN_CLOCK_MHZ = 100.0
#: The fields that hold a clock in MHz, and the limit each is held to from above.
_CLOCK_BOUNDS = {"max_sm_clock_mhz": "max_sm_clock_mhz", "sm_clock_mhz": "read_sm_clock_mhz",
                 "mem_clock_mhz": "mem_clock_mhz"}


def _walk(node, path: str = "") -> Iterator[tuple[str, str, object]]:
    """(path, key, value) of every field of a JSON-like tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}/{key}" if path else str(key)
            yield where, str(key), value
            yield from _walk(value, where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def _cc_label(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"{value[0]}.{value[1]}"
    return None


def _limits(cc: tuple[int, int], sheet: Datasheet | None) -> dict[str, float]:
    """The bounds of this GPU's facts: from its datasheet, else from its compute capability."""
    if sheet is not None:
        return {"sm_count_exact": sheet.sm_count, "max_sm_clock_mhz": sheet.boost_clock_mhz * MAX_CLOCK_SLACK,
                "read_sm_clock_mhz": sheet.boost_clock_mhz * (READ_CLOCK_SLACK if "GeForce" in sheet.name
                                                              else DATA_CENTRE_READ_CLOCK_SLACK),
                "hbm_peak_gbps": sheet.hbm_gbps * PEAK_SLACK, "mem_clock_mhz": ANY_MEM_CLOCK_MHZ}
    family = COMPUTE_CAPABILITIES[cc]
    return {"sm_count_max": family.max_sm_count, "max_sm_clock_mhz": ANY_SM_CLOCK_MHZ,
            "read_sm_clock_mhz": ANY_SM_CLOCK_MHZ, "hbm_peak_gbps": family.max_dram_gbps * PEAK_SLACK,
            "mem_clock_mhz": ANY_MEM_CLOCK_MHZ}


def impossible_device_fact(document: dict) -> tuple[str, str] | None:
    """The first device fact of a results file (its JSON, as a dict) that its GPU cannot have, as
    (field path, reason); None when all can be. See the module docstring."""
    provenance = document.get("provenance", {})
    gpu = provenance.get("gpu", "")
    label = provenance.get("compute_capability", "")
    try:
        cc = tuple(int(part) for part in label.split("."))
    except ValueError:
        return "provenance/compute_capability", f"{label!r} is not a compute capability"
    if cc not in COMPUTE_CAPABILITIES:
        known = ", ".join(c.label for c in COMPUTE_CAPABILITIES.values())
        return "provenance/compute_capability", f"{label}: labkit knows the compute capabilities {known}"
    sheet = datasheet_for(gpu)
    if sheet is not None and sheet.compute_capability != cc:
        want = "{}.{}".format(*sheet.compute_capability)
        return "provenance/compute_capability", f"{label}, but the {sheet.name} is {want} ({sheet.source})"
    limits = _limits(cc, sheet)
    whose = f"the {sheet.name}'s datasheet" if sheet else f"any GPU of compute capability {label}"
    facts = COMPUTE_CAPABILITIES[cc]
    lanes = {"fp32_lanes_per_sm": facts.fp32_lanes_per_sm, "fp64_lanes_per_sm": facts.fp64_lanes_per_sm}
    clocks = [("provenance/clocks_mhz/sm", provenance.get("clocks_mhz", {}).get("sm"), "read_sm_clock_mhz"),
              ("provenance/clocks_mhz/memory", provenance.get("clocks_mhz", {}).get("memory"), "mem_clock_mhz")]
    for where, value, bound in clocks:
        if isinstance(value, (int, float)) and value > limits[bound]:
            return where, f"{value:g} MHz is above what {whose} allows ({limits[bound]:.0f} MHz)"
        if isinstance(value, (int, float)) and value < MIN_CLOCK_MHZ:
            return where, _slow_clock(value)
    device = document.get("results", {}).get("device")
    if isinstance(device, dict) and isinstance(device.get("name"), str) and device["name"] != gpu:
        return "results/device/name", f"{device['name']!r}, but the provenance says {gpu!r}"
    for where, key, value in _walk(document.get("results", {}), "results"):
        problem = _fact_problem(key, value, cc, label, limits, lanes, whose)
        if problem:
            return where, problem
    return None


def _slow_clock(mhz: float) -> str:
    return f"{mhz:g} MHz is below any GPU's running clock ({MIN_CLOCK_MHZ:.0f} MHz): a clock in GHz written as MHz?"


def _fact_problem(key, value, cc, label, limits, lanes, whose) -> str | None:
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if key == "sm_count" and number is not None:
        if "sm_count_exact" in limits and number != limits["sm_count_exact"]:
            return f"{number:g} SMs, but {whose} gives {limits['sm_count_exact']}"
        if "sm_count_max" in limits and number > limits["sm_count_max"]:
            return f"{number:g} SMs: {whose} has at most {limits['sm_count_max']} ({COMPUTE_CAPABILITIES[cc].largest_parts})"
    elif key in lanes and number is not None and number != lanes[key]:
        return f"{number:g}, but compute capability {label} has {lanes[key]} (labkit.specs.architectures)"
    elif key == "compute_capability" and _cc_label(value) not in (None, label):
        return f"{_cc_label(value)}, but the provenance says {label}"
    elif number is None:
        return None
    elif key in _CLOCK_BOUNDS and number < MIN_CLOCK_MHZ:
        return _slow_clock(number)
    elif key == "max_sm_clock_mhz" and number > limits["max_sm_clock_mhz"]:
        return f"{number:g} MHz is above what {whose} allows ({limits['max_sm_clock_mhz']:.0f} MHz)"
    elif key == "sm_clock_mhz" and number > limits["read_sm_clock_mhz"]:
        return f"{number:g} MHz read is above what {whose} allows ({limits['read_sm_clock_mhz']:.0f} MHz)"
    elif key == "mem_clock_mhz" and number > limits["mem_clock_mhz"]:
        return f"{number:g} MHz read is above any GPU's memory clock ({limits['mem_clock_mhz']:.0f} MHz)"
    elif key == "hbm_peak_gbps" and number > limits["hbm_peak_gbps"]:
        return f"{number:g} GB/s is above what {whose} allows ({limits['hbm_peak_gbps']:.0f} GB/s)"
    return None
