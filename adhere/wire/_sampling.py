"""Sampling settings, tool choice and stop reasons in every API shape, read and written.

A call's output cap, temperature, nucleus sampling, stop sequences, tool choice and
reasoning budget live in different fields in each shape; :class:`Sampling` holds
them in neutral terms. :func:`read_sampling` reads them from a request body,
:func:`write_sampling` writes them into one (the recording proxy uses both: to carry
them across a translation, and to apply an endpoint's :class:`Controls` to every
call a scaffold makes). :func:`stop_of` reads why a reply ended.

Reasoning: ``reasoning_effort`` (``none`` / ``minimal`` / ``low`` / ``medium`` /
``high``) is native to the two OpenAI shapes; Anthropic and Gemini take a token budget,
which an effort is turned into by :data:`EFFORT_BUDGETS` (``none`` is 0: no Anthropic
thinking, a Gemini budget of 0), and a budget into an effort by the nearest step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from adhere.spec import EFFORT_BUDGETS, Effort
from adhere.wire._reassemble_base import Api
from adhere.wire._server_codec import StopReason

__all__ = [
    "EFFORT_BUDGETS",
    "Controls",
    "Effort",
    "Sampling",
    "ToolChoice",
    "apply_controls",
    "read_sampling",
    "stop_of",
    "write_sampling",
]

ToolChoice = str
"""``auto``, ``none``, ``required``, or the name of the one tool the model must call."""


@dataclass(frozen=True)
class Sampling:
    """A request's sampling settings in neutral terms; ``None`` means "not set"."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    tool_choice: ToolChoice | None = None
    reasoning_effort: Effort | None = None
    thinking_budget: int | None = None


