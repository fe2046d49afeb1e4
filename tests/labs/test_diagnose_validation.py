"""`labkit diagnose` on kernels the course never wrote (issue 19): CuPy's own kernels (cuBLAS,
cuFFT, CUB...), textbook CUDA C kernels and the exercises as shipped and as solved, profiled on the
H200 (tests/fixtures/diagnose_validation/README.md). Each launch's verdict must be one an expert
accepts (verdicts.yaml: the accepted verdicts, the first the expert's own, and why), and every
report must read and render, in every language, within 80 columns."""

import pytest
import yaml

from labkit.profiling import checklist, diagnosis, reports
from labkit.profiling.checklist import ITEM_IDS
from labkit.report import diagnosis_text
from tests.conftest import REPO_ROOT

FIXTURES = REPO_ROOT / "tests/fixtures/diagnose_validation"
EXPERT = yaml.safe_load((FIXTURES / "verdicts.yaml").read_text(encoding="utf-8"))
CASES = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())
VERDICTS = {*ITEM_IDS, "at-roof", "unlisted", "none"}


def assessed(case: str):
    report = reports.load([FIXTURES / case])
    out = []
    for profile in report.profiles:
        found = diagnosis.diagnose(profile)
        out.append((profile, found, checklist.assess(found)))
    return out


@pytest.fixture(scope="module")
def kernels():
    return {case: assessed(case) for case in CASES}


def test_every_case_and_launch_has_an_expert_verdict(kernels):
    assert sorted(EXPERT) == CASES
    assert len(CASES) >= 20
    for case, launches in kernels.items():
        listed = [entry["id"] for entry in EXPERT[case]]
        assert sorted(listed) == sorted(profile.id for profile, _, _ in launches), case
        for entry in EXPERT[case]:
            assert entry["expert"] and set(entry["expert"]) <= VERDICTS, (case, entry)
            assert len(entry["why"]) > 20, (case, entry["id"])


def test_labkit_diagnose_gives_a_verdict_an_expert_accepts(kernels):
    expert = {(case, entry["id"]): entry["expert"] for case, entries in EXPERT.items() for entry in entries}
    wrong = [f"{case} ID {profile.id} ({profile.name}): labkit says {assessment.verdict}, "
             f"an expert {expert[case, profile.id]}"
             for case, launches in kernels.items() for profile, _, assessment in launches
             if assessment.verdict not in expert[case, profile.id]]
    assert not wrong, "\n".join(wrong)


def test_the_expert_verdict_itself_is_labkits_for_most_launches(kernels):
    """Accepting a set is for kernels where levers tie; labkit names the expert's first choice for
    at least four launches in five."""
    firsts = [(case, entry["id"], entry["expert"][0]) for case, entries in EXPERT.items() for entry in entries]
    verdicts = {(case, profile.id): a.verdict for case, launches in kernels.items() for profile, _, a in launches}
    same = sum(verdicts[case, launch_id] == first for case, launch_id, first in firsts)
    assert same >= 0.8 * len(firsts), f"{same} of {len(firsts)}"


@pytest.mark.parametrize("lang", ("en", "fr", "zh"))
def test_every_report_renders_within_80_columns(kernels, lang):
    for case, launches in kernels.items():
        text = diagnosis_text.render([(found, a, profile.id) for profile, found, a in launches], lang)
        wide = [line for line in text.splitlines() if diagnosis_text.columns(line) > diagnosis_text.WIDTH]
        assert not wide, (case, wide[:2])


def test_no_gain_is_above_what_the_kernels_roof_leaves_unless_its_lever_unloads_that_roof(kernels):
    for case, launches in kernels.items():
        for profile, found, assessment in launches:
            loads = checklist.roofs(found)
            for fired in assessment.items:
                if fired.gain_pct is None:
                    continue
                untouched = [pct for unit, pct in loads.items() if unit not in checklist.UNLOADS[fired.item]]
                if untouched:
                    assert fired.gain_pct <= 100 - max(untouched) + checklist.CAP_TOLERANCE_PCT, (case, profile.id,
                                                                                                  fired)
