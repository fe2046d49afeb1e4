"""Results files: schema on write and load, atomic writes, clear errors naming file and field."""

import json
import os

import pytest

from labkit import results as r

SCHEMA = {"type": "object", "required": ["value"], "properties": {"value": {"type": "number"}}}


def prov():
    return r.provenance("NVIDIA H200", (9, 0), "13.0", 1980.0, 3201.0)


def test_round_trip(tmp_path):
    path = r.write_results(tmp_path / "results" / "nvidia-h200.json", "lab-04", prov(), {"value": 1.5}, SCHEMA)
    document = r.load_results(path, "lab-04", SCHEMA)
    assert document["results"] == {"value": 1.5}
    assert document["provenance"]["gpu"] == "NVIDIA H200"
    assert document["provenance"]["simulated"] is False
    assert document["provenance"]["versions"]["numpy"]


def test_paths_are_per_gpu(tmp_path):
    assert r.results_path(tmp_path, "NVIDIA H200").name == "nvidia-h200.json"
    assert r.recorded_files(tmp_path) == []


def test_invalid_results_are_refused_before_writing(tmp_path):
    path = tmp_path / "x.json"
    with pytest.raises(r.ResultsError, match=r"x.json: field results/value: 'fast' is not of type 'number'"):
        r.write_results(path, "lab-04", prov(), {"value": "fast"}, SCHEMA)
    assert not path.exists()


def test_a_simulated_provenance_is_refused(tmp_path):
    bad = {**prov(), "simulated": True}
    with pytest.raises(r.ResultsError, match="field provenance/simulated"):
        r.write_results(tmp_path / "x.json", "lab-04", bad, {"value": 1}, SCHEMA)


def test_corrupt_file_names_file_and_position(tmp_path):
    path = tmp_path / "nvidia-h200.json"
    path.write_text('{"schema": 1, "lab": ')
    with pytest.raises(r.ResultsError, match=r"nvidia-h200.json: not valid JSON \(line 1"):
        r.load_results(path, "lab-04", SCHEMA)


def test_foreign_file_names_the_field(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"name": "something else"}))
    with pytest.raises(r.ResultsError, match="other.json: field"):
        r.load_results(path, "lab-04", SCHEMA)


def test_another_labs_file_is_refused(tmp_path):
    path = r.write_results(tmp_path / "a.json", "lab-01", prov(), {"value": 1}, SCHEMA)
    with pytest.raises(r.ResultsError, match="field lab: holds 'lab-01', expected 'lab-04'"):
        r.load_results(path, "lab-04", SCHEMA)


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = r.write_results(tmp_path / "a.json", "lab-04", prov(), {"value": 1}, SCHEMA)
    before = path.read_text()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(r.json, "dump", interrupted)
    with pytest.raises(KeyboardInterrupt):
        r.write_results(path, "lab-04", prov(), {"value": 2}, SCHEMA)
    assert path.read_text() == before
    assert os.listdir(tmp_path) == ["a.json"]


def test_git_commit_is_recorded(monkeypatch):
    monkeypatch.delenv("LABKIT_GIT_COMMIT", raising=False)
    commit = r.git_commit()
    assert commit == "unknown" or len(commit.removesuffix("+dirty")) == 40


def test_git_commit_named_by_the_sender_wins_over_a_stale_copy(monkeypatch, tmp_path):
    monkeypatch.setenv("LABKIT_GIT_COMMIT", "9" * 40)
    assert r.git_commit() == "9" * 40
    monkeypatch.delenv("LABKIT_GIT_COMMIT")
    assert r.git_commit(tmp_path) == "unknown"
