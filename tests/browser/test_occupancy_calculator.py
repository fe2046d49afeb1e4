"""The in-page occupancy calculator (labkit/site/assets/occupancy_calculator.js) in Chromium:
equal to labkit.models.occupancy, answer for answer and message for message, on a grid of cases and
seeded random ones across every compute capability; the same architecture table (the site writes
labkit's into the page, occupancy_data.js) and charts; the widget offers every GPU of
labkit.models.occupancy.CALCULATOR_GPUS by name, answers as labkit does on each, renders in both languages
and asks nothing of the network."""

import dataclasses
import itertools
import json
import random
from pathlib import Path

import pytest

import labkit.site
from labkit.models import occupancy
from labkit.models.launch import LaunchConfigError
from labkit.models.occupancy import ARCHITECTURES, CALCULATOR_GPUS, KernelLaunch
from labkit.site.plugin import occupancy_data_script

pytestmark = pytest.mark.browser

ASSET = Path(labkit.site.__file__).parent / "assets" / "occupancy_calculator.js"
KIB = 1024
ARCHITECTURES_LABELS = [arch.label for arch in ARCHITECTURES.values()]

# Cases go in and answers come out as one JSON string each: Playwright is slow to carry thousands of
# small objects across, and quick with one string.
CALCULATE_ALL = """text => JSON.stringify(JSON.parse(text).map(c => {
  try { return {ok: window.labkitOccupancy.calculate(c)}; } catch (e) { return {error: e.message}; }
}))"""


def calculate_all(page, cases):
    return json.loads(page.evaluate(CALCULATE_ALL, json.dumps(cases)))


def load_calculator(page):
    """The page's scripts, in the site's order: labkit's table as data, the typed-number reader, then
    the calculator."""
    page.add_script_tag(content=occupancy_data_script())
    page.add_script_tag(path=str(ASSET.with_name("typed_numbers.js")))
    page.add_script_tag(path=str(ASSET))


@pytest.fixture
def blank(page):
    """A blank page with the calculator loaded and nothing to mount."""
    page.set_content("<!doctype html><html><head></head><body></body></html>")
    load_calculator(page)
    return page


def as_json(value):
    return json.loads(json.dumps(value))


def python_answer(case):
    arch = ARCHITECTURES[tuple(int(p) for p in case["compute_capability"].split("."))]
    launch = KernelLaunch(**{key: value for key, value in case.items() if key != "compute_capability"})
    try:
        return {"ok": as_json(dataclasses.asdict(occupancy.calculate(launch, arch)))}
    except LaunchConfigError as error:
        return {"error": str(error)}


def case(cc, threads, registers, static=0, dynamic=0, max_dynamic=None, carveout=None):
    return {"compute_capability": cc, "threads_per_block": threads, "registers_per_thread": registers,
            "static_shared_bytes": static, "dynamic_shared_bytes": dynamic,
            "max_dynamic_shared_bytes": max_dynamic, "carveout_percent": carveout}


def grid_cases():
    """Every compute capability x block sizes around warp multiples x register edges x shared-memory
    edges (reservation, 48 KiB static, carve-out steps, opt-in), then attributes and carve-outs."""
    threads = (0, 1, 31, 32, 33, 64, 96, 100, 128, 250, 256, 288, 512, 640, 1000, 1024, 1025)
    registers = (0, 16, 32, 33, 40, 64, 65, 128, 255, 256)
    # (48 KiB + 256 bytes and 227 KiB + 256 bytes print as x.25 KiB: the messages' rounding, half to even)
    shared = ((0, 0), (0, 47 * KIB), (1000, 12_345), (48 * KIB, 0), (48 * KIB + 1, 0), (48 * KIB + 256, 0),
              (0, 57 * KIB), (0, 100_000), (0, 227 * KIB), (0, 227 * KIB + 1), (0, 227 * KIB + 256))
    cases = [case(cc, t, r, s, d) for cc, t, r, (s, d) in itertools.product(ARCHITECTURES_LABELS, threads, registers, shared)]
    for cc in ARCHITECTURES_LABELS:
        for carveout in (None, 0, 1, 10, 25, 50, 99, 100, 101):
            for dynamic in (0, 5000, 40_000, 70_000):
                cases.append(case(cc, 256, 32, 0, dynamic, carveout=carveout))
        for max_dynamic in (0, 4096, 45_056, 45_057, 100_000, 228_352, 228_353):
            cases += [case(cc, 128, 40, 4096, dynamic, max_dynamic) for dynamic in (0, 45_056, 45_057)]
    return cases


