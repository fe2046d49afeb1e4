"""Chapters 4 and 5 held to the course's own rules and records: the contradictions a review found
between pages, labels and the H200's recorded results, made into checks.

- every stall reason a recorded profile can print is defined in chapter 4's tables, in each language;
- the checklist puts more bytes in flight per thread before more warps (chapter 3's rule), in its
  items and in chapter 5's sections;
- the figures chapters 4-5 quote about the labs' kernels are what the records hold, and the claims
  the pages draw from the records (Long Scoreboard at the DRAM roof, the repaired kernel H flagged
  for coalescing, the ILP lever measured) hold on them;
- the mystery quizzes' keys are the verdict `labkit diagnose` gives on the recorded profiles.
"""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from labkit.course.figures import figure_value
from labkit.course.quizzes import ANSWER_KEY, CASE_QUIZZES, case_answer
from labkit.labs.base import lab, labs
from labkit.labs.lab05.results import CONTROL, PLANTED
from labkit.profiling import checklist
from labkit.profiling.diagnosis import StoredProfile, stall_reasons
from labkit.project import Project
from labkit.records.files import read_results
from labkit.records.files import recorded_paths
from labkit.report.labels import LANGUAGES
from tests.conftest import DOCS, REPO_ROOT

PROJECT = Project(REPO_ROOT)


def _section(lang: str, page: str, anchor: str) -> str:
    """The text of a section of docs/<lang>/<page>, from its heading to the next heading of its level
    or above."""
    text = (DOCS / lang / page).read_text(encoding="utf-8")
    heading = re.search(rf"^(#+) .*\{{#{re.escape(anchor)}\}}$", text, re.MULTILINE)
    assert heading, f"docs/{lang}/{page} has no section {{#{anchor}}}"
    level = len(heading.group(1))
    following = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, heading.end())
    return text[heading.end():following.start() if following else len(text)]


