"""Chapter 5's blocks on their own: the checklist table with the gains read from records, and a
lab case's profile card and folded diagnosis."""

import markdown
import pytest

from labkit.labs.base import Case, lab
from labkit.profiling import checklist, diagnosis, ncu
from labkit.records.files import read_results
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.site import case_block
from labkit.site.block_extension import BlockError
from labkit.site.case_block import DiagnosisExtension, ProfileExtension
from labkit.site.checklist_block import ChecklistExtension, gain_decimals
from tests.conftest import REPO_ROOT

LAB04 = REPO_ROOT / "labs/04-profiling/results"


def render(text, extension, lang="fr", project=REPO_ROOT):
    return markdown.markdown(text, extensions=[extension(lang=lang, project=str(project))])


@pytest.mark.parametrize("lang", ("fr", "zh"))
def test_the_checklist_has_every_item_in_order_with_its_level(lang):
    html = render("/// checklist | course\n///\n", ChecklistExtension, lang)
    positions = [html.index(f'data-item="{item.id}"') for item in checklist.ITEMS]
    assert positions == sorted(positions)
    assert html.count('class="checklist-level"') == len(checklist.Level)
    assert html.count(f'href="#{checklist.ITEMS[0].id}"') == 1


def test_the_gains_are_lab_04s_recorded_ones():
    the_lab = lab("lab-04")
    results = read_results(LAB04 / "nvidia-h200.json", the_lab.results_type, the_lab.id).results
    html = render("/// checklist | course\n///\n", ChecklistExtension, "fr")
    for gain in the_lab.gains(results):
        shown = format_number(gain.ratio, gain_decimals(gain.ratio), "fr") + "×"
        row = html.split(f'data-item="{gain.item}"')[1].split("</tr>")[0]
        assert shown in row and label("fr", gain.context) in row


def test_sections_link_where_their_page_exists_and_are_named_otherwise(tmp_path):
    html = render("/// checklist | course\n///\n", ChecklistExtension, "fr")
    assert 'href="04-profiling.md#memory-workload"' in html
    assert 'href="01-roofline.md#t-min"' in html
    ch3 = REPO_ROOT / "docs/fr/performance/03-occupancy.md"
    if not ch3.exists():
        assert "chap.\u00a03 · Occupancy et latence (à venir)" in html and "03-occupancy.md" not in html


