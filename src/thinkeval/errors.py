"""User-facing errors.

A `ThinkevalError` is a mistake in the user's input or environment (config, dataset, server). The
CLI prints its message on one line and exits non-zero, never a traceback. Messages name the file,
line or field, and say what to do next.
"""

from __future__ import annotations


class ThinkevalError(Exception):
    """An error the user can fix; the CLI shows only its message."""

    exit_code = 2


class ConfigError(ThinkevalError):
    """The YAML config is invalid."""


class DatasetError(ThinkevalError):
    """A dataset file is missing or malformed."""


class ServerError(ThinkevalError):
    """The server is unreachable, serves another model, or answers in a shape we cannot read."""


class JournalError(ThinkevalError):
    """The run directory cannot be read or written."""


class ArgumentError(ThinkevalError, ValueError):
    """A Python API call got an argument it cannot use (an unknown task or scorer, a
    finish_reason no server sends); a ValueError too, for callers that catch those."""
