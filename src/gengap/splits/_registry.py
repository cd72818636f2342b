"""Splitter names and option strings, as the CLI and run files write them.

``"random"``, ``"length"``, ``"primitive:primitive=jump"`` or ``"length:by=input,test_fraction=0.3"``:
a method name, then optional ``key=value`` options after a colon. A bare value after the colon
sets the method's main option (``"primitive:jump"``).
"""

from __future__ import annotations

from typing import Any

from gengap._errors import ConfigError
from gengap._specs import check_options, parse_spec, signature_options
from gengap.splits._base import SPLIT_METHODS, Splitter

__all__ = ["make_splitter", "parse_split_spec", "methods"]

#: The option a bare value sets, per method ("primitive:jump").
MAIN_OPTION = SPLIT_METHODS.main_options


def methods() -> dict[str, type[Splitter]]:
    """Every registered splitter class by method name."""
    return dict(sorted(SPLIT_METHODS.items()))


def parse_split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"length:by=input"`` -> ``("length", {"by": "input"})``."""
    method = spec.partition(":")[0].strip()
    return parse_spec(spec, what="Split", main_option=MAIN_OPTION.get(method))


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
    cls = SPLIT_METHODS.lookup(method)
    params = signature_options(cls)
    check_options(spec, method, options, params, what="Split")
    kwargs = {k: v for k, v in defaults.items() if k in params and v is not None}
    kwargs.update(options)
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ConfigError(f"Split '{spec}': {e}") from None