@dataclass(frozen=True)
class Controls:
    """What an endpoint imposes on every call a scaffold makes, applied at the proxy.

    Attributes:
        max_output_tokens: Cap on each reply's output tokens (the request's own cap
            is lowered to it, or set when the request had none).
        temperature: Sampling temperature, replacing the scaffold's.
        reasoning_effort: Reasoning effort, replacing the scaffold's.
        thinking_budget: Thinking-token budget (Anthropic, Gemini), replacing the
            scaffold's; the OpenAI shapes get the nearest effort.
    """

    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: Effort | None = None
    thinking_budget: int | None = None

    @property
    def empty(self) -> bool:
        """Whether nothing is imposed."""
        return self == Controls()

    def impose(self, sampling: Sampling) -> Sampling:
        """``sampling`` with these controls applied."""
        cap = sampling.max_tokens
        if self.max_output_tokens is not None:
            cap = self.max_output_tokens if cap is None else min(cap, self.max_output_tokens)
        effort, budget = sampling.reasoning_effort, sampling.thinking_budget
        if self.reasoning_effort is not None or self.thinking_budget is not None:
            effort, budget = self.reasoning_effort, self.thinking_budget
        return replace(
            sampling,
            max_tokens=cap,
            temperature=self.temperature if self.temperature is not None else sampling.temperature,
            reasoning_effort=effort,
            thinking_budget=budget,
        )


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _stops(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _effort(value: Any) -> Effort | None:
    return value if value in EFFORT_BUDGETS else None


def read_sampling(api: Api, body: dict[str, Any]) -> Sampling:
    """The sampling settings of a request body in ``api``'s shape (unknown values ignored)."""
    if api == "anthropic":
        thinking = body.get("thinking")
        budget = None
        if isinstance(thinking, dict) and thinking.get("type") == "enabled":
            budget = _int(thinking.get("budget_tokens"))
        return Sampling(
            max_tokens=_int(body.get("max_tokens")),
            temperature=_num(body.get("temperature")),
            top_p=_num(body.get("top_p")),
            stop=_stops(body.get("stop_sequences")),
            tool_choice=_anthropic_choice(body.get("tool_choice")),
            thinking_budget=budget,
        )
    if api == "gemini":
        config = body.get("generationConfig")
        config = config if isinstance(config, dict) else {}
        thinking = config.get("thinkingConfig")
        budget = _int(thinking.get("thinkingBudget")) if isinstance(thinking, dict) else None
        return Sampling(
            max_tokens=_int(config.get("maxOutputTokens")),
            temperature=_num(config.get("temperature")),
            top_p=_num(config.get("topP")),
            stop=_stops(config.get("stopSequences")),
            tool_choice=_gemini_choice(body.get("toolConfig")),
            reasoning_effort="none" if budget == 0 else None,
            thinking_budget=budget if budget and budget > 0 else None,
        )
    if api == "openai-responses":
        reasoning = body.get("reasoning")
        return Sampling(
            max_tokens=_int(body.get("max_output_tokens")),
            temperature=_num(body.get("temperature")),
            top_p=_num(body.get("top_p")),
            tool_choice=_openai_choice(body.get("tool_choice")),
            reasoning_effort=_effort(reasoning.get("effort"))
            if isinstance(reasoning, dict)
            else None,
        )
    cap = body.get("max_completion_tokens", body.get("max_tokens"))
    return Sampling(
        max_tokens=_int(cap),
        temperature=_num(body.get("temperature")),
        top_p=_num(body.get("top_p")),
        stop=_stops(body.get("stop")),
        tool_choice=_openai_choice(body.get("tool_choice")),
        reasoning_effort=_effort(body.get("reasoning_effort")),
    )


def write_sampling(api: Api, body: dict[str, Any], sampling: Sampling, *, has_tools: bool) -> None:
    """Write ``sampling`` into a request body in ``api``'s shape.

    Fields ``sampling`` leaves unset are not touched; Anthropic always gets
    ``max_tokens``, which it requires.
    """
    effort, budget = sampling.reasoning_effort, sampling.thinking_budget
    if api == "anthropic":
        _put(body, "max_tokens", sampling.max_tokens or body.get("max_tokens") or 4096)
        _put(body, "temperature", sampling.temperature)
        _put(body, "top_p", sampling.top_p)
        if sampling.stop:
            body["stop_sequences"] = list(sampling.stop)
        if has_tools and sampling.tool_choice is not None:
            body["tool_choice"] = _to_anthropic_choice(sampling.tool_choice)
        budget = budget or (EFFORT_BUDGETS[effort] if effort else None)
        if budget:  # none (0): no thinking
            # The API wants the budget below max_tokens, and at least 1,024.
            budget = max(1024, min(budget, int(body["max_tokens"]) - 1))
            if budget < int(body["max_tokens"]):
                body["thinking"] = {"type": "enabled", "budget_tokens": budget}
                # Thinking takes no temperature other than 1, and no top_p below 0.95.
                if body.get("temperature") not in (None, 1, 1.0):
                    del body["temperature"]
                top_p = body.get("top_p")
                if isinstance(top_p, int | float) and top_p < 0.95:
                    del body["top_p"]
        return
    if api == "gemini":
        config = body.setdefault("generationConfig", {})
        _put(config, "maxOutputTokens", sampling.max_tokens)
        _put(config, "temperature", sampling.temperature)
        _put(config, "topP", sampling.top_p)
        if sampling.stop:
            config["stopSequences"] = list(sampling.stop)
        budget = budget or (EFFORT_BUDGETS[effort] if effort else None)
        if budget is not None:  # none: a budget of 0, thinking off
            config["thinkingConfig"] = {
                **config.get("thinkingConfig", {}),
                "thinkingBudget": budget,
            }
        if not config:
            del body["generationConfig"]
        if has_tools and sampling.tool_choice is not None:
            body["toolConfig"] = {"functionCallingConfig": _to_gemini_choice(sampling.tool_choice)}
        return
    effort = effort or (_nearest_effort(budget) if budget else None)
    if api == "openai-responses":
        _put(body, "max_output_tokens", sampling.max_tokens)
        if effort:
            body["reasoning"] = {**(body.get("reasoning") or {}), "effort": effort}
    else:
        if sampling.max_tokens is not None:
            key = "max_completion_tokens" if "max_completion_tokens" in body else "max_tokens"
            body[key] = sampling.max_tokens
        if sampling.stop:
            body["stop"] = list(sampling.stop)
        _put(body, "reasoning_effort", effort)
    _put(body, "temperature", sampling.temperature)
    _put(body, "top_p", sampling.top_p)
    if has_tools and sampling.tool_choice is not None:
        body["tool_choice"] = _to_openai_choice(api, sampling.tool_choice)


def apply_controls(api: Api, body: dict[str, Any], controls: Controls) -> dict[str, Any]:
    """A copy of a request body in ``api``'s shape with ``controls`` imposed."""
    if controls.empty:
        return body
    out = dict(body)
    if isinstance(out.get("generationConfig"), dict):
        out["generationConfig"] = dict(out["generationConfig"])
    sampling = controls.impose(read_sampling(api, body))
    if controls.reasoning_effort is not None or controls.thinking_budget is not None:
        for key in ("thinking", "reasoning", "reasoning_effort"):
            out.pop(key, None)
        if isinstance(out.get("generationConfig"), dict):
            out["generationConfig"].pop("thinkingConfig", None)
    write_sampling(api, out, sampling, has_tools=False)
    return out


def stop_of(api: Api, response: Any) -> StopReason | None:
    """Why the reply in a (non-streaming) response ended; ``None`` when it does not say."""
    if not isinstance(response, dict):
        return None
    if api == "anthropic":
        reason = response.get("stop_reason")
        return _ANTHROPIC_STOPS.get(reason, "other") if reason else None
    if api == "openai-chat":
        choices = response.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            reason = choices[0].get("finish_reason")
            return _OPENAI_STOPS.get(reason, "other") if reason else None
        return None
    if api == "openai-responses":
        details = response.get("incomplete_details")
        if response.get("status") == "incomplete" and isinstance(details, dict):
            if details.get("reason") == "content_filter":
                return "refusal"
            return "max_tokens"
        output = response.get("output")
        if isinstance(output, list):
            kinds = {item.get("type") for item in output if isinstance(item, dict)}
            if kinds & {"function_call", "custom_tool_call", "local_shell_call"}:
                return "tool_calls"
            refused = any(
                isinstance(part, dict) and part.get("type") == "refusal"
                for item in output
                if isinstance(item, dict)
                for part in (item.get("content") or [])
            )
            if refused:
                return "refusal"
        return "end" if response.get("status") == "completed" else None
    candidates = response.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
        reason = candidates[0].get("finishReason")
        if reason == "STOP":
            parts = (candidates[0].get("content") or {}).get("parts") or []
            calls = any(isinstance(p, dict) and "functionCall" in p for p in parts)
            return "tool_calls" if calls else "end"
        return _GEMINI_STOPS.get(reason, "other") if reason else None
    return None


_ANTHROPIC_STOPS: dict[Any, StopReason] = {
    "end_turn": "end",
    "tool_use": "tool_calls",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "other",
}
_OPENAI_STOPS: dict[Any, StopReason] = {
    "stop": "end",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_GEMINI_STOPS: dict[Any, StopReason] = {
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "BLOCKLIST": "refusal",
    "SPII": "refusal",
}


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


def _nearest_effort(budget: int) -> Effort:
    best: Effort = "minimal"
    for name, tokens in EFFORT_BUDGETS.items():
        if name != "none" and abs(tokens - budget) < abs(EFFORT_BUDGETS[best] - budget):
            best = name  # type: ignore[assignment]
    return best


def _anthropic_choice(value: Any) -> ToolChoice | None:
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind == "tool" and isinstance(value.get("name"), str):
        return str(value["name"])
    return {"auto": "auto", "any": "required", "none": "none"}.get(str(kind))


def _openai_choice(value: Any) -> ToolChoice | None:
    if value in ("auto", "none", "required"):
        return str(value)
    if isinstance(value, dict):
        function = value.get("function")
        name = function.get("name") if isinstance(function, dict) else value.get("name")
        return name if isinstance(name, str) else None
    return None


def _gemini_choice(value: Any) -> ToolChoice | None:
    if not isinstance(value, dict) or not isinstance(value.get("functionCallingConfig"), dict):
        return None
    config = value["functionCallingConfig"]
    mode = str(config.get("mode", "AUTO")).upper()
    names = config.get("allowedFunctionNames")
    if mode == "ANY" and isinstance(names, list) and len(names) == 1 and isinstance(names[0], str):
        return names[0]
    return {"AUTO": "auto", "ANY": "required", "NONE": "none"}.get(mode)


def _to_anthropic_choice(choice: ToolChoice) -> dict[str, Any]:
    if choice in ("auto", "none"):
        return {"type": choice}
    if choice == "required":
        return {"type": "any"}
    return {"type": "tool", "name": choice}


def _to_openai_choice(api: Api, choice: ToolChoice) -> Any:
    if choice in ("auto", "none", "required"):
        return choice
    if api == "openai-responses":
        return {"type": "function", "name": choice}
    return {"type": "function", "function": {"name": choice}}


def _to_gemini_choice(choice: ToolChoice) -> dict[str, Any]:
    if choice in ("auto", "none"):
        return {"mode": choice.upper()}
    if choice == "required":
        return {"mode": "ANY"}
    return {"mode": "ANY", "allowedFunctionNames": [choice]}
