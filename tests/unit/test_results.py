"""Results files: provenance, names, and the one-line description of what is wrong (recording and
corrupt files have their own suites: test_recording, tests/labs/test_bad_results)."""

import pytest
from pydantic import ValidationError

from labkit.records import describe_validation_error
from labkit.records import files as r
from tests.conftest import REPO_ROOT


def test_a_results_file_is_named_after_its_gpu():
    assert r.gpu_slug("NVIDIA H200") == "nvidia-h200"
    assert r.gpu_slug("NVIDIA GeForce RTX 4090 (Laptop)") == "nvidia-geforce-rtx-4090-laptop"


def test_provenance_records_versions_and_time():
    prov = r.provenance("NVIDIA H200", (9, 0), "13.0", 1980.0, 3201.0, REPO_ROOT)
    assert prov.compute_capability == "9.0" and prov.simulated is False
    assert {"numpy", "pydantic"} <= prov.versions.keys()
    assert prov.utc_time.utcoffset().total_seconds() == 0


def test_git_commit_is_recorded(monkeypatch):
    monkeypatch.delenv("LABKIT_GIT_COMMIT", raising=False)
    commit = r.git_commit(REPO_ROOT)
    assert commit == "unknown" or len(commit.removesuffix("+dirty")) == 40


def test_git_commit_named_by_the_sender_wins_over_a_stale_copy(monkeypatch, tmp_path):
    monkeypatch.setenv("LABKIT_GIT_COMMIT", "9" * 40)
    assert r.git_commit(tmp_path) == "9" * 40
    monkeypatch.delenv("LABKIT_GIT_COMMIT")
    assert r.git_commit(tmp_path) == "unknown"


@pytest.mark.parametrize("changes, described", [
    ({"compute_capability": "nine"}, "field compute_capability: String should match pattern"),
    ({"gpu": ""}, "field gpu: String should have at least 1 character (it holds \"\")"),
    ({"utc_time": "2026-11-30T12:00:00"}, "field utc_time: Input should have timezone info"),
])
def test_a_validation_error_is_described_in_one_line(changes, described):
    data = r.provenance("NVIDIA H200", (9, 0), "13.0", None, None, REPO_ROOT).model_dump(mode="json") | changes
    with pytest.raises(ValidationError) as raised:
        r.Provenance.model_validate(data)
    line = describe_validation_error(raised.value)
    assert line.startswith(described) and "\n" not in line