def test_an_item_without_records_says_so(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    (tmp_path / "labs").mkdir()
    (tmp_path / "docs/fr").mkdir(parents=True)
    html = render("/// checklist | course\n///\n", ChecklistExtension, "fr", tmp_path)
    assert html.count(label("fr", "checklist.no_gain_yet")) == len(checklist.ITEMS)
    assert "<a href=\"01-roofline.md" not in html


def test_only_the_course_checklist_exists():
    with pytest.raises(BlockError, match="the only checklist is '/// checklist | course'"):
        render("/// checklist | mine\n///\n", ChecklistExtension)


# ----- cases -----------------------------------------------------------------------------------------
@pytest.fixture
def naive_case(monkeypatch):
    """Lab 04's naive transpose, as if it were a lab's case with a planted flaw and a twin."""
    raw = LAB04 / "nvidia-h200"
    profiles = ncu.merge_profiles(ncu.parse_raw_csv((raw / "ncu_raw.csv").read_text()),
                                  ncu.parse_details_csv((raw / "ncu_details.csv").read_text()))
    stored = diagnosis.StoredProfile.of(next(p for p in profiles if p.name == "transpose_naive"))
    case = Case(profile=stored, planted="coalescing", faulty_seconds=1.0e-3, repaired_seconds=2.5e-4)
    monkeypatch.setattr(case_block, "recorded_cases", lambda the_lab, key, project: [("NVIDIA H200", case)])
    return case


def test_a_profile_card_shows_the_evidence_not_the_verdict(naive_case):
    html = render("/// profile | lab-05-a\n///\n", ProfileExtension, "fr")
    assert "Ce que Nsight Compute montre pour transpose_naive (NVIDIA H200)" in html
    assert "les chargements globaux utilisent 32 des 32 octets de chaque secteur, les écritures 4" in html
    assert "Premier levier" not in html and "UncoalescedGlobalAccess" not in html


@pytest.mark.parametrize("lang, first, gain", [
    ("fr", "Premier levier — Coalescence", "Le jumeau réparé va 4× plus vite (1\u202f000\u00a0µs → 250\u00a0µs"),
    ("zh", "首要手段——合并访存", "修复后的版本快 4×（1,000\u00a0µs → 250\u00a0µs"),
])
def test_the_diagnosis_is_folded_with_the_planted_flaw_and_the_gain(naive_case, lang, first, gain):
    html = render("/// diagnosis | lab-05-a\n///\n", DiagnosisExtension, lang)
    assert html.count("<details") == 1 and "<pre" in html
    assert first in html and gain in html
    assert f"labkit diagnose --lang {lang}" in html


def test_the_control_says_it_has_nothing_to_repair(monkeypatch, naive_case):
    control = Case(profile=naive_case.profile, planted=None, faulty_seconds=1e-3, repaired_seconds=None,
                   ratio_to_min=1.04)
    monkeypatch.setattr(case_block, "recorded_cases", lambda the_lab, key, project: [("NVIDIA H200", control)])
    html = render("/// diagnosis | lab-05-e\n///\n", DiagnosisExtension, "fr")
    assert "Rien à réparer : ce noyau est le témoin négatif." in html and "1,04" in html


@pytest.mark.parametrize("lang", ("fr", "zh"))
def test_chapter_6s_steps_say_they_are_steps_not_controls(lang):
    """Issue 28: every step of lab 06 ended with lab 05's negative-control sentence, under a header
    promising a measured repair. A step says which step follows it (the last: that it is the last)."""
    the_lab = lab("lab-06")
    cases = the_lab.cases(read_results(REPO_ROOT / "labs/06-matmul/results/nvidia-h200.json",
                                       the_lab.results_type, the_lab.id).results)
    assert len(cases) >= 5
    for key, case in cases.items():
        html = render(f"/// diagnosis | lab-06-{key}\n///\n", DiagnosisExtension, lang)
        assert label(lang, "profile.control") not in html and label(lang, "profile.summary") not in html, key
        assert label(lang, "profile.summary_step") in html, key
        if case.next_step is not None:
            assert label(lang, case.next_step) in html, key
        else:
            assert label(lang, "profile.last_step") in html, key


def test_without_a_record_a_case_says_how_to_make_one(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    (tmp_path / "labs").mkdir()
    for extension, name in ((ProfileExtension, "profile"), (DiagnosisExtension, "diagnosis")):
        html = render(f"/// {name} | lab-05-a\n///\n", extension, "fr", tmp_path)
        assert "make lab-05" in html


@pytest.mark.parametrize("text, message", [
    ("/// profile | a\n///\n", "profile block 'a': 'a' is not lab-NN-<case>, e.g. lab-05-a"),
    ("/// profile | lab-77-a\n///\n", "profile block 'lab-77-a': unknown lab 'lab-77'"),
])
def test_a_wrong_case_is_one_line(text, message):
    with pytest.raises(BlockError, match=message):
        render(text, ProfileExtension)


def test_an_identifier_in_a_label_is_shown_as_written_not_as_markdown():
    """`__launch_bounds__` in the occupancy item's lever stays itself, not bold "launch_bounds"."""
    for lang in ("fr", "zh"):
        html = render("/// checklist | course\n///\n", ChecklistExtension, lang)
        assert "__launch_bounds__" in html and "<strong>launch_bounds</strong>" not in html


def test_every_profile_card_shows_every_symptom_row(naive_case):
    """No row's presence gives a kernel's flaw away: a kernel without shared memory still has its row."""
    html = render("/// profile | lab-05-a\n///\n", ProfileExtension, "fr")
    for key in ("diag.sectors", "diag.shared", "diag.local", "diag.threads", "diag.fp64", "diag.stalls"):
        assert f"<th>{label('fr', key)}</th>" in html, key
    assert label("fr", "diag.shared_none") in html


def test_a_raw_profile_card_names_the_symptoms_by_their_ncu_metrics(naive_case):
    html = render("/// profile | lab-05-a\n    metrics: raw\n///\n", ProfileExtension, "zh")
    assert 'data-metrics="raw"' in html
    for metric in ("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", "memory_l1_wavefronts_shared",
                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "smsp__thread_inst_executed_per_inst_executed.ratio"):
        assert f"<th><code>{metric}</code></th>" in html, metric
    assert label("zh", "diag.sectors") not in html and label("zh", "profile.raw_note") in html


def test_a_diagnosis_can_wait_for_its_quiz(naive_case):
    html = render("/// diagnosis | lab-05-a\n    after: q05-a\n///\n", DiagnosisExtension, "fr")
    assert 'data-after-quiz="q05-a"' in html and label("fr", "profile.locked") in html
    with pytest.raises(BlockError, match="'after: q99' names no quiz"):
        render("/// diagnosis | lab-05-a\n    after: q99\n///\n", DiagnosisExtension, "fr")
