"""The base of every typed record labkit writes to disk, and the value types they share.

A record is a frozen pydantic model: unknown fields are refused, floats must be finite, and the
constraints written in the types (``Seconds`` is > 0, ``Share`` is within [0, 1]) hold on every
record that exists. The same class gives the JSON schema, the validation on write and on load,
and typed attribute access in the renderers, so a file that validates can always be rendered.
Derived figures (ratios, bandwidths) are properties, computed from the fields, never stored.
"""

from __future__ import annotations

import json
from typing import Annotated, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class Record(BaseModel):
    """Frozen, closed (no unknown field), finite floats only."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


#: A duration in seconds: measured, so strictly positive.
Seconds = Annotated[float, Field(gt=0)]
#: The longest call a lab times: no lab's timed call lasts an hour (the labs run in minutes), so a
#: longer one is a unit mistake or a forgery (a copy of 1e300 s would render as "0 GB/s").
MAX_TIMED_SECONDS = 3600.0
TimedSeconds = Annotated[float, Field(gt=0, le=MAX_TIMED_SECONDS)]
#: A count, a size, a rate: zero or more.
NonNegative = Annotated[float, Field(ge=0)]
#: Strictly positive (a bandwidth, a FLOP rate, an intensity).
Positive = Annotated[float, Field(gt=0)]
#: A fraction of a whole, 0 to 1.
Share = Annotated[float, Field(ge=0, le=1)]
#: A percentage as Nsight Compute prints it, 0 to 100 (a little above 100 is rounding).
Percent = Annotated[float, Field(ge=0, le=101)]
#: A whole number of things, zero or more.
Count = Annotated[int, Field(ge=0)]
#: A whole number of things, at least one (a size, a number of repetitions).
PositiveInt = Annotated[int, Field(gt=0)]

#: The least share of its GPU's theoretical peak a reference measurement reaches: the course's copy
#: ceiling, the FMA ceilings, cuBLAS. The rates of a slow kernel have no floor (slowness is always
#: possible), but a reference is the GPU's own speed: on the H200 they read 0.63 to 0.98 of their
#: peaks. A record whose reference reads under a tenth is not the GPU's: its times in milliseconds
#: written as seconds (every rate 1000 times too low: the audit's case of HBM at 4 GB/s), or a run
#: that shared the GPU.
MIN_REFERENCE_SHARE = 0.1


class ReferenceRate(NamedTuple):
    """A reference measurement of a record, beside the peak it is held to."""

    what: str          # where it is in the record: ``ceilings/hbm``
    rate: float
    peak: float
    unit: str          # ``GB/s``, ``GFLOP/s``
    peak_name: str     # ``theoretical HBM peak``


def below_reference_floor(rates: list[ReferenceRate]) -> str | None:
    """What is wrong with the first reference under MIN_REFERENCE_SHARE of its peak; None if none is.
    Held to a GPU's record only (labkit.records.files.parse): the simulator's stand-in timer makes any rate."""
    for r in rates:
        if r.rate < MIN_REFERENCE_SHARE * r.peak:
            return (f"{r.what}: {r.rate:.3g} {r.unit} is {r.rate / r.peak:.2%} of the GPU's {r.peak_name} "
                    f"{r.peak:.0f} {r.unit}, and a reference measurement reaches at least {MIN_REFERENCE_SHARE:.0%} "
                    "of it: its times are not this GPU's (milliseconds written as seconds?)")
    return None


class Spread(Record):
    """Repeated measurements of one duration: their median, with min and max beside it."""

    median_seconds: TimedSeconds
    min_seconds: TimedSeconds
    max_seconds: TimedSeconds
    repeats: Annotated[int, Field(ge=1)]

    @model_validator(mode="after")
    def _ordered(self) -> Spread:
        if not self.min_seconds <= self.median_seconds <= self.max_seconds:
            raise ValueError(f"min {self.min_seconds:g} <= median {self.median_seconds:g} <= max "
                             f"{self.max_seconds:g} does not hold")
        return self


def describe_validation_error(error: ValidationError) -> str:
    """The first problem of a pydantic error as 'field a/b/0/c: what is wrong'."""
    first = error.errors(include_url=False)[0]
    where = "/".join(str(part) for part in first["loc"]) or "(top level)"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] in ("missing", "extra_forbidden"):
        return f"field {where}: {message.lower()}"
    value = first.get("input")
    shown = "" if isinstance(value, (dict, list)) else f" (it holds {json.dumps(value)[:60]})"
    return f"field {where}: {message}{shown}"
