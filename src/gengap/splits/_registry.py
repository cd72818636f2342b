"""Splitter names and option strings, as the CLI and run files write them.

``"random"``, ``"length"``, ``"primitive:primitive=jump"`` or ``"length:by=input,test_fraction=0.3"``:
a method name, then optional ``key=value`` options after a colon. A bare value after the colon
sets the method's main option (``"primitive:jump"``).
"""

from __future__ import annotations

import inspect
from typing import Any

from gengap._errors import ConfigError, did_you_mean
from gengap.splits._base import Splitter

__all__ = ["make_splitter", "parse_split_spec", "methods"]

#: The option a bare value sets, per method ("primitive:jump").
MAIN_OPTION = {"primitive": "primitive", "length": "by", "combination": "combinations", "parts": "max_train_parts",
               "mcd": "target_divergence"}


def methods() -> dict[str, type[Splitter]]:
    """Every registered splitter class by method name."""
    return dict(sorted(Splitter.registry.items()))


def _coerce(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"length:by=input"`` -> ``("length", {"by": "input"})``."""
    method, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            if method not in MAIN_OPTION:
                raise ConfigError(f"Split '{spec}': '{part}' needs the form key=value.")
            key, value = MAIN_OPTION[method], part
        options[key.strip().replace("-", "_")] = _coerce(value.strip())
    return method.strip(), options


def make_splitter(spec: str | Splitter, *, options: dict[str, Any] | None = None, **defaults: Any) -> Splitter:
    """Build a splitter from a name or spec string.

    ``options`` are the method's own options and must all exist (a typo is an error naming the
    nearest option); ``defaults`` (seed, test_fraction, ...) fill options the method has and the
    spec left unset, and are ignored by methods without them.

    >>> make_splitter("length:by=input", test_fraction=0.3)
    LengthSplit(by='input', test_fraction=0.3)
    """
    if isinstance(spec, Splitter):
        return spec
    method, parsed = parse_split_spec(spec)
    options = {**parsed, **{k.replace("-", "_"): v for k, v in (options or {}).items()}}
    registry = methods()
    if method not in registry:
        raise ConfigError(f"Unknown split method '{method}'.{did_you_mean(method, registry)} Methods: {', '.join(registry)}.")
    cls = registry[method]
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    if "seed" in defaults and "random_state" in params:
        defaults = {**defaults, "random_state": defaults["seed"]}
    for key in options:
        if key not in params:
            raise ConfigError(
                f"Split '{spec}': method '{method}' has no option '{key}'.{did_you_mean(key, params)} Options: {', '.join(params)}."
            )
    kwargs = {k: v for k, v in defaults.items() if k in params and v is not None}
    kwargs.update(options)
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ConfigError(f"Split '{spec}': {e}") from None
