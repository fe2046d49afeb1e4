"""`labkit diagnose` on a whole-application export: the pages stream (memory does not grow with the
launches, time per launch bounded), a progress bar follows the bytes, and ``--top N`` ranks the
kernels by their total GPU time (issue 19: a 300 MB raw page, about 6,600 launches, ran out of
time at 300 s). The exports here are lab 05's recorded pages, repeated with renumbered IDs."""

import csv
import io
import json
import time
import tracemalloc
from collections import defaultdict

import pytest
from rich.console import Console

from labkit.commands import diagnose as command
from labkit.profiling import diagnosis, ncu, reports
from tests.conftest import REPO_ROOT

LAB05 = REPO_ROOT / "labs/05-checklist/results/nvidia-h200"
#: CPU time per launch allowed (streaming, text out). The reader it replaced took about 50 ms per
#: launch on the same machine (and 1.5 MB of memory per launch); this one takes about 3.
MAX_SECONDS_PER_LAUNCH = 0.02


def big_export(folder, launches: int, scale=lambda i: 1.0):
    """Lab 05's 15 launches repeated to ``launches`` (IDs renumbered, launch i's duration times
    ``scale(i)``); returns the folder, holding ncu_raw.csv and ncu_details.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = list(csv.reader(io.StringIO((LAB05 / "ncu_raw.csv").read_text())))
    header, units, body = rows[0], rows[1], rows[2:]
    duration = header.index("gpu__time_duration.sum")
    with (folder / "ncu_raw.csv").open("w", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(header)
        writer.writerow(units)
        for i in range(launches):
            row = list(body[i % len(body)])
            row[0] = str(i)
            row[duration] = f"{float(row[duration].replace(',', '')) * scale(i):.2f}"
            writer.writerow(row)
    details = list(csv.reader(io.StringIO((LAB05 / "ncu_details.csv").read_text())))
    by_id = defaultdict(list)
    for row in details[1:]:
        by_id[row[0]].append(row)
    ids = list(by_id)
    with (folder / "ncu_details.csv").open("w", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(details[0])
        for i in range(launches):
            writer.writerows([str(i), *row[1:]] for row in by_id[ids[i % len(ids)]])
    return folder


def test_streaming_gives_the_in_memory_diagnosis(tmp_path):
    folder = big_export(tmp_path / "x", 30)
    with reports.open_pages([folder]) as pages:
        streamed = [diagnosis.diagnose(p) for p in pages.launches(keep=diagnosis.needed_metric)]
    whole = [diagnosis.diagnose(p) for p in reports.load([folder]).profiles]
    assert [d.model_dump() for d in streamed] == [d.model_dump() for d in whole]


def _peak_bytes(folder) -> tuple[int, float]:
    tracemalloc.start()
    started = time.process_time()
    command.diagnose_report([folder], None, "en", False, out=io.StringIO())
    seconds = time.process_time() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, seconds


def test_memory_does_not_grow_with_the_launches_and_time_per_launch_is_bounded(tmp_path):
    """(The text written goes to a StringIO here; on a terminal it is written as it comes.)"""
    small, _ = _peak_bytes(big_export(tmp_path / "small", 30))
    output = io.StringIO()
    folder = big_export(tmp_path / "big", 150)
    tracemalloc.start()
    command.diagnose_report([folder], None, "en", False, out=output)
    big = tracemalloc.get_traced_memory()[1] - 2 * len(output.getvalue())   # less the text kept by StringIO
    tracemalloc.stop()
    assert big < 1.5 * small + (4 << 20), (small, big)
    started = time.process_time()
    command.diagnose_report([folder], None, "en", False, out=io.StringIO())
    assert (time.process_time() - started) / 150 < MAX_SECONDS_PER_LAUNCH


def test_progress_follows_every_byte_of_both_pages(tmp_path):
    folder = big_export(tmp_path / "x", 45)
    read = []
    with reports.open_pages([folder]) as pages:
        assert sum(1 for _ in pages.launches(keep=diagnosis.needed_metric, progress=read.append)) == 45
        assert sum(read) == pages.total_bytes
    assert len(read) == 45


def test_a_large_report_shows_a_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.setattr(command, "PROGRESS_BYTES", 1)
    terminal = io.StringIO()
    command.diagnose_report([big_export(tmp_path / "x", 15)], None, "en", False, out=io.StringIO(),
                            progress_console=Console(file=terminal, force_terminal=True, width=100))
    assert "labkit diagnose" in terminal.getvalue()


def test_top_ranks_kernels_by_total_time_and_diagnoses_their_longest_launch(tmp_path):
    """Launch i's duration is scaled by (i + 1): later repeats of a kernel take longer, so the
    longest launch of each kernel is its last, and the totals are known."""
    launches = 60
    folder = big_export(tmp_path / "x", launches, scale=lambda i: i + 1.0)
    profiles = list(ncu.iter_raw(open(folder / "ncu_raw.csv", newline="")))
    totals, longest = defaultdict(float), {}
    for p in profiles:
        totals[p.full_name] += p.seconds("gpu__time_duration.sum")
        longest[p.full_name] = p.id
    expected = sorted(totals, key=totals.get, reverse=True)[:4]
    out = io.StringIO()
    command.diagnose_report([folder], None, "en", True, top=4, out=out)
    document = json.loads(out.getvalue())
    assert document["launch_count"] == launches and document["kernel_count"] == len(totals) == 15
    assert document["total_seconds"] == pytest.approx(sum(totals.values()))
    assert [launch["full_name"] for launch in document["launches"]] == expected
    for launch in document["launches"]:
        assert launch["id"] == longest[launch["full_name"]]
        assert launch["launches"] == launches // 15
        assert launch["share_pct"] == pytest.approx(100 * totals[launch["full_name"]] / document["total_seconds"])
    text = io.StringIO()
    command.diagnose_report([folder], None, "en", False, top=2, out=text)
    first = text.getvalue().split("━━ ")[1]
    assert first.startswith(profiles[longest[expected[0]]].name)
    assert "launches: 4 · " in " ".join(first.split())


def test_the_command_line_takes_top(tmp_path):
    from tests.labs.test_cli import labkit

    done = labkit("diagnose", str(big_export(tmp_path / "x", 30)), "--top", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("The 3 kernels that take the most GPU time, of 15 kernels in 30 launches")
    assert done.stdout.count("━━ ") == 3
