"""The OpenAI API's wire format for a reasoning model (see `profiles.Profile`)."""

from __future__ import annotations

from typing import Any

from thinkeval.sim.behaviour import Generation
from thinkeval.sim.profiles import ErrorReply, Profile


class OpenAI(Profile):
    """The OpenAI API with a reasoning model: hidden reasoning, `content: ""`, string codes."""

    name = "openai"
    version = "openai-compatible"
    legacy_split = False
    usage_by_default = False
    returns_token_ids = False  # no `return_token_ids`: nothing to continue from
    owned_by = "system"
    hides_reasoning = True
    drops_separator = True
    empty_content = ""
    none_suffix = ""

    id_hex = 29

    def split(self, gen: Generation) -> tuple[str | None, str | None]:
        if gen.thinking and not gen.closed:
            return None, ""
        content = gen.content_text
        if gen.thinking and content.startswith("\n\n"):
            content = content[2:]
        return None, content

    def completion(
        self, rid: str, created: int, model: str, gen: Generation, prompt_tokens: int
    ) -> dict[str, Any]:
        _, content = self.split(gen)
        return {
            "id": rid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": content,
                        "refusal": None,
                        "annotations": [],
                    },
                    "logprobs": None,
                    "finish_reason": gen.finish_reason,
                }
            ],
            "usage": self.usage(gen, prompt_tokens),
            "service_tier": "default",
            "system_fingerprint": None,
        }

    def usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": gen.completion_tokens,
            "total_tokens": prompt_tokens + gen.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": self.reasoning_tokens(gen),
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }

    def stream_usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        return self.usage(gen, prompt_tokens)

    def reasoning_tokens(self, gen: Generation) -> int:
        # OpenAI bills the think tags with the hidden reasoning.
        return len(gen.reasoning) + (1 if gen.thinking else 0) + (1 if gen.closed else 0)

    def stream_head(self, rid: str, created: int, model: str) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": None,
        }

    def delta(self, kind: str, text: str = "") -> dict[str, Any]:
        if kind == "role":
            return {"role": "assistant", "content": "", "refusal": None}
        return {"content": text} if kind == "content" else {}

    def choice(self, delta: dict[str, Any], kind: str, finish: str | None) -> dict[str, Any]:
        return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}

    def chunk_tail(self, kind: str, include_usage: bool) -> bytes:
        return b',"usage":null}' if include_usage else b"}"

    def error(
        self,
        status: int,
        type_: str,
        message: str,
        param: str | None = None,
        code: str | None = None,
    ) -> ErrorReply:
        return status, {"error": {"message": message, "type": type_, "param": param, "code": code}}

    def not_found(self, model: str) -> ErrorReply:
        return self.error(
            404,
            "invalid_request_error",
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )

    def invalid_json(self, detail: str) -> ErrorReply:
        return self.error(
            400,
            "invalid_request_error",
            "We could not parse the JSON body of your request. (HINT: This likely means you "
            "aren't using your HTTP library correctly.)",
        )

    def missing_messages(self) -> ErrorReply:
        return self.error(
            400,
            "invalid_request_error",
            "Missing required parameter: 'messages'.",
            "messages",
            "missing_required_parameter",
        )

    def invalid_max_tokens(self, value: object) -> ErrorReply:
        return self.error(
            400,
            "invalid_request_error",
            f"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, "
            f"but got {value} instead.",
            "max_tokens",
            "integer_below_min_value",
        )

    def unsupported_fields(self, body: dict[str, Any]) -> ErrorReply | None:
        # Reasoning models refuse the deprecated max_tokens (§7.2), and the API refuses
        # arguments it does not know, such as vLLM's chat_template_kwargs.
        if body.get("max_tokens") is not None:
            return self.error(
                400,
                "invalid_request_error",
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                "'max_completion_tokens' instead.",
                "max_tokens",
                "unsupported_parameter",
            )
        if "chat_template_kwargs" in body:
            return self.error(
                400,
                "invalid_request_error",
                "Unrecognized request argument supplied: chat_template_kwargs",
            )
        return None

    def stream_options_without_stream(self) -> ErrorReply | None:
        return self.error(
            400,
            "invalid_request_error",
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )

    def context_overflow(self, prompt: int, requested: int, max_model_len: int) -> ErrorReply:
        return self.error(
            400,
            "invalid_request_error",
            f"This model's maximum context length is {max_model_len} tokens. However, you "
            f"requested {prompt + requested} tokens ({prompt} in the messages, {requested} in "
            f"the completion). Please reduce the length of the messages or completion.",
            "messages",
            "context_length_exceeded",
        )

    def prompt_too_long(self, prompt: int, max_model_len: int) -> ErrorReply:
        return self.context_overflow(prompt, 0, max_model_len)

    def server_error(self) -> ErrorReply:
        return self.error(
            500,
            "server_error",
            "The server had an error while processing your request. Sorry about that! "
            "(simulated fault)",
        )

    def rate_limited(self, retry_after_s: float) -> ErrorReply:
        return self.error(
            429,
            "requests",
            f"Rate limit reached (simulated fault). Please try again in {retry_after_s}s.",
            code="rate_limit_exceeded",
        )

    def model_list(self, model: str, root: str, max_model_len: int, created: int) -> dict[str, Any]:
        card = {"id": model, "object": "model", "created": created, "owned_by": self.owned_by}
        return {"object": "list", "data": [card]}
