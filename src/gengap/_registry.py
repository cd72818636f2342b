"""One small registry for everything gengap names: split methods, perturbations, metrics, answer kinds,
tasks, report sections and training-time measures.

Each kind of thing has one :class:`Registry`. Entries are added by name, explicitly
(``registry.register("name", obj)`` or as a decorator); a second entry under a taken name is an error
unless ``replace=True`` says it is meant. Lookups of an unknown name suggest the nearest one, and
:meth:`Registry.parse` reads the ``name:key=value,...`` specs of the CLI and run files with the
shared grammar of :mod:`gengap._specs`, checking each option against what the entry accepts.

>>> metrics = Registry("metric")
>>> @metrics.register("exact")
... def exact(outputs, targets):
...     return [float(o == t) for o, t in zip(outputs, targets)]
>>> metrics["exact"](["a"], ["a"])
[1.0]
>>> metrics.lookup("exakt")
Traceback (most recent call last):
...
gengap._errors.ConfigError: Unknown metric 'exakt'. Did you mean 'exact'? Known: exact.
>>> metrics.register("exact", lambda outputs, targets: [0.0] * len(outputs))  # another one under a taken name
Traceback (most recent call last):
...
gengap._errors.ConfigError: A metric named 'exact' is already registered; pass replace=True to replace it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar, overload

from gengap._errors import ConfigError, did_you_mean
from gengap._specs import check_options, parse_spec, signature_options

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Mapping[str, T], Generic[T]):
    """Entries of one kind by name: a read-only mapping with explicit registration.

    Parameters
    ----------
    what : the kind of entry, as messages name it ("split method", "perturbation", "metric", ...).
    main_options : per name, the option a bare value after the colon sets (``"primitive:jump"``).
    listed_as : how an unknown name's message introduces the known ones ("Known", "Methods", ...).
    hint : a sentence the message ends with (how to add an entry, say).
    """

    def __init__(self, what: str, *, main_options: Mapping[str, str] | None = None, listed_as: str = "Known",
                 hint: str = "") -> None:
        self.what = what
        self.main_options = dict(main_options or {})
        self.listed_as, self.hint = listed_as, hint
        self._entries: dict[str, T] = {}

    # -- registration ------------------------------------------------------------
    @overload
    def register(self, name: str, obj: None = None, *, replace: bool = False) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, obj: T, *, replace: bool = False) -> T: ...

    def register(self, name: str, obj: T | None = None, *, replace: bool = False) -> T | Callable[[T], T]:
        """Add ``obj`` under ``name`` (or decorate: ``@registry.register("name")``); returns ``obj``."""
        if not isinstance(name, str) or not name.strip() or any(c in name for c in ":,="):
            raise ConfigError(f"A {self.what} name must be non-empty text without ':', ',' or '='; got {name!r}.")

        def add(entry: T) -> T:
            if name in self._entries and self._entries[name] is not entry and not replace:
                raise ConfigError(f"A {self.what} named '{name}' is already registered; pass replace=True to replace it.")
            self._entries[name] = entry
            return entry

        return add if obj is None else add(obj)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (no error when it is absent)."""
        self._entries.pop(name, None)

    # -- lookup ------------------------------------------------------------------
    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, names={sorted(self._entries)})"

    def lookup(self, name: str, *, also: Iterable[str] = ()) -> T:
        """The entry called ``name``; an unknown name is a ConfigError suggesting the nearest one
        (among the entries and ``also``, names the caller resolves itself, such as families)."""
        if name in self._entries:
            return self._entries[name]
        known = sorted(self._entries) + sorted(set(also) - set(self._entries))
        raise ConfigError(f"Unknown {self.what} '{name}'.{did_you_mean(name, known)} {self.listed_as}: "
                          f"{', '.join(known) or 'none'}.{' ' + self.hint if self.hint else ''}")

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        return sorted(self._entries)

    def options(self, name: str) -> list[str]:
        """The keyword options the entry ``name`` takes (its signature), for listings and checks."""
        entry = self.lookup(name)
        return signature_options(entry) if callable(entry) else []

    def describe(self) -> dict[str, list[str]]:
        """Every name with its options: what ``gengap ... list`` commands print."""
        return {name: self.options(name) for name in self.names()}

    def parse(self, spec: str) -> tuple[str, dict[str, Any]]:
        """``"name:key=value,..."`` -> (name, options), the name known and every option one the entry takes.

        >>> r = Registry("split method", main_options={"primitive": "primitive"})
        >>> def primitive(*, primitive="jump", seed=0): ...
        >>> _ = r.register("primitive", primitive)
        >>> r.parse("primitive:walk"), r.parse("primitive:seed=3")
        (('primitive', {'primitive': 'walk'}), ('primitive', {'seed': 3}))
        """
        if not isinstance(spec, str) or not spec.strip():
            raise ConfigError(f"A {self.what} spec must be a name such as 'name' or 'name:key=value'; got {spec!r}.")
        head = spec.strip().partition(":")[0].strip()
        self.lookup(head)
        name, options = parse_spec(spec, what=self.what.capitalize(), main_option=self.main_options.get(head))
        check_options(spec, name, options, self.options(name), what=self.what.capitalize())
        return name, options
