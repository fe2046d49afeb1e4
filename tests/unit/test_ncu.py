"""labkit.profiling.ncu on the real ncu outputs recorded on the H200 (tests/fixtures/h200-probe)."""

import subprocess
from pathlib import Path

import pytest

from labkit.gpu import tools as cuda_tools
from labkit.profiling import ncu

PROBE = Path(__file__).resolve().parents[1] / "fixtures" / "h200-probe"
RAW = (PROBE / "ncu_raw.csv").read_text()
DETAILS = (PROBE / "ncu_details.csv").read_text()
LOG = (PROBE / "ncu_log.txt").read_text()
PERMISSION_TEXT = (
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
    "Performance Counters on the target device 0. For instructions on enabling permissions and to "
    "get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
)


@pytest.fixture(scope="module")
def raw():
    return {k.name: k for k in ncu.parse_raw_csv(RAW)}


@pytest.fixture(scope="module")
def details():
    return {k.name: k for k in ncu.parse_details_csv(DETAILS)}


def test_raw_page_lists_the_four_probe_launches(raw):
    assert list(raw) == ["copy_coalesced", "copy_strided", "copy_c128", "spill"]
    assert [k.id for k in raw.values()] == [0, 1, 2, 3]
    assert raw["copy_coalesced"].block_size == (256, 1, 1)
    assert raw["copy_coalesced"].grid_size == (65536, 1, 1)
    assert raw["spill"].block_size == (128, 1, 1)
    assert raw["spill"].grid_size == (1024, 1, 1)
    assert raw["copy_strided"].full_name.startswith("copy_strided[v2,cw51c")
    assert raw["copy_strided"].full_name.endswith(")")


def test_numbers_lose_their_thousands_separators_and_text_stays_text(raw):
    kernel = raw["copy_coalesced"]
    assert kernel.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"].value == 524288.0
    assert kernel.value("launch__grid_size") == 65536.0
    assert kernel.value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == 2097152.0
    assert kernel.metrics["launch__cluster_scheduling_policy"].value == "PolicySpread"
    assert kernel.metrics["sass__inst_executed_register_spilling_mem_local"].value == "no data"


def test_units_come_from_the_second_row_and_convert(raw):
    kernel = raw["copy_coalesced"]
    assert kernel.metrics["gpu__time_duration.sum"] == ncu.Metric(unit="us", value=48.544)
    assert kernel.seconds("gpu__time_duration.sum") == pytest.approx(48.544e-6)
    assert kernel.metrics["dram__bytes_read.sum"].unit == "Gbyte"
    assert kernel.bytes_("dram__bytes_read.sum") == pytest.approx(0.067114e9)
    assert kernel.metrics["dram__bytes_write.sum"].unit == "Mbyte"
    assert kernel.bytes_("dram__bytes_write.sum") == pytest.approx(48.012288e6)