def _stored_profiles(value):
    """Every StoredProfile inside a lab's results."""
    if isinstance(value, StoredProfile):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _stored_profiles(getattr(value, name))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _stored_profiles(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _stored_profiles(item)


def _recorded(lab_id: str):
    the_lab = lab(lab_id)
    return [read_results(path, the_lab.results_type, the_lab.id).results
            for path in recorded_paths(the_lab.lab_dir(PROJECT), PROJECT.relative)]


def recorded_stall_names() -> set[str]:
    """The name of every stall reason in every profile any lab recorded (not only the top three a
    page prints today: a new record may promote any of them)."""
    names = set()
    for the_lab in labs().values():
        for path in recorded_paths(the_lab.lab_dir(PROJECT), PROJECT.relative):
            results = read_results(path, the_lab.results_type, the_lab.id).results
            for profile in _stored_profiles(results):
                names |= {stall.name for stall in stall_reasons(profile.profile())}
    return names


def test_the_records_hold_stall_reasons():
    names = recorded_stall_names()
    assert {"Long Scoreboard", "Drain", "IMC Miss", "No Instruction"} <= names, sorted(names)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_recorded_stall_reason_is_defined_in_chapter_4(lang):
    tables = _section(lang, "performance/04-profiling.md", "warp-states")
    defined = set(re.findall(r"^\| \*\*([^*]+)\*\* \|", tables, re.MULTILINE))
    missing = recorded_stall_names() - defined
    assert not missing, f"docs/{lang}/performance/04-profiling.md#warp-states defines no {sorted(missing)}"


def test_the_checklist_puts_bytes_in_flight_before_warps():
    """Chapter 3's rule (Volkov): more independent loads per thread first, then more warps."""
    ids = checklist.ITEM_IDS
    assert ids.index("latency") < ids.index("occupancy")
    assert checklist.item("latency").level is checklist.item("occupancy").level


@pytest.mark.parametrize("lang", LANGUAGES)
def test_chapter_5_explains_bytes_in_flight_before_occupancy(lang):
    text = (DOCS / lang / "performance/05-checklist.md").read_text(encoding="utf-8")
    assert text.index("{#latency}") < text.index("{#occupancy}")
    assert "03-occupancy.md#volkov" in _section(lang, "performance/05-checklist.md", "order")


# ----- figures and claims against the records ---------------------------------------------------------
@pytest.fixture(scope="module")
def lab05():
    records = _recorded("lab-05")
    if not records:
        pytest.skip("lab 05 is not recorded")
    return records


@pytest.fixture(scope="module")
def lab04():
    records = _recorded("lab-04")
    if not records:
        pytest.skip("lab 04 is not recorded")
    return records


def test_kernel_c_grid_is_the_figure_the_page_quotes(lab05):
    for results in lab05:
        assert results.profile("kernel_c").diagnosis().grid_blocks == figure_value("lab05.slice_blocks")


def test_kernel_g_grid_per_sm_is_the_figure_the_page_quotes(lab05):
    for results in lab05:
        d = results.profile("kernel_g").diagnosis()
        assert d.grid_blocks / d.sm_count == figure_value("lab05.walk_blocks_per_sm")
        repaired = results.profile("kernel_g_repaired").diagnosis()
        assert repaired.occupancy.registers_per_thread <= figure_value("lab05.max_registers")


def test_kernel_b_runs_fp64_at_half_the_fp32_rate_as_the_page_says(lab05):
    """The page: "sur un H200, le pipe FP64 a la moitié du débit du FP32"."""
    for results in lab05:
        mix = results.profile("kernel_b").diagnosis().instructions
        assert mix.fp64_to_fp32_rate == pytest.approx(0.5)


def test_long_scoreboard_leads_at_the_dram_roof(lab05):
    """Chapters 4 and 5: at the DRAM roof Long Scoreboard leads the stalls, and nothing is left to hide."""
    for results in lab05:
        d = results.profile(f"kernel_{CONTROL}").diagnosis()
        assert checklist.assess(d).roof == "dram"
        assert d.top_stalls[0].reason == "long_scoreboard"


def test_the_repaired_kernel_h_is_flagged_for_coalescing_behind_the_instructions(lab05):
    """Chapter 5 says the next `labkit diagnose` pass fires coalescing on kernel H's twin (its
    stride 2), ranked after the instructions because issue, nearly saturated, caps what fewer
    sectors can give."""
    for results in lab05:
        found = checklist.assess(results.profile("kernel_h_repaired").diagnosis())
        items = [fired.item for fired in found.items]
        assert found.first is not None and found.first.item == "instructions", items
        coalescing = next(fired for fired in found.items if fired.item == "coalescing")
        assert coalescing.rule == "UncoalescedGlobalAccess" and coalescing.cap is not None
        assert coalescing.cap.unit == "issue" and coalescing.gain_pct < found.first.gain_pct


def test_scale_add_holds_one_block_per_active_sm(lab04):
    """q05-scale: achieved occupancy at about one block per active SM, theoretical full."""
    for results in lab04:
        profile = next(k for k in results.ncu.kernels if k.name == "scale_add")
        d = profile.diagnosis()
        assert d.grid_blocks == figure_value("lab04.chain_blocks") < d.sm_count
        assert d.occupancy.theoretical_pct == 100
        assert 0.8 * figure_value("lab04.chain_one_block_pct") <= d.occupancy.achieved_pct \
            <= figure_value("lab04.chain_one_block_pct") + 0.5


def test_the_l2_quiz_premise_is_what_lab_04_measured(lab04):
    """q04-l2-mirage: a working set that fits in L2, read several times in one launch, shows more than
    the HBM peak, and one larger than the L2 less; its explanation adds the lab's limit: read once per
    launch, the small set stays under the peak even with the L2 warm."""
    for results in lab04:
        reads = {read.measurement: read for read in results.timer.l2}
        peak = results.hbm_peak_gbps
        assert reads["l2_passes_warm"].gbps > peak > reads["hbm_passes"].gbps
        assert reads["l2_once_flushed"].gbps < reads["l2_once_warm"].gbps < peak


def test_the_l2_quiz_arrays_are_on_either_side_of_the_recorded_l2():
    """q04-l2-mirage's 8 MB array fits in the L2 the H200's driver reports (lab 03's device facts),
    its 800 MB one is many times larger."""
    l2_bytes = figure_value("ch04.l2demo.device_l2_mib") * 2**20
    assert 8e6 < l2_bytes < 800e6 / 10


def test_lab_03_measured_the_latency_lever():
    """Chapter 5's checklist shows lab 03's gain for more loads in flight: a gain, from a record."""
    the_lab = lab("lab-03")
    gains = [gain for results in _recorded("lab-03") for gain in the_lab.gains(results)]
    if not gains:
        pytest.skip("lab 03 is not recorded")
    assert all(gain.item == "latency" and gain.ratio > 1 for gain in gains)


# ----- the mystery quizzes ------------------------------------------------------------------------------
@pytest.mark.parametrize("quiz_id", sorted(CASE_QUIZZES))
def test_a_case_quiz_key_is_the_recorded_verdict(quiz_id):
    computed = case_answer(quiz_id, PROJECT)
    if computed is None:
        pytest.skip(f"{CASE_QUIZZES[quiz_id].lab} is not recorded")
    assert ANSWER_KEY[quiz_id].answer == computed


@pytest.mark.parametrize("quiz_id", sorted(q for q, c in CASE_QUIZZES.items() if c.lab == "lab-05"))
def test_a_mystery_quiz_key_is_the_planted_flaw(quiz_id):
    quiz = CASE_QUIZZES[quiz_id]
    expected = "at-roof" if quiz.case == CONTROL else PLANTED[quiz.case]
    assert quiz.verdicts[ANSWER_KEY[quiz_id].answer] == expected


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_case_diagnosis_waits_for_its_quiz(lang):
    """A diagnosis block right after a case quiz names that quiz in `after:`, so that the page hides it
    until the reader has answered."""
    text = (DOCS / lang / "performance/05-checklist.md").read_text(encoding="utf-8")
    for quiz_id, quiz in CASE_QUIZZES.items():
        block = f"/// diagnosis | {quiz.lab}-{quiz.case}\n    after: {quiz_id}\n///"
        assert block in text, f"docs/{lang}: the diagnosis of {quiz.lab}-{quiz.case} does not wait for {quiz_id}"


# ----- the reference page and q05-roof (issue 30) -------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_diagnose_reference_page_names_every_rule_an_item_listens_to(lang):
    """docs/<lang>/reference/diagnose.md, "Le gain attendu d'un élément": the list of ncu rules whose
    Est. Speedup is an item's gain follows labkit.profiling.checklist, not a memory of it."""
    section = _section(lang, "reference/diagnose.md", "gain")
    rules = {spec.partition(":")[0] for entry in checklist.ITEMS for spec in entry.rules}
    missing = {rule for rule in rules if rule not in section}
    assert not missing, f"docs/{lang}/reference/diagnose.md#gain names no {sorted(missing)}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_q05_roof_key_is_the_duration_the_fma_pipe_leaves(lang):
    """q05-roof: the key's option quotes the best duration the checklist's cap gives (the FMA pipe keeps
    its work), and each distractor quotes a figure at least the numeric tolerance away from it."""
    from labkit.course.figures import FIGURES
    from labkit.site.quiz_balance import choice_quizzes

    text = (DOCS / lang / "performance/05-checklist.md").read_text(encoding="utf-8")
    [quiz] = [q for q in choice_quizzes(text) if q.quiz_id == "q05-roof"]
    key = ANSWER_KEY["q05-roof"].answer
    assert quiz.options[key].startswith("[[ch05.quiz.cap.best_us]]"), quiz.options[key]
    best = FIGURES["ch05.quiz.cap.best_us"].value()
    assert best == pytest.approx(FIGURES["ch05.quiz.cap.duration_us"].value()
                                 * FIGURES["ch05.quiz.cap.fma_pct"].value() / 100)
    for letter, option in quiz.options.items():
        if letter != key:
            figure = re.match(r"\[\[([\w.]+)\]\]", option).group(1)
            assert abs(FIGURES[figure].value() - best) > 0.05 * best, (letter, figure)
