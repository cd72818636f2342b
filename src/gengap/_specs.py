"""Spec strings as the CLI and run files write them: ``name`` or ``name:key=value,key=value``.

Splitters (``length:by=input``) and perturbations (``typos:rate=0.05``) share this grammar; values
are read as booleans, None, integers, floats or text, and options are checked against the
signature of what they configure, with the nearest valid name suggested for a typo.

>>> parse_spec("length:by=input,max_train_length=22", what="Split")
('length', {'by': 'input', 'max_train_length': 22})
>>> parse_value("0.05"), parse_value("true"), parse_value("none")
(0.05, True, None)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from gengap._errors import ConfigError, did_you_mean

__all__ = ["parse_value", "parse_spec", "check_options", "signature_options", "bind_options", "set_params"]


def parse_value(text: str) -> Any:
    """``"true"`` -> True, ``"none"`` -> None, ``"3"`` -> 3, ``"0.5"`` -> 0.5, anything else stays text."""
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


def parse_spec(spec: str, *, what: str, main_option: str | None = None) -> tuple[str, dict[str, Any]]:
    """Split ``"name:key=value,..."`` into the name and its options.

    A bare value after the colon sets ``main_option`` (``"primitive:jump"``); without one it is an error.
    """
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            if main_option is None:
                raise ConfigError(f"{what} '{spec}': '{part}' needs the form key=value.")
            key, value = main_option, part
        options[key.strip().replace("-", "_")] = parse_value(value.strip())
    return name.strip(), options


def signature_options(fn: Callable[..., Any]) -> list[str]:
    """The keyword options a class or factory takes (its signature without self, *args and **kwargs)."""
    target = fn.__init__ if inspect.isclass(fn) else fn  # type: ignore[misc]
    return [p.name for p in inspect.signature(target).parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def check_options(spec: str, name: str, options: Iterable[str], valid: list[str], *, what: str) -> None:
    """Raise ConfigError naming the first unknown option and the nearest valid one."""
    for key in options:
        if key not in valid:
            raise ConfigError(f"{what} '{spec}': '{name}' has no option '{key}'.{did_you_mean(key, valid)} "
                              f"Options: {', '.join(valid) or 'none'}.")


def bind_options(fn: Callable[..., Any], /, *args: Any, what: str, **options: Any) -> dict[str, Any]:
    """The arguments ``fn(*args, **options)`` would receive, its defaults filled in: one signature serves
    a function and another that takes the same options and passes them on. An option ``fn`` does not
    take is a ConfigError naming the nearest one it does.

    >>> def design(task, *, n=200, seed=0): ...
    >>> bind_options(design, "addition", seed=3, what="run_sweep")
    {'task': 'addition', 'n': 200, 'seed': 3}
    >>> bind_options(design, "addition", sed=3, what="run_sweep")
    Traceback (most recent call last):
    ...
    gengap._errors.ConfigError: run_sweep: no option 'sed'. Did you mean 'seed'? Options: n, seed.
    """
    signature = inspect.signature(fn)
    keywords = [p.name for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY]
    for key in options:
        if key not in keywords:
            raise ConfigError(f"{what}: no option '{key}'.{did_you_mean(key, keywords)} Options: {', '.join(keywords)}.")
    try:
        bound = signature.bind(*args, **options)
    except TypeError as e:
        raise ConfigError(f"{what}: {e}.") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def set_params(obj: Any, valid: Iterable[str], params: dict[str, Any]) -> None:
    """scikit-learn's ``set_params`` for an object whose parameters are its attributes ``valid``;
    an unknown name is an error.

    >>> class Thing:
    ...     seed = 0
    >>> t = Thing(); set_params(t, ["seed"], {"seed": 7}); t.seed
    7
    """
    valid = list(valid)
    for key, value in params.items():
        if key not in valid:
            raise ConfigError(f"{type(obj).__name__} has no parameter '{key}'.{did_you_mean(key, valid)} "
                              f"Parameters: {', '.join(valid) or 'none'}.")
        setattr(obj, key, value)