def random_cases(count, seed=20261130):
    """Seeded random configurations, mostly valid, some over a limit."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        arch = rng.choice(list(ARCHITECTURES.values()))
        static = rng.choice([0, rng.randrange(0, 48 * KIB + 1), rng.randrange(0, 48 * KIB + 2)])
        dynamic = rng.randrange(0, max(1, arch.max_shared_bytes_per_block_optin - static + 2))
        cases.append(case(
            arch.label, rng.choice([rng.randrange(1, 1025), rng.randrange(-1, 1100)]),
            rng.choice([rng.randrange(0, 256), rng.randrange(0, 257)]), static, dynamic,
            rng.choice([None, rng.randrange(0, arch.max_shared_bytes_per_block_optin - static + 2)]),
            rng.choice([None, None, rng.randrange(0, 101), rng.randrange(-1, 102)])))
    return cases


def first_difference(cases, js_answers):
    for c, js in zip(cases, js_answers):
        py = python_answer(c)
        if js != py:
            return f"first differing case: {c}\n  JavaScript: {js}\n  Python:     {py}"
    return None


def test_the_architecture_table_is_labkits(blank):
    tables = blank.evaluate("window.labkitOccupancy.ARCHITECTURES")
    assert tables == {arch.label: as_json(dataclasses.asdict(arch)) for arch in ARCHITECTURES.values()}


def test_javascript_equals_python_on_the_grid_and_random_cases(blank):
    cases = grid_cases() + random_cases(2000)
    answers = calculate_all(blank, cases)
    assert len(cases) >= 1000
    difference = first_difference(cases, answers)
    assert difference is None, difference
    # the cases exercise every answer there is: each limiter, impossible launches, refusals
    outcomes = [a["ok"] for a in answers if "ok" in a]
    assert {name for a in outcomes for name in a["limiters"]} == set(occupancy.LIMITERS)
    assert any(a["blocks_per_sm"] == 0 for a in outcomes)
    assert len(outcomes) >= 1000 and sum("error" in a for a in answers) >= 200
    assert blank.watch.errors == []


def test_a_difference_would_be_named(blank):
    cases = [case("9.0", 256, 32), case("9.0", 256, 33)]
    answers = calculate_all(blank, cases)
    answers[1]["ok"]["blocks_per_sm"] += 1
    assert first_difference(cases, answers).startswith("first differing case: {'compute_capability': '9.0', "
                                                       "'threads_per_block': 256, 'registers_per_thread': 33")


@pytest.mark.parametrize("c", [case("9.0", 100, 64, 1000, 20_000), case("8.6", 256, 37, carveout=25),
                               case("7.5", 1000, 65, 0, 30_000, max_dynamic=20_000), case("8.9", 33, 255)],
                         ids=lambda c: c["compute_capability"])
def test_the_three_charts_are_labkits(blank, c):
    launch = KernelLaunch(**{k: v for k, v in c.items() if k != "compute_capability"})
    arch = ARCHITECTURES[tuple(int(p) for p in c["compute_capability"].split("."))]
    for js_name, py_chart in (("blockSizeChart", occupancy.block_size_chart), ("registersChart", occupancy.registers_chart),
                              ("sharedMemoryChart", occupancy.shared_memory_chart)):
        js = blank.evaluate(f"c => window.labkitOccupancy.{js_name}(c)", c)
        assert js == as_json(dataclasses.asdict(py_chart(launch, arch))), js_name


def test_every_word_exists_in_both_languages(blank):
    words = blank.evaluate("window.labkitOccupancy.WORDS")
    assert set(words) == {"fr", "zh"} and set(words["fr"]) == set(words["zh"])
    assert all(value.strip() for table in words.values() for value in table.values())


WIDGETS = """<!doctype html><html><head></head><body>
<div class="occupancy-calculator" data-lang="fr"></div>
<div class="occupancy-calculator" data-lang="zh"></div>
</body></html>"""


def numbers(page, lang):
    rows = page.locator(f'div.occupancy-calculator[data-lang="{lang}"] tr[data-key]')
    return dict(zip(rows.evaluate_all("rows => rows.map(r => r.dataset.key)"),
                    rows.evaluate_all("rows => rows.map(r => r.querySelector('td').textContent)")))


def test_the_widget_renders_numbers_and_three_charts_in_both_languages(page):
    page.set_content(WIDGETS)
    load_calculator(page)
    for lang, percent in (("fr", "100\u202f%"), ("zh", "100%")):
        widget = page.locator(f'div.occupancy-calculator[data-lang="{lang}"]')
        assert widget.locator("svg").count() == 3
        assert widget.locator("svg circle.occ-current").count() == 3
        shown = numbers(page, lang)  # 256 threads x 32 registers on 9.0: 8 blocks, 64 warps
        assert (shown["blocks_per_sm"], shown["active_warps_per_sm"], shown["occupancy"]) == ("8", "64 / 64", percent)
    assert "registres" in numbers(page, "fr")["limiters"] and "寄存器" in numbers(page, "zh")["limiters"]
    assert page.watch.errors == [] and page.watch.remote_requests == []


def test_the_widget_follows_its_inputs_and_names_an_impossible_launch(page):
    page.set_content(WIDGETS)
    load_calculator(page)
    widget = page.locator('div.occupancy-calculator[data-lang="fr"]')
    widget.locator('input[name="threads_per_block"]').fill("1024")
    widget.locator('input[name="registers_per_thread"]').fill("33")
    expected = occupancy.calculate(KernelLaunch(1024, 33))
    shown = numbers(page, "fr")
    assert shown["blocks_per_sm"] == str(expected.blocks_per_sm) == "1"
    assert shown["occupancy"] == "50\u202f%"
    widget.locator("select").select_option(label="RTX 3060 / 3090, A10G (8.6)")
    assert numbers(page, "fr")["active_warps_per_sm"].endswith("/ 48")
    widget.locator('input[name="threads_per_block"]').fill("2000")
    alert = widget.locator(".occ-error")
    assert alert.text_content() == ("Lancement impossible\u00a0: threads par bloc\u00a0: 2\u202f000 demandés, "
                                    "la capacité de calcul 8.6 en permet au plus 1\u202f024")
    assert widget.locator("svg").count() == 0
    assert page.watch.errors == [] and page.watch.remote_requests == []


def test_the_widget_offers_every_gpu_by_name_and_answers_as_labkit_on_each(page):
    page.set_content(WIDGETS)
    load_calculator(page)
    widget = page.locator('div.occupancy-calculator[data-lang="fr"]')
    options = widget.locator("select option")
    assert options.all_text_contents() == [f"{name} ({cc[0]}.{cc[1]})" for name, cc in CALCULATOR_GPUS]
    for name in ("T4 / RTX 2080 (7.5)", "A100 (8.0)", "Jetson Orin (8.7)", "L4 / RTX 4090 (8.9)",
                 "B300 (10.3)", "Jetson Thor (11.0)", "RTX 5090 (12.0)", "DGX Spark (12.1)"):
        widget.locator("select").select_option(label=name)
        widget.locator('input[name="threads_per_block"]').fill("96")
        widget.locator('input[name="registers_per_thread"]').fill("40")
        widget.locator('input[name="dynamic_shared_bytes"]').fill("20000")
        cc = tuple(int(p) for p in name.rsplit("(", 1)[1].rstrip(")").split("."))
        expected = occupancy.calculate(KernelLaunch(96, 40, 0, 20000), ARCHITECTURES[cc])
        shown = numbers(page, "fr")
        assert shown["blocks_per_sm"] == str(expected.blocks_per_sm), name
        assert shown["active_warps_per_sm"] == f"{expected.active_warps_per_sm} / {expected.max_warps_per_sm}", name
    assert page.watch.errors == [] and page.watch.remote_requests == []


def test_an_unknown_compute_capability_is_named_as_labkit_names_it(blank):
    js = calculate_all(blank, [case("6.1", 256, 32)])[0]
    with pytest.raises(ValueError) as python:
        occupancy.architecture((6, 1))
    assert js == {"error": str(python.value)}


def retype(field, text):
    field.click()
    field.press("Control+a")
    field.press("Backspace")
    if text:
        field.press_sequentially(text, delay=10)


@pytest.mark.parametrize("typed, lang, message", [
    ("1e3", "fr", "Un nombre entier positif ou nul est attendu, écrit en chiffres."),
    ("12abc", "fr", "Un nombre entier positif ou nul est attendu, écrit en chiffres."),
    ("12.5", "zh", "请输入非负整数，只用数字。"),
    ("-5", "zh", "请输入非负整数，只用数字。"),
    ("", "fr", "Entrez un nombre."),
])
def test_a_typed_value_that_is_not_a_whole_number_is_named_next_to_its_field(page, typed, lang, message):
    page.set_content(WIDGETS)
    load_calculator(page)
    widget = page.locator(f'div.occupancy-calculator[data-lang="{lang}"]')
    field = widget.locator('input[name="threads_per_block"]')
    retype(field, typed)
    assert field.input_value() == typed
    assert [m for m in widget.locator(".occ-message").all_inner_texts() if m] == [message]
    assert widget.locator(f"#{field.get_attribute('aria-describedby')}").inner_text() == message
    assert field.get_attribute("aria-invalid") == "true"
    assert widget.locator("tr[data-key]").count() == 0 and widget.locator("svg").count() == 0


def test_a_number_typed_as_the_page_prints_it_is_read(page):
    """The calculator prints "1 024" (French) and "1,024" (Chinese): typed back, each is that
    number, and so are full-width digits from a Chinese input method; French "1,024" is a decimal."""
    page.set_content(WIDGETS)
    load_calculator(page)
    for lang, typed, threads in (("fr", "1 024", 1024), ("fr", "1\u202f024", 1024), ("fr", "２５６", 256),
                                 ("zh", "1,024", 1024), ("zh", "２５６", 256), ("zh", "１，０２４", 1024)):
        widget = page.locator(f'div.occupancy-calculator[data-lang="{lang}"]')
        field = widget.locator('input[name="threads_per_block"]')
        retype(field, typed)
        assert field.input_value() == typed
        assert [m for m in widget.locator(".occ-message").all_inner_texts() if m] == [], (lang, typed)
        expected = occupancy.calculate(KernelLaunch(threads, 32))
        assert numbers(page, lang)["blocks_per_sm"] == str(expected.blocks_per_sm), (lang, typed)
    widget = page.locator('div.occupancy-calculator[data-lang="fr"]')
    retype(widget.locator('input[name="threads_per_block"]'), "1,024")
    assert [m for m in widget.locator(".occ-message").all_inner_texts() if m] == [
        "Un nombre entier positif ou nul est attendu, écrit en chiffres."]
    assert page.watch.errors == []


@pytest.mark.parametrize("lang, expected", [
    ("fr", "Lancement impossible\u00a0: un bloc de 1\u202f024\u202fthreads à 255\u202fregistres en demande 262\u202f144 "
           "(8\u202f192 par warp, arrondis à l’unité d’allocation), un bloc peut en avoir au plus 65\u202f536\u00a0: "
           "aucun bloc ne tient sur un SM"),
    ("zh", "无法启动：一个 1,024 线程、每线程 255 个寄存器的 block 需要 262,144 个寄存器（按分配单位取整后每个 warp 8,192 个），"
           "而一个 block 最多只能有 65,536 个：一个 SM 连一个 block 也放不下"),
])
def test_a_launch_no_sm_can_hold_is_called_impossible(page, lang, expected):
    assert occupancy.calculate(KernelLaunch(1024, 255)).blocks_per_sm == 0
    page.set_content(WIDGETS)
    load_calculator(page)
    widget = page.locator(f'div.occupancy-calculator[data-lang="{lang}"]')
    retype(widget.locator('input[name="threads_per_block"]'), "1024")
    retype(widget.locator('input[name="registers_per_thread"]'), "255")
    assert widget.locator(".occ-error").text_content() == expected
    assert widget.locator("tr[data-key]").count() == 0


def test_every_refusal_is_said_in_both_languages_and_none_in_english(blank):
    """Each refusal labkit.models.occupancy can give (threads, registers, shared memory, attribute,
    carve-out) has its sentence in each language; the widget never shows Python's English."""
    keys = blank.evaluate("""() => { const out = {};
      for (const [lang, table] of Object.entries(window.labkitOccupancy.REFUSALS)) out[lang] = Object.keys(table).sort();
      return out; }""")
    assert keys["fr"] == keys["zh"]
    thrown = blank.evaluate("""cases => cases.map(c => { try { window.labkitOccupancy.calculate(c); return null; }
      catch (e) { return e.key; } })""", [case(c, t, r, s, d, m, v) for c, t, r, s, d, m, v in [
        ("9.0", 0, 32, 0, 0, None, None), ("9.0", 2000, 32, 0, 0, None, None), ("9.0", 256, 300, 0, 0, None, None),
        ("9.0", 256, 32, -1, 0, None, None), ("9.0", 256, 32, 50000, 0, None, None),
        ("9.0", 256, 32, 0, 300000, None, None), ("9.0", 256, 32, 0, 0, 10**6, None), ("9.0", 256, 32, 0, 0, None, 101)]])
    assert None not in thrown and set(thrown) <= set(keys["fr"])
