"""Which GPU packages `make lab-NN` installs, from the driver's CUDA version (faked here)."""

from pathlib import Path

import pytest

from labkit.gpu import setup as gpu_setup


@pytest.mark.parametrize("driver_version, extra", [
    (13000, "gpu"), (13020, "gpu"), (14010, "gpu"),          # newer drivers run older CUDA majors
    (12080, "gpu-cuda12"), (12020, "gpu-cuda12"),
    (None, None),
])
def test_the_flavour_follows_the_drivers_cuda_major(driver_version, extra):
    chosen = gpu_setup.choose(driver_version)
    assert (chosen.extra if chosen else None) == extra


def test_a_driver_older_than_cuda_12_is_one_line():
    with pytest.raises(gpu_setup.GpuSetupError, match="supports CUDA 11.8; the labs need CUDA 12 or newer"):
        gpu_setup.choose(11080)


def test_each_flavour_names_an_extra_and_a_lock_that_exist():
    root = Path(__file__).resolve().parents[2]
    pyproject = (root / "pyproject.toml").read_text()
    for flavour in gpu_setup.FLAVOURS:
        assert f"\n{flavour.extra} = [" in pyproject
        lock = (root / flavour.constraints).read_text()
        assert f"--extra={flavour.extra}" in lock.splitlines()[4]


def test_main_installs_what_the_driver_needs(monkeypatch, capsys, tmp_path):
    commands = []
    monkeypatch.setattr(gpu_setup, "driver_cuda_version", lambda: 12080)
    monkeypatch.setattr(gpu_setup.subprocess, "run", lambda command: commands.append(command) or type("R", (), {"returncode": 0})())
    monkeypatch.chdir(tmp_path)
    assert gpu_setup.main() == 0
    assert "runs CUDA 12: installing the 'gpu-cuda12' packages" in capsys.readouterr().out
    assert commands[0][-4:] == ["-c", str(tmp_path / "constraints-cuda12.txt"), "-e", f"{tmp_path}[gpu-cuda12]"]


def test_without_a_driver_nothing_is_installed(monkeypatch, capsys):
    monkeypatch.setattr(gpu_setup, "driver_cuda_version", lambda: None)
    monkeypatch.setattr(gpu_setup.subprocess, "run", lambda command: pytest.fail("nothing to install"))
    assert gpu_setup.main() == 0
    assert "no NVIDIA driver here" in capsys.readouterr().out


def test_a_volta_gpu_gets_cuda_12_whatever_its_driver_runs():
    # CUDA 13 dropped compute capabilities below 7.5 (its release notes): a V100 under a CUDA 13 driver
    from labkit.gpu.setup import choose

    assert choose(13000, (7, 0)).cuda_major == 12
    assert choose(13000, (7, 5)).cuda_major == 13 and choose(13000, (12, 1)).cuda_major == 13
    assert choose(13000, None).cuda_major == 13
