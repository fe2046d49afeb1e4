"""The measured knee: where a saturating curve's two asymptotes meet (labkit.models.knee)."""

import math

import pytest

from labkit.models.knee import fit_knee

WARPS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]


def piecewise(knee: float, plateau: float = 100.0) -> list[float]:
    return [min(plateau, plateau * x / knee) for x in WARPS]


@pytest.mark.parametrize("knee", [1.5, 5.0, 10.0, 17.3, 40.0])
def test_a_piecewise_curve_gives_back_its_knee_and_plateau(knee):
    found = fit_knee(WARPS, piecewise(knee))
    assert found.within and found.x == pytest.approx(knee, rel=0.005)
    assert found.plateau == pytest.approx(100.0, rel=1e-6)


def test_noise_of_a_few_percent_moves_the_knee_little():
    wobble = [1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.0, 1.03, 0.97, 1.01, 0.99, 1.02]
    found = fit_knee(WARPS, [y * w for y, w in zip(piecewise(10.0), wobble)])
    assert found.x == pytest.approx(10.0, rel=0.05)


def test_a_rounded_corner_puts_the_knee_where_the_asymptotes_meet():
    """y = the p-norm of x and 100, whose asymptotes meet at x = 10: the fit lands near 10, not
    where the curve reaches 90 % of its plateau (beyond 20)."""
    curve = [(x ** -4 + 10.0 ** -4) ** -0.25 * 10 for x in WARPS]
    found = fit_knee(WARPS, curve)
    assert 8.5 < found.x < 11.5


def test_a_flat_curve_has_its_knee_before_the_first_point():
    found = fit_knee(WARPS, [50.0] * len(WARPS))
    assert found.side == "below" and not found.within and found.x <= WARPS[0]


def test_a_rising_curve_has_its_knee_beyond_the_last_point():
    found = fit_knee(WARPS, [3.0 * x for x in WARPS])
    assert found.side == "above" and found.x == pytest.approx(WARPS[-1])


def test_the_fit_would_notice_a_wrong_knee():
    """Two curves whose knees differ by a factor of two give knees a factor of two apart."""
    assert fit_knee(WARPS, piecewise(16.0)).x / fit_knee(WARPS, piecewise(8.0)).x == pytest.approx(2, rel=0.01)


@pytest.mark.parametrize("xs, ys, message", [
    ([1], [1], "at least two points"),
    ([1, 2], [1], "at least two points"),
    ([0, 2], [1, 2], "positive"),
    ([1, 2], [1, -2], "positive"),
    ([2, 1], [1, 2], "increase"),
    ([1, 1], [1, 2], "increase"),
])
def test_bad_points_are_refused(xs, ys, message):
    with pytest.raises(ValueError, match=message):
        fit_knee(xs, ys)


def test_the_knee_is_finite():
    assert math.isfinite(fit_knee(WARPS, piecewise(7.0)).x)
