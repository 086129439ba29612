"""The base of every part of the report: immutable, and strict when read back."""

from __future__ import annotations

import msgspec


class Frozen(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An immutable part of the report."""
