"""The chapter 2 access explorer: its JavaScript analyzer equals labkit.models.access case for case, and
its widget renders figures and an SVG in both languages without any remote request."""

import random
from pathlib import Path

import pytest

import labkit.site
from labkit.models.access import WARP_LANES, WarpAccess, analyze, broadcast, strided, tile_column
from labkit.report.typed_numbers import whole_digits

pytestmark = pytest.mark.browser

ASSETS = Path(labkit.site.__file__).parent / "assets"
SCRIPT = ASSETS / "access_explorer.js"
FIELDS = {  # Python field -> JavaScript field
    "active_lanes": "activeLanes", "unique_bytes": "uniqueBytes", "requests": "requests", "sectors": "sectors",
    "lines": "lines", "wavefronts": "wavefronts", "bank_conflicts": "bankConflicts",
    "ideal_wavefronts": "idealWavefronts", "lane_wavefronts": "laneWavefronts",
}
STRIDES = (*range(0, 41), 48, 63, 64, 65, 100, 127, 129, 1000)


def cases() -> list[dict]:
    """Strided warps (non-power-of-two strides, misaligned starts, partial warps) of every width,
    space and direction; random address sets; broadcasts, tile columns and paired lanes."""
    rng = random.Random(2026)
    found = []

    def add(addresses, width, op, space):
        found.append({"addresses": list(addresses), "widthBytes": width, "op": op, "space": space})

    for width in (1, 2, 4, 8, 16):
        for stride in STRIDES:
            offset = rng.choice((0, width, 32, 64, 128 - width, 4096 + 3 * width))
            active = rng.choice((32, 32, 32, 17, 8, 1))
            for space in ("global", "shared"):
                for op in ("load", "store"):
                    add(strided(stride, width, offset, active), width, op, space)
    for _ in range(300):
        width = rng.choice((1, 2, 4, 8, 16))
        span = rng.choice((128, 512, 2048))
        addresses = [rng.randrange(0, span, width) if rng.random() < 0.85 else None for _ in range(WARP_LANES)]
        add(addresses, width, rng.choice(("load", "store")), rng.choice(("global", "shared")))
    for width in (4, 8, 16):
        for op in ("load", "store"):
            for addresses in (
                broadcast(0), broadcast(4 * width), tile_column(3, 32, width), tile_column(3, 33, width),
                tile_column(5, 32, width, xor_swizzle=True),
                [width * (lane // 2) for lane in range(WARP_LANES)],
                [width * (2 * (lane // 4) + lane % 2) for lane in range(WARP_LANES)],
                [width * (lane % 16) for lane in range(WARP_LANES)],
                [width * (lane // 2) if lane % 2 == 0 else None for lane in range(WARP_LANES)],
                [None] * WARP_LANES,
            ):
                add(addresses, width, op, "shared")
    return found


def python_counts(case: dict) -> dict:
    counts = analyze(WarpAccess(tuple(case["addresses"]), case["widthBytes"], case["op"], case["space"]))
    return {js: list(v) if isinstance(v, tuple) else v for py, js in FIELDS.items() for v in [getattr(counts, py)]}


@pytest.fixture
def explorer(page):
    page.set_content('<div class="access-explorer" data-lang="fr"></div>'
                     '<div class="access-explorer" data-lang="zh"></div>')
    page.add_script_tag(path=str(ASSETS / "typed_numbers.js"))   # the site loads it before the widgets
    page.add_script_tag(path=str(SCRIPT))
    return page


def test_javascript_analyzer_equals_python_on_every_case(explorer):
    all_cases = cases()
    assert len(all_cases) >= 500
    results = explorer.evaluate("cases => cases.map(c => window.labkitAccess.analyze(c))", all_cases)
    for case, javascript in zip(all_cases, results):
        python = python_counts(case)
        got = {key: javascript[key] for key in python}
        assert got == python, f"first differing case: {case}\n  JavaScript {got}\n  Python     {python}"
    assert explorer.watch.errors == []


def test_javascript_refuses_what_python_refuses(explorer):
    message = explorer.evaluate("""() => { try { window.labkitAccess.analyze(
        {addresses: window.labkitAccess.strided(1, 4, 2), widthBytes: 4}); } catch (e) { return e.message; } }""")
    assert message == "lane 0 address 2 is not aligned to its 4-byte width"
    assert explorer.evaluate("() => window.labkitAccess.strided(2, 8, 16, 3)")[:4] == [16, 32, 48, None]


def figures(page, index):
    terms = page.locator(f"div.access-explorer >> nth={index} >> dl dt").all_inner_texts()
    values = page.locator(f"div.access-explorer >> nth={index} >> dl dd").all_inner_texts()
    return dict(zip(terms, values))


def test_widget_shows_figures_and_a_drawing_in_both_languages(explorer):
    french, chinese = figures(explorer, 0), figures(explorer, 1)
    # Default: stride 1, 4 bytes, global load: 1 request, 4 sectors, all bytes useful.
    assert french["Requêtes"] == "1" and french["Secteurs de 32\u202foctets"] == "4"
    assert french["Secteurs par requête"] == "4,0" and french["Efficacité"] == "100\u202f%"
    assert chinese["请求数"] == "1" and chinese["每请求 sector 数"] == "4.0" and chinese["效率"] == "100%"
    for index in (0, 1):
        svg = explorer.locator(f"div.access-explorer >> nth={index} >> svg")
        assert svg.count() == 2 and svg.locator("rect").count() >= 32 + 4
    assert explorer.watch.remote_requests == [] and explorer.watch.errors == []


def test_widget_follows_its_inputs(explorer):
    root = explorer.locator("div.access-explorer >> nth=0")
    root.locator("input >> nth=0").fill("32")
    root.locator("select >> nth=1").select_option("shared")
    shared = figures(explorer, 0)
    # A column of a [32][32] float tile: 32 wavefronts, 31 of them conflicts.
    assert shared["Wavefronts"] == "32" and shared["Conflits de banc"] == "31"
    assert root.locator("svg rect").count() >= 32 + 32
    root.locator("input >> nth=0").fill("33")
    assert figures(explorer, 0)["Conflits de banc"] == "0"
    root.locator("select >> nth=0").select_option("16")
    root.locator("input >> nth=0").fill("1")
    assert figures(explorer, 0)["Wavefronts"] == "4"  # four quarter-warps
    root.locator("select >> nth=1").select_option("global")
    root.locator("input >> nth=1").fill("16")
    assert figures(explorer, 0)["Secteurs de 32\u202foctets"] == "17"
    assert explorer.watch.remote_requests == [] and explorer.watch.errors == []


def retype(field, text):
    """Empty the field and type ``text`` key by key, as a reader does."""
    field.click()
    field.press("Control+a")
    field.press("Backspace")
    if text:
        field.press_sequentially(text, delay=10)


#: (field, width, typed, message or None, figures expected for that value or None).
TYPED = [
    ("offset", "4", "64", None, {"Secteurs de 32\u202foctets": "4"}),
    ("offset", "8", "100", "Un multiple de 8 est attendu (la largeur d’un accès).", None),
    ("offset", "16", "128", None, {"Secteurs de 32\u202foctets": "16"}),
    ("offset", "4", "-8", "Entre 0 et 4\u202f096.", None),
    ("offset", "4", "99999", "Entre 0 et 4\u202f096.", None),
    ("stride", "4", "2.5", "Un nombre entier est attendu, écrit en chiffres.", None),
    ("stride", "4", "1e1", "Un nombre entier est attendu, écrit en chiffres.", None),
    ("stride", "4", "", "Entrez un nombre.", None),
    ("stride", "4", "100", "Entre 0 et 64.", None),
    ("stride", "4", "12", None, {"Secteurs de 32\u202foctets": "32"}),
    # as the page prints numbers, and as a Chinese input method types digits in full-width mode
    ("offset", "4", "1\u202f024", None, {"Secteurs de 32\u202foctets": "4"}),
    ("offset", "4", "1 024", None, {"Secteurs de 32\u202foctets": "4"}),
    ("stride", "4", "１２", None, {"Secteurs de 32\u202foctets": "32"}),
    ("offset", "4", "1,024", "Un nombre entier est attendu, écrit en chiffres.", None),   # French: 1.024
]


@pytest.mark.parametrize("name, width, typed, message, expected", TYPED)
def test_typed_values_stay_as_typed_and_get_one_message_in_the_pages_language(explorer, name, width, typed, message,
                                                                             expected):
    root = explorer.locator("div.access-explorer >> nth=0")
    root.locator("select >> nth=0").select_option(width)
    field = root.locator("input >> nth=0" if name == "stride" else "input >> nth=1")
    retype(field, typed)
    assert field.input_value() == typed, "the widget rewrote what was typed"
    messages = [m for m in root.locator(".access-explorer__message").all_inner_texts() if m]
    own = field.locator("xpath=..").locator(".access-explorer__message").inner_text()
    if message is None:
        assert messages == [] and field.get_attribute("aria-invalid") is None
        shown = figures(explorer, 0)
        assert {key: shown[key] for key in expected} == expected
        # and they are the analyzer's for exactly what the fields show
        stride, offset = (int(whole_digits(f.input_value(), "fr")) for f in root.locator("input").all())
        python = analyze(WarpAccess(strided(stride, int(width), offset), int(width), "load", "global"))
        assert shown["Secteurs de 32\u202foctets"] == str(python.sectors)
    else:
        assert messages == [message] and own == message, "one message, next to its field"
        assert field.get_attribute("aria-invalid") == "true"
        assert figures(explorer, 0) == {}, "figures shown for a value the field does not hold"
        assert root.locator("svg").count() == 0


def test_a_chinese_message(explorer):
    root = explorer.locator("div.access-explorer >> nth=1")
    retype(root.locator("input >> nth=1"), "1,024")   # as the Chinese page prints it
    assert [m for m in root.locator(".access-explorer__message").all_inner_texts() if m] == []
    retype(root.locator("input >> nth=0"), "2.5")
    assert [m for m in root.locator(".access-explorer__message").all_inner_texts() if m] == ["请输入整数，只用数字。"]
    retype(root.locator("input >> nth=0"), "3")
    assert figures(explorer, 1)["32 字节 sector 数"] == "12"