def test_reading_a_metric_fails_clearly(raw):
    kernel = raw["copy_coalesced"]
    with pytest.raises(ncu.NcuError, match="not in the ncu report"):
        kernel.value("no__such_metric.sum")
    with pytest.raises(ncu.NcuError, match="'no data', not a number"):
        kernel.value("sass__inst_executed_register_spilling_mem_local")
    with pytest.raises(ncu.NcuError, match="not a time unit"):
        kernel.seconds("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    with pytest.raises(ncu.NcuError, match="not a byte unit"):
        kernel.bytes_("gpu__time_duration.sum")


@pytest.mark.parametrize(
    "name, short",
    [
        ("copy_coalesced[v1,cw51cXTLSUwv1](Array<float, 1, C, mutable, aligned>, "
         "Array<float, 1, C, mutable, aligned>)", "copy_coalesced"),
        ("copy_coalesced[abi:v1,cw51cXTLSUwv1sDUaKthqaNgoKmjgMVuW1AiA8rAEg]", "copy_coalesced"),
        ("void ns::gemm<float, 128>(float const*, int)", "gemm"),
        ("kernel(float *, float *, int)", "kernel"),
        ("_ZN8__main__14copy_coalescedB2v1B108cw51cXTLSUwv1E5ArrayIfLi1E1C7mutable7alignedE",
         "copy_coalesced"),
        ("_Z10reduce_illPfS_i", "reduce_ill"),
        ("spill", "spill"),
    ],
)
def test_short_kernel_name(name, short):
    assert ncu.short_kernel_name(name) == short


def test_details_page_has_sections_and_rules(details):
    strided = details["copy_strided"]
    sol = strided.sections["GPU Speed Of Light Throughput"]
    assert sol["Duration"] == ncu.Metric(unit="us", value=816.99)
    assert sol["Elapsed Cycles"].value == 1616752.0
    assert strided.sections["Memory Workload Analysis"]["Memory Throughput"].unit == "Tbyte/s"
    uncoalesced = [r for r in strided.rules if r.name == "UncoalescedGlobalAccess"]
    assert len(uncoalesced) == 1
    assert uncoalesced[0].section == "SourceCounters"
    assert uncoalesced[0].type == "OPT"
    assert uncoalesced[0].speedup_type == "global"
    assert uncoalesced[0].speedup_pct == 87.28
    assert "29360128 excessive sectors" in uncoalesced[0].description
    bottleneck = next(r for r in strided.rules if r.name == "SOLBottleneck")
    assert bottleneck.speedup_pct is None and bottleneck.speedup_type is None


def test_copies_without_a_uncoalesced_rule(details):
    assert not any(r.name == "UncoalescedGlobalAccess" for r in details["copy_coalesced"].rules)


def test_merge_joins_the_two_pages_by_id():
    merged = ncu.merge_profiles(ncu.parse_raw_csv(RAW), ncu.parse_details_csv(DETAILS))
    spill = ncu.kernel_named(merged, "spill")
    assert spill.id == 3
    assert spill.value("launch__registers_per_thread") == 32.0
    assert spill.sections["Launch Statistics"]["Registers Per Thread"].value == 32.0
    assert any(r.name == "WorkloadImbalance" for r in spill.rules)


def test_merge_refuses_pages_of_different_reports():
    raw = ncu.parse_raw_csv(RAW)
    details = ncu.parse_details_csv(DETAILS)[:2]
    with pytest.raises(ncu.NcuError, match="different launches"):
        ncu.merge_profiles(raw, details)


def test_kernel_named_says_what_exists():
    with pytest.raises(ncu.NcuError, match="no kernel 'gemm'.*copy_c128"):
        ncu.kernel_named(ncu.parse_raw_csv(RAW), "gemm")


def test_preamble_lines_before_the_header_are_skipped():
    text = "==PROF== Connected to process 537\n" + RAW
    assert len(ncu.parse_raw_csv(text)) == 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "raw CSV is empty"),
        ("   \n", "raw CSV is empty"),
        ('"Kernel Name","Block Size"\n"k","(1, 1, 1)"\n', "no 'ID' column"),
        ('"ID","Kernel Name","Grid Size"\n"","",""\n"0","k","(1, 1, 1)"\n', "lacks the column.*Block Size"),
        ('"ID","Kernel Name","Block Size","Grid Size","m"\n"0","k","(1, 1, 1)","(1, 1, 1)","5"\n',
         "no units row"),
        ('"ID","Kernel Name","Block Size","Grid Size","m"\n"","","","","%"\n', "lists no kernel"),
        ('"ID","Kernel Name","Block Size","Grid Size","m"\n"","","","","%"\n"0","k","(1, 1, 1)","(1, 1, 1)"\n',
         "row 3 has 4 fields"),
        ('"ID","Kernel Name","Block Size","Grid Size","m"\n"","","","","%"\n"0","k","256","(1, 1, 1)","1"\n',
         "not of the form"),
        ('"ID","Kernel Name","Block Size","Grid Size","m"\n"","","","","%"\n"x","k","(1, 1, 1)","(1, 1, 1)","1"\n',
         "ID is 'x', not a launch number"),
    ],
)
def test_malformed_raw_csv(text, message):
    with pytest.raises(ncu.NcuError, match=message):
        ncu.parse_raw_csv(text)


def test_malformed_details_csv():
    with pytest.raises(ncu.NcuError, match="details CSV is empty"):
        ncu.parse_details_csv("")
    header_without_rules = DETAILS.splitlines()[0].replace(',"Rule Name"', "")
    with pytest.raises(ncu.NcuError, match="lacks the column.*Rule Name"):
        ncu.parse_details_csv(header_without_rules + "\n")
    with pytest.raises(ncu.NcuError, match="lists no kernel"):
        ncu.parse_details_csv(DETAILS.splitlines()[0] + "\n")


def test_permission_error_is_one_line_with_the_fix():
    with pytest.raises(ncu.NcuPermissionError) as caught:
        ncu.check_ncu_output("==PROF== Connected to process 12\n" + PERMISSION_TEXT, 1)
    message = str(caught.value)
    assert "\n" not in message
    assert "options nvidia NVreg_RestrictProfilingToAdminUsers=0" in message
    assert "/etc/modprobe.d/" in message and "root" in message
    assert "CUDA-event timing" in message
    assert isinstance(caught.value, ncu.NcuError)


def test_generic_error_reports_ncu_last_error_line():
    text = "==PROF== Connected\n==ERROR== Failed to prepare kernel for profiling\n==ERROR== An error occurred while trying to profile.\n"
    with pytest.raises(ncu.NcuError, match="^ncu failed: An error occurred while trying to profile.$"):
        ncu.check_ncu_output(text, 1)


def test_real_run_log_is_a_success():
    ncu.check_ncu_output(LOG, 0)


def test_no_kernel_profiled_is_an_error_even_with_status_zero():
    with pytest.raises(ncu.NcuError, match="no launch matched the -k regex"):
        ncu.check_ncu_output("==PROF== Disconnected from process 9\n==WARNING== No kernels were profiled.\n", 0)


