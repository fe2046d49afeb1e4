"""The JSON round trip shared by the profiling records whose fields are plain values."""

from __future__ import annotations

from typing import Any, TypeVar

_Record = TypeVar("_Record", bound="FlatRecord")


class FlatRecord:
    """to_dict / from_dict for a dataclass whose fields are all JSON values (no nested records):
    the dict is the fields by name, and the fields are the dict's keys."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls: type[_Record], data: dict[str, Any]) -> _Record:
        return cls(**data)
