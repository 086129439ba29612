"""What AISBench's config dump (`configs/*.py`) says about the model: budget, generation
settings, server address. The dump is optional and only gives hints."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thinkeval.config import RESERVED_GENERATION_KEYS


@dataclass
class Settings:
    """What the AISBench config dump says about the model, when it says it."""

    max_out_len: int | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    served_model: str | None = None
    base_url: str | None = None
    concurrency: int | None = None
    source: str | None = None
    dropped: list[str] = field(default_factory=list)  # generation keys thinkeval owns

    @property
    def thinking(self) -> bool | None:
        """`chat_template_kwargs.enable_thinking` as AISBench sent it, None when it sent none."""
        kwargs = self.generation.get("chat_template_kwargs")
        value = kwargs.get("enable_thinking") if isinstance(kwargs, dict) else None
        return value if isinstance(value, bool) else None


def _literal(node: ast.AST) -> Any:
    """A literal, or a `dict(...)` call of literals (mmengine dumps configs that way)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        fields: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            try:
                fields[keyword.arg] = _literal(keyword.value)
            except ValueError:
                continue  # e.g. type=VLLMCustomAPIChat: not needed, not a literal
        return fields
    return ast.literal_eval(node)


def read_settings(output_dir: Path, model: str) -> Settings:
    """The model's settings from `configs/*.py`, matched by `abbr`; empty when not found.

    The dump is optional and only gives hints, so a file that does not parse is passed over.
    """
    folder = output_dir / "configs"
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            try:
                fields = _literal(node)
            except ValueError:
                continue
            if isinstance(fields, dict) and fields.get("abbr") == model:
                return _settings(fields, str(path.relative_to(output_dir)))
    return Settings()


def _settings(fields: dict[str, Any], source: str) -> Settings:
    settings = Settings(source=source)
    if isinstance(fields.get("max_out_len"), int):
        settings.max_out_len = fields["max_out_len"]
    generation = fields.get("generation_kwargs")
    if isinstance(generation, dict):
        for key, value in generation.items():
            if key in RESERVED_GENERATION_KEYS or key == "stop":
                settings.dropped.append(key)
            else:
                settings.generation[key] = value
    if isinstance(fields.get("model"), str) and fields["model"]:
        settings.served_model = fields["model"]
    host, port = fields.get("host_ip"), fields.get("host_port")
    if isinstance(host, str) and host and isinstance(port, int):
        settings.base_url = f"http://{host}:{port}/v1"
    batch = fields.get("batch_size")
    if isinstance(batch, int) and batch > 0:
        settings.concurrency = batch  # AISBench's batch_size is its requests in flight
    return settings