def test_non_zero_status_without_error_lines():
    with pytest.raises(ncu.NcuError, match="status 2: Traceback line"):
        ncu.check_ncu_output("ok\nTraceback line\n", 2)


class FakeRun:
    """Stands in for subprocess.run: records the command, answers with fixed output."""

    def __init__(self, stdout="", stderr="", returncode=0, timeout=False):
        self.stdout, self.stderr, self.returncode, self.timeout = stdout, stderr, returncode, timeout
        self.commands = []

    def __call__(self, command, **kwargs):
        self.commands.append(command)
        if self.timeout:
            raise subprocess.TimeoutExpired(command, kwargs["timeout"])
        return subprocess.CompletedProcess(command, self.returncode, self.stdout, self.stderr)


@pytest.fixture
def fake_ncu(monkeypatch):
    monkeypatch.setattr(ncu, "find_ncu", lambda: "/opt/ncu")

    def install(**kwargs):
        fake = FakeRun(**kwargs)
        monkeypatch.setattr(cuda_tools.subprocess, "run", fake)
        return fake

    return install


def test_profile_command_never_locks_clocks(fake_ncu, tmp_path):
    fake = fake_ncu(stdout=LOG)
    report = ncu.profile_command(["python3", "program.py"], "copy|spill", tmp_path / "rep", launch_count=4)
    assert report == tmp_path / "rep.ncu-rep"
    assert fake.commands == [[
        "/opt/ncu", "--clock-control", "none", "--set", "full", "--import-source", "yes",
        "-k", "regex:copy|spill", "-c", "4", "-f", "-o", str(tmp_path / "rep"), "python3", "program.py",
    ]]


def test_profile_command_accepts_a_report_name_with_its_suffix(fake_ncu, tmp_path):
    fake = fake_ncu(stdout=LOG)
    assert ncu.profile_command(["./app"], "k", tmp_path / "r.ncu-rep") == tmp_path / "r.ncu-rep"
    assert "-c" not in fake.commands[0]
    assert fake.commands[0][-3:] == ["-o", str(tmp_path / "r"), "./app"]


def test_profile_command_raises_the_permission_error(fake_ncu, tmp_path):
    fake_ncu(stdout="==PROF== Connected to process 5\n", stderr=PERMISSION_TEXT, returncode=1)
    with pytest.raises(ncu.NcuPermissionError):
        ncu.profile_command(["./app"], "k", tmp_path / "r")


def test_profile_command_timeout(fake_ncu, tmp_path):
    fake_ncu(timeout=True)
    with pytest.raises(ncu.NcuError, match="did not finish within 5 s"):
        ncu.profile_command(["./app"], "k", tmp_path / "r", timeout_seconds=5)


def test_export_csv_returns_the_page(fake_ncu, tmp_path):
    fake = fake_ncu(stdout=RAW)
    assert ncu.export_csv(tmp_path / "r.ncu-rep", "raw") == RAW
    assert fake.commands == [["/opt/ncu", "-i", str(tmp_path / "r.ncu-rep"), "--csv", "--page", "raw"]]
    with pytest.raises(ValueError, match="page must be one of"):
        ncu.export_csv(tmp_path / "r.ncu-rep", "source")


def test_missing_ncu_says_the_lab_goes_on(monkeypatch, tmp_path):
    monkeypatch.setattr(ncu, "find_ncu", lambda: None)
    with pytest.raises(ncu.NcuError, match="not found.*CUDA-event timing"):
        ncu.profile_command(["./app"], "k", tmp_path / "r")


def test_find_ncu_prefers_path_then_the_toolkit(monkeypatch, tmp_path):
    monkeypatch.setattr(cuda_tools.shutil, "which", lambda name: "/usr/bin/ncu")
    assert ncu.find_ncu() == "/usr/bin/ncu"
    monkeypatch.setattr(cuda_tools.shutil, "which", lambda name: None)
    monkeypatch.setattr(cuda_tools, "CUDA_BIN", tmp_path)
    assert ncu.find_ncu() is None
    (tmp_path / "ncu").write_text("")
    assert ncu.find_ncu() == str(tmp_path / "ncu")


def test_profile_metrics_command_asks_for_the_metrics_alone_and_never_locks_clocks(fake_ncu, tmp_path):
    fake = fake_ncu(stdout=LOG)
    report = ncu.profile_metrics_command(["python3", "-m", "lab"], "a|b", ("m1.sum", "m2.pct"), tmp_path / "rep")
    assert report == tmp_path / "rep.ncu-rep"
    assert fake.commands == [[
        "/opt/ncu", "--clock-control", "none", "--metrics", "m1.sum,m2.pct", "-k", "regex:a|b", "-f", "-o",
        str(tmp_path / "rep"), "python3", "-m", "lab",
    ]]
