"""`labkit diagnose` on kernels the course never wrote (issue 19): CuPy's own kernels (cuBLAS,
cuFFT, CUB...), textbook CUDA C kernels and the exercises as shipped and as solved, profiled on the
H200 (tests/fixtures/diagnose_validation/README.md). Each launch's verdict must be one an expert
accepts (verdicts.yaml: the accepted verdicts, the first the expert's own, and why), its first item
the expert's own unless the label says why the first lever is debatable, from the raw page alone
as from the raw and details pages; and every report must read and render, in every language,
within 80 columns."""

import pytest
import yaml

from labkit.profiling import checklist, diagnosis, reports
from labkit.profiling.checklist import ITEM_IDS
from labkit.report import diagnosis_text
from labkit.report.columns import CLOSING, OPENING, columns
from tests.conftest import REPO_ROOT

FIXTURES = REPO_ROOT / "tests/fixtures/diagnose_validation"
EXPERT = yaml.safe_load((FIXTURES / "verdicts.yaml").read_text(encoding="utf-8"))
CASES = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())
VERDICTS = {*ITEM_IDS, "at-roof", "unlisted", "none"}


#: The two CSV forms `labkit diagnose` reads: the raw page with ncu's details page (its rules'
#: estimates), and the raw page alone (labkit's own estimates).
FORMS = {"raw+details": lambda case: [FIXTURES / case], "raw": lambda case: [FIXTURES / case / "ncu_raw.csv"]}


def assessed(paths):
    report = reports.load(paths)
    out = []
    for profile in report.profiles:
        found = diagnosis.diagnose(profile)
        out.append((profile, found, checklist.assess(found)))
    return out


@pytest.fixture(scope="module", params=sorted(FORMS))
def kernels(request):
    return {case: assessed(FORMS[request.param](case)) for case in CASES}


def test_every_case_and_launch_has_an_expert_verdict(kernels):
    assert sorted(EXPERT) == CASES
    assert len(CASES) >= 20
    for case, launches in kernels.items():
        listed = [entry["id"] for entry in EXPERT[case]]
        assert sorted(listed) == sorted(profile.id for profile, _, _ in launches), case
        for entry in EXPERT[case]:
            assert entry["expert"] and set(entry["expert"]) <= VERDICTS, (case, entry)
            assert len(entry["why"]) > 20, (case, entry["id"])
            assert set(entry) <= {"id", "expert", "why", "debatable"}, (case, entry["id"])
            if "debatable" in entry:
                assert len(entry["expert"]) > 1 and len(entry["debatable"]) > 40, (case, entry["id"])


def test_labkit_diagnose_gives_a_verdict_an_expert_accepts(kernels):
    expert = {(case, entry["id"]): entry["expert"] for case, entries in EXPERT.items() for entry in entries}
    wrong = [f"{case} ID {profile.id} ({profile.name}): labkit says {assessment.verdict}, "
             f"an expert {expert[case, profile.id]}"
             for case, launches in kernels.items() for profile, _, assessment in launches
             if assessment.verdict not in expert[case, profile.id]]
    assert not wrong, "\n".join(wrong)


def test_labkits_first_item_is_the_experts_own_unless_the_label_says_why_it_is_debatable(kernels):
    """The expert's first verdict, on every launch whose label does not say (``debatable``) why
    another of its verdicts could come first; the debatable ones stay a minority."""
    labels = {(case, entry["id"]): entry for case, entries in EXPERT.items() for entry in entries}
    wrong = [f"{case} ID {profile.id} ({profile.name}): labkit says {assessment.verdict}, "
             f"the expert {labels[case, profile.id]['expert'][0]}"
             for case, launches in kernels.items() for profile, _, assessment in launches
             if "debatable" not in labels[case, profile.id]
             and assessment.verdict != labels[case, profile.id]["expert"][0]]
    assert not wrong, "\n".join(wrong)
    assert sum("debatable" in entry for entry in labels.values()) <= 0.1 * len(labels)


@pytest.mark.parametrize("lang", ("en", "fr", "zh"))
def test_every_report_renders_within_80_columns(kernels, lang):
    """Every line within 80 columns, none starting with a closing mark or ending with an opening one."""
    for case, launches in kernels.items():
        text = diagnosis_text.render([(found, a, profile.id) for profile, found, a in launches], lang)
        wide = [line for line in text.splitlines() if columns(line) > diagnosis_text.WIDTH]
        assert not wide, (case, wide[:2])
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        badly_cut = [line for line in lines if line[0] in CLOSING or line[-1] in OPENING]
        assert not badly_cut, (case, badly_cut[:2])


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
